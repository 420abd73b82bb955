import Codecs
import Raster
import Testing
import TestSupport

@Suite struct OrientationTests {
    /// Where stored pixel (x, y) of a w×h image is shown, straight from the EXIF definitions of
    /// where stored row 0 and column 0 go.
    static func shown(_ o: Int, x: Int, y: Int, w: Int, h: Int) -> (Int, Int) {
        switch o {
        case 1: return (x, y)
        case 2: return (w - 1 - x, y)          // row 0 top, column 0 right
        case 3: return (w - 1 - x, h - 1 - y)  // row 0 bottom, column 0 right
        case 4: return (x, h - 1 - y)          // row 0 bottom, column 0 left
        case 5: return (y, x)                  // row 0 left, column 0 top
        case 6: return (h - 1 - y, x)          // row 0 right, column 0 top
        case 7: return (h - 1 - y, w - 1 - x)  // row 0 right, column 0 bottom
        default: return (y, w - 1 - x)         // 8: row 0 left, column 0 bottom
        }
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var orientation: Int
        var width: Int
        var height: Int
        var testDescription: String { "\(orientation) on \(width)×\(height)" }
    }

    // Small images take the serial path, the 1300×900 ones the banded parallel path.
    static let cases = (1...8).flatMap { o in [(7, 5), (1, 9), (130, 70), (1300, 900)].map { Case(orientation: o, width: $0.0, height: $0.1) } }

    @Test(arguments: cases)
    func matchesTheEXIFDefinition(_ c: Case) {
        let w = c.width, h = c.height
        let stored = Bitmap<UInt32Pixel>(width: w, height: h) { p in
            for i in 0..<p.count { p[i] = UInt32Pixel(value: UInt32(i)) }
        }
        let upright = stored.applyingOrientation(c.orientation)
        let (ow, oh) = c.orientation >= 5 ? (h, w) : (w, h)
        #expect(upright.width == ow && upright.height == oh)
        var wrong = 0
        for y in 0..<h {
            for x in 0..<w {
                let (sx, sy) = Self.shown(c.orientation, x: x, y: y, w: w, h: h)
                if upright.pixels[sy * ow + sx].value != UInt32(y * w + x) { wrong += 1 }
            }
        }
        #expect(wrong == 0)
    }

    @Test func bigInterlacedColourPNGToGray() throws {
        // Adam7 colour → gray holds the whole RGBA image and converts it on both cores.
        let w = 1100, h = 1000
        var raw = RawPNG(width: w, height: h, colorType: PNGColor.rgb.rawValue, bitDepth: 8)
        raw.interlaced = true
        var rng = SplitMix64(seed: 3)
        raw.samples = (0..<w * h * 3).map { _ in UInt8.random(in: 0...255, using: &rng) }
        let png = try raw.encode(options: PNGEncodeOptions(compressionLevel: 1), name: "big")
        let rgba = try ImageDecoder.decode(png, name: "big.png")
        let gray = try ImageDecoder.decodeGray(png, name: "big.png")
        #expect(gray.pixels == rgba.pixels.map(\.luma))
        raw.interlaced = false
        let strips = try ImageDecoder.decodeGray(raw.encode(options: PNGEncodeOptions(compressionLevel: 1), name: "big"), name: "big.png")
        #expect(strips.pixels == gray.pixels)
    }
}

/// A 32-bit pixel holding its own stored index, so every move is traceable.
struct UInt32Pixel: PixelFormat {
    var value: UInt32
    static var channelCount: Int { 1 }
    static var formatName: String { "index32" }
}
