// Word alignment over a book's sentence pairs: which word of one language translates which word of
// the other. A picture book holds a few dozen sentence pairs, far too few for a trained model, so
// this is the classic association approach: count in how many sentence pairs each word and each
// pair of words occur, score every pair by the Dice coefficient (Dice 1945; used for translation
// lexicons since Smadja, McKeown & Hatzivassiloglou 1996), and keep the best pairs one-to-one by
// competitive linking (Melamed 2000, "Models of translational equivalence"), so that a frequent
// word cannot claim every partner it ever met.
//
// Small books leave many pairs tied (two words seen once, in the same sentence, score 1.0 with each
// other and with their neighbours). Three weak signals break those ties, each worth less than
// one step of Dice on its own: a bilingual dictionary entry when one is installed, similar
// spelling (cognates like "cat" / "chat"), and a similar position in the two sentences.

/// A sentence and its translation, from one text box.
public struct SentencePair: Hashable, Sendable {
    public var source: String
    public var target: String
    /// 1-based page the box is on.
    public var page: Int

    public init(source: String, target: String, page: Int) {
        self.source = source
        self.target = target
        self.page = page
    }
}

/// A proposed translation of one word.
public struct WordPair: Hashable, Sendable {
    public var source: String
    public var target: String
    /// The ranking score: Dice plus the tie-breaking bonuses.
    public var score: Double
    /// The plain Dice coefficient.
    public var dice: Double
    /// Sentence pairs in which both occur.
    public var count: Int
    /// First page where both occur.
    public var page: Int
    /// A dictionary lists the pair.
    public var inDictionary: Bool
}

public struct AlignmentOptions: Sendable {
    /// Pairs seen together in fewer sentence pairs are not proposed.
    public var minimumCount = 1
    /// Pairs whose plain Dice coefficient is lower are not proposed.
    public var minimumDice = 0.5
    /// Words in a larger share of sentence pairs than this are function words ("the", "و"),
    /// never glossary material; only applied when there are enough pairs to tell.
    public var maximumShare = 0.5
    public var dictionaryBonus = 0.3
    public var spellingBonus = 0.15
    public var positionBonus = 0.1
    public var runLengthBonus = 0.06

    public init(minimumCount: Int = 1) { self.minimumCount = minimumCount }
}

public struct Aligner: Sendable {
    public var sourceLanguage: String
    public var targetLanguage: String
    public var options: AlignmentOptions
    public var dictionary: BilingualDictionary?

    public init(sourceLanguage: String, targetLanguage: String, options: AlignmentOptions = AlignmentOptions(), dictionary: BilingualDictionary? = nil) {
        self.sourceLanguage = sourceLanguage
        self.targetLanguage = targetLanguage
        self.options = options
        self.dictionary = dictionary
    }

    struct Occurrence {
        var keys: [String]
        /// Relative position (0…1) of each key's first occurrence in the sentence.
        var position: [String: Double]
    }

    /// The proposed word pairs, best first, each word used at most once.
    public func align(_ pairs: [SentencePair]) -> [WordPair] {
        // A repeated box (the title on the cover and the title page) is one sentence pair, not two:
        // counting it twice would make its words look more strongly linked than they are.
        var seen: Set<[String]> = []
        let unique = pairs.filter { seen.insert([$0.source, $0.target]).inserted }
        guard !unique.isEmpty else { return [] }

        var surfaces: [String: String] = [:]
        func occurrences(_ text: String, _ language: String) -> Occurrence {
            let tokens = Tokenizer.tokens(text, language: language)
            var position: [String: Double] = [:]
            for t in tokens where position[t.key] == nil && isCandidate(t.key, language: language) {
                position[t.key] = t.position
                // The lower-case spelling when the word is ever written so ("farm", not the
                // title's "Farm").
                let sk = language + "\u{0}" + t.key
                if surfaces[sk] == nil || (surfaces[sk] != t.key && t.surface == t.key) { surfaces[sk] = t.surface }
            }
            return Occurrence(keys: position.keys.sorted(), position: position)
        }
        let sides = unique.map { (occurrences($0.source, sourceLanguage), occurrences($0.target, targetLanguage), $0.page) }

        var sourceCount: [String: Int] = [:], targetCount: [String: Int] = [:]
        for (s, t, _) in sides {
            for k in s.keys { sourceCount[k, default: 0] += 1 }
            for k in t.keys { targetCount[k, default: 0] += 1 }
        }
        let limit = unique.count >= 8 ? max(2, Int((Double(unique.count) * options.maximumShare).rounded(.up))) : Int.max
        struct Joint { var count = 0; var page = Int.max; var positionAgreement = 0.0 }
        var joint: [String: [String: Joint]] = [:]
        for (s, t, page) in sides {
            for a in s.keys where sourceCount[a, default: 0] <= limit {
                for b in t.keys where targetCount[b, default: 0] <= limit {
                    var j = joint[a]?[b] ?? Joint()
                    j.count += 1
                    j.page = min(j.page, page)
                    j.positionAgreement += 1 - abs((s.position[a] ?? 0) - (t.position[b] ?? 0))
                    joint[a, default: [:]][b] = j
                }
            }
        }

        // A run of a spaceless script that never occurs without a longer run containing it is
        // part of that run ("太" of "太阳"): only the longest such run stands for the word.
        func subsumed(_ key: String, among keys: [String], count: [String: Int], jointCount: (String) -> Int) -> Bool {
            // Only with evidence: a run seen once is "never without" every longer run around it.
            guard let f = key.first, Tokenizer.isSpaceless(f), count[key, default: 0] >= 2 else { return false }
            return keys.contains { other in
                other.count > key.count && other.contains(key) && count[other] == count[key] && jointCount(other) == jointCount(key)
            }
        }
        var candidates: [WordPair] = []
        for (a, row) in joint {
            let targets = Array(row.keys)
            for (b, j) in row where j.count >= options.minimumCount {
                if subsumed(b, among: targets, count: targetCount, jointCount: { row[$0]?.count ?? 0 }) { continue }
                if subsumed(a, among: Array(joint.keys), count: sourceCount, jointCount: { joint[$0]?[b]?.count ?? 0 }) { continue }
                let dice = 2 * Double(j.count) / Double(sourceCount[a, default: 0] + targetCount[b, default: 0])
                guard dice >= options.minimumDice else { continue }
                let sa = surfaces[sourceLanguage + "\u{0}" + a] ?? a
                let sb = surfaces[targetLanguage + "\u{0}" + b] ?? b
                let listed = dictionary?.lists(a, b) ?? false
                let spaced = !(a.first.map(Tokenizer.isSpaceless) ?? false) && !(b.first.map(Tokenizer.isSpaceless) ?? false)
                var score = dice + options.positionBonus * j.positionAgreement / Double(j.count)
                // Most Chinese and Japanese words are two characters long: among tied runs, prefer those.
                if !spaced, b.count == 2 || a.count == 2 { score += options.runLengthBonus }
                score += options.spellingBonus * spellingSimilarity(a, b)
                if listed { score += options.dictionaryBonus }
                candidates.append(WordPair(source: sa, target: sb, score: score, dice: dice, count: j.count, page: j.page, inDictionary: listed))
            }
        }
        candidates.sort { x, y in
            if x.score != y.score { return x.score > y.score }
            if x.count != y.count { return x.count > y.count }
            // Among equally good character runs, the longer one is the more likely word ("太阳"
            // rather than "太").
            if x.target.count != y.target.count { return x.target.count > y.target.count }
            if x.source.count != y.source.count { return x.source.count > y.source.count }
            return (x.source, x.target) < (y.source, y.target)
        }

        // Competitive linking: take the best pair, retire both words, repeat. A character run also
        // retires every run overlapping it, so "太阳" does not leave "太" and "阳" to be
        // handed out to other words.
        var usedSource: Set<String> = [], usedTarget: Set<String> = []
        var accepted: [WordPair] = []
        for c in candidates {
            let a = c.source.lowercased(), b = c.target.lowercased()
            if usedSource.contains(where: { overlaps($0, a) }) || usedTarget.contains(where: { overlaps($0, b) }) { continue }
            usedSource.insert(a)
            usedTarget.insert(b)
            accepted.append(c)
        }
        return accepted
    }

    /// Two keys overlap when one is inside the other: a spaceless run and its parts. Words of a
    /// spaced script are whole, so they only overlap themselves.
    func overlaps(_ x: String, _ y: String) -> Bool {
        if x == y { return true }
        guard let fx = x.first, let fy = y.first, Tokenizer.isSpaceless(fx), Tokenizer.isSpaceless(fy) else { return false }
        return x.contains(y) || y.contains(x)
    }

    func isCandidate(_ key: String, language: String) -> Bool {
        // Numbers translate themselves; they are not vocabulary.
        if key.allSatisfy({ $0.isNumber }) { return false }
        if let first = key.first, !Tokenizer.isSpaceless(first), key.count < 2 { return false }
        return !FunctionWords.contains(key, language: language)
    }
}

/// 0…1: how alike two words are spelt, by the longest common prefix of their letters with accents
/// removed, relative to the shorter word; 0 across scripts and for prefixes under three letters.
func spellingSimilarity(_ a: String, _ b: String) -> Double {
    func fold(_ s: String) -> [Unicode.Scalar] {
        s.unicodeScalars.compactMap { u -> Unicode.Scalar? in
            if u.properties.generalCategory == .nonspacingMark { return nil }
            let decomposed = String(u).decomposedStringWithCanonicalMappingCompat.unicodeScalars
            return decomposed.first
        }
    }
    let x = fold(a), y = fold(b)
    var n = 0
    while n < x.count, n < y.count, x[n] == y[n] { n += 1 }
    guard n >= 3 else { return 0 }
    return Double(n) / Double(min(x.count, y.count))
}

extension String {
    /// Canonical decomposition (NFD) without Foundation: enough to strip accents from Latin
    /// letters, which is all the spelling comparison needs.
    var decomposedStringWithCanonicalMappingCompat: String {
        var out = String.UnicodeScalarView()
        for u in unicodeScalars {
            if let base = latinBase[u.value] { out.append(base) } else { out.append(u) }
        }
        return String(out)
    }
}

/// Accented Latin letters → their base letter (the common Western European ones).
private let latinBase: [UInt32: Unicode.Scalar] = {
    var m: [UInt32: Unicode.Scalar] = [:]
    let table: [(String, Character)] = [
        ("àáâãäåā", "a"), ("çć", "c"), ("èéêëē", "e"), ("ìíîïī", "i"), ("ñ", "n"), ("òóôõöō", "o"), ("ùúûüū", "u"), ("ýÿ", "y"),
    ]
    for (accented, base) in table {
        for c in accented.unicodeScalars { m[c.value] = base.unicodeScalars.first }
    }
    return m
}()
