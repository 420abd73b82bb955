import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import Reader

/// What a hostile client can do to the reader's server: nothing but read.
@Suite struct HostileClientTests {
    @Test(arguments: ["/api/books", "/api/books/farm", "/no/such/path", "/"])
    func everyResponseCarriesTheSecurityHeaders(_ path: String) async throws {
        let r = try await get(Fixture.shared, path)
        #expect(r.headers[.xContentTypeOptions] == "nosniff")
        #expect(r.headers[HTTPField.Name("X-Frame-Options")!] == "DENY")
        #expect(r.headers[.contentSecurityPolicy]?.contains("frame-ancestors 'none'") == true)
        #expect(r.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
    }

    @Test(arguments: [HTTPRequest.Method.post, .put, .delete, .patch])
    func writesAreRefusedWith405(_ method: HTTPRequest.Method) async throws {
        let r = try await Fixture.shared.makeApplication().test(.router) { client in
            try await client.execute(uri: "/api/books/farm", method: method)
        }
        #expect(r.status == .methodNotAllowed)
        #expect(r.headers[.allow] == "GET, HEAD")
    }

    /// Each distinct popout scale is a cached image; only the reader's half steps exist, so a
    /// flood of 7.5000001, 7.5000002 … makes one file, not millions.
    @Test func popoutScalesAreQuantised() async throws {
        let server = try Fixture.server()
        let manifest = try json(try await get(server, "/api/books/farm"))
        let pages = try #require(manifest["pages"] as? [[String: Any]])
        let box = try #require((pages[1]["textBoxes"] as? [[String: Any]])?.first)
        let popout = try #require(box["popout"] as? String)
        let a = try await get(server, popout + "?scale=1.5000001")
        let b = try await get(server, popout + "?scale=1.9")
        let c = try await get(server, popout + "?scale=2")
        #expect(a.status == .ok && b.status == .ok && c.status == .ok)
        #expect(a.headers[.eTag] == c.headers[.eTag] && b.headers[.eTag] == c.headers[.eTag])
    }
}
