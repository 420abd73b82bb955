// The rules that drop a learned detector's lines lying on a drawing (DrawingLineRule): a short
// line whose ink mostly runs on out of its box is a piece of the drawing, glyphs stay inside; a
// short line of any block whose ink runs out and is painted in a wash is a figure.
import Geometry
import PageAnalysis
import Raster
import Foundation
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

    @Test func blocksOfSeveralLinesAreNotJudgedByRunOutAlone() {
        let p = page { hatch(&$0, 0, 0, 400, 300) }
        let paragraph = ProposedBlock(lines: [Rect(x: 40, y: 40, width: 80, height: 30), Rect(x: 40, y: 76, width: 80, height: 30)], vertical: false, score: 0.8)
        #expect(DrawingLineRule().keep([paragraph], on: p).count == 1)
    }

    /// A figure painted in a wash: an ellipse whose tone comes and goes across it, from dark to
    /// mid, as watercolour does, over the paper.
    func paintedFigure(_ b: inout Bitmap<RGBA8>, cx: Double, cy: Double, rx: Double, ry: Double) {
        for y in 0..<b.height {
            for x in 0..<b.width {
                let u = (Double(x) - cx) / rx, v = (Double(y) - cy) / ry
                guard u * u + v * v <= 1 else { continue }
                let t = UInt8(40 + 140 * (0.5 + 0.5 * sin(Double(x) / 15) * sin(Double(y) / 17)))
                b.pixels[y * b.width + x] = RGBA8(r: t, g: UInt8(Int(t) * 9 / 10), b: UInt8(Int(t) * 8 / 10))
            }
        }
    }

    @Test func aPaintedFigureBoxedAsStackedLinesIsDropped() {
        // Seen on Benchmarks/Illustrations: a rabbit boxed as three lines, each a fifth of the
        // page thick; the figure runs on out of every box and its tone is a wash. Here the boxes
        // take in the figure's left side and the paper beside it.
        let p = page(600, 600) { paintedFigure(&$0, cx: 300, cy: 300, rx: 200, ry: 250) }
        let figure = ProposedBlock(lines: [Rect(x: 0, y: 200, width: 180, height: 160), Rect(x: 0, y: 370, width: 180, height: 120)],
                                   vertical: false, score: 0.7)
        #expect(DrawingLineRule().keep([figure], on: p).isEmpty)
        let body = DrawingLineRule().inkBody(figure.lines[0], gray: p.grayscale())
        #expect((body?.spread ?? 0) >= 0.3 * (body?.contrast ?? 1))
    }

    @Test func aGiantFlatInitialJoinedToADrawingIsKept() {
        // An ABC book's display initial: a letter in flat ink, its foot joined to a stroke of the
        // drawing that runs on past the box. It runs out, but its ink is one tone.
        let p = page(600, 600) { b in
            fill(&b, 200, 150, 40, 200)   // the stem
            fill(&b, 200, 150, 140, 36)   // the arm
            fill(&b, 200, 250, 110, 30)   // the bar
            fill(&b, 0, 330, 600, 20)     // the drawing's ground line, through the stem's foot
        }
        let initial = ProposedBlock(lines: [Rect(x: 190, y: 140, width: 160, height: 220)], vertical: false, score: 0.7)
        let paragraph = ProposedBlock(lines: initial.lines + [Rect(x: 190, y: 400, width: 300, height: 30)], vertical: false, score: 0.7)
        #expect(DrawingLineRule().paintedShape(initial.lines[0], vertical: false, gray: p.grayscale()) == false)
        #expect(DrawingLineRule().keep([paragraph], on: p).first?.lines.count == 2)
    }

    @Test func aPaintedShapeInsideItsBoxIsNotJudgedByTone() {
        // A painted medallion wholly inside its box does not run out: the tone alone drops nothing
        // (a painted cover title can be lettered in a wash).
        let p = page(600, 600) { paintedFigure(&$0, cx: 300, cy: 300, rx: 80, ry: 60) }
        let line = Rect(x: 200, y: 220, width: 200, height: 160)
        #expect(DrawingLineRule().paintedShape(line, vertical: false, gray: p.grayscale()) == false)
    }

    @Test func aBlockWithNoVisibleInkIsDropped() {
        // What remains of a figure once its painted lines are gone: lines over a faint wash only
        // a few grey levels off the paper, which the glyph mask would not mark either.
        let faint = RGBA8(r: 228, g: 220, b: 204)
        let p = page { b in for y in 100..<130 { for x in 100..<160 { b.pixels[y * b.width + x] = faint } } }
        let specks = ProposedBlock(lines: [Rect(x: 96, y: 96, width: 70, height: 40)], vertical: false, score: 0.6)
        #expect(DrawingLineRule().keep([specks], on: p).isEmpty)
        // A faint line beside a visible one is kept with its block: the block has text.
        let q = page { b in
            for y in 100..<130 { for x in 100..<160 { b.pixels[y * b.width + x] = faint } }
            for k in 0..<4 { fill(&b, 110 + 18 * k, 160, 12, 24) }
        }
        let both = ProposedBlock(lines: [Rect(x: 96, y: 96, width: 70, height: 40), Rect(x: 102, y: 154, width: 82, height: 36)], vertical: false, score: 0.6)
        #expect(DrawingLineRule().keep([both], on: q).first?.lines.count == 2)
    }
}
