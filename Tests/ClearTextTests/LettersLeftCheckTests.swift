// LettersLeftCheck: the share of a box's letters' ink the fill left whole; a drop capital left
// alone reads 1; specks, shapes larger than `largest` type sizes, a neighbour's letters and drawing
// running out of the box are not letters.

@testable import ClearText
import Geometry
import Raster
import Testing

@Suite struct LettersLeftCheckTests {
    typealias R = RunOnCheckTests

    /// Five glyphs on a line at y = 60 in a box round them; the fill takes the glyphs whose
    /// indices are in `filled` (each glyph's cell, as a mask that missed the others would).
    static func page(filled: Set<Int>, _ add: (inout Bitmap<RGBA8>) -> Void = { _ in }) -> (Bitmap<RGBA8>, Bitmap<RGBA8>, Bitmap<UInt8>, PixelRect) {
        var scan = Bitmap(width: 240, height: 180, fill: R.paper)
        for k in 0..<5 { R.glyph(&scan, 40 + 14 * k, 60) }
        add(&scan)
        let box = PixelRect(x: 36, y: 50, width: 14 * 5 + 2, height: R.size + 20)
        var fill = Bitmap<UInt8>(width: scan.width, height: scan.height, fill: 0)
        var cleared = scan
        for k in filled {
            let cell = PixelRect(x: 38 + 14 * k, y: 58, width: 14, height: R.size + 4)
            for y in cell.minY..<cell.maxY {
                for x in cell.minX..<cell.maxX {
                    fill.pixels[y * scan.width + x] = 255
                    cleared.pixels[y * scan.width + x] = R.paper
                }
            }
        }
        return (scan, cleared, fill, box)
    }

    static func count(_ p: (Bitmap<RGBA8>, Bitmap<RGBA8>, Bitmap<UInt8>, PixelRect), largest: Double = 6) throws -> Double {
        try #require(LettersLeftCheck.share(scan: p.0, cleared: p.1, filled: p.2, box: p.3, vertical: false, largest: largest))
    }

    @Test func everyLetterFilledLeavesNone() throws {
        #expect(try Self.count(Self.page(filled: [0, 1, 2, 3, 4])) == 0)
    }

    /// The mask missed the last letter: it stands alone on the cleared line, a fifth of the ink.
    @Test func aLetterTheFillLeftWholeIsCounted() throws {
        let one = try Self.count(Self.page(filled: [0, 1, 2, 3]))
        #expect(abs(one - 0.2) < 1e-9, "\(one)")
        let three = try Self.count(Self.page(filled: [0, 2]))
        #expect(abs(three - 0.6) < 1e-9, "\(three)")
        #expect(one >= FillCheckParameters().lettersLeft)
    }

    /// A speck (a dot of blur) under a third of a type size is not a letter. A shape of three to
    /// `largest` type sizes left whole (a drop capital standing alone) reads 1; larger, it is a
    /// drawing the box may hold.
    @Test func specksAndLargeShapesAreNotLetters() throws {
        let speck = Self.page(filled: [0, 1, 2, 3, 4]) { $0.fill(PixelRect(x: 60, y: 54, width: 3, height: 3), with: R.ink) }
        #expect(try Self.count(speck) == 0)
        var big = Self.page(filled: [0, 1, 2, 3, 4])
        // A shape four type sizes wide inside a taller box.
        var scan = Bitmap(width: 240, height: 240, fill: R.paper)
        for k in 0..<5 { R.glyph(&scan, 40 + 14 * k, 60) }
        scan.fill(PixelRect(x: 40, y: 100, width: 4 * R.size, height: 4), with: R.ink)
        big.0 = scan
        big.1 = scan
        var fill = Bitmap<UInt8>(width: scan.width, height: scan.height, fill: 0)
        for k in 0..<5 {
            for y in 58..<(60 + R.size + 2) {
                for x in (38 + 14 * k)..<(52 + 14 * k) { fill.pixels[y * scan.width + x] = 255; big.1.pixels[y * scan.width + x] = R.paper }
            }
        }
        big.2 = fill
        big.3 = PixelRect(x: 36, y: 50, width: 4 * R.size + 10, height: 70)
        #expect(try Self.count(big) == 1)
        #expect(try Self.count(big, largest: 3) == 0)
    }

    /// A tight box has letters on its edge (a Q's tail, a drop capital at the block's side): a
    /// shape across the edge whose middle lies inside the box is its letter, and left whole it
    /// counts. One whose middle lies outside is a neighbour's; one that runs on out of the window
    /// three type sizes round the box (a rule, a frame) is drawing.
    @Test func lettersAcrossTheBoxsEdgeAreFollowedOutOfIt() throws {
        // Glyph 0 reaches past the box's left side (x = 36) to x = 30: its middle is inside.
        let tail = Self.page(filled: [1, 2, 3, 4]) { $0.fill(PixelRect(x: 30, y: 60, width: 10, height: 3), with: R.ink) }
        #expect(try Self.count(tail) > 0.2)
        // A neighbour's letter left of the box, touching it: its middle is outside.
        let neighbour = Self.page(filled: [0, 1, 2, 3, 4]) { R.glyph(&$0, 27, 60) }
        #expect(try Self.count(neighbour) == 0)
        // A rule across the box's line, running out of the window both ways.
        let rule = Self.page(filled: [0, 1, 2, 3, 4]) { $0.fill(PixelRect(x: 0, y: 64, width: 240, height: 2), with: R.ink) }
        #expect(try Self.count(rule) == 0)
    }
}
