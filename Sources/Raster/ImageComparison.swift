public import Geometry

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How much two images differ, over every channel of the compared pixels (alpha included),
/// in channel units (0...255 for 8-bit formats).
public struct ImageDifference: Sendable, Hashable, CustomStringConvertible {
    /// Channel values compared (pixels × channels); 0 when the region was empty.
    public let sampleCount: Int
    /// Mean of the squared differences.
    public let meanSquaredError: Double
    /// Mean of the absolute differences.
    public let meanAbsoluteError: Double
    /// The largest absolute difference.
    public let maxError: Double
    /// The channel maximum PSNR is measured against (255, or 1 for float planes).
    public let peakValue: Double

    /// Peak signal-to-noise ratio in dB; `.infinity` when the images are identical (or nothing
    /// was compared).
    public var psnr: Double {
        meanSquaredError == 0 ? .infinity : 10 * log10(peakValue * peakValue / meanSquaredError)
    }

    /// A one-line summary for logs and test failures.
    public var description: String {
        let p = psnr.isFinite ? format2(psnr) + " dB" : "∞"
        return "PSNR \(p), MAE \(format2(meanAbsoluteError)), max \(format2(maxError)) over \(sampleCount) samples"
    }
}

private func format2(_ v: Double) -> String {
    let r = (v * 100).rounded() / 100
    return "\(r)"
}

/// Difference metrics between two same-sized images, for golden-image tests and benchmarks;
/// optionally restricted to a rect and/or to the pixels where a mask is non-zero.
public enum ImageComparison {
    /// All metrics at once; `a` and `b` must have the same size, `mask` (if any) too.
    public static func difference<P: NumericPixel>(
        _ a: Bitmap<P>, _ b: Bitmap<P>, in rect: PixelRect? = nil, mask: Bitmap<UInt8>? = nil
    ) -> ImageDifference {
        precondition(
            a.width == b.width && a.height == b.height,
            "cannot compare a \(a.width)×\(a.height) image with a \(b.width)×\(b.height) one")
        if let mask {
            precondition(
                mask.width == a.width && mask.height == a.height,
                "comparison mask is \(mask.width)×\(mask.height) but the images are \(a.width)×\(a.height)")
        }
        P.checkLayout()
        let layout = P.channelLayout
        let region = (rect ?? a.bounds).intersection(a.bounds)
        guard let region else {
            return ImageDifference(sampleCount: 0, meanSquaredError: 0, meanAbsoluteError: 0, maxError: 0, peakValue: layout.peakValue)
        }
        let c = layout.channels, w = a.width
        let maskPixels = mask?.pixels ?? []

        // Per-row partial sums, combined in order afterwards, keep the result independent of
        // how the rows were split across threads.
        var rowSq = [Double](repeating: 0, count: region.height)
        var rowAbs = [Double](repeating: 0, count: region.height)
        var rowMax = [Double](repeating: 0, count: region.height)
        var rowCount = [Int](repeating: 0, count: region.height)
        a.pixels.withUnsafeBytes { ra in
            b.pixels.withUnsafeBytes { rb in
                maskPixels.withUnsafeBufferPointer { mp in
                    rowSq.withUnsafeMutableBufferPointer { sq in
                        rowAbs.withUnsafeMutableBufferPointer { ab in
                            rowMax.withUnsafeMutableBufferPointer { mx in
                                rowCount.withUnsafeMutableBufferPointer { cnt in
                                    Parallel.forEachChunk(of: region.height, workPerItem: region.width * c * 2) { rows in
                                        for row in rows {
                                            let y = region.minY + row
                                            let start = (y * w + region.minX) * c, n = region.width * c
                                            let m: UnsafePointer<UInt8>? = mp.isEmpty ? nil : mp.baseAddress! + y * w + region.minX
                                            let stats: (Double, Double, Double, Int)
                                            switch layout.scalar {
                                            case .uint8:
                                                stats = rowStats(
                                                    ra.baseAddress!.assumingMemoryBound(to: UInt8.self) + start,
                                                    rb.baseAddress!.assumingMemoryBound(to: UInt8.self) + start, n, c, m)
                                            case .float32:
                                                stats = rowStats(
                                                    ra.baseAddress!.assumingMemoryBound(to: Float.self) + start,
                                                    rb.baseAddress!.assumingMemoryBound(to: Float.self) + start, n, c, m)
                                            }
                                            (sq[row], ab[row], mx[row], cnt[row]) = stats
                                        }
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        let count = rowCount.reduce(0, +)
        guard count > 0 else {
            return ImageDifference(sampleCount: 0, meanSquaredError: 0, meanAbsoluteError: 0, maxError: 0, peakValue: layout.peakValue)
        }
        return ImageDifference(
            sampleCount: count,
            meanSquaredError: rowSq.reduce(0, +) / Double(count),
            meanAbsoluteError: rowAbs.reduce(0, +) / Double(count),
            maxError: rowMax.max() ?? 0,
            peakValue: layout.peakValue)
    }

    /// Peak signal-to-noise ratio in dB (`.infinity` for identical images).
    public static func psnr<P: NumericPixel>(_ a: Bitmap<P>, _ b: Bitmap<P>, in rect: PixelRect? = nil, mask: Bitmap<UInt8>? = nil) -> Double {
        difference(a, b, in: rect, mask: mask).psnr
    }

    /// Mean absolute channel difference.
    public static func meanAbsoluteError<P: NumericPixel>(_ a: Bitmap<P>, _ b: Bitmap<P>, in rect: PixelRect? = nil, mask: Bitmap<UInt8>? = nil) -> Double {
        difference(a, b, in: rect, mask: mask).meanAbsoluteError
    }

    /// Largest absolute channel difference.
    public static func maxError<P: NumericPixel>(_ a: Bitmap<P>, _ b: Bitmap<P>, in rect: PixelRect? = nil, mask: Bitmap<UInt8>? = nil) -> Double {
        difference(a, b, in: rect, mask: mask).maxError
    }
}

/// Sums over `n` scalars (`c` per pixel); pixels whose mask byte is 0 are skipped.
private func rowStats<S: FilterScalar>(
    _ a: UnsafePointer<S>, _ b: UnsafePointer<S>, _ n: Int, _ c: Int, _ mask: UnsafePointer<UInt8>?
) -> (Double, Double, Double, Int) {
    var sq = 0.0, ab = 0.0, mx = 0.0, count = 0
    for i in 0..<n {
        if let mask, mask[i / c] == 0 { continue }
        let d = Double(S.load(a[i])) - Double(S.load(b[i]))
        sq += d * d
        ab += abs(d)
        mx = max(mx, abs(d))
        count += 1
    }
    return (sq, ab, mx, count)
}
