import Geometry
import Raster
import Testing
@testable import ClearText

/// The ink estimate on type the first corpora did not have: bold display type whose stems are
/// wider than the closing was.
@Suite struct InkMaskStrokeTests {
    /// Stems 12 px wide and a bar 12 px tall are measured as 12; a dark band that runs through
    /// the whole box (art, or letters the box cut) is not type and is not measured.
    @Test func strokesAreMeasuredAndBandsThroughTheBoxAreNot() {
        let w = 200, h = 70
        var luma = [UInt8](repeating: 235, count: w * h)
        func dark(_ x0: Int, _ y0: Int, _ ww: Int, _ hh: Int) {
            for y in y0..<(y0 + hh) { for x in x0..<(x0 + ww) { luma[y * w + x] = 20 } }
        }
        for x in stride(from: 10, to: 150, by: 30) { dark(x, 8, 12, 40) }
        dark(150, 20, 40, 12)
        #expect(InkMask.strokeWidth(luma: luma, width: w, height: h) == 12)
        // A band 18 px tall from edge to edge: its pixels' runs reach the box's edge.
        dark(0, 50, w, 18)
        #expect(InkMask.strokeWidth(luma: luma, width: w, height: h) == 12)
        // Too little to measure.
        #expect(InkMask.strokeWidth(luma: [UInt8](repeating: 235, count: w * h), width: w, height: h) == 0)
    }

    /// Bold display type in a speech bubble: "H"s with 14-px stems in a 58-px box. The closing was
    /// a fifth of the box (11 px) and left the middle of every stem as "background"; with the
    /// window widened to twice the strokes the whole letters are ink, and nothing else is.
    @Test func boldDisplayTypeIsMaskedWhole() throws {
        let ground = RGBA8(r: 244, g: 236, b: 214), inkColour = RGBA8(r: 30, g: 28, b: 34)
        var page = Bitmap<RGBA8>(width: 420, height: 140, fill: ground)
        var ink = Bitmap<UInt8>(width: 420, height: 140, fill: 0)
        let box = PixelRect(x: 20, y: 40, width: 380, height: 58)
        for k in 0..<5 {
            let x = 30 + k * 72
            for r in [PixelRect(x: x, y: 47, width: 14, height: 44), PixelRect(x: x + 32, y: 47, width: 14, height: 44), PixelRect(x: x + 14, y: 62, width: 18, height: 14)] {
                ink.fill(r, with: 255)
                page.fill(r, with: inkColour)
            }
        }
        let estimate = InkMask.estimate(page: page, in: box)
        var missed = 0, extra = 0
        for i in ink.pixels.indices {
            if ink.pixels[i] != 0 && estimate.pixels[i] == 0 { missed += 1 }
            if ink.pixels[i] == 0 && estimate.pixels[i] != 0 { extra += 1 }
        }
        #expect(missed == 0)
        #expect(extra == 0)
        // The window of the old rule alone leaves the stems' middles.
        var narrow = InkMaskParameters()
        narrow.strokeWindow = 0
        let old = InkMask.estimate(page: page, in: box, parameters: narrow)
        #expect(ink.pixels.indices.filter { ink.pixels[$0] != 0 && old.pixels[$0] == 0 }.count > 500)
    }

    /// The running extremum (the closing behind every estimate) equals the direct one: windows
    /// narrower and wider than the image, square and long images, both extrema.
    @Test(arguments: [(1, 1, 1), (17, 5, 1), (5, 17, 3), (40, 23, 7), (23, 40, 30), (64, 64, 14), (9, 3, 12)])
    func runningExtremaEqualTheDirectOnes(_ size: (Int, Int, Int)) {
        let (w, h, half) = size
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15 &* UInt64(w * 131 + h * 7 + half)
        let a = (0..<(w * h)).map { _ -> UInt8 in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: seed >> 56)
        }
        func direct(_ pick: (UInt8, UInt8) -> UInt8) -> [UInt8] {
            var out = a
            for y in 0..<h {
                for x in 0..<w {
                    var v = a[y * w + x]
                    for yy in max(0, y - half)...min(h - 1, y + half) {
                        for xx in max(0, x - half)...min(w - 1, x + half) { v = pick(v, a[yy * w + xx]) }
                    }
                    out[y * w + x] = v
                }
            }
            return out
        }
        #expect(InkMask.dilate(a, w, h, half) == direct(max))
        #expect(InkMask.erode(a, w, h, half) == direct(min))
    }
}
