// Page analysis on generated pages with known truth: the committed sample books (Books/, made by
// the generator with truth.json) and pages rendered here from the generator. The pages are real
// scans as far as the detector knows: JPEG, scan wear, art with fences, grass and stripes.
import BookModel
import Codecs
import Foundation
import Generator
import Geometry
@testable import PageAnalysis
import Raster
import Testing

enum Fixtures {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    static func book(_ name: String) -> String { root + "/Books/" + name }

    static func truth(_ book: String) throws -> CorpusTruth {
        let data = try Data(contentsOf: URL(fileURLWithPath: Fixtures.book(book) + "/truth.json"))
        return try JSONDecoder().decode(CorpusTruth.self, from: data)
    }

    static func page(_ book: String, _ number: Int) throws -> (Bitmap<RGBA8>, PageTruth) {
        let t = try truth(book)
        let p = try #require(t.pages.first { $0.number == number })
        return (try ImageDecoder.decode(file: Fixtures.book(book) + "/" + p.image), p)
    }
}

/// A rendered page as the benchmark sees it: JPEG-compressed at the page's scan quality.
func scanned(_ page: GeneratedPage) throws -> Bitmap<RGBA8> {
    let bytes = try JPEGEncoder.encode(page.image, options: JPEGEncodeOptions(quality: page.truth.degradation.jpegQuality, optimizeCoding: true))
    return try ImageDecoder.decode(bytes, name: "page-\(page.truth.number).jpg")
}

/// Fraction of `truth` covered by the union of `boxes` (the benchmark's "found" measure).
func coverage(of truth: PixelRect, by boxes: [PixelRect]) -> Double {
    guard truth.width > 0, truth.height > 0 else { return 0 }
    var covered = [Bool](repeating: false, count: truth.width * truth.height)
    for b in boxes {
        guard let i = b.intersection(truth) else { continue }
        for y in i.minY..<i.maxY { for x in i.minX..<i.maxX { covered[(y - truth.y) * truth.width + x - truth.x] = true } }
    }
    return Double(covered.filter { $0 }.count) / Double(covered.count)
}

@Suite struct PlacementStyles {
    /// Each style as it appears in a committed sample book: the page and the block's truth index.
    static let cases: [(PlacementStyle, String, Int)] = [
        (.margin, "salmas-red-kite", 2),
        (.sky, "salmas-red-kite", 1),
        (.panel, "salmas-red-kite", 4),
        (.lightOnDark, "good-morning-farm", 10),
    ]

    @Test(arguments: cases.indices)
    func styleIsFound(_ i: Int) throws {
        let (style, book, number) = Self.cases[i]
        let (image, truth) = try Fixtures.page(book, number)
        let analysis = PageAnalyzer().analyze(image)
        let blocks = truth.textBoxes.filter { $0.placement == style && $0.role != .pageNumber }
        try #require(!blocks.isEmpty, "page \(number) of \(book) has no \(style) block")
        for b in blocks {
            let c = coverage(of: b.rect, by: analysis.blocks.map(\.rect))
            #expect(c >= 0.8, "\(style) block \(b.id) (\(b.language)) covered \(c)")
        }
        if style == .lightOnDark {
            #expect(analysis.blocks.contains { $0.polarity == .lightOnDark })
        }
    }

    /// Text directly over art, generated here: a mixed-difficulty page whose two paragraphs
    /// the generator set over a cat, bunting, a fence and grass (seed 1001, page 4). Both are
    /// found. (Seed 1001 p. 8, text whose letters are fused with picket tips and rails, is a
    /// known miss: see Documentation/PageAnalysis.md, "Limitations".)
    @Test func overArtIsFound() throws {
        let page = try corpusPage(seed: 1_001, number: 4)
        let analysis = PageAnalyzer().analyze(try scanned(page))
        let overArt = page.truth.textBoxes.filter { $0.placement == .overArt && $0.role == .body }
        try #require(overArt.count == 2)
        for b in overArt {
            #expect(coverage(of: b.rect, by: analysis.blocks.map(\.rect)) >= 0.8, "overArt block \(b.id) (\(b.language))")
        }
    }
}

@Suite struct FalseDetections {
    /// Illustration-only pages of the standard corpus (seed 1001 page 2, 1004 page 10): houses,
    /// fences, grass, hatching, bunting — and no text, so no boxes.
    @Test(arguments: [(1_001, 1), (1_002, 1)])
    func noBoxesOnIllustrationOnlyPages(_ seed: Int, _ unit: Int) throws {
        let plan = try PageGenerator.plan(GeneratorOptions(seed: UInt64(seed), pageCount: 12, width: 1600, height: 2000, difficulty: .mixed))
        let pages = try PageGenerator.render(plan, unit: unit)
        let page = try #require(pages.first)
        try #require(page.truth.illustrationOnly, "seed \(seed) unit \(unit) is not illustration-only")
        let analysis = PageAnalyzer().analyze(try scanned(page))
        #expect(analysis.blocks.isEmpty, "boxes at \(analysis.blocks.map(\.rect))")
        #expect(!analysis.inkMask.pixels.contains { $0 != 0 })
    }
}

@Suite struct Scripts {
    @Test func mongolianColumnIsOneVerticalBlock() throws {
        let (image, truth) = try Fixtures.page("little-horse", 1)
        let column = try #require(truth.textBoxes.first { $0.language == "mn-Mong" })
        let analysis = PageAnalyzer().analyze(image)
        let hits = analysis.blocks.filter { b in
            guard let i = b.rect.intersection(column.rect) else { return false }
            return i.width * i.height > 0
        }
        #expect(hits.count == 1, "\(hits.count) blocks on the column")
        let block = try #require(hits.first)
        #expect(block.orientation == .vertical)
        #expect(coverage(of: column.rect, by: [block.rect]) >= 0.8)
    }

    /// English with its Arabic translation under it: two boxes, one per language.
    @Test(arguments: [2, 5, 7])
    func bilingualPageYieldsSeparateBoxes(_ number: Int) throws {
        let (image, truth) = try Fixtures.page("salmas-red-kite", number)
        let en = try #require(truth.textBoxes.first { $0.language == "en" && $0.role == .body })
        let ar = try #require(truth.textBoxes.first { $0.language == "ar" && $0.role == .body })
        let analysis = PageAnalyzer().analyze(image)
        let onEn = analysis.blocks.filter { coverage(of: $0.rect, by: [en.rect]) > 0.5 }
        let onAr = analysis.blocks.filter { coverage(of: $0.rect, by: [ar.rect]) > 0.5 }
        #expect(onEn.count == 1 && onAr.count == 1)
        #expect(Set(onEn.map(\.rect)).isDisjoint(with: onAr.map(\.rect)), "one box spans both languages")
        #expect(coverage(of: en.rect, by: onEn.map(\.rect)) >= 0.8)
        #expect(coverage(of: ar.rect, by: onAr.map(\.rect)) >= 0.7)
    }
}

@Suite struct BlockProperties {
    @Test func inkMaskColoursOrderAndRoles() throws {
        let (image, truth) = try Fixtures.page("salmas-red-kite", 2)
        let analysis = PageAnalyzer().analyze(image)
        #expect(analysis.inkMask.width == image.width && analysis.inkMask.height == image.height)
        #expect(analysis.blocks.map(\.order) == Array(analysis.blocks.indices))
        for b in analysis.blocks {
            // Ink only inside its blocks, and it is dark where the text is dark.
            #expect(b.polarity == .darkOnLight)
            #expect(Int(b.inkColor.luma) + 60 < Int(b.backgroundColor.luma), "ink \(b.inkColor) on \(b.backgroundColor)")
            #expect(b.confidence > 0 && b.confidence <= 1)
        }
        var outside = 0
        for y in 0..<image.height {
            for x in 0..<image.width where analysis.inkMask[x, y] != 0 {
                if !analysis.blocks.contains(where: { Rect($0.rect).contains(Point(x: Double(x) + 0.5, y: Double(y) + 0.5)) }) { outside += 1 }
            }
        }
        #expect(outside == 0)
        // Body text reads top to bottom; the page number comes last.
        let body = analysis.blocks.filter { $0.role == .body }
        #expect(body.count >= 2)
        #expect(zip(body, body.dropFirst()).allSatisfy { $0.rect.y <= $1.rect.y })
        if let number = truth.textBoxes.first(where: { $0.role == .pageNumber }),
           let hit = analysis.blocks.first(where: { coverage(of: number.rect, by: [$0.rect]) > 0.8 })
        {
            #expect(hit.role == .pageNumber)
        }
    }

    @Test func blankPageHasNoBlocks() {
        let page = Bitmap<RGBA8>(width: 600, height: 800, fill: RGBA8(r: 245, g: 240, b: 228))
        let analysis = PageAnalyzer().analyze(page)
        #expect(analysis.blocks.isEmpty)
        #expect(PageAnalyzer().analyze(Bitmap<RGBA8>(width: 3, height: 3, fill: .white)).blocks.isEmpty)
    }

    @Test func parametersCanBeSetByName() {
        var p = AnalysisParameters()
        let known = p.set("minimumContrast", to: 50)
        let core = p.set("coreInkFraction", to: 0.2)
        let unknown = p.set("noSuchParameter", to: 1)
        #expect(core && p.coreInkFraction == 0.2)
        #expect(known)
        #expect(p.minimumContrast == 50)
        #expect(!unknown)
    }
}

/// `picturebook analyze` end to end: the built executable on a copy of a sample book.
@Suite struct AnalyzeCommand {
    static let executable: URL = {
        var dir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("picturebook").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("picturebook")
    }()

    func run(_ args: [String]) throws -> (Int32, String) {
        let p = Process()
        p.executableURL = Self.executable
        p.arguments = args
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let data = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// A copy of the first `pages` scans of a sample book (with its book.json trimmed to them).
    func copyOfBook(_ name: String, pages: Int, manifest: Bool) throws -> String {
        let dir = NSTemporaryDirectory() + "pb-analyze-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var (book, _) = try Book.load(directory: Fixtures.book(name))
        book.pages = Array(book.pages.prefix(pages))
        book.spreads = book.spreads.filter { $0.second <= pages }
        for p in book.pages {
            try FileManager.default.copyItem(atPath: Fixtures.book(name) + "/" + p.image, toPath: dir + "/" + p.image)
        }
        if manifest { try book.save(directory: dir) }
        return dir
    }

    @Test func librarianBoxesAndTextAreKeptOnReanalysis() throws {
        let dir = try copyOfBook("salmas-red-kite", pages: 3, manifest: true)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let before = try Book.load(directory: dir).book
        let librarian = before.pages.flatMap(\.textBoxes)
        try #require(!librarian.isEmpty && librarian.allSatisfy(\.isLibrarianOwned))

        // Every page carries librarian boxes, so every page counts as reviewed: nothing is added.
        #expect(try run(["analyze", dir]).0 == 0)
        #expect(try Book.load(directory: dir).book.pages == before.pages)

        #expect(try run(["analyze", dir, "--include-reviewed"]).0 == 0)
        let after = try Book.load(directory: dir).book
        for (old, new) in zip(before.pages, after.pages) {
            let kept = new.textBoxes.filter(\.isLibrarianOwned)
            #expect(kept == old.textBoxes, "page \(old.image): librarian boxes changed")
            // Every text on the page was librarian-entered, so detections over it are dropped.
            for d in new.textBoxes where !d.isLibrarianOwned {
                #expect(d.source == .detected && d.text.isEmpty)
            }
        }

        // Again: detected boxes are replaced, not piled up; --replace drops the librarian's too.
        let once = after.pages.map { $0.textBoxes.count }
        #expect(try run(["analyze", dir, "--include-reviewed"]).0 == 0)
        let twice: [Int] = try Book.load(directory: dir).book.pages.map { p in p.textBoxes.count }
        #expect(twice == once)
        #expect(try run(["analyze", dir, "--replace"]).0 == 0)
        let replaced = try Book.load(directory: dir).book
        let allDetected = replaced.pages.allSatisfy { p in p.textBoxes.allSatisfy { b in b.source == .detected } }
        let someBoxes = replaced.pages.contains { p in !p.textBoxes.isEmpty }
        #expect(allDetected)
        #expect(someBoxes)
    }

    @Test func bareFolderOfScansBecomesABook() throws {
        let dir = try copyOfBook("salmas-red-kite", pages: 2, manifest: false)
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let (status, json) = try run(["analyze", dir, "--json"])
        #expect(status == 0)
        let book = try Book.load(directory: dir).book
        #expect(book.pages.map(\.image) == ["page-001.jpg", "page-002.jpg"])
        #expect(book.pages.allSatisfy { !$0.textBoxes.isEmpty })
        let report = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
        let pages = try #require(report?["pages"] as? [[String: Any]])
        #expect(pages.count == 2)
        #expect((pages.first?["detected"] as? [Any])?.isEmpty == false)
    }

    /// An input that cannot be processed is exit status 1 (README, "Exit status"); 64 is for
    /// a wrong command line.
    @Test func missingFolderFails() throws {
        #expect(try run(["analyze", "/nonexistent/book"]).0 == 1)
        #expect(try run(["analyze", "/nonexistent/book", "--jobs", "0"]).0 == 64)
    }
}

/// A page of the standard benchmark corpus (`BenchmarkCorpus.standard()`: mixed, 1600×2000),
/// rendered and scanned as the benchmark sees it.
func corpusPage(seed: UInt64, number: Int, difficulty: Difficulty = .mixed) throws -> GeneratedPage {
    let plan = try PageGenerator.plan(GeneratorOptions(seed: seed, pageCount: 12, width: 1600, height: 2000, difficulty: difficulty))
    // A spread is one unit for two pages.
    let unit = number - 1 - plan.spreads.filter { $0[1] <= number }.count
    let pages = try PageGenerator.render(plan, unit: unit)
    return try #require(pages.first { $0.truth.number == number }, "seed \(seed) page \(number) not in unit \(unit)")
}

/// Fraction of `box` lying on the page's body text (truth boxes grown by the blur's reach, as
/// the benchmark counts it).
func onText(_ box: PixelRect, _ truth: PageTruth) -> Double {
    let r = truth.degradation.reach
    let grown = truth.textBoxes.filter { $0.role == .body }.map {
        PixelRect(x: $0.rect.x - r, y: $0.rect.y - r, width: $0.rect.width + 2 * r, height: $0.rect.height + 2 * r)
    }
    var inside = 0
    for y in box.minY..<box.maxY {
        for x in box.minX..<box.maxX where grown.contains(where: { x >= $0.minX && x < $0.maxX && y >= $0.minY && y < $0.maxY }) { inside += 1 }
    }
    return Double(inside) / Double(max(1, box.width * box.height))
}

@Suite struct TextOverArt {
    /// Text over a fence (seed 1003 p. 6: bold serif across the pickets and rails; p. 10: a
    /// paragraph on the picket tips above a band of grass). The block used to take in the fence
    /// rows and grass clumps that lined up under it; trimmed to the lines of the text's own ink
    /// and stroke, it lies on the text.
    @Test(arguments: [6, 10])
    func blockOverFenceIsTrimmedToItsText(_ number: Int) throws {
        let page = try corpusPage(seed: 1_003, number: number)
        let analysis = PageAnalyzer().analyze(try scanned(page))
        let text = try #require(page.truth.textBoxes.first { $0.placement == .overArt && $0.role == .body })
        let hits = analysis.blocks.filter { $0.rect.intersection(text.rect) != nil }
        try #require(!hits.isEmpty, "nothing on \(text.rect)")
        #expect(coverage(of: text.rect, by: hits.map(\.rect)) >= 0.8)
        for b in hits {
            #expect(onText(b.rect, page.truth) >= 0.7, "box \(b.rect) spills over the art")
        }
    }

    /// Seed 1001 p. 8: an English line over a fence and grass whose last word runs onto a dark
    /// brown door. By contrast the word is one mass with the door and the grass blades; read by
    /// the line's own ink colour (near black) the door and the green blades drop out and the
    /// line grows to its end. Without the colour reading the box stops before "spring."
    @Test func lineGrowsByItsInkColour() throws {
        let page = try corpusPage(seed: 1_001, number: 8)
        let image = try scanned(page)
        let english = try #require(page.truth.textBoxes.first { $0.placement == .overArt && $0.role == .body && $0.language == "en" })
        let analysis = PageAnalyzer().analyze(image)
        let hits = analysis.blocks.filter { $0.rect.intersection(english.rect) != nil }
        #expect(coverage(of: english.rect, by: hits.map(\.rect)) >= 0.8, "boxes \(hits.map(\.rect)) on \(english.rect)")
        for b in hits {
            #expect(onText(b.rect, page.truth) >= 0.7, "box \(b.rect) spills over the art")
        }
        var without = AnalysisParameters()
        without.inkColourDistance = 0
        let before = PageAnalyzer(parameters: without).analyze(image).blocks.filter { $0.rect.intersection(english.rect) != nil }
        #expect(coverage(of: english.rect, by: before.map(\.rect)) < 0.8, "the line was found without the colour reading too")
    }

    /// Type whose letters touch a fence's outlines and grass blades as dark as the type by
    /// contrast: seed 1001 p. 8 (an Arabic line fused with picket tips and rails), 1002 p. 5
    /// (kana across a fence and grass), 1003 p. 5 (Arabic across a fence and diagonal grass).
    /// In the inkiest-ink reading the near-black letters come loose from the paler outlines and
    /// the mid-tone grass; without that reading none of the three is found.
    @Test(arguments: [(UInt64(1_001), 8, "ar"), (1_002, 5, "ja"), (1_003, 5, "ar")])
    func inkiestInkFreesTypeFromOutlines(_ seed: UInt64, _ number: Int, _ language: String) throws {
        let page = try corpusPage(seed: seed, number: number)
        let image = try scanned(page)
        let text = try #require(page.truth.textBoxes.first { $0.placement == .overArt && $0.role == .body && $0.language == language })
        let hits = PageAnalyzer().analyze(image).blocks.filter { $0.rect.intersection(text.rect) != nil }
        #expect(coverage(of: text.rect, by: hits.map(\.rect)) >= 0.8, "boxes \(hits.map(\.rect)) on \(text.rect)")
        for b in hits {
            #expect(b.orientation == .horizontal)
            #expect(onText(b.rect, page.truth) >= 0.7, "box \(b.rect) spills over the art")
        }
        var without = AnalysisParameters()
        without.coreInkFraction = 0
        let before = PageAnalyzer(parameters: without).analyze(image).blocks.filter { $0.rect.intersection(text.rect) != nil }
        #expect(coverage(of: text.rect, by: before.map(\.rect)) < 0.8, "the line was found without the inkiest-ink reading too")
    }

    /// Held-out seed 3002 p. 5: a Chinese line set on the tips of a white picket fence, found
    /// only in the inkiest-ink reading. Past the line's end the darkest ink around is the
    /// fence's outlines, whose tips are glyph-sized; the line must not grow along them.
    @Test func inkiestLineDoesNotGrowAlongTheFence() throws {
        let page = try corpusPage(seed: 3_002, number: 5)
        let text = try #require(page.truth.textBoxes.first { $0.placement == .overArt && $0.role == .body })
        let hits = PageAnalyzer().analyze(try scanned(page)).blocks.filter { $0.rect.intersection(text.rect) != nil }
        #expect(coverage(of: text.rect, by: hits.map(\.rect)) >= 0.8, "boxes \(hits.map(\.rect)) on \(text.rect)")
        for b in hits {
            #expect(onText(b.rect, page.truth) >= 0.7, "box \(b.rect) runs along the fence")
        }
    }

    /// Pages where outline drawing lined up beside or under text: a cat's head and pickets
    /// (1003 p. 7), pickets under a paragraph (1004 p. 11), grass and a path at the foot (1004 p. 9),
    /// pickets between rails in pairs (1002 p. 11), slivers of sky between pickets (1003 p. 6);
    /// and where the inkiest-ink reading at a lower floor found rows of outline cores: a fence
    /// and grass on an illustration-only page (1004 p. 10), a fence beside a paragraph (1001 p. 5),
    /// a house and a fence (1003 p. 2). Every box there must lie on text.
    @Test(arguments: [(UInt64(1_003), 7), (1_004, 11), (1_004, 9), (1_002, 11), (1_003, 6), (1_004, 10), (1_001, 5), (1_003, 2)])
    func outlineDrawingGetsNoBox(_ seed: UInt64, _ number: Int) throws {
        let page = try corpusPage(seed: seed, number: number)
        let analysis = PageAnalyzer().analyze(try scanned(page))
        for b in analysis.blocks where b.role == .body {
            #expect(onText(b.rect, page.truth) >= 0.7, "box \(b.rect) (\(b.orientation)) lies off the text")
        }
    }
}

@Suite struct VerticalColumns {
    /// Vertical CJK over art. Seed 1004 p. 6: two columns, the second just 船 and a full stop,
    /// too short for a chain of glyphs; it is added as the short last column beside the first.
    /// Seed 1003 p. 11: one Japanese column whose lower half crosses a fence and a cat; the
    /// column is grown down its own band.
    @Test(arguments: [(UInt64(1_004), 6), (1_003, 11)])
    func columnOverArtIsFoundWhole(_ seed: UInt64, _ number: Int) throws {
        let page = try corpusPage(seed: seed, number: number)
        let analysis = PageAnalyzer().analyze(try scanned(page))
        let column = try #require(page.truth.textBoxes.first { $0.orientation != .horizontal && $0.placement == .overArt && $0.role == .body })
        let vertical = analysis.blocks.filter { $0.orientation == .vertical && $0.rect.intersection(column.rect) != nil }
        #expect(coverage(of: column.rect, by: vertical.map(\.rect)) >= 0.8, "boxes \(vertical.map(\.rect)) on \(column.rect)")
        for b in vertical {
            #expect(onText(b.rect, page.truth) >= 0.7, "box \(b.rect) spills off the column")
        }
    }

    /// Traditional Mongolian on a sky (seed 1001 p. 6): each word is one long joined stroke,
    /// so the long column is a chain of two glyphs with a wide word space (holding a colon too
    /// small to count) before its third, and the short column is one word. Both are found,
    /// as one vertical block; without the long-word rule and the wider column growth nothing is.
    @Test func mongolianWordsOnASkyAreFoundWhole() throws {
        let page = try corpusPage(seed: 1_001, number: 6)
        let column = try #require(page.truth.textBoxes.first { $0.orientation != .horizontal && $0.role == .body })
        for on in [true, false] {
            var p = AnalysisParameters()
            p.longWordColumns = on
            if !on { p.columnGrowthGap = 1.2 }
            let analysis = PageAnalyzer(parameters: p).analyze(try scanned(page))
            let vertical = analysis.blocks.filter { $0.orientation == .vertical && $0.rect.intersection(column.rect) != nil }
            let covered = coverage(of: column.rect, by: vertical.map(\.rect))
            if on {
                #expect(covered >= 0.8, "boxes \(vertical.map(\.rect)) on \(column.rect)")
                for b in vertical { #expect(onText(b.rect, page.truth) >= 0.7, "box \(b.rect) spills off the columns") }
            } else {
                #expect(covered < 0.8, "found without the long-word rule: the test no longer shows it")
            }
        }
    }
}

@Suite struct InkMaskOverArt {
    /// What an analysis ink mask takes inside a page's overArt truth boxes: the share of the
    /// true text ink (coverage ≥ 50 %) it covers, and the share of its pixels lying more than
    /// 4 px from any text ink, i.e. the drawing it would have ClearText erase.
    static func measure(_ page: GeneratedPage, _ mask: Bitmap<UInt8>) -> (inkCovered: Double, offText: Double) {
        let w = mask.width, h = mask.height
        // Text ink grown by 4 px: what lies outside it is drawing.
        var near = [Bool](repeating: false, count: w * h)
        for y in 0..<h {
            for x in 0..<w where page.ink.pixels[y * w + x] > 0 {
                for yy in max(0, y - 4)...min(h - 1, y + 4) { for xx in max(0, x - 4)...min(w - 1, x + 4) { near[yy * w + xx] = true } }
            }
        }
        var ink = 0, inkTaken = 0, taken = 0, off = 0
        for box in page.truth.textBoxes where box.placement == .overArt && box.role == .body {
            let r = box.rect
            for y in max(0, r.minY)..<min(h, r.maxY) {
                for x in max(0, r.minX)..<min(w, r.maxX) {
                    let i = y * w + x, m = mask.pixels[i] != 0
                    if page.ink.pixels[i] >= 128 { ink += 1; if m { inkTaken += 1 } }
                    if m { taken += 1; if !near[i] { off += 1 } }
                }
            }
        }
        return (Double(inkTaken) / Double(max(1, ink)), Double(off) / Double(max(1, taken)))
    }

    /// Seed 1001 p. 4: two paragraphs of large serif type around a cat, striped shirts on a line,
    /// pennants, a picket fence and grass. The detector's block spans the drawing between and
    /// beside the lines, and its ink mask used to take the drawing's outlines, grass and
    /// picket tips with the type (ClearText then erased the cat). Grass, stripes and picket
    /// tips, not in the type's colour, stay out now, and the type's own ink is still all in.
    @Test func drawingBetweenLinesStaysOutOfTheMask() throws {
        let page = try corpusPage(seed: 1_001, number: 4)
        let image = try scanned(page)
        let now = Self.measure(page, PageAnalyzer().analyze(image).inkMask)
        var p = AnalysisParameters()
        p.inkColourSpread = 0
        p.lineBandPad = -1
        let before = Self.measure(page, PageAnalyzer(parameters: p).analyze(image).inkMask)
        #expect(now.inkCovered >= 0.97, "text ink covered \(now.inkCovered)")
        // Outlines as dark as the type and fused with its letters stay in (24 % of the mask
        // lies off the text, against 32 % before): colour cannot tell them from the type.
        #expect(now.offText <= 0.27, "mask off the text \(now.offText) (was \(before.offText))")
        #expect(before.offText >= now.offText + 0.05, "mask off the text \(now.offText) vs \(before.offText) without the colour test")
    }
}
