// Separable resampling: one pass along each axis, each driven by a table that gives, for every
// output column (or row), the first source pixel it reads and one Float weight per tap. The
// tables are built once per call; the passes are then plain multiply-adds over raw buffers,
// split across the cores by rows.
//
// Colour with alpha is filtered premultiplied, so a transparent pixel (whose colour is
// meaningless) contributes nothing to its neighbours' colour, then converted back.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How ``Bitmap/resized(width:height:filter:)`` computes each output pixel.
public enum ResamplingFilter: Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// Per axis: ``area`` when shrinking, ``lanczos3`` when enlarging — the right default.
    case automatic
    /// Mean over each output pixel's exact footprint in the source (fractional edge pixels
    /// weighted by coverage): alias-free, blur-free shrinking.
    case area
    /// Windowed sinc with three lobes: the sharpest general-purpose enlarger; may ring slightly
    /// at hard edges (results are clamped to the valid range).
    case lanczos3
    /// The Catmull–Rom cubic: a little softer than Lanczos3, less ringing.
    case catmullRom
    /// Linear interpolation (tent filter widened when shrinking).
    case bilinear
    /// The source pixel whose centre is nearest; for masks and pixel art.
    case nearest

    /// The filter's name as the CLI spells it.
    public var description: String {
        switch self {
        case .automatic: "automatic"
        case .area: "area"
        case .lanczos3: "lanczos3"
        case .catmullRom: "catmull-rom"
        case .bilinear: "bilinear"
        case .nearest: "nearest"
        }
    }
}

// MARK: - Weight tables

/// For each of `count` outputs along one axis: reads `taps` consecutive inputs from
/// `starts[i]`, weighted by `weights[i * taps ..< (i + 1) * taps]` (zero-padded, summing to 1).
struct WeightTable {
    let count: Int
    let taps: Int
    let starts: [Int]
    let weights: [Float]

    /// Packs per-output (first index, weights) windows into fixed-width rows. Every window
    /// lies inside `0..<inputCount`.
    init(inputCount n: Int, windows: [(first: Int, weights: [Double])]) {
        var taps = 1
        for w in windows { taps = max(taps, w.weights.count) }
        taps = min(taps, n)
        var starts = [Int](repeating: 0, count: windows.count)
        var weights = [Float](repeating: 0, count: windows.count * taps)
        for (i, w) in windows.enumerated() {
            // Shift windows near the end left so every row reads exactly `taps` valid inputs.
            let start = min(w.first, n - taps)
            starts[i] = start
            let sum = w.weights.reduce(0, +)
            for (k, v) in w.weights.enumerated() {
                weights[i * taps + (w.first - start) + k] = Float(v / sum)
            }
        }
        self.count = windows.count
        self.taps = taps
        self.starts = starts
        self.weights = weights
    }

    /// Exact box averaging over each output's footprint, computed in integers (units of
    /// 1/`m` source pixel) so that e.g. 1000 → 333 has no stray slivers.
    static func area(from n: Int, to m: Int) -> WeightTable {
        var windows: [(first: Int, weights: [Double])] = []
        windows.reserveCapacity(m)
        for i in 0..<m {
            let lo = i * n, hi = (i + 1) * n
            let j0 = lo / m, j1 = (hi + m - 1) / m
            var ws: [Double] = []
            for j in j0..<j1 {
                let overlap = min(hi, (j + 1) * m) - max(lo, j * m)
                ws.append(Double(overlap))
            }
            windows.append((j0, ws))
        }
        return WeightTable(inputCount: n, windows: windows)
    }

    /// The source pixel whose centre is nearest each output centre.
    static func nearest(from n: Int, to m: Int) -> WeightTable {
        let windows = (0..<m).map { i in (first: min((2 * i + 1) * n / (2 * m), n - 1), weights: [1.0]) }
        return WeightTable(inputCount: n, windows: windows)
    }

    /// A symmetric kernel of the given support (in output-pixel units), widened by the scale
    /// factor when shrinking so it still low-passes; out-of-range taps clamp to the edge pixel.
    static func kernel(from n: Int, to m: Int, support: Double, _ k: (Double) -> Double) -> WeightTable {
        let scale = Double(n) / Double(m)
        let stretch = max(scale, 1)
        let radius = support * stretch
        var windows: [(first: Int, weights: [Double])] = []
        windows.reserveCapacity(m)
        for i in 0..<m {
            let centre = (Double(i) + 0.5) * scale - 0.5
            windows.append(window(centre: centre, radius: radius, stretch: stretch, count: n, k))
        }
        return WeightTable(inputCount: n, windows: windows)
    }

    /// Same-size convolution with a normalised Gaussian of standard deviation `sigma`.
    static func gaussian(count n: Int, sigma: Double) -> WeightTable {
        let radius = max(1, (3 * sigma).rounded(.up))
        let d = 2 * sigma * sigma
        let windows = (0..<n).map { i in
            window(centre: Double(i), radius: radius, stretch: 1, count: n) { x in exp(-x * x / d) }
        }
        return WeightTable(inputCount: n, windows: windows)
    }

    private static func window(
        centre: Double, radius: Double, stretch: Double, count n: Int, _ k: (Double) -> Double
    ) -> (first: Int, weights: [Double]) {
        let lo = Int((centre - radius).rounded(.down)), hi = Int((centre + radius).rounded(.up))
        let first = min(max(lo, 0), n - 1), last = min(max(hi, 0), n - 1)
        var ws = [Double](repeating: 0, count: last - first + 1)
        for j in lo...hi {
            let v = k((Double(j) - centre) / stretch)
            ws[min(max(j, 0), n - 1) - first] += v
        }
        // Drop the zero tails (kernels vanish at their support) so the tables stay narrow.
        var a = 0, b = ws.count
        while a < b - 1 && ws[a] == 0 { a += 1 }
        while b - 1 > a && ws[b - 1] == 0 { b -= 1 }
        let trimmed = Array(ws[a..<b])
        if abs(trimmed.reduce(0, +)) < 1e-12 {
            // Cannot happen with the kernels here, but a zero sum must not divide.
            let nearest = min(max(Int(centre.rounded()), 0), n - 1)
            return (nearest, [1])
        }
        return (first + a, trimmed)
    }

    static func make(_ filter: ResamplingFilter, from n: Int, to m: Int) -> WeightTable {
        switch filter {
        case .automatic: return m < n ? area(from: n, to: m) : make(.lanczos3, from: n, to: m)
        case .area: return area(from: n, to: m)
        case .nearest: return nearest(from: n, to: m)
        case .bilinear: return kernel(from: n, to: m, support: 1) { x in max(0, 1 - abs(x)) }
        case .catmullRom: return kernel(from: n, to: m, support: 2, catmullRom)
        case .lanczos3: return kernel(from: n, to: m, support: 3, lanczos3)
        }
    }
}

func sinc(_ x: Double) -> Double {
    if x == 0 { return 1 }
    let px = Double.pi * x
    return sin(px) / px
}

func lanczos3(_ x: Double) -> Double {
    let ax = abs(x)
    return ax < 3 ? sinc(x) * sinc(x / 3) : 0
}

func catmullRom(_ x: Double) -> Double {
    let ax = abs(x)
    if ax < 1 { return (1.5 * ax - 2.5) * ax * ax + 1 }
    if ax < 2 { return ((-0.5 * ax + 2.5) * ax - 4) * ax + 2 }
    return 0
}

// MARK: - Passes

/// The channel scalar types the passes read and write: bytes are clamped and rounded on the
/// way out, floats pass through.
protocol FilterScalar: BitwiseCopyable {
    static func load(_ v: Self) -> Float
    static func store(_ f: Float) -> Self
    /// Four consecutive values (one RGBA pixel) as a vector.
    static func load4(_ p: UnsafePointer<Self>) -> SIMD4<Float>
    /// Stores four values, converting like ``store(_:)``.
    static func store4(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Self>)
}

extension UInt8: FilterScalar {
    @inline(__always) static func load(_ v: UInt8) -> Float { Float(v) }
    @inline(__always) static func store(_ f: Float) -> UInt8 {
        // Clamp (NaN lands on 0), then round to nearest by adding 1.5·2²³, which pushes the
        // fraction out of the mantissa and leaves the integer in the low bits. No trapping
        // float-to-int conversion, so the loops around this vectorise.
        let c = f > 0 ? (f < 255 ? f : 255) : 0
        return UInt8(truncatingIfNeeded: (c + 12_582_912).bitPattern)
    }

    @inline(__always) static func load4(_ p: UnsafePointer<UInt8>) -> SIMD4<Float> {
        let v = UnsafeRawPointer(p).loadUnaligned(as: SIMD4<UInt8>.self)
        return SIMD4<Float>(SIMD4<Int32>(truncatingIfNeeded: v))
    }

    @inline(__always) static func store4(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<UInt8>) {
        // Same clamp-and-round as `store`; `replacing` keeps NaN out like the comparisons there.
        var c = v.replacing(with: 0, where: .!(v .> 0))
        c = c.replacing(with: 255, where: c .> 255)
        let bits = unsafeBitCast(c + 12_582_912, to: SIMD4<UInt32>.self)
        UnsafeMutableRawPointer(p).storeBytes(of: SIMD4<UInt8>(truncatingIfNeeded: bits), as: SIMD4<UInt8>.self)
    }
}

extension Float: FilterScalar {
    @inline(__always) static func load(_ v: Float) -> Float { v }
    @inline(__always) static func store(_ f: Float) -> Float { f }

    @inline(__always) static func load4(_ p: UnsafePointer<Float>) -> SIMD4<Float> {
        UnsafeRawPointer(p).loadUnaligned(as: SIMD4<Float>.self)
    }

    @inline(__always) static func store4(_ v: SIMD4<Float>, _ p: UnsafeMutablePointer<Float>) {
        UnsafeMutableRawPointer(p).storeBytes(of: v, as: SIMD4<Float>.self)
    }
}

/// Filters along y: output row `oy` mixes `table.taps` whole source rows, so the inner loop
/// runs straight along memory over `rowLength` scalars (channels need no special handling).
func verticalPass<In: FilterScalar, Out: FilterScalar>(
    _ src: UnsafePointer<In>, rowLength: Int, table: WeightTable, into dst: UnsafeMutablePointer<Out>
) {
    let taps = table.taps
    table.weights.withUnsafeBufferPointer { wbuf in
        table.starts.withUnsafeBufferPointer { sbuf in
            let weights = wbuf.baseAddress!, starts = sbuf.baseAddress!
            Parallel.forEachChunk(of: table.count, workPerItem: rowLength * taps * 2) { rows in
                let acc = UnsafeMutablePointer<Float>.allocate(capacity: rowLength)
                defer { acc.deallocate() }
                for oy in rows {
                    let wrow = weights + oy * taps
                    let first = src + starts[oy] * rowLength
                    let w0 = wrow[0]
                    for i in 0..<rowLength { acc[i] = w0 * In.load(first[i]) }
                    for k in 1..<taps {
                        let w = wrow[k]
                        if w == 0 { continue }
                        let sp = first + k * rowLength
                        for i in 0..<rowLength { acc[i] += w * In.load(sp[i]) }
                    }
                    let dp = dst + oy * rowLength
                    for i in 0..<rowLength { dp[i] = Out.store(acc[i]) }
                }
            }
        }
    }
}

/// Filters along x for `rowCount` rows of `channels` interleaved scalars.
func horizontalPass<In: FilterScalar, Out: FilterScalar>(
    _ src: UnsafePointer<In>, width srcWidth: Int, rowCount: Int, channels: Int,
    table: WeightTable, into dst: UnsafeMutablePointer<Out>
) {
    let taps = table.taps, m = table.count
    table.weights.withUnsafeBufferPointer { wbuf in
        table.starts.withUnsafeBufferPointer { sbuf in
            let weights = wbuf.baseAddress!, starts = sbuf.baseAddress!
            Parallel.forEachChunk(of: rowCount, workPerItem: m * taps * channels * 3) { rows in
                for y in rows {
                    let sp = src + y * srcWidth * channels
                    let dp = dst + y * m * channels
                    if channels == 4 {
                        for ox in 0..<m {
                            let wrow = weights + ox * taps
                            var p = sp + starts[ox] * 4
                            var acc = SIMD4<Float>()
                            for k in 0..<taps {
                                acc += wrow[k] * In.load4(p)
                                p += 4
                            }
                            Out.store4(acc, dp + ox * 4)
                        }
                    } else if channels == 1 {
                        for ox in 0..<m {
                            let wrow = weights + ox * taps
                            let p = sp + starts[ox]
                            var a: Float = 0
                            for k in 0..<taps { a += wrow[k] * In.load(p[k]) }
                            dp[ox] = Out.store(a)
                        }
                    } else {
                        for ox in 0..<m {
                            let wrow = weights + ox * taps
                            let p = sp + starts[ox] * channels
                            for c in 0..<channels {
                                var a: Float = 0
                                for k in 0..<taps { a += wrow[k] * In.load(p[k * channels + c]) }
                                dp[ox * channels + c] = Out.store(a)
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Runs the x table (if any) and the y table (if any) over a `width`×`height` image of
/// `channels` interleaved scalars, choosing the cheaper order and keeping the intermediate in
/// Float so the first pass loses no precision.
func separableFilter<S: FilterScalar>(
    _ src: UnsafePointer<S>, width: Int, height: Int, channels: Int,
    x xTable: WeightTable?, y yTable: WeightTable?, into dst: UnsafeMutablePointer<S>
) {
    let outW = xTable?.count ?? width, outH = yTable?.count ?? height
    switch (xTable, yTable) {
    case (nil, nil):
        dst.update(from: src, count: width * height * channels)
    case (let tx?, nil):
        horizontalPass(src, width: width, rowCount: height, channels: channels, table: tx, into: dst)
    case (nil, let ty?):
        verticalPass(src, rowLength: width * channels, table: ty, into: dst)
    case (let tx?, let ty?):
        // The horizontal pass gathers (strided reads per tap) so it costs more per tap than the
        // vertical one, which streams whole rows.
        let gather = 2.0
        let xFirst = Double(height * outW * tx.taps) * gather + Double(outH * outW * ty.taps)
        let yFirst = Double(outH * width * ty.taps) + Double(outH * outW * tx.taps) * gather
        if xFirst <= yFirst {
            let mid = UnsafeMutablePointer<Float>.allocate(capacity: height * outW * channels)
            defer { mid.deallocate() }
            horizontalPass(src, width: width, rowCount: height, channels: channels, table: tx, into: mid)
            verticalPass(UnsafePointer(mid), rowLength: outW * channels, table: ty, into: dst)
        } else {
            let mid = UnsafeMutablePointer<Float>.allocate(capacity: outH * width * channels)
            defer { mid.deallocate() }
            verticalPass(src, rowLength: width * channels, table: ty, into: mid)
            horizontalPass(UnsafePointer(mid), width: width, rowCount: outH, channels: channels, table: tx, into: dst)
        }
    }
}

// MARK: - Bitmap entry points

extension Bitmap where Pixel: NumericPixel {
    /// Applies separable tables along x and y (nil = leave that axis alone) to any numeric
    /// pixel type, handling alpha: straight alpha is premultiplied first unless the image is
    /// opaque, and premultiplied results are clamped to keep `r, g, b <= a`.
    func filteredSeparably(x xTable: WeightTable?, y yTable: WeightTable?) -> Bitmap {
        Pixel.checkLayout()
        let layout = Pixel.channelLayout
        let outW = xTable?.count ?? width, outH = yTable?.count ?? height
        if xTable == nil && yTable == nil { return self }
        if outW == 0 || outH == 0 { return Bitmap(width: outW, height: outH, pixels: []) }
        if isEmpty {
            // Nothing to sample from: transparent black / zero.
            return Bitmap(width: outW, height: outH) { d in
                UnsafeMutableRawBufferPointer(d).initializeMemory(as: UInt8.self, repeating: 0)
            }
        }

        if layout.alpha == .straight {
            // Only RGBA8 has this layout (``NumericPixel/checkLayout()`` vouches for the size).
            guard let rgba = self as? Bitmap<RGBA8> else {
                preconditionFailure("\(Pixel.self) borrows RGBA8's channel layout but is not RGBA8")
            }
            if !rgba.isOpaque, let out = rgba.premultiplied().filteredSeparably(x: xTable, y: yTable).unpremultiplied() as? Bitmap {
                return out
            }
        }

        let channels = layout.channels
        var out = pixels.withUnsafeBytes { raw in
            Bitmap(width: outW, height: outH) { d in
                let draw = UnsafeMutableRawPointer(d.baseAddress!)
                switch layout.scalar {
                case .uint8:
                    separableFilter(
                        raw.baseAddress!.assumingMemoryBound(to: UInt8.self), width: width, height: height,
                        channels: channels, x: xTable, y: yTable, into: draw.assumingMemoryBound(to: UInt8.self))
                case .float32:
                    separableFilter(
                        raw.baseAddress!.assumingMemoryBound(to: Float.self), width: width, height: height,
                        channels: channels, x: xTable, y: yTable, into: draw.assumingMemoryBound(to: Float.self))
                }
            }
        }
        if layout.alpha == .premultiplied {
            // Ringing filters can push a colour channel above its alpha; premultiplied colour
            // must never exceed alpha.
            out.pixels.withUnsafeMutableBytes { raw in
                let p = raw.baseAddress!.assumingMemoryBound(to: UInt8.self)
                let n = outW * outH
                Parallel.forEachChunk(of: n, workPerItem: 4) { range in
                    for i in range {
                        let q = p + i * 4
                        let a = q[3]
                        q[0] = min(q[0], a)
                        q[1] = min(q[1], a)
                        q[2] = min(q[2], a)
                    }
                }
            }
        }
        return out
    }

    /// The bitmap scaled to `width`×`height` with `filter` (``ResamplingFilter/automatic``:
    /// area when shrinking, Lanczos3 when enlarging, chosen per axis). Alpha is handled
    /// premultiplied so transparent pixels do not bleed colour.
    public func resized(width newWidth: Int, height newHeight: Int, filter: ResamplingFilter = .automatic) -> Bitmap {
        precondition(newWidth >= 0 && newHeight >= 0, "resize target must not be negative, got \(newWidth)×\(newHeight)")
        if newWidth == width && newHeight == height { return self }
        if isEmpty || newWidth == 0 || newHeight == 0 { return emptyResized(newWidth, newHeight) }
        let tx = newWidth == width ? nil : WeightTable.make(filter, from: width, to: newWidth)
        let ty = newHeight == height ? nil : WeightTable.make(filter, from: height, to: newHeight)
        return filteredSeparably(x: tx, y: ty)
    }

    /// The bitmap scaled by `scale` on both axes (each side rounded, at least 1 pixel).
    public func resized(scale: Double, filter: ResamplingFilter = .automatic) -> Bitmap {
        precondition(scale > 0 && scale.isFinite, "resize scale must be positive and finite, got \(scale)")
        return resized(
            width: Swift.max(1, Int((Double(width) * scale).rounded())),
            height: Swift.max(1, Int((Double(height) * scale).rounded())),
            filter: filter)
    }

    /// The bitmap scaled, aspect ratio kept, to the largest size within
    /// `maxWidth`×`maxHeight`; by default never enlarged (thumbnails, previews).
    public func resized(
        fittingWidth maxWidth: Int, height maxHeight: Int, allowEnlarging: Bool = false,
        filter: ResamplingFilter = .automatic
    ) -> Bitmap {
        let (w, h) = Self.fittedSize(width: width, height: height, maxWidth: maxWidth, maxHeight: maxHeight, allowEnlarging: allowEnlarging)
        return resized(width: w, height: h, filter: filter)
    }

    /// A zero-filled bitmap of the requested size, for resizes from or to nothing.
    private func emptyResized(_ w: Int, _ h: Int) -> Bitmap {
        Bitmap(width: w, height: h) { d in
            UnsafeMutableRawBufferPointer(d).initializeMemory(as: UInt8.self, repeating: 0)
        }
    }
}

extension Bitmap {
    /// The size `resized(fittingWidth:height:)` produces for a `width`×`height` image: aspect
    /// kept, the limiting side exactly at its maximum, every side at least 1 pixel.
    public static func fittedSize(
        width: Int, height: Int, maxWidth: Int, maxHeight: Int, allowEnlarging: Bool = false
    ) -> (width: Int, height: Int) {
        precondition(maxWidth > 0 && maxHeight > 0, "fit box must be positive, got \(maxWidth)×\(maxHeight)")
        guard width > 0, height > 0 else { return (width, height) }
        if !allowEnlarging && width <= maxWidth && height <= maxHeight { return (width, height) }
        // Compare maxWidth/width with maxHeight/height exactly, in integers.
        if maxWidth * height <= maxHeight * width {
            let h = (maxWidth * height * 2 + width) / (2 * width)
            return (maxWidth, Swift.min(Swift.max(1, h), maxHeight))
        } else {
            let w = (maxHeight * width * 2 + height) / (2 * height)
            return (Swift.min(Swift.max(1, w), maxWidth), maxHeight)
        }
    }
}
