import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
@testable import Reader

/// The server's IIIF side: a manifest per book and a level-0 image service per page.
@Suite struct IIIFRoutesTests {
    let host = HTTPField.Name("Host")!

    @Test func manifestNamesTheServedImagesAndTheirServices() async throws {
        let server = try Fixture.server()
        let r = try await get(server, "/iiif/farm/manifest.json", headers: [host: "books.example:8080"])
        #expect(r.status == .ok)
        #expect(r.headers[.accessControlAllowOrigin] == "*")
        let m = try json(r)
        #expect(m["type"] as? String == "Manifest")
        #expect(m["id"] as? String == "http://books.example:8080/iiif/farm/manifest.json")
        let canvases = try #require(m["items"] as? [[String: Any]])
        #expect(canvases.count == 12)
        let page = try #require((canvases[1]["items"] as? [[String: Any]])?.first)
        let painting = try #require((page["items"] as? [[String: Any]])?.first)
        let body = try #require(painting["body"] as? [String: Any])
        #expect(body["id"] as? String == "http://books.example:8080/iiif/farm/image/2/full/max/0/default.jpg")
        let service = try #require((body["service"] as? [[String: Any]])?.first)
        #expect(service["id"] as? String == "http://books.example:8080/iiif/farm/image/2")
        #expect(service["profile"] as? String == "level0")
    }

    @Test func imageServiceDescribesAndServesTheFullImage() async throws {
        let server = try Fixture.server()
        let info = try json(try await get(server, "/iiif/farm/image/2/info.json", headers: [host: "localhost:8080"]))
        #expect(info["type"] as? String == "ImageService3")
        #expect(info["protocol"] as? String == "http://iiif.io/api/image")
        #expect(info["id"] as? String == "http://localhost:8080/iiif/farm/image/2")
        let width = try #require(info["width"] as? Int), height = try #require(info["height"] as? Int)
        let full = try await get(server, "/iiif/farm/image/2/full/max/0/default.jpg")
        #expect(full.status == .ok)
        #expect(full.headers[.contentType] == "image/jpeg")
        #expect(Array(full.body.readableBytesView.prefix(3)) == [0xFF, 0xD8, 0xFF])
        let spelled = try await get(server, "/iiif/farm/image/2/full/\(width),\(height)/0/default.jpg")
        #expect(spelled.status == .ok)
        let redirect = try await get(server, "/iiif/farm/image/2", headers: [host: "localhost:8080"])
        #expect(redirect.status == .seeOther)
        #expect(redirect.headers[.location] == "http://localhost:8080/iiif/farm/image/2/info.json")
    }

    @Test(arguments: ["/iiif/farm/image/2/0,0,10,10/max/0/default.jpg", "/iiif/farm/image/2/full/50,/0/default.jpg",
                      "/iiif/farm/image/2/full/max/90/default.jpg", "/iiif/farm/image/2/full/max/0/gray.png"])
    func beyondLevelZeroIsABadRequest(_ uri: String) async throws {
        let r = try await get(try Fixture.server(), uri)
        #expect(r.status == .badRequest)
    }

    @Test func unknownBooksPagesAndHostileHostsAreHandled() async throws {
        let server = try Fixture.server()
        #expect(try await get(server, "/iiif/nope/manifest.json").status == .notFound)
        #expect(try await get(server, "/iiif/farm/image/99/info.json").status == .notFound)
        let m = try json(try await get(server, "/iiif/farm/manifest.json", headers: [host: "evil\"><script>"]))
        #expect(m["id"] as? String == "http://localhost/iiif/farm/manifest.json")
    }
}
