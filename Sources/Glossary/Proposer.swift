// From a book to glossary proposals, and from proposals back into the book without touching
// what an editor made. The book's first language is the pivot: every other language is aligned
// against it, and the pairs meet in one entry per pivot word ("sun" → es "sol", zh-Hans "太阳").

public import BookModel
public import FileIO

public enum GlossaryError: Error, CustomStringConvertible, Equatable, Sendable {
    case file(FileError)
    /// A dictionary is installed but cannot be read.
    case dictionary(file: String, reason: String)
    /// The book has nothing to align.
    case nothingToAlign(book: String, reason: String)

    public var description: String {
        switch self {
        case .file(let e): return e.description
        case .dictionary(let file, let reason): return "\(file): cannot read the dictionary: \(reason)"
        case .nothingToAlign(let book, let reason): return "\(book): \(reason)"
        }
    }
}

/// One proposed entry before it is merged into the book, with the evidence for it.
public struct Proposal: Hashable, Sendable {
    public var entry: GlossaryEntry
    /// Per translation language: the alignment evidence.
    public var evidence: [String: WordPair]
    /// First page where the pivot word and a translation occur together.
    public var page: Int
}

public struct Proposer: Sendable {
    public var options: AlignmentOptions
    /// Dictionaries by translation language (pivot → that language).
    public var dictionaries: [String: BilingualDictionary]

    public init(options: AlignmentOptions = AlignmentOptions(), dictionaries: [String: BilingualDictionary] = [:]) {
        self.options = options
        self.dictionaries = dictionaries
    }

    /// Sentence pairs (pivot text, `language` text) from every box that has both. Page numbers
    /// are left out: they are digits, not language.
    public static func sentencePairs(in book: Book, pivot: String, language: String) -> [SentencePair] {
        var out: [SentencePair] = []
        for (i, page) in book.pages.enumerated() {
            for box in page.textBoxesInReadingOrder where box.role != .pageNumber {
                if let s = box.text[pivot], let t = box.text[language], !s.isEmpty, !t.isEmpty {
                    out.append(SentencePair(source: s, target: t, page: i + 1))
                }
            }
        }
        return out
    }

    /// Proposals for the whole book, in order of first page, then score.
    public func propose(for book: Book) -> [Proposal] {
        guard let pivot = book.languages.first else { return [] }
        var byWord: [String: Proposal] = [:]
        var order: [String] = []
        for language in book.languages.dropFirst() {
            let aligner = Aligner(sourceLanguage: pivot, targetLanguage: language, options: options, dictionary: dictionaries[language])
            for pair in aligner.align(Self.sentencePairs(in: book, pivot: pivot, language: language)) {
                let key = pair.source.lowercased()
                if byWord[key] == nil {
                    byWord[key] = Proposal(entry: GlossaryEntry(id: "", language: pivot, text: pair.source, source: .proposed), evidence: [:], page: pair.page)
                    order.append(key)
                }
                if var p = byWord[key] {
                    p.entry.translations[language] = pair.target
                    p.evidence[language] = pair
                    p.page = min(p.page, pair.page)
                    byWord[key] = p
                }
            }
        }
        return order.compactMap { byWord[$0] }.sorted { a, b in
            if a.page != b.page { return a.page < b.page }
            return bestScore(a) > bestScore(b)
        }
    }

    func bestScore(_ p: Proposal) -> Double { p.evidence.values.map(\.score).max() ?? 0 }
}

/// What merging proposals into a glossary did.
public struct MergeReport: Sendable, Equatable {
    /// Proposals added (including ones replacing an earlier proposal for the same word).
    public var added: [String] = []
    /// Earlier proposals no longer proposed, removed.
    public var removed: [String] = []
    /// Proposals left out because an editor's entry already covers the word.
    public var keptEditor: [String] = []
}

public enum GlossaryMerge {
    /// The glossary with the new proposals in place of the old ones. Editors' entries are kept as
    /// they are, where they are, and a proposal for a word one of them already covers (as its
    /// text or as a translation, in the same language) is dropped. A proposal for a word an
    /// earlier proposal had keeps that entry's id, so a reader's progress on it carries over.
    public static func merge(_ proposals: [Proposal], into glossary: [GlossaryEntry]) -> ([GlossaryEntry], MergeReport) {
        var report = MergeReport()
        let editors = glossary.filter(\.isEditorOwned)
        var covered: Set<String> = []
        for e in editors {
            covered.insert(key(e.language, e.text))
            for t in e.translations { covered.insert(key(t.language, t.text)) }
        }
        var oldIDs: [String: String] = [:]
        for e in glossary where !e.isEditorOwned { oldIDs[key(e.language, e.text)] = e.id }
        var usedIDs = Set(editors.map(\.id))
        var result = editors
        var proposedKeys: Set<String> = []
        for p in proposals {
            let k = key(p.entry.language, p.entry.text)
            if covered.contains(k) {
                report.keptEditor.append(p.entry.text)
                continue
            }
            var entry = p.entry
            // A word an editor has translated is not offered as a second translation of another word.
            for t in entry.translations where covered.contains(key(t.language, t.text)) { entry.translations[t.language] = nil }
            guard !entry.translations.isEmpty else {
                report.keptEditor.append(p.entry.text)
                continue
            }
            entry.id = oldIDs[k].flatMap { usedIDs.contains($0) ? nil : $0 } ?? makeID(for: entry, avoiding: usedIDs)
            usedIDs.insert(entry.id)
            proposedKeys.insert(k)
            result.append(entry)
            report.added.append(entry.text)
        }
        for e in glossary where !e.isEditorOwned && !proposedKeys.contains(key(e.language, e.text)) {
            report.removed.append(e.text)
        }
        return (result, report)
    }

    static func key(_ language: String, _ text: String) -> String { language + "\u{0}" + text.lowercased() }

    /// A readable id from the first Latin-letter text of the entry ("sun", "little-horse"),
    /// "w1", "w2" … when there is none; "-2", "-3" … on a clash.
    static func makeID(for entry: GlossaryEntry, avoiding used: Set<String>) -> String {
        var base = ""
        for text in [entry.text] + entry.translations.map(\.text) {
            let slug = slugify(text)
            if !slug.isEmpty {
                base = slug
                break
            }
        }
        if base.isEmpty {
            var n = 1
            while used.contains("w\(n)") { n += 1 }
            return "w\(n)"
        }
        var id = base, n = 2
        while used.contains(id) {
            id = "\(base)-\(n)"
            n += 1
        }
        return id
    }

    static func slugify(_ text: String) -> String {
        var out = ""
        for u in text.lowercased().decomposedStringWithCanonicalMappingCompat.unicodeScalars {
            if (u.value >= 0x61 && u.value <= 0x7A) || (u.value >= 0x30 && u.value <= 0x39) {
                out.unicodeScalars.append(u)
            } else if u == " " || u == "-" || u == "'" || u == "’", !out.isEmpty, out.last != "-" {
                out.append("-")
            } else if u.value > 0x7F {
                return ""  // not a Latin word: an id made of the ASCII parts would mislead
            }
        }
        while out.last == "-" { out.removeLast() }
        return String(out.prefix(60))
    }
}
