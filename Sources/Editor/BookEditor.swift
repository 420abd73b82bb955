// Editing one book: the book.json document as stored (unknown fields kept), its revision, and the
// journal of changes. Every operation takes a lock file shared with other processes (a running
// server and `picturebook history --restore`), re-reads the disk when someone else changed it,
// and makes its change durable in this order: journal line fsynced, then book.json replaced
// atomically. A crash between the two is repaired on the next open by replaying the last entry.

public import BookModel
import FileIO
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public final class BookEditor: @unchecked Sendable {
    public let directory: String
    let journal: JournalFile
    let manifest: String
    let lockPath: String
    /// Serialises this process's operations; the lock file serialises processes.
    private let lock = NSLock()

    private var root: JSONValue = .null
    private var revisionValue = ""
    private var entries: [JournalEntry] = []
    /// Revisions this editor can place in the journal (revision → seq of the state it names).
    private var known: [String: Int] = [:]
    /// What book.json and the journal looked like after our last read or write.
    private var diskKey = ""

    /// Changes applied in memory whose batch is not yet written (only inside `runBatch`).
    private var unwritten: [JournalEntry] = []
    private let published = NSLock()
    private var publishedCount = 0
    private var publishedRevision = ""
    private var unwrittenBook: [UInt8]?
    /// Group commit: the changes waiting for the next batch, and whether a thread is making one.
    private let queue = NSCondition()
    private var waiting: [Job] = []
    private var leading = false
    /// Set while a batch is run again because its whole-book check failed: every change is then
    /// checked against the whole book, as one by one.
    private var strict = false
    /// Where a batch's time goes, printed to stderr when PICTUREBOOK_SAVE_TIMING is set.
    private var timing = SaveTiming()

    /// Tests make the disk "fail" at a named step ("journal" or "book") with this.
    public var fault: (@Sendable (String) throws(EditError) -> Void)?

    /// Opens a book folder for editing, replaying a journal entry that book.json lacks.
    public init(directory: String) throws(EditError) {
        self.directory = directory
        let state = directory + "/.picturebook"
        journal = JournalFile(path: state + "/journal.jsonl")
        manifest = BookDirectory.manifestPath(in: directory)
        lockPath = state + "/journal.lock"
        do { try FileIO.createOwnedDirectory(state) } catch { throw .storage(error.description) }
        try locked { () throws(EditError) in try reload() }
    }

    // MARK: Reading

    /// The durable revision. Like `pageCount`, read without waiting for a batch being written:
    /// the server asks from its async handlers, which must not block on a disk flush.
    public var revision: String { published.withLock { publishedRevision } }

    /// The book as stored and its revision, fresh from disk if another process changed it.
    public func snapshot() throws(EditError) -> (revision: String, book: JSONValue) {
        try locked { () throws(EditError) in
            try refreshIfChanged()
            return (revisionValue, root)
        }
    }

    /// The whole book as it was at `revision` (one the history names), for looking at or for
    /// putting a page back.
    public func book(at revision: String) throws(EditError) -> JSONValue {
        try locked { () throws(EditError) in
            try refreshIfChanged()
            return try bookAt(revision)
        }
    }

    /// Every journal entry, oldest first.
    public func history() throws(EditError) -> [JournalEntry] {
        try locked { () throws(EditError) in
            try refreshIfChanged()
            return entries
        }
    }

    public var pageCount: Int { published.withLock { publishedCount } }

    /// Copies what `revision` and `pageCount` answer; called whenever the files and the memory
    /// agree (after a read of the disk or a written batch).
    private func publish() {
        let count = Self.pages(of: root).count, revision = revisionValue
        published.withLock {
            publishedCount = count
            publishedRevision = revision
        }
    }

    // MARK: Changing

    /// Saves page `n` (1-based) as edited on revision `base`.
    public func savePage(_ n: Int, _ page: JSONValue, base: String, user: String) throws(EditError) -> (revision: String, page: JSONValue) {
        try batched { [self] () throws(EditError) in
            try refreshIfChanged()
            let current = try pageAt(n)
            try checkUnchanged(n, since: base, yours: page)
            try checkFixedFields(page, current: current, n: n)
            let summary = Self.summary(before: current, after: page)
            let revision = try commit(kind: .page, page: n, undoes: nil, summary: summary, before: current, after: page, user: user) {
                Self.replacing(page: n, with: page, in: $0)
            }
            return (revision, page)
        }
    }

    /// Takes back page `n`'s most recent change that is not itself undone (as a new entry).
    public func undo(_ n: Int, base: String, user: String) throws(EditError) -> (revision: String, page: JSONValue) {
        try batched { [self] () throws(EditError) in
            try refreshIfChanged()
            let current = try pageAt(n)
            try checkUnchanged(n, since: base, yours: current)
            var undone = Set<Int>()
            var target: JournalEntry?
            for e in entries.reversed() {
                if e.kind == .restore { break }  // a restore is a barrier: undo works within it
                guard e.page == n else { continue }
                if let u = e.undoes { undone.insert(u); undone.insert(e.seq); continue }
                if undone.contains(e.seq) { continue }
                target = e
                break
            }
            guard let target else { throw .notFound("page \(n) has no change to undo") }
            let restored = target.before
            let revision = try commit(
                kind: .undo, page: n, undoes: target.seq, summary: "undo #\(target.seq): \(target.summary)", before: current,
                after: restored, user: user
            ) { Self.replacing(page: n, with: restored, in: $0) }
            return (revision, restored)
        }
    }

    /// Sets the whole book back to how it was at `target` (a revision from the history), as a new
    /// entry. `base`, when given, must be the current revision.
    public func restore(to target: String, base: String?, user: String) throws(EditError) -> String {
        try batched { [self] () throws(EditError) in
            try refreshIfChanged()
            if let base, base != revisionValue {
                throw .conflict(Conflict(currentRevision: revisionValue, current: root, yours: .null, base: nil))
            }
            let old = try bookAt(target)
            // A restored book must still be a valid book (the scans may have changed since).
            try validate(JSONWriter.serialize(old))
            return try commit(kind: .restore, page: nil, undoes: nil, summary: "restore to \(target)", before: root, after: old, user: user) { _ in old }
        }
    }

    // MARK: Internals

    private func locked<T>(_ body: () throws(EditError) -> T) throws(EditError) -> T {
        lock.lock()
        defer { lock.unlock() }
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw EditError.fromErrno(lockPath, "cannot open the lock file") }
        defer { close(fd) }
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR { throw EditError.fromErrno(lockPath, "cannot lock") }
        }
        return try body()
    }

    private func currentDiskKey() -> String {
        func key(_ p: String) -> String {
            var st = stat()
            guard stat(p, &st) == 0 else { return "-" }
            return "\(st.st_ino):\(st.st_size):\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
        }
        return key(manifest) + "|" + key(journal.path)
    }

    private func refreshIfChanged() throws(EditError) {
        if currentDiskKey() != diskKey { try reload() }
    }

    /// Reads book.json and the journal; replays the last entry when book.json still shows the
    /// state before it (the process died between the journal append and the book.json write).
    private func reload() throws(EditError) {
        entries = try journal.readAll()
        var book = try readManifest()
        var replayed = false
        if let last = entries.last, Self.revisionHash(book) != Self.hashPart(of: last.revision), let caughtUp = Self.replay(entries, onto: book) {
            book = caughtUp
            replayed = true
        }
        root = book
        known = [:]
        if let first = entries.first { known[first.base] = 0 }
        for e in entries { known[e.revision] = e.seq }
        let seq = entries.last?.seq ?? 0
        revisionValue = Self.revision(seq: seq, book: book)
        if known[revisionValue] == nil {
            // book.json was changed outside the editor: revisions named before can no longer be
            // trusted to describe the file, so only the current one is known.
            known = [revisionValue: seq]
        }
        if replayed { try writeManifest(JSONWriter.serialize(book)) }
        diskKey = currentDiskKey()
        publish()
    }

    /// The book with the journal's trailing entries that it lacks applied, when that gives the
    /// journal's last state. A group commit appends a whole batch with one fsync and then writes
    /// book.json once, so a crash in between can leave several entries (of different pages) to
    /// put back, not only the last. Nil when no suffix fits: book.json was changed by hand.
    static func replay(_ entries: [JournalEntry], onto book: JSONValue) -> JSONValue? {
        guard let last = entries.last else { return nil }
        let target = hashPart(of: last.revision)
        // Batches are a few dozen changes; a longer search would only be looking at hand edits.
        for k in 1...min(entries.count, 512) {
            var candidate = book
            var fits = true
            for e in entries[(entries.count - k)...] {
                if e.kind == .restore {
                    guard candidate == e.before else { fits = false; break }
                    candidate = e.after
                } else if let n = e.page, pages(of: candidate).indices.contains(n - 1), pages(of: candidate)[n - 1] == e.before {
                    candidate = replacing(page: n, with: e.after, in: candidate)
                } else {
                    fits = false
                    break
                }
            }
            if fits && revisionHash(candidate) == target { return candidate }
        }
        return nil
    }

    private func readManifest() throws(EditError) -> JSONValue {
        let bytes: [UInt8]
        do { bytes = try FileIO.read(manifest, limit: BookDirectory.manifestSizeLimit) } catch { throw .storage(error.description) }
        do {
            let v = try JSONParser.parse(bytes).value
            guard v.objectValue?["pages"]?.arrayValue != nil else { throw EditError.corrupt("\(manifest): has no pages array") }
            return v
        } catch let e as EditError {
            throw e
        } catch {
            throw .corrupt("\(manifest): \(error)")
        }
    }

    private func writeManifest(_ bytes: [UInt8]) throws(EditError) {
        try fault?("book")
        do { try AtomicFile.write(bytes, to: manifest) } catch {
            throw error.description.contains("No space") || error.description.contains("quota")
                ? .diskFull(error.description) : .storage(error.description)
        }
    }

    /// Applies a change in memory and queues its journal entry; `flush` makes the batch durable
    /// (journal first, then book.json) before any change in it is answered.
    private func commit(
        kind: JournalEntry.Kind, page: Int?, undoes: Int?, summary: String, before: JSONValue, after: JSONValue, user: String,
        change: (JSONValue) -> JSONValue
    ) throws(EditError) -> String {
        let book = change(root)
        var t = SaveTiming.now()
        // Serialised once: hashed into the revision and written from these bytes.
        let bytes = JSONWriter.serialize(book)
        timing.add(.serialize, since: &t)
        if page != nil, kind != .restore, !strict, !Self.touchesSpreads(before: before, after: after) {
            let problems = Self.pageProblems(after, in: root)
            timing.add(.check, since: &t)
            // The page alone is a quick check; when it finds something, the whole-book check
            // decides (and gives the usual message, with the page's real index and position).
            if !problems.isEmpty { try validate(bytes) }
        } else {
            try validate(bytes)
            timing.add(.check, since: &t)
        }
        let seq = (entries.last?.seq ?? 0) + 1
        let revision = "\(seq)-\(Self.hash(bytes))"
        let entry = JournalEntry(
            seq: seq, revision: revision, base: revisionValue, user: user, time: Self.now(), kind: kind, page: page,
            undoes: undoes, summary: summary, before: before, after: after)
        unwritten.append(entry)
        unwrittenBook = bytes
        entries.append(entry)
        known[revision] = seq
        root = book
        revisionValue = revision
        timing.add(.hash, since: &t)
        return revision
    }

    /// The errors of one edited page, checked by the book validator as the only page of a book
    /// with this one's title, languages and other book fields: its decoding, ids, rects, text
    /// languages and sources, without decoding and checking every other page again (which was
    /// most of a save's time). Left out: spreads and the glossary, which name pages by number
    /// (a change of "single" goes to the whole-book check instead), and the scan on disk, which
    /// a save cannot change. What this leaves out the batch's whole-book check still catches.
    static func pageProblems(_ page: JSONValue, in book: JSONValue) -> [String] {
        // Messages name pages[0]; only whether there are any is used.
        guard var probe = book.objectValue else { return ["the book is not a JSON object"] }
        probe["pages"] = .array([page])
        probe["spreads"] = nil
        probe["glossary"] = nil
        do {
            _ = try Book.decode(JSONWriter.serialize(.object(probe)), file: BookDirectory.manifestName, baseDirectory: nil)
            return []
        } catch {
            if case .invalid(_, let diagnostics) = error { return diagnostics.errors.map { $0.formatted(file: BookDirectory.manifestName) } }
            return [error.description]
        }
    }

    /// A page's "single" mark is checked against the book's spreads.
    static func touchesSpreads(before: JSONValue, after: JSONValue) -> Bool {
        before.objectValue?["single"] != after.objectValue?["single"]
    }

    /// Writes the batch's entries to the journal with one fsync, then book.json once with the
    /// batch's final state. Either failing leaves both files as they were and the in-memory state
    /// re-read from them, and every change of the batch is refused.
    private func flush() throws(EditError) {
        guard !unwritten.isEmpty, let bytes = unwrittenBook else { return }
        let batch = unwritten
        unwritten = []
        unwrittenBook = nil
        do throws(EditError) {
            try fault?("journal")
            var t = SaveTiming.now()
            let length = try journal.append(batch)
            timing.add(.journal, since: &t)
            do throws(EditError) {
                try writeManifest(bytes)
                timing.add(.book, since: &t)
            } catch {
                journal.cutBack(to: length)
                throw error
            }
            diskKey = currentDiskKey()
            publish()
        } catch {
            // The files are as before the batch: forget what was applied in memory.
            diskKey = ""
            try? reload()
            throw error
        }
    }

    /// Runs a change as part of a group commit. Saves that arrive while one batch is being made
    /// durable wait and go together in the next: one journal fsync and one book.json write for
    /// all of them, instead of two fsyncs each one after the other behind the book's lock. No
    /// change is answered before its batch is on disk; one that fails alone (a conflict, an
    /// invalid page) does not affect the others; a failed write refuses the whole batch.
    private func batched<T>(_ work: @escaping () throws(EditError) -> T) throws(EditError) -> T {
        var result: Result<T, EditError>?
        let job = Job()
        job.run = { () -> Bool in
            do throws(EditError) {
                result = .success(try work())
                return true
            } catch {
                result = .failure(error)
                return false
            }
        }
        job.fail = { result = .failure($0) }
        queue.lock()
        waiting.append(job)
        while !job.done {
            if leading {
                queue.wait()
                continue
            }
            leading = true
            let batch = waiting
            waiting = []
            queue.unlock()
            runBatch(batch)
            queue.lock()
            leading = false
            for j in batch { j.done = true }
            queue.broadcast()
        }
        queue.unlock()
        guard let result else { throw .storage("internal error: a change was not run") }
        return try result.get()
    }

    private func runBatch(_ batch: [Job]) {
        timing.start(jobs: batch.count)
        defer { timing.report() }
        do throws(EditError) {
            try locked { () throws(EditError) in
                var t = SaveTiming.now()
                try refreshIfChanged()
                timing.add(.refresh, since: &t)
                var applied: [Job] = []
                for job in batch where job.run() { applied.append(job) }
                // The safety net under the per-page checks: the batch's final book, checked whole
                // once. Should a page check ever have let through what the whole-book check
                // refuses, the batch is run again with every change checked whole.
                if !applied.isEmpty, let bytes = unwrittenBook, (try? validate(bytes)) == nil {
                    unwritten = []
                    unwrittenBook = nil
                    diskKey = ""
                    try reload()
                    strict = true
                    defer { strict = false }
                    applied = []
                    for job in batch where job.run() { applied.append(job) }
                }
                timing.add(.batchCheck, since: &t)
                do throws(EditError) { try flush() } catch {
                    for job in applied { job.fail(error) }
                }
            }
        } catch {
            // The lock or the re-read failed: nothing ran.
            for job in batch { job.fail(error) }
        }
    }

    private func validate(_ bytes: [UInt8]) throws(EditError) {
        do {
            _ = try Book.decode(bytes, file: BookDirectory.manifestName, baseDirectory: directory)
        } catch {
            if case .invalid(_, let diagnostics) = error {
                throw .badRequest("the page is not valid", problems: diagnostics.errors.map { $0.formatted(file: BookDirectory.manifestName) })
            }
            throw .badRequest("the page is not valid", problems: [error.description])
        }
    }

    private func pageAt(_ n: Int) throws(EditError) -> JSONValue {
        let pages = Self.pages(of: root)
        guard n >= 1, n <= pages.count else { throw .notFound("the book has no page \(n) (pages are 1...\(pages.count))") }
        return pages[n - 1]
    }

    /// 409 when page `n` changed after `base`; edits of other pages since then are fine.
    private func checkUnchanged(_ n: Int, since base: String, yours: JSONValue) throws(EditError) {
        if base == revisionValue { return }
        let current = try pageAt(n)
        guard let seq = known[base] else {
            throw .conflict(Conflict(currentRevision: revisionValue, current: current, yours: yours, base: nil))
        }
        let later = entries.filter { $0.seq > seq }
        guard let first = later.first(where: { $0.page == n || $0.kind == .restore }) else { return }
        let basePage: JSONValue? = first.kind == .restore
            ? Self.pages(of: first.before).indices.contains(n - 1) ? Self.pages(of: first.before)[n - 1] : nil
            : first.before
        throw .conflict(Conflict(currentRevision: revisionValue, current: current, yours: yours, base: basePage))
    }

    /// The scan a page shows is not the editor's to change.
    private func checkFixedFields(_ page: JSONValue, current: JSONValue, n: Int) throws(EditError) {
        guard let o = page.objectValue else { throw .badRequest("the page must be a JSON object", problems: []) }
        for key in ["image", "width", "height"] where o[key] != current.objectValue?[key] {
            throw .badRequest("page \(n): '\(key)' must stay \(current.objectValue?[key].map(JSONWriter.compact) ?? "absent")", problems: [])
        }
    }

    /// The whole book as of revision `target`, by walking the journal back from now.
    private func bookAt(_ target: String) throws(EditError) -> JSONValue {
        guard let seq = known[target] else { throw .notFound("revision '\(target)' is not in this book's history") }
        var book = root
        for e in entries.reversed() where e.seq > seq {
            if e.kind == .restore { book = e.before } else if let n = e.page { book = Self.replacing(page: n, with: e.before, in: book) }
        }
        return book
    }

    // MARK: Helpers

    static func pages(of book: JSONValue) -> [JSONValue] { book.objectValue?["pages"]?.arrayValue ?? [] }

    static func replacing(page n: Int, with page: JSONValue, in book: JSONValue) -> JSONValue {
        guard var o = book.objectValue, var pages = o["pages"]?.arrayValue, pages.indices.contains(n - 1) else { return book }
        pages[n - 1] = page
        o["pages"] = .array(pages)
        return .object(o)
    }

    /// "seq-hash": the seq places it in the journal, the hash ties it to the content.
    static func revision(seq: Int, book: JSONValue) -> String { "\(seq)-\(revisionHash(book))" }

    static func hashPart(of revision: String) -> String {
        revision.split(separator: "-", maxSplits: 1).last.map(String.init) ?? ""
    }

    static func revisionHash(_ book: JSONValue) -> String { hash(JSONWriter.serialize(book)) }

    static func hash(_ bytes: [UInt8]) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        for b in bytes {
            h ^= UInt64(b)
            h &*= 0x0000_0100_0000_01b3
        }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    static func now() -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return f.string(from: Date())
    }

    /// A one-line description of a page change: boxes added, removed, moved, retexted; review mark.
    static func summary(before: JSONValue, after: JSONValue) -> String {
        func boxes(_ p: JSONValue) -> [String: JSONValue] {
            var d: [String: JSONValue] = [:]
            for (i, b) in (p.objectValue?["textBoxes"]?.arrayValue ?? []).enumerated() {
                d[b.objectValue?["id"]?.stringValue ?? "#\(i)"] = b
            }
            return d
        }
        let a = boxes(before), b = boxes(after)
        var parts: [String] = []
        let added = b.keys.filter { a[$0] == nil }.sorted(), removed = a.keys.filter { b[$0] == nil }.sorted()
        if !added.isEmpty { parts.append("added " + added.joined(separator: ", ")) }
        if !removed.isEmpty { parts.append("removed " + removed.joined(separator: ", ")) }
        var moved: [String] = [], retexted: [String] = [], other: [String] = []
        for id in a.keys.sorted() {
            guard let x = a[id]?.objectValue, let y = b[id]?.objectValue, a[id] != b[id] else { continue }
            if x["rect"] != y["rect"] { moved.append(id) }
            if x["text"] != y["text"] { retexted.append(id) }
            if x["rect"] == y["rect"] && x["text"] == y["text"] { other.append(id) }
        }
        if !moved.isEmpty { parts.append("moved " + moved.joined(separator: ", ")) }
        if !retexted.isEmpty { parts.append("text of " + retexted.joined(separator: ", ")) }
        if !other.isEmpty { parts.append("changed " + other.joined(separator: ", ")) }
        let ra = before.objectValue?["reviewed"], rb = after.objectValue?["reviewed"]
        if ra != rb { parts.append(rb?.boolValue == true ? "marked reviewed" : "review mark removed") }
        if parts.isEmpty { parts.append(before == after ? "no change" : "page fields changed") }
        return parts.joined(separator: "; ")
    }
}

/// One change waiting for a group commit: `run` applies it in memory (false when it was refused),
/// `fail` replaces its answer when its batch could not be written.
private final class Job {
    var run: () -> Bool = { false }
    var fail: (EditError) -> Void = { _ in }
    var done = false
}

/// Time spent per step of one batch, summed over its changes (milliseconds), for finding where a
/// save's time goes: `PICTUREBOOK_SAVE_TIMING=1 picturebook serve --edit …` prints one line a batch.
struct SaveTiming {
    enum Step: Int, CaseIterable {
        case refresh, serialize, check, hash, batchCheck, journal, book
        var name: String { ["refresh", "serialize", "check", "hash", "batch-check", "journal", "book"][rawValue] }
    }

    static let enabled = ProcessInfo.processInfo.environment["PICTUREBOOK_SAVE_TIMING"].map { !$0.isEmpty && $0 != "0" } ?? false
    private var spent = [Double](repeating: 0, count: Step.allCases.count)
    private var jobs = 0
    private var began = 0.0

    static func now() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_MONOTONIC, &ts)
        return Double(ts.tv_sec) * 1000 + Double(ts.tv_nsec) / 1_000_000
    }

    mutating func start(jobs: Int) {
        guard Self.enabled else { return }
        spent = spent.map { _ in 0 }
        self.jobs = jobs
        began = Self.now()
    }

    /// Adds the time since `t` to `step` and moves `t` to now.
    mutating func add(_ step: Step, since t: inout Double) {
        guard Self.enabled else { return }
        let n = Self.now()
        spent[step.rawValue] += n - t
        t = n
    }

    func report() {
        guard Self.enabled else { return }
        let total = Self.now() - began
        let parts = Step.allCases.map { "\($0.name) \(String(format: "%.2f", spent[$0.rawValue]))" }.joined(separator: "  ")
        FileHandle.standardError.write(Data("save-batch: \(jobs) changes  total \(String(format: "%.2f", total)) ms  \(parts)\n".utf8))
    }
}
