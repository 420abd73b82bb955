// Separable blurs for analysis stages (noise suppression, background estimation) and the
// generator. Edges are clamped (the border pixel repeats), alpha is handled premultiplied like
// in resampling.

extension WeightTable {
    /// Same-size mean over `2·radius + 1` pixels with clamped edges.
    static func box(count n: Int, radius r: Int) -> WeightTable {
        let windows = (0..<n).map { i -> (first: Int, weights: [Double]) in
            let first = max(i - r, 0), last = min(i + r, n - 1)
            var ws = [Double](repeating: 0, count: last - first + 1)
            for j in (i - r)...(i + r) { ws[min(max(j, 0), n - 1) - first] += 1 }
            return (first, ws)
        }
        return WeightTable(inputCount: n, windows: windows)
    }
}

extension Bitmap where Pixel: NumericPixel {
    /// A Gaussian blur with standard deviation `sigma` pixels (≤ 0 returns the image as is).
    public func gaussianBlurred(sigma: Double) -> Bitmap {
        precondition(sigma.isFinite, "blur sigma must be finite, got \(sigma)")
        guard sigma > 0, !isEmpty else { return self }
        return filteredSeparably(
            x: WeightTable.gaussian(count: width, sigma: sigma),
            y: WeightTable.gaussian(count: height, sigma: sigma))
    }

    /// Each pixel replaced by the mean of the `(2·radius + 1)²` square around it, computed in
    /// integers with one rounding for 8-bit formats, so flat regions stay exactly flat.
    public func boxBlurred(radius: Int) -> Bitmap {
        precondition(radius >= 0, "box blur radius must not be negative, got \(radius)")
        guard radius > 0, !isEmpty else { return self }
        Pixel.checkLayout()
        let layout = Pixel.channelLayout
        // The exact integer path divides by n² with a 48-bit reciprocal, exact for n < 1024.
        guard layout.scalar == .uint8, 2 * radius + 1 < 1024 else {
            return filteredSeparably(
                x: WeightTable.box(count: width, radius: radius),
                y: WeightTable.box(count: height, radius: radius))
        }
        if layout.alpha == .straight {
            guard let rgba = self as? Bitmap<RGBA8> else {
                preconditionFailure("\(Pixel.self) borrows RGBA8's channel layout but is not RGBA8")
            }
            if !rgba.isOpaque, let out = rgba.premultiplied().boxBlurred(radius: radius).unpremultiplied() as? Bitmap {
                return out
            }
        }
        let channels = layout.channels
        let w = width, h = height
        return pixels.withUnsafeBytes { raw in
            Bitmap(width: w, height: h) { out in
                boxBlurBytes(
                    raw.baseAddress!.assumingMemoryBound(to: UInt8.self), width: w, height: h, channels: channels,
                    radius: radius,
                    into: UnsafeMutableRawPointer(out.baseAddress!).assumingMemoryBound(to: UInt8.self))
            }
        }
    }
}

/// Running-sum box blur of interleaved bytes: horizontal window sums kept unrounded in UInt32,
/// then vertical sums of those, divided once by n² — the exact rounded 2-D mean.
private func boxBlurBytes(
    _ src: UnsafePointer<UInt8>, width w: Int, height h: Int, channels c: Int, radius r: Int,
    into dst: UnsafeMutablePointer<UInt8>
) {
    let rowLength = w * c
    let mid = UnsafeMutablePointer<UInt32>.allocate(capacity: rowLength * h)
    defer { mid.deallocate() }

    Parallel.forEachChunk(of: h, workPerItem: rowLength * 4) { rows in
        for y in rows {
            let s = src + y * rowLength, m = mid + y * rowLength
            if c == 4 {
                boxRow4(s, m, w, r)
            } else {
                for ch in 0..<c { boxRow1(s + ch, m + ch, w, r, stride: c) }
            }
        }
    }

    let n = UInt64(2 * r + 1)
    let area = n * n
    let reciprocal = ((1 as UInt64) << 48 + area - 1) / area
    let half = area / 2
    // Columns are independent, so each worker takes a band of them through every row.
    Parallel.forEachChunk(of: rowLength, workPerItem: h * 4) { cols in
        let lo = cols.lowerBound, count = cols.count
        let sums = UnsafeMutablePointer<UInt32>.allocate(capacity: count)
        defer { sums.deallocate() }
        @inline(__always) func midRow(_ y: Int) -> UnsafeMutablePointer<UInt32> {
            mid + min(max(y, 0), h - 1) * rowLength + lo
        }
        sums.initialize(repeating: 0, count: count)
        for y in -r...r {
            let m = midRow(y)
            for i in 0..<count { sums[i] &+= m[i] }
        }
        for y in 0..<h {
            let d = dst + y * rowLength + lo
            for i in 0..<count {
                d[i] = UInt8(truncatingIfNeeded: ((UInt64(sums[i]) + half) &* reciprocal) >> 48)
            }
            let add = midRow(y + r + 1), sub = midRow(y - r)
            for i in 0..<count { sums[i] = sums[i] &+ add[i] &- sub[i] }
        }
    }
}

/// Horizontal running sums of one channel (every `stride`-th byte): `m[x]` = sum of the
/// `2r + 1` values around x, edges clamped.
@inline(__always)
private func boxRow1(_ s: UnsafePointer<UInt8>, _ m: UnsafeMutablePointer<UInt32>, _ w: Int, _ r: Int, stride c: Int) {
    var sum: UInt32 = 0
    for x in -r...r { sum &+= UInt32(s[min(max(x, 0), w - 1) * c]) }
    for x in 0..<w {
        m[x * c] = sum
        let add = min(x + r + 1, w - 1), sub = max(x - r, 0)
        sum = sum &+ UInt32(s[add * c]) &- UInt32(s[sub * c])
    }
}

/// ``boxRow1(_:_:_:_:stride:)`` for four interleaved channels at once.
@inline(__always)
private func boxRow4(_ s: UnsafePointer<UInt8>, _ m: UnsafeMutablePointer<UInt32>, _ w: Int, _ r: Int) {
    var s0: UInt32 = 0, s1: UInt32 = 0, s2: UInt32 = 0, s3: UInt32 = 0
    for x in -r...r {
        let p = s + min(max(x, 0), w - 1) * 4
        s0 &+= UInt32(p[0])
        s1 &+= UInt32(p[1])
        s2 &+= UInt32(p[2])
        s3 &+= UInt32(p[3])
    }
    for x in 0..<w {
        let o = m + x * 4
        o[0] = s0
        o[1] = s1
        o[2] = s2
        o[3] = s3
        let a = s + min(x + r + 1, w - 1) * 4, b = s + max(x - r, 0) * 4
        s0 = s0 &+ UInt32(a[0]) &- UInt32(b[0])
        s1 = s1 &+ UInt32(a[1]) &- UInt32(b[1])
        s2 = s2 &+ UInt32(a[2]) &- UInt32(b[2])
        s3 = s3 &+ UInt32(a[3]) &- UInt32(b[3])
    }
}
