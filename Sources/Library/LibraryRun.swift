// `picturebook prepare`: every book of a library (or of one shard of it) through the chosen stages
// in order, one book at a time — each stage already spreads a book's pages over the cores, and
// one book in flight keeps memory at one stage's worth whatever the library's size.
//
// Per book: take its lock (or pass it by if a live worker has it), clear temp files a killed run
// left, then for each stage either skip it (its record matches the current inputs and its output
// folders are there) or run it and record it. A stage that fails ends that book's run — later
// stages need its outputs — and the next book goes on.

import BookModel
import FileIO
import Foundation
public import Thumbnails
#if canImport(Glibc)
import Glibc
#endif

public struct StageReport: Sendable, Codable {
    public enum Status: String, Sendable, Codable { case done, skipped, failed }
    public var stage: String
    public var status: Status
    public var pages: Int
    public var seconds: Double
    /// CPU time (user + system, this process's threads and the children it waited for, e.g.
    /// Tesseract) spent in the stage: on a shared machine the wall time is mostly waiting for a
    /// core, and this is what the stage costs.
    public var cpuSeconds: Double?
    public var message: String?
}

public struct BookRunReport: Sendable, Codable {
    public enum Status: String, Sendable, Codable {
        /// At least one stage ran, and none failed.
        case done
        /// Every stage was up to date.
        case skipped
        case failed
        /// Another live worker holds the book's lock; nothing was touched.
        case busy
    }
    public var book: String
    public var directory: String
    public var status: Status
    public var stages: [StageReport]
    public var seconds: Double
    /// Why the book failed (the failing stage's message) or who holds it.
    public var message: String?
}

public struct StageTotals: Sendable, Codable {
    public var stage: String
    /// Books and pages this stage actually processed (skipped ones excluded).
    public var books: Int
    public var pages: Int
    public var seconds: Double
    public var cpuSeconds: Double = 0
    public var pagesPerSecond: Double { seconds > 0 ? Double(pages) / seconds : 0 }
    public var pagesPerCPUSecond: Double { cpuSeconds > 0 ? Double(pages) / cpuSeconds : 0 }
}

public struct LibrarySummary: Sendable {
    public var books: Int
    public var done: Int
    public var skipped: Int
    public var failed: [BookRunReport]
    public var busy: [BookRunReport]
    public var stages: [StageTotals]
    public var shard: String?
    public var seconds: Double
}

public enum LibraryEvent: Sendable {
    case bookStarted(LibraryBook, position: Int, of: Int)
    case stageStarted(LibraryBook, stage: String)
    case bookFinished(BookRunReport)
}

public struct LibraryRun: Sendable {
    public var library: String
    public var stages: [LibraryStage]
    public var shard: LibraryShard?
    /// Seconds after which another host's untouched lock is taken to be abandoned.
    public var lockTimeout: Double
    public var force: Bool
    /// Folders inside the library that are outputs, not books (the thumbnail folder).
    public var excluded: [String]

    public init(library: String, stages: [LibraryStage], shard: LibraryShard? = nil, lockTimeout: Double = 6 * 3600,
                force: Bool = false, excluded: [String] = []) {
        self.library = library.count > 1 && library.hasSuffix("/") ? String(library.dropLast()) : library
        self.stages = stages
        self.shard = shard
        self.lockTimeout = lockTimeout
        self.force = force
        self.excluded = excluded
    }

    /// Every book of the library in natural order (the order of the library grid), whatever the shard.
    public func allBooks() throws(LibraryError) -> [LibraryBook] {
        guard FileIO.isDirectory(library) else { throw .notFound(path: library) }
        let sources: [BookSource]
        do { sources = try BookDiscovery.books(in: [library]) } catch { throw .noBooks(path: library) }
        let skip = excluded.map { $0.hasSuffix("/") ? String($0.dropLast()) : $0 }
        let kept = sources.filter { s in !skip.contains { s.directory == $0 || s.directory.hasPrefix($0 + "/") } }
        // Thumbnail folder names are unique over the books alone: the thumbnail folder's own
        // subfolders (bare folders of JPEGs, to discovery) must not shift them between runs.
        var taken = Set<String>()
        var books: [LibraryBook] = []
        for (i, s) in kept.enumerated() {
            let base = Self.folderKey(s.directory)
            var key = base, n = 2
            while taken.contains(key) {
                key = "\(base)-\(n)"
                n += 1
            }
            taken.insert(key)
            books.append(LibraryBook(directory: s.directory, name: relativeName(s.directory), key: key, index: i))
        }
        guard !books.isEmpty else { throw .noBooks(path: library) }
        return books
    }

    /// The books this worker takes.
    public func myBooks() throws(LibraryError) -> [LibraryBook] {
        let all = try allBooks()
        guard let shard else { return all }
        return all.filter { shard.contains($0.name) }
    }

    /// The folder's name as a plain file name: no separators, no leading dot.
    static func folderKey(_ directory: String) -> String {
        var s = String((directory.split(separator: "/").last.map(String.init) ?? "book").map { $0 == "\\" || $0 == ":" ? "_" : $0 })
        while s.hasPrefix(".") { s.removeFirst() }
        return s.isEmpty ? "book" : s
    }

    func relativeName(_ directory: String) -> String {
        if directory == library { return directory.split(separator: "/").last.map(String.init) ?? directory }
        let prefix = library.hasSuffix("/") ? library : library + "/"
        return directory.hasPrefix(prefix) ? String(directory.dropFirst(prefix.count)) : directory
    }

    /// Books of the whole library with a stage not done (no record, or a record for other inputs).
    public func unprepared() throws(LibraryError) -> [LibraryBook] {
        try allBooks().filter { book in
            guard let inputs = StageRecord.Inputs(book: book.directory) else { return true }
            return stages.contains { StageRecord.read($0.name, in: book.directory) != inputs.fingerprint($0) }
        }
    }

    /// Runs `books` (this worker's, `myBooks()`, when nil: a caller that listed them already
    /// passes them, so a re-run with nothing to do lists the library once, not twice).
    public func run(books listed: [LibraryBook]? = nil, onEvent: @Sendable (LibraryEvent) -> Void = { _ in }) throws(LibraryError) -> LibrarySummary {
        let start = ContinuousClock.now
        let books: [LibraryBook]
        if let listed { books = listed } else { books = try myBooks() }
        var reports: [BookRunReport] = []
        var totals = stages.map { StageTotals(stage: $0.name, books: 0, pages: 0, seconds: 0) }
        for (i, book) in books.enumerated() {
            onEvent(.bookStarted(book, position: i + 1, of: books.count))
            let report = prepare(book, onEvent: onEvent)
            for s in report.stages where s.status == .done {
                if let t = totals.firstIndex(where: { $0.stage == s.stage }) {
                    totals[t].books += 1
                    totals[t].pages += s.pages
                    totals[t].seconds += s.seconds
                    totals[t].cpuSeconds += s.cpuSeconds ?? 0
                }
            }
            onEvent(.bookFinished(report))
            reports.append(report)
        }
        return LibrarySummary(
            books: books.count, done: reports.filter { $0.status == .done }.count,
            skipped: reports.filter { $0.status == .skipped }.count,
            failed: reports.filter { $0.status == .failed }, busy: reports.filter { $0.status == .busy },
            stages: totals, shard: shard?.description, seconds: (ContinuousClock.now - start).seconds)
    }

    /// True when every stage's record matches the book as it is now, its outputs are there and no
    /// lock file is present: the book can be passed by without taking its lock. Sound because a
    /// stage's record is removed before the stage touches an output and written after its last
    /// one, so a run killed anywhere leaves a record missing (and the locked path then clears
    /// its temp files), and a killed run's stale lock sends the book down the locked path too.
    func isUpToDate(_ book: LibraryBook) -> Bool {
        guard !force, !FileIO.exists(book.directory + "/" + BookLock.fileName),
              let inputs = StageRecord.Inputs(book: book.directory)
        else { return false }
        return stages.allSatisfy { stage in
            StageRecord.read(stage.name, in: book.directory) == inputs.fingerprint(stage)
                && stage.outputFolders(book).allSatisfy(FileIO.isDirectory)
        }
    }

    func prepare(_ book: LibraryBook, onEvent: @Sendable (LibraryEvent) -> Void) -> BookRunReport {
        let start = ContinuousClock.now
        var report = BookRunReport(book: book.name, directory: book.directory, status: .skipped, stages: [], seconds: 0)
        if isUpToDate(book) {
            report.stages = stages.map { StageReport(stage: $0.name, status: .skipped, pages: 0, seconds: 0) }
            report.seconds = (ContinuousClock.now - start).seconds
            return report
        }
        let lock: BookLock
        do {
            switch try BookLock.acquire(directory: book.directory, timeout: lockTimeout) {
            case .acquired(let l): lock = l
            case .busy(let holder):
                report.status = .busy
                report.message = "locked by \(holder)"
                return report
            }
        } catch {
            report.status = .failed
            report.message = "\(error)"
            return report
        }
        defer { lock.release() }
        // We hold the book: any temp file in its folders is a killed writer's.
        let folders = [book.directory, book.directory + "/" + StageRecord.folder]
            + stages.flatMap { $0.outputFolders(book) }
        for folder in folders { AtomicFile.removeStale(in: folder, exclusive: true) }

        // Read once, and again only after a stage ran (it may have rewritten book.json).
        var inputs = StageRecord.Inputs(book: book.directory)
        for (position, stage) in stages.enumerated() {
            let stageStart = ContinuousClock.now
            let cpuStart = cpuTimeSeconds()
            let outputs = stage.outputFolders(book)
            let recorded = StageRecord.read(stage.name, in: book.directory)
            if !force, let current = inputs?.fingerprint(stage), recorded == current,
               outputs.allSatisfy(FileIO.isDirectory)
            {
                report.stages.append(StageReport(stage: stage.name, status: .skipped, pages: 0, seconds: 0))
                continue
            }
            onEvent(.stageStarted(book, stage: stage.name))
            // A stale record must not vouch for outputs this run is about to replace.
            if recorded != nil { StageRecord.remove(stage.name, in: book.directory) }
            // Earlier stages current right now: the ones to re-record if this stage only adds
            // to book.json what they do not read (see `keepsEarlierRecords`).
            let currentBefore: [LibraryStage] = stage.keepsEarlierRecords
                ? stages[..<position].filter { earlier in
                    inputs.map { StageRecord.read(earlier.name, in: book.directory) == $0.fingerprint(earlier) } ?? false
                }
                : []
            do {
                let result = try stage.run(StageRequest(book: book, redo: force || recorded == nil))
                // The inputs as they are now: a stage may rewrite book.json (clear marks boxes for
                // review), and its record must describe the book it leaves behind.
                inputs = StageRecord.Inputs(book: book.directory)
                // Earlier records first: killed between the two writes, this stage has no record
                // and is redone, which re-records them again; never a record for a stale output.
                for earlier in currentBefore {
                    if let after = inputs?.fingerprint(earlier) {
                        try StageRecord.write(after, stage: earlier.name, in: book.directory)
                    }
                }
                if let after = inputs?.fingerprint(stage) {
                    try StageRecord.write(after, stage: stage.name, in: book.directory)
                }
                report.stages.append(StageReport(
                    stage: stage.name, status: .done, pages: result.pages, seconds: (ContinuousClock.now - stageStart).seconds,
                    cpuSeconds: cpuTimeSeconds() - cpuStart, message: result.note))
                report.status = .done
            } catch {
                report.stages.append(StageReport(
                    stage: stage.name, status: .failed, pages: 0, seconds: (ContinuousClock.now - stageStart).seconds,
                    cpuSeconds: cpuTimeSeconds() - cpuStart, message: "\(error)"))
                report.status = .failed
                // The stage's own messages usually start with its name already.
                let message = "\(error)"
                report.message = message.hasPrefix(stage.name + ":") ? message : "\(stage.name): \(message)"
                break
            }
            lock.touch()
        }
        report.seconds = (ContinuousClock.now - start).seconds
        return report
    }

    /// Every book of the library, once every one is through every stage; otherwise the error
    /// naming those that are not.
    public func mergeReady() throws(LibraryError) -> [LibraryBook] {
        let missing = try unprepared()
        guard missing.isEmpty else { throw .unprepared(books: missing.map(\.name), stages: stages.map(\.name)) }
        return try allBooks()
    }

    /// Draws the library grid of covers once every shard is done: refuses, naming them, while any
    /// book still lacks a stage.
    public func merge(thumbnails: ThumbnailRunner) throws(LibraryError) -> LibraryReport {
        let missing = try unprepared()
        guard missing.isEmpty else { throw .unprepared(books: missing.map(\.name), stages: stages.map(\.name)) }
        let sources = try allBooks().map(\.source)
        do { return try thumbnails.merge(books: sources) } catch { throw .merge(reason: "\(error)") }
    }
}

/// User + system CPU seconds of this process (all threads) and of its waited-for children.
func cpuTimeSeconds() -> Double {
    #if canImport(Glibc)
    var me = rusage(), children = rusage()
    guard getrusage(RUSAGE_SELF.rawValue, &me) == 0, getrusage(RUSAGE_CHILDREN.rawValue, &children) == 0 else { return 0 }
    func s(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
    return s(me.ru_utime) + s(me.ru_stime) + s(children.ru_utime) + s(children.ru_stime)
    #else
    return 0
    #endif
}

extension Duration {
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
