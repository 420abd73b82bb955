// `picturebook serve`: the HTTP side. Routes map to the library (a dictionary of discovered
// books), the asset store (prepared images, cached on disk) and the app's static files. Every
// response carries an ETag and Cache-Control; every error is `{"error": "..."}`.

public import Hummingbird
import HummingbirdCore
import BookModel
import FileIO
import Foundation
import Geometry
import Layout
import Logging

public struct ReaderConfiguration: Sendable {
    public var booksDirectory: String
    /// Where prepared images are kept between runs.
    public var cacheDirectory: String
    /// Serve the app from this folder instead of the copy built into the program (for
    /// developing the app without rebuilding).
    public var webRoot: String?
    /// CPU-heavy preparations that run at once (default: the number of cores).
    public var workers: Int
    /// Log every request.
    public var verbose: Bool
    /// The prepared-image cache's size bound in bytes (least recently used files go first);
    /// nil leaves it unbounded.
    public var cacheLimit: Int64? = ReaderConfiguration.defaultCacheLimit
    /// Seconds a connection may stay without a complete request before it is closed. Covers
    /// idle keep-alive connections and clients that send their headers a byte at a time.
    public var idleTimeout: Double = 30
    /// Open connections at most; further ones wait in the listen queue until one closes. nil:
    /// what the process's file-descriptor limit allows, less a reserve for files.
    public var maxConnections: Int?
    /// Host names (without port) requests may name; nil accepts any. A server on a loopback
    /// address accepts only loopback names by default, so a web page elsewhere cannot reach it
    /// through DNS rebinding.
    public var allowedHosts: Set<String>?
    /// Editing (`serve --edit`): sign-in and the editing API. nil: the reader only reads.
    public var edit: EditConfiguration?

    /// Cache files used this many seconds ago or less are not removed by the bound (tests set 0).
    var cacheProtectSeconds: Double = 10

    public static let defaultCacheLimit: Int64 = 4 << 30

    public init(
        booksDirectory: String, cacheDirectory: String = ReaderConfiguration.defaultCacheDirectory(), webRoot: String? = nil,
        workers: Int = ReaderConfiguration.cores, verbose: Bool = false
    ) {
        self.booksDirectory = booksDirectory
        self.cacheDirectory = cacheDirectory
        self.webRoot = webRoot
        self.workers = workers
        self.verbose = verbose
    }

    public static var cores: Int { ProcessInfo.processInfo.activeProcessorCount }

    /// `$XDG_CACHE_HOME/picturebook`, else `~/.cache/picturebook`.
    public static func defaultCacheDirectory() -> String {
        let env = ProcessInfo.processInfo.environment
        if let xdg = env["XDG_CACHE_HOME"], xdg.hasPrefix("/") { return xdg + "/picturebook" }
        let home = env["HOME"] ?? NSHomeDirectory()
        return home + "/.cache/picturebook"
    }
}

public enum ReaderError: Error, CustomStringConvertible, Sendable {
    case noBooksFolder(String)
    case cacheUnwritable(path: String, reason: String)
    case noWebRoot(String)

    public var description: String {
        switch self {
        case .noBooksFolder(let p): return "\(p): no such books folder (give the folder that holds one subfolder per book)"
        case .cacheUnwritable(let p, let r): return "cannot use \(p) as the cache folder: \(r)"
        case .noWebRoot(let p): return "\(p): no such web root folder (it should hold index.html)"
        }
    }
}

/// The reader server: build one, then run `makeApplication` (or test it with HummingbirdTesting).
public final class ReaderServer: Sendable {
    public let configuration: ReaderConfiguration
    let library: Library
    let store: AssetStore
    let web: WebFiles
    let editing: EditService?

    public init(configuration: ReaderConfiguration) throws(ReaderError) {
        guard let containment = Containment(booksDirectory: configuration.booksDirectory) else {
            throw .noBooksFolder(configuration.booksDirectory)
        }
        do { try FileIO.createDirectory(configuration.cacheDirectory) } catch {
            throw .cacheUnwritable(path: configuration.cacheDirectory, reason: error.description)
        }
        guard let cache = Containment.resolve(configuration.cacheDirectory) else {
            throw .cacheUnwritable(path: configuration.cacheDirectory, reason: "it cannot be resolved")
        }
        if let root = configuration.webRoot {
            guard FileIO.isDirectory(root), let resolved = Containment.resolve(root) else { throw .noWebRoot(root) }
            web = WebFiles(liveRoot: resolved)
        } else {
            web = WebFiles.bundled()
        }
        self.configuration = configuration
        editing = configuration.edit.map(EditService.init)
        library = Library(containment: containment)
        store = AssetStore(
            cacheDirectory: cache, containment: containment, pool: WorkPool(width: configuration.workers),
            cacheLimit: configuration.cacheLimit, protectFor: configuration.cacheProtectSeconds)
    }

    /// How many cache files this process has prepared so far.
    public func preparedCount() async -> Int { await store.preparations.made }

    /// How many preparations failed (each failure is remembered, so asking again costs nothing).
    public func failedCount() async -> Int { await store.preparations.failed }

    /// Ids of the books found, with whether each loaded.
    public func books() async -> [(id: String, ok: Bool)] {
        await library.all().map { s in
            if case .ok = s { return (s.id, true) }
            return (s.id, false)
        }
    }

    /// Prepares both thumbnails of every page of every book, one at a time so it never takes
    /// more than one worker from the readers' own requests. Failures are left for the request
    /// that meets them to report.
    public func warmUp() async {
        for state in await library.all() {
            guard case .ok(let book) = state else { continue }
            for n in 1...book.book.pages.count {
                if Task.isCancelled { return }
                for scale in [2, 1] { _ = try? await store.asset(.thumb(scale: scale), page: n, of: book) }
            }
        }
    }

    /// The application: `onRunning` is told the port once the server listens.
    public func makeApplication(
        host: String = "127.0.0.1", port: Int = 8080, onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
    ) -> some ApplicationProtocol {
        var logger = Logger(label: "picturebook.reader")
        logger.logLevel = configuration.verbose ? .info : .error
        // HEAD answers every GET route with the same headers (Content-Length included) and no body.
        let router = Router(context: ReaderContext.self, options: .autoGenerateHeadEndpoints)
        router.add(middleware: SecurityHeaders(editing: editing != nil))
        router.add(middleware: JSONErrors())
        if let allowed = configuration.allowedHosts { router.add(middleware: HostCheck(allowed: allowed)) }
        if configuration.verbose { router.add(middleware: LogRequestsMiddleware(.info)) }
        addRoutes(to: router)
        addIIIFRoutes(to: router)
        if let editing { addEditRoutes(to: router, service: editing) }
        let cap = configuration.maxConnections ?? Connections.defaultCap()
        return Application(
            router: router,
            server: .http1(configuration: .init(idleTimeout: .milliseconds(Int64(configuration.idleTimeout * 1000)))),
            configuration: .init(
                address: .hostname(host, port: port), serverName: nil,
                availableConnectionsDelegate: MaximumAvailableConnections(cap, logger: logger)),
            onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? port) },
            logger: logger)
    }

    // MARK: Routes

    func addRoutes(to router: Router<ReaderContext>) {
        router.get("/api/books") { request, _ in
            let (bytes, etag) = await self.library.listingDocument()
            return Self.respond(bytes, type: Self.json, etag: etag, cache: Self.revalidate, request: request)
        }
        router.get("/api/books/:id") { request, context in
            let book = try await self.loadedBook(context)
            return Self.respond(book.manifest, type: Self.json, etag: book.manifestETag, cache: Self.revalidate, request: request)
        }
        router.get("/api/books/:id/layout") { request, context in
            let book = try await self.loadedBook(context)
            let viewport = try Self.viewport(Query(request))
            let bytes = Manifest.layout(book: book.book, viewport: viewport).bytes
            return Self.respond(bytes, type: Self.json, etag: ETag.of(bytes), cache: Self.revalidate, request: request)
        }
        router.get("/api/books/:id/transition") { request, context in
            let book = try await self.loadedBook(context)
            let q = Query(request)
            let kindText = q.get("kind") ?? "zoom"
            guard let kind = Manifest.TransitionKind(rawValue: kindText) else {
                throw APIError(.badRequest, "kind must be zoom or rotate, got '\(kindText)'")
            }
            let page = try Self.integer(q, "page", in: 1...book.book.pages.count, default: nil)
            let frames = try Self.integer(q, "frames", in: 2...120, default: 24)
            let viewport = try Self.viewport(q)
            guard let doc = Manifest.transition(book: book.book, kind: kind, page: page, viewport: viewport, frames: frames) else {
                throw APIError(.notFound, "page \(page) of \(book.id) is on no screen")
            }
            let bytes = doc.bytes
            return Self.respond(bytes, type: Self.json, etag: ETag.of(bytes), cache: Self.revalidate, request: request)
        }
        router.get("/api/books/:id/pages/:n/scan") { request, context in
            let w = try Self.optionalInteger(Query(request), "w", in: 1...100_000)
            return try await self.asset(.scan(width: w), request: request, context: context)
        }
        router.get("/api/books/:id/pages/:n/cleared") { request, context in
            let w = try Self.optionalInteger(Query(request), "w", in: 1...100_000)
            return try await self.asset(.cleared(width: w), request: request, context: context)
        }
        router.get("/api/books/:id/pages/:n/clearance") { request, context in
            try await self.clearance(request: request, context: context)
        }
        router.get("/api/books/:id/pages/:n/thumb") { request, context in
            let size = Query(request).get("size") ?? "1x"
            guard size == "1x" || size == "2x" else { throw APIError(.badRequest, "size must be 1x or 2x, got '\(size)'") }
            return try await self.asset(.thumb(scale: size == "2x" ? 2 : 1), request: request, context: context)
        }
        router.get("/api/books/:id/pages/:n/popout/:box") { request, context in
            let box = Self.decoded(context.parameters.get("box") ?? "")
            var scale: Double?
            if let s = Query(request).get("scale") {
                guard let v = Double(s), v.isFinite, v >= 0.25, v <= 8 else {
                    throw APIError(.badRequest, "scale must be a number from 0.25 to 8, got '\(s)'")
                }
                // Each distinct scale is a new cached image, so only the steps the reader asks for
                // exist: halves, rounded up (7.5000001 and 7.5000002 are both 8, not two files).
                scale = (v * 2).rounded(.up) / 2
            }
            return try await self.asset(.popout(boxID: box, scale: scale), request: request, context: context)
        }
        router.get("/") { request, _ in try await self.webFile("index.html", request: request) }
        router.get("/index.html") { request, _ in try await self.webFile("index.html", request: request) }
        router.get("/static/**") { request, context in
            let parts = context.parameters.getCatchAll().map { Self.decoded(String($0)) }
            return try await self.webFile(parts.joined(separator: "/"), request: request)
        }
    }

    // MARK: Helpers

    static let json = "application/json; charset=utf-8"
    /// JSON and the app: always revalidated (cheap with the ETag), so an edit shows at once.
    static let revalidate = "no-cache"
    /// Images: an hour without asking, then revalidated; a changed scan gets a new ETag.
    static let images = "public, max-age=3600"

    static func decoded(_ s: String) -> String { s.removingPercentEncoding ?? s }

    func bookState(_ context: ReaderContext) async throws -> BookState {
        let raw = context.parameters.get("id") ?? ""
        // Looked up by name among the discovered folders; the text is never used as a path.
        if let s = await library.book(raw) { return s }
        let decoded = Self.decoded(raw)
        if decoded != raw, let s = await library.book(decoded) { return s }
        throw APIError(.notFound, "no book '\(decoded)' in the library")
    }

    func loadedBook(_ context: ReaderContext) async throws -> LoadedBook {
        switch try await bookState(context) {
        case .ok(let b): return b
        case .broken(let id, let problems):
            throw APIError(.unprocessableContent, "the book '\(id)' cannot be read: " + problems.joined(separator: "; "))
        }
    }

    func asset(_ what: AssetRequest, request: Request, context: ReaderContext) async throws -> Response {
        try await onPage(context) { book, n in
            let a = try await self.store.asset(what, page: n, of: book)
            // While books are being edited a page's cleared image or popout may change under the
            // same URL: browsers revalidate (cheap, the ETag is a hash of what the image is made
            // from) instead of keeping an old one for an hour.
            let cache = self.editing == nil ? Self.images : Self.revalidate
            return Self.respond(a.bytes, type: a.contentType, etag: a.etag, cache: cache, request: request)
        }
    }

    /// `GET .../pages/{n}/clearance`: which boxes the page's cleared image left as scanned. The
    /// reader shows ClearText only on a page whose image left none (Clearance.swift).
    func clearance(request: Request, context: ReaderContext) async throws -> Response {
        try await onPage(context) { book, n in
            let c = try await self.store.clearance(page: n, of: book)
            let boxes = book.book.pages[n - 1].textBoxes
            let kept: [JSON] = c.kept.map { k in
                .object([
                    ("id", .string(boxes[k.index].id)), ("role", .optional(boxes[k.index].role?.rawValue)), ("rect", .rect(boxes[k.index].rect)),
                    ("reason", .optional(k.reason?.rawValue)), ("why", .optional(k.reason?.description)),
                ])
            }
            let bytes = JSON.object([
                ("page", .int(n)), ("cleared", .bool(c.showsClearText(boxes))),
                ("judgedBy", .string(c.byClear ? "clear" : "server")), ("kept", .array(kept)),
            ]).bytes
            return Self.respond(bytes, type: Self.json, etag: ETag.of(bytes), cache: Self.revalidate, request: request)
        }
    }

    /// Runs `work` on the page a request names, its asset errors as HTTP errors.
    private func onPage(_ context: ReaderContext, _ work: (LoadedBook, Int) async throws -> Response) async throws -> Response {
        let state = try await bookState(context)
        // A broken book's pages are not served: its images may be exactly what is broken
        // (say a symlink out of the books folder).
        guard case .ok(let book) = state else {
            throw APIError(.notFound, "the book '\(state.id)' is broken, so its pages are not served; see /api/books")
        }
        let nText = context.parameters.get("n") ?? ""
        guard let n = Int(nText), n >= 1, n <= book.book.pages.count else {
            throw APIError(.notFound, "\(book.id) has no page '\(Self.decoded(nText))' (pages are 1...\(book.book.pages.count))")
        }
        do {
            return try await work(book, n)
        } catch let e as AssetError {
            switch e {
            case .notFound(let m): throw APIError(.notFound, m)
            case .badRequest(let m): throw APIError(.badRequest, m)
            case .failed(let m):
                // The client learns which file is at fault, never where the server keeps it.
                let relative = m.replacingOccurrences(of: book.directory + "/", with: "")
                    .replacingOccurrences(of: configuration.booksDirectory + "/", with: "")
                throw APIError(.internalServerError, relative)
            }
        }
    }

    func webFile(_ name: String, request: Request) async throws -> Response {
        guard let file = try await web.file(name, pool: store.pool) else { throw APIError(.notFound, "no file '\(name)'") }
        return Self.respond(file.bytes, type: file.type, etag: file.etag, cache: Self.revalidate, request: request)
    }

    static func respond(_ bytes: [UInt8], type: String, etag: String, cache: String, request: Request) -> Response {
        var headers = HTTPFields()
        headers[.eTag] = etag
        headers[.cacheControl] = cache
        if ETag.matches(request.headers[.ifNoneMatch], etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = type
        headers[.xContentTypeOptions] = "nosniff"
        return Response(status: .ok, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }

    static func optionalInteger(_ q: Query, _ name: String, in range: ClosedRange<Int>) throws -> Int? {
        guard let s = q.get(name) else { return nil }
        guard let v = Int(s), range.contains(v) else {
            throw APIError(.badRequest, "\(name) must be a whole number from \(range.lowerBound) to \(range.upperBound), got '\(s)'")
        }
        return v
    }

    static func integer(_ q: Query, _ name: String, in range: ClosedRange<Int>, default d: Int?) throws -> Int {
        if let v = try optionalInteger(q, name, in: range) { return v }
        guard let d else { throw APIError(.badRequest, "\(name) is required (\(range.lowerBound)...\(range.upperBound))") }
        return d
    }

    static func number(_ q: Query, _ name: String, in range: ClosedRange<Double>, default d: Double) throws -> Double {
        guard let s = q.get(name) else { return d }
        guard let v = Double(s), v.isFinite, range.contains(v) else {
            throw APIError(.badRequest, "\(name) must be a number from \(range.lowerBound) to \(range.upperBound), got '\(s)'")
        }
        return v
    }

    static func viewport(_ q: Query) throws -> Viewport {
        let w = try integer(q, "width", in: 100...10_000, default: nil)
        let h = try integer(q, "height", in: 100...10_000, default: nil)
        let scale = try number(q, "scale", in: 0.5...8, default: 1)
        let text = try number(q, "textSize", in: 6...96, default: 18)
        let limit = Double(min(w, h)) / 3
        let safe = EdgeInsets(
            top: try number(q, "safeTop", in: 0...limit, default: 0), left: try number(q, "safeLeft", in: 0...limit, default: 0),
            bottom: try number(q, "safeBottom", in: 0...limit, default: 0), right: try number(q, "safeRight", in: 0...limit, default: 0))
        return Viewport(size: Size(width: Double(w), height: Double(h)), scale: scale, safeArea: safe, readableTextSize: text)
    }
}

/// The query string's parameters (the first of repeated names).
struct Query {
    let values: [String: String]
    init(_ request: Request) {
        var v: [String: String] = [:]
        for (k, value) in request.uri.queryParameters where v[String(k)] == nil { v[String(k)] = String(value) }
        values = v
    }
    func get(_ name: String) -> String? { values[name] }
}

/// An API failure with its status and human message.
struct APIError: Error, CustomStringConvertible {
    let status: HTTPResponse.Status
    let message: String
    init(_ status: HTTPResponse.Status, _ message: String) {
        self.status = status
        self.message = message
    }
    var description: String { message }
}

/// On every response, errors included: no sniffing, no framing, no referrer, and a content policy
/// that lets the reader's own files (and nothing else) run. Methods other than GET and HEAD get
/// 405: the reader only reads, except for the editing API when the server edits (without
/// --edit those paths do not exist at all: 404 whatever the method).
struct SecurityHeaders: RouterMiddleware {
    typealias Context = ReaderContext
    static let contentSecurityPolicy =
        "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:; "
        + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

    static let frameOptions = HTTPFields.Element.Name("X-Frame-Options")!
    static let referrerPolicy = HTTPFields.Element.Name("Referrer-Policy")!

    let editing: Bool

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        var response: Response
        let editPath = EditService.isEditPath(request.uri.path)
        if editPath && !editing {
            response = JSONErrors.error(.notFound, "no such path: \(request.uri.path) (editing is off; start the server with --edit)")
        } else if request.method == .get || request.method == .head || (editPath && [.post, .put, .delete].contains(request.method)) {
            response = try await next(request, context)
        } else {
            response = JSONErrors.error(.methodNotAllowed, "\(request.method) is not allowed here; the reader serves GET and HEAD")
            response.headers[.allow] = "GET, HEAD"
        }
        response.headers[.xContentTypeOptions] = "nosniff"
        response.headers[Self.frameOptions] = "DENY"
        response.headers[.contentSecurityPolicy] = Self.contentSecurityPolicy
        response.headers[Self.referrerPolicy] = "no-referrer"
        return response
    }
}

/// Turns every error (ours, the router's 404 for an unknown path, anything unexpected) into
/// `{"error": "..."}` with the right status.
struct JSONErrors: RouterMiddleware {
    typealias Context = ReaderContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let response: Response
        do {
            return try await next(request, context)
        } catch let e as APIError {
            response = Self.error(e.status, e.message)
        } catch let e as HTTPError {
            let message = e.body ?? (e.status == .notFound ? "no such path: \(request.uri.path)" : e.status.reasonPhrase)
            response = Self.error(e.status, message)
        } catch {
            FileHandle.standardError.write(Data("picturebook serve: \(request.uri.path): \(error)\n".utf8))
            response = Self.error(.internalServerError, "internal error; the server's log has the details")
        }
        return request.method == .head ? response.createHeadResponse() : response
    }

    static func error(_ status: HTTPResponse.Status, _ message: String) -> Response {
        let bytes = JSON.object([("error", .string(message))]).bytes
        var headers = HTTPFields()
        headers[.contentType] = ReaderServer.json
        headers[.cacheControl] = "no-store"
        headers[.eTag] = ETag.of(bytes)
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
