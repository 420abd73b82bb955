// The reader server under arbitrary requests, called the way the server calls it.
//
// In production swift-nio parses the bytes and Hummingbird hands each request to the router's
// responder together with a request context; this harness does exactly that last step itself:
// it builds the server's application once, takes its responder (the same router, middleware
// included: security headers, JSON errors, the host check, every route) and calls
// `respond(to:context:)` for each input. No test framework, no channel or event loop per request
// (HummingbirdTesting's router mode made a testing channel and event loop for every request,
// leaked them, and ran at ~28 requests a second), so leak checking stays on.
//
// Inputs are shaped the way the HTTP parser would pass them: a request-target of visible ASCII,
// token header names, visible header values, `Host` as the authority. Everything past that —
// routing, ids, percent-escapes, query parameters, containment, preparation — is what is fuzzed,
// over FuzzLibrary's books folder (small copies of Books/ beside books that reach outside it).
//
// Checked for every request: an answer (nothing thrown past the middleware), never a 5xx, never
// the server's own folders in the body, never the secret kept just outside the books folder.

import BookModel
public import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOEmbedded
import Reader

final class RequestHarness: @unchecked Sendable {
    static let shared = RequestHarness()

    typealias Respond = @Sendable (Request) async throws -> Response

    private let setup: Result<(library: FuzzLibrary, respond: Respond), FuzzLibrary.SetupError>
    /// The sample books the library is made from.
    let samples: String

    private init() {
        // The sample books of this repository: Tests/Fuzz/FuzzTargets/ → the repository root.
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        samples = URL(fileURLWithPath: ProcessInfo.processInfo.environment["FUZZ_BOOKS"] ?? root.path + "/Books")
            .resolvingSymlinksInPath().path
        let made: FuzzLibrary
        do { made = try FuzzLibrary.make(from: samples) } catch {
            setup = .failure(error)
            return
        }
        // The server resolves its folders; so must the checks (NSTemporaryDirectory may be a link).
        let library = FuzzLibrary(
            root: URL(fileURLWithPath: made.root).resolvingSymlinksInPath().path,
            books: URL(fileURLWithPath: made.books).resolvingSymlinksInPath().path,
            cache: made.cache, goodBooks: made.goodBooks)
        var configuration = ReaderConfiguration(booksDirectory: library.books, cacheDirectory: library.cache, workers: 1)
        // As `serve` on a loopback address: only loopback names are answered.
        configuration.allowedHosts = ["localhost", "127.0.0.1", "::1"]
        let server: ReaderServer
        do { server = try ReaderServer(configuration: configuration) } catch {
            setup = .failure(.write(library.books, error.description))
            return
        }
        // Every small copy must load and every hostile book must be refused, or the fuzzer would
        // be exploring 404s (or serving the secret) without anyone noticing.
        if case .success(let found) = Self.blocking({ await server.books() }) {
            let loaded = Set(found.filter(\.ok).map(\.id))
            let missing = Set(library.goodBooks).subtracting(loaded)
            let escaped = loaded.subtracting(library.goodBooks)
            guard missing.isEmpty, escaped.isEmpty else {
                setup = .failure(.sample(library.books, "books that should load but do not: \(missing.sorted()); hostile books that load: \(escaped.sorted())"))
                return
            }
        }
        let respond = Self.blocking { try await Self.responder(server.makeApplication()) }
        switch respond {
        case .success(let r): setup = .success((library, r))
        case .failure(let e): setup = .failure(.write(library.books, "the server's responder: \(e)"))
        }
        if case .success = setup {
            atexit { if case .success(let s) = RequestHarness.shared.setup { s.library.remove() } }
        }
    }

    /// The application's responder, and a context like the one the server makes for each request.
    /// One channel serves every context: the router reads only its allocator and addresses.
    static func responder<App: ApplicationProtocol>(_ app: App) async throws -> Respond {
        let responder = try await app.responder
        let channel = NIOAsyncTestingChannel()
        let logger = {
            var l = Logger(label: "picturebook.fuzz")
            l.logLevel = .critical
            return l
        }()
        return { request in
            let context = App.Context(source: ApplicationRequestContextSource(channel: channel, logger: logger))
            return try await responder.respond(to: request, context: context)
        }
    }

    /// Runs async work to its end from a synchronous caller (libFuzzer's callback, or a thread of
    /// the regression tests), which blocks meanwhile; the work runs on the cooperative pool.
    static func blocking<T: Sendable>(_ work: @escaping @Sendable () async throws -> T) -> Result<T, any Error> {
        let box = ResultBox<T>()
        let done = DispatchSemaphore(value: 0)
        Task.detached {
            do { box.value = .success(try await work()) } catch { box.value = .failure(error) }
            done.signal()
        }
        done.wait()
        return box.value ?? .failure(CancellationError())
    }

    /// The response's status, or nil when the input is not a request the HTTP parser would pass.
    func status(_ bytes: [UInt8]) throws(Harness.Violation) -> Int? {
        let respond: Respond
        switch setup {
        case .failure(let e): throw Harness.Violation(description: "the harness could not set up the server: \(e)")
        case .success(let s): respond = s.respond
        }
        guard let request = Self.request(bytes) else { return nil }
        let what = "\(request.method) \(request.head.path ?? "")"
        let outcome = Self.blocking { () async throws -> (Int, [UInt8]) in
            let response = try await respond(request)
            let body = BodyCollector()
            try await response.body.write(body)
            return (Int(response.status.code), body.bytes)
        }
        guard case .success(let (status, body)) = outcome else {
            // The router threw past every middleware: the client would see a dropped connection.
            throw Harness.Violation(description: "\(what): no response")
        }
        // A response may repeat what the request said (a 404 naming the path asked for); only
        // what the request did not contain counts.
        let asked = Self.fullyDecoded(what + " " + (request.head.authority ?? "") + " " + request.headers.map { "\($0.name): \($0.value)" }.joined(separator: "\n"))
        try Self.check(what: what, asked: asked, status: status, body: body, secrets: secrets)
        return status
    }

    /// The properties of one answer: no 5xx, and no secret the request did not itself contain.
    static func check(what: String, asked: String, status: Int, body: [UInt8], secrets: [(String, String)]) throws(Harness.Violation) {
        if status >= 500 { throw Harness.Violation(description: "\(what): status \(status)") }
        let text = String(decoding: body, as: UTF8.self)
        for (secret, meaning) in secrets where text.contains(secret) && !asked.contains(secret) {
            throw Harness.Violation(description: "\(what): the response reveals \(meaning)")
        }
    }

    /// What the harness must never see in an answer, for the tests.
    var secrets: [(String, String)] {
        guard case .success(let s) = setup else { return [] }
        return [(FuzzLibrary.canary, "a file outside the books folder"), (s.library.root, "the server's folders"), (samples, "the server's folders")]
    }

    /// Percent-decoded until nothing changes (a request may escape its escapes).
    static func fullyDecoded(_ s: String) -> String {
        var text = s
        for _ in 0..<4 {
            guard let next = text.removingPercentEncoding, next != text else { break }
            text = next
        }
        return text
    }

    /// "METHOD TARGET\nName: value\n…" shaped as an HTTP parser would let it through; nil when
    /// the parser would have refused it outright.
    static func request(_ bytes: [UInt8]) -> Request? {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard let first = lines.first else { return nil }
        let parts = first.split(separator: UInt8(ascii: " "), maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let methodText = String(decoding: parts[0].filter(isToken), as: UTF8.self)
        guard let method = HTTPRequest.Method(methodText) else { return nil }
        var target = String(decoding: parts[1].filter { $0 > 0x20 && $0 < 0x7F }, as: UTF8.self)
        if !target.hasPrefix("/") { target = "/" + target }
        var headers = HTTPFields()
        // HTTP/1.1 always names a host; NIO turns the Host header into the authority.
        var authority = "localhost"
        for line in lines.dropFirst().prefix(16) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(decoding: line[..<colon].filter(isToken), as: UTF8.self)
            let value = String(decoding: line[(colon + 1)...].filter { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self)
                .trimmingCharacters(in: .whitespaces)
            guard let field = HTTPField.Name(name) else { continue }
            if name.lowercased() == "host" {
                authority = value
                continue
            }
            headers.append(HTTPField(name: field, value: value))
        }
        let head = HTTPRequest(method: method, scheme: "http", authority: authority, path: target, headerFields: headers)
        return Request(head: head, body: RequestBody(buffer: ByteBuffer()))
    }

    static func isToken(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return Array("!#$%&'*+-.^_`|~".utf8).contains(b)
        }
    }
}

/// Carries a result from the task that made it to the thread waiting for it (the semaphore
/// orders the write before the read).
final class ResultBox<T>: @unchecked Sendable {
    var value: Result<T, any Error>?
}

/// Gathers a response body as the server's writer would send it.
final class BodyCollector: ResponseBodyWriter, @unchecked Sendable {
    var bytes: [UInt8] = []
    func write(_ buffer: ByteBuffer) async throws { bytes += buffer.readableBytesView }
    func finish(_ trailingHeaders: HTTPFields?) async throws {}
}
