import Geometry
import Testing
@testable import Typesetting

@Suite struct HyphenationTests {
    @Test func englishPatternsAreFound() throws {
        let dict = try #require(HyphenDictionary.forLanguage("en-US"), "install hyphen-en-us (Tools/setup.sh)")
        #expect(dict.path.hasSuffix(".dic"))
        func split(_ w: String) -> String {
            let s = Array(w.unicodeScalars)
            var out = ""
            for (i, c) in s.enumerated() {
                if dict.points(s).contains(i) { out += "-" }
                out.unicodeScalars.append(c)
            }
            return out
        }
        print(split("hyphenation"), split("extraordinary"), split("Communication"), split("fox"))
        #expect(split("hyphenation") == "hy-phen-ation")
        #expect(split("fox") == "fox")
        #expect(HyphenDictionary.forLanguage("xx") == nil)
        #expect(HyphenDictionary.forLanguage(nil) == nil)
    }

    /// libhyphen reads the word as a C string whatever length it is given. Words of every byte
    /// count from 5 to 48 land, some of them, exactly at their array's capacity: before the word
    /// was NUL-terminated, AddressSanitizer (`make test-sanitize`) stopped here on a read past it.
    @Test func everyWordLengthIsReadOnlyToItsEnd() throws {
        let dict = try #require(HyphenDictionary.forLanguage("en-US"), "install hyphen-en-us (Tools/setup.sh)")
        let letters = Array("incomprehensibilitiesunconventionallyextraordinary".unicodeScalars)
        for n in 5...48 {
            for word in [Array(letters.prefix(n)), Array("o'".unicodeScalars) + letters.prefix(n - 2)] {
                let points = dict.points(word)
                #expect(points.allSatisfy { $0 >= 2 && $0 <= word.count - 3 }, "\(String(String.UnicodeScalarView(word))): \(points)")
            }
        }
        #expect(dict.points(Array("incomprehensibilities".unicodeScalars)).count >= 3)
    }

    @Test func narrowBoxesHyphenateLongWords() throws {
        let text = "Extraordinary circumstances necessitate unconventional communication."
        var style = TextStyle(language: "en", hyphenate: true)
        let box = Size(width: 230, height: 600)
        let layout = try Typesetter().layout(text, size: 30, in: box, style: style)
        let hyphenGlyph = try #require(layout.glyphRuns.first?.face.hyphen?.glyph)
        let hyphenated = layout.lines.filter { $0.runs.last?.glyphs.last?.id == hyphenGlyph }
        #expect(!hyphenated.isEmpty)
        for line in layout.lines { #expect(line.frame.maxX <= box.width + 0.01) }
        // Without hyphenation no line ends in a hyphen and some line is much shorter.
        style.hyphenate = false
        let plain = try Typesetter().layout(text, size: 30, in: box, style: style)
        #expect(plain.lines.allSatisfy { $0.runs.last?.glyphs.last?.id != hyphenGlyph })
        #expect(plain.lines.count >= layout.lines.count)
    }

    @Test func fittingWithHyphenationNeverChoosesASmallerSize() throws {
        let text = "Extraordinary circumstances necessitate unconventional communication."
        let box = Size(width: 220, height: 300)
        let off = try Typesetter().fit(text, in: box, style: TextStyle(language: "en", maximumSize: 80))
        let on = try Typesetter().fit(text, in: box, style: TextStyle(language: "en", maximumSize: 80, hyphenate: true))
        #expect(on.fontSize >= off.fontSize)
        #expect(!on.overflows)
    }
}

@Suite struct ThaiTests {
    @Test func thaiWrapsBetweenWords() throws {
        // "The little fox lives at the edge of the forest" — no spaces between the words.
        let text = "สุนัขจิ้งจอกตัวน้อยอาศัยอยู่ริมป่า"
        let style = TextStyle(language: "th", minimumSize: 10, maximumSize: 40)
        let prepared = try Typesetter().prepare(text, style: style)
        let box = Size(width: 160, height: 300)
        // Fits at a readable size without cutting inside a word: libthai found word breaks.
        #expect(prepared.fits(size: 24, in: box))
        let layout = try prepared.layout(size: 24, in: box)
        #expect(layout.lines.count >= 2)
        let words = ["สุนัข", "จิ้งจอก", "ตัว", "น้อย", "อาศัย", "อยู่", "ริม", "ป่า"]
        var boundaries = Set<Int>()
        var at = 0
        for w in words {
            at += w.unicodeScalars.count
            boundaries.insert(at)
        }
        for line in layout.lines.dropLast() {
            #expect(boundaries.contains(line.textRange.upperBound), "line ends inside a word at \(line.textRange)")
        }
        #expect(layout.glyphRuns.allSatisfy { $0.face.info.family == "Noto Sans Thai" })
    }
}
