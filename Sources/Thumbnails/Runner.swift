// The batch: books stream through a small scheduler, pages fan out over the cores, grids are
// assembled tile by tile, and everything that is already up to date is skipped.
//
// Memory: at most `workers + 1` books are open at once, each holding only the tiles of the
// overview row bands still waiting for a tile (a band is drawn, appended to its sheet's PNG file
// and dropped as soon as its last tile lands; no sheet is ever held whole) and one decoded page
// per worker at thumbnail scale. Nothing grows with the number of books except
// the list of their paths.

import BookModel
import Codecs
import FileIO
import Foundation
import Geometry
import Raster
#if canImport(Glibc)
import Glibc
#endif

/// Something that happened during a run, delivered (from any thread) as it happens.
public enum ThumbnailEvent: Sendable {
    case book(BookReport)
    case library(LibraryReport)
}

/// What happened to one book.
public struct BookReport: Sendable, Codable, Hashable {
    public enum Status: String, Sendable, Codable {
        /// Thumbnails and overview written.
        case done
        /// Everything was already up to date.
        case skipped
        /// The book could not be read, or some of its pages could not (they got placeholders).
        case failed
    }
    public var key: String
    public var source: String
    public var status: Status
    /// Pages thumbnailed by this run (0 when skipped).
    public var pages: Int
    public var failures: [ThumbnailFailure]
    public var seconds: Double
}

/// The library grid of covers.
public struct LibraryReport: Sendable, Codable, Hashable {
    /// Sheet files (relative to the output directory).
    public var sheets: [String]
    public var books: Int
    /// Nothing changed since the sheets were drawn, so they were left alone.
    public var upToDate: Bool
    /// Books that have no thumbnails to show (never processed, or their manifest was unreadable).
    public var missing: [String]
}

/// The end of a run.
public struct ThumbnailSummary: Sendable, Codable {
    public var books: Int
    public var done: Int
    public var skipped: Int
    public var failed: Int
    public var pages: Int
    public var failures: [ThumbnailFailure]
    public var library: LibraryReport?
    public var shard: String?
    public var seconds: Double
}

/// Runs `picturebook thumbs`. A value: configure, then call ``run(_:shard:onEvent:)`` or
/// ``merge(books:)``.
public struct ThumbnailRunner: Sendable {
    public var parameters: ThumbnailParameters
    public var outputDirectory: String
    /// Pages in flight at once. The default (0) is two per core: each page ends in two
    /// fsync'ed atomic writes (~2 ms of waiting for the disk apiece), and a second worker per
    /// core decodes while the first waits, keeping the cores busy.
    public var workers: Int
    /// Redo everything, ignoring what is up to date.
    public var force: Bool

    public init(
        parameters: ThumbnailParameters = .init(), outputDirectory: String,
        workers: Int = 0, force: Bool = false
    ) {
        self.parameters = parameters
        self.outputDirectory = outputDirectory
        self.workers = workers > 0 ? workers : 2 * max(1, ProcessInfo.processInfo.activeProcessorCount)
        self.force = force
    }

    /// Thumbnails and overviews for `books` (or for the shard's part of them), then — unless
    /// sharded, or `library` is false (`prepare` does one book at a time and merges at the end) —
    /// the library grid. Page and book failures are in the summary, not thrown.
    public func run(
        _ books: [BookSource], shard: Shard? = nil, library drawLibrary: Bool = true,
        onEvent: @escaping @Sendable (ThumbnailEvent) -> Void = { _ in }
    ) throws(ThumbnailError) -> ThumbnailSummary {
        let problems = parameters.problems
        guard problems.isEmpty else { throw .invalidParameters(problems) }
        let start = ContinuousClock.now
        do { try FileIO.createDirectory(outputDirectory) } catch { throw .output(path: outputDirectory, reason: "\(error)") }
        let mine = shard.map { s in books.filter { s.contains($0) } } ?? books

        let scheduler = Scheduler(books: mine, maxOpen: workers + 1, onEvent: onEvent) { source in
            self.prepare(source)
        }
        let labeler = Labeler(size: parameters.labelSize)
        let workerCount = min(workers, max(1, mine.count * 64))
        DispatchQueue.concurrentPerform(iterations: workerCount) { _ in
            while let (book, index) = scheduler.next() {
                self.process(book, page: index, labeler: labeler, scheduler: scheduler)
            }
        }
        let reports = scheduler.reports.sorted { $0.key < $1.key }

        var library: LibraryReport?
        if let shard, shard.count > 1 {
            let record = ShardRecord(
                shard: shard.index, count: shard.count,
                books: mine.map { .init(index: $0.index, key: $0.key, source: $0.directory) })
            let path = join(outputDirectory, ShardRecord.fileName(shard.index, of: shard.count))
            do { try AtomicFile.write(Records.encode(record), to: path) } catch { throw .output(path: path, reason: "\(error)") }
        } else if drawLibrary {
            let lib = try buildLibrary(keys: books.map(\.key), labeler: labeler)
            onEvent(.library(lib))
            library = lib
        }
        let failures = reports.flatMap(\.failures)
        return ThumbnailSummary(
            books: mine.count, done: reports.filter { $0.status == .done }.count,
            skipped: reports.filter { $0.status == .skipped }.count, failed: reports.filter { $0.status == .failed }.count,
            pages: reports.reduce(0) { $0 + $1.pages }, failures: failures, library: library,
            shard: shard?.description, seconds: (ContinuousClock.now - start).seconds)
    }

    /// Builds the library grid from what shards left in the output directory: `books` gives the
    /// order (the same list the shards were given); without it the shard-K-of-N.json files do,
    /// and all N must be there.
    public func merge(books: [BookSource]? = nil) throws(ThumbnailError) -> LibraryReport {
        let problems = parameters.problems
        guard problems.isEmpty else { throw .invalidParameters(problems) }
        let keys: [String]
        if let books {
            keys = books.map(\.key)
        } else {
            keys = try shardKeys()
        }
        return try buildLibrary(keys: keys, labeler: Labeler(size: parameters.labelSize))
    }

    // MARK: - Books

    enum Preparation {
        case open(OpenBook)
        case finished(BookReport)
    }

    func join(_ a: String, _ b: String) -> String { BookDiscovery.join(a, b) }

    /// Loads a book and decides whether it needs doing. Runs under the scheduler's lock, so it
    /// only reads book.json and stats the scans (hashing one only when its stamp changed).
    func prepare(_ source: BookSource) -> Preparation {
        let start = ContinuousClock.now
        func failed(_ file: String, _ message: String) -> Preparation {
            .finished(BookReport(
                key: source.key, source: source.directory, status: .failed, pages: 0,
                failures: [ThumbnailFailure(book: source.key, file: file, message: message)],
                seconds: (ContinuousClock.now - start).seconds))
        }
        let book: Book, manifestHash: String
        let manifest = BookDirectory.manifestPath(in: source.directory)
        if FileIO.exists(manifest) {
            do {
                let bytes = try FileIO.read(manifest, limit: BookDirectory.manifestSizeLimit)
                // No base directory: a missing scan is one bad page (a placeholder), not a bad book.
                book = try Book.decode(bytes, file: manifest).book
                manifestHash = FastHash.hex(FastHash.hash(bytes))
            } catch {
                return failed(manifest, "\(error)")
            }
        } else {
            do {
                book = try Book.make(fromImagesIn: source.directory, languages: ["und"]) { path in
                    (try? ImageDecoder.info(file: path)).map { ($0.orientedWidth, $0.orientedHeight) }
                }
            } catch {
                return failed(source.directory, "\(error)")
            }
            manifestHash = FastHash.hex(FastHash.hash("scans:" + book.pages.map(\.image).joined(separator: "\n")))
        }
        guard !book.pages.isEmpty else { return failed(manifest, "the book has no pages") }
        let outDir = join(outputDirectory, source.key)
        let previous = BookRecord.load(join(outDir, BookRecord.fileName))
        if !force, let record = previous,
            isUpToDate(record, book: book, manifestHash: manifestHash, source: source, outDir: outDir)
        {
            return .finished(BookReport(
                key: source.key, source: source.directory, status: .skipped, pages: 0, failures: [],
                seconds: (ContinuousClock.now - start).seconds))
        }
        do { try FileIO.createDirectory(outDir) } catch { return failed(outDir, "\(error)") }
        let title = book.title.text(for: book.languages.first ?? "") ?? source.key
        return .open(OpenBook(
            source: source, book: book, title: title, outDir: outDir,
            layout: OverviewLayout(book: book, parameters: parameters), manifestHash: manifestHash, started: start,
            previousOutputs: previous?.outputs ?? []))
    }

    /// True when the record was made with these parameters from this manifest and these scans
    /// (same size and time, or failing that the same content), had no failures, and every file
    /// it lists is still there.
    func isUpToDate(_ record: BookRecord, book: Book, manifestHash: String, source: BookSource, outDir: String) -> Bool {
        guard record.parameters == parameters.fingerprint, record.manifestHash == manifestHash,
            record.failures.isEmpty, record.pages.count == book.pages.count
        else { return false }
        var refreshed = record
        for (i, page) in book.pages.enumerated() {
            let entry = record.pages[i]
            guard entry.ok, entry.image == page.image else { return false }
            let path = BookDirectory.imagePath(of: page, in: source.directory)
            guard let stamp = FileStamp(path: path), stamp.size == entry.size else { return false }
            if stamp.modified == entry.modified { continue }
            guard let bytes = try? FileIO.read(path), FastHash.hex(FastHash.hash(bytes)) == entry.hash else { return false }
            refreshed.pages[i].modified = stamp.modified
        }
        guard record.outputs.allSatisfy({ FileIO.exists(join(outDir, $0)) }) else { return false }
        // Touched but unchanged: remember the new times so the next run takes the fast path.
        if refreshed != record { try? refreshed.save(join(outDir, BookRecord.fileName)) }
        return true
    }

    static func thumbnailNames(page index: Int, of count: Int) -> (String, String) {
        let digits = max(3, String(count).count)
        let n = String(index + 1)
        let stem = "p" + String(repeating: "0", count: digits - n.count) + n
        return (stem + ".jpg", stem + "@2x.jpg")
    }

    func process(_ b: OpenBook, page i: Int, labeler: Labeler, scheduler: Scheduler) {
        let page = b.book.pages[i]
        let placement = b.layout.placements[i]
        let path = BookDirectory.imagePath(of: page, in: b.source.directory)
        let (n1, n2) = Self.thumbnailNames(page: i, of: b.book.pages.count)
        var entry = BookRecord.PageEntry(
            image: page.image, size: 0, modified: 0, hash: "", thumb: n1, thumb2x: n2, width: 0, height: 0, ok: false)
        var failures: [ThumbnailFailure] = []
        let jpeg = JPEGEncodeOptions(quality: parameters.jpegQuality)
        var tile: Bitmap<RGBA8>
        do {
            // Stamp first: if the scan changes while it is read, the next run sees a new stamp.
            let stamp = FileStamp(path: path)
            let bytes = try FileIO.read(path)
            entry.size = stamp?.size ?? Int64(bytes.count)
            entry.modified = stamp?.modified ?? 0
            entry.hash = FastHash.hex(FastHash.hash(bytes))
            let (x1, x2) = try PageThumbnailer.thumbnails(
                bytes, name: path, boxWidth: placement.boxWidth, boxHeight: placement.boxHeight,
                fastDecode: parameters.fastDecode)
            tile = x1
            try AtomicFile.write(JPEGEncoder.encode(x1, options: jpeg, name: n1), to: join(b.outDir, n1))
            try AtomicFile.write(JPEGEncoder.encode(x2, options: jpeg, name: n2), to: join(b.outDir, n2))
            entry.ok = true
        } catch {
            failures.append(ThumbnailFailure(book: b.source.key, file: path, message: "\(error)"))
            tile = PageThumbnailer.placeholder(
                pageWidth: page.width, pageHeight: page.height, boxWidth: placement.boxWidth, boxHeight: placement.boxHeight)
            // The reader still gets a file for the page: the placeholder, at both sizes.
            let big = PageThumbnailer.placeholder(
                pageWidth: page.width, pageHeight: page.height, boxWidth: 2 * placement.boxWidth,
                boxHeight: 2 * placement.boxHeight)
            for (img, name) in [(tile, n1), (big, n2)] {
                do {
                    try AtomicFile.write(JPEGEncoder.encode(img, options: jpeg, name: name), to: join(b.outDir, name))
                } catch {
                    failures.append(ThumbnailFailure(book: b.source.key, file: join(b.outDir, name), message: "\(error)"))
                }
            }
        }
        entry.width = tile.width
        entry.height = tile.height
        b.add(page: i, tile: tile, placement: placement, entry: entry, failures: failures)
        let sheetsDone = b.drawReadyBands(of: placement.sheet) { band in draw(band, of: b, labeler: labeler) }
        // The page and each sheet it completed are units of the book's work.
        finishIfDone(b, scheduler: scheduler, completed: 1 + sheetsDone)
    }

    /// Draws one row band of an overview sheet (its tiles and their labels) and appends it to
    /// the sheet's file, opening the file at the first band and putting it in place after the
    /// last. Only one band is ever in memory per sheet: a sheet is never held whole.
    func draw(_ band: OpenBook.Band, of b: OpenBook, labeler: Labeler) {
        guard !b.failedSheets.contains(band.sheet) else { return }
        let size = b.layout.sheets[band.sheet]
        let path = join(b.outDir, OverviewLayout.sheetName(band.sheet))
        do {
            if band.row == 0 {
                b.sheetWriters[band.sheet] = try PNGRowWriter(
                    path: path, width: size.width, height: size.height, compressionLevel: parameters.pngCompression)
            }
            guard let writer = b.sheetWriters[band.sheet] else { return }
            let ys = size.bands[band.row]
            var canvas = Bitmap(width: size.width, height: ys.count, fill: parameters.background)
            for (tile, p) in band.tiles {
                let (x, y) = p.origin(width: tile.width, height: tile.height)
                canvas.place(tile, atX: x, y: y - ys.lowerBound)
            }
            for (_, p) in band.tiles {
                let r = p.labelRect
                labeler.draw(p.label, in: PixelRect(x: r.x, y: r.y - ys.lowerBound, width: r.width, height: r.height), onto: &canvas, color: parameters.labelColor)
            }
            try writer.append(canvas)
            if band.last {
                b.sheetWriters[band.sheet] = nil
                try writer.finish()
            }
        } catch {
            // Dropping the writer removes its temporary file; the sheet's other bands are skipped.
            b.sheetWriters[band.sheet] = nil
            b.failedSheets.insert(band.sheet)
            b.addFailure(ThumbnailFailure(book: b.source.key, file: path, message: "\(error)"))
        }
    }

    func finishIfDone(_ b: OpenBook, scheduler: Scheduler, completed: Int) {
        guard b.complete(completed) else { return }
        var (entries, failures) = b.results()
        let record = BookRecord(
            source: b.source.directory, title: b.title, parameters: parameters.fingerprint, manifestHash: b.manifestHash,
            pages: entries, overview: b.layout.sheets.indices.map(OverviewLayout.sheetName), failures: failures)
        let recordPath = join(b.outDir, BookRecord.fileName)
        do { try record.save(recordPath) } catch {
            failures.append(ThumbnailFailure(book: b.source.key, file: recordPath, message: "\(error)"))
        }
        // A book that lost pages or overview sheets must not keep showing the old ones.
        for stale in Set(b.previousOutputs).subtracting(record.outputs) { unlink(join(b.outDir, stale)) }
        entries.removeAll()
        scheduler.close(BookReport(
            key: b.source.key, source: b.source.directory, status: failures.isEmpty ? .done : .failed,
            pages: b.book.pages.count, failures: failures, seconds: (ContinuousClock.now - b.started).seconds))
    }

    // MARK: - Library

    func shardKeys() throws(ThumbnailError) -> [String] {
        let names: [String]
        do { names = try ThumbnailsListing.files(in: outputDirectory) } catch {
            throw .mergeIncomplete(directory: outputDirectory, reason: "cannot list it")
        }
        var records: [ShardRecord] = []
        for name in names where name.hasPrefix("shard-") && name.hasSuffix(".json") {
            guard let r = Records.decode(ShardRecord.self, at: join(outputDirectory, name)), r.format == ShardRecord.formatName else {
                throw .mergeIncomplete(directory: outputDirectory, reason: "\(name) is not a shard record")
            }
            records.append(r)
        }
        guard let count = records.first?.count else {
            throw .mergeIncomplete(directory: outputDirectory, reason: "no shard-K-of-N.json files (run the shards with --shard K/N and --out here)")
        }
        guard records.allSatisfy({ $0.count == count }) else {
            throw .mergeIncomplete(directory: outputDirectory, reason: "shard records of different runs (N differs); remove the stale ones")
        }
        let present = Set(records.map(\.shard))
        let missing = (1...count).filter { !present.contains($0) }
        guard missing.isEmpty else {
            throw .mergeIncomplete(
                directory: outputDirectory,
                reason: "shard\(missing.count > 1 ? "s" : "") \(missing.map { "\($0)/\(count)" }.joined(separator: ", ")) not finished")
        }
        return records.flatMap(\.books).sorted { $0.index < $1.index }.map(\.key)
    }

    /// Draws the library sheets from the books' records and cover thumbnails (never from the
    /// scans, so it works on the output of other machines), unless they are up to date.
    func buildLibrary(keys: [String], labeler: Labeler) throws(ThumbnailError) -> LibraryReport {
        var entries: [LibraryRecord.Entry] = []
        var covers: [String] = []
        var missing: [String] = []
        for key in keys {
            let dir = join(outputDirectory, key)
            guard let record = BookRecord.load(join(dir, BookRecord.fileName)), let cover = record.cover,
                let stamp = FileStamp(path: join(dir, cover))
            else {
                missing.append(key)
                continue
            }
            entries.append(.init(key: key, title: record.title, record: "\(stamp.size)-\(stamp.modified)"))
            covers.append(join(dir, cover))
        }
        let layout = LibraryLayout(parameters: parameters)
        let sheetCount = (entries.count + layout.perSheet - 1) / layout.perSheet
        let sheetNames = (0..<sheetCount).map(LibraryLayout.sheetName)
        let record = LibraryRecord(parameters: parameters.fingerprint, books: entries, sheets: sheetNames)
        let recordPath = join(outputDirectory, LibraryRecord.fileName)
        let previous = Records.decode(LibraryRecord.self, at: recordPath)
        if !force, previous == record,
            sheetNames.allSatisfy({ FileIO.exists(join(outputDirectory, $0)) })
        {
            return LibraryReport(sheets: sheetNames, books: entries.count, upToDate: true, missing: missing)
        }
        for s in 0..<sheetCount {
            let range = s * layout.perSheet..<min(entries.count, (s + 1) * layout.perSheet)
            let size = layout.sheetSize(covers: range.count)
            var canvas = Bitmap<RGBA8>(width: size.width, height: size.height, fill: parameters.background)
            for (slot, k) in range.enumerated() {
                let p = layout.placement(slot: slot, title: entries[k].title)
                var tile: Bitmap<RGBA8>
                if let t = try? ImageDecoder.decode(file: covers[k]) {
                    tile = t.resized(fittingWidth: p.boxWidth, height: p.boxHeight)
                } else {
                    tile = PageThumbnailer.placeholder(pageWidth: 3, pageHeight: 4, boxWidth: p.boxWidth, boxHeight: p.boxHeight)
                }
                let (x, y) = p.origin(width: tile.width, height: tile.height)
                canvas.place(tile, atX: x, y: y)
                labeler.draw(p.label, in: p.labelRect, onto: &canvas, color: parameters.labelColor)
            }
            let path = join(outputDirectory, sheetNames[s])
            do {
                try AtomicFile.write(
                    PNGEncoder.encode(canvas, options: parameters.pngOptions, name: path),
                    to: path)
            } catch {
                throw .output(path: path, reason: "\(error)")
            }
        }
        do { try AtomicFile.write(Records.encode(record), to: recordPath) } catch {
            throw .output(path: recordPath, reason: "\(error)")
        }
        for stale in Set(previous?.sheets ?? []).subtracting(sheetNames) { unlink(join(outputDirectory, stale)) }
        return LibraryReport(sheets: sheetNames, books: entries.count, upToDate: false, missing: missing)
    }
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
