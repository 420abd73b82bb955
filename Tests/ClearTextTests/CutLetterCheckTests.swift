// CutLetterCheck: a letter the fill took part of and left a visible piece of is counted; letters
// taken whole, strokes that run on out of the window, and shapes the fill only grazed are not.

@testable import ClearText
import Geometry
import Raster
import Testing

@Suite struct CutLetterCheckTests {
    typealias R = RunOnCheckTests

    static func count(_ scan: Bitmap<RGBA8>, box: PixelRect) throws -> Double {
        let (cleared, fill) = R.cleared(scan, box: box)
        return try #require(CutLetterCheck.count(scan: scan, cleared: cleared, filled: fill, box: box, vertical: false))
    }

    /// Five glyphs on a line at y = 60, their box drawn round them.
    static func line() -> (Bitmap<RGBA8>, PixelRect) {
        var page = Bitmap(width: 240, height: 180, fill: R.paper)
        for k in 0..<5 { R.glyph(&page, 40 + 14 * k, 60) }
        return (page, PixelRect(x: 36, y: 56, width: 14 * 5 + 2, height: R.size + 8))
    }

    @Test func lettersTakenWholeAreNotCut() throws {
        let (scan, box) = Self.line()
        #expect(try Self.count(scan, box: box) == 0)
    }

    /// Ascenders reaching past the box's top stay when the box's band is filled: each is a letter cut.
    @Test func ascendersPastTheBoxAreCut() throws {
        var (scan, box) = Self.line()
        for k in [0, 2, 4] { scan.fill(PixelRect(x: 40 + 14 * k, y: 60 - 12, width: 3, height: 12), with: R.ink) }
        #expect(try Self.count(scan, box: box) == 3)
        // The box drawn round the ascenders takes them whole.
        let tall = PixelRect(x: box.minX, y: 44, width: box.width, height: box.maxY - 44)
        #expect(try Self.count(scan, box: tall) == 0)
    }

    /// A rule that crosses the box and runs on out of the window is drawing, kept on purpose; a
    /// piece left under a third of a type size is not seen.
    @Test func strokesThatRunOnAndTinyPiecesAreNotCut() throws {
        var (scan, box) = Self.line()
        scan.fill(PixelRect(x: 60, y: 0, width: 3, height: 180), with: R.ink)  // a stroke down the page
        scan.fill(PixelRect(x: 96, y: 53, width: 3, height: 7), with: R.ink)  // a tip 3 px over the box's edge
        #expect(try Self.count(scan, box: box) == 0)
    }

    /// A neighbour the fill only grazed (under a tenth of it filled) is not cut.
    @Test func aShapeTheFillOnlyGrazedIsNotCut() throws {
        var (scan, box) = Self.line()
        // A glyph under the box whose top row is in the box: 1 row of 18 filled.
        R.glyph(&scan, 60, box.maxY - 1)
        #expect(try Self.count(scan, box: box) == 0)
    }
}
