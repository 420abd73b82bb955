// Which books a worker takes: `--shard K/N` assigns each book by a stable hash of its folder's
// path inside the library, never by its position in a listing, so adding or removing a book moves
// no other book to a different shard (a re-run after the library grew redoes nothing it had done).

import Thumbnails

/// `--shard K/N` (1-based): this worker takes the books whose bucket is K−1.
public struct LibraryShard: Sendable, Hashable, CustomStringConvertible {
    public let index: Int
    public let count: Int

    public init?(index: Int, count: Int) {
        guard let checked = Shard(index: index, count: count) else { return nil }
        self.init(checked)
    }

    /// Parses "K/N" (the same syntax and checks as `thumbs --shard`).
    public init?(parsing text: String) {
        guard let checked = Shard(parsing: text) else { return nil }
        self.init(checked)
    }

    private init(_ checked: Shard) {
        index = checked.index
        count = checked.count
    }

    /// The 0-based bucket of a book named `name` (its path relative to the library) among `count`.
    public static func bucket(of name: String, count: Int) -> Int {
        precondition(count >= 1, "shard count \(count)")
        return Int(StableHash.mixed(name) % UInt64(count))
    }

    public func contains(_ name: String) -> Bool { Self.bucket(of: name, count: count) == index - 1 }

    public var description: String { "\(index)/\(count)" }
}

/// FNV-1a 64 with a SplitMix64 finalizer: the same on every machine, every run and every Swift
/// version (Swift's own `Hasher` is seeded per process, which would send a book to a different
/// shard on every node).
public enum StableHash {
    public static func fnv1a(_ bytes: some Sequence<UInt8>, seed: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        var h = seed
        for b in bytes {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01b3
        }
        return h
    }

    /// FNV-1a alone spreads the low bits of similar names ("book-1", "book-2") poorly; the
    /// finalizer mixes every input bit into every output bit before the modulo.
    public static func mixed(_ text: String) -> UInt64 {
        var z = fnv1a(text.utf8)
        z = (z ^ (z >> 30)) &* 0xbf58_476d_1ce4_e5b9
        z = (z ^ (z >> 27)) &* 0x94d0_49bb_1331_11eb
        return z ^ (z >> 31)
    }

    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let h = fnv1a(bytes)
        let s = String(h, radix: 16)
        return String(repeating: "0", count: 16 - s.count) + s
    }
}
