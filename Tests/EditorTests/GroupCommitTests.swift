import BookModel
import Editor
import FileIO
import Foundation
import Testing

/// Saves from many threads at once go through the editor's group commit: several changes share one
/// journal fsync and one book.json write. These check what must hold however the batches fall.
@Suite struct GroupCommitTests {
    /// Pages that have text boxes, 1-based.
    func textPages(_ editor: BookEditor) throws -> [Int] {
        let pages = try #require(editor.snapshot().book.objectValue?["pages"]?.arrayValue)
        return pages.indices.filter { !(pages[$0].objectValue?["textBoxes"]?.arrayValue ?? []).isEmpty }.map { $0 + 1 }
    }

    @Test func concurrentSavesAreEachJournaledOnceInOrder() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let pages = try textPages(editor)
        let threads = 12, savesEach = 4
        let acked = Acked()
        DispatchQueue.concurrentPerform(iterations: threads) { t in
            let n = pages[t % pages.count]
            var done = 0, attempts = 0
            while done < savesEach && attempts < 200 {
                attempts += 1
                do {
                    let snap = try editor.snapshot()
                    guard let p = snap.book.objectValue?["pages"]?.arrayValue?[n - 1] else { return }
                    let text = "t\(t) save \(done)"
                    let r = try editor.savePage(n, try retexted(p, "en", text), base: snap.revision, user: "t\(t)")
                    acked.add(revision: r.revision, page: n, text: text)
                    done += 1
                } catch EditError.conflict {
                    continue  // two threads share a page: re-read and try again
                } catch {
                    acked.fail("\(error)")
                    return
                }
            }
        }
        #expect(acked.failures.isEmpty, "\(acked.failures)")
        #expect(acked.revisions.count == threads * savesEach)
        let history = try BookEditor(directory: dir).history()
        // Every acknowledged save is in the journal, the journal has nothing else, seqs run 1…N.
        #expect(Set(history.map(\.revision)) == Set(acked.revisions))
        #expect(history.map(\.seq) == Array(1...history.count))
        // Each entry was made on the one before it: batching did not reorder or skip states.
        for (a, b) in zip(history, history.dropFirst()) { #expect(b.base == a.revision) }
        // book.json holds the last acknowledged text of every page and still validates.
        let book = try Book.load(directory: dir).book
        for (n, text) in acked.lastText { #expect(book.pages[n - 1].textBoxes[0].text["en"] == text) }
        #expect(try BookEditor(directory: dir).revision == history.last?.revision)
    }

    @Test func oneRefusedChangeDoesNotRefuseItsBatch() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let pages = try textPages(editor)
        let r0 = editor.revision
        let first = try #require(pages.first)
        // Hold the first batch's journal write until the others are queued behind it, so they
        // are likely to be one batch; what is checked holds however they were batched.
        let release = DispatchSemaphore(value: 0)
        let held = Flag()
        editor.fault = { step throws(EditError) in
            if step == "journal" && held.setOnce() { release.wait() }
        }
        // Everything read before the first batch is held: a read waits for the book's lock.
        let p1 = try page(editor, first)
        let others = try pages.dropFirst().prefix(3).map { ($0, try page(editor, $0)) }
        try #require(pages.count >= 5)
        var bad = try #require(try page(editor, pages[4]).objectValue)
        let results = Results()
        let group = DispatchGroup()
        DispatchQueue.global().async(group: group) {
            results.set("first", Result { try editor.savePage(first, try retexted(p1, "en", "first"), base: r0, user: "a").revision })
        }
        Thread.sleep(forTimeInterval: 0.2)
        // Made on r0 like the first: a conflict once the first is in.
        DispatchQueue.global().async(group: group) {
            results.set("stale", Result { try editor.savePage(first, try retexted(p1, "en", "stale"), base: r0, user: "b").revision })
        }
        for (n, p) in others {
            DispatchQueue.global().async(group: group) {
                results.set("p\(n)", Result { try editor.savePage(n, try retexted(p, "en", "page \(n)"), base: r0, user: "c").revision })
            }
        }
        // An invalid page.
        var boxes = try #require(bad["textBoxes"]?.arrayValue)
        var box = try #require(boxes[0].objectValue)
        box["rect"] = .object(["x": -50, "y": 0, "width": 10, "height": 10])  // off the page
        boxes[0] = .object(box)
        bad["textBoxes"] = .array(boxes)
        let badPage = JSONValue.object(bad)
        DispatchQueue.global().async(group: group) {
            results.set("bad", Result { try editor.savePage(pages[4], badPage, base: r0, user: "d").revision })
        }
        Thread.sleep(forTimeInterval: 0.3)
        release.signal()
        group.wait()
        editor.fault = nil

        let all = results.all
        #expect((try? all["first"]?.get()) != nil)
        if case .failure(let e)? = all["stale"], case .conflict = e as? EditError {} else { Issue.record("stale save: \(String(describing: all["stale"]))") }
        if case .failure(let e)? = all["bad"], case .badRequest = e as? EditError {} else { Issue.record("invalid page: \(String(describing: all["bad"]))") }
        let good = all.filter { $0.key.hasPrefix("p") || $0.key == "first" }.compactMap { try? $0.value.get() }
        #expect(good.count == 1 + min(3, pages.count - 1))
        let history = try BookEditor(directory: dir).history()
        #expect(Set(history.map(\.revision)) == Set(good))
        let book = try Book.load(directory: dir).book
        #expect(book.pages[first - 1].textBoxes[0].text["en"] == "first")
    }

    @Test func aFailedJournalAppendRefusesTheWholeBatchAndKeepsTheFiles() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let pages = try textPages(editor)
        let r0 = editor.revision
        let manifestBefore = try FileIO.read(dir + "/book.json")
        editor.fault = { step throws(EditError) in if step == "journal" { throw .diskFull("simulated: no space left on device") } }
        let results = Results()
        let originals = try pages.map { try page(editor, $0) }
        DispatchQueue.concurrentPerform(iterations: pages.count) { i in
            results.set("\(i)", Result { try editor.savePage(pages[i], try retexted(originals[i], "en", "lost \(i)"), base: r0, user: "a").revision })
        }
        for (k, r) in results.all {
            if case .failure(let e) = r, case .diskFull = e as? EditError {} else { Issue.record("save \(k): \(r)") }
        }
        #expect(editor.revision == r0)
        #expect(try editor.history().isEmpty)
        #expect(try FileIO.read(dir + "/book.json") == manifestBefore)
        editor.fault = nil
        let saved = try editor.savePage(pages[0], try retexted(originals[0], "en", "kept"), base: r0, user: "a")
        #expect(try BookEditor(directory: dir).history().map(\.revision) == [saved.revision])
    }
}

/// What the threads of a test collect.
final class Acked: @unchecked Sendable {
    private let lock = NSLock()
    private(set) var revisions: [String] = []
    /// Per page, the text of its acknowledged save with the highest seq.
    private var latest: [Int: (seq: Int, text: String)] = [:]
    var lastText: [Int: String] { lock.withLock { latest.mapValues(\.text) } }
    private(set) var failures: [String] = []
    func add(revision: String, page: Int, text: String) {
        lock.withLock {
            revisions.append(revision)
            let seq = Int(revision.prefix { $0 != "-" }) ?? 0
            if seq > latest[page]?.seq ?? -1 { latest[page] = (seq, text) }
        }
    }
    func fail(_ m: String) { lock.withLock { failures.append(m) } }
}

final class Results: @unchecked Sendable {
    private let lock = NSLock()
    private var values: [String: Result<String, any Error>] = [:]
    func set(_ k: String, _ r: Result<String, any Error>) { lock.withLock { values[k] = r } }
    var all: [String: Result<String, any Error>] { lock.withLock { values } }
}

final class Flag: @unchecked Sendable {
    private let lock = NSLock()
    private var set = false
    /// True the first time only.
    func setOnce() -> Bool { lock.withLock { if set { return false }; set = true; return true } }
}
