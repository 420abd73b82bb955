import Testing
import TestSupport
import Geometry
import Raster

@Suite struct CompositingTests {
    @Test func translucentOverOpaqueIsExact() {
        var canvas = Bitmap(width: 1, height: 1, fill: RGBA8(r: 0, g: 0, b: 255))
        canvas.composite(Bitmap(width: 1, height: 1, fill: RGBA8(r: 200, g: 100, b: 50, a: 128)), atX: 0, y: 0)
        // round((200·128 + 0·127)/255) = 100, round(12800/255) = 50, round((6400 + 255·127)/255) = 152
        #expect(canvas[0, 0] == RGBA8(r: 100, g: 50, b: 152, a: 255))
    }

    @Test func overTransparentCanvasKeepsSourceExactly() {
        var canvas = Bitmap(width: 2, height: 1, fill: RGBA8.clear)
        let src = Bitmap(width: 2, height: 1, pixels: [RGBA8(r: 200, g: 100, b: 50, a: 128), RGBA8(r: 1, g: 2, b: 3, a: 1)])
        canvas.composite(src, atX: 0, y: 0)
        #expect(canvas == src)
    }

    @Test func everyCombinationMatchesTheExactFormula() {
        var rng = SplitMix64(seed: 11)
        for _ in 0..<20000 {
            let s = rng.rgba(), d = rng.rgba()
            var canvas = Bitmap(width: 1, height: 1, fill: d)
            canvas.composite(Bitmap(width: 1, height: 1, fill: s), atX: 0, y: 0)
            #expect(canvas[0, 0] == referenceOver(s, Int(s.a), d), "\(s) over \(d)")
        }
    }

    @Test func translucentOverTranslucentStacksLikePremultipliedMaths() {
        // 50 % white over 50 % black: alpha 1 − 0.5·0.5 = 0.75, colour (0.5·1)/0.75 = 2/3.
        var canvas = Bitmap(width: 1, height: 1, fill: RGBA8(r: 0, g: 0, b: 0, a: 128))
        canvas.composite(Bitmap(width: 1, height: 1, fill: RGBA8(r: 255, g: 255, b: 255, a: 128)), atX: 0, y: 0)
        let p = canvas[0, 0]
        #expect(abs(Int(p.a) - 191) <= 1)
        #expect(abs(Int(p.r) - 170) <= 1)
    }

    @Test(arguments: [0.0, 0.25, 0.5, 1.0])
    func opacityScalesSourceAlpha(opacity: Double) {
        let d = RGBA8(r: 0, g: 0, b: 255)
        let s = RGBA8(r: 255, g: 0, b: 0, a: 200)
        var canvas = Bitmap(width: 1, height: 1, fill: d)
        canvas.composite(Bitmap(width: 1, height: 1, fill: s), atX: 0, y: 0, opacity: opacity)
        let o = Int((opacity * 255).rounded())
        let ea = roundHalfUp(Double(200 * o) / 255)
        #expect(canvas[0, 0] == referenceOver(s, ea, d))
        if opacity == 0 { #expect(canvas[0, 0] == d) }
    }

    @Test func compositeClipsAtEveryEdge() {
        let src = Bitmap(width: 4, height: 4, fill: RGBA8.white)
        for (x, y) in [(-2, -2), (3, -1), (-3, 3), (4, 4), (-10, 0), (10, 10)] {
            var canvas = Bitmap(width: 5, height: 5, fill: RGBA8.black)
            canvas.composite(src, atX: x, y: y)
            for py in 0..<5 {
                for px in 0..<5 {
                    let inside = px >= x && px < x + 4 && py >= y && py < y + 4
                    #expect(canvas[px, py] == (inside ? .white : .black), "source at (\(x), \(y)), pixel (\(px), \(py))")
                }
            }
        }
    }

    @Test func compositeFromAView() {
        var src = Bitmap(width: 4, height: 4, fill: RGBA8.clear)
        src[2, 1] = .white
        var canvas = Bitmap(width: 3, height: 3, fill: RGBA8.black)
        canvas.composite(src.view(PixelRect(x: 1, y: 1, width: 2, height: 2)), atX: 1, y: 1)
        #expect(canvas[2, 1] == .white)
        #expect(canvas.pixels.filter { $0 == .white }.count == 1)
    }

    @Test func maskAtZeroAndFullCoverageIsExact() {
        let d = RGBA8(r: 12, g: 34, b: 56)
        let colour = RGBA8(r: 200, g: 150, b: 100)
        var canvas = Bitmap(width: 3, height: 1, fill: d)
        canvas.drawMask(Bitmap(width: 3, height: 1, pixels: [0, 255, 128]), color: colour, atX: 0, y: 0)
        #expect(canvas[0, 0] == d)
        #expect(canvas[1, 0] == colour)
        // coverage 128: round((c·128 + d·127)/255)
        let expected = RGBA8(
            r: UInt8(roundHalfUp(Double(200 * 128 + 12 * 127) / 255)),
            g: UInt8(roundHalfUp(Double(150 * 128 + 34 * 127) / 255)),
            b: UInt8(roundHalfUp(Double(100 * 128 + 56 * 127) / 255)))
        #expect(canvas[2, 0] == expected)
    }

    @Test func maskWithTranslucentColourAndCanvas() {
        var rng = SplitMix64(seed: 5)
        for _ in 0..<5000 {
            let d = rng.rgba(), colour = rng.rgba(), m = rng.byte()
            var canvas = Bitmap(width: 1, height: 1, fill: d)
            canvas.drawMask(Bitmap(width: 1, height: 1, fill: m), color: colour, atX: 0, y: 0)
            let ea = colour.a == 255 ? Int(m) : roundHalfUp(Double(Int(m) * Int(colour.a)) / 255)
            #expect(canvas[0, 0] == referenceOver(colour, ea, d), "\(colour) through \(m) over \(d)")
        }
    }

    @Test func maskClipsAndHonoursViewOrigin() {
        var mask = Bitmap<UInt8>(width: 4, height: 4, fill: 0)
        mask[3, 3] = 255
        mask[0, 0] = 255
        var canvas = Bitmap(width: 4, height: 4, fill: RGBA8.black)
        canvas.drawMask(mask, color: .white, atX: -3, y: -3)
        #expect(canvas[0, 0] == .white)
        #expect(canvas.pixels.filter { $0 == .white }.count == 1)
        var gray = Bitmap<UInt8>(width: 4, height: 4, fill: 10)
        gray.drawMask(mask.view(PixelRect(x: 2, y: 2, width: 2, height: 2)), value: 250, atX: 3, y: 0)
        #expect(gray[3, 0] == 10)
        #expect(gray[3, 1] == 10)
        gray.drawMask(mask.view(PixelRect(x: 2, y: 2, width: 2, height: 2)), value: 250, atX: 2, y: 2)
        #expect(gray[3, 3] == 250)
        #expect(gray.pixels.filter { $0 == 250 }.count == 1)
        var half = Bitmap<UInt8>(width: 1, height: 1, fill: 0)
        half.drawMask(Bitmap(width: 1, height: 1, fill: 128), value: 255, atX: 0, y: 0)
        #expect(half[0, 0] == 128)
    }

    @Test func bigCompositeMatchesPixelwiseReference() {
        // Spans many rows so the work is split across threads.
        let src = randomRGBA(700, 500, opaque: false, seed: 21)
        let base = randomRGBA(800, 600, opaque: false, seed: 22)
        var canvas = base
        canvas.composite(src, atX: 50, y: 60, opacity: 0.7)
        let o = Int((0.7 * 255).rounded())
        for (x, y) in [(0, 0), (50, 60), (749, 559), (400, 300), (123, 456), (750, 300)] {
            let inside = x >= 50 && x < 750 && y >= 60 && y < 560
            let expected = inside
                ? referenceOver(src[x - 50, y - 60], roundHalfUp(Double(Int(src[x - 50, y - 60].a) * o) / 255), base[x, y])
                : base[x, y]
            #expect(canvas[x, y] == expected, "pixel (\(x), \(y))")
        }
    }

    @Test func blendingFillCoversClippedRect() {
        var canvas = Bitmap(width: 4, height: 4, fill: RGBA8.white)
        canvas.fill(PixelRect(x: 2, y: -1, width: 5, height: 2), blending: RGBA8(r: 0, g: 0, b: 0, a: 128))
        let grey = RGBA8(r: 127, g: 127, b: 127)
        #expect(canvas[2, 0] == grey && canvas[3, 0] == grey)
        #expect(canvas[1, 0] == .white && canvas[2, 1] == .white)
        canvas.fill(PixelRect(x: 0, y: 3, width: 1, height: 1), blending: .black)
        #expect(canvas[0, 3] == .black)
    }

    @Test func solidStrokeDrawsExactlyTheBorder() {
        var canvas = Bitmap(width: 8, height: 6, fill: RGBA8.black)
        canvas.strokeRect(PixelRect(x: 1, y: 1, width: 5, height: 4), color: .white)
        for y in 0..<6 {
            for x in 0..<8 {
                let onBorder = (x == 1 || x == 5) && (1...4).contains(y) || (y == 1 || y == 4) && (1...5).contains(x)
                #expect(canvas[x, y] == (onBorder ? .white : .black), "pixel (\(x), \(y))")
            }
        }
    }

    @Test func thickTranslucentStrokeBlendsEachPixelOnce() {
        var canvas = Bitmap(width: 5, height: 3, fill: RGBA8.white)
        canvas.strokeRect(canvas.bounds, color: RGBA8(r: 0, g: 0, b: 0, a: 128), lineWidth: 2)
        // Every pixel lies on the (overlapping) stroke; each must be darkened exactly once.
        #expect(canvas.pixels.allSatisfy { $0 == RGBA8(r: 127, g: 127, b: 127) })
    }

    @Test func dashedStrokeAlternatesRoundThePerimeter() {
        var canvas = Bitmap(width: 12, height: 8, fill: RGBA8.black)
        canvas.strokeRect(canvas.bounds, color: .white, dash: DashPattern(on: 3, off: 2))
        #expect((0..<12).map { canvas[$0, 0] == .white } == [true, true, true, false, false, true, true, true, false, false, true, true])
        // Right edge continues the pattern: positions 12...19 down the side.
        #expect((1..<7).map { canvas[11, $0] == .white } == [(13 % 5) < 3, (14 % 5) < 3, (15 % 5) < 3, (16 % 5) < 3, (17 % 5) < 3, (18 % 5) < 3])
        let drawn = canvas.pixels.filter { $0 == .white }.count
        // 36 perimeter pixels, 3 of every 5 drawn (plus the partial last period).
        #expect(drawn >= 36 * 3 / 5 && drawn <= 36 * 3 / 5 + 3)
        // The interior is untouched.
        #expect(canvas.cropped(to: PixelRect(x: 1, y: 1, width: 10, height: 6)).pixels.allSatisfy { $0 == .black })
    }
}
