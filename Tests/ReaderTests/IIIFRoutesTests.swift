import Foundation
import HTTPTypes
import HummingbirdTesting
import Testing
import Codecs
@testable import Reader

/// The server's IIIF side: a manifest per book and a level-1 image service per page.
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
        #expect(service["profile"] as? String == "level1")
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

    @Test func regionsAndSizesAreCutAndScaled() async throws {
        let server = try Fixture.server()
        let info = try json(try await get(server, "/iiif/farm/image/2/info.json"))
        #expect(info["profile"] as? String == "level1")
        let width = try #require(info["width"] as? Int), height = try #require(info["height"] as? Int)
        let side = min(width, height)
        // Each request with the size the spec says it must come back at.
        let cases: [(String, Int, Int)] = [
            ("10,20,30,40/max", 30, 40), ("0,0,100,50/50,", 50, 25), ("0,0,100,50/,10", 20, 10),
            ("square/max", side, side), ("full/\(width / 2),\(height / 2)", width / 2, height / 2),
            ("pct:0,0,50,50/max", (width + 1) / 2, (height + 1) / 2), ("full/!100,100", width >= height ? 100 : Int((Double(width) * 100 / Double(height)).rounded()),
             height >= width ? 100 : Int((Double(height) * 100 / Double(width)).rounded())),
            ("\(width - 5),\(height - 5),50,50/max", 5, 5),
        ]
        for (path, w, h) in cases {
            let r = try await get(server, "/iiif/farm/image/2/\(path)/0/default.jpg")
            #expect(r.status == .ok, "\(path)")
            #expect(r.headers[.accessControlAllowOrigin] == "*")
            let got = try ImageDecoder.info(Array(r.body.readableBytesView), name: path)
            #expect(got.width == w && got.height == h, "\(path): \(got.width)×\(got.height), expected \(w)×\(h)")
        }
    }

    @Test(arguments: ["/iiif/farm/image/2/full/max/90/default.jpg", "/iiif/farm/image/2/full/max/!0/default.jpg",
                      "/iiif/farm/image/2/full/max/0/gray.jpg", "/iiif/farm/image/2/full/max/0/default.png",
                      "/iiif/farm/image/2/full/^max/0/default.jpg", "/iiif/farm/image/2/full/99999,/0/default.jpg",
                      "/iiif/farm/image/2/99999,0,10,10/max/0/default.jpg", "/iiif/farm/image/2/0,0,0,10/max/0/default.jpg",
                      "/iiif/farm/image/2/full/full/0/default.jpg", "/iiif/farm/image/2/full/pct:200/0/default.jpg"])
    func beyondLevelOneIsABadRequest(_ uri: String) async throws {
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
