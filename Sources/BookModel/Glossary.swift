// The book's glossary: words and phrases of the story with their translations, for readers who
// are learning one of the book's languages. Documentation/BookFormat.md ("Glossary") is the
// reference. Entries are proposed by `picturebook glossary` and checked by an editor; `source`
// records which, so a later proposal run never overwrites a person's work.

public import Geometry

/// One word or phrase in one of the book's languages and its translations.
public struct GlossaryEntry: Hashable, Sendable {
    /// Unique in the book; the reader's word-pair progress refers to the entry by it. Same
    /// charset as text box ids (it may end up in file names and URLs).
    public var id: String
    /// The language `text` is written in (one of the book's languages).
    public var language: String
    /// The word or phrase as it appears in the book's text.
    public var text: String
    /// The word or phrase in the book's other languages.
    public var translations: LanguageMap
    /// A short remark for the reader ("plural", "also means …").
    public var note: String?
    /// Where the thing the word names is drawn.
    public var region: GlossaryRegion?
    /// Who made the entry. Absent means a person did.
    public var source: GlossarySource?
    /// Free labels for grouping word pairs ("animals", "weather").
    public var tags: [String]
    public var extraFields: JSONObject
    var layout = FieldLayout()
    var regionExtraFields = JSONObject()
    var regionLayout = FieldLayout()
    var boxExtraFields = JSONObject()
    var boxLayout = FieldLayout()

    public init(
        id: String, language: String, text: String, translations: LanguageMap = [:], note: String? = nil,
        region: GlossaryRegion? = nil, source: GlossarySource? = nil, tags: [String] = [], extraFields: JSONObject = [:]
    ) {
        self.id = id
        self.language = language
        self.text = text
        self.translations = translations
        self.note = note
        self.region = region
        self.source = source
        self.tags = tags
        self.extraFields = extraFields
    }

    /// True unless the entry is an unchecked proposal: editors' entries are never replaced by a
    /// proposal run.
    public var isEditorOwned: Bool { source != .proposed }
}

/// A rectangle on one page, where a glossary word's picture is.
public struct GlossaryRegion: Hashable, Sendable {
    /// 1-based page number in reading order, like `spreads`.
    public var page: Int
    /// In pixels of that page's scan.
    public var box: PixelRect

    public init(page: Int, box: PixelRect) {
        self.page = page
        self.box = box
    }
}

public enum GlossarySource: String, Hashable, Sendable, CaseIterable {
    /// Made by `picturebook glossary`, not yet checked by a person.
    case proposed
    /// Written or checked by a person.
    case editor
}

// MARK: decoding

extension ManifestDecoder {
    static let glossaryKeys = ["id", "language", "text", "translations", "note", "region", "source", "tags"]
    static let regionKeys = ["page", "box"]

    mutating func decodeGlossary(_ v: JSONValue, at path: JSONPath) -> [GlossaryEntry] {
        guard let a = v.arrayValue else {
            expected("an array of glossary entries", v, at: path)
            return []
        }
        return a.enumerated().map { decodeGlossaryEntry($0.element, at: path / $0.offset) }
    }

    mutating func decodeGlossaryEntry(_ v: JSONValue, at path: JSONPath) -> GlossaryEntry {
        var entry = GlossaryEntry(id: "", language: "", text: "")
        guard let o = v.objectValue else {
            expected("a glossary entry like {\"id\": \"kite\", \"language\": \"en\", \"text\": \"kite\", \"translations\": {…}}", v, at: path)
            return entry
        }
        (entry.extraFields, entry.layout) = extras(o, known: Self.glossaryKeys, at: path)
        if let v = required(o, "id", at: path) { entry.id = string(v, at: path / "id") ?? "" }
        if let v = required(o, "language", at: path) { entry.language = string(v, at: path / "language") ?? "" }
        if let v = required(o, "text", at: path) { entry.text = string(v, at: path / "text") ?? "" }
        if let v = required(o, "translations", at: path, hint: "; give the word in another language, e.g. {\"ar\": \"…\"}") {
            if let t = v.objectValue {
                entry.translations = languageMap(t, at: path / "translations")
            } else {
                expected("a map from language to text like {\"ar\": \"…\"}", v, at: path / "translations")
            }
        }
        if let v = optional(o, "note") { entry.note = string(v, at: path / "note") }
        if let v = optional(o, "region") { entry.region = decodeRegion(v, into: &entry, at: path / "region") }
        if let v = optional(o, "source") { entry.source = closed(GlossarySource.self, v, at: path / "source") }
        if let v = optional(o, "tags") {
            if let a = v.arrayValue {
                for (i, e) in a.enumerated() { entry.tags.append(string(e, at: path / "tags" / i) ?? "") }
            } else {
                expected("an array of tags like [\"animals\"]", v, at: path / "tags")
            }
        }
        return entry
    }

    mutating func decodeRegion(_ v: JSONValue, into entry: inout GlossaryEntry, at path: JSONPath) -> GlossaryRegion? {
        guard let o = v.objectValue else {
            expected("an object {\"page\": …, \"box\": {\"x\": …, \"y\": …, \"width\": …, \"height\": …}}", v, at: path)
            return nil
        }
        (entry.regionExtraFields, entry.regionLayout) = extras(o, known: Self.regionKeys, at: path)
        var region = GlossaryRegion(page: 0, box: PixelRect(x: 0, y: 0, width: 0, height: 0))
        if let v = required(o, "page", at: path) { region.page = positiveInteger(v, at: path / "page") ?? 0 }
        if let v = required(o, "box", at: path) {
            // The box shares the text box's rect decoder, so both report the same way.
            var scratch = TextBox(id: "", rect: region.box)
            decodeRect(v, into: &scratch, at: path / "box")
            region.box = scratch.rect
            entry.boxExtraFields = scratch.rectExtraFields
            entry.boxLayout = scratch.rectLayout
        }
        return region
    }
}

// MARK: encoding

extension GlossaryEntry {
    public var json: JSONValue {
        var known: [(String, JSONValue)] = [
            ("id", .string(id)), ("language", .string(language)), ("text", .string(text)), ("translations", translations.json),
        ]
        if let note { known.append(("note", .string(note))) }
        if let region {
            let r = region.box
            let box: [(String, JSONValue)] = [
                ("x", .number(JSONNumber(r.x))), ("y", .number(JSONNumber(r.y))),
                ("width", .number(JSONNumber(r.width))), ("height", .number(JSONNumber(r.height))),
            ]
            let fields: [(String, JSONValue)] = [
                ("page", .number(JSONNumber(region.page))),
                ("box", .object(assemble(box, extras: boxExtraFields, layout: boxLayout))),
            ]
            known.append(("region", .object(assemble(fields, extras: regionExtraFields, layout: regionLayout))))
        }
        if let source { known.append(("source", .string(source.rawValue))) }
        if !tags.isEmpty || layout.keeps("tags") { known.append(("tags", .array(tags.map(JSONValue.string)))) }
        return .object(assemble(known, extras: extraFields, layout: layout))
    }
}

// MARK: validation

extension Validator {
    mutating func checkGlossary() {
        let path = JSONPath.root / "glossary"
        guard ok(path) else { return }
        var firstEntryForID: [String: Int] = [:]
        var firstEntryForWord: [String: Int] = [:]
        for (i, entry) in book.glossary.enumerated() {
            let ep = path / i
            guard ok(ep) else { continue }
            if ok(ep / "id") {
                if entry.id.trimmingSpaces.isEmpty {
                    error(ep / "id", "the id must not be empty")
                } else if !TextBox.isSafeID(entry.id) {
                    error(ep / "id", "the id \(quote(entry.id)) may use only letters A–Z a–z, digits, '-', '_' and '.' (not first), at most \(TextBox.maximumIDLength) characters")
                } else if let k = firstEntryForID[entry.id] {
                    error(ep / "id", "duplicate id \(quote(entry.id)) (first used by glossary[\(k)])")
                } else {
                    firstEntryForID[entry.id] = i
                }
            }
            if ok(ep / "language") { checkGlossaryLanguage(entry.language, at: ep / "language") }
            if ok(ep / "text") {
                if entry.text.trimmingSpaces.isEmpty {
                    error(ep / "text", "the word or phrase must not be empty")
                } else {
                    // The same word twice in one language is almost always a copy-paste slip;
                    // the reader would show only one of them.
                    let key = entry.language + "\u{0}" + entry.text.lowercased()
                    if let k = firstEntryForWord[key] {
                        warning(ep / "text", "\(quote(entry.text)) is also glossary[\(k)]; the reader shows only the first")
                    } else {
                        firstEntryForWord[key] = i
                    }
                }
            }
            if ok(ep / "translations") {
                if entry.translations.isEmpty {
                    warning(ep / "translations", "the entry has no translation; the reader has nothing to show for it")
                }
                for t in entry.translations {
                    let tp = ep / "translations" / t.language
                    guard ok(tp) else { continue }
                    checkGlossaryLanguage(t.language, at: tp)
                    if t.language == entry.language {
                        warning(tp, "a translation into the entry's own language \(quote(t.language))")
                    }
                    if t.text.trimmingSpaces.isEmpty { error(tp, "the translation is empty; remove it or fill it in") }
                }
            }
            if let region = entry.region, ok(ep / "region") { checkRegion(region, at: ep / "region") }
            for (k, tag) in entry.tags.enumerated() where ok(ep / "tags" / k) && tag.trimmingSpaces.isEmpty {
                error(ep / "tags" / k, "a tag must not be empty")
            }
        }
    }

    /// Glossary languages must be the book's own: the reader offers only those, so an entry in any
    /// other language could never be shown.
    mutating func checkGlossaryLanguage(_ tag: String, at path: JSONPath) {
        guard checkTag(tag, at: path), ok(JSONPath.root / "languages"), !bookLanguages.isEmpty else { return }
        let canonical = LanguageTag.canonical(tag) ?? tag
        if !bookLanguages.contains(canonical) {
            error(path, "language \(quote(tag)) is not one of the book's languages \(book.languages.map(quote).joined(separator: ", "))")
        }
    }

    mutating func checkRegion(_ region: GlossaryRegion, at path: JSONPath) {
        guard ok(path / "page"), ok(JSONPath.root / "pages") else { return }
        let n = book.pages.count
        guard region.page >= 1, region.page <= n else {
            error(path / "page", region.page < 1
                ? "page numbers start at 1, found \(region.page)"
                : "page \(region.page) does not exist (the book has \(plural(n, "page")))")
            return
        }
        let page = book.pages[region.page - 1]
        let sizeKnown = page.width > 0 && page.height > 0 && page.width <= Book.maximumPageSide && page.height <= Book.maximumPageSide
        checkRect(region.box, at: path / "box", page: page, pageSizeKnown: sizeKnown)
    }
}
