import ArgumentParser
import FileIO
import Foundation
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
            (--no-warm skips that).

            Only files inside BOOKS_DIR are ever served. A folder that is not a valid book is listed \
            with its problems instead of stopping the server. The API is described in \
            Documentation/ReaderAPI.md.

            On start one line is printed to stdout: `Picturebook reader: http://HOST:PORT/`. \
            Ctrl-C (or SIGTERM) stops the server.

            Examples:
              picturebook serve                        # Books/ at http://127.0.0.1:8080/
              picturebook serve ~/Scans --port 0       # a free port; the line says which
              picturebook serve --host 0.0.0.0         # reachable from a phone on the LAN
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

    @Flag(help: "Log every request on stderr.")
    var verbose = false

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
        var config = ReaderConfiguration(booksDirectory: books, webRoot: webRoot, verbose: verbose)
        if let cache { config.cacheDirectory = cache }
        if let jobs { config.workers = jobs }
        let server: ReaderServer
        do { server = try ReaderServer(configuration: config) } catch {
            Console.error("serve: \(error)")
            throw ExitCode.failure
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
            throw ExitCode.failure
        }
        warmer.cancel()
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
