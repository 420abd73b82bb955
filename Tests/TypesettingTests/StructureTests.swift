import Foundation
import Geometry
import Raster
import Testing
@testable import Typesetting

/// Glyphs of a layout with their run, flattened.
private func glyphs(_ layout: TextLayout) -> [(glyph: PositionedGlyph, run: GlyphRun, line: Int)] {
    var out: [(PositionedGlyph, GlyphRun, Int)] = []
    for (i, line) in layout.lines.enumerated() {
        for run in line.runs { for g in run.glyphs { out.append((g, run, i)) } }
    }
    return out
}

/// Scalar offset of the first occurrence of `needle` in `text`.
private func scalarOffset(of needle: String, in text: String) -> Int? {
    let hay = Array(text.unicodeScalars), n = Array(needle.unicodeScalars)
    guard n.count <= hay.count else { return nil }
    for i in 0...(hay.count - n.count) where Array(hay[i..<i + n.count]) == n { return i }
    return nil
}

private func xOfCluster(_ layout: TextLayout, _ cluster: Int) -> Double? {
    glyphs(layout).first { $0.glyph.cluster == cluster }?.glyph.origin.x
}

@Suite struct FontTests {
    @Test(arguments: [
        (Script.latin, "en", "Noto Sans"),
        (Script.arabic, "ar", "Noto Naskh Arabic"),
        (Script.hebrew, "he", "Noto Sans Hebrew"),
        (Script.mongolian, "mn", "Noto Sans Mongolian"),
        (Script.han, "zh-Hans", "Noto Sans CJK SC"),
        (Script.han, "zh-Hant", "Noto Sans CJK TC"),
        (Script.han, "ja", "Noto Sans CJK JP"),
        (Script.hangul, "ko", "Noto Sans CJK KR"),
        (Script.devanagari, "hi", "Noto Sans Devanagari"),
        (Script.thai, "th", "Noto Sans Thai"),
    ])
    func fallbackChainStartsWithTheScriptsFace(_ script: Script, _ language: String, _ family: String) throws {
        let chain = FontRegistry.system.fallbackChain(for: script, language: language)
        let first = try #require(chain.first, "no face for \(script)")
        #expect(first.family == family)
        // Every chain ends with faces that have Latin, so digits and punctuation always resolve.
        #expect(chain.contains { $0.family == "Noto Sans" || $0.family.hasPrefix("Noto Sans CJK") })
    }

    @Test func mixedStringPicksAFacePerScript() throws {
        let text = "Fox ثعلب שועל 狐狸 लोमड़ी จิ้งจอก"
        let layout = try Typesetter().layout(text, size: 20, in: Size(width: 2000, height: 100), style: TextStyle(language: "en"))
        var families: [String: String] = [:]
        for run in layout.glyphRuns { families[run.script.code] = run.face.info.family }
        #expect(families["Latn"] == "Noto Sans")
        #expect(families["Arab"] == "Noto Naskh Arabic")
        #expect(families["Hebr"] == "Noto Sans Hebrew")
        #expect(families["Hani"]?.hasPrefix("Noto Sans CJK") == true)
        #expect(families["Deva"] == "Noto Sans Devanagari")
        #expect(families["Thai"] == "Noto Sans Thai")
        // No .notdef (glyph 0) anywhere.
        #expect(glyphs(layout).allSatisfy { $0.glyph.id != 0 })
    }

    @Test(arguments: SampleCase.all)
    func everySampleFindsAGlyphForEveryCharacter(_ c: SampleCase) throws {
        let layout = try Typesetter().fit(c.text, in: c.box, style: c.style)
        #expect(layout.glyphCount > 0)
        #expect(glyphs(layout).allSatisfy { $0.glyph.id != 0 }, "a .notdef box in \(c.name)")
        #expect(!layout.overflows)
        // No outline is clipped by the box edge.
        #expect(layout.inkFits, "\(c.name): ink \(String(describing: layout.inkBounds)) outside \(c.box)")
        // The ink box is really the ink: the rendered pixels lie inside it (plus a pixel of AA).
        let image = layout.render(background: .white, color: .black)
        let ink = try #require(layout.inkBounds)
        for y in 0..<image.height {
            for x in 0..<image.width where image[x, y] != .white {
                #expect(Double(x) >= ink.minX - 1.5 && Double(x) <= ink.maxX + 1 && Double(y) >= ink.minY - 1.5 && Double(y) <= ink.maxY + 1,
                        "\(c.name): pixel (\(x), \(y)) outside ink \(ink)")
                if !(Double(x) >= ink.minX - 1.5 && Double(x) <= ink.maxX + 1 && Double(y) >= ink.minY - 1.5 && Double(y) <= ink.maxY + 1) { return }
            }
        }
    }

    @Test func fittedInkStaysInsideTheBox() throws {
        // A large Arabic fit whose first glyph's outline reaches past its advance.
        let layout = try Typesetter().fit(
            "كان يا ما كان، في قديم الزمان، ثعلب صغير يعيش على حافة غابة هادئة.",
            in: Size(width: 600, height: 300), style: TextStyle(language: "ar", maximumSize: 96))
        #expect(layout.inkFits, "ink \(String(describing: layout.inkBounds))")
        let mongolian = try Typesetter().fit(
            "ᠮᠣᠩᠭᠣᠯ ᠪᠢᠴᠢᠭ", in: Size(width: 200, height: 400),
            style: TextStyle(language: "mn", writingMode: .verticalLeftToRight, maximumSize: 120))
        #expect(mongolian.inkFits, "ink \(String(describing: mongolian.inkBounds))")
    }

    @Test func bookFontsComeFirstForTheScriptsTheyCover() throws {
        let registry = FontRegistry()
        let infos = try registry.register(fileAt: "/usr/share/fonts/truetype/noto/NotoSerif-Regular.ttf")
        #expect(infos.first?.family == "Noto Serif")
        #expect(registry.fallbackChain(for: .latin, language: "en").first?.family == "Noto Serif")
        // Noto Serif has no Arabic: Arabic still starts with the system's Arabic face.
        #expect(registry.fallbackChain(for: .arabic, language: "ar").first?.family == "Noto Naskh Arabic")
        let layout = try Typesetter(fonts: registry).layout("Hello", size: 20, in: Size(width: 300, height: 60), style: TextStyle())
        #expect(layout.glyphRuns.first?.face.info.family == "Noto Serif")
    }

    @Test func registeringAMissingFileFailsWithItsPath() {
        let registry = FontRegistry()
        #expect {
            try registry.register(fileAt: "/nonexistent/font.ttf")
        } throws: { error in
            (error as? FontError).map { "\($0)".contains("/nonexistent/font.ttf") } ?? false
        }
        #expect(throws: FontError.self) { try registry.register(directory: "/nonexistent-dir") }
    }

    @Test func collectionFileRegistersEveryFace() throws {
        let registry = FontRegistry()
        let infos = try registry.register(fileAt: "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc")
        #expect(infos.count >= 5)
        #expect(Set(infos.map(\.family)).contains("Noto Sans CJK JP"))
    }
}

@Suite struct ShapingTests {
    @Test func arabicLettersJoin() throws {
        // Shaped in a word, the letters take joined forms: glyph ids differ from the isolated ones.
        let word = "سلام"
        let style = TextStyle(language: "ar")
        let joined = try Typesetter().layout(word, size: 30, in: Size(width: 400, height: 80), style: style)
        let joinedIDs = Set(glyphs(joined).map(\.glyph.id))
        var isolatedIDs = Set<UInt32>()
        for ch in word {
            let l = try Typesetter().layout(String(ch), size: 30, in: Size(width: 400, height: 80), style: style)
            isolatedIDs.formUnion(glyphs(l).map(\.glyph.id))
        }
        let shared = joinedIDs.intersection(isolatedIDs)
        #expect(shared.count <= 1, "joined \(joinedIDs) vs isolated \(isolatedIDs)")
    }

    @Test func arabicParagraphIsRightAlignedAndStartsAtTheRight() throws {
        let c = SampleCase.arabic
        let layout = try Typesetter().fit(c.text, in: c.box, style: c.style)
        #expect(layout.lines.count >= 2)
        for line in layout.lines {
            #expect(line.paragraphIsRightToLeft)
            // Start alignment in an RTL paragraph: flush right.
            #expect(abs(line.frame.maxX - c.box.width) < 0.5, "line \(line.frame)")
            let first = line.textRange.lowerBound
            let xs = line.runs.flatMap(\.glyphs).map(\.origin.x)
            let firstX = try #require(xOfCluster(layout, first))
            // The first logical character is the rightmost glyph of its line.
            #expect(firstX >= (xs.max() ?? 0) - 1, "first char at \(firstX), max \(xs.max() ?? 0)")
        }
    }

    @Test func bidiEmbedsArabicInEnglishAndEnglishInArabic() throws {
        let text = "The fox said مرحبا يا صديقي to the owl."
        let layout = try Typesetter().layout(text, size: 20, in: Size(width: 1000, height: 60), style: TextStyle(language: "en"))
        #expect(layout.lines.count == 1)
        let said = try #require(scalarOffset(of: "said", in: text))
        let marhaba = try #require(scalarOffset(of: "مرحبا", in: text))
        let sadiqi = try #require(scalarOffset(of: "صديقي", in: text))
        let to = try #require(scalarOffset(of: "to the", in: text))
        let xSaid = try #require(xOfCluster(layout, said))
        let xMarhaba = try #require(xOfCluster(layout, marhaba))
        let xSadiqi = try #require(xOfCluster(layout, sadiqi))
        let xTo = try #require(xOfCluster(layout, to))
        // LTR paragraph: said … [Arabic, read right to left] … to
        #expect(xSaid < xSadiqi)
        #expect(xSadiqi < xMarhaba)
        #expect(xMarhaba < xTo)
        #expect(!layout.lines[0].paragraphIsRightToLeft)

        let text2 = "قال الثعلب Good morning للبومة."
        let l2 = try Typesetter().layout(text2, size: 20, in: Size(width: 1000, height: 60), style: TextStyle(language: "ar"))
        let iGood = try #require(scalarOffset(of: "Good", in: text2))
        let iMorning = try #require(scalarOffset(of: "morning", in: text2))
        let iLilbuma = try #require(scalarOffset(of: "للبومة", in: text2))
        let qala = try #require(xOfCluster(l2, 0))
        let good = try #require(xOfCluster(l2, iGood))
        let morning = try #require(xOfCluster(l2, iMorning))
        let lilbuma = try #require(xOfCluster(l2, iLilbuma))
        // RTL paragraph: …للبومة [Good morning, left to right] قال الثعلب
        #expect(l2.lines[0].paragraphIsRightToLeft)
        #expect(lilbuma < good)
        #expect(good < morning)
        #expect(morning < qala)
    }

    @Test func closingBracketFollowsItsOpeningBracket() {
        let text = "said (مرحبا) then"
        let scripts = Shaper.resolvedScripts(text.unicodeScalars.map(\.value))
        let chars = Array(text.unicodeScalars)
        let open = chars.firstIndex(of: "(")!, close = chars.firstIndex(of: ")")!
        #expect(scripts[open] == .latin)
        #expect(scripts[close] == .latin)
        #expect(scripts[open + 1] == .arabic)
        // Without a pair, a Common character takes the preceding script.
        #expect(Shaper.resolvedScripts("مرحبا!".unicodeScalars.map(\.value)).last == .arabic)
        #expect(Shaper.resolvedScripts("1 fox".unicodeScalars.map(\.value)).first == .latin)
    }

    @Test func devanagariFormsConjunctsAndReordersMatras() throws {
        let style = TextStyle(language: "hi")
        // क्ष: three characters, one conjunct glyph.
        let ksha = try Typesetter().layout("क्ष", size: 30, in: Size(width: 300, height: 80), style: style)
        #expect(ksha.glyphCount < 3)
        // कि: the i-matra is drawn before (left of) the consonant it follows in memory.
        let ki = try Typesetter().layout("कि", size: 30, in: Size(width: 300, height: 80), style: style)
        let gs = glyphs(ki).map(\.glyph)
        #expect(gs.count == 2)
        let kLayout = try Typesetter().layout("क", size: 30, in: Size(width: 300, height: 80), style: style)
        let k = try #require(kLayout.glyphRuns.first?.glyphs.first?.id)
        #expect(gs.first?.id != k, "matra should come first visually")
    }

    @Test func hebrewIsRightToLeft() throws {
        let c = SampleCase.hebrew
        let layout = try Typesetter().fit(c.text, in: c.box, style: c.style)
        let line = try #require(layout.lines.first)
        #expect(line.paragraphIsRightToLeft)
        let x0 = try #require(xOfCluster(layout, 0)), x1 = try #require(xOfCluster(layout, 1))
        #expect(x0 > x1)
    }

    @Test func languageSelectsCJKForms() throws {
        // 直 has distinct Japanese and Chinese designs; the language tag picks the face.
        let zh = try Typesetter().layout("直", size: 30, in: Size(width: 100, height: 100), style: TextStyle(language: "zh-Hans"))
        let ja = try Typesetter().layout("直", size: 30, in: Size(width: 100, height: 100), style: TextStyle(language: "ja"))
        #expect(zh.glyphRuns.first?.face.info.family == "Noto Sans CJK SC")
        #expect(ja.glyphRuns.first?.face.info.family == "Noto Sans CJK JP")
        #expect(zh.glyphRuns.first?.glyphs.first?.id != ja.glyphRuns.first?.glyphs.first?.id)
    }
}

@Suite struct VerticalTests {
    @Test(arguments: [SampleCase.chineseVertical, SampleCase.japaneseVertical])
    func cjkColumnsRunRightToLeftTopToBottom(_ c: SampleCase) throws {
        let layout = try Typesetter().fit(c.text, in: c.box, style: c.style)
        #expect(layout.lines.count >= 2)
        for (a, b) in zip(layout.lines, layout.lines.dropFirst()) {
            #expect(a.frame.minX > b.frame.minX, "columns must go right to left")
            #expect(a.textRange.upperBound <= b.textRange.lowerBound)
        }
        // The block of columns is centred across the box (block alignment .center).
        let rightGap = c.box.width - layout.lines[0].frame.maxX, leftGap = layout.lines.last!.frame.minX
        #expect(abs(rightGap - leftGap) < 0.5)
        for line in layout.lines {
            let ys = line.runs.flatMap(\.glyphs).map(\.origin.y)
            #expect(ys == ys.sorted(), "glyphs go down the column")
            #expect(line.frame.maxY <= c.box.height + 0.5)
        }
        // Vertical alternates: the ideographic comma/full stop are not their horizontal glyphs.
        let punct = c.text.unicodeScalars.firstIndex { $0 == "，" || $0 == "、" || $0 == "。" }!
        let offset = c.text.unicodeScalars.distance(from: c.text.unicodeScalars.startIndex, to: punct)
        let p = String(c.text.unicodeScalars[punct])
        let horizontal = try Typesetter().layout(p, size: 30, in: Size(width: 100, height: 100), style: TextStyle(language: c.style.language))
        let vid = glyphs(layout).first { $0.glyph.cluster == offset }?.glyph.id
        #expect(vid != nil && vid != horizontal.glyphRuns.first?.glyphs.first?.id)
    }

    @Test func mongolianIsSidewaysWithColumnsLeftToRight() throws {
        let c = SampleCase.mongolian
        let layout = try Typesetter().fit(c.text, in: c.box, style: c.style)
        #expect(layout.lines.count >= 2)
        #expect(layout.glyphRuns.allSatisfy { $0.sideways })
        // The first column is at the left edge (moved in only as far as its outlines need).
        #expect(layout.lines[0].frame.minX < 0.05 * c.box.width)
        #expect((layout.inkBounds?.minX ?? -1) >= -0.5)
        for (a, b) in zip(layout.lines, layout.lines.dropFirst()) {
            #expect(a.frame.minX < b.frame.minX, "columns must go left to right")
        }
        for line in layout.lines {
            let ys = line.runs.flatMap(\.glyphs).map(\.origin.y)
            #expect(ys == ys.sorted(), "text runs down the column")
        }
        // Joined Mongolian: letters in a word are not their isolated forms.
        let word = "ᠮᠣᠩᠭᠣᠯ"
        let joined = try Typesetter().layout(word, size: 30, in: Size(width: 100, height: 400), style: c.style)
        let iso = try Typesetter().layout("ᠣ", size: 30, in: Size(width: 100, height: 400), style: c.style)
        let isoID = try #require(iso.glyphRuns.first?.glyphs.first?.id)
        #expect(!glyphs(joined).contains { $0.glyph.id == isoID })
        // Drawn sideways: the ink of a column is taller than wide.
        let image = layout.render(background: .white, color: .black)
        var minX = Int.max, maxX = 0, minY = Int.max, maxY = 0
        let col = layout.lines[0].frame
        for y in 0..<image.height {
            for x in Int(col.minX)..<min(image.width, Int(col.maxX)) where image[x, y].r < 128 {
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
            }
        }
        #expect(maxY - minY > 3 * (maxX - minX))
    }
}

@Suite struct LayoutTests {
    @Test(arguments: TextAlignment.allCases)
    func alignmentFollowsParagraphDirection(_ alignment: TextAlignment) throws {
        let box = Size(width: 400, height: 100)
        for (text, rtl) in [("Hello", false), ("שלום", true)] {
            var style = TextStyle(alignment: alignment)
            style.padding = EdgeInsets(all: 10)
            let layout = try Typesetter().layout(text, size: 20, in: box, style: style)
            let f = layout.lines[0].frame
            let left = f.minX - 10, right = box.width - 10 - f.maxX
            switch (alignment, rtl) {
            case (.start, false), (.end, true): #expect(abs(left) < 0.01)
            case (.start, true), (.end, false): #expect(abs(right) < 0.01)
            case (.center, _): #expect(abs(left - right) < 0.01)
            }
        }
    }

    @Test func linesStayInsideTheBoxAndBreakAtSpaces() throws {
        let c = SampleCase.english
        let layout = try Typesetter().layout(c.text, size: 20, in: c.box, style: c.style)
        #expect(!layout.overflows)
        let scalars = Array(c.text.unicodeScalars)
        for line in layout.lines {
            #expect(line.frame.minX >= 0 && line.frame.maxX <= c.box.width + 0.01)
            if line.textRange.upperBound < scalars.count {
                // The next line starts a word: the character before it is a space.
                let next = layout.lines.first { $0.textRange.lowerBound >= line.textRange.upperBound }!
                #expect(scalars[next.textRange.lowerBound - 1] == " ")
            }
        }
    }

    @Test func newlinesStartParagraphs() throws {
        let layout = try Typesetter().layout("one\ntwo\r\nthree", size: 20, in: Size(width: 500, height: 200), style: TextStyle())
        #expect(layout.lines.count == 3)
        #expect(layout.lines.map(\.textRange) == [0..<3, 4..<7, 9..<14])
    }

    @Test func overLongWordIsCutRatherThanSpillingSideways() throws {
        let layout = try Typesetter().layout(
            "Supercalifragilisticexpialidocious", size: 30, in: Size(width: 150, height: 400), style: TextStyle())
        #expect(layout.lines.count > 1)
        for line in layout.lines { #expect(line.frame.width <= 150.01) }
    }

    @Test func emptyTextLaysOutToNothing() throws {
        let layout = try Typesetter().fit("", in: Size(width: 100, height: 100), style: TextStyle())
        #expect(layout.glyphCount == 0)
        #expect(!layout.overflows)
    }

    @Test func badParametersAreTypedErrors() {
        #expect(throws: TypesettingError.self) {
            try Typesetter().fit("x", in: Size(width: 100, height: 100), style: TextStyle(minimumSize: 20, maximumSize: 10))
        }
        #expect(throws: TypesettingError.self) {
            try Typesetter().fit("x", in: Size(width: 10, height: 10), style: TextStyle(padding: EdgeInsets(all: 6)))
        }
        #expect(throws: TypesettingError.self) {
            try Typesetter().layout("x", size: 10, in: Size(width: 100, height: 100), style: TextStyle(lineSpacing: 0))
        }
    }

    @Test func sharedFacesAreSafeAcrossThreads() throws {
        let cases = SampleCase.all
        let reference = try cases.map { try $0.render().1 }
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var images = [Bitmap<RGBA8>?](repeating: nil, count: 16)
            subscript(i: Int) -> Bitmap<RGBA8>? {
                get { lock.withLock { images[i] } }
                set { lock.withLock { images[i] = newValue } }
            }
        }
        let results = Results()
        // Fresh registry: faces open and glyph caches fill while several threads race.
        let registry = FontRegistry()
        DispatchQueue.concurrentPerform(iterations: 16) { i in
            let c = cases[i % cases.count]
            if let layout = try? Typesetter(fonts: registry).fit(c.text, in: c.box, style: c.style) {
                results[i] = layout.render(background: SampleCase.paper, color: SampleCase.ink)
            }
        }
        for i in 0..<16 { #expect(results[i] == reference[i % cases.count], "case \(cases[i % cases.count].name)") }
    }
}
