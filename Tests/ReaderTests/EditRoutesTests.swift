import Accounts
import Editor
import FileIO
import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Testing
@testable import Reader

/// A fresh library per test (the farm book), with an editor "ann" and an admin "root".
struct EditFixture {
    let books: String
    let server: ReaderServer
    static let annPassword = "ann's long password"
    static let rootPassword = "root's long password"

    init(secureCookies: Bool = false, firstSignInDelay: Double = 1) throws {
        let root = Scratch.path("edit")
        books = root + "/books"
        try FileManager.default.createDirectory(atPath: books, withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Fixture.repositoryRoot + "/Books/good-morning-farm", toPath: books + "/farm")
        let store = UserStore(path: UserStore.defaultPath(library: books))
        try store.add(name: "ann", role: .editor, password: Self.annPassword)
        try store.add(name: "root", role: .admin, password: Self.rootPassword)
        var config = ReaderConfiguration(booksDirectory: books, cacheDirectory: root + "/cache", workers: 2)
        config.edit = EditConfiguration(usersFile: store.path, secureCookies: secureCookies)
        config.edit?.accountSignIns.firstDelay = firstSignInDelay
        server = try ReaderServer(configuration: config)
    }
}

/// One signed-in browser: its cookie and CSRF token.
struct Browser {
    var cookie: String?
    var csrf: String?
}

extension TestClientProtocol {
    func call(
        _ uri: String, _ method: HTTPRequest.Method, as b: Browser = Browser(), csrf: Bool = true, ifMatch: String? = nil,
        json body: Any? = nil, headers extra: HTTPFields = [:]
    ) async throws -> TestResponse {
        var h = extra
        if let c = b.cookie { h[.cookie] = c }
        if csrf, let t = b.csrf { h[HTTPField.Name("X-CSRF-Token")!] = t }
        if let ifMatch { h[.ifMatch] = "\"\(ifMatch)\"" }
        var buffer: ByteBuffer?
        if let body {
            if h[.contentType] == nil { h[.contentType] = "application/json" }
            buffer = ByteBuffer(bytes: Array(try JSONSerialization.data(withJSONObject: body)))
        }
        return try await execute(uri: uri, method: method, headers: h, body: buffer)
    }

    func signIn(_ name: String, _ password: String, headers: HTTPFields = [:]) async throws -> (TestResponse, Browser) {
        let r = try await call("/api/session", .post, json: ["name": name, "password": password], headers: headers)
        var b = Browser()
        if let set = r.headers[.setCookie], let pair = set.split(separator: ";").first { b.cookie = String(pair) }
        if r.status == .ok { b.csrf = try json(r)["csrf"] as? String }
        return (r, b)
    }

    /// Ann signed in, and the farm book as the editor serves it: its revision and its JSON.
    func openFarmAsAnn() async throws -> (Browser, String, [String: Any]) {
        let (_, ann) = try await signIn("ann", EditFixture.annPassword)
        let doc = try json(try await call("/api/edit/books/farm", .get, as: ann))
        return (ann, try #require(doc["revision"] as? String), try #require(doc["book"] as? [String: Any]))
    }
}

/// The farm's page 2 (it has text boxes) as JSON, with the first box's English text replaced.
func editedPage(_ book: [String: Any], _ n: Int, text: String) throws -> [String: Any] {
    let pages = try #require(book["pages"] as? [[String: Any]])
    var page = pages[n - 1]
    var boxes = try #require(page["textBoxes"] as? [[String: Any]])
    var t = boxes[0]["text"] as? [String: Any] ?? [:]
    t["en"] = text
    boxes[0]["text"] = t
    page["textBoxes"] = boxes
    return page
}

@Suite struct EditRoutesTests {
    @Test func withoutEditTheRoutesDoNotExist() async throws {
        try await Fixture.shared.makeApplication().test(.router) { client in
            for (uri, method) in [("/api/session", HTTPRequest.Method.get), ("/api/session", .post), ("/api/edit/books/farm", .get),
                                  ("/api/edit/books/farm/pages/2", .put)]
            {
                let r = try await client.call(uri, method, json: method == .get ? nil : ["x": 1])
                #expect(r.status == .notFound, "\(method) \(uri)")
            }
        }
    }

    @Test func signInSessionAndSignOut() async throws {
        let f = try EditFixture()
        try await f.server.makeApplication().test(.router) { client in
            #expect(try await client.call("/api/session", .get).status == .unauthorized)
            // A form post (no JSON type) is refused before anything else.
            let form = try await client.call("/api/session", .post, json: ["name": "ann", "password": EditFixture.annPassword],
                                             headers: [.contentType: "application/x-www-form-urlencoded"])
            #expect(form.status == .unsupportedMediaType)
            let (wrong, _) = try await client.signIn("ann", "not the password")
            let (nobody, _) = try await client.signIn("nobody", "not the password")
            #expect(wrong.status == .unauthorized && nobody.status == .unauthorized)
            #expect(try json(wrong)["error"] as? String == json(nobody)["error"] as? String)
            #expect(wrong.headers[.setCookie] == nil)

            let (ok, b) = try await client.signIn("ann", EditFixture.annPassword)
            #expect(ok.status == .ok)
            let cookie = try #require(ok.headers[.setCookie])
            #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/"))
            #expect(!cookie.contains("Secure"))
            #expect(try json(ok)["role"] as? String == "editor")
            let me = try await client.call("/api/session", .get, as: b)
            #expect(me.status == .ok)
            #expect(try json(me)["csrf"] as? String == b.csrf)

            // Through an HTTPS proxy the cookie is Secure.
            let (proxied, _) = try await client.signIn("ann", EditFixture.annPassword, headers: [HTTPField.Name("X-Forwarded-Proto")!: "https"])
            #expect(proxied.headers[.setCookie]?.contains("; Secure") == true)

            #expect(try await client.call("/api/session", .delete, as: b, csrf: false).status == .forbidden)
            let out = try await client.call("/api/session", .delete, as: b)
            #expect(out.status == .noContent)
            #expect(out.headers[.setCookie]?.contains("Max-Age=0") == true)
            // The token is revoked on the server, not just forgotten by the browser.
            #expect(try await client.call("/api/session", .get, as: b).status == .unauthorized)
        }
    }

    @Test func writesNeedSessionCSRFIfMatchAndRole() async throws {
        let f = try EditFixture()
        try await f.server.makeApplication().test(.router) { client in
            let (_, ann) = try await client.signIn("ann", EditFixture.annPassword)
            #expect(try await client.call("/api/edit/books/farm", .get).status == .unauthorized)
            let got = try await client.call("/api/edit/books/farm", .get, as: ann)
            #expect(got.status == .ok)
            let doc = try json(got)
            let r0 = try #require(doc["revision"] as? String)
            #expect(got.headers[.eTag] == "\"\(r0)\"")
            let book = try #require(doc["book"] as? [String: Any])
            let mine = try editedPage(book, 2, text: "Mine")
            let uri = "/api/edit/books/farm/pages/2"

            #expect(try await client.call(uri, .put, ifMatch: r0, json: mine).status == .unauthorized)
            #expect(try await client.call(uri, .put, as: ann, csrf: false, ifMatch: r0, json: mine).status == .forbidden)
            var forged = ann
            forged.csrf = "not-the-token"
            #expect(try await client.call(uri, .put, as: forged, ifMatch: r0, json: mine).status == .forbidden)
            #expect(try await client.call(uri, .put, as: ann, json: mine).status == .preconditionRequired)

            let saved = try await client.call(uri, .put, as: ann, ifMatch: r0, json: mine)
            #expect(saved.status == .ok)
            let r1 = try #require(try json(saved)["revision"] as? String)
            #expect(r1 != r0 && saved.headers[.eTag] == "\"\(r1)\"")

            // Someone else, still on r0, saves the same page: 409 with all three versions.
            let theirs = try editedPage(book, 2, text: "Theirs")
            let conflict = try await client.call(uri, .put, as: ann, ifMatch: r0, json: theirs)
            #expect(conflict.status == .conflict)
            let c = try json(conflict)
            #expect(c["currentRevision"] as? String == r1)
            #expect(((c["current"] as? [String: Any])?["textBoxes"] as? [[String: Any]])?.first.flatMap { ($0["text"] as? [String: Any])?["en"] as? String } == "Mine")
            #expect(((c["yours"] as? [String: Any])?["textBoxes"] as? [[String: Any]])?.first.flatMap { ($0["text"] as? [String: Any])?["en"] as? String } == "Theirs")
            #expect(c["base"] is [String: Any])
            // A different page on r0 is no conflict.
            let other = try editedPage(book, 3, text: "Elsewhere")
            #expect(try await client.call("/api/edit/books/farm/pages/3", .put, as: ann, ifMatch: r0, json: other).status == .ok)

            // An invalid page: 400 with the validator's problems.
            var bad = mine
            bad["width"] = 5
            let refused = try await client.call(uri, .put, as: ann, ifMatch: r1, json: bad)
            #expect(refused.status == .badRequest)

            // Restore is for admins.
            let latest = try #require(try json(try await client.call("/api/edit/books/farm", .get, as: ann))["revision"] as? String)
            #expect(try await client.call("/api/edit/books/farm/restore", .post, as: ann, ifMatch: latest, json: ["revision": r0]).status == .forbidden)
            let (_, root) = try await client.signIn("root", EditFixture.rootPassword)
            #expect(try await client.call("/api/edit/books/farm/restore", .post, as: root, json: ["revision": r0]).status == .preconditionRequired)
            let restored = try await client.call("/api/edit/books/farm/restore", .post, as: root, ifMatch: latest, json: ["revision": r0])
            #expect(restored.status == .ok)
            let after = try json(try await client.call("/api/edit/books/farm", .get, as: ann))
            let pages = try #require((after["book"] as? [String: Any])?["pages"] as? [[String: Any]])
            let original = try #require(book["pages"] as? [[String: Any]])
            #expect(NSDictionary(dictionary: pages[1]).isEqual(to: original[1]))

            let history = try json(try await client.call("/api/edit/books/farm/history", .get, as: ann))
            let entries = try #require(history["entries"] as? [[String: Any]])
            #expect(entries.map { $0["kind"] as? String } == ["page", "page", "restore"])
            #expect(entries.first?["user"] as? String == "ann")
        }
    }

    @Test func undoTakesBackThePagesLastChange() async throws {
        let f = try EditFixture()
        try await f.server.makeApplication().test(.router) { client in
            let (ann, r0, book) = try await client.openFarmAsAnn()
            let uri = "/api/edit/books/farm/pages/2"
            #expect(try await client.call(uri + "/undo", .post, as: ann, ifMatch: r0).status == .notFound)
            let saved = try json(try await client.call(uri, .put, as: ann, ifMatch: r0, json: try editedPage(book, 2, text: "Oops")))
            let r1 = try #require(saved["revision"] as? String)
            let undone = try await client.call(uri + "/undo", .post, as: ann, ifMatch: r1)
            #expect(undone.status == .ok)
            let page = try #require(try json(undone)["page"] as? [String: Any])
            let original = try #require((book["pages"] as? [[String: Any]])?[1])
            #expect(NSDictionary(dictionary: page).isEqual(to: original))
        }
    }

    /// The history dialog reads an earlier revision to put a page back: signed in only, a
    /// revision the history names, the book exactly as it was then.
    @Test func earlierRevisionsCanBeRead() async throws {
        let f = try EditFixture()
        try await f.server.makeApplication().test(.router) { client in
            let (ann, r0, book) = try await client.openFarmAsAnn()
            let saved = try json(try await client.call("/api/edit/books/farm/pages/2", .put, as: ann, ifMatch: r0, json: try editedPage(book, 2, text: "Later")))
            let r1 = try #require(saved["revision"] as? String)
            #expect(try await client.call("/api/edit/books/farm/revisions/\(r0)", .get).status == .unauthorized)
            #expect(try await client.call("/api/edit/books/farm/revisions/9-0000000000000000", .get, as: ann).status == .notFound)
            let history = try #require(try json(try await client.call("/api/edit/books/farm/history", .get, as: ann))["entries"] as? [[String: Any]])
            #expect(history.first?["base"] as? String == r0)
            let then = try json(try await client.call("/api/edit/books/farm/revisions/\(r0)", .get, as: ann))
            #expect(NSDictionary(dictionary: try #require(then["book"] as? [String: Any])).isEqual(to: book))
            let now = try json(try await client.call("/api/edit/books/farm/revisions/\(r1)", .get, as: ann))
            let pages = try #require((now["book"] as? [String: Any])?["pages"] as? [[String: Any]])
            let boxes = try #require(pages[1]["textBoxes"] as? [[String: Any]])
            #expect((boxes[0]["text"] as? [String: Any])?["en"] as? String == "Later")
        }
    }

    @Test func bruteForceIsSlowedWith429() async throws {
        // A block long enough that no stall of a loaded machine (or a sanitizer's slowness: under
        // ThreadSanitizer the 1 s default ran out between two requests) can end it mid-test.
        let f = try EditFixture(firstSignInDelay: 600)
        try await f.server.makeApplication().test(.router) { client in
            var statuses: [HTTPResponse.Status] = []
            var retryAfter: String?
            for _ in 0..<12 {
                let (r, _) = try await client.signIn("ann", "guess \(statuses.count)")
                statuses.append(r.status)
                if r.status == .tooManyRequests {
                    retryAfter = r.headers[HTTPField.Name("Retry-After")!]
                    break
                }
            }
            #expect(Array(statuses.prefix(3)) == [.unauthorized, .unauthorized, .unauthorized])
            #expect(statuses.last == .tooManyRequests)
            #expect(Int(retryAfter ?? "") ?? 0 >= 1)
            // While blocked, even the right password is not looked at.
            let (right, _) = try await client.signIn("ann", EditFixture.annPassword)
            #expect(right.status == .tooManyRequests)
        }
    }

    @Test(arguments: [
        "/api/edit/books/..%2Ffarm", "/api/edit/books/%2e%2e", "/api/edit/books/farm%2F..%2F..%2Fetc",
        "/api/edit/books/..", "/api/edit/books/.picturebook",
    ])
    func traversalInBookIdsIs404(_ uri: String) async throws {
        let f = try EditFixture()
        try await f.server.makeApplication().test(.router) { client in
            let (_, ann) = try await client.signIn("ann", EditFixture.annPassword)
            let r = try await client.call(uri, .get, as: ann)
            #expect(r.status == .notFound, "\(uri) → \(r.status)")
            let w = try await client.call(uri + "/pages/1", .put, as: ann, ifMatch: "0-x", json: ["image": "x"])
            #expect(w.status == .notFound, "PUT \(uri) → \(w.status)")
        }
    }

    @Test(arguments: ["0", "13", "-1", "1e1", "2%2F..", "%32", "99999999999999999999"])
    func pageNumbersOutOfRangeAre404(_ n: String) async throws {
        let f = try EditFixture()
        try await f.server.makeApplication().test(.router) { client in
            let (_, ann) = try await client.signIn("ann", EditFixture.annPassword)
            let r0 = try #require(try json(try await client.call("/api/edit/books/farm", .get, as: ann))["revision"] as? String)
            let r = try await client.call("/api/edit/books/farm/pages/\(n)", .put, as: ann, ifMatch: r0, json: ["image": "page-001.jpg"])
            #expect(r.status == .notFound, "page \(n) → \(r.status)")
        }
    }

    @Test func fullDiskIs507AndNothingIsAcknowledged() async throws {
        let f = try EditFixture()
        try await f.server.makeApplication().test(.router) { client in
            let (ann, r0, book) = try await client.openFarmAsAnn()
            let editor = try await f.server.editing!.editors.editor(id: "farm", directory: f.books + "/farm")
            editor.fault = { step throws(EditError) in if step == "journal" { throw .diskFull("simulated ENOSPC") } }
            let r = try await client.call("/api/edit/books/farm/pages/2", .put, as: ann, ifMatch: r0, json: try editedPage(book, 2, text: "x"))
            #expect(r.status.code == 507)
            editor.fault = nil
            let now = try json(try await client.call("/api/edit/books/farm", .get, as: ann))
            #expect(now["revision"] as? String == r0)
            #expect((try json(try await client.call("/api/edit/books/farm/history", .get, as: ann))["entries"] as? [Any])?.isEmpty == true)
        }
    }

    /// A save is answered before its book.json is written: the editing API's reads right after
    /// the 200, while that write is held, already show it (revision, ETag, page, history).
    @Test func readsRightAfterA200SeeTheSaveBeforeBookJsonIsWritten() async throws {
        let f = try EditFixture()
        try await f.server.makeApplication().test(.router) { client in
            let (ann, r0, book) = try await client.openFarmAsAnn()
            let editor = try await f.server.editing!.editors.editor(id: "farm", directory: f.books + "/farm")
            let gate = DispatchSemaphore(value: 0)
            editor.fault = { step throws(EditError) in if step == "book" { gate.wait() } }
            // An editor that writes book.json before answering would hang here: let it go later.
            DispatchQueue.global().asyncAfter(deadline: .now() + 30) { gate.signal() }
            let before = try FileIO.read(f.books + "/farm/book.json")
            let put = try await client.call("/api/edit/books/farm/pages/2", .put, as: ann, ifMatch: r0, json: try editedPage(book, 2, text: "now"))
            #expect(put.status == .ok)
            let revision = try #require(try json(put)["revision"] as? String)
            #expect(try FileIO.read(f.books + "/farm/book.json") == before)
            let get = try await client.call("/api/edit/books/farm", .get, as: ann)
            #expect(get.headers[.eTag] == "\"\(revision)\"")
            let doc = try json(get)
            #expect(doc["revision"] as? String == revision)
            let pages = try #require((doc["book"] as? [String: Any])?["pages"] as? [[String: Any]])
            #expect(((pages[1]["textBoxes"] as? [[String: Any]])?[0]["text"] as? [String: Any])?["en"] as? String == "now")
            let history = try #require(try json(try await client.call("/api/edit/books/farm/history", .get, as: ann))["entries"] as? [[String: Any]])
            #expect(history.map { $0["revision"] as? String } == [revision])
            editor.fault = nil
            gate.signal()
            #expect(editor.waitForBookFile(revision: revision, timeout: 60))
            #expect(try FileIO.read(f.books + "/farm/book.json") != before)
        }
    }

    /// Stopping the server writes every book.json still behind its journal: here one whose write
    /// after the answer failed (a full disk, room again by the time the server stops).
    @Test func stoppingTheServerWritesWhatIsStillBehind() async throws {
        let f = try EditFixture()
        try await f.server.makeApplication().test(.router) { client in
            let (ann, r0, book) = try await client.openFarmAsAnn()
            let editor = try await f.server.editing!.editors.editor(id: "farm", directory: f.books + "/farm")
            editor.log = { _ in }
            editor.fault = { step throws(EditError) in if step == "book" { throw .diskFull("simulated ENOSPC") } }
            let before = try FileIO.read(f.books + "/farm/book.json")
            let put = try await client.call("/api/edit/books/farm/pages/2", .put, as: ann, ifMatch: r0, json: try editedPage(book, 2, text: "kept"))
            #expect(put.status == .ok)
            #expect(try FileIO.read(f.books + "/farm/book.json") == before)
            editor.fault = nil
        }
        #expect(await f.server.finishEdits().isEmpty)
        let text = try String(contentsOfFile: f.books + "/farm/book.json", encoding: .utf8)
        #expect(text.contains("kept"))
    }

    /// While editing, a page image may change under its URL: browsers must revalidate.
    @Test func imagesAreRevalidatedWhileEditing() async throws {
        let f = try EditFixture()
        let r = try await f.server.makeApplication().test(.router) { client in
            try await client.call("/api/books/farm/pages/1/thumb", .get)
        }
        #expect(r.status == .ok)
        #expect(r.headers[.cacheControl] == "no-cache")
    }

    @Test func removedUserIsSignedOut() async throws {
        let f = try EditFixture()
        try await f.server.makeApplication().test(.router) { client in
            let (_, ann) = try await client.signIn("ann", EditFixture.annPassword)
            #expect(try await client.call("/api/session", .get, as: ann).status == .ok)
            try UserStore(path: UserStore.defaultPath(library: f.books)).remove(name: "ann")
            #expect(try await client.call("/api/session", .get, as: ann).status == .unauthorized)
        }
    }
}
