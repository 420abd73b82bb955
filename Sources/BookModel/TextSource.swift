// Who wrote a box's text, per language. OCR fills text in, and must never overwrite what a
// librarian typed; the text itself stays a plain language map (so every reader of `text` is
// unchanged), and this parallel map records where each entry came from. An entry without a
// record is a person's — the safe default for every book written before OCR existed.

/// Where one language's text of a box came from.
public struct TextOrigin: Hashable, Sendable {
    public var source: TextSourceKind
    /// How sure the machine that wrote it was, 0…1; absent for a person's text.
    public var confidence: Double?
    /// Fields of the record this version does not know, kept for saving.
    public var extraFields: JSONObject
    var layout = FieldLayout()

    public init(source: TextSourceKind, confidence: Double? = nil, extraFields: JSONObject = [:]) {
        self.source = source
        self.confidence = confidence
        self.extraFields = extraFields
    }

    /// Text a machine may replace when it reads the box again.
    public var isMachineWritten: Bool { source == .ocr }
}

/// Who wrote a text entry. Open vocabulary, like `TextRole`: unknown values are kept, with a
/// warning, and treated as a person's (never overwritten).
public struct TextSourceKind: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// Read from the scan by `picturebook ocr`.
    public static let ocr = TextSourceKind(rawValue: "ocr")
    /// Typed or corrected by a person.
    public static let librarian = TextSourceKind(rawValue: "librarian")

    public static let known: [TextSourceKind] = [.ocr, .librarian]
    public var isKnown: Bool { TextSourceKind.known.contains(self) }
    public var description: String { rawValue }
}

/// Per language, where a box's text came from, in file order.
public struct TextOriginMap: Hashable, Sendable, Sequence {
    public struct Entry: Hashable, Sendable {
        public var language: String
        public var origin: TextOrigin
    }

    public private(set) var entries: [Entry] = []
    public init() {}

    public var isEmpty: Bool { entries.isEmpty }

    /// Setting keeps an existing language's position; nil removes it.
    public subscript(language: String) -> TextOrigin? {
        get { entries.first { $0.language == language }?.origin }
        set {
            if let i = entries.firstIndex(where: { $0.language == language }) {
                if let newValue { entries[i].origin = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                entries.append(Entry(language: language, origin: newValue))
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[Entry]> { entries.makeIterator() }
}

extension TextBox {
    /// True when the box's `language` text may be (re)written by OCR: there is none yet, or the
    /// text there was itself written by OCR. A person's text — any entry without an "ocr"
    /// record — is never replaced.
    public func textIsReplaceableByOCR(_ language: String) -> Bool {
        guard let existing = text[language], !existing.isEmpty else { return true }
        return textSources[language]?.isMachineWritten == true
    }
}

// MARK: JSON

extension TextOriginMap {
    var json: JSONValue {
        var o = JSONObject()
        for e in entries {
            var known: [(String, JSONValue)] = [("source", .string(e.origin.source.rawValue))]
            if let c = e.origin.confidence, c.isFinite { known.append(("confidence", .number(JSONNumber(c)))) }
            o[e.language] = .object(assemble(known, extras: e.origin.extraFields, layout: e.origin.layout))
        }
        return .object(o)
    }
}

extension ManifestDecoder {
    static let originKeys = ["source", "confidence"]

    mutating func textOrigins(_ v: JSONValue, at path: JSONPath) -> TextOriginMap {
        var map = TextOriginMap()
        guard let o = v.objectValue else {
            expected("a map from language to {\"source\": …, \"confidence\": …}", v, at: path)
            return map
        }
        for member in o {
            let p = path / member.key
            guard let record = member.value.objectValue else {
                expected("an object like {\"source\": \"ocr\", \"confidence\": 0.9}", member.value, at: p)
                continue
            }
            var origin = TextOrigin(source: .librarian)
            (origin.extraFields, origin.layout) = extras(record, known: Self.originKeys, at: p)
            if let s = required(record, "source", at: p), let kind = string(s, at: p / "source") {
                origin.source = TextSourceKind(rawValue: kind)
            }
            if let c = optional(record, "confidence") { origin.confidence = number(c, at: p / "confidence") }
            map[member.key] = origin
        }
        return map
    }
}
