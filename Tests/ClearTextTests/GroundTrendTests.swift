// A gradient along a box is ground, not art (InkMaskParameters.groundTrend): a tall column of type
// down a sky that runs from blue to orange is read as type on plain ground, while a box with a
// flat sky above it and a drawn field below it is still over art.
import ClearText
import Geometry
import Raster
import Testing

@Suite struct GroundTrendTests {
    static let ink = RGBA8(r: 20, g: 20, b: 40, a: 255)

    /// 140 × 640: a sky from (70, 60, 150) at the top to (230, 150, 110) at the bottom, and a
    /// column of type in it (a stem with ticks, as a Mongolian word is drawn) in a tall box.
    static func column() -> (page: Bitmap<RGBA8>, box: PixelRect, inkPixels: [Int]) {
        let w = 140, h = 640
        var page = Bitmap<RGBA8>(width: w, height: h) { p in
            for y in 0..<h {
                let t = Double(y) / Double(h - 1)
                let px = RGBA8(r: UInt8(70 + 160 * t), g: UInt8(60 + 90 * t), b: UInt8(150 - 40 * t), a: 255)
                for x in 0..<w { p[y * w + x] = px }
            }
        }
        var inkPixels: [Int] = []
        func paint(_ r: PixelRect) {
            for y in r.minY..<r.maxY { for x in r.minX..<r.maxX { page.pixels[y * w + x] = ink; inkPixels.append(y * w + x) } }
        }
        paint(PixelRect(x: 67, y: 70, width: 6, height: 500))
        for k in 0..<12 { paint(PixelRect(x: k % 2 == 0 ? 47 : 73, y: 80 + k * 40, width: 20, height: 5)) }
        return (page, PixelRect(x: 40, y: 60, width: 60, height: 520), inkPixels)
    }

    @Test func aGradientAlongTheBoxIsGround() {
        let (page, box, inkPixels) = Self.column()
        var mean = InkMaskParameters()
        mean.groundTrend = false
        #expect(InkMask.isOverArt(page: page, in: box, parameters: mean), "about its mean the sky spreads like a drawing")
        #expect(!InkMask.isOverArt(page: page, in: box))
        let mask = InkMask.estimate(page: page, in: box)
        let covered = inkPixels.filter { mask.pixels[$0] != 0 }.count
        #expect(Double(covered) >= 0.97 * Double(inkPixels.count), "\(covered) of \(inkPixels.count) ink pixels")
    }

    @Test func skyAboveADrawnFieldIsStillArt() {
        // A wide box between a flat sky and a field of marks: across the box the ring sees two
        // rows, which cannot tell a gradient from a drawing's edge, so no trend is taken out there.
        let w = 400, h = 200
        var rng = SplitMix(seed: 7)
        let page = Bitmap<RGBA8>(width: w, height: h) { p in
            for y in 0..<h {
                for x in 0..<w {
                    if y < 100 { p[y * w + x] = RGBA8(r: 200, g: 210, b: 205, a: 255); continue }
                    let v = UInt8(truncatingIfNeeded: 90 + Int(rng.next() % 60))
                    p[y * w + x] = RGBA8(r: v, g: v &+ 20, b: v / 2, a: 255)
                }
            }
        }
        #expect(InkMask.isOverArt(page: page, in: PixelRect(x: 50, y: 70, width: 300, height: 50)))
    }
}

/// A small deterministic generator (the test target has no TestSupport).
struct SplitMix {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
