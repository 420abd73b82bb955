// Splitting a sentence into the units a word alignment counts. Scripts that separate words with
// spaces (Latin, Arabic, Cyrillic, Mongolian, …) give words; scripts written without spaces (Han,
// kana, Thai, Lao, Khmer, Myanmar) give every character run of one to three characters, because a
// word there is one to three characters far more often than not and we have no segmenter to ask.
// The alignment then picks whichever run lines up best with a word on the other side.

/// One unit of a sentence that may become a glossary word.
public struct Token: Hashable, Sendable {
    /// As written in the sentence (so the reader can find it again).
    public var surface: String
    /// Lower-cased, for counting "Sea" and "sea" as one word.
    public var key: String
    /// Where the unit's middle falls in the sentence, 0…1 (in characters).
    public var position: Double = 0.5

    public init(surface: String, key: String, position: Double = 0.5) {
        self.surface = surface
        self.key = key
        self.position = position
    }
}

public enum Tokenizer {
    /// The longest character run proposed for scripts without spaces.
    public static let maximumRun = 3

    /// Units of `text`, in order, duplicates kept.
    public static func tokens(_ text: String, language: String) -> [Token] {
        var out: [Token] = []
        let total = Double(max(1, text.count))
        for segment in segments(text) {
            if segment.spaceless {
                let chars = Array(segment.text)
                for start in chars.indices {
                    for length in 1...maximumRun where start + length <= chars.count {
                        let s = String(chars[start..<start + length])
                        let middle = Double(segment.offset + start) + Double(length) / 2
                        out.append(Token(surface: s, key: s, position: middle / total))
                    }
                }
            } else {
                let middle = Double(segment.offset) + Double(segment.text.count) / 2
                out.append(Token(surface: segment.text, key: segment.text.lowercased(), position: middle / total))
            }
        }
        return out
    }

    struct Segment {
        var text: String
        var spaceless: Bool
        /// Characters before the segment in the sentence.
        var offset: Int
    }

    /// Runs of word characters, split at spaces and punctuation, and at every change between a
    /// spaced and a spaceless script (a Chinese sentence may hold "DNA").
    static func segments(_ text: String) -> [Segment] {
        var out: [Segment] = []
        var current = ""
        var currentSpaceless = false
        var start = 0, index = 0
        func flush() {
            // Apostrophes and hyphens belong inside words ("Salma’s", "well-known"), not at
            // their ends.
            let trimmed = current.trimmingCharacters(in: "'’-‐")
            if !trimmed.isEmpty { out.append(Segment(text: trimmed, spaceless: currentSpaceless, offset: start)) }
            current = ""
        }
        for ch in text {
            defer { index += 1 }
            if current.isEmpty { start = index }
            guard isWordCharacter(ch) else {
                flush()
                continue
            }
            let spaceless = isSpaceless(ch)
            if !current.isEmpty, spaceless != currentSpaceless {
                flush()
                start = index
            }
            currentSpaceless = spaceless
            current.append(ch)
        }
        flush()
        return out
    }

    /// Letters, marks and digits, the joiners that live inside Mongolian and Arabic words, and
    /// in-word apostrophes and hyphens.
    static func isWordCharacter(_ ch: Character) -> Bool {
        if ch == "'" || ch == "’" || ch == "-" || ch == "‐" { return true }
        for s in ch.unicodeScalars {
            switch s.value {
            case 0x180B...0x180F, 0x202F, 0x200C, 0x200D: return true  // Mongolian selectors, NNBSP, ZWNJ, ZWJ
            default: break
            }
            let p = s.properties
            if p.isAlphabetic || p.generalCategory == .decimalNumber || p.generalCategory == .nonspacingMark
                || p.generalCategory == .spacingMark {
                continue
            }
            return false
        }
        return true
    }

    /// Scripts written without spaces between words.
    public static func isSpaceless(_ ch: Character) -> Bool {
        guard let v = ch.unicodeScalars.first?.value else { return false }
        switch v {
        case 0x0E00...0x0EFF: return true  // Thai, Lao
        case 0x1000...0x109F: return true  // Myanmar
        case 0x1780...0x17FF: return true  // Khmer
        case 0x3040...0x30FF: return true  // Hiragana, Katakana
        case 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xF900...0xFAFF, 0x20000...0x3FFFF: return true  // Han
        default: return false
        }
    }
}

extension String {
    func trimmingCharacters(in set: String) -> String {
        var s = Substring(self)
        while let f = s.first, set.contains(f) { s = s.dropFirst() }
        while let l = s.last, set.contains(l) { s = s.dropLast() }
        return String(s)
    }
}
