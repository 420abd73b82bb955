// Escaping for the XML and XHTML the exporters write. Text from book.json can hold anything a
// librarian typed, including characters XML 1.0 forbids outright (most C0 controls); those are
// dropped rather than written, because one of them makes the whole document unreadable.

enum XMLText {
    /// `s` escaped for element content and for attribute values in double quotes.
    static func escape(_ s: String) -> String {
        var out = ""
        out.reserveCapacity(s.utf8.count)
        for u in s.unicodeScalars {
            switch u {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "'": out += "&apos;"
            case "\t", "\n", "\r": out.unicodeScalars.append(u)
            default:
                // XML 1.0 Char: no C0 controls except tab/LF/CR, no U+FFFE/U+FFFF.
                if u.value < 0x20 || u.value == 0xFFFE || u.value == 0xFFFF { continue }
                out.unicodeScalars.append(u)
            }
        }
        return out
    }

    /// An attribute `name="value"` with the value escaped, preceded by a space.
    static func attribute(_ name: String, _ value: String) -> String { " \(name)=\"\(escape(value))\"" }
    static func attribute(_ name: String, _ value: Int) -> String { " \(name)=\"\(value)\"" }
}

/// Words and lines of a text box, for the formats that describe text below the block (ALTO
/// lines/strings, hOCR lines/words). Picturebook stores a box's text, not where each glyph is, so
/// a line gets an equal share of the box's height and a word a share of its line's width in
/// proportion to its characters: an estimate that keeps every word inside its box, good enough
/// for search-hit highlighting, and said to be an estimate in Documentation/Formats.md.
struct TextLayout {
    struct Word {
        var text: String
        var x: Int, y: Int, width: Int, height: Int
    }
    struct Line {
        var x: Int, y: Int, width: Int, height: Int
        var words: [Word]
    }

    var lines: [Line]

    init(text: String, x: Int, y: Int, width: Int, height: Int, vertical: Bool = false, rightToLeft: Bool = false) {
        let rawLines = text.split(omittingEmptySubsequences: true, whereSeparator: { $0 == "\n" || $0 == "\r" || $0 == "\u{2028}" })
            .map { $0.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\u{3000}" }).map(String.init) }
            .filter { !$0.isEmpty }
        var lines: [Line] = []
        let n = max(rawLines.count, 1)
        for (k, words) in rawLines.enumerated() {
            // Vertical text (Mongolian, vertical CJK) stacks its lines left to right across the
            // box and its words down each line; horizontal text the other way round.
            let x0 = x + width * k / n, x1 = x + width * (k + 1) / n
            let y0 = y + height * k / n, y1 = y + height * (k + 1) / n
            let lx = vertical ? x0 : x, ly = vertical ? y : y0
            let lw = vertical ? max(x1 - x0, 1) : width, lh = vertical ? height : max(y1 - y0, 1)
            let along = vertical ? lh : lw
            // A space's share between words, counted as one character.
            let units = words.reduce(0) { $0 + $1.count } + max(words.count - 1, 0)
            var used = 0
            var placed: [Word] = []
            for w in words {
                let start = along * used / max(units, 1)
                used += w.count
                let end = max(along * used / max(units, 1), start + 1)
                used += 1
                if vertical {
                    placed.append(Word(text: w, x: lx, y: ly + start, width: lw, height: min(end, along) - start))
                } else {
                    // Right-to-left lines start at the right edge: the first word read is rightmost.
                    let wx = rightToLeft ? lx + lw - min(end, along) : lx + start
                    placed.append(Word(text: w, x: wx, y: ly, width: min(end, along) - start, height: lh))
                }
            }
            lines.append(Line(x: lx, y: ly, width: lw, height: lh, words: placed))
        }
        self.lines = lines
    }
}
