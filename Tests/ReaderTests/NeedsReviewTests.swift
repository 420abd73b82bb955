import Foundation
import HummingbirdTesting
import Testing
@testable import Reader

/// A page with a box `clear` left for review is served as the scan, with PopoutText.
@Suite struct NeedsReviewTests {
    @Test func aPageNeedingReviewHasNoClearText() async throws {
        let fm = FileManager.default
        let root = Scratch.path("review")
        defer { try? fm.removeItem(atPath: root) }
        try fm.createDirectory(atPath: root + "/books", withIntermediateDirectories: true)
        try fm.copyItem(atPath: Fixture.repositoryRoot + "/Books/good-morning-farm", toPath: root + "/books/farm")
        // Mark the first box of page 2 as `clear` does.
        let manifest = root + "/books/farm/book.json"
        var text = try String(contentsOfFile: manifest, encoding: .utf8)
        let marker = "\"id\": \"p002-b1\""
        #expect(text.contains(marker))
        text = text.replacingOccurrences(of: marker, with: marker + ", \"needsReview\": true")
        try text.write(toFile: manifest, atomically: true, encoding: .utf8)

        let server = try ReaderServer(configuration: ReaderConfiguration(booksDirectory: root + "/books", cacheDirectory: root + "/cache", workers: 1))
        let r = try await get(server, "/api/books/farm")
        #expect(r.status == .ok)
        let pages = try #require(try json(r)["pages"] as? [[String: Any]])
        #expect(pages[1]["cleared"] is NSNull, "page 2 must be read as its scan")
        #expect(((pages[1]["textBoxes"] as? [Any])?.count ?? 0) > 0, "PopoutText stays")
        #expect(pages[2]["cleared"] as? String == "/api/books/farm/pages/3/cleared")
    }
}
