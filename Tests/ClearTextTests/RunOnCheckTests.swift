// RunOnCheck: marks of the text's size and darkness left past the end of a cleared box's lines
// are counted; neighbours across the lines, strokes that run on, and boxes with no contrast are not.

@testable import ClearText
import Geometry
import Raster
import Testing

@Suite struct RunOnCheckTests {
    static let paper = RGBA8(r: 236, g: 230, b: 214)
    static let ink = RGBA8(r: 30, g: 28, b: 36)
    static let size = 18

    /// A glyph: two stems and a bar, `size` tall, 10 wide, at (x, y).
    static func glyph(_ page: inout Bitmap<RGBA8>, _ x: Int, _ y: Int, _ c: RGBA8 = ink, stem: Int = 3) {
        page.fill(PixelRect(x: x, y: y, width: stem, height: size), with: c)
        page.fill(PixelRect(x: x + 10 - stem, y: y, width: stem, height: size), with: c)
        page.fill(PixelRect(x: x, y: y + size / 2, width: 10, height: min(2, stem)), with: c)
    }

    /// What `clear` would have made of `scan` with the ink in `box` filled: the cleared page and
    /// the fill (the ink grown by 2 px, as the in-fill's dilation grows it).
    static func cleared(_ scan: Bitmap<RGBA8>, box: PixelRect, ground: RGBA8 = paper) -> (Bitmap<RGBA8>, Bitmap<UInt8>) {
        var out = scan
        var fill = Bitmap<UInt8>(width: scan.width, height: scan.height, fill: 0)
        for y in box.minY..<box.maxY {
            for x in box.minX..<box.maxX where scan.pixels[y * scan.width + x] != ground {
                for yy in max(box.minY, y - 2)..<min(box.maxY, y + 3) {
                    for xx in max(box.minX, x - 2)..<min(box.maxX, x + 3) { fill.pixels[yy * scan.width + xx] = 255 }
                }
            }
        }
        for i in fill.pixels.indices where fill.pixels[i] != 0 { out.pixels[i] = ground }
        return (out, fill)
    }

    /// Five glyphs on a line at y = 60, 14 px apart, from x = 40; the box takes the first `taken`.
    static func line(taken: Int, ground: RGBA8 = paper, ink: RGBA8 = ink) -> (Bitmap<RGBA8>, PixelRect) {
        var page = Bitmap(width: 240, height: 160, fill: ground)
        for k in 0..<5 { glyph(&page, 40 + 14 * k, 60, ink) }
        let box = PixelRect(x: 36, y: 56, width: 14 * taken + 2, height: size + 8)
        return (page, box)
    }

    @Test func aLineThatRunsOnPastItsBoxIsCounted() throws {
        let (scan, box) = Self.line(taken: 4)
        let (cleared, fill) = Self.cleared(scan, box: box)
        let share = try #require(RunOnCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: false, boxes: [box]))
        #expect(share >= FillCheckParameters().runOn, "\(share)")
    }

    @Test func aWholeLineIsNotCounted() throws {
        let (scan, box) = Self.line(taken: 5)
        let (cleared, fill) = Self.cleared(scan, box: box)
        let share = try #require(RunOnCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: false, boxes: [box]))
        #expect(share == 0, "\(share)")
    }

    /// A neighbour across the line (ruby, the next line up, a drawing's grass) is not the line
    /// running on, and neither is a glyph inside another box beside it.
    @Test func neighboursAcrossTheLinesAndOtherBoxesAreNotCounted() throws {
        var (scan, box) = Self.line(taken: 5)
        Self.glyph(&scan, 60, 60 - Self.size - 8)  // just above the line
        Self.glyph(&scan, 60, 60 + Self.size + 10)  // just below it
        let next = PixelRect(x: box.maxX + 4, y: 56, width: 30, height: Self.size + 8)
        Self.glyph(&scan, next.minX + 8, 60)  // a box of its own, beside this one
        let (cleared, fill) = Self.cleared(scan, box: box)
        let share = try #require(RunOnCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: false, boxes: [box, next]))
        #expect(share == 0, "\(share)")
        // Without the second box, its glyph is the line running on.
        let alone = try #require(RunOnCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: false, boxes: [box]))
        #expect(alone >= FillCheckParameters().runOn, "\(alone)")
    }

    /// A rule or a drawing's stroke that carries on along the line beyond two type sizes is
    /// drawing, and a mark far smaller or far larger than the type is not a glyph.
    @Test func strokesThatRunOnAndMarksNotOfTheTypesSizeAreNotCounted() throws {
        var (scan, box) = Self.line(taken: 5)
        scan.fill(PixelRect(x: box.maxX + 4, y: 64, width: 120, height: 3), with: Self.ink)  // a rule
        scan.fill(PixelRect(x: box.minX - 8, y: 66, width: 2, height: 2), with: Self.ink)  // a speck
        let (cleared, fill) = Self.cleared(scan, box: box)
        let share = try #require(RunOnCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: false, boxes: [box]))
        #expect(share == 0, "\(share)")
    }

    /// Vertical text reads along its columns: the glyph below the box is the line running on;
    /// read as horizontal text the same glyph lies across the lines and is not counted.
    @Test func verticalTextReadsAlongItsColumns() throws {
        var scan = Bitmap(width: 160, height: 240, fill: Self.paper)
        for k in 0..<5 { Self.glyph(&scan, 60, 30 + (Self.size + 6) * k) }
        let box = PixelRect(x: 56, y: 26, width: 18, height: (Self.size + 6) * 4)
        let (cleared, fill) = Self.cleared(scan, box: box)
        let down = try #require(RunOnCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: true, boxes: [box]))
        #expect(down >= FillCheckParameters().runOn, "\(down)")
        let across = try #require(RunOnCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: false, boxes: [box]))
        #expect(across == 0, "\(across)")
    }

    @Test func lightTypeOnADarkGroundIsReadToo() throws {
        let night = RGBA8(r: 24, g: 30, b: 70), white = RGBA8(r: 245, g: 245, b: 240)
        let (scan, box) = Self.line(taken: 4, ground: night, ink: white)
        let (cleared, fill) = Self.cleared(scan, box: box, ground: night)
        let share = try #require(RunOnCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: false, boxes: [box]))
        #expect(share >= FillCheckParameters().runOn, "\(share)")
    }

    /// Hairline type: what was filled is mostly the halo round the strokes, so its darkest fifth
    /// is still ground and gives no reading; the detector's mask of the ink gives the ink's level.
    @Test func hairlineTypeIsReadUnderTheDetectorsMask() throws {
        var scan = Bitmap(width: 240, height: 160, fill: Self.paper)
        var mask = Bitmap<UInt8>(width: 240, height: 160, fill: 0)
        for k in 0..<5 { Self.glyph(&scan, 40 + 14 * k, 60, stem: 1) }
        for i in scan.pixels.indices where scan.pixels[i] == Self.ink { mask.pixels[i] = 255 }
        // Two glyphs left past the box: hairlines weigh little against the haloed fill.
        let box = PixelRect(x: 36, y: 56, width: 14 * 3 + 2, height: Self.size + 8)
        let (cleared, fill) = Self.cleared(scan, box: box)
        #expect(RunOnCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: false, boxes: [box], lightInk: false) == nil)
        let share = try #require(RunOnCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: false, boxes: [box], ink: mask))
        #expect(share >= FillCheckParameters().runOn, "\(share)")
    }

    /// The polarity `analyze` read is the one looked for: dark type is not looked for as light.
    @Test func thePolarityGivenIsTheOneRead() throws {
        let night = RGBA8(r: 24, g: 30, b: 70), white = RGBA8(r: 245, g: 245, b: 240)
        let (scan, box) = Self.line(taken: 4, ground: night, ink: white)
        let (cleared, fill) = Self.cleared(scan, box: box, ground: night)
        #expect(RunOnCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: false, boxes: [box], lightInk: false) == nil)
        let share = try #require(RunOnCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: false, boxes: [box], lightInk: true))
        #expect(share >= FillCheckParameters().runOn, "\(share)")
    }

    @Test func aBoxWithoutContrastOrFillGivesNoReading() {
        let faint = RGBA8(r: 220, g: 214, b: 200)
        let (scan, box) = Self.line(taken: 4, ink: faint)
        let (cleared, fill) = Self.cleared(scan, box: box)
        #expect(RunOnCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: false, boxes: [box]) == nil)
        let nothing = Bitmap<UInt8>(width: scan.width, height: scan.height, fill: 0)
        let (plain, _) = Self.line(taken: 4)
        #expect(RunOnCheck.share(scan: plain, cleared: plain, filled: nothing, box: box, vertical: false, boxes: [box]) == nil)
    }

    @Test func theBarIsAParameter() throws {
        var p = FillCheckParameters()
        let known = p.set("runOn", to: 0)
        #expect(known)
        #expect(p.runOn == 0)
        try p.validate()
        _ = p.set("runOn", to: -1)
        #expect(throws: ClearTextError.self) { try p.validate() }
        #expect(FillCheckParameters().description.contains("runOn=0.05"))
    }

    /// Boxes at and past the page's edges, of one pixel, or filled whole, on pages down to 1×1:
    /// a reading or nil, never a trap.
    @Test(arguments: [
        PixelRect(x: 0, y: 0, width: 40, height: 30), PixelRect(x: 200, y: 130, width: 60, height: 60),
        PixelRect(x: -10, y: -10, width: 30, height: 30), PixelRect(x: 300, y: 300, width: 10, height: 10),
        PixelRect(x: 10, y: 10, width: 1, height: 1), PixelRect(x: 0, y: 0, width: 240, height: 160),
    ])
    func edgesAndDegenerateBoxesGiveAReadingOrNone(_ box: PixelRect) {
        var (scan, _) = Self.line(taken: 5)
        Self.glyph(&scan, 2, 2)
        Self.glyph(&scan, 226, 140)
        let (cleared, fill) = Self.cleared(scan, box: box.intersection(scan.bounds) ?? PixelRect(x: 0, y: 0, width: 1, height: 1))
        for vertical in [false, true] {
            if let share = RunOnCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: vertical, boxes: [box]) {
                #expect(share >= 0 && share.isFinite)
            }
        }
        let one = Bitmap(width: 1, height: 1, fill: Self.ink), none = Bitmap<UInt8>(width: 1, height: 1, fill: 255)
        #expect(RunOnCheck.share(scan: one, cleared: one, filled: none, box: box, vertical: false, boxes: [box]) == nil)
    }
}
