// The books folder as the server sees it: every subfolder is a book, found by listing the folder
// and looked up by its name in a dictionary, never by joining request text into a path. Every
// path the server opens has been resolved (symlinks included) and checked to lie inside the books
// folder first.

import BookModel
import Codecs
import FileIO
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Resolved paths and the rule that keeps them inside the books folder.
struct Containment: Sendable {
    /// The books folder, symlinks resolved, without a trailing slash.
    let root: String

    init?(booksDirectory: String) {
        guard let r = Containment.resolve(booksDirectory), FileIO.isDirectory(r) else { return nil }
        root = r
    }

    /// `path` with every symlink, `.` and `..` resolved; nil when it does not exist.
    static func resolve(_ path: String) -> String? {
        guard let p = realpath(path, nil) else { return nil }
        defer { free(p) }
        return String(cString: p)
    }

    /// The resolved `path` when it exists and lies strictly inside the books folder.
    func inside(_ path: String) -> String? {
        guard let r = Containment.resolve(path) else { return nil }
        let prefix = root == "/" ? "/" : root + "/"
        return r.hasPrefix(prefix) && r.count > prefix.count ? r : nil
    }
}

/// A book folder that loaded and validated.
struct LoadedBook: Sendable {
    let id: String
    /// The folder, resolved.
    let directory: String
    let book: Book
    /// Each page's scan, resolved and inside the books folder (index = page number − 1).
    let pagePaths: [String]
    let manifest: [UInt8]
    let manifestETag: String
    let summary: JSON

    var displayTitle: String { book.title.text(for: book.languages.first ?? "") ?? id }
}

/// One entry of the library listing.
enum BookState: Sendable {
    case ok(LoadedBook)
    case broken(id: String, problems: [String])

    var id: String {
        switch self {
        case .ok(let b): return b.id
        case .broken(let id, _): return id
        }
    }

    var displayTitle: String {
        switch self {
        case .ok(let b): return b.displayTitle
        case .broken(let id, _): return id
        }
    }

    var summary: JSON {
        switch self {
        case .ok(let b): return b.summary
        case .broken(let id, let problems):
            return .object([
                ("id", .string(id)), ("status", "error"), ("displayTitle", .string(id)),
                ("problems", .array(problems.map(JSON.string))),
            ])
        }
    }
}

/// The books, re-listed at most once per `refreshInterval` so a book dropped into the folder
/// shows up without a restart; a book is re-read only when its book.json changed.
actor Library {
    let containment: Containment
    let refreshInterval: Double
    private var states: [String: BookState] = [:]
    private var keys: [String: String] = [:]
    private var lastRefresh: Double = -.infinity
    private var listing: (bytes: [UInt8], etag: String)?

    init(containment: Containment, refreshInterval: Double = 2) {
        self.containment = containment
        self.refreshInterval = refreshInterval
    }

    /// The book named `id`, when the folder has one (broken or not).
    func book(_ id: String) -> BookState? {
        refreshIfStale()
        return states[id]
    }

    func all() -> [BookState] {
        refreshIfStale()
        return states.values.sorted { a, b in
            let c = a.displayTitle.localizedStandardCompare(b.displayTitle)
            return c == .orderedSame ? a.id < b.id : c == .orderedAscending
        }
    }

    /// The `/api/books` document, rebuilt only when a book changed.
    func listingDocument() -> (bytes: [UInt8], etag: String) {
        refreshIfStale()
        if let listing { return listing }
        let bytes = JSON.object([("books", .array(all().map(\.summary)))]).bytes
        let made = (bytes, ETag.of(bytes))
        listing = made
        return made
    }

    /// Where book `id` lives, when the library has it (for a reload made off the actor).
    func folder(of id: String) -> String? {
        guard states[id] != nil, let resolved = containment.inside(containment.root + "/" + id), FileIO.isDirectory(resolved) else {
            return nil
        }
        return resolved
    }

    /// Puts a freshly loaded book in place (see `reload`).
    func install(_ id: String, _ state: BookState, key: String) {
        guard states[id] != nil else { return }
        keys[id] = key
        states[id] = state
        listing = nil
    }

    /// Re-reads one book now (after the editor saved it), without waiting for the next listing.
    /// The reading and validating happen off the actor, so requests for other books (and this
    /// one's old state) are not held up meanwhile; with `pool`, on its threads (the editor's
    /// low-priority ones) instead of the task's: decoding the book and reading every scan's size
    /// then does not hold one of the few threads that answer requests, saves among them.
    @discardableResult
    nonisolated func reload(_ id: String, on pool: WorkPool? = nil) async -> BookState? {
        guard let resolved = await folder(of: id) else { return await book(id) }
        let manifest = BookDirectory.manifestPath(in: resolved)
        let key = FileIO.exists(manifest) ? "\(FileIO.modificationTime(manifest) ?? -1)/\(Self.size(manifest))" : "none"
        let containment = self.containment
        let load = { @Sendable in Library.load(id: id, directory: resolved, containment: containment) }
        let state: BookState
        if let pool, let loaded = try? await pool.run(load) { state = loaded } else { state = load() }
        await install(id, state, key: key)
        return state
    }

    nonisolated static func size(_ path: String) -> Int {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
    }

    func refreshIfStale() {
        let now = ProcessInfo.processInfo.systemUptime
        guard now - lastRefresh >= refreshInterval else { return }
        lastRefresh = now
        refresh()
    }

    /// Re-lists the books folder.
    func refresh() {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: containment.root)) ?? []
        var seen = Set<String>()
        for name in names where !name.hasPrefix(".") {
            let folder = containment.root + "/" + name
            // A folder (or a symlink to one) that resolves outside the books folder is not a book
            // of this library at all: it is neither listed nor reachable.
            guard let resolved = containment.inside(folder), FileIO.isDirectory(resolved) else { continue }
            seen.insert(name)
            let manifest = BookDirectory.manifestPath(in: resolved)
            let key = FileIO.exists(manifest) ? "\(FileIO.modificationTime(manifest) ?? -1)/\(fileSize(manifest))" : "none"
            if keys[name] == key, states[name] != nil { continue }
            keys[name] = key
            states[name] = Library.load(id: name, directory: resolved, containment: containment)
            listing = nil
        }
        for gone in Set(states.keys).subtracting(seen) {
            states[gone] = nil
            keys[gone] = nil
            listing = nil
        }
    }

    private func fileSize(_ path: String) -> Int {
        Self.size(path)
    }

    /// Reads and validates one book folder. Page images are checked by their headers (a scan
    /// that is not a PNG or JPEG, or whose size differs from the manifest's, makes the book
    /// broken) and must resolve inside the books folder.
    static func load(id: String, directory: String, containment: Containment) -> BookState {
        var escaped: [String] = []
        let imageSize: (String) -> (Int, Int)? = { path in
            guard let inside = containment.inside(path) else {
                if FileIO.exists(path) { escaped.append(path) }
                return nil
            }
            guard let info = try? ImageDecoder.info(file: inside) else { return nil }
            return (info.orientedWidth, info.orientedHeight)
        }
        let book: Book
        do {
            book = try Book.load(directory: directory, imageSize: imageSize).book
        } catch {
            var problems: [String]
            switch error {
            case .invalid(_, let diagnostics):
                problems = diagnostics.errors.map { $0.formatted(file: BookDirectory.manifestName) }
            case .malformedJSON(_, let e):
                problems = ["\(BookDirectory.manifestName):\(e.location.line):\(e.location.column): error: \(e.message)"]
            case .notFound:
                problems = ["there is no \(BookDirectory.manifestName) in this folder"]
            default:
                problems = [error.description.replacingOccurrences(of: directory + "/", with: "")]
            }
            for path in escaped {
                let name = path.hasPrefix(directory + "/") ? String(path.dropFirst(directory.count + 1)) : path
                problems.append("\(name): the image lies outside the books folder (a symlink?), so it is not served")
            }
            return .broken(id: id, problems: problems)
        }
        if book.pages.isEmpty { return .broken(id: id, problems: ["\(BookDirectory.manifestName): the book has no pages"]) }
        var paths: [String] = []
        for page in book.pages {
            // Validation passed, so every image resolved inside; resolve again for the path.
            guard let p = containment.inside(BookDirectory.imagePath(of: page, in: directory)) else {
                return .broken(id: id, problems: ["\(page.image): the image lies outside the books folder"])
            }
            paths.append(p)
        }
        let manifest = Manifest.document(id: id, book: book).bytes
        return .ok(LoadedBook(
            id: id, directory: directory, book: book, pagePaths: paths, manifest: manifest,
            manifestETag: ETag.of(manifest), summary: Manifest.summary(id: id, book: book)))
    }
}

/// Strong validators: a 64-bit FNV-1a hash of the bytes (or of the key they are made from).
enum ETag {
    static func of(_ bytes: some Sequence<UInt8>) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01b3
        }
        let hex = String(h, radix: 16)
        return "\"" + String(repeating: "0", count: 16 - hex.count) + hex + "\""
    }

    static func of(key: String) -> String { of(Array(key.utf8)) }

    /// True when an If-None-Match header value names `etag` (or is `*`).
    static func matches(_ header: String?, _ etag: String) -> Bool {
        guard let header else { return false }
        for part in header.split(separator: ",") {
            var t = part.trimmingCharacters(in: .whitespaces)
            if t == "*" { return true }
            if t.hasPrefix("W/") { t = String(t.dropFirst(2)) }
            if t == etag { return true }
        }
        return false
    }
}
