// Helpers of `BookEditor` that need none of its state: revisions and hashes, page replacement,
// the one-line summaries of the history, the group-commit job, and the save-timing spans.

import BookModel
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension BookEditor {
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

    /// The time now as ISO 8601 UTC with milliseconds ("2026-11-26T23:13:24.123Z"). Made by hand:
    /// a new ISO8601DateFormatter per journal entry cost a good part of each save's time in the
    /// batch, and one shared formatter would need a lock of its own across books.
    static func now() -> String {
        var ts = timespec()
        clock_gettime(CLOCK_REALTIME, &ts)
        var t = time_t(ts.tv_sec)
        var parts = tm()
        gmtime_r(&t, &parts)
        func pad(_ v: Int32, _ width: Int) -> String {
            let s = String(v)
            return String(repeating: "0", count: max(0, width - s.count)) + s
        }
        let ms = Int32(ts.tv_nsec / 1_000_000)
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))T"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(ms, 3))Z"
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
final class Job {
    var run: () -> Bool = { false }
    var fail: (EditError) -> Void = { _ in }
    var done = false
}

/// Time spent per step of one batch, summed over its changes (milliseconds), for finding where a
/// save's time goes: `PICTUREBOOK_SAVE_TIMING=1 picturebook serve --edit …` prints one line a batch
/// and one a book.json write.
struct SaveTiming {
    enum Step: Int, CaseIterable {
        case refresh, serialize, check, hash, batchCheck, journal
        var name: String { ["refresh", "serialize", "check", "hash", "batch-check", "journal"][rawValue] }
    }

    static let enabled = ProcessInfo.processInfo.environment["PICTUREBOOK_SAVE_TIMING"].map { !$0.isEmpty && $0 != "0" } ?? false
    private var spent = [Double](repeating: 0, count: Step.allCases.count)
    private var jobs = 0
    private var began = 0.0
    /// When the batch's changes were answered (after the journal fsync), from its start.
    private var acked = 0.0

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
        acked = 0
    }

    mutating func answered() {
        guard Self.enabled else { return }
        acked = Self.now() - began
    }

    /// Adds the time since `t` to `step` and moves `t` to now.
    mutating func add(_ step: Step, since t: inout Double) {
        guard Self.enabled else { return }
        let n = Self.now()
        spent[step.rawValue] += n - t
        t = n
    }

    /// One line per book.json write on the writer thread (behind the answers, not in a batch).
    static func reportWrite(ms: Double, seq: Int, bytes: Int) {
        guard enabled else { return }
        FileHandle.standardError.write(Data("save-write: book \(String(format: "%.2f", ms)) ms  seq \(seq)  bytes \(bytes)\n".utf8))
    }

    func report() {
        guard Self.enabled else { return }
        let total = Self.now() - began
        let parts = Step.allCases.map { "\($0.name) \(String(format: "%.2f", spent[$0.rawValue]))" }.joined(separator: "  ")
        let line = "save-batch: \(jobs) changes  total \(String(format: "%.2f", total)) ms  \(parts)  answered \(String(format: "%.2f", acked))\n"
        FileHandle.standardError.write(Data(line.utf8))
    }
}
