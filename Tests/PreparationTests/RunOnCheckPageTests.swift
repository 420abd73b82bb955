// `clear` wires the run-on check (RunOnCheck) after the fill: a box whose detected line stopped
// a word short goes back to the scan, flagged `runsOn`, instead of leaving half the word; the
// same line boxed whole is cleared; the check's bar at 0 turns it off.

@testable import ClearText
import Geometry
@testable import Preparation
import Raster
import Testing

@Suite struct RunOnCheckPageTests {
    static let paper = RGBA8(r: 240, g: 232, b: 210)
    static let navy = RGBA8(r: 20, g: 26, b: 60)

    /// Nine letters (stems and a bar, 20 px tall) on a line; the box takes the first `taken`.
    static func page(taken: Int, vertical: Bool = false) -> (Bitmap<RGBA8>, PixelRect) {
        let w = 320, h = 320
        var image = Bitmap(width: w, height: h, fill: paper)
        for k in 0..<9 {
            let at = 40 + 16 * k
            let (x, y) = vertical ? (60, at) : (at, 60)
            let (sw, sh) = vertical ? (12, 3) : (3, 12)
            image.fill(PixelRect(x: x, y: y, width: vertical ? 12 : 3, height: vertical ? 3 : 12), with: navy)
            image.fill(PixelRect(x: vertical ? x : x + 9, y: vertical ? y + 9 : y, width: sw, height: sh), with: navy)
            image.fill(PixelRect(x: vertical ? x + 5 : x, y: vertical ? y : y + 5, width: vertical ? 2 : 12, height: vertical ? 12 : 2), with: navy)
        }
        let long = 16 * taken + 2
        let box = vertical ? PixelRect(x: 56, y: 36, width: 20, height: long) : PixelRect(x: 36, y: 56, width: long, height: 20)
        return (image, box)
    }

    static func unchanged(_ out: Bitmap<RGBA8>, _ scan: Bitmap<RGBA8>, in box: PixelRect) -> Bool {
        for y in box.minY..<box.maxY { for x in box.minX..<box.maxX where out.pixels[y * scan.width + x] != scan.pixels[y * scan.width + x] { return false } }
        return true
    }

    @Test(arguments: [false, true])
    func aLineBoxedAWordShortGoesBackToTheScan(vertical: Bool) throws {
        let (scan, short) = Self.page(taken: 7, vertical: vertical)
        let out = try PageClearing.clear(page: scan, boxes: [short], vertical: [vertical], maskFile: nil, source: "p.png", infill: InFill())
        let share = try #require(out.runsOn.first ?? nil)
        #expect(share >= FillCheckParameters().runOn, "\(share)")
        #expect(out.reviewReasons == [.runsOn])
        #expect(out.glyphs.map(\.needsReview) == [true])
        #expect(Self.unchanged(out.image, scan, in: short))
    }

    @Test(arguments: [false, true])
    func theSameLineBoxedWholeIsCleared(vertical: Bool) throws {
        let (scan, whole) = Self.page(taken: 9, vertical: vertical)
        let out = try PageClearing.clear(page: scan, boxes: [whole], vertical: [vertical], maskFile: nil, source: "p.png", infill: InFill())
        #expect(out.reviewReasons == [nil])
        #expect(!Self.unchanged(out.image, scan, in: whole))
        let share = try #require(out.runsOn.first ?? nil)
        #expect(share < FillCheckParameters().runOn, "\(share)")
    }

    @Test func theCheckCanBeTurnedOff() throws {
        let (scan, short) = Self.page(taken: 7)
        var off = FillCheckParameters()
        off.runOn = 0
        let out = try PageClearing.clear(page: scan, boxes: [short], maskFile: nil, source: "p.png", infill: InFill(), checkParameters: off)
        #expect(out.reviewReasons == [nil])
        #expect(out.runsOn.isEmpty || out.runsOn.allSatisfy { $0 == nil })
    }
}

/// A box that goes back to the scan goes back as far as its fill may reach (its region grown by
/// the fill's growth), which can take in the line under it: the neighbour judged cleared whole
/// keeps its fill over its own rectangle.
@Suite struct NeighbourRestoreTests {
    typealias P = RunOnCheckPageTests

    @Test func aBoxGoingBackLeavesItsClearedNeighbourWhole() throws {
        var (scan, short) = P.page(taken: 7)
        // A second line of five letters 8 px under the first, boxed whole (its box starts a pixel under the first box; the first goes back 6 px past its own).
        for k in 0..<5 {
            let x = 40 + 16 * k, y = 80
            scan.fill(PixelRect(x: x, y: y, width: 3, height: 12), with: P.navy)
            scan.fill(PixelRect(x: x + 9, y: y, width: 3, height: 12), with: P.navy)
            scan.fill(PixelRect(x: x, y: y + 5, width: 12, height: 2), with: P.navy)
        }
        let below = PixelRect(x: 36, y: 77, width: 16 * 5 + 2, height: 20)
        let out = try PageClearing.clear(page: scan, boxes: [short, below], maskFile: nil, source: "p.png", infill: InFill())
        #expect(out.glyphs.map(\.needsReview) == [true, false])
        #expect(P.unchanged(out.image, scan, in: short))
        // Every letter of the line below is gone, top to bottom.
        var left = 0
        for y in below.minY..<below.maxY {
            for x in below.minX..<below.maxX where out.image.pixels[y * scan.width + x] == P.navy { left += 1 }
        }
        #expect(left == 0, "\(left) px of the cleared line's letters put back")
    }
}
