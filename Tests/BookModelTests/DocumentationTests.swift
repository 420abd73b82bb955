import BookModel
import FileIO
import Testing

/// The example in Documentation/BookFormat.md must stay a valid book in Picturebook's own layout.
@Suite struct DocumentationTests {
    @Test func theFormatReferenceExampleIsValidAndCanonical() throws {
        let docPath = String(#filePath.split(separator: "/", omittingEmptySubsequences: false).dropLast(3).joined(separator: "/"))
            + "/Documentation/BookFormat.md"
        let doc = String(decoding: try FileIO.read(docPath), as: UTF8.self)
        let start = try #require(doc.components(separatedBy: "```json\n").dropFirst().first)
        let example = try #require(start.components(separatedBy: "```").first)
        let (book, warnings) = try Book.decode(Array(example.utf8))
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(book.spreads == [Spread(2, 3)])
        #expect(String(decoding: book.encoded(), as: UTF8.self) == example)
    }
}
