// A book being thumbnailed: its pages arrive from the workers in any order.

import BookModel
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
    private var entries: [BookRecord.PageEntry?]
    private var failures: [ThumbnailFailure] = []
    /// Sheets with tiles on them and tiles still to come; nil before the first and after the last.
    private var sheets: [Bitmap<RGBA8>?]
    private var sheetRemaining: [Int]
    /// Units of work left: one per page and one per sheet write. Whoever finishes the last one
    /// writes the record.
    private var work: Int

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
        sheets = Array(repeating: nil, count: layout.sheets.count)
        sheetRemaining = layout.sheets.map(\.tileCount)
        work = book.pages.count + layout.sheets.count
    }

    /// Puts a finished page's tile on its sheet; returns the sheets this completed (to be
    /// labelled, encoded and written by the caller, outside the lock).
    func add(
        page i: Int, tile: Bitmap<RGBA8>, placement: TilePlacement, entry: BookRecord.PageEntry,
        failures new: [ThumbnailFailure], background: RGBA8
    ) -> [(Int, Bitmap<RGBA8>)] {
        lock.lock()
        defer { lock.unlock() }
        entries[i] = entry
        failures += new
        let s = placement.sheet
        if sheets[s] == nil {
            let size = layout.sheets[s]
            sheets[s] = Bitmap(width: size.width, height: size.height, fill: background)
        }
        let (x, y) = placement.origin(width: tile.width, height: tile.height)
        sheets[s]!.place(tile, atX: x, y: y)
        sheetRemaining[s] -= 1
        guard sheetRemaining[s] == 0, let done = sheets[s] else { return [] }
        sheets[s] = nil
        return [(s, done)]
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
