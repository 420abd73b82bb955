import BookModel
import Geometry
import Layout
import Testing

@Suite struct ClearTextTests {
    // A 1000×1000 scan shown at 1 pt per pixel, @1x, readable size 18.
    let vp = Viewport(size: Size(width: 1000, height: 1000), scale: 1, readableTextSize: 18)
    let page = PageFrame(page: 1, frame: Rect(x: 0, y: 0, width: 1000, height: 1000), scanSize: Size(width: 1000, height: 1000))
    let engine = ClearTextLayout()

    func box(_ id: String, _ r: PixelRect, _ text: String, lang: String = "en", vertical: Bool = false, order: Int? = nil) -> TextBox {
        TextBox(id: id, rect: r, text: [lang: text], language: lang, order: order, orientation: vertical ? .vertical : .horizontal)
    }

    @Test func fittingTextKeepsItsBoxAndIsReadable() throws {
        let b = box("a", PixelRect(x: 100, y: 100, width: 600, height: 80), "The sun wakes up.")
        let r = try engine.layout(page: page, boxes: [b], language: "en", in: vp)
        let block = try #require(r.blocks.first)
        #expect(block.frame == block.source)
        #expect(!block.grew && block.scrollExtent == 0)
        #expect(block.layout.fontSize >= 18)
        #expect(!block.layout.overflows)
    }

    @Test func longTextGrowsIntoFreeSpaceWithoutCoveringNeighbours() throws {
        let long = String(repeating: "The little horse runs over the wide green steppe. ", count: 6)
        let a = box("a", PixelRect(x: 100, y: 100, width: 400, height: 30), long, order: 1)
        let below = box("b", PixelRect(x: 100, y: 600, width: 400, height: 40), "Hello.", order: 2)
        let r = try engine.layout(page: page, boxes: [a, below], language: "en", in: vp)
        let block = try #require(r.blocks.first { $0.boxID == "a" })
        #expect(block.grew)
        #expect(block.scrollExtent == 0)
        #expect(block.frame.maxY <= 600 - engine.gap + 1e-9)
        #expect(page.frame.contains(block.frame))
        #expect(block.frame.minX == 100 && block.frame.minY == 100, "grows downward first")
        #expect(!block.layout.overflows)
        #expect(block.layout.fontSize == 18)
    }

    @Test func boxedInTextScrollsAndSaysHowFar() throws {
        let long = String(repeating: "Once upon a time there was a lighthouse keeper and his cat. ", count: 20)
        // Hemmed in on all four sides by other blocks.
        let a = box("a", PixelRect(x: 400, y: 400, width: 200, height: 40), long, order: 1)
        let walls = [
            box("n", PixelRect(x: 0, y: 300, width: 1000, height: 90), "North", order: 2),
            box("s", PixelRect(x: 0, y: 450, width: 1000, height: 90), "South", order: 3),
            box("w", PixelRect(x: 300, y: 395, width: 90, height: 50), "W", order: 4),
            box("e", PixelRect(x: 610, y: 395, width: 90, height: 50), "E", order: 5),
        ]
        let r = try engine.layout(page: page, boxes: [a] + walls, language: "en", in: vp)
        let block = try #require(r.blocks.first { $0.boxID == "a" })
        #expect(block.scrollExtent > 100)
        for w in r.blocks where w.boxID != "a" { #expect(!w.frame.intersects(block.frame)) }
        // The scroll extent is what the text needs beyond the frame.
        #expect(abs(block.layout.contentSize.height - (block.frame.height + block.scrollExtent)) < 2)
    }

    @Test func skippedBoxesAreFreeSpace() throws {
        // The Arabic twin below an English block is cleared from the page and not drawn in the
        // English ClearText, so the English block may grow over it.
        let long = String(repeating: "Every morning she hears the wind over the sea. ", count: 4)
        var en = box("en", PixelRect(x: 100, y: 100, width: 400, height: 30), long, order: 1)
        en.text["ar"] = "كل صباح تسمع صوت الريح."
        var ar = box("ar", PixelRect(x: 100, y: 150, width: 400, height: 30), "كل صباح تسمع صوت الريح.", lang: "ar", order: 2)
        ar.text["en"] = long
        let r = try engine.layout(page: page, boxes: [en, ar], language: "en", in: vp)
        let block = try #require(r.blocks.first { $0.boxID == "en" })
        #expect(r.skipped.map(\.boxID) == ["ar"])
        #expect(block.scrollExtent == 0)
        #expect(block.frame.maxY > 150, "grew over the skipped twin: \(block.frame)")
    }

    @Test func missingLanguageAndDuplicatesAreSkipped() throws {
        var en = box("en", PixelRect(x: 100, y: 100, width: 600, height: 40), "Hello.")
        en.text["ar"] = "مرحبا."
        var ar = box("ar", PixelRect(x: 100, y: 200, width: 600, height: 40), "مرحبا.", lang: "ar")
        ar.text["en"] = "Hello."
        let num = box("n", PixelRect(x: 490, y: 900, width: 20, height: 30), "1")
        let r = try engine.layout(page: page, boxes: [en, ar, num], language: "ar", in: vp)
        #expect(r.blocks.map(\.boxID) == ["ar"])
        #expect(r.skipped.first { $0.boxID == "en" }?.duplicate == true)
        #expect(r.skipped.first { $0.boxID == "n" }?.duplicate == false)
    }

    @Test func mongolianVerticalBoxesSetInColumns() throws {
        var b = box("m", PixelRect(x: 400, y: 300, width: 120, height: 400), "ᠲᠠᠯ᠎ᠠ ᠶᠡᠬᠡ᠃", lang: "mn-Mong", vertical: true)
        b.text["en"] = "The steppe is big."
        let mn = try engine.layout(page: page, boxes: [b], language: "mn-Mong", in: vp)
        #expect(mn.blocks.first?.layout.style.writingMode == .verticalLeftToRight)
        // The English translation of a vertical box runs horizontally, growing as it must.
        let en = try engine.layout(page: page, boxes: [b], language: "en", in: vp)
        #expect(en.blocks.first?.layout.style.writingMode == .horizontal)
        #expect(en.blocks.first?.scrollExtent == 0)
    }

    @Test func freeSpaceStopsAtObstaclesAndBounds() {
        let r = Rect(x: 100, y: 100, width: 100, height: 50)
        let obstacles = [Rect(x: 150, y: 300, width: 10, height: 10), Rect(x: 500, y: 0, width: 10, height: 10)]
        let bounds = Rect(x: 0, y: 0, width: 1000, height: 800)
        #expect(FreeSpace.limit(of: r, toward: .down, obstacles: obstacles, bounds: bounds, gap: 5) == 295)
        #expect(FreeSpace.limit(of: r, toward: .up, obstacles: obstacles, bounds: bounds, gap: 5) == 0)
        #expect(FreeSpace.limit(of: r, toward: .right, obstacles: obstacles, bounds: bounds, gap: 5) == 1000)
        #expect(FreeSpace.limit(of: r, toward: .left, obstacles: obstacles, bounds: bounds, gap: 5) == 0)
    }
}
