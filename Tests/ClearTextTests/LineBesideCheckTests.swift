// LineBesideCheck: a line of text in no box right beside a cleared box (the rest of its block,
// which the detector missed) is counted; scattered marks, a row too far off, a row in another box,
// a short pair and vertical text's neighbours are judged by the same rule with the axes swapped.

@testable import ClearText
import Geometry
import Raster
import Testing

@Suite struct LineBesideCheckTests {
    typealias R = RunOnCheckTests
    static let size = R.size

    /// A page with a line of five glyphs at y = 60 taken whole by its box, and whatever `add`
    /// draws beside it; the box's fill and the cleared page as `clear` would leave them.
    static func page(
        width: Int = 260, height: Int = 200, _ add: (inout Bitmap<RGBA8>, PixelRect) -> Void
    ) -> (scan: Bitmap<RGBA8>, cleared: Bitmap<RGBA8>, fill: Bitmap<UInt8>, box: PixelRect) {
        var scan = Bitmap(width: width, height: height, fill: R.paper)
        for k in 0..<5 { R.glyph(&scan, 40 + 14 * k, 60) }
        let box = PixelRect(x: 36, y: 56, width: 14 * 5 + 2, height: size + 8)
        add(&scan, box)
        let (cleared, fill) = R.cleared(scan, box: box)
        return (scan, cleared, fill, box)
    }

    static func share(_ p: (scan: Bitmap<RGBA8>, cleared: Bitmap<RGBA8>, fill: Bitmap<UInt8>, box: PixelRect), boxes: [PixelRect]? = nil) throws -> Double {
        try #require(LineBesideCheck.share(
            scan: p.scan, cleared: p.cleared, filled: p.fill, box: p.box, vertical: false, boxes: boxes ?? [p.box]))
    }

    /// The next line of the block, in no box, under the box (or over it): the box goes back.
    @Test(arguments: [true, false])
    func aLineBesideTheBoxInNoBoxIsCounted(below: Bool) throws {
        let p = Self.page { scan, box in
            let y = below ? box.maxY + 6 : box.minY - 6 - Self.size
            for k in 0..<4 { R.glyph(&scan, 44 + 14 * k, y) }
        }
        let share = try Self.share(p)
        #expect(share >= FillCheckParameters().lineBeside, "\(share)")
    }

    /// That line in a box of its own is that box's business.
    @Test func aLineInAnotherBoxIsNotCounted() throws {
        var other = PixelRect(x: 0, y: 0, width: 0, height: 0)
        let p = Self.page { scan, box in
            for k in 0..<4 { R.glyph(&scan, 44 + 14 * k, box.maxY + 6) }
            other = PixelRect(x: 40, y: box.maxY + 2, width: 60, height: Self.size + 8)
        }
        #expect(try Self.share(p, boxes: [p.box, other]) == 0)
    }

    /// A drawing's glyph-sized pieces beside a box (feathers, grass tips, footprints) that do not
    /// stand in a row, two letters, and a line three type sizes off are not a line beside it.
    @Test func scatteredMarksAShortPairAndAFarLineAreNotCounted() throws {
        let scattered = Self.page { scan, box in
            R.glyph(&scan, 40, box.maxY + 4)
            R.glyph(&scan, 58, box.maxY + 4 + Self.size)  // a type size lower
            R.glyph(&scan, 90, box.maxY + 2 + Self.size / 2 + 6)
            R.glyph(&scan, 140, box.maxY + 6)  // far along: a gap of three type sizes
        }
        #expect(try Self.share(scattered) == 0)
        let pair = Self.page { scan, box in
            for k in 0..<2 { R.glyph(&scan, 44 + 14 * k, box.maxY + 6) }
        }
        #expect(try Self.share(pair) == 0)
        let far = Self.page { scan, box in
            for k in 0..<4 { R.glyph(&scan, 44 + 14 * k, box.maxY + 3 * Self.size) }
        }
        #expect(try Self.share(far) == 0)
    }

    /// A row of marks much larger than the type (a fence's pickets) is not a line of it.
    @Test func marksLargerThanTheTypeAreNotALine() throws {
        let p = Self.page { scan, box in
            for k in 0..<6 { scan.fill(PixelRect(x: 40 + 12 * k, y: box.maxY + 4, width: 4, height: 2 * Self.size), with: R.ink) }
        }
        #expect(try Self.share(p) == 0)
    }

    /// Vertical text: the column beside a column (right of it here) is the line beside, read
    /// with the axes swapped; square glyphs, as CJK's are.
    @Test func aColumnBesideAVerticalBoxIsCounted() throws {
        var scan = Bitmap(width: 200, height: 260, fill: R.paper)
        func square(_ x: Int, _ y: Int) {
            scan.fill(PixelRect(x: x, y: y, width: 14, height: 3), with: R.ink)
            scan.fill(PixelRect(x: x, y: y + 11, width: 14, height: 3), with: R.ink)
            scan.fill(PixelRect(x: x + 6, y: y, width: 3, height: 14), with: R.ink)
        }
        for k in 0..<5 { square(60, 40 + 18 * k) }
        let box = PixelRect(x: 56, y: 36, width: 22, height: 18 * 5 + 4)
        for k in 0..<4 { square(box.maxX + 6, 44 + 18 * k) }
        let (cleared, fill) = R.cleared(scan, box: box)
        let share = try #require(LineBesideCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: true, boxes: [box]))
        #expect(share >= FillCheckParameters().lineBeside, "\(share)")
        // Read as a horizontal box, the column beside it is along its line, not beside it.
        let across = try #require(LineBesideCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, vertical: false, boxes: [box]))
        #expect(across == 0, "\(across)")
    }

    @Test func theRowRuleNeedsThreeMarksOverTwoTypeSizes() {
        let m = { (a: Int, b: Int) in LineBesideCheck.Mark(along0: a, along1: b, across0: 100, across1: 118, count: 50) }
        #expect(LineBesideCheck.row([m(0, 10), m(14, 24), m(28, 38)], size: 18, over: 0..<100) == 150)
        #expect(LineBesideCheck.row([m(0, 10), m(14, 24)], size: 18, over: 0..<100) == 0)
        // A gap wider than a type size breaks the chain.
        #expect(LineBesideCheck.row([m(0, 10), m(14, 24), m(60, 70)], size: 18, over: 0..<100) == 0)
        // The row must reach the box's extent.
        #expect(LineBesideCheck.row([m(0, 10), m(14, 24), m(28, 38)], size: 18, over: 50..<100) == 0)
    }
}
