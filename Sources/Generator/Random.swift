// Deterministic randomness. The generator never touches the system RNG, the clock, or any
// hash-seeded collection order: the same seed must give the same bytes on every machine and
// every run, whatever the thread scheduling.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SplitMix64: used to expand seeds and to hash coordinates; one multiply-xorshift chain.
@inlinable
func splitMix64(_ x: UInt64) -> UInt64 {
    var z = x &+ 0x9E37_79B9_7F4A_7C15
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
}

/// FNV-1a of a label, so derived streams can be named ("page 3", "sky") without depending on
/// Swift's per-process randomized `hashValue`.
func stableHash(_ s: String) -> UInt64 {
    var h: UInt64 = 0xCBF2_9CE4_8422_2325
    for b in s.utf8 {
        h ^= UInt64(b)
        h = h &* 0x0000_0100_0000_01B3
    }
    return h
}

/// xoshiro256** seeded through SplitMix64 — small, fast, and identical on every platform.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var s0: UInt64, s1: UInt64, s2: UInt64, s3: UInt64
    /// The seed this stream was made from, kept so independent child streams can be derived.
    public let seed: UInt64

    public init(seed: UInt64) {
        self.seed = seed
        var x = seed
        x = splitMix64(x); s0 = x
        x = splitMix64(x); s1 = x
        x = splitMix64(x); s2 = x
        x = splitMix64(x); s3 = x
        if s0 | s1 | s2 | s3 == 0 { s0 = 1 }
    }

    @inlinable
    static func rotl(_ x: UInt64, _ k: UInt64) -> UInt64 { (x << k) | (x >> (64 - k)) }

    public mutating func next() -> UInt64 {
        let result = SeededRandom.rotl(s1 &* 5, 7) &* 9
        let t = s1 << 17
        s2 ^= s0
        s3 ^= s1
        s1 ^= s2
        s0 ^= s3
        s2 ^= t
        s3 = SeededRandom.rotl(s3, 45)
        return result
    }

    /// An independent stream named `label`, derived from this stream's seed only (not from how
    /// many numbers were drawn), so adding a draw in one place never reshuffles another.
    public func child(_ label: String) -> SeededRandom {
        SeededRandom(seed: splitMix64(seed ^ stableHash(label)))
    }

    public func child(_ label: String, _ index: Int) -> SeededRandom {
        SeededRandom(seed: splitMix64(splitMix64(seed ^ stableHash(label)) ^ UInt64(bitPattern: Int64(index))))
    }

    /// Uniform in [0, 1) with 53 random bits.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    public mutating func uniform(_ lo: Double, _ hi: Double) -> Double { lo + (hi - lo) * unit() }

    /// Uniform integer in `range` (unbiased, by rejection).
    public mutating func int(_ range: ClosedRange<Int>) -> Int {
        let span = UInt64(range.upperBound - range.lowerBound) &+ 1
        if span == 0 { return Int(truncatingIfNeeded: next()) }
        let limit = UInt64.max - UInt64.max % span
        var v = next()
        while v >= limit { v = next() }
        return range.lowerBound + Int(v % span)
    }

    public mutating func chance(_ p: Double) -> Bool { unit() < p }

    /// Standard normal via Box–Muller (one value per call; simplicity over speed).
    public mutating func normal(_ mean: Double = 0, _ sd: Double = 1) -> Double {
        let u1 = Swift.max(unit(), 1e-300), u2 = unit()
        return mean + sd * (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2)
    }

    public mutating func pick<T>(_ items: [T]) -> T {
        precondition(!items.isEmpty, "pick from an empty list")
        return items[int(0...(items.count - 1))]
    }

    /// Picks an index with probability proportional to `weights`.
    public mutating func weightedIndex(_ weights: [Double]) -> Int {
        let total = weights.reduce(0, +)
        precondition(total > 0, "weights must have a positive sum, got \(weights)")
        var r = unit() * total
        for (i, w) in weights.enumerated() {
            r -= w
            if r < 0 { return i }
        }
        return weights.count - 1
    }

    public mutating func shuffle<T>(_ items: inout [T]) {
        guard items.count > 1 else { return }
        for i in stride(from: items.count - 1, to: 0, by: -1) {
            items.swapAt(i, int(0...i))
        }
    }
}

/// A stateless hash of integer coordinates to [0, 1): per-pixel noise that any thread can
/// evaluate in any order and get the same value.
@inlinable
func hashUnit(_ seed: UInt64, _ x: Int, _ y: Int) -> Float {
    let h = splitMix64(seed ^ splitMix64(UInt64(bitPattern: Int64(x)) &* 0x9E37_79B9 ^ (UInt64(bitPattern: Int64(y)) << 32)))
    return Float(h >> 40) * 0x1.0p-24
}
