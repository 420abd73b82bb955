// Content fingerprints for the up-to-date check. A library rerun must not cost a cryptographic
// hash of every scan, so: the file's size and modification time are trusted when they match
// what was recorded (the common case, no read at all), and only when they differ is the content
// hashed — with this 64-bit non-cryptographic hash, several GB/s, so a 300 KB scan costs ~0.1 ms.
// Collisions only matter against accidental change, not an adversary.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

enum FastHash {
    // Odd 64-bit constants with well-mixed bits (from the golden ratio and √2, √3, √5).
    private static let k0: UInt64 = 0x9E37_79B9_7F4A_7C15
    private static let k1: UInt64 = 0x6A09_E667_F3BC_C909
    private static let k2: UInt64 = 0xBB67_AE85_84CA_A73B
    private static let k3: UInt64 = 0x3C6E_F372_FE94_F82B

    @inline(__always)
    private static func lane(_ acc: UInt64, _ word: UInt64) -> UInt64 {
        let x = acc &+ word &* k1
        return ((x << 29) | (x >> 35)) &* k0
    }

    @inline(__always)
    private static func finish(_ h: UInt64) -> UInt64 {
        var z = h
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// Four independent lanes over 32-byte blocks (so the multiplies pipeline), then the tail.
    static func hash(_ data: UnsafeRawBufferPointer) -> UInt64 {
        let n = data.count
        var a = k0, b = k1, c = k2, d = k3
        var i = 0
        while i + 32 <= n {
            a = lane(a, data.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            b = lane(b, data.loadUnaligned(fromByteOffset: i + 8, as: UInt64.self))
            c = lane(c, data.loadUnaligned(fromByteOffset: i + 16, as: UInt64.self))
            d = lane(d, data.loadUnaligned(fromByteOffset: i + 24, as: UInt64.self))
            i += 32
        }
        var h = UInt64(n) &* k2
        h ^= finish(a); h = (h << 27 | h >> 37) &* k0
        h ^= finish(b); h = (h << 27 | h >> 37) &* k0
        h ^= finish(c); h = (h << 27 | h >> 37) &* k0
        h ^= finish(d); h = (h << 27 | h >> 37) &* k0
        while i + 8 <= n {
            h = lane(h, data.loadUnaligned(fromByteOffset: i, as: UInt64.self))
            i += 8
        }
        while i < n {
            h = lane(h, UInt64(data[i]) | 0x100)
            i += 1
        }
        return finish(h)
    }

    static func hash(_ bytes: [UInt8]) -> UInt64 { bytes.withUnsafeBytes { hash($0) } }

    static func hash(_ text: String) -> UInt64 { hash(Array(text.utf8)) }

    static func hex(_ h: UInt64) -> String {
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}

/// Size and modification time of a file: the no-read half of the up-to-date check.
struct FileStamp: Equatable, Sendable {
    var size: Int64
    var modified: Int64

    init(size: Int64, modified: Int64) {
        self.size = size
        self.modified = modified
    }

    init?(path: String) {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        size = Int64(st.st_size)
        modified = Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
    }
}
