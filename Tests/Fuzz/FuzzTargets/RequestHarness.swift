// The reader server under arbitrary requests. The server's own HTTP parser (swift-nio) sits in
// front of the router in production, so the harness shapes inputs the way that parser would pass
// them: a request-target of visible ASCII, token header names, visible header values. Everything
// past that — routing, ids, percent-escapes, query parameters, containment, preparation — is
// what is fuzzed.

import BookModel
public import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Reader

final class RequestHarness: @unchecked Sendable {
    static let shared = RequestHarness()

    /// One request in flight between libFuzzer's synchronous callback and the async test client.
    final class Job: @unchecked Sendable {
        let method: HTTPRequest.Method
        let uri: String
        let headers: HTTPFields
        var outcome: Result<(status: Int, body: [UInt8]), any Error> = .success((0, []))
        let done = DispatchSemaphore(value: 0)
        init(method: HTTPRequest.Method, uri: String, headers: HTTPFields) {
            self.method = method
            self.uri = uri
            self.headers = headers
        }
    }

    let booksDirectory: String
    private let jobs: AsyncStream<Job>.Continuation
    private let started: Bool

    private init() {
        // The sample books of this repository: Tests/Fuzz/FuzzTargets/ → the repository root.
        var root = URL(fileURLWithPath: #filePath)
        for _ in 0..<4 { root.deleteLastPathComponent() }
        let books = ProcessInfo.processInfo.environment["FUZZ_BOOKS"] ?? root.path + "/Books"
        booksDirectory = URL(fileURLWithPath: books).resolvingSymlinksInPath().path
        let cache = NSTemporaryDirectory() + "picturebook-fuzz-cache-\(getpid())"
        let (stream, continuation) = AsyncStream.makeStream(of: Job.self)
        jobs = continuation
        guard let server = try? ReaderServer(configuration: ReaderConfiguration(
            booksDirectory: booksDirectory, cacheDirectory: cache, workers: 1))
        else {
            started = false
            return
        }
        started = true
        let app = server.makeApplication()
        Task.detached {
            _ = try? await app.test(.router) { client in
                for await job in stream {
                    do {
                        let r = try await client.execute(uri: job.uri, method: job.method, headers: job.headers)
                        job.outcome = .success((Int(r.status.code), Array(r.body.readableBytesView)))
                    } catch {
                        job.outcome = .failure(error)
                    }
                    job.done.signal()
                }
            }
        }
    }

    /// The response's status, or nil when the input is not a request the HTTP parser would pass.
    func status(_ bytes: [UInt8]) throws(Harness.Violation) -> Int? {
        guard started else { throw Harness.Violation(description: "the reader server did not start over \(booksDirectory)") }
        guard let job = Self.request(bytes) else { return nil }
        jobs.yield(job)
        job.done.wait()
        switch job.outcome {
        case .failure:
            // The router threw past every middleware: the client would see a dropped connection.
            throw Harness.Violation(description: "\(job.method) \(job.uri): no response")
        case .success(let (status, body)):
            if status >= 500 {
                throw Harness.Violation(description: "\(job.method) \(job.uri): status \(status)")
            }
            let text = String(decoding: body, as: UTF8.self)
            if text.contains(booksDirectory) {
                throw Harness.Violation(description: "\(job.method) \(job.uri): the response names the server's folders")
            }
            return status
        }
    }

    /// "METHOD TARGET\nName: value\n…" shaped as an HTTP parser would let it through; nil when
    /// the parser would have refused it outright.
    static func request(_ bytes: [UInt8]) -> Job? {
        let lines = bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false)
        guard let first = lines.first else { return nil }
        let parts = first.split(separator: UInt8(ascii: " "), maxSplits: 1)
        guard parts.count == 2 else { return nil }
        let methodText = String(decoding: parts[0].filter(isToken), as: UTF8.self)
        guard let method = HTTPRequest.Method(methodText) else { return nil }
        var target = String(decoding: parts[1].filter { $0 > 0x20 && $0 < 0x7F }, as: UTF8.self)
        if !target.hasPrefix("/") { target = "/" + target }
        var headers = HTTPFields()
        for line in lines.dropFirst().prefix(16) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(decoding: line[..<colon].filter(isToken), as: UTF8.self)
            let value = String(decoding: line[(colon + 1)...].filter { $0 >= 0x20 && $0 < 0x7F }, as: UTF8.self)
            guard let field = HTTPField.Name(name) else { continue }
            headers.append(HTTPField(name: field, value: value.trimmingCharacters(in: .whitespaces)))
        }
        return Job(method: method, uri: target, headers: headers)
    }

    static func isToken(_ b: UInt8) -> Bool {
        switch b {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"): return true
        default: return Array("!#$%&'*+-.^_`|~".utf8).contains(b)
        }
    }
}
