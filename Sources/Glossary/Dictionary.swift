// Bilingual dictionaries in the dictd format, as Debian's `dict-freedict-*` packages install them
// under /usr/share/dictd: NAME.index lists each headword with the offset and length (in dictd's
// base-64 digits) of its article in NAME.dict, which is usually compressed as NAME.dict.dz, a
// gzip file. Articles are free text; their first line repeats the headword, and the translations
// follow, numbered, separated by commas or semicolons, with pronunciations in /…/ and grammar
// in <…> or (…). The dictionary is optional: it only breaks ties between proposals.

import CZlib
import FileIO

public struct BilingualDictionary: Sendable {
    public var sourceLanguage: String
    public var targetLanguage: String
    /// Headword (lower case) → (offset, length) of its article in `data`.
    var index: [String: (Int, Int)] = [:]
    var data: [UInt8] = []
    /// Same, for a dictionary in the other direction (target → source), when one is installed.
    var reverseIndex: [String: (Int, Int)] = [:]
    var reverseData: [UInt8] = []

    /// The folder Debian installs dictd dictionaries in.
    public static let defaultDirectory = "/usr/share/dictd"

    /// The installed freedict dictionaries between two languages (either direction), or nil when
    /// there is none. Throws only when a dictionary is installed but unreadable.
    public static func installed(from source: String, to target: String, directory: String = defaultDirectory) throws(GlossaryError) -> BilingualDictionary? {
        guard let s = freedictCode(source), let t = freedictCode(target) else { return nil }
        var dictionary = BilingualDictionary(sourceLanguage: source, targetLanguage: target)
        var found = false
        if let (i, d) = try load(directory + "/freedict-\(s)-\(t)") {
            (dictionary.index, dictionary.data) = (i, d)
            found = true
        }
        if let (i, d) = try load(directory + "/freedict-\(t)-\(s)") {
            (dictionary.reverseIndex, dictionary.reverseData) = (i, d)
            found = true
        }
        return found ? dictionary : nil
    }

    /// Builds a dictionary from dictd files' contents (for tests and other folders).
    public init(sourceLanguage: String, targetLanguage: String, index: String = "", data: [UInt8] = []) {
        self.sourceLanguage = sourceLanguage
        self.targetLanguage = targetLanguage
        self.index = Self.parseIndex(index)
        self.data = data
    }

    /// True when the dictionary gives `target` as a translation of `source` (or, from the other
    /// direction, `source` as one of `target`). Both are compared in lower case, whole words or
    /// whole phrases of the article.
    public func lists(_ source: String, _ target: String) -> Bool {
        let s = source.lowercased(), t = target.lowercased()
        if let range = index[s], Self.translations(in: data, range).contains(where: { Self.matches($0, t) }) { return true }
        if let range = reverseIndex[t], Self.translations(in: reverseData, range).contains(where: { Self.matches($0, s) }) { return true }
        return false
    }

    /// The translations an article gives, split into phrases and words.
    public func translations(of headword: String) -> [String] {
        guard let range = index[headword.lowercased()] else { return [] }
        return Self.translations(in: data, range)
    }

    static func matches(_ phrase: String, _ word: String) -> Bool {
        if phrase == word { return true }
        // Arabic writes the article as a prefix: a dictionary's "بحر" is the book's "البحر".
        if word.hasPrefix("ال"), phrase == String(word.dropFirst(2)) { return true }
        if phrase.hasPrefix("ال"), word == String(phrase.dropFirst(2)) { return true }
        return false
    }

    static func translations(in data: [UInt8], _ range: (Int, Int)) -> [String] {
        let (offset, length) = range
        guard offset >= 0, length >= 0, offset <= data.count, length <= data.count - offset else { return [] }
        let article = String(decoding: data[offset..<offset + length], as: UTF8.self)
        var out: [String] = []
        for line in article.split(separator: "\n").dropFirst() {
            var cleaned = ""
            var closer: Character? = nil
            for ch in line {
                if let c = closer {
                    if ch == c { closer = nil }
                    continue
                }
                switch ch {
                case "/": closer = "/"
                case "<": closer = ">"
                case "(": closer = ")"
                case "[": closer = "]"
                case "{": closer = "}"
                default: cleaned.append(ch)
                }
            }
            for piece in cleaned.split(whereSeparator: { $0 == "," || $0 == ";" || $0 == ":" }) {
                var p = String(piece).trimmingCharacters(in: " \t.")
                // Sense numbers: "1. chat" → "chat".
                while let f = p.first, f.isNumber { p.removeFirst() }
                p = p.trimmingCharacters(in: " \t.").lowercased()
                guard !p.isEmpty else { continue }
                out.append(p)
                let words = p.split(separator: " ")
                if words.count > 1 { out += words.map(String.init) }
            }
        }
        return out
    }

    static func load(_ base: String) throws(GlossaryError) -> ([String: (Int, Int)], [UInt8])? {
        let indexPath = base + ".index"
        guard FileIO.exists(indexPath) else { return nil }
        let index: [UInt8]
        var data: [UInt8]
        do {
            index = try FileIO.read(indexPath, limit: 256 << 20)
            if FileIO.exists(base + ".dict.dz") {
                data = try inflate(FileIO.read(base + ".dict.dz", limit: 256 << 20), file: base + ".dict.dz")
            } else {
                data = try FileIO.read(base + ".dict", limit: 512 << 20)
            }
        } catch let e as FileError {
            throw .file(e)
        } catch let e as GlossaryError {
            throw e
        } catch {
            throw .dictionary(file: indexPath, reason: "\(error)")
        }
        return (parseIndex(String(decoding: index, as: UTF8.self)), data)
    }

    static func parseIndex(_ text: String) -> [String: (Int, Int)] {
        var out: [String: (Int, Int)] = [:]
        for line in text.split(separator: "\n") {
            let f = line.split(separator: "\t", omittingEmptySubsequences: false)
            guard f.count >= 3, let o = base64Number(f[1]), let l = base64Number(f[2]) else { continue }
            let key = f[0].lowercased()
            if out[key] == nil { out[key] = (o, l) }
        }
        return out
    }

    /// dictd writes offsets as numbers in base 64 with the MIME alphabet, most significant first.
    static func base64Number(_ s: Substring) -> Int? {
        var n = 0
        for u in s.utf8 {
            let d: Int
            switch u {
            case 0x41...0x5A: d = Int(u) - 0x41
            case 0x61...0x7A: d = Int(u) - 0x61 + 26
            case 0x30...0x39: d = Int(u) - 0x30 + 52
            case 0x2B: d = 62
            case 0x2F: d = 63
            default: return nil
            }
            guard n < Int.max >> 7 else { return nil }
            n = n * 64 + d
        }
        return s.isEmpty ? nil : n
    }

    /// ISO 639-3 codes freedict names its files by.
    static func freedictCode(_ tag: String) -> String? {
        let base = tag.split(separator: "-").first.map(String.init) ?? tag
        let codes = [
            "en": "eng", "ar": "ara", "fr": "fra", "es": "spa", "de": "deu", "it": "ita", "pt": "por", "nl": "nld",
            "ru": "rus", "tr": "tur", "ja": "jpn", "zh": "zho", "pl": "pol", "sv": "swe", "el": "ell", "fi": "fin",
        ]
        return codes[base] ?? (base.count == 3 ? base : nil)
    }
}

/// Inflates a whole gzip (or zlib) stream; dictzip files are gzip with an index in the header's
/// extra field, which a plain inflate skips.
func inflate(_ input: [UInt8], file: String, limit: Int = 512 << 20) throws(GlossaryError) -> [UInt8] {
    var stream = z_stream()
    guard pb_inflate_init_auto(&stream) == Z_OK else { throw .dictionary(file: file, reason: "cannot start decompression") }
    defer { inflateEnd(&stream) }
    var output: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    var status = Z_OK
    var input = input
    input.withUnsafeMutableBufferPointer { inBuf in
        stream.next_in = inBuf.baseAddress
        stream.avail_in = uInt(inBuf.count)
        while status == Z_OK, output.count <= limit {
            chunk.withUnsafeMutableBufferPointer { out in
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                status = CZlib.inflate(&stream, Z_NO_FLUSH)
                output.append(contentsOf: out[0..<(out.count - Int(stream.avail_out))])
            }
            // A dictzip file can be several gzip members; go on with the next one.
            if status == Z_STREAM_END, stream.avail_in > 0 {
                status = inflateReset(&stream)
            }
        }
    }
    guard status == Z_STREAM_END else {
        throw .dictionary(file: file, reason: output.count > limit ? "larger than \(limit >> 20) MB when decompressed" : "damaged compressed data (zlib status \(status))")
    }
    return output
}
