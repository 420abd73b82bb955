import BookModel
import Testing

/// `textSources`: who wrote each language's text of a box, and how sure OCR was.
@Suite struct TextSourceTests {
    static let withSources = sample(
        replacing: #""text": {"en": "Moon Rabbit", "ar": "أرنب القمر"}}"#,
        with: #""text": {"en": "Moon Rabbit", "ar": "أرنب القمر"}, "textSources": {"en": {"source": "ocr", "confidence": 0.87, "x-engine": "tesseract 5"}, "ar": {"source": "librarian"}}}"#)

    @Test func decodesAndRoundTripsKeepingUnknownFields() throws {
        let (book, warnings) = try Book.decode(Array(Self.withSources.utf8))
        #expect(warnings.isEmpty, "\(warnings)")
        let box = book.pages[0].textBoxes[0]
        #expect(box.textSources["en"]?.source == .ocr)
        #expect(box.textSources["en"]?.confidence == 0.87)
        #expect(box.textSources["ar"]?.source == .librarian)
        #expect(box.textSources["ar"]?.confidence == nil)
        let saved = book.encoded()
        let again = try Book.decode(saved).book
        #expect(again == book)
        #expect(again.encoded() == saved)
        let text = String(decoding: saved, as: UTF8.self)
        #expect(text.contains(#""x-engine": "tesseract 5""#))
        // Written right after the text it describes.
        let t = try #require(text[...].range(of: #""text": {"#)), s = try #require(text[...].range(of: #""textSources": {"#))
        #expect(t.lowerBound < s.lowerBound)
    }

    @Test func onlyOCRTextIsReplaceableByOCR() throws {
        var box = try Book.decode(Array(Self.withSources.utf8)).book.pages[0].textBoxes[0]
        #expect(box.textIsReplaceableByOCR("en"))
        #expect(!box.textIsReplaceableByOCR("ar"))
        // No record at all: a person's text, as in every book written before OCR.
        box.textSources["en"] = nil
        #expect(!box.textIsReplaceableByOCR("en"))
        // An unknown writer is treated as a person.
        box.textSources["en"] = TextOrigin(source: TextSourceKind(rawValue: "robot"))
        #expect(!box.textIsReplaceableByOCR("en"))
        // No text yet, or empty text: OCR may fill it.
        #expect(box.textIsReplaceableByOCR("fr"))
        box.text["fr"] = ""
        #expect(box.textIsReplaceableByOCR("fr"))
    }

    @Test func booksWithoutTheFieldSaveUnchanged() throws {
        let book = try Book.decode(Array(sampleManifest.utf8)).book
        #expect(!String(decoding: book.encoded(), as: UTF8.self).contains("textSources"))
    }

    @Test func badRecordsAreReportedWithTheirPath() {
        let outOfRange = diagnostics(of: Self.withSources.swapping("0.87", "1.5"))
        #expect(outOfRange.contains { $0.severity == .error && "\($0.path)".hasSuffix("textSources.en.confidence") })

        let noSource = diagnostics(of: Self.withSources.swapping(#"{"source": "librarian"}"#, "{}"))
        #expect(noSource.contains { $0.severity == .error && "\($0.path)".hasSuffix("textSources.ar.source") && $0.message.contains("missing") })

        let notObject = diagnostics(of: Self.withSources.swapping(#"{"source": "librarian"}"#, #""ocr""#))
        #expect(notObject.contains { $0.severity == .error && "\($0.path)".hasSuffix("textSources.ar") })

        let unknown = diagnostics(of: Self.withSources.swapping(#""source": "librarian""#, #""source": "robot""#))
        #expect(unknown.contains { $0.severity == .warning && $0.message.contains("unknown text source") })
        #expect(!unknown.contains { $0.severity == .error })

        let orphan = diagnostics(of: Self.withSources.swapping(#""ar": {"source": "librarian"}"#, #""fr": {"source": "ocr"}"#))
        #expect(orphan.contains { $0.severity == .warning && "\($0.path)".hasSuffix("textSources.fr") && $0.message.contains("no text") })
    }
}

private extension String {
    func swapping(_ old: String, _ new: String) -> String { components(separatedBy: old).joined(separator: new) }
}
