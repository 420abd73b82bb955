import Testing
import Geometry
import Raster

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Straightforward 2-D box mean with clamped edges, rounded half up: each source pixel counted
/// as often as the clamped window repeats it (so huge radii stay cheap to evaluate).
func naiveBox(_ img: Bitmap<UInt8>, radius r: Int) -> Bitmap<UInt8> {
    func multiplicities(_ i: Int, _ n: Int) -> [Int] {
        var m = [Int](repeating: 0, count: n)
        for j in (i - r)...(i + r) { m[min(max(j, 0), n - 1)] += 1 }
        return m
    }
    let mx = (0..<img.width).map { multiplicities($0, img.width) }
    let my = (0..<img.height).map { multiplicities($0, img.height) }
    return Bitmap(width: img.width, height: img.height) { p in
        for y in 0..<img.height {
            for x in 0..<img.width {
                var sum = 0
                for sy in 0..<img.height where my[y][sy] > 0 {
                    for sx in 0..<img.width where mx[x][sx] > 0 {
                        sum += Int(img[sx, sy]) * mx[x][sx] * my[y][sy]
                    }
                }
                let n = (2 * r + 1) * (2 * r + 1)
                p[y * img.width + x] = UInt8((sum * 2 + n) / (2 * n))
            }
        }
    }
}

@Suite struct BlurTests {
    @Test(arguments: [1, 2, 5])
    func boxBlurIsTheExactRoundedMean(radius: Int) {
        let img = randomGray(37, 23, seed: UInt64(radius))
        #expect(img.boxBlurred(radius: radius) == naiveBox(img, radius: radius))
        // Colour channels are independent; opaque images take the same integer path.
        let rgba = randomRGBA(29, 19, opaque: true, seed: 4)
        let blurred = rgba.boxBlurred(radius: radius)
        #expect(blurred.map(\.g) == naiveBox(rgba.map(\.g), radius: radius))
        #expect(blurred.map(\.b) == naiveBox(rgba.map(\.b), radius: radius))
        #expect(blurred.pixels.allSatisfy { $0.a == 255 })
    }

    @Test func boxBlurOfAnImpulse() {
        var img = Bitmap<UInt8>(width: 7, height: 7, fill: 0)
        img[3, 3] = 225
        let out = img.boxBlurred(radius: 1)
        for y in 0..<7 {
            for x in 0..<7 {
                #expect(out[x, y] == ((2...4).contains(x) && (2...4).contains(y) ? 25 : 0))
            }
        }
    }

    @Test func hugeRadiusFallsBackAndStaysClose() {
        let img = randomGray(40, 30, seed: 8)
        let out = img.boxBlurred(radius: 600)
        let reference = naiveBox(img, radius: 600)
        #expect(ImageComparison.maxError(out, reference) <= 1)
    }

    @Test func blursKeepFlatImagesFlat() {
        let flat = Bitmap(width: 50, height: 40, fill: RGBA8(r: 10, g: 120, b: 250))
        #expect(flat.boxBlurred(radius: 3) == flat)
        #expect(flat.gaussianBlurred(sigma: 2.5) == flat)
        let f = Bitmap<Float>(width: 20, height: 20, fill: 0.25).gaussianBlurred(sigma: 1.2)
        #expect(f.pixels.allSatisfy { abs($0 - 0.25) < 1e-6 })
        #expect(flat.gaussianBlurred(sigma: 0) == flat)
    }

    @Test func gaussianOfAnImpulseIsANormalisedGaussian() {
        var img = Bitmap<Float>(width: 41, height: 41, fill: 0)
        img[20, 20] = 1
        let sigma = 2.0
        let out = img.gaussianBlurred(sigma: sigma)
        #expect(abs(out.pixels.reduce(0, +) - 1) < 1e-4)
        // Separable: the profile along the centre row follows exp(−x²/2σ²).
        let centre = Double(out[20, 20])
        for dx in 1...4 {
            let ratio = Double(out[20 + dx, 20]) / centre
            #expect(abs(ratio - exp(-Double(dx * dx) / (2 * sigma * sigma))) < 1e-3)
            #expect(out[20 + dx, 20] == out[20 - dx, 20] && out[20, 20 + dx] == out[20 + dx, 20])
        }
    }

    @Test func blurringTranslucentImagesDoesNotBleedHiddenColour() {
        let w = 20
        let img = Bitmap<RGBA8>(width: w, height: 5, pixels: (0..<w * 5).map { i in
            i % w < 10 ? RGBA8(r: 0, g: 0, b: 255) : RGBA8(r: 255, g: 0, b: 0, a: 0)
        })
        for out in [img.boxBlurred(radius: 2), img.gaussianBlurred(sigma: 1.5)] {
            for p in out.pixels where p.a > 0 { #expect(p.r == 0 && p.b == 255, "\(p)") }
        }
    }
}

@Suite struct ComparisonTests {
    @Test func identicalImagesHaveInfinitePSNR() {
        let img = randomRGBA(30, 20, opaque: false, seed: 1)
        let d = ImageComparison.difference(img, img)
        #expect(d.psnr == .infinity)
        #expect(d.meanAbsoluteError == 0 && d.maxError == 0)
        #expect(d.sampleCount == 30 * 20 * 4)
    }

    @Test func knownNoiseGivesKnownPSNR() {
        let a = Bitmap<UInt8>(width: 16, height: 16, fill: 128)
        var b = a
        for i in b.pixels.indices { b.pixels[i] = i % 2 == 0 ? 133 : 123 }
        let d = ImageComparison.difference(a, b)
        #expect(d.meanSquaredError == 25)
        #expect(d.meanAbsoluteError == 5 && d.maxError == 5)
        // 10·log10(255² / 25) = 34.151 dB
        #expect(abs(d.psnr - 34.1514) < 1e-3)
        #expect(abs(ImageComparison.psnr(a, b) - 34.1514) < 1e-3)
        // One channel off by 51 in a 2×1 RGBA image: MSE = 51²/8.
        let c = Bitmap(width: 2, height: 1, fill: RGBA8.white)
        var e = c
        e[1, 0] = RGBA8(r: 255, g: 204, b: 255)
        #expect(abs(ImageComparison.difference(c, e).meanSquaredError - 2601.0 / 8) < 1e-9)
        #expect(ImageComparison.maxError(c, e) == 51)
    }

    @Test func rectAndMaskRestrictTheComparison() {
        let a = Bitmap<UInt8>(width: 10, height: 10, fill: 0)
        var b = a
        b[9, 9] = 200
        #expect(ImageComparison.psnr(a, b, in: PixelRect(x: 0, y: 0, width: 9, height: 9)) == .infinity)
        #expect(ImageComparison.maxError(a, b, in: PixelRect(x: 5, y: 5, width: 100, height: 100)) == 200)
        #expect(ImageComparison.meanAbsoluteError(a, b, in: PixelRect(x: 8, y: 8, width: 2, height: 2)) == 50)
        var mask = Bitmap<UInt8>(width: 10, height: 10, fill: 0)
        mask[0, 0] = 255
        #expect(ImageComparison.maxError(a, b, mask: mask) == 0)
        mask[9, 9] = 1
        let d = ImageComparison.difference(a, b, mask: mask)
        #expect(d.sampleCount == 2 && d.meanAbsoluteError == 100)
        let none = ImageComparison.difference(a, b, in: PixelRect(x: 20, y: 20, width: 3, height: 3))
        #expect(none.sampleCount == 0 && none.psnr == .infinity)
    }

    @Test func floatPlanesUseUnitPeak() {
        let a = Bitmap<Float>(width: 4, height: 1, fill: 0.5)
        let b = Bitmap<Float>(width: 4, height: 1, fill: 0.6)
        let d = ImageComparison.difference(a, b)
        #expect(abs(d.psnr - 20) < 1e-4)
    }
}
