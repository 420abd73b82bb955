import ArgumentParser
import Foundation
import Library
import Thumbnails

/// `picturebook prepare`: a whole library through the pipeline, on one machine or as one shard of
/// many. The work is in the Library module; this parses options and prints.
struct Prepare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run every book of a library through analyze, clear, popout and thumbs, resumably.",
        discussion: """
            LIBRARY_DIR holds book folders (with book.json, or just scans), at any depth. Each book \
            goes through the --stages in pipeline order; a stage whose inputs (scans, book.json, \
            masks, parameters, program version) have not changed since it last finished is skipped. \
            A book that fails is named and the others go on; the exit status is 1 if any failed.

            Safe to kill at any moment: outputs are written atomically, each book is locked while \
            it is worked on (BOOK/\(BookLock.fileName): pid, host, time; broken when the pid is \
            gone on this host or the lock is older than --lock-timeout), and the next run redoes \
            only what was not finished. Thumbnails go to --thumbs-out (default LIBRARY_DIR/thumbs).

            Many machines: run `--shard K/N` for K = 1…N anywhere that mounts the library (books \
            are assigned by a hash of their folder's path, so adding books moves no other book), \
            then `prepare LIBRARY_DIR --merge` once to draw the library grid. \
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

    @Flag(help: "Redo every stage of every book, even when up to date.")
    var force = false

    @Flag(help: "Only draw the library grid (after every shard has finished).")
    var merge = false

    @Flag(help: "Only list the books this shard takes, one a line.")
    var list = false

    @Flag(help: "JSON Lines on stdout: one object per book, then a summary.")
    var json = false

    func stageNames() throws -> [String] {
        let names = stages.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        guard !names.isEmpty else { throw ValidationError("--stages needs at least one stage") }
        for name in names where !PrepareStages.available.contains(name) {
            if PrepareStages.notBuilt.contains(name) {
                throw ValidationError("stage '\(name)' is not available in this build (available: \(PrepareStages.available.joined(separator: ",")))")
            }
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
        if merge && !names.contains("thumbs") { throw ValidationError("--merge draws the library grid from thumbnails; --stages must include thumbs") }
        try validateJobs(jobs)
        guard lockTimeout > 0, lockTimeout.isFinite else { throw ValidationError("--lock-timeout must be a positive number of seconds, got \(lockTimeout)") }
    }

    func run() throws {
        let out = thumbsOut ?? (library.hasSuffix("/") ? library + "thumbs" : library + "/thumbs")
        let run = LibraryRun(
            library: library, stages: PrepareStages.make(try stageNames(), thumbsOut: out, jobs: jobs),
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
            let total = try run.myBooks().count
            let progress = Progress("prepare", total: total, enabled: !json)
            let summary = try run.run { event in
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
            Console.err(String(format: "  %@ %4d book(s) %6d pages %8.2f s  %7.1f pages/s", name, t.books, t.pages, t.seconds, t.pagesPerSecond))
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
        stages = r.stages.map { var s = $0; s.seconds = (s.seconds * 1000).rounded() / 1000; return s }
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
                  pagesPerSecond: ($0.pagesPerSecond * 10).rounded() / 10)
        }
        failures = s.failed.map { Failure(book: $0.book, message: $0.message ?? "failed") }
    }
}
