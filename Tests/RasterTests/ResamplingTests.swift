import Testing
import Geometry
import Raster

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

@Suite struct ResamplingTests {
    static let explicitFilters: [ResamplingFilter] = [.area, .lanczos3, .catmullRom, .bilinear, .nearest]

    @Test func checkerboardAveragesToMidGray() {
        let board = Bitmap<UInt8>(width: 64, height: 48, pixels: (0..<64 * 48).map { i in (i % 64 + i / 64) % 2 == 0 ? 0 : 255 })
        let small = board.resized(width: 32, height: 24)
        #expect(small.width == 32 && small.height == 24)
        #expect(small.pixels.allSatisfy { abs(Double($0) - 127.5) <= 1 })
        let rgba = board.rgba().resized(width: 32, height: 24, filter: .area)
        #expect(rgba.pixels.allSatisfy { abs(Double($0.g) - 127.5) <= 1 && $0.a == 255 })
    }

    @Test func areaWeightsFractionalFootprints() {
        // 3 → 2: each output covers 1.5 source pixels.
        let src = Bitmap<UInt8>(width: 3, height: 1, pixels: [0, 90, 180])
        #expect(src.resized(width: 2, height: 1, filter: .area).pixels == [30, 150])
        let f = Bitmap<Float>(width: 3, height: 1, pixels: [0, 0.9, 1.8]).resized(width: 2, height: 1, filter: .area)
        #expect(abs(f.pixels[0] - 0.3) < 1e-6 && abs(f.pixels[1] - 1.5) < 1e-6)
    }

    @Test(arguments: [ResamplingFilter.area, .lanczos3, .catmullRom, .bilinear])
    func rampStaysARamp(filter: ResamplingFilter) {
        // value = x, shrunk 2× (area: exactly 2i + 0.5) — interior for the kernels, whose
        // clamped edges bend the ramp near the borders.
        let ramp = Bitmap<UInt8>(width: 256, height: 4, pixels: (0..<256 * 4).map { UInt8($0 % 256) })
        let half = ramp.resized(width: 128, height: 4, filter: filter)
        let margin = filter == .area ? 0 : 4
        for x in margin..<(128 - margin) {
            #expect(abs(Double(half[x, 2]) - (2 * Double(x) + 0.5)) <= 1, "x \(x): \(half[x, 2])")
        }
        // Enlarging a ramp keeps it a ramp too: output centre maps to (i + 0.5)/2 − 0.5.
        let ramp2 = Bitmap<UInt8>(width: 100, height: 2, pixels: (0..<200).map { UInt8(($0 % 100) * 2) })
        let big = ramp2.resized(width: 200, height: 2, filter: filter == .area ? .lanczos3 : filter)
        for x in 8..<192 {
            let expected = 2 * ((Double(x) + 0.5) / 2 - 0.5)
            #expect(abs(Double(big[x, 1]) - expected) <= 1, "x \(x): \(big[x, 1]) vs \(expected)")
        }
    }

    static let sizes: [(Int, Int, Int, Int)] = [
        (1000, 10, 333, 3), (333, 7, 1000, 20), (7, 5, 3, 2), (3, 2, 17, 11), (64, 64, 64, 33), (5, 5, 1, 1), (1, 1, 9, 4),
    ]

    @Test(arguments: explicitFilters + [.automatic])
    func constantImageStaysConstant(filter: ResamplingFilter) {
        for (w, h, nw, nh) in Self.sizes {
            let gray = Bitmap<UInt8>(width: w, height: h, fill: 173).resized(width: nw, height: nh, filter: filter)
            #expect(gray.width == nw && gray.height == nh)
            #expect(gray.pixels.allSatisfy { $0 == 173 }, "\(filter) \(w)×\(h) → \(nw)×\(nh)")
            let colour = RGBA8(r: 12, g: 200, b: 255)
            let rgba = Bitmap(width: w, height: h, fill: colour).resized(width: nw, height: nh, filter: filter)
            #expect(rgba.pixels.allSatisfy { $0 == colour }, "\(filter) \(w)×\(h) → \(nw)×\(nh)")
            // Translucent: premultiplying to 8 bits and back may move a channel by one step.
            let glass = RGBA8(r: 200, g: 100, b: 50, a: 128)
            let g2 = Bitmap(width: w, height: h, fill: glass).resized(width: nw, height: nh, filter: filter)
            #expect(g2.pixels.allSatisfy {
                $0.a == 128 && abs(Int($0.r) - 200) <= 1 && abs(Int($0.g) - 100) <= 1 && abs(Int($0.b) - 50) <= 1
            }, "\(filter) \(w)×\(h) → \(nw)×\(nh)")
            let f = Bitmap<Float>(width: w, height: h, fill: 0.625).resized(width: nw, height: nh, filter: filter)
            #expect(f.pixels.allSatisfy { abs($0 - 0.625) < 1e-5 })
        }
    }

    /// A smooth test image, also evaluable between pixel centres for analytic references.
    static func smooth(_ x: Double, _ y: Double) -> Double {
        128 + 90 * sin(2 * .pi * x / 37) * cos(2 * .pi * y / 53)
    }

    static func smoothImage(_ w: Int, _ h: Int) -> Bitmap<UInt8> {
        Bitmap(width: w, height: h) { p in
            for y in 0..<h {
                for x in 0..<w { p[y * w + x] = UInt8(smooth(Double(x), Double(y)).rounded()) }
            }
        }
    }

    /// Detailed but band-limited (periods of 7.3 and 9.1 pixels): separates good interpolators
    /// from linear interpolation.
    static func detailed(_ x: Double, _ y: Double) -> Double {
        128 + 90 * sin(2 * .pi * x / 7.3 + 0.4) * cos(2 * .pi * y / 9.1)
    }

    @Test(arguments: [(ResamplingFilter.lanczos3, 50.0, 3.0), (.catmullRom, 48.0, 3.0), (.bilinear, 33.0, 15.0)])
    func enlargingMatchesTheAnalyticImage(filter: ResamplingFilter, minimumPSNR: Double, maximumError: Double) {
        let (w, h, k) = (120, 90, 3)
        let small = Bitmap<UInt8>(width: w, height: h) { p in
            for y in 0..<h {
                for x in 0..<w { p[y * w + x] = UInt8(Self.detailed(Double(x), Double(y)).rounded()) }
            }
        }
        let big = small.resized(width: w * k, height: h * k, filter: filter)
        // Output pixel i has its centre at source coordinate (i + 0.5)/k − 0.5.
        let reference = Bitmap<UInt8>(width: w * k, height: h * k) { p in
            for y in 0..<h * k {
                for x in 0..<w * k {
                    let sx = (Double(x) + 0.5) / Double(k) - 0.5, sy = (Double(y) + 0.5) / Double(k) - 0.5
                    p[y * w * k + x] = UInt8(Self.detailed(sx, sy).rounded())
                }
            }
        }
        let interior = PixelRect(x: 12, y: 12, width: w * k - 24, height: h * k - 24)
        let d = ImageComparison.difference(big, reference, in: interior)
        #expect(d.psnr > minimumPSNR, "\(filter): \(d)")
        #expect(d.maxError <= maximumError, "\(filter): \(d)")
    }

    @Test func enlargeThenShrinkRoundTrips() {
        let img = Self.smoothImage(90, 70)
        let back = img.resized(width: 270, height: 210).resized(width: 90, height: 70)
        let d = ImageComparison.difference(img, back, in: PixelRect(x: 4, y: 4, width: 82, height: 62))
        #expect(d.psnr > 40, "\(d)")
        let rgba = img.rgba()
        let back2 = rgba.resized(width: 200, height: 157, filter: .catmullRom).resized(width: 90, height: 70)
        #expect(ImageComparison.psnr(rgba, back2, in: PixelRect(x: 4, y: 4, width: 82, height: 62)) > 35)
    }

    @Test func transparentPixelsDoNotBleedColour() {
        // Left half opaque red, right half fully transparent "green" (colour that must not show).
        let w = 40, h = 10
        let src = Bitmap<RGBA8>(width: w, height: h, pixels: (0..<w * h).map { i in
            i % w < w / 2 ? RGBA8(r: 255, g: 0, b: 0) : RGBA8(r: 0, g: 255, b: 0, a: 0)
        })
        for filter in Self.explicitFilters {
            for (nw, nh) in [(15, 4), (97, 23)] {
                let out = src.resized(width: nw, height: nh, filter: filter)
                for p in out.pixels where p.a > 0 {
                    #expect(p.g == 0 && p.b == 0 && p.r == 255, "\(filter) → \(nw)×\(nh): \(p)")
                }
            }
        }
    }

    @Test func premultipliedResizeKeepsTheInvariant() {
        let src = randomRGBA(31, 17, opaque: false, seed: 9).premultiplied()
        for filter in Self.explicitFilters {
            // The initializer would trap on r, g, b > a; check by rebuilding every pixel.
            let out = src.resized(width: 77, height: 40, filter: filter)
            #expect(out.pixels.allSatisfy { $0.r <= $0.a && $0.g <= $0.a && $0.b <= $0.a })
            let shrunk = src.resized(width: 10, height: 6, filter: filter)
            #expect(shrunk.pixels.allSatisfy { $0.r <= $0.a && $0.g <= $0.a && $0.b <= $0.a })
        }
    }

    @Test func nearestReplicatesAndPicksCentres() {
        let src = Bitmap<UInt8>(width: 3, height: 1, pixels: [10, 20, 30])
        #expect(src.resized(width: 6, height: 2, filter: .nearest).pixels == [10, 10, 20, 20, 30, 30, 10, 10, 20, 20, 30, 30])
        let wide = Bitmap<UInt8>(width: 6, height: 1, pixels: [1, 2, 3, 4, 5, 6])
        #expect(wide.resized(width: 3, height: 1, filter: .nearest).pixels == [2, 4, 6])
    }

    @Test func lanczosResultsAreClampedAtHardEdges() {
        // A hard step rings under Lanczos; the output must stay within 0...255, not wrap.
        let step = Bitmap<UInt8>(width: 10, height: 1, pixels: [0, 0, 0, 0, 0, 255, 255, 255, 255, 255])
        let big = step.resized(width: 80, height: 1, filter: .lanczos3)
        #expect(big.pixels[0..<30].allSatisfy { $0 < 10 })
        #expect(big.pixels[50..<80].allSatisfy { $0 > 245 })
    }

    @Test func largeAreaShrinkMatchesTheExactFootprintMean() {
        // Big enough to be split across threads; every output must still be the exact mean of
        // its fractional footprint (within float rounding).
        let (w, h, nw, nh) = (600, 400, 211, 150)
        let img = randomGray(w, h, seed: 4)
        let out = img.resized(width: nw, height: nh, filter: .area)
        func overlap(_ j: Int, _ lo: Double, _ hi: Double) -> Double { max(0, min(hi, Double(j + 1)) - max(lo, Double(j))) }
        var worst = 0.0
        for oy in 0..<nh {
            let y0 = Double(oy * h) / Double(nh), y1 = Double((oy + 1) * h) / Double(nh)
            for ox in 0..<nw {
                let x0 = Double(ox * w) / Double(nw), x1 = Double((ox + 1) * w) / Double(nw)
                var sum = 0.0, weight = 0.0
                for y in Int(y0)..<min(h, Int(y1.rounded(.up))) {
                    let wy = overlap(y, y0, y1)
                    for x in Int(x0)..<min(w, Int(x1.rounded(.up))) {
                        let wxy = wy * overlap(x, x0, x1)
                        sum += wxy * Double(img[x, y])
                        weight += wxy
                    }
                }
                worst = max(worst, abs(Double(out[ox, oy]) - sum / weight))
            }
        }
        #expect(worst <= 0.5 + 1e-3, "worst deviation \(worst)")
        // The same call twice gives the same bytes, however the rows were split.
        #expect(img.resized(width: nw, height: nh, filter: .area) == out)
    }

    @Test func sizeHelpers() {
        #expect(Bitmap<UInt8>.fittedSize(width: 1600, height: 2000, maxWidth: 200, maxHeight: 200) == (160, 200))
        #expect(Bitmap<UInt8>.fittedSize(width: 2000, height: 1000, maxWidth: 300, maxHeight: 300) == (300, 150))
        #expect(Bitmap<UInt8>.fittedSize(width: 100, height: 50, maxWidth: 300, maxHeight: 300) == (100, 50))
        #expect(Bitmap<UInt8>.fittedSize(width: 100, height: 50, maxWidth: 300, maxHeight: 300, allowEnlarging: true) == (300, 150))
        #expect(Bitmap<UInt8>.fittedSize(width: 10000, height: 1, maxWidth: 100, maxHeight: 100) == (100, 1))
        let img = Bitmap<UInt8>(width: 1600, height: 2000, fill: 9)
        let fit = img.resized(fittingWidth: 200, height: 250)
        #expect(fit.width == 200 && fit.height == 250)
        let scaled = img.resized(scale: 0.1)
        #expect(scaled.width == 160 && scaled.height == 200 && scaled.pixels.allSatisfy { $0 == 9 })
        #expect(img.resized(width: 1600, height: 2000) == img)
        #expect(img.resized(width: 0, height: 5).isEmpty)
        #expect(Bitmap<UInt8>(width: 0, height: 0, fill: 0).resized(width: 3, height: 2).pixels == [0, 0, 0, 0, 0, 0])
    }
}

@Suite struct RowResamplerTests {
    /// Fed in uneven strips, the streaming resampler gives what `resized` gives (the same weight
    /// tables; only Float summation order may differ, hence ±1).
    @Test(arguments: [(64, 48, 37, 29), (64, 48, 64, 30), (64, 48, 40, 48), (50, 40, 90, 70), (33, 21, 33, 21)],
          [ResamplingFilter.automatic, .lanczos3, .bilinear])
    func matchesResized(_ size: (Int, Int, Int, Int), filter: ResamplingFilter) {
        let (w, h, ow, oh) = size
        let src = randomRGBA(w, h, opaque: true, seed: 7)
        let expected = src.resized(width: ow, height: oh, filter: filter)
        let streamed = Bitmap<RGBA8>(width: ow, height: oh) { out in
            let r = RowResampler(sourceWidth: w, sourceHeight: h, width: ow, height: oh, filter: filter, into: out)
            src.pixels.withUnsafeBufferPointer { p in
                var y = 0, strip = 1
                while y < h {
                    let n = min(strip, h - y)
                    r.consume(UnsafeBufferPointer(rebasing: p[(y * w)...]), count: n)
                    y += n
                    strip = strip % 5 + 1
                }
            }
            #expect(r.isComplete)
        }
        var worst = 0
        for (a, b) in zip(streamed.pixels, expected.pixels) {
            worst = max(worst, abs(Int(a.r) - Int(b.r)), abs(Int(a.g) - Int(b.g)), abs(Int(a.b) - Int(b.b)), abs(Int(a.a) - Int(b.a)))
        }
        #expect(worst <= 1, "largest channel difference \(worst)")
    }
}
