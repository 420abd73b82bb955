import Foundation
import Hummingbird
import HummingbirdTesting
import Reader
import Testing

/// A books folder built once for the whole suite: a good book copied from Books/, a book with a
/// bad book.json, one with a truncated scan, one whose page image is a symlink out of the folder,
/// and a symlinked book folder that points outside.
enum Fixture {
    static let root: String = {
        let fm = FileManager.default
        let root = Scratch.root + "/fixture"
        try? fm.removeItem(atPath: root)
        let books = root + "/books", outside = root + "/outside"
        try? fm.createDirectory(atPath: books, withIntermediateDirectories: true)
        try? fm.createDirectory(atPath: outside, withIntermediateDirectories: true)
        let source = repositoryRoot + "/Books/good-morning-farm"
        try? fm.copyItem(atPath: source, toPath: books + "/farm")
        try? fm.copyItem(atPath: source, toPath: outside + "/farm")
        // Broken manifest.
        try? fm.createDirectory(atPath: books + "/broken", withIntermediateDirectories: true)
        try? Data("{\"format\": \"picturebook-book/1\", \"title\": ".utf8).write(to: URL(fileURLWithPath: books + "/broken/book.json"))
        // A scan cut short: the header is intact (so the book loads), the pixels are not.
        try? fm.copyItem(atPath: source, toPath: books + "/truncated")
        if let d = fm.contents(atPath: source + "/page-002.jpg") {
            try? d.prefix(4000).write(to: URL(fileURLWithPath: books + "/truncated/page-002.jpg"))
        }
        // A page image that is a symlink to a file outside the books folder.
        try? fm.copyItem(atPath: source, toPath: books + "/leaky")
        try? fm.removeItem(atPath: books + "/leaky/page-001.jpg")
        try? fm.createSymbolicLink(atPath: books + "/leaky/page-001.jpg", withDestinationPath: outside + "/farm/page-001.jpg")
        // A book folder that is a symlink out of the books folder.
        try? fm.createSymbolicLink(atPath: books + "/escape", withDestinationPath: outside + "/farm")
        return root
    }()

    static var books: String { root + "/books" }

    static var repositoryRoot: String {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }

    static func server(cache: String? = nil) throws -> ReaderServer {
        let cacheDir = cache ?? (root + "/cache-\(UUID().uuidString)")
        return try ReaderServer(configuration: ReaderConfiguration(booksDirectory: books, cacheDirectory: cacheDir, workers: 2))
    }

    /// The server's shared cache, for the tests that only read.
    static let shared: ReaderServer = {
        do { return try server(cache: root + "/cache-shared") } catch { fatalError("test fixture: \(error)") }
    }()
}

func json(_ r: TestResponse) throws -> [String: Any] {
    let data = Data(Array(r.body.readableBytesView))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

func rect(_ any: Any?) throws -> (x: Double, y: Double, w: Double, h: Double) {
    let r = try #require(any as? [String: Any])
    return (try #require(r["x"] as? Double), try #require(r["y"] as? Double), try #require(r["width"] as? Double), try #require(r["height"] as? Double))
}

func get(_ server: ReaderServer, _ uri: String, headers: HTTPFields = [:]) async throws -> TestResponse {
    try await server.makeApplication().test(.router) { client in
        try await client.execute(uri: uri, method: .get, headers: headers)
    }
}

@Suite struct LibraryTests {
    @Test func listsGoodAndBrokenBooks() async throws {
        let r = try await get(Fixture.shared, "/api/books")
        #expect(r.status == .ok)
        #expect(r.headers[.contentType]?.hasPrefix("application/json") == true)
        #expect(r.headers[.eTag] != nil)
        #expect(r.headers[.cacheControl] != nil)
        let books = try #require(try json(r)["books"] as? [[String: Any]])
        let byID = Dictionary(uniqueKeysWithValues: books.map { ($0["id"] as? String ?? "", $0) })
        #expect(Set(byID.keys) == ["farm", "broken", "truncated", "leaky"], "the symlinked folder must not be listed")
        let farm = try #require(byID["farm"])
        #expect(farm["status"] as? String == "ok")
        #expect(farm["pageCount"] as? Int == 12)
        #expect(farm["displayTitle"] as? String == "Good Morning, Farm!")
        #expect((farm["languages"] as? [String])?.contains("en") == true)
        #expect(farm["cover"] as? String == "/api/books/farm/pages/1/thumb?size=2x")
        let broken = try #require(byID["broken"])
        #expect(broken["status"] as? String == "error")
        let problems = try #require(broken["problems"] as? [String])
        #expect(problems.first?.hasPrefix("book.json:") == true)
        let leaky = try #require(byID["leaky"])
        #expect(leaky["status"] as? String == "error")
        #expect((leaky["problems"] as? [String])?.joined().contains("outside the books folder") == true)
    }

    @Test func manifestShape() async throws {
        let r = try await get(Fixture.shared, "/api/books/farm")
        #expect(r.status == .ok)
        let m = try json(r)
        #expect(m["id"] as? String == "farm")
        #expect(m["defaultLanguage"] as? String == "en")
        #expect(m["readingDirection"] as? String == "ltr")
        let pages = try #require(m["pages"] as? [[String: Any]])
        #expect(pages.count == 12)
        let p2 = pages[1]
        #expect(p2["number"] as? Int == 2)
        #expect(p2["scan"] as? String == "/api/books/farm/pages/2/scan")
        #expect(p2["thumb2x"] as? String == "/api/books/farm/pages/2/thumb?size=2x")
        let boxes = try #require(p2["textBoxes"] as? [[String: Any]])
        #expect(!boxes.isEmpty)
        #expect(p2["cleared"] as? String == "/api/books/farm/pages/2/cleared")
        let box = boxes[0]
        #expect((box["textSize"] as? Double ?? 0) > 0)
        #expect((box["popout"] as? String)?.hasPrefix("/api/books/farm/pages/2/popout/") == true)
        _ = try rect(box["rect"])
        let screens = try #require(m["screens"] as? [String: Any])
        let portrait = try #require(screens["portrait"] as? [[String: Any]])
        let landscape = try #require(screens["landscape"] as? [[String: Any]])
        #expect(portrait.count == 12)
        #expect(landscape.count < 12)
        #expect(landscape.first?["kind"] as? String == "cover")
    }

    /// The glossary reaches the reader with the page each word first appears on, so the
    /// word-pairs list can jump there.
    @Test func manifestCarriesTheGlossaryWithPages() async throws {
        let m = try json(try await get(Fixture.shared, "/api/books/farm"))
        let glossary = try #require(m["glossary"] as? [[String: Any]])
        #expect(glossary.count >= 15)
        let pages = try #require(m["pages"] as? [[String: Any]])
        for e in glossary {
            let language = try #require(e["language"] as? String), word = try #require(e["text"] as? String)
            let translations = try #require(e["translations"] as? [String: String])
            #expect(!translations.isEmpty)
            let page = try #require(e["page"] as? Int, "\(word) has a page")
            let boxes = try #require(pages[page - 1]["textBoxes"] as? [[String: Any]])
            let texts = boxes.compactMap { $0["text"] as? [String: String] }
            let onPage = texts.contains { ($0[language] ?? "").lowercased().contains(word.lowercased()) }
                || texts.contains { t in translations.contains { (t[$0.key] ?? "").lowercased().contains($0.value.lowercased()) } }
            #expect(onPage, "\(word) is on page \(page)")
        }
    }

    @Test func brokenBookManifestIs422() async throws {
        let r = try await get(Fixture.shared, "/api/books/broken")
        #expect(r.status == .unprocessableContent)
        let message = try #require(try json(r)["error"] as? String)
        #expect(message.contains("book.json"))
    }

    @Test(arguments: [
        "/api/books/nope", "/api/books/farm/pages/0/scan", "/api/books/farm/pages/13/scan", "/api/books/farm/pages/x/thumb",
        "/api/books/farm/pages/2/popout/no-such-box", "/api/unknown", "/static/missing.js",
    ])
    func missingThingsAre404(uri: String) async throws {
        let r = try await get(Fixture.shared, uri)
        #expect(r.status == .notFound)
        #expect(r.headers[.contentType]?.hasPrefix("application/json") == true)
        #expect(try json(r)["error"] is String)
    }

    @Test(arguments: [
        "/api/books/farm/layout", "/api/books/farm/layout?width=abc&height=400", "/api/books/farm/layout?width=400&height=400&scale=0",
        "/api/books/farm/transition?kind=spin&page=1&width=400&height=800", "/api/books/farm/transition?page=99&width=400&height=800",
        "/api/books/farm/transition?page=1&width=400&height=800&frames=500", "/api/books/farm/pages/1/thumb?size=3x",
        "/api/books/farm/pages/1/scan?w=-5", "/api/books/farm/pages/1/popout/p001-b1?scale=100",
    ])
    func badParametersAre400(uri: String) async throws {
        let r = try await get(Fixture.shared, uri)
        #expect(r.status == .badRequest)
        #expect(try json(r)["error"] is String)
    }
}

@Suite struct SafetyTests {
    @Test(arguments: [
        "/api/books/..%2f..%2fetc/pages/1/scan",
        "/api/books/%2e%2e/pages/1/scan",
        "/api/books/%2e%2e%2f%2e%2e%2fetc%2fpasswd",
        "/api/books/../books/farm/pages/1/scan",
        "/api/books/%2Fetc%2Fpasswd",
        "/api/books//etc/pages/1/scan",
        "/api/books/%2Ftmp/pages/1/scan",
        "/api/books/escape",
        "/api/books/escape/pages/1/scan",
        "/api/books/leaky/pages/1/scan",
        "/api/books/broken/pages/1/scan",
        "/static/..%2f..%2fPackage.swift",
        "/static/%2e%2e/%2e%2e/etc/passwd",
        "/static//etc/passwd",
    ])
    func escapesAre404(uri: String) async throws {
        let r = try await get(Fixture.shared, uri)
        #expect(r.status == .notFound, "\(uri) → \(r.status)")
        #expect(r.headers[.contentType]?.hasPrefix("application/json") == true)
    }

    @Test func truncatedScanIs500WithMessage() async throws {
        let lib = try await get(Fixture.shared, "/api/books/truncated")
        #expect(lib.status == .ok, "the header is intact, so the book itself loads")
        let r = try await get(Fixture.shared, "/api/books/truncated/pages/2/thumb?size=1x")
        #expect(r.status == .internalServerError)
        let message = try #require(try json(r)["error"] as? String)
        #expect(message.contains("page-002.jpg"))
        #expect(!message.contains(Fixture.root), "500s never reveal where the server keeps its books: \(message)")
        // The rest of the book is served.
        let ok = try await get(Fixture.shared, "/api/books/truncated/pages/3/thumb?size=1x")
        #expect(ok.status == .ok)
    }
}

@Suite struct AssetTests {
    @Test(arguments: [
        ("/api/books/farm/pages/1/scan", "image/jpeg"),
        ("/api/books/farm/pages/1/scan?w=300", "image/jpeg"),
        ("/api/books/farm/pages/2/thumb?size=1x", "image/jpeg"),
        ("/api/books/farm/pages/2/thumb?size=2x", "image/jpeg"),
        ("/api/books/farm/pages/1/popout/p001-b1", "image/png"),
        ("/", "text/html; charset=utf-8"),
    ])
    func assetsHaveTypeETagAndCaching(uri: String, type: String) async throws {
        let r = try await get(Fixture.shared, uri)
        #expect(r.status == .ok)
        #expect(r.headers[.contentType] == type)
        let etag = try #require(r.headers[.eTag])
        #expect(r.headers[.cacheControl] != nil)
        #expect(r.body.readableBytes > 100)
        var h = HTTPFields()
        h[.ifNoneMatch] = etag
        let again = try await get(Fixture.shared, uri, headers: h)
        #expect(again.status == .notModified)
        #expect(again.headers[.eTag] == etag)
        #expect(again.body.readableBytes == 0)
    }

    @Test func scanWidthFollowsTheLadder() async throws {
        let r = try await get(Fixture.shared, "/api/books/farm/pages/1/scan?w=300")
        let bytes = Array(r.body.readableBytesView)
        #expect(jpegSize(bytes)?.width == 320)
        let big = try await get(Fixture.shared, "/api/books/farm/pages/1/scan?w=5000")
        #expect(jpegSize(Array(big.body.readableBytesView))?.width == 1400, "never larger than the scan")
        let thumb = try await get(Fixture.shared, "/api/books/farm/pages/1/thumb?size=1x")
        let t = try #require(jpegSize(Array(thumb.body.readableBytesView)))
        #expect(t.width <= 160 && t.height <= 200 && max(t.width, t.height) >= 150)
    }

    @Test func clearedPageIsPreparedOnceAndReused() async throws {
        let cache = Fixture.root + "/cache-reuse"
        let server = try Fixture.server(cache: cache)
        let app = server.makeApplication()
        try await app.test(.router) { client in
            // Two at once: one preparation.
            async let a = client.execute(uri: "/api/books/farm/pages/2/cleared", method: .get)
            async let b = client.execute(uri: "/api/books/farm/pages/2/cleared", method: .get)
            let (ra, rb) = try await (a, b)
            #expect(ra.status == .ok && rb.status == .ok)
            #expect(ra.headers[.contentType] == "image/png")
            #expect(ra.headers[.eTag] == rb.headers[.eTag])
            let made = await server.preparedCount()
            #expect(made == 1)
            let c = try await client.execute(uri: "/api/books/farm/pages/2/cleared", method: .get)
            #expect(c.status == .ok)
            #expect(await server.preparedCount() == made, "the second request reuses the cached file")
            let small = try await client.execute(uri: "/api/books/farm/pages/2/cleared?w=640", method: .get)
            #expect(small.status == .ok)
            #expect(small.headers[.contentType] == "image/jpeg")
            #expect(jpegSize(Array(small.body.readableBytesView))?.width == 640)
        }
        // A new server over the same cache (a restart) prepares nothing.
        let restarted = try Fixture.server(cache: cache)
        let r = try await get(restarted, "/api/books/farm/pages/2/cleared")
        #expect(r.status == .ok)
        #expect(await restarted.preparedCount() == 0)
        // A page without text boxes has nothing to clear.
        let manifest = try json(try await get(Fixture.shared, "/api/books/farm"))
        let pages = try #require(manifest["pages"] as? [[String: Any]])
        if let bare = pages.first(where: { ($0["textBoxes"] as? [Any])?.isEmpty == true }), let n = bare["number"] as? Int {
            #expect(bare["cleared"] is NSNull)
            #expect(try await get(Fixture.shared, "/api/books/farm/pages/\(n)/cleared").status == .notFound)
        }
    }

    @Test func warmUpMakesEveryThumbnail() async throws {
        let server = try Fixture.server()
        await server.warmUp()
        // farm and truncated: 12 pages × 2 sizes each, less the truncated page's two that fail.
        #expect(await server.preparedCount() == 2 * 12 * 2 - 2)
        let before = await server.preparedCount()
        let r = try await get(server, "/api/books/farm/pages/5/thumb?size=2x")
        #expect(r.status == .ok)
        #expect(await server.preparedCount() == before)
    }
}

@Suite struct LayoutTests {
    @Test(arguments: [(393, 852), (852, 393), (1024, 768), (390, 844)])
    func framesAndPopoutsInsideTheViewport(width: Int, height: Int) async throws {
        let r = try await get(Fixture.shared, "/api/books/farm/layout?width=\(width)&height=\(height)&scale=3&textSize=18")
        #expect(r.status == .ok)
        let doc = try json(r)
        let vp = try #require(doc["viewport"] as? [String: Any])
        #expect(vp["orientation"] as? String == (width > height ? "landscape" : "portrait"))
        let screens = try #require(doc["screens"] as? [[String: Any]])
        #expect(screens.count == (width > height ? 7 : 12))
        let W = Double(width), H = Double(height), eps = 0.01
        var sawPopout = false
        for s in screens {
            let frames = try #require(s["frames"] as? [[String: Any]])
            #expect(frames.count == (s["pages"] as? [Int])?.count)
            for f in frames {
                let q = try rect(f["rect"])
                #expect(q.x >= -eps && q.y >= -eps && q.x + q.w <= W + eps && q.y + q.h <= H + eps)
            }
            for b in try #require(s["boxes"] as? [[String: Any]]) {
                let p = try #require(b["popout"] as? [String: Any])
                let f = try rect(p["frame"])
                #expect(f.x >= -eps && f.y >= -eps && f.x + f.w <= W + eps && f.y + f.h <= H + eps)
                let size = try #require(p["textSize"] as? Double)
                let extent = try #require(p["scrollExtent"] as? [String: Any])
                let fits = (extent["width"] as? Double ?? 1) == 0 && (extent["height"] as? Double ?? 1) == 0
                // A block that fits without scrolling reaches the readable size (the engine may
                // trade a little size to save panning along lines).
                if fits { #expect(size >= 18 * 0.8 - eps) }
                #expect((p["magnification"] as? Double ?? 0) >= 1.25 - eps)
                sawPopout = true
            }
            if let hint = s["hint"] as? [String: Any] {
                #expect(hint["text"] as? String == "Tap to enlarge text")
                let l = try rect(hint["label"])
                #expect(l.x >= -eps && l.x + l.w <= W + eps)
            }
        }
        #expect(sawPopout)
        let grid = try #require(doc["grid"] as? [String: Any])
        #expect((grid["cells"] as? [Any])?.count == 12)
        #expect((grid["contentHeight"] as? Double ?? 0) > 0)
    }

    @Test func zoomEndsOnThePageFrame() async throws {
        let r = try await get(Fixture.shared, "/api/books/farm/transition?kind=zoom&page=4&width=852&height=393&frames=5")
        #expect(r.status == .ok)
        let doc = try json(r)
        let frames = try #require(doc["frames"] as? [[String: Any]])
        #expect(frames.count == 5)
        let layout = try json(try await get(Fixture.shared, "/api/books/farm/layout?width=852&height=393"))
        let screens = try #require(layout["screens"] as? [[String: Any]])
        let screen = try #require(screens.first { ($0["pages"] as? [Int])?.contains(4) == true })
        let target = try rect((screen["frames"] as? [[String: Any]])?.first { $0["page"] as? Int == 4 }?["rect"])
        let last = try #require(frames.last?["placements"] as? [[String: Any]])
        let end = try rect(last.last { $0["page"] as? Int == 4 }?["rect"])
        #expect(abs(end.x - target.x) < 0.01 && abs(end.w - target.w) < 0.01)
        let rotate = try await get(Fixture.shared, "/api/books/farm/transition?kind=rotate&page=4&width=852&height=393&frames=3")
        #expect(rotate.status == .ok)
        #expect((try json(rotate)["frames"] as? [Any])?.count == 3)
    }
}

/// Width and height from a JPEG's SOF marker.
func jpegSize(_ b: [UInt8]) -> (width: Int, height: Int)? {
    var i = 2
    while i + 9 < b.count {
        guard b[i] == 0xFF else { return nil }
        let marker = b[i + 1]
        let length = Int(b[i + 2]) << 8 | Int(b[i + 3])
        if (0xC0...0xCF).contains(marker) && ![0xC4, 0xC8, 0xCC].contains(marker) {
            return (Int(b[i + 7]) << 8 | Int(b[i + 8]), Int(b[i + 5]) << 8 | Int(b[i + 6]))
        }
        i += 2 + length
    }
    return nil
}

@Suite struct HeadTests {
    @Test(arguments: [
        "/api/books", "/api/books/farm", "/api/books/farm/layout?width=393&height=852",
        "/api/books/farm/pages/1/scan", "/api/books/farm/pages/2/thumb?size=2x",
        "/api/books/farm/pages/1/popout/p001-b1", "/", "/static/reader.js",
    ])
    func headHasGetsHeadersAndNoBody(uri: String) async throws {
        try await Fixture.shared.makeApplication().test(.router) { client in
            let g = try await client.execute(uri: uri, method: .get)
            let h = try await client.execute(uri: uri, method: .head)
            #expect(g.status == .ok && h.status == .ok, "\(uri): GET \(g.status), HEAD \(h.status)")
            #expect(h.body.readableBytes == 0)
            #expect(h.headers[.contentType] == g.headers[.contentType])
            #expect(h.headers[.eTag] == g.headers[.eTag])
            #expect(h.headers[.cacheControl] == g.headers[.cacheControl])
            #expect(h.headers[.contentLength] == g.headers[.contentLength])
            #expect(h.headers[.contentLength] == String(g.body.readableBytes))
        }
    }

    @Test func headOfAMissingBookIs404WithoutBody() async throws {
        try await Fixture.shared.makeApplication().test(.router) { client in
            let h = try await client.execute(uri: "/api/books/nope/pages/1/scan", method: .head)
            #expect(h.status == .notFound)
            #expect(h.body.readableBytes == 0)
            #expect(h.headers[.contentType]?.hasPrefix("application/json") == true)
        }
    }
}

@Suite struct CacheTests {
    /// A books folder of its own holding one copy of the sample book with page 2 cut short.
    static func truncatedBooks() throws -> String {
        let fm = FileManager.default
        let root = Fixture.root + "/negative-\(UUID().uuidString)"
        let source = Fixture.repositoryRoot + "/Books/good-morning-farm"
        try fm.createDirectory(atPath: root + "/books", withIntermediateDirectories: true)
        try fm.copyItem(atPath: source, toPath: root + "/books/farm")
        let d = try #require(fm.contents(atPath: source + "/page-002.jpg"))
        try d.prefix(4000).write(to: URL(fileURLWithPath: root + "/books/farm/page-002.jpg"))
        return root
    }

    @Test func aFailedPreparationIsRememberedUntilTheScanChanges() async throws {
        let root = try Self.truncatedBooks()
        let server = try ReaderServer(configuration: ReaderConfiguration(booksDirectory: root + "/books", cacheDirectory: root + "/cache", workers: 2))
        try await server.makeApplication().test(.router) { client in
            let first = try await client.execute(uri: "/api/books/farm/pages/2/thumb?size=1x", method: .get)
            #expect(first.status == .internalServerError)
            #expect(await server.failedCount() == 1)
            let again = try await client.execute(uri: "/api/books/farm/pages/2/thumb?size=1x", method: .get)
            #expect(again.status == .internalServerError)
            #expect(Array(again.body.readableBytesView) == Array(first.body.readableBytesView), "the same message")
            #expect(await server.failedCount() == 1, "not decoded a second time")
            // The scan is replaced by a good one (a new size and time): it is tried again and works.
            let good = try #require(FileManager.default.contents(atPath: Fixture.repositoryRoot + "/Books/good-morning-farm/page-002.jpg"))
            try good.write(to: URL(fileURLWithPath: root + "/books/farm/page-002.jpg"))
            let fixed = try await client.execute(uri: "/api/books/farm/pages/2/thumb?size=1x", method: .get)
            #expect(fixed.status == .ok)
            #expect(await server.failedCount() == 1)
        }
    }

    @Test func pruneRemovesGoneBooksAndUnusedFilesOnly() async throws {
        let root = Fixture.root + "/prune-\(UUID().uuidString)"
        let cache = root + "/cache"
        let server = try Fixture.server(cache: cache)
        #expect(try await get(server, "/api/books/farm/pages/1/thumb?size=1x").status == .ok)
        #expect(try await get(server, "/api/books/farm/pages/2/thumb?size=1x").status == .ok)
        let fm = FileManager.default
        let farmFolder = try #require(try fm.contentsOfDirectory(atPath: cache).first { $0.hasPrefix("farm-") })
        let files = try fm.contentsOfDirectory(atPath: cache + "/" + farmFolder).sorted()
        #expect(files.count == 2)
        // One of the two was last used 40 days ago.
        let old = cache + "/" + farmFolder + "/" + files[0]
        try fm.setAttributes([.modificationDate: Date().addingTimeInterval(-40 * 86_400)], ofItemAtPath: old)
        // A book that is no longer in the library, and things the reader did not write.
        try fm.createDirectory(atPath: cache + "/gone-0123abcd", withIntermediateDirectories: true)
        try Data(repeating: 1, count: 10).write(to: URL(fileURLWithPath: cache + "/gone-0123abcd/0123456789abcdef.jpg"))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: cache + "/gone-0123abcd/notes.txt"))
        try Data("mine".utf8).write(to: URL(fileURLWithPath: cache + "/notes.txt"))

        let report = await server.pruneCache(unusedForDays: 30)
        #expect(report.files == 2)
        #expect(!fm.fileExists(atPath: old))
        #expect(fm.fileExists(atPath: cache + "/" + farmFolder + "/" + files[1]))
        #expect(!fm.fileExists(atPath: cache + "/gone-0123abcd/0123456789abcdef.jpg"))
        #expect(fm.fileExists(atPath: cache + "/gone-0123abcd/notes.txt"))
        #expect(fm.fileExists(atPath: cache + "/notes.txt"))
        // Pruned files are simply made again.
        #expect(try await get(server, "/api/books/farm/pages/1/thumb?size=1x").status == .ok)
        #expect(try await get(server, "/api/books/farm/pages/2/thumb?size=1x").status == .ok)
    }
}
