import BookModel
import Foundation
import Testing

/// Every reason `clear` can give for leaving a box as scanned is explained to the librarian in
/// the editor, in the words `clear --report` uses.
@Suite struct ReviewReasonTextTests {
    @Test(arguments: ReviewReason.allCases)
    func theEditorExplainsEveryReason(reason: ReviewReason) throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Sources/Reader/Web/editor-page.js")
        let text = try String(contentsOf: script, encoding: .utf8)
        let entry = try #require(text.range(of: "    \(reason.rawValue): ["), "editor-page.js has no entry for \(reason.rawValue)")
        // Quoted either way in the script; a quote of its own kind inside is escaped.
        let rest = text[entry.upperBound...]
        let quote = try #require(rest.first)
        let written = quote == "'" ? reason.description.replacingOccurrences(of: "'", with: "\\'") : reason.description
        #expect(rest.dropFirst().hasPrefix(written + String(quote)), "\(rest.prefix(160))")
    }
}
