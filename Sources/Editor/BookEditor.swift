// Editing one book: the book.json document as stored (unknown fields kept), its revision, and the
// journal of changes. Every operation takes a lock file shared with other processes (a running
// server and `picturebook history --restore`), re-reads the disk when someone else changed it,
// and makes its change durable in the journal (lines appended and fsynced) before answering.
// book.json is replaced atomically behind the answers by a writer thread that keeps holding the
// lock file until it has caught up with the newest answered state; batches go on meanwhile, so
// book.json may lag the journal by the batches answered during one write, and a crash then is
// repaired on the next open by replaying the journal's entries it lacks. Documentation/Editing.md
// has the argument.

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
    let lock = NSLock()

    var root: JSONValue = .null
    var revisionValue = ""
    var entries: [JournalEntry] = []
    /// Revisions this editor can place in the journal (revision → seq of the state it names).
    var known: [String: Int] = [:]
    /// What book.json and the journal looked like after our last read or write.
    var diskKey = ""

    /// Changes applied in memory whose batch is not yet journaled (only inside `runBatch`).
    var unwritten: [JournalEntry] = []
    /// The newest answered state's bytes while book.json does not hold them yet: from a batch's
    /// journal fsync until the writer has written it (or a newer one), or until a failed write (a
    /// full disk) is retried. The memory, not book.json, is then the newest state, and every read
    /// answers from it. `unsavedSeq` is the seq of its last journal entry.
    var unsavedBook: [UInt8]?
    var unsavedSeq = 0
    /// True while the writer thread holds the lock file (`heldFD`) to bring book.json up to
    /// `unsavedBook`: no other process can change the files meanwhile, so reads and batches need
    /// not look at the disk, and a batch uses that descriptor instead of locking again (a second
    /// `flock` from this process would wait for the writer, which waits for the batch).
    var writing = false
    var heldFD: Int32 = -1
    let writer = DispatchQueue(label: "picturebook.editor.book-json", qos: .userInitiated)
    /// Under `queue`: the seq of the newest journal entry book.json is known to hold, and whether
    /// the last write behind a batch failed. `waitForBookFile` waits on these.
    var writtenSeq = 0
    var writeFailed = false
    /// The seq up to which the failed write would have brought book.json.
    var failedSeq = 0
    /// Under `queue`: `writing`, for `finishWrites` to wait on.
    var writerBusy = false
    /// Seconds before a failed book.json write is tried again when no save comes to do it.
    static let retryDelay = 5.0
    private let published = NSLock()
    private var publishedCount = 0
    private var publishedRevision = ""
    var unwrittenBook: [UInt8]?
    /// Group commit: the changes waiting for the next batch, and whether a batch is being made
    /// (from its start until its changes are answered; the book.json write is not waited for).
    let queue = NSCondition()
    var waiting: [Job] = []
    var leading = false
    /// Set while a batch is run again because its whole-book check failed: every change is then
    /// checked against the whole book, as one by one.
    var strict = false
    /// Where a batch's time goes, printed to stderr when PICTUREBOOK_SAVE_TIMING is set.
    var timing = SaveTiming()

    /// Tests make the disk "fail" (or wait) at a named step ("journal" or "book") with this.
    public var fault: (@Sendable (String) throws(EditError) -> Void)?
    /// Where the failure of a book.json write that comes after the answer is reported (the
    /// change is safe in the journal; no request is left to tell). Standard error by default.
    public var log: @Sendable (String) -> Void = { FileHandle.standardError.write(Data("picturebook: \($0)\n".utf8)) }

    /// Opens a book folder for editing, replaying a journal entry that book.json lacks.
    public init(directory: String) throws(EditError) {
        self.directory = directory
        let state = directory + "/.picturebook"
        journal = JournalFile(path: state + "/journal.jsonl")
        manifest = BookDirectory.manifestPath(in: directory)
        lockPath = state + "/journal.lock"
        do { try FileIO.createOwnedDirectory(state) } catch { throw .storage(error.description) }
        try locked { () throws(EditError) in
            removeStaleTemps()
            try reload()
        }
    }

    // MARK: Reading

    /// The durable (journaled) revision. Like `pageCount`, read without waiting for a batch being
    /// made: the server asks from its async handlers, which must not block on a disk flush.
    public var revision: String { published.withLock { publishedRevision } }

    /// The book as stored (or, while book.json is being written behind a save's answer, as it is
    /// about to be stored) and its revision, fresh from disk if another process changed it.
    public func snapshot() throws(EditError) -> (revision: String, book: JSONValue) {
        try reading { (revisionValue, root) }
    }

    /// The whole book as it was at `revision` (one the history names), for looking at or for
    /// putting a page back.
    public func book(at revision: String) throws(EditError) -> JSONValue {
        try reading { () throws(EditError) in try bookAt(revision) }
    }

    /// Every journal entry, oldest first.
    public func history() throws(EditError) -> [JournalEntry] {
        try reading { entries }
    }

    public var pageCount: Int { published.withLock { publishedCount } }

    /// Copies what `revision` and `pageCount` answer; called whenever the journal and the memory
    /// agree (after a read of the disk or a journaled batch).
    func publish() {
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

    /// Runs `body` holding this process's lock and then the lock file (always in that order).
    /// Only when the writer thread is not running (at open, and in `finishWrites` after waiting
    /// for it): it holds the lock file, and locking again from here would wait for it forever.
    func locked<T>(_ body: () throws(EditError) -> T) throws(EditError) -> T {
        lock.lock()
        defer { lock.unlock() }
        let fd = try lockFile()
        defer { close(fd) }
        return try body()
    }

    /// The lock file, opened and locked; closing the descriptor unlocks it (from any thread, which
    /// is how the writer thread ends a batch).
    func lockFile() throws(EditError) -> Int32 {
        let fd = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw EditError.fromErrno(lockPath, "cannot open the lock file") }
        while flock(fd, LOCK_EX) != 0 {
            if errno != EINTR {
                let e = EditError.fromErrno(lockPath, "cannot lock")
                close(fd)
                throw e
            }
        }
        return fd
    }

    /// A read: the newest state, which is the memory while this process's writer is replacing
    /// book.json (it holds the lock file, so nobody else can have changed the files) and otherwise
    /// the disk's if another process changed it. Never waits for the book.json write, and so a
    /// save's answer and any read after it show the same revision.
    private func reading<T>(_ body: () throws(EditError) -> T) throws(EditError) -> T {
        lock.lock()
        defer { lock.unlock() }
        if writing { return try body() }
        let fd = try lockFile()
        defer { close(fd) }
        try refreshIfChanged()
        return try body()
    }

    func currentDiskKey() -> String {
        func key(_ p: String) -> String {
            var st = stat()
            guard stat(p, &st) == 0 else { return "-" }
            return "\(st.st_ino):\(st.st_size):\(st.st_mtim.tv_sec).\(st.st_mtim.tv_nsec)"
        }
        return key(manifest) + "|" + key(journal.path)
    }

    /// Re-reads the files when another process changed them. Not while our writer holds the lock
    /// file: nobody else can have changed them since we last looked, and the writer's own rename
    /// of book.json is no news (re-reading then would drop a batch's changes not yet journaled).
    func refreshIfChanged() throws(EditError) {
        if writing { return }
        if currentDiskKey() != diskKey { try reload() }
    }

    /// Reads book.json and the journal; replays the entries book.json lacks (the process died
    /// between a batch's journal append and the book.json write that caught up with it). When
    /// writing the replayed book fails (a full disk) the memory keeps it and the next batch writes
    /// it first. While our writer thread is running (a batch undoing what it applied in memory),
    /// the writer is handed the state to write instead.
    func reload() throws(EditError) {
        if !writing { unsavedBook = nil }
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
        if writing {
            // The writer writes the newest state it is given before it lets go of the lock file
            // (the same seq is the same state: it compares seqs).
            unsavedBook = JSONWriter.serialize(book)
            unsavedSeq = seq
        } else if replayed {
            let bytes = JSONWriter.serialize(book)
            do throws(EditError) { try writeManifest(bytes) } catch {
                unsavedBook = bytes
                unsavedSeq = seq
                log("\(manifest): the journal's last changes could not be written into it (\(error)); they are kept in the journal and written with the next save")
            }
        }
        diskKey = currentDiskKey()
        publish()
        if !writing && unsavedBook == nil { bookFileCaughtUp() }
    }

    /// The book with the journal's entries that it lacks applied, when that gives the journal's
    /// last state; nil when nothing fits (book.json was changed by hand). book.json is written
    /// behind the answers, coalesced to the newest state, so it can be any number of batches
    /// behind (however many were answered during one slow write), each of several entries. It
    /// holds the state some entry produced (or the one before the first), so the entry whose
    /// revision carries book.json's hash says where to start; a state can recur (an undo), so
    /// each such start is tried, newest first.
    static func replay(_ entries: [JournalEntry], onto book: JSONValue) -> JSONValue? {
        guard let last = entries.last, let first = entries.first else { return nil }
        let target = hashPart(of: last.revision), have = revisionHash(book)
        var starts = entries.indices.reversed().filter { hashPart(of: entries[$0].revision) == have }.map { $0 + 1 }
        if hashPart(of: first.base) == have { starts.append(0) }
        for start in starts where start < entries.count {
            if let caughtUp = apply(entries[start...], onto: book), revisionHash(caughtUp) == target { return caughtUp }
        }
        return nil
    }

    /// `entries` applied in order, each checked to start from the state it names as before.
    static func apply(_ entries: ArraySlice<JournalEntry>, onto book: JSONValue) -> JSONValue? {
        var candidate = book
        for e in entries {
            if e.kind == .restore {
                guard candidate == e.before else { return nil }
                candidate = e.after
            } else if let n = e.page, pages(of: candidate).indices.contains(n - 1), pages(of: candidate)[n - 1] == e.before {
                candidate = replacing(page: n, with: e.after, in: candidate)
            } else {
                return nil
            }
        }
        return candidate
    }

    /// Temp files of book.json left by a writer killed mid-write (`.book.json.tmp-PID-XXXXXX`).
    /// The lock file held here keeps out every editor (server, `history --restore`), but not
    /// `prepare`, `analyze` or `ocr`, which write book.json under their own book lock or none; so
    /// only temps over 10 minutes old whose writer is gone are removed (no write of book.json
    /// takes that long), never one that may be being written right now.
    func removeStaleTemps() {
        let removed = AtomicFile.removeStale(in: directory, named: BookDirectory.manifestName)
        if !removed.isEmpty { log("\(directory): removed \(removed.count) temp file(s) of \(BookDirectory.manifestName) left by an interrupted write: \(removed.joined(separator: ", "))") }
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

    func writeManifest(_ bytes: [UInt8]) throws(EditError) {
        try fault?("book")
        do { try AtomicFile.write(bytes, to: manifest) } catch {
            throw error.description.contains("No space") || error.description.contains("quota")
                ? .diskFull(error.description) : .storage(error.description)
        }
    }

    /// Applies a change in memory and queues its journal entry; the batch makes it durable (the
    /// journal fsync) before any change in it is answered, and book.json follows behind.
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

    func validate(_ bytes: [UInt8]) throws(EditError) {
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
}
