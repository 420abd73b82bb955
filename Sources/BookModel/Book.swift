// The book manifest (`book.json`) as Swift values. Documentation/BookFormat.md is the reference
// for the file; this file mirrors it. Every type keeps the JSON fields it does not know in
// `extraFields`, and remembers the order its fields had in the file, so that a book loaded and
// saved by this version of Picturebook loses nothing a newer version or a librarian put there.

public import Geometry

/// A picture book: metadata, the page scans in reading order, and the text found on them.
public struct Book: Hashable, Sendable {
    /// The `format` value this version writes.
    public static let format = "picturebook-book/1"
    /// The major format version this version reads; newer majors are refused, not guessed at.
    public static let formatVersion = 1
    /// Page sides above this are refused as nonsense rather than processed.
    public static let maximumPageSide = 100_000

    public var title: LocalizedText
    public var subtitle: LocalizedText?
    public var author: LocalizedText?
    public var illustrator: LocalizedText?
    public var translator: LocalizedText?
    public var publisher: LocalizedText?
    /// Year of publication of the scanned edition.
    public var year: Int?
    /// Where the scans came from (a URL, a library call number, "scanned by …").
    public var source: String?
    /// The licence the scans may be used under, ideally an SPDX identifier such as "CC-BY-4.0".
    public var license: String?
    /// Languages the book is offered in, as BCP 47 tags; the first is the book's main language.
    public var languages: [String]
    public var readingDirection: ReadingDirection
    public var pages: [Page]
    /// Facing pages that share one illustration.
    public var spreads: [Spread]
    /// Words and phrases with their translations, for language learners (see Glossary.swift).
    public var glossary: [GlossaryEntry] = []
    /// Top-level fields this version does not know, in file order.
    public var extraFields: JSONObject
    var layout = FieldLayout()

    public init(
        title: LocalizedText, languages: [String], readingDirection: ReadingDirection = .leftToRight,
        pages: [Page] = [], spreads: [Spread] = [], subtitle: LocalizedText? = nil, author: LocalizedText? = nil,
        illustrator: LocalizedText? = nil, translator: LocalizedText? = nil, publisher: LocalizedText? = nil,
        year: Int? = nil, source: String? = nil, license: String? = nil, extraFields: JSONObject = [:]
    ) {
        self.title = title
        self.languages = languages
        self.readingDirection = readingDirection
        self.pages = pages
        self.spreads = spreads
        self.subtitle = subtitle
        self.author = author
        self.illustrator = illustrator
        self.translator = translator
        self.publisher = publisher
        self.year = year
        self.source = source
        self.license = license
        self.extraFields = extraFields
    }

    /// The spread that contains page `number` (1-based), if any.
    public func spread(containing number: Int) -> Spread? {
        spreads.first { $0.first == number || $0.second == number }
    }
}

/// The direction pages turn: "ltr" books open on the left (English, Mongolian), "rtl" books on
/// the right (Arabic, Hebrew, traditional Chinese and Japanese).
public enum ReadingDirection: String, Hashable, Sendable, CaseIterable {
    case leftToRight = "ltr"
    case rightToLeft = "rtl"
}

/// Two facing pages that share one illustration, by 1-based page number in reading order. In a
/// right-to-left book `first` is the right-hand page.
public struct Spread: Hashable, Sendable, CustomStringConvertible {
    public var first: Int
    public var second: Int

    public init(_ first: Int, _ second: Int) {
        self.first = first
        self.second = second
    }

    public var description: String { "[\(first), \(second)]" }
}

/// One scanned page.
public struct Page: Hashable, Sendable {
    /// Path of the scan relative to the book folder, with '/' separators.
    public var image: String
    /// Size of the scan in pixels; every rect on the page is in these pixels.
    public var width: Int
    public var height: Int
    /// The page number as printed ("iv", "12"); nil when the page carries none.
    public var label: String?
    public var role: PageRole?
    /// Never paired with a facing page (covers, a plate on its own).
    public var single: Bool
    public var textBoxes: [TextBox]
    public var extraFields: JSONObject
    var layout = FieldLayout()

    public init(
        image: String, width: Int, height: Int, label: String? = nil, role: PageRole? = nil, single: Bool = false,
        textBoxes: [TextBox] = [], extraFields: JSONObject = [:]
    ) {
        self.image = image
        self.width = width
        self.height = height
        self.label = label
        self.role = role
        self.single = single
        self.textBoxes = textBoxes
        self.extraFields = extraFields
    }

    /// The whole page as a pixel rect.
    public var bounds: PixelRect { PixelRect(width: width, height: height) }

    /// Whether `clear` left any box of the page as scanned for a person to look at.
    public var hasBoxForReview: Bool { textBoxes.contains(where: \.needsReview) }

    /// Whether the page is read as its scan in ClearText: `clear` left a box of it as scanned
    /// that takes ClearText away (see `TextBox.keptPrintTakesClearTextAway`). Its cleared
    /// picture still shows that box's printed text, so every view of the page as ClearText (the
    /// reader, `render`, the EPUB) uses the scan instead, with the text drawn on a plate over each
    /// box, until the box is reviewed. A page whose only kept box is its page number is read as
    /// ClearText, with the number as printed.
    public var readsAsScanInClearText: Bool { textBoxes.contains { $0.needsReview && $0.keptPrintTakesClearTextAway } }

    /// Text boxes in reading order: by `order` where given (boxes without one keep their place
    /// after the ordered ones), otherwise as listed.
    public var textBoxesInReadingOrder: [TextBox] {
        textBoxes.enumerated().sorted { a, b in
            switch (a.element.order, b.element.order) {
            case let (x?, y?) where x != y: return x < y
            case (.some, nil): return true
            case (nil, .some): return false
            default: return a.offset < b.offset
            }
        }.map(\.element)
    }
}

/// What a page is. An open vocabulary: values this version does not know are kept and warned
/// about, so a newer Picturebook can add roles without breaking older ones.
public struct PageRole: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let cover = PageRole(rawValue: "cover")
    public static let backCover = PageRole(rawValue: "backCover")
    public static let endpaper = PageRole(rawValue: "endpaper")
    public static let titlePage = PageRole(rawValue: "titlePage")
    public static let frontMatter = PageRole(rawValue: "frontMatter")
    public static let page = PageRole(rawValue: "page")
    public static let plate = PageRole(rawValue: "plate")
    public static let blank = PageRole(rawValue: "blank")
    public static let backMatter = PageRole(rawValue: "backMatter")

    public static let known: [PageRole] = [.cover, .backCover, .endpaper, .titlePage, .frontMatter, .page, .plate, .blank, .backMatter]
    public var isKnown: Bool { PageRole.known.contains(self) }
    public var description: String { rawValue }
}

/// One block of printed text on a page.
public struct TextBox: Hashable, Sendable {
    /// Unique within its page; links translations, edits and the reader's state to this box.
    public var id: String

    /// Ids name files (popout crops, caches), so they keep to a portable, path-free charset.
    public static let maximumIDLength = 128
    public static func isSafeID(_ id: String) -> Bool {
        guard !id.isEmpty, id.utf8.count <= maximumIDLength, id.first != "." else { return false }
        return id.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x2D || c == 0x5F || c == 0x2E
        }
    }
    /// Where the printed text is, in pixels of the page scan.
    public var rect: PixelRect
    /// The text, per language (the printed language and any translations).
    public var text: LanguageMap
    /// Per language, who wrote the text (OCR or a person) and how sure OCR was; a language
    /// without a record was written by a person. See TextSource.swift.
    public var textSources = TextOriginMap()
    public var role: TextRole?
    /// The language of the printed text.
    public var language: String?
    /// Reading order within the page; lower first.
    public var order: Int?
    public var orientation: TextOrientation?
    public var polarity: TextPolarity?
    public var inkColor: RGBColor?
    public var backgroundColor: RGBColor?
    /// How sure the detector was, 0…1; absent for boxes a librarian drew.
    public var confidence: Double?
    /// Set by `clear` when it could not show that removing this box's ink leaves the picture
    /// whole (the box lies in a drawing): its pixels were left as scanned, and the reader shows the
    /// page as the scan with PopoutText until a person has looked.
    public var needsReview = false
    /// Why `clear` left the box as scanned, when it did (absent in books cleared before reasons
    /// were recorded, and for boxes not flagged).
    public var reviewReason: ReviewReason?

    /// Whether this box, left as scanned, takes its page's ClearText away: any box but a page
    /// number. A kept page number keeps its printed digits, and no view draws it again natively
    /// (it would show twice); the rest of the page is read as ClearText.
    public var keptPrintTakesClearTextAway: Bool { role != .pageNumber }
    /// Who made the box. Absent means a person did: analysis replaces only `.detected` boxes.
    public var source: BoxSource?
    public var extraFields: JSONObject
    var layout = FieldLayout()
    var rectExtraFields = JSONObject()
    var rectLayout = FieldLayout()

    public init(
        id: String, rect: PixelRect, text: LanguageMap = [:], role: TextRole? = nil, language: String? = nil,
        order: Int? = nil, orientation: TextOrientation? = nil, polarity: TextPolarity? = nil, inkColor: RGBColor? = nil,
        backgroundColor: RGBColor? = nil, confidence: Double? = nil, source: BoxSource? = nil, extraFields: JSONObject = [:]
    ) {
        self.id = id
        self.rect = rect
        self.text = text
        self.role = role
        self.language = language
        self.order = order
        self.orientation = orientation
        self.polarity = polarity
        self.inkColor = inkColor
        self.backgroundColor = backgroundColor
        self.confidence = confidence
        self.source = source
        self.extraFields = extraFields
    }

    /// True unless the box came from automatic detection: such boxes are ground truth, and
    /// re-running analysis must leave them (and their text) alone.
    public var isLibrarianOwned: Bool { source != .detected }
}

/// What a block of text is, for layout and reading. Open vocabulary, like `PageRole`.
public struct TextRole: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The story text.
    public static let body = TextRole(rawValue: "body")
    public static let title = TextRole(rawValue: "title")
    public static let pageNumber = TextRole(rawValue: "pageNumber")
    /// A caption under or beside an illustration.
    public static let caption = TextRole(rawValue: "caption")
    /// Words in a speech or thought bubble.
    public static let speech = TextRole(rawValue: "speech")
    /// Sound effects and lettering drawn into the art ("CRASH!").
    public static let sound = TextRole(rawValue: "sound")
    /// Text that is part of the scene: signs, labels, a letter a character holds.
    public static let sign = TextRole(rawValue: "sign")
    /// Author, illustrator and publisher lines.
    public static let credit = TextRole(rawValue: "credit")
    public static let other = TextRole(rawValue: "other")

    public static let known: [TextRole] = [.body, .title, .pageNumber, .caption, .speech, .sound, .sign, .credit, .other]
    public var isKnown: Bool { TextRole.known.contains(self) }
    public var description: String { rawValue }
}

public enum TextOrientation: String, Hashable, Sendable, CaseIterable {
    case horizontal
    /// Lines run top to bottom (Mongolian, vertical CJK).
    case vertical
}

public enum TextPolarity: String, Hashable, Sendable, CaseIterable {
    case darkOnLight
    case lightOnDark
}

public enum BoxSource: String, Hashable, Sendable, CaseIterable {
    case detected
    case librarian
}

/// An sRGB colour, written "#rrggbb".
public struct RGBColor: Hashable, Sendable, CustomStringConvertible {
    public var red: UInt8
    public var green: UInt8
    public var blue: UInt8

    public init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// Parses "#rrggbb" (either letter case); nil for anything else.
    public init?(hex: String) {
        let u = Array(hex.utf8)
        guard u.count == 7, u[0] == UInt8(ascii: "#") else { return nil }
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 0x30...0x39: return c - 0x30
            case 0x41...0x46: return c - 0x41 + 10
            case 0x61...0x66: return c - 0x61 + 10
            default: return nil
            }
        }
        var bytes: [UInt8] = []
        for k in stride(from: 1, to: 7, by: 2) {
            guard let hi = nibble(u[k]), let lo = nibble(u[k + 1]) else { return nil }
            bytes.append(hi << 4 | lo)
        }
        self.init(red: bytes[0], green: bytes[1], blue: bytes[2])
    }

    /// "#rrggbb", lower case.
    public var hex: String {
        let digits = Array("0123456789abcdef")
        var s = "#"
        for v in [red, green, blue] {
            s.append(digits[Int(v >> 4)])
            s.append(digits[Int(v & 15)])
        }
        return s
    }

    public var description: String { hex }
}

/// Text that is either one string for every language or a map from language tag to text.
public enum LocalizedText: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    case plain(String)
    case localized(LanguageMap)

    public init(stringLiteral value: String) { self = .plain(value) }

    /// The text for `language`, falling back to the first entry (or the plain string).
    public func text(for language: String) -> String? {
        switch self {
        case .plain(let s): return s
        case .localized(let m): return m[language] ?? m.entries.first?.text
        }
    }

    public var description: String {
        switch self {
        case .plain(let s): return s
        case .localized(let m): return m.entries.first?.text ?? ""
        }
    }
}

/// Text per language, in the order the languages were given.
public struct LanguageMap: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Entry: Hashable, Sendable {
        public var language: String
        public var text: String

        public init(language: String, text: String) {
            self.language = language
            self.text = text
        }
    }

    public private(set) var entries: [Entry] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, String)...) {
        for (k, v) in elements { self[k] = v }
    }

    public var isEmpty: Bool { entries.isEmpty }
    public var count: Int { entries.count }
    public var languages: [String] { entries.map(\.language) }

    /// Setting keeps an existing language's position; nil removes it.
    public subscript(language: String) -> String? {
        get { entries.first { $0.language == language }?.text }
        set {
            if let i = entries.firstIndex(where: { $0.language == language }) {
                if let newValue { entries[i].text = newValue } else { entries.remove(at: i) }
            } else if let newValue {
                entries.append(Entry(language: language, text: newValue))
            }
        }
    }

    public func makeIterator() -> IndexingIterator<[Entry]> { entries.makeIterator() }
}

/// How a JSON object was laid out in the file: the order of its keys and which optional fields
/// were written as `null`. Saving follows it so unchanged files come back byte for byte. It is
/// presentation, not content, so it never makes two values unequal.
struct FieldLayout: Hashable, Sendable {
    var order: [String] = []
    var nullKeys: Set<String> = []

    static func == (a: FieldLayout, b: FieldLayout) -> Bool { true }
    func hash(into hasher: inout Hasher) {}

    func had(_ key: String) -> Bool { order.contains(key) }

    /// The file had this key with a value (not `null`), so it is written even when it holds the
    /// default.
    func keeps(_ key: String) -> Bool { order.contains(key) && !nullKeys.contains(key) }
}
