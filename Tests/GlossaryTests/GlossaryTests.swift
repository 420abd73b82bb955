import BookModel
import Glossary
import Testing

/// A hand-made parallel corpus where the right word pairs are known: each content word recurs in
/// different company, so only its true partner follows it everywhere.
let englishFrench: [SentencePair] = [
    ("The cat sleeps.", "Le chat dort."),
    ("The cat eats fish.", "Le chat mange du poisson."),
    ("The dog eats bread.", "Le chien mange du pain."),
    ("The dog sleeps in the boat.", "Le chien dort dans le bateau."),
    ("The boat is on the sea.", "Le bateau est sur la mer."),
    ("The sea is blue.", "La mer est bleue."),
    ("The fish swims in the sea.", "Le poisson nage dans la mer."),
    ("The cat sees the boat.", "Le chat voit le bateau."),
    ("The dog sees the fish.", "Le chien voit le poisson."),
    ("Bread for the cat.", "Du pain pour le chat."),
].enumerated().map { SentencePair(source: $0.element.0, target: $0.element.1, page: $0.offset + 1) }

let truthFrench: [String: String] = [
    "cat": "chat", "dog": "chien", "sleeps": "dort", "eats": "mange", "fish": "poisson", "bread": "pain",
    "boat": "bateau", "sea": "mer", "sees": "voit", "swims": "nage", "blue": "bleue",
]

/// English–Chinese: no spaces on one side, so the aligner must pick the right character runs.
let englishChinese: [SentencePair] = [
    ("The sun wakes up.", "太阳醒来了。"),
    ("The cow eats grass.", "奶牛吃草。"),
    ("The sun is warm.", "太阳很暖和。"),
    ("The cow sleeps.", "奶牛睡觉了。"),
    ("The hen eats grass.", "母鸡吃草。"),
    ("The hen sleeps.", "母鸡在睡觉。"),
].enumerated().map { SentencePair(source: $0.element.0, target: $0.element.1, page: $0.offset + 1) }

@Suite struct TokenizerTests {
    @Test func spacedScriptsGiveWords() {
        let t = Tokenizer.tokens("Salma’s kite, flying high!", language: "en").map(\.key)
        #expect(t == ["salma’s", "kite", "flying", "high"])
        let ar = Tokenizer.tokens("تعيش سلمى في بيت صغير.", language: "ar").map(\.surface)
        #expect(ar == ["تعيش", "سلمى", "في", "بيت", "صغير"])
        let ru = Tokenizer.tokens("Кошка спит.", language: "ru").map(\.key)
        #expect(ru == ["кошка", "спит"])
    }

    @Test func mongolianSuffixesStayWithTheirWord() {
        // The narrow no-break space and the vowel separator join a suffix to its stem.
        let t = Tokenizer.tokens("ᠪᠠᠭ\u{180E}ᠠ ᠮᠣᠷᠢ ᠰᠡᠷᠡᠪᠡ᠃", language: "mn-Mong").map(\.surface)
        #expect(t == ["ᠪᠠᠭ\u{180E}ᠠ", "ᠮᠣᠷᠢ", "ᠰᠡᠷᠡᠪᠡ"])
    }

    @Test func spacelessScriptsGiveCharacterRuns() {
        let t = Set(Tokenizer.tokens("太阳醒。", language: "zh-Hans").map(\.key))
        #expect(t == ["太", "阳", "醒", "太阳", "阳醒", "太阳醒"])
        let th = Tokenizer.tokens("แมว", language: "th").map(\.key)
        #expect(th.contains("แมว"))
        #expect(!th.contains("แมว "))
    }
}

@Suite struct AlignerTests {
    @Test func findsTheKnownPairsOfASmallCorpus() {
        let pairs = Aligner(sourceLanguage: "en", targetLanguage: "fr").align(englishFrench)
        let found = Dictionary(pairs.map { ($0.source.lowercased(), $0.target.lowercased()) }, uniquingKeysWith: { a, _ in a })
        let right = found.filter { truthFrench[$0.key] == $0.value }.count
        // Every word that recurs is found; the singletons ("swims", "blue") may be too.
        for word in ["cat", "dog", "sleeps", "eats", "fish", "bread", "boat", "sea", "sees"] {
            #expect(found[word] == truthFrench[word], "\(word) → \(found[word] ?? "nothing")")
        }
        // Function words are never proposed.
        #expect(found["the"] == nil)
        #expect(!found.values.contains("le"))
        #expect(Double(right) / Double(found.count) >= 0.8, "\(found)")
    }

    @Test func eachWordIsUsedOnce() {
        let pairs = Aligner(sourceLanguage: "en", targetLanguage: "fr").align(englishFrench)
        #expect(Set(pairs.map(\.source)).count == pairs.count)
        #expect(Set(pairs.map(\.target)).count == pairs.count)
    }

    @Test func choosesWholeChineseWords() {
        let pairs = Aligner(sourceLanguage: "en", targetLanguage: "zh-Hans", options: AlignmentOptions(minimumCount: 2)).align(englishChinese)
        let found = Dictionary(pairs.map { ($0.source.lowercased(), $0.target) }, uniquingKeysWith: { a, _ in a })
        #expect(found["sun"] == "太阳")
        #expect(found["cow"] == "奶牛")
        #expect(found["hen"] == "母鸡")
        #expect(found["sleeps"] == "睡觉")
        // "eats grass" is always "吃草" here: the pair that never splits is proposed whole.
        #expect(found["eats"] == "吃草" || found["grass"] == "吃草")
        // No pair is made of a piece of a word already linked.
        #expect(!found.values.contains("太") && !found.values.contains("阳"))
    }

    @Test func minimumCountDropsSingletons() {
        let pairs = Aligner(sourceLanguage: "en", targetLanguage: "fr", options: AlignmentOptions(minimumCount: 2)).align(englishFrench)
        #expect(pairs.allSatisfy { $0.count >= 2 })
        #expect(!pairs.contains { $0.source == "swims" })
    }

    @Test func aDictionaryBreaksTies() {
        // One sentence: every pairing scores Dice 1. The dictionary says which is right.
        let one = [SentencePair(source: "red kite", target: "طائرة حمراء", page: 1)]
        let kite = Array("kite /kaɪt/\n1. طائرة\n".utf8), red = Array("red <adj>\nحمراء, أحمر\n".utf8)
        // dictd index: headword, offset and length in base-64 digits (A = 0 … / = 63).
        func b64(_ n: Int) -> String {
            let digits = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")
            return n < 64 ? String(digits[n]) : b64(n / 64) + String(digits[n % 64])
        }
        let index = "kite\t\(b64(0))\t\(b64(kite.count))\nred\t\(b64(kite.count))\t\(b64(red.count))\n"
        let article = kite + red
        let dict = BilingualDictionary(sourceLanguage: "en", targetLanguage: "ar", index: index, data: article)
        #expect(dict.lists("kite", "طائرة"))
        #expect(dict.lists("Red", "حمراء"))
        #expect(!dict.lists("red", "طائرة"))
        let pairs = Aligner(sourceLanguage: "en", targetLanguage: "ar", dictionary: dict).align(one)
        let found = Dictionary(pairs.map { ($0.source, $0.target) }, uniquingKeysWith: { a, _ in a })
        #expect(found == ["kite": "طائرة", "red": "حمراء"])
        #expect(pairs.allSatisfy { $0.inDictionary })
    }

    @Test func repeatedBoxesCountOnce() {
        let twice = englishFrench + englishFrench
        let a = Aligner(sourceLanguage: "en", targetLanguage: "fr").align(englishFrench)
        let b = Aligner(sourceLanguage: "en", targetLanguage: "fr").align(twice)
        #expect(a.map(\.source) == b.map(\.source))
        #expect(a.map(\.dice) == b.map(\.dice))
    }
}

@Suite struct MergeTests {
    func book(glossary: [GlossaryEntry] = []) -> Book {
        var pages: [Page] = []
        for (i, p) in englishFrench.enumerated() {
            pages.append(Page(image: "p\(i).png", width: 100, height: 100, textBoxes: [
                TextBox(id: "b", rect: .init(x: 0, y: 0, width: 10, height: 10), text: ["en": p.source, "fr": p.target], role: .body),
                TextBox(id: "n", rect: .init(x: 0, y: 50, width: 10, height: 10), text: ["en": "\(i + 1)", "fr": "\(i + 1)"], role: .pageNumber),
            ]))
        }
        var b = Book(title: "T", languages: ["en", "fr"], pages: pages)
        b.glossary = glossary
        return b
    }

    @Test func proposalsBecomeProposedEntriesWithReadableIDs() {
        let proposals = Proposer().propose(for: book())
        let (merged, report) = GlossaryMerge.merge(proposals, into: [])
        #expect(merged.count == proposals.count)
        #expect(merged.allSatisfy { $0.source == .proposed && $0.language == "en" })
        let cat = merged.first { $0.text.lowercased() == "cat" }
        #expect(cat?.id == "cat")
        #expect(cat?.translations["fr"] == "chat")
        #expect(report.added.count == merged.count)
        #expect(Set(merged.map(\.id)).count == merged.count)
        var b = book()
        b.glossary = merged
        #expect(b.validate().errors.isEmpty, "\(b.validate())")
    }

    @Test func editorsEntriesAreNeverOverwrittenOrDuplicated() {
        let mine = GlossaryEntry(id: "cat", language: "en", text: "cat", translations: ["fr": "le chat"], note: "mine", source: .editor)
        let unmarked = GlossaryEntry(id: "my-dog", language: "en", text: "Dog", translations: ["fr": "chien"])
        let stale = GlossaryEntry(id: "old", language: "en", text: "zebra", translations: ["fr": "zèbre"], source: .proposed)
        let proposals = Proposer().propose(for: book())
        let (merged, report) = GlossaryMerge.merge(proposals, into: [mine, stale, unmarked])
        #expect(merged.first == mine)
        #expect(merged.contains(unmarked))
        #expect(merged.filter { $0.text.lowercased() == "cat" }.count == 1)
        #expect(merged.filter { $0.text.lowercased() == "dog" }.count == 1)
        // "chien" is the editor's translation of "dog": no other word may be given it.
        #expect(!merged.contains { $0.source == .proposed && $0.translations["fr"] == "chien" })
        #expect(!merged.contains(stale))
        #expect(report.removed == ["zebra"])
        #expect(Set(report.keptEditor).isSuperset(of: ["cat", "dog"]))
        // The proposal for "cat" does not take the editor's id either.
        #expect(Set(merged.map(\.id)).count == merged.count)
    }

    @Test func aRerunKeepsProposalIDs() {
        let proposals = Proposer().propose(for: book())
        var (first, _) = GlossaryMerge.merge(proposals, into: [])
        first = first.map { var e = $0; e.id = "x-" + e.id; return e }
        let (second, report) = GlossaryMerge.merge(proposals, into: first)
        #expect(second.map(\.id) == first.map(\.id))
        #expect(report.removed.isEmpty)
    }

    @Test func pageNumbersAreNotSentences() {
        let pairs = Proposer.sentencePairs(in: book(), pivot: "en", language: "fr")
        #expect(pairs.count == englishFrench.count)
        #expect(pairs.first?.page == 1)
    }
}
