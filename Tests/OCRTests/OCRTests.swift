// The OCR stage on text whose content is known because the test sets it with the project's own
// typesetter, and on a sample-book scan whose text is in its book.json.
import Codecs
import Foundation
import Geometry
import OCR
import Raster
import Testing
import Typesetting

/// Character error rate: edit distance over the reference length, on whitespace-collapsed text.
func characterErrorRate(_ hypothesis: String, _ reference: String) -> Double {
    func norm(_ s: String) -> [Character] { Array(s.split(whereSeparator: \.isWhitespace).joined(separator: " ")) }
    let h = norm(hypothesis), r = norm(reference)
    guard !r.isEmpty else { return h.isEmpty ? 0 : 1 }
    var row = Array(0...h.count)
    for i in 1...r.count {
        var previous = row[0]
        row[0] = i
        for j in stride(from: 1, through: h.count, by: 1) {
            let saved = row[j]
            row[j] = min(row[j] + 1, row[j - 1] + 1, previous + (r[i - 1] == h[j - 1] ? 0 : 1))
            previous = saved
        }
    }
    return Double(row[h.count]) / Double(r.count)
}

/// A page of `size` in `background` with `text` set at `origin` in a `box`-sized area.
func page(
    _ text: String, size fontSize: Double, box: Size, origin: Point = Point(x: 40, y: 30), pageSize: (Int, Int) = (900, 400),
    background: RGBA8 = RGBA8(r: 246, g: 238, b: 220), ink: RGBA8 = RGBA8(r: 28, g: 24, b: 20), style: TextStyle = TextStyle(language: "en")
) throws -> (Bitmap<RGBA8>, PixelRect) {
    let layout = try Typesetter().layout(text, size: fontSize, in: box, style: style)
    var image = Bitmap<RGBA8>(width: pageSize.0, height: pageSize.1, fill: background)
    layout.draw(into: &image, at: origin, color: ink)
    let rect = PixelRect(x: Int(origin.x), y: Int(origin.y), width: Int(box.width), height: Int(box.height))
    return (image, rect)
}

@Suite struct OCRReadingTests {
    @Test func readsAnEnglishLineSetByTheTypesetter() throws {
        let text = "The quick brown fox jumps over the lazy dog."
        let (image, rect) = try page(text, size: 28, box: Size(width: 800, height: 50))
        let result = try OCREngine().recognize(image, region: OCRRegion(rect: rect, language: "en"))
        #expect(result.model == "eng")
        #expect(result.segmentation == .line)
        #expect(characterErrorRate(result.text, text) <= 0.03, "read \(result.text)")
        #expect(result.confidence > 0.7)
        #expect(result.words.count >= 8)
    }

    @Test func readsSmallTextByEnlargingIt() throws {
        // 10-px type: x-height about 5 px, far below what Tesseract's models were trained on.
        let text = "Pepper the cat sat by the lamp all night long."
        let (image, rect) = try page(text, size: 11, box: Size(width: 320, height: 20))
        let result = try OCREngine().recognize(image, region: OCRRegion(rect: rect, language: "en"))
        #expect(result.scale > 2)
        #expect(characterErrorRate(result.text, text) <= 0.1, "read \(result.text)")
    }

    @Test func readsSeveralLinesAsOneParagraph() throws {
        let text = "Long ago an old keeper lived in a lighthouse on a rocky island, and every night he climbed the stairs."
        let (image, rect) = try page(text, size: 26, box: Size(width: 420, height: 150))
        let result = try OCREngine().recognize(image, region: OCRRegion(rect: rect, language: "en"))
        #expect(result.lineCount >= 2)
        #expect(result.segmentation == .block)
        #expect(!result.text.contains("\n"))
        #expect(characterErrorRate(result.text, text) <= 0.03, "read \(result.text)")

        // Set solid, descenders touch the next line's ascenders: still read as a block, not one line.
        let solid = TextStyle(language: "en", lineSpacing: 0.95)
        let (tightImage, tightRect) = try page(text, size: 26, box: Size(width: 420, height: 110), style: solid)
        let tight = try OCREngine().recognize(tightImage, region: OCRRegion(rect: tightRect, language: "en"))
        #expect(tight.segmentation == .block)
        #expect(characterErrorRate(tight.text, text) <= 0.05, "read \(tight.text)")
    }

    @Test func readsLightLettersOnADarkGroundWithoutBeingTold() throws {
        let text = "Night fell over the harbour"
        let (image, rect) = try page(
            text, size: 30, box: Size(width: 600, height: 50), background: RGBA8(r: 20, g: 30, b: 80), ink: RGBA8(r: 250, g: 240, b: 200))
        let result = try OCREngine().recognize(image, region: OCRRegion(rect: rect, language: "en"))
        #expect(characterErrorRate(result.text, text) <= 0.05, "read \(result.text)")
        let model = try OCRLanguages.model(for: "en", vertical: false)
        let seen = try RegionNormalizer.normalize(page: image, rect: rect, model: model, vertical: false, polarity: nil)
        #expect(seen.inverted)
        // Ink black on white: the border is white and the darkest pixels are near black.
        #expect(seen.image[0, 0] == 255)
        #expect((seen.image.pixels.min() ?? 255) < 40)
        // Keyed on the ink colour instead, the polarity does not matter.
        let keyed = try RegionNormalizer.normalize(
            page: image, rect: rect, model: model, vertical: false, polarity: nil, ink: RGBA8(r: 250, g: 240, b: 200))
        #expect(!keyed.inverted)
        #expect((keyed.image.pixels.min() ?? 255) < 40)
        let read = try OCREngine().recognize(image, region: OCRRegion(rect: rect, language: "en", inkColor: RGBA8(r: 250, g: 240, b: 200)))
        #expect(characterErrorRate(read.text, text) <= 0.05, "read \(read.text)")
    }

    @Test func readsFrenchWithTheFrenchModel() throws {
        let text = "Le gardien n’avait pas de famille, mais il avait un chat gris."
        let (image, rect) = try page(text, size: 26, box: Size(width: 820, height: 46), style: TextStyle(language: "fr"))
        let result = try OCREngine().recognize(image, region: OCRRegion(rect: rect, language: "fr"))
        #expect(result.model == "fra")
        #expect(characterErrorRate(result.text, text) <= 0.05, "read \(result.text)")
    }

    @Test func readsVerticalJapaneseWithTheVerticalModel() throws {
        let text = "むかしむかし山の上に小さな家がありました"
        let style = TextStyle(language: "ja", writingMode: .verticalRightToLeft)
        let (image, rect) = try page(text, size: 40, box: Size(width: 110, height: 500), pageSize: (300, 600), style: style)
        let result = try OCREngine().recognize(image, region: OCRRegion(rect: rect, language: "ja", vertical: true))
        #expect(result.model == "jpn_vert")
        #expect(result.segmentation == .verticalBlock)
        #expect(characterErrorRate(result.text, text) <= 0.15, "read \(result.text)")
    }

    @Test func readsASampleBookScan() throws {
        // lighthouse-cat page 3, box p003-b2: a generated scan with paper texture, blur and JPEG.
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let scan = root.appendingPathComponent("Books/lighthouse-cat/page-003.jpg").path
        let image = try ImageDecoder.decode(file: scan)
        let result = try OCREngine().recognize(image, region: OCRRegion(rect: PixelRect(x: 85, y: 692, width: 752, height: 74), language: "en"))
        let truth = "Long ago, an old keeper lived in a lighthouse on a rocky island."
        #expect(characterErrorRate(result.text, truth) <= 0.03, "read \(result.text)")
    }

    @Test func aBoxOutsideThePageIsAnErrorNotACrash() throws {
        let image = Bitmap<RGBA8>(width: 100, height: 100, fill: .white)
        #expect(throws: OCRError.self) {
            try OCREngine().recognize(image, region: OCRRegion(rect: PixelRect(x: 500, y: 500, width: 40, height: 20), language: "en"))
        }
    }

    @Test func aBlankBoxReadsAsNothingWithZeroConfidence() throws {
        let image = Bitmap<RGBA8>(width: 300, height: 100, fill: RGBA8(gray: 240))
        let result = try OCREngine().recognize(image, region: OCRRegion(rect: PixelRect(x: 20, y: 20, width: 200, height: 40), language: "en"))
        #expect(result.text.isEmpty)
        #expect(result.confidence == 0)
    }
}

@Suite struct OCRLanguageTests {
    @Test func mapsBookLanguagesToTesseractModels() throws {
        #expect(try OCRLanguages.model(for: "en", vertical: false).name == "eng")
        #expect(try OCRLanguages.model(for: "ar", vertical: false).name == "ara")
        #expect(try OCRLanguages.model(for: "zh-Hans", vertical: false).name == "chi_sim")
        #expect(try OCRLanguages.model(for: "zh-Hans", vertical: true).name == "chi_sim_vert")
        #expect(try OCRLanguages.model(for: "zh-TW", vertical: false).name == "chi_tra")
        #expect(try OCRLanguages.model(for: "ja", vertical: true).name == "jpn_vert")
        #expect(try OCRLanguages.model(for: "es-419", vertical: false).name == "spa")
        #expect(try OCRLanguages.model(for: "mn-Cyrl", vertical: false).name == "mon")
        // A vertical box in a language with no vertical model is turned, not read with another model.
        #expect(try OCRLanguages.model(for: "en", vertical: true).name == "eng")
        #expect(try OCRLanguages.model(for: "ja", vertical: true).package == "tesseract-ocr-jpn-vert")
    }

    @Test func languagesWithoutAModelAreReportedNotGuessed() {
        // Traditional Mongolian has no Tesseract model; "mn" alone would be Cyrillic Mongolian.
        #expect(throws: OCRError.unsupportedLanguage("mn-Mong")) { try OCRLanguages.model(for: "mn-Mong", vertical: true) }
        #expect(throws: OCRError.unsupportedLanguage("tlh")) { try OCRLanguages.model(for: "tlh", vertical: false) }
        #expect(throws: OCRError.unsupportedLanguage("")) { try OCRLanguages.model(for: "", vertical: false) }
        #expect("\(OCRError.unsupportedLanguage("mn-Mong"))".contains("left for a person"))
    }

    @Test func aModelMissingFromTheNamedFolderNamesItsPackage() throws {
        let empty = NSTemporaryDirectory() + "pb-tessdata-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: empty, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: empty) }
        do {
            _ = try OCREngine(dataPath: empty).check(language: "zh-Hans", vertical: true)
            Issue.record("expected a missing-model error")
        } catch {
            guard case .modelNotInstalled(_, let model, let package, _) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(model == "chi_sim_vert")
            #expect(package == "tesseract-ocr-chi-sim-vert")
            #expect(error.description.contains(empty))
        }
    }

    @Test func tidiesTesseractLayoutIntoBookText() {
        #expect(OCREngine.tidy("The won-\nderful  cat\nsat.\n", script: .alphabetic) == "The wonderful cat sat.")
        #expect(OCREngine.tidy("first para\n\nsecond\npara\n", script: .alphabetic) == "first para\nsecond para")
        // An author's hyphen before a capital stays.
        #expect(OCREngine.tidy("Jean-\nPaul", script: .alphabetic) == "Jean-Paul")
        #expect(OCREngine.tidy("山の\n上に\n", script: .cjk) == "山の上に")
        #expect(OCREngine.tidy("むか し 山 の Tokyo Tower へ", script: .cjk) == "むかし山のTokyo Towerへ")
    }
}
