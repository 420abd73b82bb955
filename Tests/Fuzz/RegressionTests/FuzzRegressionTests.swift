import Foundation
import FuzzTargets
import Testing

/// Every saved input of every fuzz harness — the seeds, the hostile files of issue #18 and each
/// input that ever made a harness fail — run through the same harness code, uninstrumented.
@Suite struct FuzzRegressionTests {
    static let corpus: String = {
        var url = URL(fileURLWithPath: #filePath)
        url.deleteLastPathComponent()
        url.deleteLastPathComponent()
        return url.path + "/Corpus"
    }()

    static func inputs(_ harness: Harness) -> [String] {
        let folder = corpus + "/" + harness.rawValue
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return names.filter { !$0.hasPrefix(".") }.sorted().map { folder + "/" + $0 }
    }

    /// The harnesses block their thread while the request harness's async client answers (as
    /// libFuzzer's callback must); on the test runner's few cooperative threads that would
    /// starve the client, so each run gets a thread of its own.
    static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }

    @Test(arguments: Harness.allCases)
    func everySavedInputPasses(_ harness: Harness) async throws {
        let files = Self.inputs(harness)
        // A harness with no saved inputs would make this test pass by having nothing to run.
        #expect(files.count >= 5, "Tests/Fuzz/Corpus/\(harness.rawValue) should hold the seed inputs")
        for file in files {
            let bytes = try #require(FileManager.default.contents(atPath: file), "cannot read \(file)")
            let failure: String? = try await Self.onThread {
                do { try harness.run(Array(bytes)) } catch { return "\(file): \(error)" }
                return nil
            }
            if let failure { Issue.record(Comment(rawValue: failure)) }
        }
    }

    /// The request harness really reaches the server: a sane request is answered 200, a
    /// traversal attempt is refused, a write is 405 (if the harness lost its server, every input
    /// would "pass").
    @Test func theRequestHarnessReachesTheServer() async throws {
        func status(_ request: String) async throws -> Int? {
            try await Self.onThread { try Harness.responseStatus(Array(request.utf8)) }
        }
        #expect(try await status("GET /api/books") == 200)
        #expect(try await status("GET /api/books/good-morning-farm/pages/2/thumb") == 200)
        let traversal = try await status("GET /api/books/..%2f..%2fetc/pages/1/scan")
        #expect(traversal == 404 || traversal == 400)
        #expect(try await status("DELETE /api/books/good-morning-farm") == 405)
        // The small library's pages are prepared like any others.
        #expect(try await status("GET /api/books/little-horse/pages/3/cleared?w=320") == 200)
        #expect(try await status("GET /api/books/little-horse/pages/2/popout/p002-b1?scale=2") == 200)
        // The books that reach outside the folder are refused (the harness itself fails an input
        // whose response holds the secret kept there).
        for escape in ["escape-by-link", "escape-by-path", "escape-folder"] {
            let s = try await status("GET /api/books/\(escape)/pages/1/scan")
            #expect(s == 404 || s == 422, "\(escape): \(String(describing: s))")
        }
        // Only loopback names are answered, as `serve` on 127.0.0.1 does.
        #expect(try await status("GET /api/books\nHost: rebound.example") == 421)
    }

    /// The checks of the request harness can fail: a body holding the secret from outside the
    /// library, or the server's folders, is a violation unless the request itself said it.
    @Test func theRequestHarnessSeesALeak() throws {
        let secret = Harness.requestSecrets.first!
        #expect(throws: Harness.Violation.self) {
            try Harness.checkResponse(what: "GET /x", asked: "GET /x", status: 200, body: Array("..\(secret)..".utf8))
        }
        #expect(throws: Harness.Violation.self) {
            try Harness.checkResponse(what: "GET /x", asked: "GET /x", status: 500, body: [])
        }
        try Harness.checkResponse(what: "GET /x", asked: "GET /\(secret)", status: 404, body: Array("no file '\(secret)'".utf8))
    }
}
