// Choosing a text colour that stays readable on the illustration behind it (WCAG 2 contrast).

#if canImport(Glibc)
import Glibc
#endif
public import Raster

/// The colour chosen for text over a background region, and how well it reads.
public struct ContrastChoice: Sendable, Hashable {
    public let color: RGBA8
    /// Worst-case WCAG contrast ratio against the region (its darkest and lightest 5 %).
    public let ratio: Double
    /// A halo colour to draw behind the text when `ratio` is below 4.5:1 (busy or mid-tone
    /// backgrounds no single colour can contrast with); nil when not needed.
    public let halo: RGBA8?
}

public enum Contrast {
    /// WCAG 2 relative luminance of an sRGB colour (alpha ignored).
    public static func relativeLuminance(_ c: RGBA8) -> Double {
        0.2126 * linear(c.r) + 0.7152 * linear(c.g) + 0.0722 * linear(c.b)
    }

    /// WCAG 2 contrast ratio, 1...21.
    public static func ratio(_ a: RGBA8, _ b: RGBA8) -> Double {
        ratio(luminance: relativeLuminance(a), relativeLuminance(b))
    }

    static func ratio(luminance a: Double, _ b: Double) -> Double {
        (max(a, b) + 0.05) / (min(a, b) + 0.05)
    }

    private static let linearTable: [Double] = (0..<256).map { i in
        let v = Double(i) / 255
        return v <= 0.04045 ? v / 12.92 : pow((v + 0.055) / 1.055, 2.4)
    }

    @inline(__always)
    static func linear(_ v: UInt8) -> Double { linearTable[Int(v)] }

    /// Picks the text colour for `background` (the pixels the text will cover).
    ///
    /// The region is summarised by the luminance of its darkest and lightest 5 % so a few stray
    /// pixels do not decide, while a large dark patch in a light region does. `preferred` (the
    /// book's own text colour, say) is kept when it reaches `target`; otherwise it is darkened or
    /// lightened toward black or white until it does, and failing that the best of `candidates`
    /// wins. Below 4.5:1 a halo in the colour most unlike the text is suggested.
    public static func chooseTextColor(
        over background: BitmapView<RGBA8>, preferred: RGBA8? = nil,
        candidates: [RGBA8] = [.black, .white], target: Double = 7
    ) -> ContrastChoice {
        let (dark, light) = luminanceExtremes(background)
        func worst(_ c: RGBA8) -> Double {
            let l = relativeLuminance(c)
            return min(ratio(luminance: l, dark), ratio(luminance: l, light))
        }
        var options: [RGBA8] = []
        if let p = preferred {
            options.append(p)
            // Shade the preferred colour step by step toward black and toward white.
            for toward in [RGBA8.black, RGBA8.white] {
                for step in 1...20 {
                    let t = Double(step) / 20
                    options.append(mix(p, toward, t))
                }
            }
        }
        options += candidates
        var best = options[0]
        var bestRatio = worst(best)
        if preferred == nil || bestRatio < target {
            for c in options.dropFirst() {
                let r = worst(c)
                // The first option reaching the target is the least change from the preferred
                // colour; without one, the highest ratio wins.
                if r >= target && preferred != nil {
                    best = c
                    bestRatio = r
                    break
                }
                if r > bestRatio {
                    best = c
                    bestRatio = r
                }
            }
        }
        var halo: RGBA8? = nil
        if bestRatio < 4.5 {
            halo = relativeLuminance(best) < 0.18 ? .white : .black
        }
        return ContrastChoice(color: best, ratio: bestRatio, halo: halo)
    }

    /// The contrast `color` has against the region at worst (its darkest and lightest 5 %).
    public static func worstCaseRatio(of color: RGBA8, over background: BitmapView<RGBA8>) -> Double {
        let (dark, light) = luminanceExtremes(background)
        let l = relativeLuminance(color)
        return min(ratio(luminance: l, dark), ratio(luminance: l, light))
    }

    public static func chooseTextColor(
        over background: Bitmap<RGBA8>, preferred: RGBA8? = nil,
        candidates: [RGBA8] = [.black, .white], target: Double = 7
    ) -> ContrastChoice {
        chooseTextColor(over: background.view, preferred: preferred, candidates: candidates, target: target)
    }

    static func mix(_ a: RGBA8, _ b: RGBA8, _ t: Double) -> RGBA8 {
        func m(_ x: UInt8, _ y: UInt8) -> UInt8 { UInt8((Double(x) * (1 - t) + Double(y) * t).rounded()) }
        return RGBA8(r: m(a.r, b.r), g: m(a.g, b.g), b: m(a.b, b.b), a: a.a)
    }

    /// Luminance at the 5th and 95th percentile of the region (sampled on a grid for big regions).
    static func luminanceExtremes(_ view: BitmapView<RGBA8>) -> (Double, Double) {
        guard view.width > 0, view.height > 0 else { return (1, 1) }
        var histogram = [Int](repeating: 0, count: 256)
        let step = max(1, Int((Double(view.width * view.height) / 40_000).squareRoot()))
        var total = 0
        let base = view.base, r = view.rect
        base.pixels.withUnsafeBufferPointer { p in
            var y = r.minY
            while y < r.maxY {
                var x = r.minX
                while x < r.maxX {
                    let c = p[y * base.width + x]
                    // Bucket by luminance scaled to 0...255 (enough resolution for a ratio).
                    let l = relativeLuminance(c)
                    histogram[min(255, Int(l * 255 + 0.5))] += 1
                    total += 1
                    x += step
                }
                y += step
            }
        }
        func percentile(_ q: Double) -> Double {
            let target = Int(Double(total) * q)
            var acc = 0
            for (i, n) in histogram.enumerated() {
                acc += n
                if acc > target { return Double(i) / 255 }
            }
            return 1
        }
        return (percentile(0.05), percentile(0.95))
    }
}
