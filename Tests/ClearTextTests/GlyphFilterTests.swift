import Geometry
import Raster
import Testing
@testable import ClearText

/// Only what can be type leaves the mask: drawn shapes and rules a box took in stay on the page.
@Suite struct GlyphFilterTests {
    static func mask(_ width: Int, _ height: Int) -> Bitmap<UInt8> { Bitmap(width: width, height: height, fill: 0) }

    static func letters(_ m: inout Bitmap<UInt8>, rows: [Int], size: Int, from x0: Int, count: Int) {
        for y0 in rows {
            for k in 0..<count {
                let x = x0 + k * (size + size / 2)
                m.fill(.init(x: x, y: y0, width: size * 2 / 3, height: size), with: 255)
            }
        }
    }

    static func ring(_ m: inout Bitmap<UInt8>, cx: Int, cy: Int, radius: Int) {
        for y in 0..<m.height {
            for x in 0..<m.width {
                let d = Double((x - cx) * (x - cx) + (y - cy) * (y - cy)).squareRoot()
                if abs(d - Double(radius)) < 1.5 { m.pixels[y * m.width + x] = 255 }
            }
        }
    }

    static func count(_ m: Bitmap<UInt8>, in r: PixelRect) -> Int {
        var n = 0
        for y in r.minY..<r.maxY { for x in r.minX..<r.maxX where m.pixels[y * m.width + x] != 0 { n += 1 } }
        return n
    }

    @Test func aDialInsideATextBoxStaysAndTheBoxIsFlagged() {
        var m = Self.mask(400, 400)
        Self.letters(&m, rows: [20, 50], size: 16, from: 20, count: 12)
        Self.ring(&m, cx: 200, cy: 250, radius: 110)
        let box = PixelRect(x: 0, y: 0, width: 400, height: 400)
        var unflagged = GlyphFilterParameters()
        unflagged.keepScanWhenUnsure = false
        var filtered = m
        let report = GlyphFilter.keepGlyphs(&filtered, regions: [box], parameters: unflagged)[0]
        // The ring is gone from the mask, every letter is still in it.
        #expect(Self.count(filtered, in: .init(x: 80, y: 130, width: 240, height: 240)) == 0)
        #expect(Self.count(filtered, in: .init(x: 0, y: 0, width: 400, height: 80)) == Self.count(m, in: .init(x: 0, y: 0, width: 400, height: 80)))
        #expect(report.needsReview)
        // By default a box this entangled with a drawing is left as scanned altogether.
        var kept = m
        _ = GlyphFilter.keepGlyphs(&kept, regions: [box])
        #expect(Self.count(kept, in: box) == 0)
    }

    @Test func wholeLinesJoinedByTheMaskAreType() {
        // Three lines, each one component 300 px long and 18 px thick, and a few letters.
        var m = Self.mask(360, 120)
        for y in [10, 45, 80] { m.fill(.init(x: 20, y: y, width: 300, height: 18), with: 255) }
        Self.letters(&m, rows: [102], size: 14, from: 20, count: 3)
        let before = Self.count(m, in: m.bounds)
        let report = GlyphFilter.keepGlyphs(&m, regions: [m.bounds])[0]
        #expect(report.droppedPixels == 0 && !report.needsReview)
        #expect(Self.count(m, in: m.bounds) == before)
    }

    @Test func aRuleAcrossALineBoxStays() {
        var m = Self.mask(600, 30)
        Self.letters(&m, rows: [6], size: 18, from: 10, count: 3)
        m.fill(.init(x: 0, y: 27, width: 600, height: 2), with: 255)
        var p = GlyphFilterParameters()
        p.keepScanWhenUnsure = false
        _ = GlyphFilter.keepGlyphs(&m, regions: [m.bounds], parameters: p)
        #expect(Self.count(m, in: .init(x: 0, y: 27, width: 600, height: 2)) == 0)
        #expect(Self.count(m, in: .init(x: 0, y: 0, width: 600, height: 26)) > 0)
    }

    @Test func verticalColumnsAndArabicWordsAreType() {
        // A Mongolian-like column (long, one type size wide) and long joined words.
        var m = Self.mask(300, 400)
        m.fill(.init(x: 20, y: 10, width: 16, height: 370), with: 255)
        m.fill(.init(x: 60, y: 10, width: 16, height: 300), with: 255)
        m.fill(.init(x: 100, y: 40, width: 160, height: 16), with: 255)
        m.fill(.init(x: 100, y: 80, width: 120, height: 16), with: 255)
        let report = GlyphFilter.keepGlyphs(&m, regions: [m.bounds])[0]
        #expect(report.droppedPixels == 0)
    }
}
