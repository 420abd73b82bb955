import ArgumentParser
import Foundation
import Raster
import Thumbnails

/// `picturebook thumbs`: page thumbnails, overview grids and the library grid, for one book or
/// a whole library, resumable and shardable.
struct Thumbs: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Page thumbnails, book overview grids and a library grid of covers, in batch.",
        discussion: """
            For each book writes DIR/<book>/p001.jpg and p001@2x.jpg (every page fitted in the box \
            and twice the box), DIR/<book>/overview.png (pages in reading order, spreads together, \
            page numbers underneath; long books continue on overview-2.png, …) and \
            DIR/<book>/thumbs.json; then DIR/library.png, the covers of all books with their titles.

            A BOOK_OR_FOLDER is a book folder (with book.json), a book.json, a folder of scans, or \
            a folder of book folders (searched recursively). Books already done with the same \
            sources and options are skipped; --force redoes them. A page that cannot be read gets \
            a placeholder tile, the run goes on, and the exit status is 1 with the files listed.

            Many machines: run `--shard K/N` on each (same operands, shared --out), then \
            `picturebook thumbs --merge --out DIR` once to draw the library grid. \
            See Documentation/Thumbnails.md for Slurm and Kubernetes examples.

            Examples:
              picturebook thumbs Books --out /srv/thumbs
              picturebook thumbs /library --out /srv/thumbs --shard 3/16 --json
              picturebook thumbs --merge --out /srv/thumbs
            """)

    @Argument(help: "Book folders, book.json files, folders of scans or folders of books.", completion: .directory)
    var books: [String] = []

    @Option(name: .long, help: "Output folder (created if missing).")
    var out: String

    @Option(name: .long, help: "The 1x thumbnail box, WIDTHxHEIGHT; 2x thumbnails fit twice this box.")
    var box: String = "160x200"

    @Option(name: .long, help: "Page slots per overview row (a spread takes two).")
    var columns: Int = 8

    @Option(name: .long, help: "Pixels between and around grid cells.")
    var gutter: Int = 16

    @Option(name: .long, help: "Grid background, #rrggbb.")
    var background: String = "#f4f1ea"

    @Option(name: .long, help: "Page-number and title colour, #rrggbb.")
    var labelColor: String = "#444444"

    @Option(name: .long, help: "Page-number and title size in pixels.")
    var labelSize: Double = 14

    @Option(name: .long, help: "Rows per overview sheet; longer books continue on overview-2.png, …")
    var rowsPerSheet: Int = 16

    @Option(name: .long, help: "Covers per row of the library grid.")
    var libraryColumns: Int = 10

    @Option(name: .long, help: "Covers per library sheet (library.png, library-2.png, …).")
    var libraryPerSheet: Int = 100

    @Option(name: .long, help: "JPEG quality of the page thumbnails.")
    var quality: Int = 85

    @Option(name: .long, help: "zlib level of the grid PNGs, 0...9 (1: fast, larger files).")
    var pngLevel: Int = 1

    @Option(name: .long, help: "Process only shard K of N (K/N, 1-based): round-robin over the sorted book list.")
    var shard: String?

    @Flag(name: .long, help: "Only draw the library grid from the shard outputs in --out (all shards must be done).")
    var merge = false

    @Flag(name: .long, help: "Redo every book even when its outputs are up to date.")
    var force = false

    @Option(name: .long, help: "Pages in flight at once (default: two per core, so disk waits overlap decoding).")
    var jobs: Int = 0

    @Flag(name: .long, help: "JSON Lines on stdout: one object per book, then a summary.")
    var json = false

    func parameters() throws -> ThumbnailParameters {
        guard let d = parseDimensions(box), let w = Int(exactly: d.width), let h = Int(exactly: d.height) else {
            throw ValidationError("--box must be WIDTHxHEIGHT, like 160x200, got '\(box)'")
        }
        guard let bg = RGBA8(hex: background) else { throw ValidationError("--background must be #rrggbb, got '\(background)'") }
        guard let ink = RGBA8(hex: labelColor) else { throw ValidationError("--label-color must be #rrggbb, got '\(labelColor)'") }
        let p = ThumbnailParameters(
            boxWidth: w, boxHeight: h, columns: columns, gutter: gutter, background: bg, labelColor: ink,
            labelSize: labelSize, overviewRowsPerSheet: rowsPerSheet, libraryColumns: libraryColumns,
            libraryPerSheet: libraryPerSheet, jpegQuality: quality, pngCompression: pngLevel)
        if let problem = p.problems.first { throw ValidationError(problem) }
        return p
    }

    func validate() throws {
        _ = try parameters()
        if let shard, Shard(parsing: shard) == nil {
            throw ValidationError("--shard must be K/N with 1 ≤ K ≤ N, like 3/16, got '\(shard)'")
        }
        if merge && shard != nil { throw ValidationError("--merge and --shard do not go together: merge after all shards are done") }
        if !merge && books.isEmpty { throw ValidationError("give at least one BOOK_OR_FOLDER (or --merge)") }
        if jobs < 0 { throw ValidationError("--jobs must be positive, got \(jobs)") }
    }

    struct BookLine: Encodable {
        var event = "book"
        var book: String
        var source: String
        var status: String
        var pages: Int
        var seconds: Double
        var failures: [ThumbnailFailure]
    }

    struct LibraryLine: Encodable {
        var event = "library"
        var sheets: [String]
        var books: Int
        var upToDate: Bool
        var missing: [String]
    }

    struct SummaryLine: Encodable {
        var event = "summary"
        var books: Int
        var done: Int
        var skipped: Int
        var failed: Int
        var pages: Int
        var seconds: Double
        var shard: String?
        var failures: [ThumbnailFailure]
    }

    func run() throws {
        let runner = ThumbnailRunner(parameters: try parameters(), outputDirectory: out, workers: jobs, force: force)
        let json = self.json
        do {
            if merge {
                let sources = books.isEmpty ? nil : try BookDiscovery.books(in: books)
                let lib = try runner.merge(books: sources)
                report(lib, json: json)
                if !lib.missing.isEmpty {
                    Console.error("no thumbnails for \(lib.missing.count) book(s): \(lib.missing.joined(separator: ", "))")
                    throw ExitCode(1)
                }
                return
            }
            let sources = try BookDiscovery.books(in: books)
            let shard = self.shard.flatMap(Shard.init(parsing:))
            let total = shard.map { s in sources.filter { s.contains($0) }.count } ?? sources.count
            let progress = Progress("thumbs", total: total, enabled: !json)
            let summary = try runner.run(sources, shard: shard) { event in
                switch event {
                case .book(let r):
                    progress.advance(r.key)
                    if json {
                        try? Console.jsonLine(BookLine(
                            book: r.key, source: r.source, status: r.status.rawValue, pages: r.pages,
                            seconds: (r.seconds * 1000).rounded() / 1000, failures: r.failures))
                    }
                case .library(let lib):
                    progress.finish()
                    report(lib, json: json)
                }
            }
            progress.finish()
            if json {
                try? Console.jsonLine(SummaryLine(
                    books: summary.books, done: summary.done, skipped: summary.skipped, failed: summary.failed,
                    pages: summary.pages, seconds: (summary.seconds * 1000).rounded() / 1000, shard: summary.shard,
                    failures: summary.failures))
            } else {
                Console.err(String(
                    format: "thumbs: %d book(s): %d done, %d up to date, %d failed; %d pages in %.2f s%@",
                    summary.books, summary.done, summary.skipped, summary.failed, summary.pages, summary.seconds,
                    summary.shard.map { " (shard \($0))" } ?? ""))
            }
            if !summary.failures.isEmpty {
                Console.error("\(summary.failures.count) file(s) could not be thumbnailed (placeholders drawn):")
                for f in summary.failures { Console.err("  \(f)") }
                throw ExitCode(1)
            }
        } catch let e as ThumbnailError {
            Console.error(e.description)
            throw ExitCode(1)
        }
    }

    private func report(_ lib: LibraryReport, json: Bool) {
        if json {
            try? Console.jsonLine(LibraryLine(sheets: lib.sheets, books: lib.books, upToDate: lib.upToDate, missing: lib.missing))
        } else if !lib.upToDate {
            Console.err("thumbs: library of \(lib.books) cover(s) → \(lib.sheets.map { out + "/" + $0 }.joined(separator: ", "))")
        }
    }
}
