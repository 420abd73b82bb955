import Testing
import Geometry
import Raster

@Suite struct ConversionTests {
    @Test func premultiplyIsExactlyRoundedForEveryValue() {
        for a in 0...255 {
            for c in 0...255 {
                let p = RGBA8(r: UInt8(c), g: UInt8(255 - c), b: 0, a: UInt8(a)).premultiplied
                #expect(Int(p.r) == roundHalfUp(Double(c * a) / 255), "c \(c) a \(a)")
                #expect(Int(p.g) == roundHalfUp(Double((255 - c) * a) / 255), "c \(255 - c) a \(a)")
                #expect(p.a == UInt8(a))
            }
        }
    }

    @Test func unpremultiplyIsExactlyRoundedForEveryValue() {
        for a in 1...255 {
            for c in 0...a {
                let s = PremultipliedRGBA8(r: UInt8(c), g: 0, b: UInt8(a), a: UInt8(a)).unpremultiplied
                #expect(Int(s.r) == roundHalfUp(Double(c * 255) / Double(a)), "c \(c) a \(a)")
                #expect(s.g == 0 && s.b == 255 && s.a == UInt8(a))
            }
        }
        #expect(PremultipliedRGBA8.clear.unpremultiplied == .clear)
    }

    @Test func premultipliedRoundTripIsLosslessWhenOpaqueAndCloseOtherwise() {
        let img = randomRGBA(97, 61, opaque: false, seed: 7)
        let back = img.premultiplied().unpremultiplied()
        for (p, q) in zip(img.pixels, back.pixels) {
            #expect(p.a == q.a)
            if p.a == 255 { #expect(p == q) }
            // Premultiplying keeps about log2(a) bits per channel, so the error bound is 255/(2a).
            let bound = p.a == 0 ? 255 : Int((255.0 / (2 * Double(p.a))).rounded(.up))
            if p.a > 0 {
                #expect(abs(Int(p.r) - Int(q.r)) <= bound)
                #expect(abs(Int(p.b) - Int(q.b)) <= bound)
            }
        }
    }

    @Test func grayAndAlphaExtraction() {
        let img = Bitmap(width: 3, height: 1, pixels: [
            RGBA8(r: 255, g: 0, b: 0, a: 10), RGBA8(r: 0, g: 255, b: 0), RGBA8(r: 0, g: 0, b: 255, a: 0),
        ])
        #expect(img.grayscale().pixels == [76, 150, 29])
        #expect(img.alphaChannel().pixels == [10, 255, 0])
        let gray = Bitmap<UInt8>(width: 2, height: 1, pixels: [0, 200])
        #expect(gray.rgba().pixels == [RGBA8(gray: 0), RGBA8(r: 200, g: 200, b: 200, a: 255)])
        #expect(gray.rgba().grayscale() == gray)
        let recoloured = img.replacingAlpha(with: Bitmap(width: 3, height: 1, pixels: [1, 2, 3]))
        #expect(recoloured.pixels.map(\.a) == [1, 2, 3])
        #expect(recoloured.pixels.map(\.r) == [255, 0, 0])
    }

    @Test func flattenOverBackground() {
        let img = Bitmap(width: 3, height: 1, pixels: [
            RGBA8(r: 200, g: 100, b: 50, a: 128), RGBA8(r: 1, g: 2, b: 3), RGBA8(r: 9, g: 9, b: 9, a: 0),
        ])
        let flat = img.flattened(over: RGBA8(r: 0, g: 0, b: 255, a: 7))
        #expect(flat.pixels[0] == RGBA8(r: 100, g: 50, b: 152))
        #expect(flat.pixels[1] == RGBA8(r: 1, g: 2, b: 3))
        #expect(flat.pixels[2] == RGBA8(r: 0, g: 0, b: 255))
        #expect(img.flattened().isOpaque)
        #expect(!img.isOpaque)
    }

    @Test func parallelConversionMatchesPerPixelMap() {
        // Large enough to be split across threads; chunk seams must not show.
        let img = randomRGBA(1013, 677, opaque: false, seed: 3)
        #expect(img.grayscale() == img.map(\.luma))
        #expect(img.premultiplied() == img.map(\.premultiplied))
        let pm = img.premultiplied()
        #expect(pm.unpremultiplied() == pm.map(\.unpremultiplied))
    }

    @Test func floatPlanesRoundTrip() {
        let gray = randomGray(40, 30, seed: 5)
        let f = gray.floats()
        #expect(f.pixels.allSatisfy { $0 >= 0 && $0 <= 1 })
        #expect(f.bytes() == gray)
        let wild = Bitmap<Float>(width: 4, height: 1, pixels: [-3, .nan, 2, 0.5])
        #expect(wild.bytes().pixels == [0, 0, 255, 128])
    }

    @Test func colorizedMaskScalesAlpha() {
        let mask = Bitmap<UInt8>(width: 3, height: 1, pixels: [0, 128, 255])
        let out = mask.colorized(RGBA8(r: 10, g: 20, b: 30, a: 200))
        #expect(out.pixels.map(\.a) == [0, 100, 200])
        #expect(out.pixels.allSatisfy { $0.r == 10 && $0.g == 20 && $0.b == 30 })
    }
}
