import BookModel
import Testing
import TestSupport

/// Random damage to a valid manifest must never crash loading, and whatever loads must save
/// and load again to the same book.
@Suite struct FuzzTests {
    static let base = Array(sampleManifest.utf8)
    static let tokens: [[UInt8]] = ["{", "}", "[", "]", ",", ":", "\"", "\\", "null", "-1", "0", "1e308", "1e999", "\"x\"",
                                    "true", "NaN", "\u{0}", "é", "\n", "\"\\ud800\"", "[[2,3]]", "{\"id\":\"a\"}"].map { Array($0.utf8) }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func byteLevelMutationsNeverCrash(seed: UInt64) {
        var rng = SplitMix64(seed: seed)
        var loaded = 0
        for _ in 0..<500 {
            var bytes = Self.base
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                guard !bytes.isEmpty else { break }
                let at = Int.random(in: 0..<bytes.count, using: &rng)
                switch Int.random(in: 0..<5, using: &rng) {
                case 0: bytes[at] = UInt8.random(in: 0...255, using: &rng)
                case 1: bytes.remove(at: at)
                case 2: bytes.insert(contentsOf: Self.tokens.randomElement(using: &rng)!, at: at)
                case 3: bytes.removeSubrange(at..<min(bytes.count, at + Int.random(in: 1...40, using: &rng)))
                default: bytes = Array(bytes.prefix(at))
                }
            }
            if checkRoundTrip(bytes) { loaded += 1 }
        }
        // Some mutations land in string contents and leave a valid book; the rest are rejected.
        #expect(loaded > 0)
    }

    @Test(arguments: [11, 12, 13, 14] as [UInt64])
    func structuralMutationsNeverCrash(seed: UInt64) throws {
        var rng = SplitMix64(seed: seed)
        let root = try JSONParser.parse(Self.base).value
        var loaded = 0, rejected = 0
        for _ in 0..<400 {
            var v = root
            for _ in 0..<Int.random(in: 1...3, using: &rng) { v = mutate(v, &rng, depth: 0) }
            if checkRoundTrip(JSONWriter.serialize(v)) { loaded += 1 } else { rejected += 1 }
        }
        #expect(loaded > 0)
        #expect(rejected > 0)
    }

    /// Loads; when the bytes are a valid book, checks save → load gives the same book and bytes.
    func checkRoundTrip(_ bytes: [UInt8]) -> Bool {
        guard let (book, _) = try? Book.decode(bytes) else {
            // Rejections must carry at least one error with a message.
            do {
                _ = try Book.decode(bytes)
            } catch {
                #expect(error.diagnostics.contains { $0.isError && !$0.message.isEmpty })
            }
            return false
        }
        let saved = book.encoded()
        guard let (again, _) = try? Book.decode(saved) else {
            Issue.record("a loaded book did not reload after saving:\n\(String(decoding: saved, as: UTF8.self))")
            return true
        }
        #expect(again == book)
        #expect(again.encoded() == saved)
        return true
    }

    /// Replaces, removes or retypes one randomly chosen value somewhere in the tree.
    func mutate(_ v: JSONValue, _ rng: inout SplitMix64, depth: Int) -> JSONValue {
        let descend = Int.random(in: 0..<4, using: &rng) != 0
        switch v {
        case .object(var o) where descend && !o.isEmpty:
            let key = o.keys.randomElement(using: &rng)!
            if Int.random(in: 0..<6, using: &rng) == 0 {
                o[key] = nil
            } else {
                o[key] = mutate(o[key]!, &rng, depth: depth + 1)
            }
            return .object(o)
        case .array(var a) where descend && !a.isEmpty:
            let i = Int.random(in: 0..<a.count, using: &rng)
            switch Int.random(in: 0..<6, using: &rng) {
            case 0: a.remove(at: i)
            case 1: a.append(a[i])
            default: a[i] = mutate(a[i], &rng, depth: depth + 1)
            }
            return .array(a)
        default:
            let replacements: [JSONValue] = [
                nil, true, 0, -1, 1.5, 1e15, 100_001, "", "abc", "#12345g", "ltr", "rtl", "zh-Hant", "xx", [], [1, 2], [[1, 2]],
                [:], ["x": 1], ["en": "t"], "picturebook-book/2", "../p.jpg",
            ]
            return replacements.randomElement(using: &rng)!
        }
    }
}
