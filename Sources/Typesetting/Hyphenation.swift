// Hyphenation with libhyphen (the pattern engine LibreOffice uses) and the pattern files Debian's
// hyphen-* packages install in /usr/share/hyphen (hyphen-en-us: hyph_en_US.dic).

import CHyphen
import Foundation

/// One loaded pattern dictionary. libhyphen only reads the dictionary while hyphenating, but it
/// is not documented as thread-safe, so calls are serialised per dictionary (they take
/// microseconds).
final class HyphenDictionary: @unchecked Sendable {
    private let dict: UnsafeMutablePointer<HyphenDict>
    private let lock = NSLock()
    let path: String

    private init(dict: UnsafeMutablePointer<HyphenDict>, path: String) {
        self.dict = dict
        self.path = path
    }

    deinit { hnj_hyphen_free(dict) }

    private static let lock = NSLock()
    nonisolated(unsafe) private static var loaded: [String: HyphenDictionary?] = [:]
    static let directories = ["/usr/share/hyphen"]

    /// The dictionary for a BCP 47 language ("en", "en-GB", ...), or nil when none is installed.
    static func forLanguage(_ language: String?) -> HyphenDictionary? {
        guard let language, !language.isEmpty else { return nil }
        let tag = language.replacingOccurrences(of: "-", with: "_")
        let primary = String(tag.split(separator: "_").first ?? "")
        var names = ["hyph_\(tag).dic"]
        if primary != tag { names.append("hyph_\(primary).dic") }
        lock.lock()
        defer { lock.unlock() }
        if let d = loaded[tag] { return d }
        var found: HyphenDictionary? = nil
        outer: for dir in directories {
            for name in names {
                let path = (dir as NSString).appendingPathComponent(name)
                guard FileManager.default.fileExists(atPath: path), let d = hnj_hyphen_load(path) else { continue }
                // Only UTF-8 pattern files: legacy 8-bit ones would need a transcoding table.
                if d.pointee.utf8 == 0 {
                    hnj_hyphen_free(d)
                    continue
                }
                found = HyphenDictionary(dict: d, path: path)
                break outer
            }
        }
        loaded[tag] = found
        return found
    }

    /// Indices `i` (1..<word.count) where the word may be split as word[..<i] + "-" / word[i...].
    func points(_ word: [Unicode.Scalar], leftMin: Int = 2, rightMin: Int = 3) -> [Int] {
        guard word.count >= leftMin + rightMin else { return [] }
        var text = ""
        text.unicodeScalars.append(contentsOf: word)
        let lower = text.lowercased()
        let lowerScalars = Array(lower.unicodeScalars)
        guard lowerScalars.count == word.count else { return [] }  // case mapping changed length
        var bytes: [CChar] = []
        var scalarEndingAtByte: [Int: Int] = [:]  // last byte index of scalar → scalar index
        for (i, s) in lowerScalars.enumerated() {
            for b in String(s).utf8 { bytes.append(CChar(bitPattern: b)) }
            scalarEndingAtByte[bytes.count - 1] = i
        }
        let length = bytes.count
        // libhyphen takes the word's length but still reads it as a C string: its no-hyphen
        // check runs strstr over it. Without the NUL,
        // strstr read past the array (AddressSanitizer, `hyphenatedParagraphMatchesGolden`), and
        // a stray match there would have marked hyphens beyond the word's end.
        bytes.append(0)
        var hyphens = [CChar](repeating: 0, count: length + 5)
        var rep: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = nil
        var pos: UnsafeMutablePointer<Int32>? = nil
        var cut: UnsafeMutablePointer<Int32>? = nil
        let status: Int32 = lock.withLock {
            bytes.withUnsafeBufferPointer { b in
                hnj_hyphen_hyphenate3(
                    dict, b.baseAddress, Int32(length), &hyphens, nil, &rep, &pos, &cut,
                    Int32(leftMin), Int32(rightMin), Int32(leftMin), Int32(rightMin))
            }
        }
        // Non-standard hyphenation (spelling changes at the break) is not used; free its arrays.
        if let rep {
            for i in 0..<length { free(rep[i]) }
            free(rep)
        }
        free(pos)
        free(cut)
        guard status == 0 else { return [] }
        var out: [Int] = []
        for (byte, h) in hyphens.prefix(length).enumerated() where h & 1 == 1 {
            if let s = scalarEndingAtByte[byte], s + 1 >= leftMin, word.count - (s + 1) >= rightMin {
                out.append(s + 1)
            }
        }
        return out
    }
}
