import Foundation
import HummingbirdTesting
import Testing
@testable import Reader

/// The reader draws ClearText on a page only when the cleared image it is sent left none of the
/// page's boxes as scanned: `clear`'s verdicts for the book's own images, the image's own for one
/// this server made (a book never run through `clear`, or a page edited since).
@Suite struct ClearanceTests {
    /// A library of the farm sample book and a one-page book whose only box the fill's checks
    /// leave as scanned (Tests/PreparationTests/Fixtures/kept-box-fence.png: vertical Japanese
    /// over a fence, 128 × 626).
    static func library() throws -> String {
        let fm = FileManager.default
        let root = Scratch.path("clearance")
        try fm.createDirectory(atPath: root + "/books/fence", withIntermediateDirectories: true)
        try fm.copyItem(atPath: Fixture.repositoryRoot + "/Books/good-morning-farm", toPath: root + "/books/farm")
        try fm.copyItem(atPath: Fixture.repositoryRoot + "/Tests/PreparationTests/Fixtures/kept-box-fence.png", toPath: root + "/books/fence/fence.png")
        let book = """
        {"format": "picturebook-book/1", "title": {"en": "Fence"}, "languages": ["en"], "readingDirection": "ltr",
         "pages": [{"image": "fence.png", "width": 128, "height": 626, "textBoxes": [
           {"id": "b1", "role": "body", "rect": {"x": 40, "y": 40, "width": 46, "height": 546}, "text": {"en": "A fence."}, "language": "en", "order": 1}]},
           {"image": "fence.png", "width": 128, "height": 626, "textBoxes": []},
           {"image": "fence.png", "width": 128, "height": 626, "textBoxes": [
             {"id": "n1", "role": "pageNumber", "rect": {"x": 40, "y": 40, "width": 46, "height": 546}, "text": {"en": "3"}, "language": "en", "order": 1}]},
           {"image": "fence.png", "width": 128, "height": 626, "textBoxes": [
             {"id": "n2", "role": "pageNumber", "rect": {"x": 40, "y": 40, "width": 46, "height": 546}, "text": {"en": "4"}, "language": "en", "order": 1,
              "needsReview": true, "reviewReason": "inDrawing"}]}]}
        """
        try book.write(toFile: root + "/books/fence/book.json", atomically: true, encoding: .utf8)
        return root
    }

    static func server(_ root: String) throws -> ReaderServer {
        try ReaderServer(configuration: ReaderConfiguration(booksDirectory: root + "/books", cacheDirectory: root + "/cache", workers: 1))
    }

    @Test func aBoxTheServersFillLeftAsScannedIsNamed() async throws {
        let root = try Self.library()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try Self.server(root)
        let pages = try #require(try json(try await get(server, "/api/books/fence"))["pages"] as? [[String: Any]])
        #expect(pages[0]["clearance"] as? String == "/api/books/fence/pages/1/clearance")
        for _ in 0..<2 {  // made, then read back from the cached image
            let r = try await get(server, "/api/books/fence/pages/1/clearance")
            #expect(r.status == .ok)
            let c = try json(r)
            #expect(c["cleared"] as? Bool == false)
            #expect(c["judgedBy"] as? String == "server")
            let kept = try #require(c["kept"] as? [[String: Any]])
            #expect(kept.map { $0["id"] as? String } == ["b1"])
            let reason = try #require(kept.first?["reason"] as? String)
            #expect(["inDrawing", "joinedToDrawing", "textLeft", "edgesMade", "runsOn"].contains(reason))
            #expect((kept.first?["why"] as? String)?.isEmpty == false)
        }
        let image = try await get(server, "/api/books/fence/pages/1/cleared")
        #expect(image.status == .ok)
        #expect(image.headers[.contentType] == "image/png")
    }

    @Test func aPageClearedWholeSaysSoAndTheBooksOwnImageIsJudgedByClear() async throws {
        let root = try Self.library()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try Self.server(root)
        let made = try json(try await get(server, "/api/books/farm/pages/2/clearance"))
        #expect(made["cleared"] as? Bool == true)
        #expect(made["judgedBy"] as? String == "server")
        #expect((made["kept"] as? [Any])?.isEmpty == true)
        // The book's own cleared image from `clear`, newer than the scan: book.json's verdicts.
        let fm = FileManager.default
        try fm.createDirectory(atPath: root + "/books/farm/clear", withIntermediateDirectories: true)
        try fm.copyItem(atPath: root + "/books/fence/fence.png", toPath: root + "/books/farm/clear/page-003.png")
        let own = try json(try await get(try Self.server(root), "/api/books/farm/pages/3/clearance"))
        #expect(own["judgedBy"] as? String == "clear")
        #expect(own["cleared"] as? Bool == true)
    }

    @Test func aBoxClearFlaggedIsKeptWhoeverMadeTheImage() async throws {
        let root = try Self.library()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let manifest = root + "/books/farm/book.json"
        let marker = "\"id\": \"p002-b1\""
        let text = try String(contentsOfFile: manifest, encoding: .utf8)
        try text.replacingOccurrences(of: marker, with: marker + ", \"needsReview\": true, \"reviewReason\": \"runsOn\"")
            .write(toFile: manifest, atomically: true, encoding: .utf8)
        let server = try Self.server(root)
        let pages = try #require(try json(try await get(server, "/api/books/farm"))["pages"] as? [[String: Any]])
        #expect(pages[1]["clearance"] is NSNull, "the page is read as its scan without asking")
        let c = try json(try await get(server, "/api/books/farm/pages/2/clearance"))
        #expect(c["cleared"] as? Bool == false)
        let kept = try #require(c["kept"] as? [[String: Any]])
        #expect(kept.map { $0["id"] as? String } == ["p002-b1"])
        #expect(kept.first?["reason"] as? String == "runsOn")
    }

    /// A page number left as scanned keeps its printed number: the page is still read as
    /// ClearText (the reader does not draw that number again), whether the server's fill or
    /// `clear` left it.
    @Test func aPageNumberLeftAsScannedDoesNotTakeTheClearTextAway() async throws {
        let root = try Self.library()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try Self.server(root)
        let pages = try #require(try json(try await get(server, "/api/books/fence"))["pages"] as? [[String: Any]])
        for n in [3, 4] {
            #expect(pages[n - 1]["cleared"] as? String == "/api/books/fence/pages/\(n)/cleared")
            let c = try json(try await get(server, "/api/books/fence/pages/\(n)/clearance"))
            #expect(c["cleared"] as? Bool == true)
            let kept = try #require(c["kept"] as? [[String: Any]])
            #expect(kept.map { $0["role"] as? String } == ["pageNumber"])
        }
    }

    @Test func aPageWithoutBoxesAndAMissingPageAnswerPlainly() async throws {
        let root = try Self.library()
        defer { try? FileManager.default.removeItem(atPath: root) }
        let server = try Self.server(root)
        #expect(try await get(server, "/api/books/fence/pages/5/clearance").status == .notFound)
        #expect(try await get(server, "/api/books/nobook/pages/1/clearance").status == .notFound)
        let pages = try #require(try json(try await get(server, "/api/books/fence"))["pages"] as? [[String: Any]])
        #expect(pages[1]["clearance"] is NSNull && pages[1]["cleared"] is NSNull, "nothing to clear")
        let c = try json(try await get(server, "/api/books/fence/pages/2/clearance"))
        #expect(c["cleared"] as? Bool == false)
        #expect((c["kept"] as? [Any])?.isEmpty == true)
    }
}
