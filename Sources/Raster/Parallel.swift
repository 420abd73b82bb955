import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Splits row-shaped work across the cores, but only when there is enough of it: a glyph or a
/// thumbnail is cheaper to do inline than to hand to Dispatch.
public enum Parallel {
    public static let coreCount: Int = {
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n > 0 ? Int(n) : 1
    }()

    /// Below this much work (roughly, bytes touched) one thread is faster than waking others.
    static let minimumWorkPerChunk = 1 << 16

    /// Calls `body` with disjoint ranges covering `0..<count`, concurrently when
    /// `count * workPerItem` is large enough to pay for it. `body` must only write state that
    /// belongs to its range.
    public static func forEachChunk(of count: Int, workPerItem: Int, _ body: (Range<Int>) -> Void) {
        guard count > 0 else { return }
        let total = count.multipliedReportingOverflow(by: max(workPerItem, 1))
        let byWork = total.overflow ? Int.max : total.partialValue / minimumWorkPerChunk
        // A few chunks per core so an uneven split (edge rows, other processes on the machine) evens out.
        let chunks = min(count, coreCount * 4, max(byWork, 1))
        if chunks <= 1 || coreCount == 1 {
            body(0..<count)
            return
        }
        // Dispatch wants a Sendable closure; `body` is only required to be safe for disjoint
        // ranges (the contract above), and it cannot outlive this call.
        withoutActuallyEscaping(body) { body in
            nonisolated(unsafe) let body = body
            DispatchQueue.concurrentPerform(iterations: chunks) { i in
                let lo = count * i / chunks, hi = count * (i + 1) / chunks
                if lo < hi { body(lo..<hi) }
            }
        }
    }
}

/// Exact `round(x / 255)` for `x` in `0...65535`, without a division — the operation every
/// 8-bit blend needs.
@inline(__always) @usableFromInline
func div255(_ x: UInt32) -> UInt32 {
    let t = x &+ 128
    return (t &+ (t >> 8)) >> 8
}
