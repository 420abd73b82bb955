// IIIF for the reader server: each book's Presentation 3 manifest at /iiif/<book>/manifest.json
// and a level-1 IIIF Image API 3 service per page at /iiif/<book>/image/<n>, so Mirador or
// Universal Viewer can open any book of a Picturebook library and ask for the regions and sizes
// they tile with (Formats.IIIFImageRequest says which requests are offered).

import Formats
import Foundation
import HTTPTypes
import Hummingbird

extension ReaderServer {
    func addIIIFRoutes(to router: Router<ReaderContext>) {
        router.get("/iiif/:id/manifest.json") { request, context in
            let book = try await self.loadedBook(context)
            let base = Self.iiifBase(request, id: book.id)
            let bytes = IIIF.manifest(book: book.book, baseURL: base, imageService: true)
            return Self.iiifResponse(bytes, type: "application/ld+json;profile=\"http://iiif.io/api/presentation/3/context.json\"", request: request)
        }
        router.get("/iiif/:id/image/:n") { request, context in
            // The service's base URI redirects to its description, as the Image API asks.
            let book = try await self.loadedBook(context)
            let n = try Self.pageNumber(context, of: book)
            var headers = HTTPFields()
            headers[.location] = Self.iiifBase(request, id: book.id) + "/image/\(n)/info.json"
            headers[.accessControlAllowOrigin] = "*"
            return Response(status: .seeOther, headers: headers)
        }
        router.get("/iiif/:id/image/:n/info.json") { request, context in
            let book = try await self.loadedBook(context)
            let n = try Self.pageNumber(context, of: book)
            let page = book.book.pages[n - 1]
            let info = IIIFImageService.info(id: Self.iiifBase(request, id: book.id) + "/image/\(n)", width: page.width, height: page.height)
            return Self.iiifResponse(info, type: "application/ld+json;profile=\"http://iiif.io/api/image/3/context.json\"", request: request)
        }
        router.get("/iiif/:id/image/:n/:region/:size/:rotation/:quality") { request, context in
            let book = try await self.loadedBook(context)
            let n = try Self.pageNumber(context, of: book)
            let page = book.book.pages[n - 1]
            let p = context.parameters
            let wanted: IIIFImageRequest
            do {
                wanted = try IIIFImageRequest.parse(
                    region: Self.decoded(p.get("region") ?? ""), size: Self.decoded(p.get("size") ?? ""),
                    rotation: Self.decoded(p.get("rotation") ?? ""), quality: Self.decoded(p.get("quality") ?? ""),
                    imageWidth: page.width, imageHeight: page.height)
            } catch {
                throw APIError(.badRequest, "\(error)")
            }
            // The whole page at its size is the scan the reader already serves; anything else is
            // cut and scaled once and kept in the cache.
            let what: AssetRequest = wanted.isFull(imageWidth: page.width, imageHeight: page.height) ? .scan(width: page.width) : .iiif(wanted)
            var response = try await self.asset(what, request: request, context: context)
            response.headers[.accessControlAllowOrigin] = "*"
            return response
        }
    }

    /// HTTP/1.1's Host header. The HTTP/1 server moves it into the request's authority; a request
    /// that still carries the header (as made in tests) is taken at its word first.
    static let hostField = HTTPField.Name("Host")

    /// The public URL of a book's IIIF resources, from the Host the client used (the only
    /// address of this server the client is known to reach). A Host header that is not a plain
    /// host[:port] is not echoed into documents.
    static func iiifBase(_ request: Request, id: String) -> String {
        let host = hostField.flatMap { request.headers[$0] } ?? request.head.authority ?? ""
        let plain = !host.isEmpty && host.utf8.count <= 255 && host.unicodeScalars.allSatisfy { c in
            c.properties.isASCIIHexDigit || ("a"..."z").contains(c) || ("A"..."Z").contains(c) || c == "." || c == ":" || c == "-" || c == "[" || c == "]"
        }
        let encoded = id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? id
        return "http://" + (plain ? host : "localhost") + "/iiif/" + encoded
    }

    static func pageNumber(_ context: ReaderContext, of book: LoadedBook) throws -> Int {
        let text = context.parameters.get("n") ?? ""
        guard let n = Int(text), n >= 1, n <= book.book.pages.count else {
            throw APIError(.notFound, "\(book.id) has no page '\(decoded(text))' (pages are 1...\(book.book.pages.count))")
        }
        return n
    }

    /// IIIF documents are read by viewers on other sites, so they are open to every origin.
    static func iiifResponse(_ bytes: [UInt8], type: String, request: Request) -> Response {
        var r = respond(bytes, type: type, etag: ETag.of(bytes), cache: revalidate, request: request)
        r.headers[.accessControlAllowOrigin] = "*"
        return r
    }
}
