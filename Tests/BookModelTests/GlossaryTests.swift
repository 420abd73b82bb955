import BookModel
import Geometry
import Testing

@Suite struct GlossaryTests {
    /// The sample book with a two-entry glossary appended; tests break it with one replacement.
    static let withGlossary = sample(
        replacing: "\n  ]\n}",
        with: """

              ],
              "glossary": [
                {"id": "moon", "language": "en", "text": "moon", "translations": {"ar": "قمر"}, "source": "proposed"},
                {"id": "rabbit", "language": "en", "text": "rabbit", "translations": {"ar": "أرنب"}, "note": "a small animal",
                 "region": {"page": 2, "box": {"x": 5, "y": 6, "width": 100, "height": 80}}, "source": "editor", "tags": ["animals"]}
              ]
            }
            """)

    @Test func decodesEveryField() throws {
        let (book, warnings) = try Book.decode(Array(Self.withGlossary.utf8))
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(book.glossary.count == 2)
        let rabbit = book.glossary[1]
        #expect(rabbit.id == "rabbit")
        #expect(rabbit.language == "en")
        #expect(rabbit.text == "rabbit")
        #expect(rabbit.translations["ar"] == "أرنب")
        #expect(rabbit.note == "a small animal")
        #expect(rabbit.region == GlossaryRegion(page: 2, box: PixelRect(x: 5, y: 6, width: 100, height: 80)))
        #expect(rabbit.source == .editor)
        #expect(rabbit.tags == ["animals"])
        #expect(book.glossary[0].source == .proposed)
        #expect(!book.glossary[0].isEditorOwned)
        #expect(rabbit.isEditorOwned)
    }

    @Test func anEntryWithoutSourceBelongsToAnEditor() throws {
        let text = Self.withGlossary.replacingFirst(#", "source": "proposed""#, with: "")
        let (book, _) = try Book.decode(Array(text.utf8))
        #expect(book.glossary[0].source == nil)
        #expect(book.glossary[0].isEditorOwned)
    }

    @Test func roundTripsByteForByteWithUnknownFieldsKept() throws {
        let text = Self.withGlossary.replacingFirst(#""note": "a small animal","#, with: #""note": "a small animal", "x-audio": "rabbit.ogg","#)
        let first = try Book.decode(Array(text.utf8)).book
        #expect(first.glossary[1].extraFields["x-audio"] == .string("rabbit.ogg"))
        let saved = first.encoded()
        let (second, _) = try Book.decode(saved)
        #expect(second == first)
        #expect(second.encoded() == saved)
        let s = String(decoding: saved, as: UTF8.self)
        // Written after the pages, and the unknown field in its place.
        #expect(s.components(separatedBy: "\"glossary\"")[0].contains("\"pages\""))
        #expect(s.contains("\"x-audio\": \"rabbit.ogg\""))
    }

    @Test func aBookBuiltInCodeWritesItsGlossary() throws {
        var book = Book(title: "T", languages: ["en", "ar"], pages: [Page(image: "p.png", width: 10, height: 10)])
        book.glossary = [GlossaryEntry(id: "sea", language: "en", text: "sea", translations: ["ar": "البحر"], source: .proposed, tags: ["places"])]
        let (back, warnings) = try Book.decode(book.encoded())
        #expect(warnings.isEmpty)
        #expect(back.glossary == book.glossary)
        #expect(back.validate().isEmpty)
    }

    @Test func aBookWithoutGlossaryWritesNone() throws {
        let saved = try Book.decode(Array(sampleManifest.utf8)).book.encoded()
        #expect(!String(decoding: saved, as: UTF8.self).contains("glossary"))
    }

    static let cases: [ValidationTests.Case] = [
        .init(old: #""id": "rabbit""#, new: #""id": "moon""#, path: "glossary[1].id", fragment: #"duplicate id "moon" (first used by glossary[0])"#),
        .init(old: #""id": "rabbit""#, new: #""id": "rab bit""#, path: "glossary[1].id", fragment: "may use only letters"),
        .init(old: #""id": "rabbit", "#, new: "", path: "glossary[1].id", fragment: "required field is missing"),
        .init(old: #""translations": {"ar": "أرنب"}"#, new: #""translations": {"fr": "lapin"}"#, path: "glossary[1].translations.fr",
              fragment: #"language "fr" is not one of the book's languages"#),
        .init(old: #""language": "en", "text": "rabbit""#, new: #""language": "de", "text": "rabbit""#, path: "glossary[1].language",
              fragment: "not one of the book's languages"),
        .init(old: #""language": "en", "text": "rabbit""#, new: #""language": "klingon", "text": "rabbit""#, path: "glossary[1].language",
              fragment: "unknown language"),
        .init(old: #""translations": {"ar": "أرنب"}"#, new: #""translations": {}"#, path: "glossary[1].translations",
              fragment: "no translation", severity: .warning),
        .init(old: #""translations": {"ar": "أرنب"}"#, new: #""translations": {"ar": " "}"#, path: "glossary[1].translations.ar",
              fragment: "the translation is empty"),
        .init(old: #""translations": {"ar": "أرنب"}"#, new: #""translations": "أرنب""#, path: "glossary[1].translations",
              fragment: "expected a map from language to text"),
        .init(old: #""text": "rabbit""#, new: #""text": "Moon""#, path: "glossary[1].text", fragment: "is also glossary[0]", severity: .warning),
        .init(old: #""text": "rabbit""#, new: #""text": """#, path: "glossary[1].text", fragment: "must not be empty"),
        .init(old: #""page": 2"#, new: #""page": 9"#, path: "glossary[1].region.page", fragment: "page 9 does not exist (the book has 4 pages)"),
        .init(old: #""page": 2"#, new: #""page": 0"#, path: "glossary[1].region.page", fragment: "page numbers start at 1, found 0"),
        .init(old: #""width": 100, "height": 80"#, new: #""width": 500, "height": 80"#, path: "glossary[1].region.box",
              fragment: "rect 5,6 500×80 extends outside the 410×600 page"),
        .init(old: #""source": "editor""#, new: #""source": "robot""#, path: "glossary[1].source", fragment: #""proposed" or "editor""#),
        .init(old: #""tags": ["animals"]"#, new: #""tags": "animals""#, path: "glossary[1].tags", fragment: "an array of tags"),
        .init(old: #""tags": ["animals"]"#, new: #""tags": [""]"#, path: "glossary[1].tags[0]", fragment: "must not be empty"),
        .init(old: #""note": "a small animal""#, new: #""nite": "a small animal""#, path: "glossary[1].nite",
              fragment: #"did you mean "note""#, severity: .warning),
        .init(old: #""glossary": ["#, new: #""glossary": {}, "x": ["#, path: "glossary", fragment: "an array of glossary entries"),
    ]

    @Test(arguments: cases)
    func eachGlossaryProblemIsReportedAtItsPath(_ c: ValidationTests.Case) {
        let text = Self.withGlossary.replacingFirst(c.old, with: c.new)
        #expect(text != Self.withGlossary, "snippet not found: \(c.old)")
        let all = diagnostics(of: text)
        let hit = all.first { $0.path.description == c.path && $0.message.contains(c.fragment) }
        #expect(hit != nil, "got: \(all.map(\.description))")
        #expect(hit?.severity == c.severity)
        #expect(hit?.location != nil)
        if c.severity == .error {
            #expect(throws: BookError.self) { try Book.decode(Array(text.utf8)) }
        }
    }
}
