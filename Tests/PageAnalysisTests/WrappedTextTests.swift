// Text that wraps around a drawing on a real page, and the two steps that handle it: small-print
// fragments that continue a found line, and a paragraph's L-shaped area cut into rectangles so
// its box (and ink mask) leaves the drawing alone. The geometry tests need no pixels.
import Geometry
@testable import PageAnalysis
import Raster
import Testing

@Suite struct WrappedText {
    /// The pages of Adventures of Huckleberry Finn (1884) where a paragraph wraps around a
    /// drawing: the drawing must keep out of the ink mask (it was 18–20 % ink-masked when the
    /// paragraph's one box covered it, and `clear` erased the figures) while the text beside
    /// and below it stays inside the boxes.
    @Test(.enabled(if: RealScans.available, "needs ../shared/realdata"), arguments: [
        ("c15-115.jpg", PixelRect(x: 40, y: 230, width: 270, height: 330),
         [PixelRect(x: 405, y: 340, width: 340, height: 370), PixelRect(x: 60, y: 740, width: 680, height: 200)]),
        ("c08-61.jpg", PixelRect(x: 40, y: 300, width: 260, height: 330),
         [PixelRect(x: 390, y: 310, width: 360, height: 420), PixelRect(x: 40, y: 760, width: 700, height: 180)]),
    ])
    func drawingBesideAParagraphKeepsOutOfTheInkMask(_ name: String, drawing: PixelRect, text: [PixelRect]) throws {
        let analysis = PageAnalyzer().analyze(try RealScans.load(RealScans.huck + name))
        var ink = 0
        for y in drawing.minY..<drawing.maxY {
            for x in drawing.minX..<drawing.maxX where analysis.inkMask[x, y] != 0 { ink += 1 }
        }
        #expect(Double(ink) / Double(drawing.width * drawing.height) < 0.02, "ink-masked share of the drawing: \(ink) px")
        for r in text {
            #expect(coverage(of: r, by: analysis.blocks.map(\.rect)) >= 0.95, "text at \(r); boxes \(analysis.blocks.map(\.rect))")
        }
    }

    /// Huck Finn p. 29: the left ends of four lines beside the drawing ("the hoo", "I could",
    /// "day, I", "she said" — small print whose counters closed up, too even to pass for text
    /// alone) and the line above them, which another block's lines overlapped.
    @Test(.enabled(if: RealScans.available, "needs ../shared/realdata"))
    func lineEndsBesideADrawingAreFound() throws {
        let analysis = PageAnalyzer().analyze(try RealScans.load(RealScans.huck + "c03-29.jpg"))
        let boxes = analysis.blocks.map(\.rect)
        #expect(coverage(of: PixelRect(x: 345, y: 583, width: 70, height: 100), by: boxes) >= 0.9, "\(boxes)")
        #expect(coverage(of: PixelRect(x: 345, y: 553, width: 280, height: 16), by: boxes) >= 0.9, "\(boxes)")
    }

    /// Huck Finn p. 266: the paragraph beside the willow. Old letterpress prints unevenly, and
    /// its lines were found from their darker words; the paler ones at their ends ("town, for",
    /// "the warm", "moss on them,", "frauds") fell outside the lines' bands and stayed on the
    /// cleared page (81 % and 89 % of the two parts' ink masked). The bands now reach along the
    /// lines up to a gutter; the willow beside them stays out.
    @Test(.enabled(if: RealScans.available, "needs ../shared/realdata"))
    func paleWordsAtTheLinesEndsAreInTheMask() throws {
        let page = try RealScans.load(RealScans.huck + "c31-266.jpg")
        let analysis = PageAnalyzer().analyze(page)
        func masked(_ r: PixelRect) -> (ink: Int, share: Double) {
            var ink = 0, covered = 0
            for y in r.minY..<r.maxY {
                for x in r.minX..<r.maxX where page[x, y].luma < 120 {
                    ink += 1
                    var near = false
                    for yy in (y - 1)...(y + 1) { for xx in (x - 1)...(x + 1) where analysis.inkMask[xx, yy] != 0 { near = true } }
                    if near { covered += 1 }
                }
            }
            return (ink, ink > 0 ? Double(covered) / Double(ink) : 0)
        }
        for r in [PixelRect(x: 420, y: 235, width: 335, height: 245), PixelRect(x: 425, y: 480, width: 330, height: 120)] {
            let m = masked(r)
            #expect(m.ink > 2000 && m.share >= 0.97, "text at \(r): \(m.ink) ink px, \(m.share) masked")
        }
        let willow = PixelRect(x: 40, y: 150, width: 280, height: 420)
        var drawn = 0
        for y in willow.minY..<willow.maxY { for x in willow.minX..<willow.maxX where analysis.inkMask[x, y] != 0 { drawn += 1 } }
        #expect(Double(drawn) / Double(willow.width * willow.height) < 0.01, "ink-masked share of the willow: \(drawn) px")
    }

    /// Huck Finn p. 189: a paragraph in the right-hand column beside a pen drawing of a crowd,
    /// then full width below it. The hats' cross-hatching reads darker than the small type at
    /// working resolution and its gaps count as counters, so trimming took the hats for the
    /// block's text: the column's lines were cut away (never boxed, verifier or not), and the
    /// box left was an L over the crowd, whose hats `clear` erased. Type is told from the
    /// hatching by its smooth ground.
    @Test(.enabled(if: RealScans.available, "needs ../shared/realdata"), arguments: [true, false])
    func paragraphBesideAHatchedDrawingIsFound(verify: Bool) throws {
        var parameters = AnalysisParameters()
        parameters.verifyBlocks = verify
        let analysis = PageAnalyzer(parameters: parameters).analyze(try RealScans.load(RealScans.huck + "c22-189.jpg"))
        let boxes = analysis.blocks.map(\.rect)
        let column = PixelRect(x: 425, y: 235, width: 330, height: 470), below = PixelRect(x: 35, y: 750, width: 715, height: 155)
        #expect(coverage(of: column, by: boxes) >= 0.95, "the column's paragraph; boxes \(boxes)")
        #expect(coverage(of: below, by: boxes) >= 0.95, "the text below the drawing; boxes \(boxes)")
        // Without the verifier the drawing's own blocks of hatching stand, and are masked.
        guard verify else { return }
        let drawing = PixelRect(x: 40, y: 60, width: 365, height: 640)
        var ink = 0
        for y in drawing.minY..<drawing.maxY {
            for x in drawing.minX..<drawing.maxX where analysis.inkMask[x, y] != 0 { ink += 1 }
        }
        #expect(Double(ink) / Double(drawing.width * drawing.height) < 0.01, "ink-masked share of the drawing: \(ink) px")
    }

    // MARK: the geometry

    static func line(_ x: Double, _ y: Double, _ width: Double, glyphs: Int = 6) -> LineSummary {
        LineSummary(rect: Rect(x: x, y: y, width: width, height: 10), thickness: 10, gray: 60, stroke: 2, glyphs: glyphs, holed: 1)
    }

    static func block(_ lines: [LineSummary]) -> BlockCandidate {
        let rect = lines.dropFirst().reduce(lines[0].rect) { $0.union($1.rect) }
        return BlockCandidate(rect: rect, orientation: .horizontal, polarity: .darkOnLight, confidence: 0.8,
                              componentCount: lines.reduce(0) { $0 + $1.glyphs }, inkGray: 60, level: 1, size: 10, lines: lines)
    }

    /// A blank working image: every column is a gutter, so only the rows decide.
    static let blank = WorkingImage(page: Bitmap<RGBA8>(width: 400, height: 400, fill: RGBA8(gray: 240)), factor: 1,
                                    parameters: AnalysisParameters())

    /// Eight rows beside a drawing (starting at x 200), then six full-width rows; some rows of
    /// each are found only in part.
    @Test func lShapedParagraphIsCutAtTheMovedMargin() {
        var lines: [LineSummary] = []
        for i in 0..<8 { lines.append(Self.line(i == 3 ? 260 : 200, 20 + 20 * Double(i), i == 5 ? 100 : 180)) }
        for i in 0..<6 { lines.append(Self.line(i == 2 ? 90 : 20, 180 + 20 * Double(i), i == 4 ? 200 : 360)) }
        let b = Self.block(lines)
        let parts = PageAnalyzer().splitAtMargins(b, allLines: lines, work: Self.blank)
        #expect(parts.count == 2)
        guard parts.count == 2 else { return }
        let (upper, lower) = parts[0].rect.minY < parts[1].rect.minY ? (parts[0], parts[1]) : (parts[1], parts[0])
        #expect(upper.rect.minX >= 190 && upper.rect.minX <= 200, "the narrow part starts at its margin: \(upper.rect)")
        #expect(lower.rect.minX == b.rect.minX && lower.rect.maxX == b.rect.maxX, "the wide part keeps the block's width")
        #expect(upper.rect.maxY == lower.rect.minY, "the parts meet: \(upper.rect) \(lower.rect)")
        #expect(upper.lines.count == 8 && lower.lines.count == 6)
    }

    /// A plain paragraph with ragged, partly found rows is left whole, and so is an L-shape
    /// whose "margin" has no white gutter beside it on the page (words of rows found in part).
    @Test func raggedParagraphIsNotCut() {
        let ragged = (0..<12).map { i in Self.line([20, 60, 20, 110, 20, 20, 75, 20, 20, 20, 140, 20][i], 20 + 20 * Double(i), 300) }
        #expect(PageAnalyzer().splitAtMargins(Self.block(ragged), allLines: ragged, work: Self.blank).count == 1)

        var lShape: [LineSummary] = []
        for i in 0..<8 { lShape.append(Self.line(200, 20 + 20 * Double(i), 180)) }
        for i in 0..<6 { lShape.append(Self.line(20, 180 + 20 * Double(i), 360)) }
        // Ink in every row from x 150 on: the narrow rows' first words were not found as lines,
        // and there is no drawing and no gutter.
        var page = Bitmap<RGBA8>(width: 400, height: 400, fill: RGBA8(gray: 240))
        // Letters stand at different places in different rows, so no column is clear in all.
        for y in 20..<180 where y % 20 < 10 { for x in 150..<380 where (x + y / 20 * 2) % 6 < 3 { page[x, y] = RGBA8(gray: 20) } }
        let work = WorkingImage(page: page, factor: 1, parameters: AnalysisParameters())
        #expect(PageAnalyzer().splitAtMargins(Self.block(lShape), allLines: lShape, work: work).count == 1)
    }

    /// A weak fragment joins the line it continues on the same row within a few word spaces,
    /// not one in another row or far along it, and never one it lies inside.
    @Test func fragmentsOnlyExtendTheLinesTheyContinue() {
        let b = Self.block([Self.line(200, 100, 200), Self.line(200, 120, 200), Self.line(200, 140, 200)])
        func fragment(_ l: LineSummary) -> BlockCandidate {
            var f = Self.block([l])
            f.weak = true
            return f
        }
        let near = fragment(Self.line(150, 120, 30))      // ends 20 px (2 glyph sizes) before the line
        let far = fragment(Self.line(60, 140, 30))        // 110 px away
        let otherRow = fragment(Self.line(150, 170, 30))  // below the block
        let inside = fragment(Self.line(250, 100, 50))    // already part of the first line
        let out = PageAnalyzer().attach([near, far, otherRow, inside], to: [b])
        #expect(out.count == 1)
        #expect(out[0].rect.minX == 150, "\(out[0].rect)")
        #expect(out[0].lines.count == 4)
        #expect(out[0].lines.last?.attached == true)
        #expect(out[0].rect.maxY == b.rect.maxY)
    }
}
