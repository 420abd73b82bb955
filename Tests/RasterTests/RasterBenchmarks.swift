import Testing
import Geometry
import Raster

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Timings for the hot paths. Off by default (debug timings mean nothing); run with
/// `PICTUREBOOK_BENCH=1 swift test -c release --filter RasterBenchmarks`.
@Suite(.enabled(if: getenv("PICTUREBOOK_BENCH") != nil), .serialized)
struct RasterBenchmarks {
    /// Process CPU time (all threads) in milliseconds: steadier than wall time on a shared box.
    func cpuMilliseconds() -> Double {
        var u = rusage()
        getrusage(RUSAGE_SELF.rawValue, &u)
        let user = Double(u.ru_utime.tv_sec) * 1000 + Double(u.ru_utime.tv_usec) / 1000
        return user + Double(u.ru_stime.tv_sec) * 1000 + Double(u.ru_stime.tv_usec) / 1000
    }

    /// Best wall time of `runs` in milliseconds (best-of filters out other engineers' builds);
    /// prints it with the best CPU time, which shows how much work the cores really did.
    func time(_ label: String, runs: Int = 7, _ body: () -> Void) -> Double {
        var best = Double.infinity, bestCPU = Double.infinity
        for _ in 0..<runs {
            let start = ContinuousClock.now, cpu0 = cpuMilliseconds()
            body()
            let d = ContinuousClock.now - start
            bestCPU = min(bestCPU, cpuMilliseconds() - cpu0)
            best = min(best, Double(d.components.seconds) * 1000 + Double(d.components.attoseconds) / 1e15)
        }
        print("bench \(label): \((best * 100).rounded() / 100) ms wall, \((bestCPU * 10).rounded() / 10) ms CPU")
        return best
    }

    @Test func resampling() {
        let photo = randomRGBA(1600, 2000, opaque: true, seed: 1)
        let translucent = randomRGBA(1600, 2000, opaque: false, seed: 2)
        let gray = randomGray(1600, 2000, seed: 3)
        let small = randomRGBA(600, 400, opaque: true, seed: 4)
        var sink = 0
        let down = time("1600×2000 RGBA → 200×250 area") { sink &+= Int(photo.resized(width: 200, height: 250).pixels[7].r) }
        _ = time("1600×2000 RGBA (translucent) → 200×250 area") { sink &+= Int(translucent.resized(width: 200, height: 250).pixels[7].r) }
        _ = time("1600×2000 gray → 200×250 area") { sink &+= Int(gray.resized(width: 200, height: 250).pixels[7]) }
        _ = time("1600×2000 RGBA → 1000×1250 area") { sink &+= Int(photo.resized(width: 1000, height: 1250).pixels[7].r) }
        let up = time("600×400 RGBA → 1800×1200 Lanczos3") { sink &+= Int(small.resized(width: 1800, height: 1200).pixels[7].r) }
        _ = time("600×400 RGBA → 1800×1200 Catmull-Rom") { sink &+= Int(small.resized(width: 1800, height: 1200, filter: .catmullRom).pixels[7].r) }
        _ = time("600×400 gray → 1800×1200 Lanczos3") { sink &+= Int(gray.cropped(to: PixelRect(width: 600, height: 400)).resized(width: 1800, height: 1200).pixels[7]) }
        #expect(sink != 42)
        // Generous bounds: catch an accidental debug-speed or quadratic path, not jitter.
        #expect(down < 40)
        #expect(up < 200)
    }

    @Test func conversionsAndCompositing() {
        let photo = randomRGBA(1600, 2000, opaque: false, seed: 1)
        var sink = 0
        _ = time("premultiply 1600×2000") { sink &+= Int(photo.premultiplied().pixels[9].r) }
        let pm = photo.premultiplied()
        _ = time("unpremultiply 1600×2000") { sink &+= Int(pm.unpremultiplied().pixels[9].r) }
        _ = time("grayscale 1600×2000") { sink &+= Int(photo.grayscale().pixels[9]) }
        _ = time("flatten 1600×2000") { sink &+= Int(photo.flattened().pixels[9].r) }
        let flat = photo.flattened()
        _ = time("isOpaque 1600×2000 opaque") { sink &+= flat.isOpaque ? 1 : 0 }
        let glyph = Bitmap<UInt8>(width: 20, height: 24, pixels: (0..<480).map { UInt8(($0 * 37) % 256) })
        var canvas = Bitmap(width: 1600, height: 2000, fill: RGBA8.white)
        _ = time("10 000 glyph masks 20×24 in text lines on opaque canvas", runs: 3) {
            for i in 0..<10_000 {
                canvas.drawMask(glyph, color: .black, atX: (i % 75) * 21, y: (i / 75) * 26 % 1976)
            }
        }
        let overlay = randomRGBA(1000, 1000, opaque: false, seed: 5)
        _ = time("composite 1000×1000 over opaque canvas") { canvas.composite(overlay, atX: 300, y: 400, opacity: 0.8) }
        #expect(sink != 42)
    }

    @Test func orientationAndBlur() {
        let photo = randomRGBA(4000, 3000, opaque: true, seed: 1)
        var sink = 0
        _ = time("orient exif 6, 4000×3000 RGBA", runs: 3) { sink &+= Int(photo.oriented(exif: 6).pixels[5].r) }
        _ = time("orient exif 3, 4000×3000 RGBA", runs: 3) { sink &+= Int(photo.oriented(exif: 3).pixels[5].r) }
        let page = randomRGBA(1600, 2000, opaque: true, seed: 2)
        let gray = randomGray(1600, 2000, seed: 3)
        _ = time("box blur r=5 1600×2000 gray") { sink &+= Int(gray.boxBlurred(radius: 5).pixels[5]) }
        _ = time("box blur r=5 1600×2000 RGBA") { sink &+= Int(page.boxBlurred(radius: 5).pixels[5].r) }
        _ = time("gaussian σ=2 1600×2000 gray") { sink &+= Int(gray.gaussianBlurred(sigma: 2).pixels[5]) }
        _ = time("gaussian σ=2 1600×2000 RGBA") { sink &+= Int(page.gaussianBlurred(sigma: 2).pixels[5].r) }
        _ = time("PSNR 1600×2000 RGBA") { sink &+= Int(ImageComparison.psnr(page, page.flattened())) }
        #expect(sink != 42)
    }
}
