// Helpers shared by the test suites: reproducible randomness and scratch folders.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Deterministic pseudo-random numbers (SplitMix64): a failing randomized test reproduces from its seed.
public struct SplitMix64: RandomNumberGenerator, Sendable {
    public var state: UInt64

    public init(seed: UInt64) { state = seed }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    public mutating func byte() -> UInt8 { UInt8(truncatingIfNeeded: next() >> 24) }
}

/// A fresh, empty folder under /tmp named after `tag`; the caller removes it if it cares.
public func makeTemporaryDirectory(_ tag: String) -> String {
    var template = Array("/tmp/pb-test-\(tag)-XXXXXX".utf8CString)
    let p = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
    precondition(p != nil, "mkdtemp failed for tag \(tag): errno \(errno)")
    return String(cString: p!)
}

/// CPU seconds the calling thread spends in `body`. Unlike wall time this barely moves when other
/// processes load the machine, so "was refused before doing the work" checks stay reliable: touching
/// a multi-gigabyte buffer costs seconds of CPU however busy the machine is.
public func threadCPUSeconds(_ body: () throws -> Void) rethrows -> Double {
    func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }
    let start = now()
    try body()
    return now() - start
}
