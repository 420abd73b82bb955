// The per-book journal, `<book>/.picturebook/journal.jsonl`: one JSON object per line for every
// change made through the editor (who, when, which page, the page before and after). A line is
// appended and fsynced before book.json is replaced and before the change is acknowledged, so
// every acknowledged edit is on disk even if the process dies the next instant; a line cut short
// by a crash is dropped when the journal is next opened.

public import BookModel
import FileIO
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One change to a book.
public struct JournalEntry: Sendable, Equatable {
    public enum Kind: String, Sendable {
        /// A page saved from the editor.
        case page
        /// A page's earlier change taken back.
        case undo
        /// The whole book set back to an earlier revision.
        case restore
    }

    public var seq: Int
    /// The book's revision after this change.
    public var revision: String
    /// The revision it was made on.
    public var base: String
    public var user: String
    /// ISO 8601 UTC.
    public var time: String
    public var kind: Kind
    /// 1-based page number; nil for a whole-book restore.
    public var page: Int?
    /// For an undo, the seq of the change it takes back.
    public var undoes: Int?
    public var summary: String
    /// The page (or, for a restore, the whole book) before and after.
    public var before: JSONValue
    public var after: JSONValue

    var json: JSONValue {
        var o: JSONObject = [
            "seq": .number(JSONNumber(seq)), "revision": .string(revision), "base": .string(base),
            "user": .string(user), "time": .string(time), "kind": .string(kind.rawValue),
            "page": page.map { .number(JSONNumber($0)) } ?? .null,
        ]
        if let undoes { o["undoes"] = .number(JSONNumber(undoes)) }
        o["summary"] = .string(summary)
        o["before"] = before
        o["after"] = after
        return .object(o)
    }

    init(seq: Int, revision: String, base: String, user: String, time: String, kind: Kind, page: Int?, undoes: Int?,
         summary: String, before: JSONValue, after: JSONValue)
    {
        self.seq = seq
        self.revision = revision
        self.base = base
        self.user = user
        self.time = time
        self.kind = kind
        self.page = page
        self.undoes = undoes
        self.summary = summary
        self.before = before
        self.after = after
    }

    init?(_ v: JSONValue) {
        guard let o = v.objectValue, let seq = o["seq"]?.numberValue?.intValue, let revision = o["revision"]?.stringValue,
              let kind = o["kind"]?.stringValue.flatMap(Kind.init(rawValue:)), let before = o["before"], let after = o["after"]
        else { return nil }
        self.seq = seq
        self.revision = revision
        base = o["base"]?.stringValue ?? ""
        user = o["user"]?.stringValue ?? ""
        time = o["time"]?.stringValue ?? ""
        self.kind = kind
        page = o["page"]?.numberValue?.intValue
        undoes = o["undoes"]?.numberValue?.intValue
        summary = o["summary"]?.stringValue ?? ""
        self.before = before
        self.after = after
        if kind != .restore && page == nil { return nil }
    }
}

/// The journal file itself: reading every entry, appending one durably.
struct JournalFile {
    let path: String

    /// Every complete entry in order. A last line without its newline (the process died while
    /// writing it) was never acknowledged: it is cut off the file so the next append starts clean.
    /// A malformed complete line is an error: the journal is the record of truth and is not
    /// silently skipped over.
    func readAll() throws(EditError) -> [JournalEntry] {
        guard FileIO.exists(path) else { return [] }
        let bytes: [UInt8]
        do { bytes = try FileIO.read(path, limit: 4 << 30) } catch { throw .storage(error.description) }
        var entries: [JournalEntry] = []
        var start = 0, lineNumber = 0
        while start < bytes.count {
            guard let end = bytes[start...].firstIndex(of: 0x0A) else {
                // Partial final line: remove it.
                if truncate(path, off_t(start)) != 0 {
                    throw .storage("\(path): cannot cut off an incomplete last entry: \(String(cString: strerror(errno)))")
                }
                break
            }
            lineNumber += 1
            let line = Array(bytes[start..<end])
            start = end + 1
            if line.allSatisfy({ $0 == 0x20 || $0 == 0x0D }) { continue }
            guard let v = try? JSONParser.parse(line).value, let e = JournalEntry(v) else {
                throw .corrupt("\(path):\(lineNumber): not a journal entry; the journal needs a look by hand before editing continues")
            }
            entries.append(e)
        }
        return entries
    }

    /// Appends entries (a group commit's batch: one write, one fsync). On failure the file is cut
    /// back to its previous length, so a refused save leaves no trace. Returns the length before,
    /// for `cutBack`.
    func append(_ batch: [JournalEntry]) throws(EditError) -> off_t {
        var line: [UInt8] = []
        for entry in batch { line += Array(JSONWriter.compact(entry.json).utf8) + [0x0A] }
        let existed = FileIO.exists(path)
        let fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw EditError.fromErrno(path, "cannot open the journal") }
        defer { close(fd) }
        var st = stat()
        fstat(fd, &st)
        let before = st.st_size
        var done = 0
        while done < line.count {
            let n = line.withUnsafeBytes { write(fd, $0.baseAddress! + done, line.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                let e = EditError.fromErrno(path, "cannot append to the journal")
                ftruncate(fd, before)
                throw e
            }
            done += n
        }
        if fsync(fd) != 0 {
            let e = EditError.fromErrno(path, "cannot flush the journal to disk")
            ftruncate(fd, before)
            throw e
        }
        // A new file's name must be durable too: fsync the folder that holds it.
        if !existed { syncDirectory((path as NSString).deletingLastPathComponent) }
        return before
    }

    /// Undoes an append whose change could not be completed.
    func cutBack(to length: off_t) {
        if truncate(path, length) == 0 {
            let fd = open(path, O_WRONLY | O_CLOEXEC)
            if fd >= 0 {
                fsync(fd)
                close(fd)
            }
        }
    }

    func syncDirectory(_ dir: String) {
        let fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if fd >= 0 {
            fsync(fd)
            close(fd)
        }
    }
}

/// What went wrong editing a book; the server maps each case to its HTTP status.
public enum EditError: Error, CustomStringConvertible, Sendable {
    case notFound(String)
    case badRequest(String, problems: [String])
    case conflict(Conflict)
    /// The disk is full (or over quota): nothing was changed.
    case diskFull(String)
    case storage(String)
    /// The journal or book.json cannot be made sense of.
    case corrupt(String)

    public var description: String {
        switch self {
        case .notFound(let m), .diskFull(let m), .storage(let m), .corrupt(let m): return m
        case .badRequest(let m, let problems): return problems.isEmpty ? m : m + ": " + problems.joined(separator: "; ")
        case .conflict(let c): return "the page was changed by someone else (now at revision \(c.currentRevision))"
        }
    }

    static func fromErrno(_ path: String, _ what: String) -> EditError {
        let code = errno
        let text = "\(path): \(what): \(String(cString: strerror(code)))"
        return code == ENOSPC || code == EDQUOT ? .diskFull(text) : .storage(text)
    }
}

/// A save against an older revision that touched the same page.
public struct Conflict: Sendable {
    public let currentRevision: String
    public let current: JSONValue
    public let yours: JSONValue
    /// The page at the revision the save named, when known.
    public let base: JSONValue?
}
