import ArgumentParser
import BookModel
import FileIO
import Formats
import Foundation
import Library
import Thumbnails

/// `picturebook prepare`: a whole library through the pipeline, on one machine or as one shard of
/// many. The work is in the Library module; this parses options and prints.
struct Prepare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run every book of a library through analyze, clear, ocr, popout, thumbs and export, resumably.",
        discussion: """
            LIBRARY_DIR holds book folders (with book.json, or just scans), at any depth. Each book \
            goes through the --stages in pipeline order; a stage whose inputs (scans, book.json, \
            masks, parameters, program version) have not changed since it last finished is skipped. \
            A book that fails is named and the others go on; the exit status is 1 if any failed. \
            ocr reads the boxes whose language has a Tesseract model installed and notes the others \
            (it is not a failure); export writes BOOK/export/ (--export-formats, default iiif,alto).

            Safe to kill at any moment: outputs are written atomically, each book is locked while \
            it is worked on (BOOK/\(BookLock.fileName): pid, host, time; broken when the pid is \
            gone on this host or the lock is older than --lock-timeout), and the next run redoes \
            only what was not finished. Thumbnails go to --thumbs-out (default LIBRARY_DIR/thumbs).

            Many machines: run `--shard K/N` for K = 1…N anywhere that mounts the library (books \
            are assigned by a hash of their folder's path, so adding books moves no other book), \
            then `prepare LIBRARY_DIR --merge` once to draw the library grid and write the \
            library's IIIF collection (LIBRARY_DIR/collection.json, one entry per book manifest). \
            Documentation/Library.md has Slurm, Kubernetes and GNU parallel examples.

            Examples:
              picturebook prepare /srv/library
              picturebook prepare /srv/library --shard 3/16 --json
              picturebook prepare /srv/library --stages analyze,clear
              picturebook prepare /srv/library --merge
            """)

    @Argument(help: ArgumentHelp("The library: a folder of book folders.", valueName: "library-dir"), completion: .directory)
    var library: String

    @Option(help: "Process only shard K of N (K/N, 1-based): the books whose folder path hashes to bucket K.")
    var shard: String?

    @Option(help: "Comma-separated stages, run in pipeline order: \(PrepareStages.available.joined(separator: ",")).")
    var stages: String = PrepareStages.available.joined(separator: ",")

    @Option(name: .customLong("thumbs-out"), help: ArgumentHelp("Folder for thumbnails and the library grid (default LIBRARY_DIR/thumbs).", valueName: "dir"))
    var thumbsOut: String?

    @Option(help: "Pages of a book worked on at once by analyze, clear and popout.")
    var jobs: Int = 2

    @Option(name: .customLong("lock-timeout"), help: "Seconds after which a book lock nobody has touched is taken to be abandoned.")
    var lockTimeout: Double = 6 * 3600

    @Option(name: .customLong("export-formats"), help: ArgumentHelp("Comma-separated formats the export stage writes to BOOK/export/: \(PrepareStages.exportFormats.joined(separator: ",")).", valueName: "formats"))
    var exportFormats: String = PrepareStages.defaultExportFormats.joined(separator: ",")

    @Option(name: .customLong("base-url"), help: "The URL the library folder is published at: IIIF ids are it + the book's path (default: where `picturebook serve` publishes each book).")
    var baseURL: String?

    @Option(help: ArgumentHelp("Folder of Tesseract .traineddata models for the ocr stage (default: TESSDATA_PREFIX, then the system's).", valueName: "dir"), completion: .directory)
    var tessdata: String?

    @Flag(help: "Redo every stage of every book, even when up to date.")
    var force = false

    @Flag(help: "Only draw the library grid and write the library's IIIF collection (after every shard has finished).")
    var merge = false

    @Flag(help: "Only list the books this shard takes, one a line.")
    var list = false

    @Flag(help: "JSON Lines on stdout: one object per book, then a summary.")
    var json = false

    func stageNames() throws -> [String] {
        let names = stages.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { throw ValidationError("--stages needs at least one stage") }
        for name in names where !PrepareStages.available.contains(name) {
            throw ValidationError("unknown stage '\(name)' (available: \(PrepareStages.available.joined(separator: ",")))")
        }
        return names
    }

    func validate() throws {
        let names = try stageNames()
        if let shard, LibraryShard(parsing: shard) == nil {
            throw ValidationError("--shard must be K/N with 1 ≤ K ≤ N, like 3/16, got '\(shard)'")
        }
        if merge && shard != nil { throw ValidationError("--merge and --shard do not go together: merge once, after all shards") }
        if merge && !names.contains("thumbs") && !names.contains("export") {
            throw ValidationError("--merge draws the library grid (from thumbs) and the IIIF collection (of export's manifests); --stages must include thumbs or export")
        }
        _ = try formats()
        if let baseURL, !(baseURL.hasPrefix("http://") || baseURL.hasPrefix("https://")) || baseURL.count <= 8 || baseURL.contains(" ") {
            throw ValidationError("--base-url must be an http:// or https:// URL without spaces, got '\(baseURL)'")
        }
        try validateJobs(jobs)
        guard lockTimeout > 0, lockTimeout.isFinite else { throw ValidationError("--lock-timeout must be a positive number of seconds, got \(lockTimeout)") }
    }

    func formats() throws -> [String] {
        let names = exportFormats.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { throw ValidationError("--export-formats needs at least one format") }
        for name in names where !PrepareStages.exportFormats.contains(name) {
            throw ValidationError("unknown export format '\(name)' (available: \(PrepareStages.exportFormats.joined(separator: ",")))")
        }
        return names
    }

    var collectionPath: String { library.hasSuffix("/") ? library + "collection.json" : library + "/collection.json" }

    func run() throws {
        let out = thumbsOut ?? (library.hasSuffix("/") ? library + "thumbs" : library + "/thumbs")
        let options = PrepareOptions(jobs: jobs, thumbsOut: out, tessdata: tessdata, exportFormats: try formats(), baseURL: baseURL)
        let names = try stageNames()
        let run = LibraryRun(
            library: library, stages: PrepareStages.make(names, options: options),
            shard: shard.flatMap(LibraryShard.init(parsing:)), lockTimeout: lockTimeout, force: force, excluded: [out])
        let json = self.json
        do {
            if list {
                for book in try run.myBooks() {
                    if json { try? Console.jsonLine(ListLine(book: book.name, directory: book.directory, key: book.key)) } else { Console.out(book.name) }
                }
                return
            }
            if merge {
                if names.contains("export") {
                    let books = try run.mergeReady()
                    let count = try writeCollection(books)
                    if json { try? Console.jsonLine(CollectionLine(path: collectionPath, manifests: count)) }
                    else { Console.err("prepare: IIIF collection of \(count) manifest(s) → \(collectionPath)") }
                }
                guard names.contains("thumbs") else { return }
                let lib = try run.merge(thumbnails: ThumbnailRunner(outputDirectory: out, force: force))
                if json {
                    try? Console.jsonLine(MergeLine(sheets: lib.sheets, books: lib.books, upToDate: lib.upToDate, missing: lib.missing))
                } else {
                    Console.err("prepare: library grid of \(lib.books) cover(s)\(lib.upToDate ? " up to date" : "") → \(lib.sheets.map { out + "/" + $0 }.joined(separator: ", "))")
                }
                if !lib.missing.isEmpty {
                    Console.error("no cover thumbnail for \(lib.missing.count) book(s): \(lib.missing.joined(separator: ", "))")
                    throw ExitCode.failure
                }
                return
            }
            let books = try run.myBooks()
            let progress = Progress("prepare", total: books.count, enabled: !json)
            let summary = try run.run(books: books) { event in
                switch event {
                case .bookStarted, .stageStarted:
                    break
                case .bookFinished(let report):
                    progress.advance(report.book)
                    if json {
                        try? Console.jsonLine(BookLine(report))
                    } else if report.status == .failed {
                        Console.error("\(report.book): \(report.message ?? "failed")")
                    } else if report.status == .busy {
                        Console.warning("\(report.book): \(report.message ?? "locked"); left to that worker")
                    }
                    if !json {
                        for stage in report.stages where stage.status == .done { if let note = stage.message { Console.warning("\(report.book): \(note)") } }
                    }
                }
            }
            progress.finish()
            report(summary, json: json)
            if !summary.failed.isEmpty { throw ExitCode.failure }
        } catch let e as LibraryError {
            Console.error(e.description)
            throw ExitCode.failure
        }
    }

    /// The library's IIIF collection, written atomically: one entry per book, in library order,
    /// pointing at the manifest the export stage wrote with the same URLs.
    func writeCollection(_ books: [LibraryBook]) throws -> Int {
        var entries: [IIIF.CollectionEntry] = []
        for book in books {
            let model: Book
            do { model = try Book.load(directory: book.directory).book } catch {
                Console.error("\(error)")
                throw ExitCode.failure
            }
            entries.append(IIIF.CollectionEntry(manifest: PrepareStages.bookURL(book, baseURL: baseURL) + "/manifest.json", title: model.title))
        }
        var base = baseURL ?? "http://localhost:8080/iiif"
        while base.hasSuffix("/") { base.removeLast() }
        let label = URL(fileURLWithPath: library).standardizedFileURL.lastPathComponent
        do {
            try AtomicFile.write(IIIF.collection(id: base + "/collection.json", label: label, entries: entries), to: collectionPath)
        } catch {
            Console.error("\(error)")
            throw ExitCode.failure
        }
        return entries.count
    }

    private func report(_ s: LibrarySummary, json: Bool) {
        if json {
            try? Console.jsonLine(SummaryLine(s))
            return
        }
        Console.err(String(
            format: "prepare: %d book(s)%@: %d done, %d up to date, %d failed, %d busy in %.2f s",
            s.books, s.shard.map { " (shard \($0))" } ?? "", s.done, s.skipped, s.failed.count, s.busy.count, s.seconds))
        for t in s.stages where t.books > 0 {
            let name = t.stage.padding(toLength: 8, withPad: " ", startingAt: 0)
            Console.err(String(
                format: "  %@ %4d book(s) %6d pages %8.2f s  %7.1f pages/s  (CPU %.2f s, %.1f pages per CPU-second)",
                name, t.books, t.pages, t.seconds, t.pagesPerSecond, t.cpuSeconds, t.pagesPerCPUSecond))
        }
        if !s.failed.isEmpty {
            Console.err("prepare: \(s.failed.count) book(s) failed:")
            for f in s.failed { Console.err("  \(f.book): \(f.message ?? "failed")") }
        }
    }
}

private struct ListLine: Encodable {
    var book: String
    var directory: String
    var key: String
}

private struct CollectionLine: Encodable {
    var event = "collection"
    var path: String
    var manifests: Int
}

private struct MergeLine: Encodable {
    var event = "library"
    var sheets: [String]
    var books: Int
    var upToDate: Bool
    var missing: [String]
}

private struct BookLine: Encodable {
    var event = "book"
    var book: String
    var directory: String
    var status: String
    var seconds: Double
    var stages: [StageReport]
    var message: String?

    init(_ r: BookRunReport) {
        book = r.book
        directory = r.directory
        status = r.status.rawValue
        seconds = (r.seconds * 1000).rounded() / 1000
        stages = r.stages.map {
            var s = $0
            s.seconds = (s.seconds * 1000).rounded() / 1000
            s.cpuSeconds = s.cpuSeconds.map { ($0 * 1000).rounded() / 1000 }
            return s
        }
        message = r.message
    }
}

private struct SummaryLine: Encodable {
    struct Stage: Encodable {
        var stage: String
        var books: Int
        var pages: Int
        var seconds: Double
        var pagesPerSecond: Double
        var cpuSeconds: Double
    }
    struct Failure: Encodable {
        var book: String
        var message: String
    }
    var event = "summary"
    var books: Int
    var done: Int
    var skipped: Int
    var failed: Int
    var busy: Int
    var shard: String?
    var seconds: Double
    var stages: [Stage]
    var failures: [Failure]

    init(_ s: LibrarySummary) {
        books = s.books
        done = s.done
        skipped = s.skipped
        failed = s.failed.count
        busy = s.busy.count
        shard = s.shard
        seconds = (s.seconds * 1000).rounded() / 1000
        stages = s.stages.map {
            Stage(stage: $0.stage, books: $0.books, pages: $0.pages, seconds: ($0.seconds * 1000).rounded() / 1000,
                  pagesPerSecond: ($0.pagesPerSecond * 10).rounded() / 10, cpuSeconds: ($0.cpuSeconds * 1000).rounded() / 1000)
        }
        failures = s.failed.map { Failure(book: $0.book, message: $0.message ?? "failed") }
    }
}
