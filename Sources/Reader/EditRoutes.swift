// `picturebook serve --edit`: sign-in and the editing API (Documentation/Editing.md). Accounts
// and the journal live in their own modules; this file is only their HTTP face: cookies, CSRF,
// status codes, and the background remaking of a saved page's ClearText and popout images.

public import Accounts
import BookModel
import Dispatch
import Editor
import FileIO
import Foundation
public import Hummingbird
import HTTPTypes
import NIOCore

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The editing half of the server's configuration.
public struct EditConfiguration: Sendable {
    /// `<library>/.picturebook/users.json` unless given.
    public var usersFile: String
    /// Mark the session cookie `Secure` even when no proxy says the request came over HTTPS.
    public var secureCookies: Bool
    /// How failed sign-ins slow the next attempt, per account and per client address.
    public var accountSignIns = SignInLimiter.Policy(freeFailures: 3)
    public var addressSignIns = SignInLimiter.Policy(freeFailures: 10)

    public init(usersFile: String, secureCookies: Bool = false) {
        self.usersFile = usersFile
        self.secureCookies = secureCookies
    }
}

/// The request context: Hummingbird's basic one plus the peer's address, which the sign-in rate
/// limit counts by.
public struct ReaderContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let peer: String?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        peer = source.channel.remoteAddress?.ipAddress
    }
}

/// Everything the editing routes share.
final class EditService: Sendable {
    let configuration: EditConfiguration
    let users: UserDirectory
    let sessions = Sessions()
    let limiter: SignInLimiter
    let editors = EditorRegistry()
    let status = RegenerationStatus()
    /// Argon2id takes 64 MiB and tens of milliseconds per check: two at a time at most.
    let hashing = WorkPool(width: 2)
    /// Remaking saved pages' images: one at a time, at a lower CPU priority than requests, so a
    /// burst of saves does not slow the saves themselves (measured: Documentation/Editing.md).
    let regenerating = WorkPool(width: 1, lowPriority: true)
    let reloads = BookReloads()

    init(configuration: EditConfiguration) {
        self.configuration = configuration
        limiter = SignInLimiter(account: configuration.accountSignIns, address: configuration.addressSignIns)
        users = UserDirectory(store: UserStore(path: configuration.usersFile))
    }

    static let cookieName = "pb_session"
    static let csrfHeader = HTTPField.Name("X-CSRF-Token")!
    static let forwardedProto = HTTPField.Name("X-Forwarded-Proto")!
    static let forwardedFor = HTTPField.Name("X-Forwarded-For")!
    static let retryAfter = HTTPField.Name("Retry-After")!
    static let bodyLimit = 8 << 20

    /// True for the paths only an editing server answers.
    static func isEditPath(_ path: String) -> Bool {
        path == "/api/session" || path.hasPrefix("/api/edit/") || path == "/api/edit"
    }
}

/// The users file, re-read when it changes so `picturebook users` works on a running server.
actor UserDirectory {
    let store: UserStore
    private var key = ""
    private var users: [String: User] = [:]

    init(store: UserStore) { self.store = store }

    func user(_ name: String) -> User? {
        var st = stat()
        let k = stat(store.path, &st) == 0 ? "\(st.st_ino):\(st.st_size):\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)" : "-"
        if k != key {
            // An unreadable file signs no one in rather than keeping stale accounts alive.
            users = Dictionary(((try? store.load()) ?? []).map { ($0.name, $0) }, uniquingKeysWith: { a, _ in a })
            key = k
        }
        return users[name]
    }
}

/// One `BookEditor` per book, opened (and its journal replayed) on first use.
actor EditorRegistry {
    private var editors: [String: BookEditor] = [:]

    func editor(id: String, directory: String) async throws -> BookEditor {
        if let e = editors[id], e.directory == directory { return e }
        let e = try await offload { () throws(EditError) in try BookEditor(directory: directory) }
        editors[id] = e
        return e
    }

    func all() -> [BookEditor] { Array(editors.values) }
}

/// Runs blocking editor work (a save waiting for its group commit, fsyncs) on a thread of its
/// own, neither the server's nor Dispatch's global pool: on Linux that pool is as wide as the
/// cores and adds threads only slowly when its threads block, so twenty saves waiting on one
/// batch queued behind two threads (Documentation/Editing.md, "where the time goes"). Saves
/// need a signed-in editor and connections are capped, which bounds the threads.
func offload<T: Sendable>(_ work: @escaping @Sendable () throws(EditError) -> T) async throws -> T {
    try await withCheckedThrowingContinuation { c in
        let thread = Thread {
            do { c.resume(returning: try work()) } catch { c.resume(throwing: error) }
        }
        thread.start()
    }
}

/// With PICTUREBOOK_SAVE_TIMING set, one line per page save on standard error: where its time
/// went inside the server, in ms (Tools/bench-saves.py --timing summarises them).
struct RequestTiming: Sendable {
    static let enabled = ProcessInfo.processInfo.environment["PICTUREBOOK_SAVE_TIMING"].map { !$0.isEmpty && $0 != "0" } ?? false
    static func now() -> Double { Double(DispatchTime.now().uptimeNanoseconds) / 1_000_000 }
}

/// The moments of one save, filled in as it goes (from several threads, one after the other).
final class SaveMoments: @unchecked Sendable {
    var start = RequestTiming.now(), queued = 0.0, running = 0.0, saved = 0.0, resumed = 0.0

    func report() {
        guard RequestTiming.enabled else { return }
        let end = RequestTiming.now()
        let f = { (x: Double) in String(format: "%.2f", x) }
        let line = "save-request: total \(f(end - start))  before \(f(queued - start))  thread \(f(running - queued))  "
            + "save \(f(saved - running))  resume \(f(resumed - saved))  after \(f(end - resumed))\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}

/// The re-reads of a book its saves ask for, shared: a save needs a re-read that started after it
/// was written, and one such re-read serves every save before its start. Twenty editors saving
/// at once then cost a few re-reads of the book (each decodes it and reads every scan's size)
/// instead of one each, CPU the saves themselves were waiting for.
actor BookReloads {
    private var latest: [String: (started: UInt64, task: Task<BookState?, Never>)] = [:]

    /// Monotonic: a clock step must not make an old re-read look newer than a save.
    static func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

    func reload(_ id: String, savedAt saved: UInt64, _ library: Library, on pool: WorkPool? = nil) async -> BookState? {
        if let last = latest[id], last.started >= saved { return await last.task.value }
        let started = Self.now()
        let task = Task { await library.reload(id, on: pool) }
        latest[id] = (started, task)
        return await task.value
    }
}

/// Where the remaking of each saved page's images stands.
actor RegenerationStatus {
    struct State {
        var revision: String
        var clear = "pending"
        var popout = "pending"
    }

    private var states: [String: State] = [:]

    func start(_ key: String, revision: String) { states[key] = State(revision: revision) }

    func set(_ key: String, revision: String, clear: String? = nil, popout: String? = nil) {
        // A newer save took over this page: its own job reports.
        guard var s = states[key], s.revision == revision else { return }
        if let clear { s.clear = clear }
        if let popout { s.popout = popout }
        states[key] = s
    }

    func get(_ key: String) -> State? { states[key] }
}

extension ReaderServer {
    /// With --edit, opens every book's journal at start, so an entry that a crash left out of
    /// book.json is replayed before the reader serves the book. Returns the problems met (a
    /// book whose journal cannot be read is still served read-only; editing it answers 500).
    public func openJournals() async -> [String] {
        guard let editing else { return [] }
        var problems: [String] = []
        for state in await library.all() {
            guard case .ok(let book) = state else { continue }
            do {
                _ = try await editing.editors.editor(id: book.id, directory: book.directory)
                await library.reload(book.id)
            } catch {
                problems.append("\(book.id): \(error)")
            }
        }
        return problems
    }

    /// When the server stops: writes every book.json still behind its journal (a save answers
    /// before its book.json is written). Returns the problems met; the changes of a book whose
    /// book.json cannot be written stay in its journal, and the next start replays them.
    public func finishEdits() async -> [String] {
        guard let editing else { return [] }
        var problems: [String] = []
        for editor in await editing.editors.all() {
            do { try await offload { () throws(EditError) in try editor.finishWrites() } } catch {
                problems.append("\(editor.directory): \(error)")
            }
        }
        return problems
    }

    func addEditRoutes(to router: Router<ReaderContext>, service edit: EditService) {
        router.get("/api/session") { request, _ in
            let (session, user) = try await self.signedIn(request, edit)
            return Self.jsonResponse(.ok, ["name": .string(user.name), "role": .string(user.role.rawValue), "csrf": .string(session.csrf)])
        }
        router.post("/api/session") { request, context in try await self.signIn(request, context, edit) }
        router.delete("/api/session") { request, _ in
            let (session, _) = try await self.authorised(request, edit, role: .editor)
            await edit.sessions.revoke(session.token)
            var r = Response(status: .noContent)
            r.headers[.setCookie] = Self.cookie("", secure: Self.isSecure(request, edit), clear: true)
            r.headers[.cacheControl] = "no-store"
            return r
        }
        router.get("/api/edit/books/:id") { request, context in
            _ = try await self.signedIn(request, edit)
            let (_, editor) = try await self.editor(context, edit)
            let snap = try await Self.run { () throws(EditError) in try editor.snapshot() }
            var r = Self.jsonResponse(.ok, ["revision": .string(snap.revision), "book": snap.book])
            r.headers[.eTag] = "\"\(snap.revision)\""
            return r
        }
        router.put("/api/edit/books/:id/pages/:n") { request, context in
            let moments = SaveMoments()
            let (_, user) = try await self.authorised(request, edit, role: .editor)
            let base = try Self.ifMatch(request)
            let (book, editor) = try await self.editor(context, edit)
            let n = try Self.pageNumber(context, editor)
            let page = try await Self.body(request)
            defer { moments.report() }
            return try await self.changed(book: book, n: n, editor, edit) {
                moments.queued = RequestTiming.now()
                // Set on a 409 or 400 too: those are timed like the 200s.
                defer { moments.resumed = RequestTiming.now() }
                return try await Self.run { () throws(EditError) in
                    moments.running = RequestTiming.now()
                    defer { moments.saved = RequestTiming.now() }
                    return try editor.savePage(n, page, base: base, user: user.name)
                }
            }
        }
        router.post("/api/edit/books/:id/pages/:n/undo") { request, context in
            let (_, user) = try await self.authorised(request, edit, role: .editor)
            let base = try Self.ifMatch(request)
            let (book, editor) = try await self.editor(context, edit)
            let n = try Self.pageNumber(context, editor)
            return try await self.changed(book: book, n: n, editor, edit) {
                try await Self.run { () throws(EditError) in try editor.undo(n, base: base, user: user.name) }
            }
        }
        router.get("/api/edit/books/:id/history") { request, context in
            _ = try await self.signedIn(request, edit)
            let (_, editor) = try await self.editor(context, edit)
            let entries = try await Self.run { () throws(EditError) in try editor.history() }
            return Self.jsonResponse(.ok, ["entries": .array(entries.map(Self.historyItem))])
        }
        router.get("/api/edit/books/:id/revisions/:revision") { request, context in
            _ = try await self.signedIn(request, edit)
            let (_, editor) = try await self.editor(context, edit)
            let target = context.parameters.get("revision") ?? ""
            do {
                let book = try await Self.run { () throws(EditError) in try editor.book(at: target) }
                return Self.jsonResponse(.ok, ["revision": .string(target), "book": book])
            } catch let e as EditError {
                return Self.editErrorResponse(e)
            }
        }
        router.post("/api/edit/books/:id/restore") { request, context in
            let (_, user) = try await self.authorised(request, edit, role: .admin)
            let base = try Self.ifMatch(request)
            let (book, editor) = try await self.editor(context, edit)
            guard let target = try await Self.body(request).objectValue?["revision"]?.stringValue else {
                throw APIError(.badRequest, "the body must be {\"revision\": \"...\"}")
            }
            do {
                let revision = try await Self.run { () throws(EditError) in try editor.restore(to: target, base: base, user: user.name) }
                // The reader's copy is read from book.json, written just after the answer.
                Task.detached(priority: .utility) {
                    if await Self.bookFileWritten(editor, revision) { await self.library.reload(book.id) }
                }
                var r = Self.jsonResponse(.ok, ["revision": .string(revision)])
                r.headers[.eTag] = "\"\(revision)\""
                return r
            } catch let e as EditError {
                return Self.editErrorResponse(e)
            }
        }
        router.get("/api/edit/books/:id/pages/:n/status") { request, context in
            _ = try await self.signedIn(request, edit)
            let (book, editor) = try await self.editor(context, edit)
            let n = try Self.pageNumber(context, editor)
            let s = await edit.status.get("\(book.id)/\(n)")
            return Self.jsonResponse(.ok, [
                "revision": .string(s?.revision ?? editor.revision), "clear": .string(s?.clear ?? "ready"),
                "popout": .string(s?.popout ?? "ready"),
            ])
        }
    }

    // MARK: Sign-in

    private func signIn(_ request: Request, _ context: ReaderContext, _ edit: EditService) async throws -> Response {
        // A form post from another site cannot set this type without a CORS preflight, which
        // this server never grants: the one write without a CSRF token is still not forgeable.
        let type = request.headers[.contentType]?.lowercased() ?? ""
        guard type.hasPrefix("application/json") else {
            throw APIError(.unsupportedMediaType, "sign-in needs Content-Type: application/json")
        }
        let body = try await Self.body(request).objectValue
        guard let name = body?["name"]?.stringValue, let password = body?["password"]?.stringValue else {
            throw APIError(.badRequest, "the body must be {\"name\": \"...\", \"password\": \"...\"}")
        }
        // No account has a longer name; refusing early keeps huge names out of the limiter's table.
        guard name.utf8.count <= 64, password.utf8.count <= Passwords.maximumLength else {
            throw APIError(.unauthorized, "wrong name or password")
        }
        let address = Self.clientAddress(request, context)
        if let wait = await edit.limiter.begin(account: name, address: address) {
            var r = JSONErrors.error(.tooManyRequests, "too many failed sign-ins; try again in \(Int(wait.rounded(.up))) s")
            r.headers[EditService.retryAfter] = String(max(1, Int(wait.rounded(.up))))
            return r
        }
        let user = await edit.users.user(name)
        // A missing account is checked against a decoy hash so it takes as long as a wrong password.
        let hash = user?.hash ?? Passwords.decoy
        let ok = try await edit.hashing.run { Passwords.verify(password, hash: hash) }
        guard ok, let user else {
            await edit.limiter.finish(account: name, address: address, success: false)
            throw APIError(.unauthorized, "wrong name or password")
        }
        await edit.limiter.finish(account: name, address: address, success: true)
        let session = await edit.sessions.create(name: user.name)
        var r = Self.jsonResponse(.ok, ["name": .string(user.name), "role": .string(user.role.rawValue), "csrf": .string(session.csrf)])
        r.headers[.setCookie] = Self.cookie(session.token, secure: Self.isSecure(request, edit), clear: false)
        return r
    }

    /// Behind a reverse proxy on this machine every peer is the proxy: then the proxy's
    /// X-Forwarded-For (its last entry, the one it added) names the client.
    static func clientAddress(_ request: Request, _ context: ReaderContext) -> String {
        let peer = context.peer ?? "unknown"
        if peer == "127.0.0.1" || peer == "::1", let f = request.headers[EditService.forwardedFor],
           let last = f.split(separator: ",").last?.trimmingCharacters(in: .whitespaces), !last.isEmpty
        {
            return last
        }
        return peer
    }

    static func isSecure(_ request: Request, _ edit: EditService) -> Bool {
        edit.configuration.secureCookies || request.headers[EditService.forwardedProto]?.lowercased() == "https"
    }

    static func cookie(_ token: String, secure: Bool, clear: Bool) -> String {
        var c = "\(EditService.cookieName)=\(token); HttpOnly; SameSite=Strict; Path=/"
        if clear { c += "; Max-Age=0" }
        if secure { c += "; Secure" }
        return c
    }

    /// The session and its user, or 401. A removed user's sessions end with the account.
    func signedIn(_ request: Request, _ edit: EditService) async throws -> (Session, User) {
        guard let token = Self.cookieValue(request, EditService.cookieName), let session = await edit.sessions.lookup(token) else {
            throw APIError(.unauthorized, "sign in first")
        }
        guard let user = await edit.users.user(session.name) else {
            await edit.sessions.revoke(token)
            throw APIError(.unauthorized, "sign in first")
        }
        return (session, user)
    }

    /// A write: signed in (401), the session's CSRF token echoed (403), the role allowed (403).
    func authorised(_ request: Request, _ edit: EditService, role: Role) async throws -> (Session, User) {
        let (session, user) = try await signedIn(request, edit)
        guard let sent = request.headers[EditService.csrfHeader], Passwords.constantTimeEqual(sent, session.csrf) else {
            throw APIError(.forbidden, "missing or wrong X-CSRF-Token header")
        }
        guard user.role.allows(role) else { throw APIError(.forbidden, "this needs the \(role.rawValue) role") }
        return (session, user)
    }

    static func cookieValue(_ request: Request, _ name: String) -> String? {
        for field in request.headers[values: .cookie] {
            for part in field.split(separator: ";") {
                let kv = part.trimmingCharacters(in: .whitespaces)
                if kv.hasPrefix(name + "=") { return String(kv.dropFirst(name.count + 1)) }
            }
        }
        return nil
    }

    // MARK: Editing helpers

    func editor(_ context: ReaderContext, _ edit: EditService) async throws -> (LoadedBook, BookEditor) {
        let state = try await bookState(context)
        guard case .ok(let book) = state else {
            throw APIError(.unprocessableContent, "the book '\(state.id)' is broken; fix its book.json before editing")
        }
        do {
            let editor = try await edit.editors.editor(id: book.id, directory: book.directory)
            return (book, editor)
        } catch let e as EditError {
            throw APIError(.internalServerError, Self.relative(e.description, book: book))
        }
    }

    static func relative(_ message: String, book: LoadedBook) -> String {
        message.replacingOccurrences(of: book.directory + "/", with: "")
    }

    static func pageNumber(_ context: ReaderContext, _ editor: BookEditor) throws -> Int {
        let text = context.parameters.get("n") ?? ""
        let count = editor.pageCount
        guard let n = Int(text), n >= 1, n <= count else {
            throw APIError(.notFound, "no page '\(decoded(text))' (pages are 1...\(count))")
        }
        return n
    }

    static func ifMatch(_ request: Request) throws -> String {
        guard var v = request.headers[.ifMatch]?.trimmingCharacters(in: .whitespaces), !v.isEmpty else {
            throw APIError(.preconditionRequired, "If-Match with the revision you edited is required")
        }
        if v.hasPrefix("W/") { v.removeFirst(2) }
        if v.count >= 2, v.hasPrefix("\""), v.hasSuffix("\"") { v = String(v.dropFirst().dropLast()) }
        return v
    }

    static func body(_ request: Request) async throws -> JSONValue {
        let buffer = try await request.body.collect(upTo: EditService.bodyLimit)
        do { return try JSONParser.parse(Array(buffer.readableBytesView)).value } catch {
            throw APIError(.badRequest, "the body is not JSON: \(error)")
        }
    }

    static func run<T: Sendable>(_ work: @escaping @Sendable () throws(EditError) -> T) async throws -> T {
        try await offload(work)
    }

    /// A page save or undo: the answer, then the page's images remade in the background.
    func changed(
        book: LoadedBook, n: Int, _ editor: BookEditor, _ edit: EditService, _ work: () async throws -> (revision: String, page: JSONValue)
    ) async throws -> Response {
        let result: (revision: String, page: JSONValue)
        do { result = try await work() } catch let e as EditError {
            return Self.editErrorResponse(e)
        }
        store.edits.record(book.pagePaths[n - 1], at: CacheUse.nowNanoseconds())
        let key = "\(book.id)/\(n)"
        await edit.status.start(key, revision: result.revision)
        let revision = result.revision
        Task.detached(priority: .utility) {
            await AssetStore.$backgroundPool.withValue(edit.regenerating) {
                await self.regenerate(id: book.id, n: n, key: key, revision: revision, editor: editor, edit)
            }
        }
        var r = Self.jsonResponse(.ok, ["revision": .string(result.revision), "page": result.page])
        r.headers[.eTag] = "\"\(result.revision)\""
        return r
    }

    /// Re-reads the book and prepares the page's cleared image and its boxes' popouts. Their cache
    /// names are hashes of the boxes, so the reader's usual URLs find the new images.
    func regenerate(id: String, n: Int, key: String, revision: String, editor: BookEditor, _ edit: EditService) async {
        // Saves in quick succession: only the newest one's images are worth making.
        guard await edit.status.get(key)?.revision == revision else { return }
        // The re-read is of book.json, which is written just after the save's answer.
        guard await Self.bookFileWritten(editor, revision) else {
            await edit.status.set(key, revision: revision, clear: "failed", popout: "failed")
            return
        }
        guard await edit.status.get(key)?.revision == revision else { return }
        let saved = BookReloads.now()
        guard case .ok(let book) = await edit.reloads.reload(id, savedAt: saved, library, on: edit.regenerating), n <= book.book.pages.count else {
            await edit.status.set(key, revision: revision, clear: "failed", popout: "failed")
            return
        }
        let page = book.book.pages[n - 1]
        if page.textBoxes.isEmpty {
            await edit.status.set(key, revision: revision, clear: "ready")
        } else {
            let ok = (try? await store.asset(.cleared(width: nil), page: n, of: book)) != nil
            await edit.status.set(key, revision: revision, clear: ok ? "ready" : "failed")
        }
        var popoutsOK = true
        for box in page.textBoxes where box.role != .pageNumber {
            if (try? await store.asset(.popout(boxID: box.id, scale: nil), page: n, of: book)) == nil { popoutsOK = false }
        }
        await edit.status.set(key, revision: revision, popout: popoutsOK ? "ready" : "failed")
    }

    /// Waits, off the server's threads, until book.json holds `revision`; false when its write
    /// failed (a full disk: the change is in the journal and is written later).
    static func bookFileWritten(_ editor: BookEditor, _ revision: String) async -> Bool {
        (try? await offload { () throws(EditError) in editor.waitForBookFile(revision: revision) }) ?? false
    }

    static func historyItem(_ e: JournalEntry) -> JSONValue {
        .object([
            "seq": .number(JSONNumber(e.seq)), "revision": .string(e.revision), "base": .string(e.base), "user": .string(e.user), "time": .string(e.time),
            "page": e.page.map { .number(JSONNumber($0)) } ?? .null, "kind": .string(e.kind.rawValue), "summary": .string(e.summary),
        ])
    }

    static func editErrorResponse(_ e: EditError) -> Response {
        switch e {
        case .notFound(let m): return JSONErrors.error(.notFound, m)
        case .badRequest(let m, let problems):
            return jsonResponse(.badRequest, ["error": .string(m), "problems": .array(problems.map(JSONValue.string))])
        case .conflict(let c):
            var r = jsonResponse(.conflict, [
                "error": .string("the page was changed by someone else since your revision"),
                "currentRevision": .string(c.currentRevision), "current": c.current, "yours": c.yours, "base": c.base ?? .null,
            ])
            r.headers[.eTag] = "\"\(c.currentRevision)\""
            return r
        case .diskFull(let m):
            FileHandle.standardError.write(Data("picturebook serve: \(m)\n".utf8))
            return JSONErrors.error(HTTPResponse.Status(code: 507, reasonPhrase: "Insufficient Storage"), "the server's disk is full; nothing was saved")
        case .storage(let m), .corrupt(let m):
            FileHandle.standardError.write(Data("picturebook serve: \(m)\n".utf8))
            return JSONErrors.error(.internalServerError, "the change could not be stored; nothing was saved (the server's log has the details)")
        }
    }

    static func jsonResponse(_ status: HTTPResponse.Status, _ object: JSONObject) -> Response {
        let bytes = Array(JSONWriter.compact(.object(object)).utf8)
        var headers = HTTPFields()
        headers[.contentType] = json
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: ResponseBody(byteBuffer: ByteBuffer(bytes: bytes)))
    }
}
