// The rule that drops a learned detector's short lines lying on a drawing (DrawingLineRule): a
// line whose ink mostly runs on out of its box is a piece of the drawing; glyphs stay inside.
import Geometry
import PageAnalysis
import Raster
import Testing

@Suite struct DrawingLineRuleTests {
    static let paper = RGBA8(r: 238, g: 230, b: 214), ink = RGBA8(r: 30, g: 24, b: 20)

    func page(_ width: Int = 400, _ height: Int = 300, _ draw: (inout Bitmap<RGBA8>) -> Void) -> Bitmap<RGBA8> {
        var b = Bitmap<RGBA8>(width: width, height: height, fill: Self.paper)
        draw(&b)
        return b
    }

    func fill(_ b: inout Bitmap<RGBA8>, _ x0: Int, _ y0: Int, _ w: Int, _ h: Int) {
        for y in max(0, y0)..<min(b.height, y0 + h) { for x in max(0, x0)..<min(b.width, x0 + w) { b.pixels[y * b.width + x] = Self.ink } }
    }

    /// Parallel diagonal strokes, three pixels thick, 8 px apart, over the whole rectangle.
    func hatch(_ b: inout Bitmap<RGBA8>, _ x0: Int, _ y0: Int, _ w: Int, _ h: Int) {
        for y in y0..<(y0 + h) {
            for x in x0..<(x0 + w) where (x + y) % 8 < 3 { b.pixels[y * b.width + x] = Self.ink }
        }
    }

    func proposal(_ x: Double, _ y: Double, _ w: Double, _ h: Double, vertical: Bool = false) -> ProposedBlock {
        ProposedBlock(lines: [Rect(x: x, y: y, width: w, height: h)], vertical: vertical, score: 0.8)
    }

    @Test func aShortLineOnHatchingIsDropped() {
        // The network boxes a patch of hatching as a short line; every stroke runs on past the box.
        let p = page { hatch(&$0, 60, 60, 240, 160) }
        let line = proposal(140, 120, 80, 30)
        #expect(DrawingLineRule().keep([line], on: p).isEmpty)
        #expect((DrawingLineRule().runOut(line.lines[0], vertical: false, gray: p.grayscale()) ?? 0) > 0.9)
    }

    @Test func aShortLineOnAnOutlineIsDropped() {
        // A box on part of a drawn figure: the outline (a thick ring) passes through it.
        let p = page { b in
            for y in 0..<300 { for x in 0..<400 {
                let d = ((Double(x) - 200) * (Double(x) - 200) + (Double(y) - 150) * (Double(y) - 150)).squareRoot()
                if abs(d - 60) < 3 { b.pixels[y * 400 + x] = Self.ink }
            } }
        }
        #expect(DrawingLineRule().keep([proposal(230, 90, 50, 30)], on: p).isEmpty)
    }

    @Test func aShortWordIsKept() {
        // Three glyphs on paper, the line box round them with a margin: nothing runs out.
        let p = page { b in fill(&b, 110, 100, 12, 24); fill(&b, 128, 106, 12, 18); fill(&b, 146, 100, 12, 24) }
        let word = proposal(102, 94, 64, 36)
        #expect(DrawingLineRule().keep([word], on: p).count == 1)
        #expect(DrawingLineRule().runOut(word.lines[0], vertical: false, gray: p.grayscale()) == 0)
    }

    @Test func aWordWhoseGlyphsTouchItsBoxIsKept() {
        // Small type in a box only as tall as its glyphs: they reach its first and last rows but
        // stop there. Without the one-pixel reach this word would count as running out.
        let p = page { b in fill(&b, 110, 100, 3, 9); fill(&b, 117, 100, 3, 9); fill(&b, 124, 100, 3, 9) }
        #expect(DrawingLineRule().keep([proposal(107, 100, 23, 9)], on: p).count == 1)
    }

    @Test func aVerticalLineOfGlyphsIsKept() {
        // A column of four square glyphs (CJK, Mongolian), as the detector gives vertical lines.
        let p = page { b in for k in 0..<4 { fill(&b, 200, 60 + 34 * k, 26, 26) } }
        #expect(DrawingLineRule().keep([proposal(194, 54, 38, 140, vertical: true)], on: p).count == 1)
    }

    @Test func aWordCrossedByOneStrokeIsKept() {
        // A caption over a drawing: a stroke of the art passes between two of its letters; most
        // of the line's ink is still its glyphs.
        let p = page { b in
            for k in 0..<4 { fill(&b, 110 + 18 * k, 100, 12, 24) }
            fill(&b, 142, 0, 2, 300)
        }
        #expect(DrawingLineRule().keep([proposal(102, 94, 82, 36)], on: p).count == 1)
    }

    @Test func aLongLineIsNotJudged() {
        // Lettering over hatched art: the line runs far longer than it is thick, which is evidence
        // of text by itself, so the hatching it lies on does not drop it.
        let p = page(600, 300) { hatch(&$0, 0, 80, 600, 80) }
        let long = proposal(40, 100, 500, 30)
        #expect(DrawingLineRule().keep([long], on: p).count == 1)
        // The same hatching under a short box is dropped: the length limit is what keeps it.
        #expect(DrawingLineRule().keep([proposal(40, 100, 100, 30)], on: p).isEmpty)
    }

    @Test func blocksOfSeveralLinesAreNotJudged() {
        let p = page { hatch(&$0, 0, 0, 400, 300) }
        let paragraph = ProposedBlock(lines: [Rect(x: 40, y: 40, width: 80, height: 30), Rect(x: 40, y: 76, width: 80, height: 30)], vertical: false, score: 0.8)
        #expect(DrawingLineRule().keep([paragraph], on: p).count == 1)
    }
}
