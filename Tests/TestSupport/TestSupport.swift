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

