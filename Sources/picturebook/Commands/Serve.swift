import ArgumentParser
import FileIO
import Foundation
import Accounts
import Reader

/// `picturebook serve`: the web reader.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Serve the books of a folder to a web browser (the reader app and its JSON API).",
        discussion: """
            Every subfolder of BOOKS_DIR that holds a book.json is a book; its folder name is its id. \
            Open the printed URL in a browser: the library, each book's overview and the reading view \
            with PopoutText and ClearText. Page images are prepared on first request (thumbnails, \
            resized scans, cleared pages, text-block crops) and kept in the cache folder, so they are \
            made once and reused across restarts; a book's own clear/ output from `picturebook clear` \
            is used as it is. Thumbnails of every book are prepared in the background at start \
            (--no-warm skips that). The cache only grows; --prune-cache first deletes the files \
            of books no longer in BOOKS_DIR and files unused for 30 days. The cache is bounded by \
            --cache-size (default 4G): past it, the files used least recently are removed.

            Many clients: connections that send no complete request within --idle-timeout seconds \
            (idle keep-alives, clients dribbling their headers) are closed; at most \
            --max-connections are open at once (default: what the file-descriptor limit allows, \
            which serve raises to the system's hard limit), the rest wait to be accepted. On a \
            loopback address the server answers only to loopback host names (localhost, 127.0.0.1, \
            ::1), so a web page cannot reach it by rebinding its own DNS name; on other addresses \
            any name is accepted unless --allowed-host lists them.

            Only files inside BOOKS_DIR are ever served. A folder that is not a valid book is listed \
            with its problems instead of stopping the server. The API is described in \
            Documentation/ReaderAPI.md.

            On start one line is printed to stdout: `Picturebook reader: http://HOST:PORT/`. \
            Ctrl-C (or SIGTERM) stops the server.

            --edit turns on the editor: accounts made with `picturebook users add` sign in, and \
            their saves go to each book's journal (BOOK/.picturebook/journal.jsonl) before book.json \
            is replaced; `picturebook history` lists and restores them. Keep the default \
            127.0.0.1 bind and put a TLS reverse proxy in front for anything beyond this machine \
            (Documentation/Editing.md has a Caddy example).

            Examples:
              picturebook serve                        # Books/ at http://127.0.0.1:8080/
              picturebook serve ~/Scans --port 0       # a free port; the line says which
              picturebook serve --host 0.0.0.0         # reachable from a phone on the LAN
              picturebook serve --host 0.0.0.0 --allowed-host books.example.org --cache-size 20G
                                                       # behind a reverse proxy, a large library
              picturebook serve --web-root Sources/Reader/Web --verbose
                                                       # develop the app, log requests
            """)

    @Argument(help: ArgumentHelp("The folder holding one subfolder per book.", valueName: "books-dir"), completion: .directory)
    var books: String = "Books"

    @Option(help: "Port to listen on; 0 picks a free one.")
    var port: Int = 8080

    @Option(help: "Address to listen on (0.0.0.0 for every interface).")
    var host: String = "127.0.0.1"

    @Option(help: "Folder for prepared images (default $XDG_CACHE_HOME/picturebook or ~/.cache/picturebook).", completion: .directory)
    var cache: String?

    @Option(help: "Serve the app's files (index.html, static/) from this folder instead of the built-in copy.", completion: .directory)
    var webRoot: String?

    @Option(help: "Image preparations run at once (default: the number of cores).")
    var jobs: Int?

    @Flag(help: "Do not prepare every book's thumbnails at start.")
    var noWarm = false

    @Flag(help: "Before serving, delete cached images of books no longer in the folder and those unused for 30 days.")
    var pruneCache = false

    @Option(help: ArgumentHelp("Bound on the prepared-image cache, e.g. 500M, 4G; 0 for no bound.", valueName: "size"))
    var cacheSize: String = "4G"

    @Option(help: ArgumentHelp("Seconds a connection may go without a complete request before it is closed.", valueName: "seconds"))
    var idleTimeout: Double = 30

    @Option(help: "Open connections at most (default: the file-descriptor limit less a reserve).")
    var maxConnections: Int?

    @Option(help: ArgumentHelp("A host name requests may use (repeat for several; * for any).", valueName: "name"))
    var allowedHost: [String] = []

    @Flag(help: "Log every request on stderr.")
    var verbose = false

    @Flag(help: "Let signed-in editors change books (accounts: `picturebook users`; see Documentation/Editing.md).")
    var edit = false

    @Option(help: "With --edit: the users file (default BOOKS_DIR/.picturebook/users.json).", completion: .file())
    var users: String?

    @Flag(help: "With --edit: always mark the session cookie Secure (serve behind an HTTPS proxy).")
    var secureCookies = false

    func run() async throws {
        guard (0...65535).contains(port) else {
            Console.error("serve: --port must be 0...65535, got \(port)")
            throw ExitCode.failure
        }
        if let jobs, !(1...64).contains(jobs) {
            Console.error("serve: --jobs must be 1...64, got \(jobs)")
            throw ExitCode.failure
        }
        guard FileIO.isDirectory(books) else {
            Console.error("serve: \(books): no such books folder (give the folder that holds one subfolder per book)")
            throw ExitCode.failure
        }
        guard let cacheBytes = ReaderConfiguration.parseSize(cacheSize) else {
            Console.error("serve: --cache-size must be a size such as 500M or 4G (0 for no bound), got '\(cacheSize)'")
            throw ExitCode.failure
        }
        guard idleTimeout.isFinite, idleTimeout >= 0.1, idleTimeout <= 86_400 else {
            Console.error("serve: --idle-timeout must be 0.1...86400 seconds, got \(idleTimeout)")
            throw ExitCode.failure
        }
        let descriptors = Connections.raiseDescriptorLimit()
        if let maxConnections, !(1...descriptors).contains(maxConnections) {
            Console.error("serve: --max-connections must be 1...\(descriptors) (the file-descriptor limit), got \(maxConnections)")
            throw ExitCode.failure
        }
        var config = ReaderConfiguration(booksDirectory: books, webRoot: webRoot, verbose: verbose)
        if let cache { config.cacheDirectory = cache }
        if let jobs { config.workers = jobs }
        config.cacheLimit = cacheBytes == 0 ? nil : cacheBytes
        config.idleTimeout = idleTimeout
        config.maxConnections = maxConnections
        if allowedHost.contains("*") {
            config.allowedHosts = nil
        } else {
            let given = Set(allowedHost.map { Connections.normalisedHostName($0) })
            let defaults = Connections.defaultAllowedHosts(bindAddress: host)
            config.allowedHosts = given.isEmpty ? defaults : given.union(defaults ?? [])
        }
        if edit {
            config.edit = EditConfiguration(usersFile: users ?? UserStore.defaultPath(library: books), secureCookies: secureCookies)
        } else if users != nil || secureCookies {
            Console.error("serve: --users and --secure-cookies only make sense with --edit")
            throw ExitCode.failure
        }
        let server: ReaderServer
        do { server = try ReaderServer(configuration: config) } catch {
            Console.error("serve: \(error)")
            throw ExitCode.failure
        }
        for problem in await server.openJournals() { Console.warning("serve: \(problem)") }
        if pruneCache {
            let r = await server.pruneCache(unusedForDays: 30)
            Console.err("serve: pruned \(r.files) cached file\(r.files == 1 ? "" : "s") (\(r.bytes / 1024) KiB) from \(config.cacheDirectory)")
        }
        let host = self.host, warm = !noWarm
        let warmer = WarmUp()
        let app = server.makeApplication(host: host, port: port) { actualPort in
            let shown = host.contains(":") ? "[\(host)]" : host
            // FileHandle writes go straight to the descriptor: scripts waiting on the line see it now.
            Console.out("Picturebook reader: http://\(shown):\(actualPort)/")
            if warm { warmer.start { await server.warmUp() } }
        }
        do {
            try await app.runService()
        } catch {
            warmer.cancel()
            let text = "\(error)"
            if text.localizedCaseInsensitiveContains("address already in use") || text.contains("EADDRINUSE") {
                Console.error("serve: port \(port) on \(host) is already in use; pick another with --port (0 picks a free one)")
            } else {
                Console.error("serve: \(text)")
            }
            for problem in await server.finishEdits() { Console.warning("serve: \(problem)") }
            throw ExitCode.failure
        }
        warmer.cancel()
        // Saves answer before their book.json is written: write what is still behind.
        for problem in await server.finishEdits() { Console.warning("serve: \(problem)") }
    }
}

/// The background thumbnail warm-up, cancelled when the server stops.
final class WarmUp: @unchecked Sendable {
    private var task: Task<Void, Never>?
    private let lock = NSLock()

    func start(_ body: @escaping @Sendable () async -> Void) {
        lock.withLock { task = Task(priority: .background) { await body() } }
    }

    func cancel() { lock.withLock { task?.cancel() } }
}
