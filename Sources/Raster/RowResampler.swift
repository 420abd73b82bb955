// Resampling fed one source row at a time, for decoders that deliver rows top to bottom: each
// row is filtered along x as it arrives into a ring of `taps` Float rows, and every output row
// whose vertical window is complete is written at once. The full-size source and the full-size
// Float intermediate of ``Bitmap/resized(width:height:filter:)`` never exist, so a page costs
// a few cache-resident rows of memory instead of tens of megabytes of fresh, faulting pages.
// Same weight tables as `resized`, so the result equals it up to Float rounding order.

/// Streams opaque RGBA rows through a separable resample into an output buffer.
///
/// Colour is filtered as given (no premultiplication): feed it opaque images only, or colour
/// that is already premultiplied. One instance serves one image on one thread; run one per
/// image to use several cores.
public final class RowResampler {
    public let sourceWidth: Int
    public let sourceHeight: Int
    public let width: Int
    public let height: Int
    private let tx: WeightTable?
    private let ty: WeightTable
    private let output: UnsafeMutablePointer<UInt8>
    /// Source rows filtered along x, row `r` in slot `r % ringRows`.
    private let ring: UnsafeMutablePointer<Float>
    private let ringRows: Int
    /// One more Float row, after the ring, for sums of more than two taps.
    private let accumulator: UnsafeMutablePointer<Float>
    private let rowLength: Int
    private var nextSourceRow = 0
    private var nextOutputRow = 0

    /// `output` must hold `width * height` pixels; every one is written once all
    /// `sourceHeight` rows have been fed.
    public init(
        sourceWidth: Int, sourceHeight: Int, width: Int, height: Int, filter: ResamplingFilter = .automatic,
        into output: UnsafeMutableBufferPointer<RGBA8>
    ) {
        precondition(sourceWidth > 0 && sourceHeight > 0 && width > 0 && height > 0,
                     "row resampling needs non-empty sizes, got \(sourceWidth)×\(sourceHeight) → \(width)×\(height)")
        precondition(output.count >= width * height, "output holds \(output.count) pixels, \(width)×\(height) needed")
        self.sourceWidth = sourceWidth
        self.sourceHeight = sourceHeight
        self.width = width
        self.height = height
        tx = width == sourceWidth ? nil : WeightTable.make(filter, from: sourceWidth, to: width)
        // A same-height "table" of one tap per row keeps a single code path.
        ty = height == sourceHeight ? WeightTable.nearest(from: sourceHeight, to: height) : WeightTable.make(filter, from: sourceHeight, to: height)
        self.output = UnsafeMutableRawPointer(output.baseAddress!).assumingMemoryBound(to: UInt8.self)
        rowLength = width * 4
        ringRows = ty.taps
        ring = .allocate(capacity: (ringRows + 1) * rowLength)
        accumulator = ring + ringRows * rowLength
    }

    deinit { ring.deallocate() }

    /// True once every output row has been written.
    public var isComplete: Bool { nextOutputRow == height }

    /// Feeds the next `count` source rows, `rows` holding them consecutively.
    public func consume(_ rows: UnsafeBufferPointer<RGBA8>, count: Int) {
        precondition(rows.count >= count * sourceWidth && nextSourceRow + count <= sourceHeight,
                     "fed \(count) rows of \(rows.count) pixels at row \(nextSourceRow) of \(sourceWidth)×\(sourceHeight)")
        let base = UnsafeRawPointer(rows.baseAddress!).assumingMemoryBound(to: UInt8.self)
        for i in 0..<count {
            filterRow(base + i * sourceWidth * 4, into: ring + (nextSourceRow % ringRows) * rowLength)
            nextSourceRow += 1
            emitReadyRows()
        }
    }

    private func filterRow(_ src: UnsafePointer<UInt8>, into dst: UnsafeMutablePointer<Float>) {
        guard let tx else {
            for i in 0..<rowLength { dst[i] = Float(src[i]) }
            return
        }
        let taps = tx.taps
        tx.weights.withUnsafeBufferPointer { wbuf in
            tx.starts.withUnsafeBufferPointer { sbuf in
                let weights = wbuf.baseAddress!, starts = sbuf.baseAddress!
                for ox in 0..<width {
                    let wrow = weights + ox * taps
                    var p = src + starts[ox] * 4
                    var acc = SIMD4<Float>()
                    for k in 0..<taps {
                        acc += wrow[k] * UInt8.load4(p)
                        p += 4
                    }
                    UnsafeMutableRawPointer(dst + ox * 4).storeBytes(of: acc, as: SIMD4<Float>.self)
                }
            }
        }
    }

    /// Writes every output row whose last source row has arrived. Windows only move down, so
    /// the rows an output reads are always the newest `ringRows` ones.
    private func emitReadyRows() {
        let taps = ty.taps
        while nextOutputRow < height {
            let oy = nextOutputRow
            let first = ty.starts[oy]
            guard first + taps <= nextSourceRow else { return }
            let dp = output + oy * rowLength
            ty.weights.withUnsafeBufferPointer { w in
                let wrow = w.baseAddress! + oy * taps
                func source(_ k: Int) -> UnsafeMutablePointer<Float> { ring + ((first + k) % ringRows) * rowLength }
                if taps == 1 {
                    let s0 = source(0)
                    for i in 0..<rowLength { dp[i] = UInt8.store(s0[i]) }
                    return
                }
                // Taps in pairs, the last pair storing bytes: fewest trips through the row.
                let acc = accumulator
                var k = 0
                while k + 2 < taps {
                    let s0 = source(k), s1 = source(k + 1), w0 = wrow[k], w1 = wrow[k + 1]
                    if k == 0 {
                        for i in 0..<rowLength { acc[i] = w0 * s0[i] + w1 * s1[i] }
                    } else {
                        for i in 0..<rowLength { acc[i] += w0 * s0[i] + w1 * s1[i] }
                    }
                    k += 2
                }
                if k + 2 == taps {
                    let s0 = source(k), s1 = source(k + 1), w0 = wrow[k], w1 = wrow[k + 1]
                    if k == 0 {
                        for i in 0..<rowLength { dp[i] = UInt8.store(w0 * s0[i] + w1 * s1[i]) }
                    } else {
                        for i in 0..<rowLength { dp[i] = UInt8.store(acc[i] + w0 * s0[i] + w1 * s1[i]) }
                    }
                } else {
                    let s0 = source(k), w0 = wrow[k]
                    for i in 0..<rowLength { dp[i] = UInt8.store(acc[i] + w0 * s0[i]) }
                }
            }
            nextOutputRow += 1
        }
    }
}
