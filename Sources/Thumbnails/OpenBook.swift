// A book being thumbnailed: its pages arrive from the workers in any order.

import BookModel
import Codecs
import Foundation
import Raster

final class OpenBook: @unchecked Sendable {
    let source: BookSource
    let book: Book
    let title: String
    let outDir: String
    let layout: OverviewLayout
    let manifestHash: String
    let started: ContinuousClock.Instant
    /// What the last run wrote here, so files this run no longer makes can be removed.
    let previousOutputs: [String]
    /// Next page to hand out; guarded by the scheduler's lock, not this object's.
    var nextPage = 0

    private let lock = NSLock()
    /// Held while a band is drawn and appended, so each sheet's bands reach its file in order
    /// however the workers interleave.
    private let writeLock = NSLock()
    private var entries: [BookRecord.PageEntry?]
    private var failures: [ThumbnailFailure] = []
    /// Per sheet and grid row, the tiles that have arrived and not yet been drawn.
    private var waiting: [[[(Bitmap<RGBA8>, TilePlacement)]]]
    private var rowRemaining: [[Int]]
    /// Per sheet, the next row band to draw; a sheet is done when it reaches its row count.
    private var nextBand: [Int]
    /// Units of work left: one per page and one per sheet write. Whoever finishes the last one
    /// writes the record.
    private var work: Int
    /// The open file of each sheet being drawn, and sheets whose file could not be written
    /// (their remaining bands are passed over). Touched only with the write lock held.
    var sheetWriters: [Int: PNGRowWriter] = [:]
    var failedSheets: Set<Int> = []

    init(source: BookSource, book: Book, title: String, outDir: String, layout: OverviewLayout, manifestHash: String, started: ContinuousClock.Instant,
        previousOutputs: [String]
    ) {
        self.previousOutputs = previousOutputs
        self.source = source
        self.book = book
        self.title = title
        self.outDir = outDir
        self.layout = layout
        self.manifestHash = manifestHash
        self.started = started
        entries = Array(repeating: nil, count: book.pages.count)
        waiting = layout.sheets.map { Array(repeating: [], count: $0.bandTiles.count) }
        rowRemaining = layout.sheets.map(\.bandTiles)
        nextBand = Array(repeating: 0, count: layout.sheets.count)
        work = book.pages.count + layout.sheets.count
    }

    /// A row band ready to draw: its tiles, and whether it is its sheet's last.
    struct Band {
        var sheet: Int
        var row: Int
        var tiles: [(Bitmap<RGBA8>, TilePlacement)]
        var last: Bool
    }

    /// Records a finished page and holds its tile until its row band is drawn.
    func add(page i: Int, tile: Bitmap<RGBA8>, placement: TilePlacement, entry: BookRecord.PageEntry, failures new: [ThumbnailFailure]) {
        lock.withLock {
            entries[i] = entry
            failures += new
            waiting[placement.sheet][placement.row].append((tile, placement))
            rowRemaining[placement.sheet][placement.row] -= 1
        }
    }

    /// Draws every band of `sheet` whose tiles are all in, in order, through `draw` (called with
    /// the write lock held, so bands reach the file in order); returns how many sheets this call
    /// finished (0 or 1).
    func drawReadyBands(of sheet: Int, _ draw: (Band) -> Void) -> Int {
        writeLock.lock()
        defer { writeLock.unlock() }
        var finished = 0
        while true {
            let band: Band? = lock.withLock {
                let r = nextBand[sheet]
                guard r < rowRemaining[sheet].count, rowRemaining[sheet][r] == 0 else { return nil }
                nextBand[sheet] = r + 1
                let tiles = waiting[sheet][r]
                waiting[sheet][r] = []
                return Band(sheet: sheet, row: r, tiles: tiles, last: r + 1 == rowRemaining[sheet].count)
            }
            guard let band else { return finished }
            draw(band)
            if band.last { finished += 1 }
        }
    }

    func addFailure(_ f: ThumbnailFailure) {
        lock.withLock { failures.append(f) }
    }

    /// Marks `units` of work done; true for the caller that finished the book.
    func complete(_ units: Int) -> Bool {
        lock.withLock {
            work -= units
            return work == 0
        }
    }

    func results() -> ([BookRecord.PageEntry], [ThumbnailFailure]) {
        lock.withLock { (entries.compactMap { $0 }, failures) }
    }
}

/// Hands out pages in reading order, book after book, opening books lazily.
final class Scheduler: @unchecked Sendable {
    private let condition = NSCondition()
    private let books: [BookSource]
    private let maxOpen: Int
    private let onEvent: @Sendable (ThumbnailEvent) -> Void
    private let prepare: (BookSource) -> ThumbnailRunner.Preparation
    private var cursor = 0
    private var current: OpenBook?
    private var open = 0
    private var finished: [BookReport] = []

    init(
        books: [BookSource], maxOpen: Int, onEvent: @escaping @Sendable (ThumbnailEvent) -> Void,
        prepare: @escaping (BookSource) -> ThumbnailRunner.Preparation
    ) {
        self.books = books
        self.maxOpen = maxOpen
        self.onEvent = onEvent
        self.prepare = prepare
    }

    var reports: [BookReport] { condition.withLock { finished } }

    /// The next page to do, or nil when every book has been handed out.
    func next() -> (OpenBook, Int)? {
        condition.lock()
        defer { condition.unlock() }
        while true {
            if let b = current {
                if b.nextPage < b.book.pages.count {
                    b.nextPage += 1
                    return (b, b.nextPage - 1)
                }
                current = nil
            }
            guard cursor < books.count else { return nil }
            // A slow page must not let the other workers open book after book behind it.
            if open >= maxOpen {
                condition.wait()
                continue
            }
            let source = books[cursor]
            cursor += 1
            switch prepare(source) {
            case .finished(let report):
                finished.append(report)
                onEvent(.book(report))
            case .open(let b):
                open += 1
                current = b
            }
        }
    }

    func close(_ report: BookReport) {
        condition.withLock {
            open -= 1
            finished.append(report)
            condition.broadcast()
        }
        onEvent(.book(report))
    }
}
