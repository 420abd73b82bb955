import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import Reader

#if canImport(Glibc)
import Glibc
#endif

/// Idle and slow clients, the connection cap, the Host check and the cache bound (#18 items 4, 5).
@Suite struct ManyClientsTests {
    // MARK: Host check

    static func loopbackServer() throws -> ReaderServer {
        var config = ReaderConfiguration(booksDirectory: Fixture.books, cacheDirectory: Fixture.root + "/cache-\(UUID().uuidString)", workers: 2)
        config.allowedHosts = Connections.defaultAllowedHosts(bindAddress: "127.0.0.1")
        return try ReaderServer(configuration: config)
    }

    /// The status a raw HTTP/1.1 request naming `host` gets from a live loopback server.
    static func status(withHost host: String) async throws -> Int {
        try await loopbackServer().makeApplication(port: 0).test(.live) { client in
            let port = try #require(client.port)
            let raw = try RawClient(port: port)
            try raw.send(Array("GET /api/books HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n\r\n".utf8))
            let reply = await raw.readAll(seconds: 30)
            let line = String(decoding: reply.prefix(40), as: UTF8.self)
            return Int(line.split(separator: " ").dropFirst().first ?? "") ?? -1
        }
    }

    @Test(arguments: ["localhost:8080", "127.0.0.1:49152", "[::1]:8080", "LOCALHOST", "localhost."])
    func loopbackNamesAreAnswered(_ host: String) async throws {
        #expect(try await Self.status(withHost: host) == 200)
    }

    /// DNS rebinding: a page on evil.example whose name now resolves to 127.0.0.1 sends its own name.
    @Test(arguments: ["evil.example", "evil.example:8080", "127.0.0.1.evil.example", "[::2]:8080"])
    func otherNamesAreRefusedOnLoopback(_ host: String) async throws {
        #expect(try await Self.status(withHost: host) == 421)
    }

    /// In-process requests carry the name "localhost", which a loopback server answers.
    @Test func inProcessRequestsAreAnswered() async throws {
        let r = try await get(try Self.loopbackServer(), "/api/books")
        #expect(r.status == .ok)
    }

    @Test func anyNameOnOtherAddressesUnlessListed() {
        #expect(Connections.defaultAllowedHosts(bindAddress: "0.0.0.0") == nil)
        #expect(Connections.defaultAllowedHosts(bindAddress: "192.168.1.5") == nil)
        #expect(Connections.defaultAllowedHosts(bindAddress: "::1")?.contains("localhost") == true)
    }

    @Test(arguments: [("Books.Example.org:443", "books.example.org"), ("[::1]:80", "::1"), ("::1", "::1"), ("host.", "host"), ("h", "h")])
    func hostNamesAreNormalised(_ pair: (String, String)) {
        #expect(Connections.hostName(pair.0) == pair.1)
    }

    // MARK: Cache size

    @Test(arguments: [("4G", Int64(4) << 30), ("500M", 500 << 20), ("750MiB", 750 << 20), ("1.5GB", 3 << 29), ("123", 123), ("0", 0)])
    func cacheSizesParse(_ pair: (String, Int64)) {
        #expect(ReaderConfiguration.parseSize(pair.0) == pair.1)
    }

    @Test(arguments: ["", "-1G", "lots", "G", "1e30", "nan"])
    func badCacheSizesAreRefused(_ text: String) {
        #expect(ReaderConfiguration.parseSize(text) == nil)
    }

    /// The least recently used file goes first; a file used recently stays however old it is.
    @Test func budgetEvictsLeastRecentlyUsed() async throws {
        let root = Fixture.root + "/budget-\(UUID().uuidString)"
        let folder = root + "/book-0123abcd"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        func file(_ n: Int) -> String { folder + "/" + String(repeating: "\(n)", count: 16) + ".jpg" }
        let t0 = Date(timeIntervalSince1970: 1_000_000)
        let budget = CacheBudget(limit: 2500, root: root, protectFor: 10)
        await budget.loadIfNeeded()  // an empty cache
        func make(_ n: Int, at t: Date) async {
            FileManager.default.createFile(atPath: file(n), contents: Data(count: 1000))
            await budget.added(file(n), bytes: 1000, now: t)
        }
        await make(1, at: t0)
        await make(2, at: t0 + 100)
        await budget.used(file(1), now: t0 + 200)
        await make(3, at: t0 + 300)
        #expect(FileManager.default.fileExists(atPath: file(1)))
        #expect(!FileManager.default.fileExists(atPath: file(2)))
        #expect(FileManager.default.fileExists(atPath: file(3)))
        #expect(await budget.total == 2000)
        #expect(await budget.evicted == 1)
    }

    /// A flood of distinct requests (every popout scale step of every box, every width) never
    /// leaves the cache larger than its bound plus the file just made, and every request is answered.
    @Test func cacheStaysBoundedUnderAParameterFlood() async throws {
        let cache = Fixture.root + "/cache-flood-\(UUID().uuidString)"
        var config = ReaderConfiguration(booksDirectory: Fixture.books, cacheDirectory: cache, workers: 2)
        let limit: Int64 = 150_000
        config.cacheLimit = limit
        config.cacheProtectSeconds = 0
        let server = try ReaderServer(configuration: config)
        let manifest = try json(try await get(server, "/api/books/farm"))
        let pages = try #require(manifest["pages"] as? [[String: Any]])
        var uris: [String] = []
        for page in pages.prefix(3) {
            for box in ((page["textBoxes"] as? [[String: Any]]) ?? []).prefix(2) {
                if let popout = box["popout"] as? String {
                    for step in [1.0, 2.0, 3.0] { uris.append(popout + "?scale=\(step)") }
                }
            }
        }
        for n in 1...3 { for w in [320, 480, 640] { uris.append("/api/books/farm/pages/\(n)/scan?w=\(w)") } }
        #expect(uris.count >= 15)
        let flood = uris
        try await server.makeApplication().test(.router) { client in
            var largest: Int64 = 0
            for uri in flood {
                let r = try await client.execute(uri: uri, method: .get)
                #expect(r.status == .ok, "\(uri)")
                largest = max(largest, Int64(r.body.readableBytes))
                let size = Self.folderSize(cache)
                #expect(size <= limit + largest, "\(uri): cache holds \(size) bytes")
            }
        }
        #expect(await server.store.preparations.budget?.evicted ?? 0 > 0)
    }

    static func folderSize(_ root: String) -> Int64 {
        var total: Int64 = 0
        let fm = FileManager.default
        for case let name as String in fm.enumerator(atPath: root) ?? NSEnumerator() {
            if let a = try? fm.attributesOfItem(atPath: root + "/" + name), (a[.type] as? FileAttributeType) == .typeRegular {
                total += (a[.size] as? NSNumber)?.int64Value ?? 0
            }
        }
        return total
    }

    // MARK: Idle and slow connections (a real listening server)

    /// A connection that says nothing, and one that sends its headers a byte at a time, are both
    /// closed after the idle timeout; a connection cap of 3 with 3 such clients open still lets an
    /// ordinary request through once they are closed.
    @Test func idleAndSlowConnectionsAreClosed() async throws {
        var config = ReaderConfiguration(booksDirectory: Fixture.books, cacheDirectory: Fixture.root + "/cache-\(UUID().uuidString)", workers: 2)
        config.idleTimeout = 0.5
        config.maxConnections = 3
        let server = try ReaderServer(configuration: config)
        try await server.makeApplication(port: 0).test(.live) { client in
            let port = try #require(client.port)
            let silent = try RawClient(port: port)
            let slow = try RawClient(port: port)
            let third = try RawClient(port: port)
            // The slow client keeps sending, yet never completes a request head.
            for byte in "GET /api/books HTTP/1.1\r\nHost: 127".utf8 {
                try slow.send([byte])
                try await Task.sleep(for: .milliseconds(60))
                if slow.isClosed() { break }
            }
            // Generous: the point is that they are closed at all, not how fast.
            #expect(await silent.waitUntilClosed(seconds: 30))
            #expect(await slow.waitUntilClosed(seconds: 30))
            #expect(await third.waitUntilClosed(seconds: 30))
            // (The test framework's own connection was idle too, so the check goes over a new one.)
            let fresh = try RawClient(port: port)
            try fresh.send(Array("GET /api/books HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8))
            let reply = String(decoding: await fresh.readAll(seconds: 30).prefix(12), as: UTF8.self)
            #expect(reply == "HTTP/1.1 200", "\(reply)")
        }
    }
}

/// A bare TCP client, for behaviour HTTP clients hide.
final class RawClient {
    let fd: Int32

    init(port: Int) throws {
        fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var addr = sockaddr_in()
        addr.sin_family = sa_family_t(AF_INET)
        addr.sin_port = in_port_t(UInt16(port).bigEndian)
        addr.sin_addr.s_addr = inet_addr("127.0.0.1")
        let r = withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard fd >= 0, r == 0 else { throw POSIXError(.ECONNREFUSED) }
    }

    deinit { close(fd) }

    func send(_ bytes: [UInt8]) throws {
        let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        if n < 0 { throw POSIXError(.EPIPE) }
    }

    /// True when the peer has closed (a read returns end of file or an error) without waiting.
    func isClosed() -> Bool {
        var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        guard poll(&p, 1, 0) > 0 else { return false }
        var b: UInt8 = 0
        return recv(fd, &b, 1, Int32(MSG_PEEK | MSG_DONTWAIT)) <= 0
    }

    /// Everything the peer sends until it closes (or `seconds` pass). Polls without blocking and
    /// sleeps between polls: a blocking wait would hold one of the few cooperative threads the
    /// server under test needs to answer.
    func readAll(seconds: Double) async -> [UInt8] {
        var out: [UInt8] = []
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 0) > 0 {
                var buffer = [UInt8](repeating: 0, count: 4096)
                let n = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
                if n <= 0 { break }
                out += buffer[0..<n]
            } else {
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        return out
    }

    /// True once the peer has closed the connection (anything it sends first is read and dropped).
    func waitUntilClosed(seconds: Double) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            var p = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            if poll(&p, 1, 0) > 0 {
                var buffer = [UInt8](repeating: 0, count: 4096)
                if recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT)) <= 0 { return true }
            } else {
                try? await Task.sleep(for: .milliseconds(20))
            }
        }
        return false
    }
}
