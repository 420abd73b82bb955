import BookModel
import Testing

@Suite struct ValidationTests {
    @Test func theSampleIsValidWithoutWarnings() throws {
        let (book, warnings) = try Book.decode(Array(sampleManifest.utf8))
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(book.pages.count == 4)
        #expect(book.spreads == [Spread(2, 3)])
        #expect(book.pages[0].single)
        #expect(book.pages[0].textBoxes[0].text["ar"] == "أرنب القمر")
        #expect(book.validate().isEmpty)
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var old: String
        var new: String
        var path: String
        var fragment: String
        var severity: Diagnostic.Severity = .error
        /// A second replacement, for problems that need two edits.
        var also: [String] = []
        var testDescription: String { "\(path): \(fragment)" }
    }

    static let cases: [Case] = [
        // Types and required fields
        Case(old: #""width": 400"#, new: #""width": "abc""#, path: "pages[0].width", fragment: #"expected a positive integer, found "abc""#),
        Case(old: #""width": 400"#, new: #""width": "400""#, path: "pages[0].width", fragment: "remove the quotes"),
        Case(old: #""width": 400"#, new: #""width": 0"#, path: "pages[0].width", fragment: "expected a positive integer, found 0"),
        Case(old: #""width": 400"#, new: #""width": -5"#, path: "pages[0].width", fragment: "found -5"),
        Case(old: #""width": 400"#, new: #""width": 400.5"#, path: "pages[0].width", fragment: "found 400.5"),
        Case(old: #""width": 400"#, new: #""width": 400000"#, path: "pages[0].width", fragment: "limit"),
        Case(old: #""width": 400"#, new: #""width": null"#, path: "pages[0].width", fragment: "required field is null"),
        Case(old: #""width": 420, "height": 600"#, new: #""width": 420"#, path: "pages[2].height", fragment: "required field is missing"),
        Case(old: #""width": 420, "height": 600"#, new: #""width": 420, "heigth": 600"#, path: "pages[2].heigth",
             fragment: #"did you mean "height""#, severity: .warning),
        Case(old: #""title": "Moon Rabbit","#, new: "", path: "title", fragment: "required field is missing"),
        Case(old: #""title": "Moon Rabbit""#, new: #""title": 42"#, path: "title", fragment: "expected a string or an object"),
        Case(old: #""title": "Moon Rabbit""#, new: #""title": " ""#, path: "title", fragment: "empty", severity: .warning),
        Case(old: #""title": "Moon Rabbit""#, new: #""title": {"en": "Moon", "ar": 7}"#, path: "title.ar", fragment: "expected text"),
        Case(old: #""title": "Moon Rabbit""#, new: #""title": "Moon Rabbit", "year": "1990""#, path: "year", fragment: "remove the quotes"),
        Case(old: #""title": "Moon Rabbit""#, new: #""title": "Moon Rabbit", "year": -3"#, path: "year", fragment: "expected a year"),
        Case(old: #""single": true"#, new: #""single": "yes""#, path: "pages[0].single", fragment: "expected true or false"),
        Case(old: #""image": "p4.jpg""#, new: #""image": "p4.jpg", "label": 4"#, path: "pages[3].label", fragment: #"write it in quotes: "4""#),
        Case(old: #"{"image": "p4.jpg", "width": 430, "height": 600}"#, new: #""p4.jpg""#, path: "pages[3]", fragment: "expected a page object"),
        Case(old: #""width": 430, "height": 600}"#, new: #""width": 430, "height": 600, "textBoxes": {}}"#,
             path: "pages[3].textBoxes", fragment: "expected an array of text boxes"),
        Case(old: #""text": {"en": "Moon Rabbit", "ar": "أرنب القمر"}"#, new: #""text": "Moon Rabbit""#,
             path: "pages[0].textBoxes[0].text", fragment: "found a string"),
        Case(old: #""ar": "أرنب القمر""#, new: #""ar": null"#, path: "pages[0].textBoxes[0].text.ar", fragment: "found null"),
        Case(old: #"{"x": 60, "y": 5, "width": 50, "height": 50}"#, new: "[60, 5, 50, 50]", path: "pages[1].textBoxes[1].rect", fragment: "found an array"),
        Case(old: #"{"x": 60, "y": 5, "width": 50, "height": 50}"#, new: #"{"x": 60, "width": 50, "height": 50}"#,
             path: "pages[1].textBoxes[1].rect.y", fragment: "required field is missing"),
        Case(old: #""id": "b2""#, new: #""id": 2"#, path: "pages[1].textBoxes[1].id", fragment: #"write it in quotes: "2""#),
        Case(old: #""id": "b2""#, new: #""id": "b2", "needsReview": true, "reviewReason": "because""#,
             path: "pages[1].textBoxes[1].reviewReason", fragment: #"expected "inDrawing" or "joinedToDrawing""#),
        Case(old: #""id": "b2""#, new: #""id": "b2", "reviewReason": "runsOn""#,
             path: "pages[1].textBoxes[1].reviewReason", fragment: "without \"needsReview\": true", severity: .warning),
        Case(old: #""pages": ["#, new: #""pages": {}, "unused": ["#, path: "pages", fragment: "expected an array of pages"),

        // Format version
        Case(old: #""picturebook-book/1""#, new: #""picturebook-book/2""#, path: "format", fragment: "written by a newer Picturebook"),
        Case(old: #""picturebook-book/1""#, new: #""picturebook-book/0""#, path: "format", fragment: "unknown format version"),
        Case(old: #""picturebook-book/1""#, new: #""picturebook-book/1.1""#, path: "format", fragment: "unknown format version"),
        Case(old: #""picturebook-book/1""#, new: #""picturebook-book/10""#, path: "format", fragment: "newer Picturebook"),
        Case(old: #""picturebook-book/1""#, new: #""epub/3""#, path: "format", fragment: "not a Picturebook book format"),
        Case(old: #""format": "picturebook-book/1","#, new: "", path: "format", fragment: "required field is missing"),

        // Geometry
        Case(old: #""x": 10, "y": 20, "width": 300"#, new: #""x": 10, "y": 20, "width": 500"#,
             path: "pages[0].textBoxes[0].rect", fragment: "rect 10,20 500×40 extends outside the 400×600 page"),
        Case(old: #""x": 10, "y": 20"#, new: #""x": -1, "y": 20"#, path: "pages[0].textBoxes[0].rect", fragment: "extends outside"),
        Case(old: #""x": 60, "y": 5, "width": 50"#, new: #""x": 60, "y": 5, "width": 0"#,
             path: "pages[1].textBoxes[1].rect.width", fragment: "expected a positive integer, found 0"),

        // Ids, order, vocabularies, colours
        Case(old: #""id": "b2""#, new: #""id": "b1""#, path: "pages[1].textBoxes[1].id",
             fragment: #"duplicate id "b1" (first used by pages[1].textBoxes[0])"#),
        Case(old: #""id": "b2""#, new: #""id": """#, path: "pages[1].textBoxes[1].id", fragment: "must not be empty"),
        Case(old: #""id": "b2""#, new: #""id": "b2", "confidence": 1.5"#, path: "pages[1].textBoxes[1].confidence", fragment: "from 0 to 1"),
        Case(old: #""id": "b2""#, new: #""id": "b2", "confidence": "high""#, path: "pages[1].textBoxes[1].confidence", fragment: "expected a number"),
        Case(old: #""id": "b2""#, new: #""id": "b2", "inkColor": "red""#, path: "pages[1].textBoxes[1].inkColor", fragment: "like \"#1a2b3c\""),
        Case(old: #""id": "b2""#, new: ##""id": "b2", "backgroundColor": "#fff""##, path: "pages[1].textBoxes[1].backgroundColor", fragment: "six hex digits"),
        Case(old: #""id": "b2""#, new: #""id": "b2", "orientation": "diagonal""#, path: "pages[1].textBoxes[1].orientation",
             fragment: #"expected "horizontal" or "vertical""#),
        Case(old: #""id": "b2""#, new: #""id": "b2", "polarity": "DarkOnLight""#, path: "pages[1].textBoxes[1].polarity", fragment: "case-sensitive"),
        Case(old: #""id": "b2""#, new: #""id": "b2", "source": "robot""#, path: "pages[1].textBoxes[1].source", fragment: #""detected" or "librarian""#),
        Case(old: #""id": "b2""#, new: #""id": "b2", "order": -1"#, path: "pages[1].textBoxes[1].order", fragment: "non-negative"),
        Case(old: #""id": "b2""#, new: #""id": "b2", "order": 1.5"#, path: "pages[1].textBoxes[1].order", fragment: "expected an integer"),
        Case(old: #""id": "b1""#, new: #""id": "b1", "order": 1"#, path: "pages[1].textBoxes[1].order",
             fragment: "also used by pages[1].textBoxes[0]", severity: .warning, also: [#""id": "b2""#, #""id": "b2", "order": 1"#]),
        Case(old: #""id": "b2""#, new: #""id": "b2", "role": "banner""#, path: "pages[1].textBoxes[1].role", fragment: "unknown text role", severity: .warning),
        Case(old: #""single": true"#, new: #""single": true, "role": "poster""#, path: "pages[0].role", fragment: "unknown page role", severity: .warning),

        // Languages
        Case(old: #"["en", "ar"]"#, new: #"["en", "xx"]"#, path: "languages[1]", fragment: #""xx" is not an ISO 639 language code"#),
        Case(old: #"["en", "ar"]"#, new: #"["english", "ar"]"#, path: "languages[0]", fragment: #"did you mean "en""#),
        Case(old: #"["en", "ar"]"#, new: #"["en", "ar", "en"]"#, path: "languages[2]", fragment: "listed twice (first at languages[0])"),
        Case(old: #"["en", "ar"]"#, new: #"["en", "AR"]"#, path: "languages[1]", fragment: #"conventionally written "ar""#, severity: .warning),
        Case(old: #"["en", "ar"]"#, new: "[]", path: "languages", fragment: "at least one language"),
        Case(old: #"["en", "ar"]"#, new: #""en""#, path: "languages", fragment: "expected an array of language tags"),
        Case(old: #""ar": "أرنب القمر""#, new: #""english": "x""#, path: "pages[0].textBoxes[0].text.english", fragment: "unknown language"),
        Case(old: #""ar": "أرنب القمر""#, new: #""fr": "Lapin""#, path: "pages[0].textBoxes[0].text.fr",
             fragment: #"text language "fr" is not one of the book's languages"#, severity: .warning),
        Case(old: #""ar": "أرنب القمر""#, new: #""zh-Hant": "月兔""#, path: #"pages[0].textBoxes[0].text["zh-Hant"]"#,
             fragment: "not one of the book's languages", severity: .warning),
        Case(old: #""id": "b2""#, new: #""id": "b2", "language": "zz""#, path: "pages[1].textBoxes[1].language", fragment: "unknown language"),

        // Reading direction
        Case(old: #""readingDirection": "ltr""#, new: #""readingDirection": "down""#, path: "readingDirection", fragment: #"expected "ltr" or "rtl""#),
        Case(old: #""readingDirection": "ltr""#, new: #""readingDirection": "LTR""#, path: "readingDirection", fragment: "case-sensitive"),
        Case(old: #""readingDirection": "ltr","#, new: "", path: "readingDirection", fragment: "required field is missing"),

        // Spreads
        Case(old: "[[2, 3]]", new: "[[4, 5]]", path: "spreads[0][1]", fragment: "page 5 does not exist (the book has 4 pages)"),
        Case(old: "[[2, 3]]", new: "[[0, 1]]", path: "spreads[0][0]", fragment: "page numbers start at 1, found 0"),
        Case(old: "[[2, 3]]", new: "[[2, 4]]", path: "spreads[0]", fragment: "not facing pages"),
        Case(old: "[[2, 3]]", new: "[[3, 2]]", path: "spreads[0]", fragment: "reading order: [2, 3]"),
        Case(old: "[[2, 3]]", new: "[[1, 2]]", path: "spreads[0]", fragment: #"page 1 is marked "single""#),
        Case(old: "[[2, 3]]", new: "[[2, 3], [3, 4]]", path: "spreads[1]", fragment: "page 3 is already in spreads[0]"),
        Case(old: "[[2, 3]]", new: "[[2, 3, 4]]", path: "spreads[0]", fragment: "a pair of facing page numbers"),
        Case(old: "[[2, 3]]", new: #"[["2", 3]]"#, path: "spreads[0][0]", fragment: "remove the quotes"),
        Case(old: #""width": 420, "height": 600"#, new: #""width": 420, "height": 700"#, path: "spreads[0]",
             fragment: "differ in height", severity: .warning),

        // Images
        Case(old: #""p4.jpg""#, new: #""/etc/p4.jpg""#, path: "pages[3].image", fragment: "absolute path"),
        Case(old: #""p4.jpg""#, new: #""../p4.jpg""#, path: "pages[3].image", fragment: "leaves the book folder"),
        Case(old: #""p4.jpg""#, new: #""scans\\p4.jpg""#, path: "pages[3].image", fragment: "separate folders with '/'"),
        Case(old: #""p4.jpg""#, new: #""""#, path: "pages[3].image", fragment: "empty"),
        Case(old: #""p4.jpg""#, new: #""p4.gif""#, path: "pages[3].image", fragment: "PNG, JPEG, TIFF and JPEG 2000", severity: .warning),
        Case(old: #""p4.jpg""#, new: #""p3.jpg""#, path: "pages[3].image", fragment: "pages[2] uses the same image", severity: .warning),

        // Top level
        Case(old: #""languages": ["#, new: #""langauges": ["#, path: "langauges",
             fragment: #"unknown field, kept as is; did you mean "languages"?"#, severity: .warning),
        Case(old: #""languages": ["#, new: #""langauges": ["#, path: "languages", fragment: "required field is missing"),
    ]

    @Test(arguments: cases)
    func eachProblemIsReportedAtItsPath(_ c: Case) {
        var text = sample(replacing: c.old, with: c.new)
        if c.also.count == 2 { text = text.replacingFirst(c.also[0], with: c.also[1]) }
        let all = diagnostics(of: text)
        let hit = all.first { $0.path.description == c.path && $0.message.contains(c.fragment) }
        #expect(hit != nil, "got: \(all.map(\.description))")
        #expect(hit?.severity == c.severity)
        #expect(hit?.location != nil)
        if c.severity == .error {
            #expect(throws: BookError.self) { try Book.decode(Array(text.utf8)) }
        }
    }

    @Test func everyProblemIsReportedNotJustTheFirst() {
        var text = sample(replacing: #""width": 400"#, with: #""width": "abc""#)
        text = text.replacingFirst(#""id": "b2""#, with: #""id": "b1""#)
        text = text.replacingFirst("[[2, 3]]", with: "[[2, 9]]")
        text = text.replacingFirst(#"["en", "ar"]"#, with: #"["en", "xx"]"#)
        text = text.replacingFirst(#""readingDirection": "ltr""#, with: #""readingDirection": "up""#)
        let found = Set(diagnostics(of: text).filter(\.isError).map(\.path.description))
        #expect(found == ["pages[0].width", "pages[1].textBoxes[1].id", "spreads[0][1]", "languages[1]", "readingDirection"])
    }

    @Test func aBrokenPageSizeDoesNotCascade() {
        // With the page width unknown, the boxes on it are not also reported as outside it.
        let text = sample(replacing: #""width": 400"#, with: #""width": "wide""#)
        let errors = diagnostics(of: text).filter(\.isError)
        #expect(errors.map(\.path.description) == ["pages[0].width"])
    }

    @Test func aNewerFormatIsTheOnlyComplaint() {
        let text = #"{"format": "picturebook-book/3", "pages": 7, "readingDirection": "sideways"}"#
        let all = diagnostics(of: text)
        #expect(all.count == 1)
        #expect(all.first?.message.contains("newer Picturebook") == true)
        #expect(all.first?.message.contains("picturebook-book/3") == true)
    }

    @Test func aNonObjectDocumentIsOneError() {
        let all = diagnostics(of: "[1, 2]")
        #expect(all.count == 1)
        #expect(all.first?.path == .root)
        #expect(all.first?.message.contains("expected an object") == true)
    }

    @Test func diagnosticsAreInFileOrderWithLocations() {
        var text = sample(replacing: #""width": 430"#, with: #""width": "x""#)
        text = text.replacingFirst(#""readingDirection": "ltr""#, with: #""readingDirection": "up""#)
        let all = diagnostics(of: text)
        #expect(all.map(\.path.description) == ["readingDirection", "pages[3].width"])
        #expect(all[0].location == SourceLocation(line: 5, column: 23))
        #expect(all[1].formatted(file: "b/book.json").hasPrefix("b/book.json:16:34: error: pages[3].width: expected a positive integer"))
    }

    @Test func malformedJSONIsOneLocatedError() {
        let text = sample(replacing: #""height": 600, "single""#, with: #""height": 600 "single""#)
        do {
            _ = try Book.decode(Array(text.utf8), file: "moon/book.json")
            Issue.record("malformed JSON accepted")
        } catch {
            guard case .malformedJSON(let file, let e) = error else {
                Issue.record("wrong error \(error)")
                return
            }
            #expect(file == "moon/book.json")
            #expect(e.location == SourceLocation(line: 8, column: 52))
            #expect(error.description.hasPrefix("moon/book.json:8:52: missing ','"))
        }
    }

    @Test func validateChecksBooksBuiltInCode() {
        var book = Book(title: "T", languages: ["en"], pages: [Page(image: "a.png", width: 10, height: 10)])
        book.pages[0].textBoxes = [
            TextBox(id: "x", rect: PixelRect(x: 5, y: 5, width: 10, height: 1)),
            TextBox(id: "y", rect: PixelRect(x: Int.max, y: 0, width: Int.max, height: 1), confidence: .nan),
        ]
        book.spreads = [Spread(1, 1)]
        let paths = book.validate().map(\.path.description)
        #expect(paths.contains("pages[0].textBoxes[0].rect"))
        #expect(paths.contains("pages[0].textBoxes[1].rect"))
        #expect(paths.contains("pages[0].textBoxes[1].confidence"))
        #expect(paths.contains("spreads[0]"))
    }
}

extension String {
    func replacingFirst(_ old: String, with new: String) -> String {
        var parts = components(separatedBy: old)
        guard parts.count > 1 else { return self }
        let head = parts.removeFirst()
        return head + new + parts.joined(separator: old)
    }
}

import Geometry
