import BookModel
import Editor
import FileIO
import Foundation
import Testing

/// A save is answered once its journal line is fsynced; book.json is written just after. These
/// hold the book.json write (the editor's test hook) to look at every moment in between.
@Suite struct WriteBehindTests {
    /// Holds the writer at its book.json write until `release`; `entered` says it got there.
    final class Gate: @unchecked Sendable {
        let entered = DispatchSemaphore(value: 0)
        let open = DispatchSemaphore(value: 0)
        func release() { open.signal() }
    }

    func textPages(_ editor: BookEditor) throws -> [Int] {
        let pages = try #require(editor.snapshot().book.objectValue?["pages"]?.arrayValue)
        return pages.indices.filter { !(pages[$0].objectValue?["textBoxes"]?.arrayValue ?? []).isEmpty }.map { $0 + 1 }
    }

    func holdBookWrites(_ editor: BookEditor) -> Gate {
        let gate = Gate()
        editor.fault = { step throws(EditError) in
            if step == "book" {
                gate.entered.signal()
                gate.open.wait()
            }
        }
        return gate
    }

    /// Saves on another thread and waits up to `seconds` for the answer; nil if none came (with
    /// the book.json write held, an editor that writes before answering never answers).
    func saveAnswered(
        _ editor: BookEditor, _ n: Int, _ page: JSONValue, base: String, seconds: Double = 60
    ) -> Result<(revision: String, page: JSONValue), any Error>? {
        let done = DispatchSemaphore(value: 0)
        let box = Box<Result<(revision: String, page: JSONValue), any Error>>()
        DispatchQueue.global().async {
            box.value = Result { try editor.savePage(n, page, base: base, user: "ann") }
            done.signal()
        }
        return done.wait(timeout: .now() + seconds) == .success ? box.value : nil
    }

    @Test func readsRightAfterTheAnswerSeeTheChangeWhileBookJsonIsStillBeingWritten() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let n = try textPage(editor)
        let r0 = editor.revision
        let original = try page(editor, n)
        let manifestBefore = try FileIO.read(dir + "/book.json")
        let gate = holdBookWrites(editor)
        defer { gate.release() }
        guard let answer = saveAnswered(editor, n, try retexted(original, "en", "answered"), base: r0) else {
            Issue.record("the save was not answered while its book.json write was held")
            return
        }
        let saved = try answer.get()
        // The write behind the answer is under way and held: book.json on disk is the old one.
        #expect(gate.entered.wait(timeout: .now() + 60) == .success)
        #expect(try FileIO.read(dir + "/book.json") == manifestBefore)
        // Every read already answers with the new state and revision.
        #expect(editor.revision == saved.revision)
        let snap = try editor.snapshot()
        #expect(snap.revision == saved.revision)
        #expect(firstText(try #require(snap.book.objectValue?["pages"]?.arrayValue?[n - 1]), "en") == "answered")
        #expect(try editor.history().map(\.revision) == [saved.revision])
        #expect(firstText(try #require(try editor.book(at: saved.revision).objectValue?["pages"]?.arrayValue?[n - 1]), "en") == "answered")
        // The next batch does not wait for the write: a save made on r0 is answered while the
        // write is still held, a 409 naming the answered revision; a save of another page is
        // journaled and answered too.
        guard let staleAnswer = saveAnswered(editor, n, try retexted(original, "en", "stale"), base: r0) else {
            Issue.record("a save was not answered while the previous batch's book.json write was held")
            return
        }
        if case .failure(let e) = staleAnswer, case .conflict(let c)? = e as? EditError {
            #expect(c.currentRevision == saved.revision)
            #expect(firstText(c.current, "en") == "answered")
        } else {
            Issue.record("expected a conflict, got \(staleAnswer)")
        }
        let other = try #require(try textPages(editor).first { $0 != n })
        guard let otherAnswer = saveAnswered(editor, other, try retexted(try page(editor, other), "en", "meanwhile"), base: saved.revision) else {
            Issue.record("a save of another page was not answered while book.json was being written")
            return
        }
        let later = try otherAnswer.get()
        #expect(try editor.history().map(\.revision) == [saved.revision, later.revision])
        #expect(try FileIO.read(dir + "/book.json") == manifestBefore)
        #expect(editor.waitForBookFile(revision: later.revision, timeout: 0.2) == false)
        // Released, the writer finishes its write and then writes the newest answered state.
        editor.fault = nil
        gate.release()
        #expect(editor.waitForBookFile(revision: saved.revision, timeout: 60))
        #expect(editor.waitForBookFile(revision: later.revision, timeout: 60))
        let written = try Book.load(directory: dir).book
        #expect(written.pages[n - 1].textBoxes[0].text["en"] == "answered")
        #expect(written.pages[other - 1].textBoxes[0].text["en"] == "meanwhile")
        #expect(try BookEditor(directory: dir).revision == later.revision)
    }

    /// book.json is written behind the answers, coalesced: with one write held, later batches are
    /// answered, so book.json can be several batches (of several entries) behind the journal. A
    /// kill then loses none of them: the next open replays them all.
    @Test func severalBatchesBehindAreReplayed() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let pages = try textPages(editor)
        try #require(pages.count >= 3)
        let gate = holdBookWrites(editor)
        defer { gate.release() }
        var revision = editor.revision
        var expected: [Int: String] = [:]
        var revisions: [String] = []
        // Four batches one after another (each waits for its answer), on three pages, one twice.
        for (i, n) in [pages[0], pages[1], pages[2], pages[0]].enumerated() {
            let text = "batch \(i)"
            guard let answer = saveAnswered(editor, n, try retexted(try page(editor, n), "en", text), base: revision) else {
                Issue.record("save \(i) was not answered while the first batch's book.json write was held")
                return
            }
            revision = try answer.get().revision
            revisions.append(revision)
            expected[n] = text
            if i == 0 { #expect(gate.entered.wait(timeout: .now() + 60) == .success) }
        }
        // What a kill -9 now would leave: book.json as before the first save, four entries on.
        let crashed = dir + "-crashed"
        try FileManager.default.copyItem(atPath: dir, toPath: crashed)
        try? FileManager.default.removeItem(atPath: crashed + "/.picturebook/journal.lock")
        #expect(try Book.load(directory: crashed).book.pages[pages[1] - 1].textBoxes[0].text["en"] != "batch 1")
        let reopened = try BookEditor(directory: crashed)
        #expect(reopened.revision == revision)
        #expect(try reopened.history().map(\.revision) == revisions)
        let replayed = try Book.load(directory: crashed).book
        for (n, text) in expected { #expect(replayed.pages[n - 1].textBoxes[0].text["en"] == text) }
        // And the live editor, released, brings book.json to the newest state.
        editor.fault = nil
        gate.release()
        #expect(editor.waitForBookFile(revision: revision, timeout: 60))
        let written = try Book.load(directory: dir).book
        for (n, text) in expected { #expect(written.pages[n - 1].textBoxes[0].text["en"] == text) }
    }

    /// However far behind book.json is (here: the book as it was before 520 saves), the replay
    /// finds where it stands in the journal by its hash and puts every later entry back.
    @Test func aBookJsonFarBehindTheJournalIsReplayed() throws {
        let dir = try farmCopy()
        let original = try FileIO.read(dir + "/book.json")
        let editor = try BookEditor(directory: dir)
        let pages = try textPages(editor)
        var revision = editor.revision
        for i in 0..<520 {
            let n = pages[i % pages.count]
            revision = try editor.savePage(n, try retexted(try page(editor, n), "en", "save \(i)"), base: revision, user: "ann").revision
        }
        try editor.finishWrites()
        try AtomicFile.write(original, to: dir + "/book.json")
        let reopened = try BookEditor(directory: dir)
        #expect(reopened.revision == revision)
        #expect(try reopened.history().count == 520)
        let book = try Book.load(directory: dir).book
        for (k, n) in pages.enumerated() {
            let last = (0..<520).last { $0 % pages.count == k }
            #expect(book.pages[n - 1].textBoxes[0].text["en"] == last.map { "save \($0)" })
        }
    }

    /// A kill during the book.json write leaves its temp file in the book folder; the next open
    /// removes the ones no live writer can own (over 10 minutes old, writer gone), and only
    /// book.json's: `prepare` and friends do not take the editor's lock file.
    @Test func staleBookJsonTempsAreRemovedWhenTheBookIsOpened() throws {
        let dir = try farmCopy()
        let old = Date().addingTimeInterval(-3600)
        func temp(_ name: String, age: Date?) throws -> String {
            let path = dir + "/" + name
            #expect(FileManager.default.createFile(atPath: path, contents: Data("{".utf8)))
            if let age { try FileManager.default.setAttributes([.modificationDate: age], ofItemAtPath: path) }
            return path
        }
        // This process's pid: an old temp naming it is from an earlier process (no write of ours
        // takes an hour). pid 1 is running: its temp may be a live writer's and stays.
        let dead = try temp(".book.json.tmp-\(getpid())-aB3dE9", age: old)
        let fresh = try temp(".book.json.tmp-\(getpid())-fR35h1", age: nil)
        let live = try temp(".book.json.tmp-1-l1veWr", age: old)
        let otherFile = try temp(".glossary.json.tmp-\(getpid())-0tHer1", age: old)
        _ = try BookEditor(directory: dir)
        #expect(!FileIO.exists(dead))
        #expect(FileIO.exists(fresh))
        #expect(FileIO.exists(live))
        #expect(FileIO.exists(otherFile))
    }

    /// kill -9 after the answer but before book.json is written: the folder as it is at that
    /// moment (copied while the write is held) opens with the answered change replayed.
    @Test func anAnsweredChangeIsReplayedWhenTheProcessDiesBeforeBookJsonIsWritten() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let n = try textPage(editor)
        let gate = holdBookWrites(editor)
        defer { gate.release() }
        guard let answer = saveAnswered(editor, n, try retexted(try page(editor, n), "en", "not lost"), base: editor.revision) else {
            Issue.record("the save was not answered while its book.json write was held")
            return
        }
        let saved = try answer.get()
        #expect(gate.entered.wait(timeout: .now() + 60) == .success)
        // What a crash now would leave on disk.
        let crashed = dir + "-crashed"
        try FileManager.default.copyItem(atPath: dir, toPath: crashed)
        try? FileManager.default.removeItem(atPath: crashed + "/.picturebook/journal.lock")
        #expect(try Book.load(directory: crashed).book.pages[n - 1].textBoxes[0].text["en"] != "not lost")
        let reopened = try BookEditor(directory: crashed)
        #expect(reopened.revision == saved.revision)
        #expect(try reopened.history().map(\.revision) == [saved.revision])
        // The replay wrote book.json, which validates.
        #expect(try Book.load(directory: crashed).book.pages[n - 1].textBoxes[0].text["en"] == "not lost")
    }

    /// What the server does when it stops: waits for the write under way, then book.json holds
    /// every answered change.
    @Test func finishingWaitsForTheWriteBehindTheAnswer() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let n = try textPage(editor)
        let gate = holdBookWrites(editor)
        defer { gate.release() }
        guard let answer = saveAnswered(editor, n, try retexted(try page(editor, n), "en", "flushed"), base: editor.revision) else {
            Issue.record("the save was not answered while its book.json write was held")
            return
        }
        _ = try answer.get()
        #expect(gate.entered.wait(timeout: .now() + 60) == .success)
        let finished = DispatchSemaphore(value: 0)
        let failure = Box<any Error>()
        DispatchQueue.global().async {
            do { try editor.finishWrites() } catch { failure.value = error }
            finished.signal()
        }
        // Not before the held write is done.
        #expect(finished.wait(timeout: .now() + 0.5) == .timedOut)
        gate.release()
        #expect(finished.wait(timeout: .now() + 60) == .success)
        #expect(failure.value == nil)
        #expect(try Book.load(directory: dir).book.pages[n - 1].textBoxes[0].text["en"] == "flushed")
    }

    /// A full disk at the book.json write, after the answer: the change stays answered (in the
    /// journal, and every read shows it); the failure is logged; the next save is refused with
    /// diskFull while book.json still cannot be written (nothing new is journaled while book.json
    /// lags and cannot be written); once there is room the next save, or the timer, writes it.
    @Test func aFailedBookWriteAfterTheAnswerKeepsTheChange() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let pages = try #require(editor.snapshot().book.objectValue?["pages"]?.arrayValue)
        let textPages = pages.indices.filter { !(pages[$0].objectValue?["textBoxes"]?.arrayValue ?? []).isEmpty }.map { $0 + 1 }
        try #require(textPages.count >= 3)
        let (a, b, c) = (textPages[0], textPages[1], textPages[2])
        let manifestBefore = try FileIO.read(dir + "/book.json")
        let logged = Box<[String]>()
        logged.value = []
        editor.log = { line in logged.mutate { $0?.append(line) } }
        editor.fault = { step throws(EditError) in if step == "book" { throw .diskFull("simulated: no space left on device") } }
        let saved = try editor.savePage(a, try retexted(try page(editor, a), "en", "kept"), base: editor.revision, user: "ann")
        #expect(editor.waitForBookFile(revision: saved.revision) == false)
        #expect(try FileIO.read(dir + "/book.json") == manifestBefore)
        #expect(logged.value?.contains { $0.contains("could not be written") && $0.contains("journal") } == true)
        #expect(try editor.snapshot().revision == saved.revision)
        #expect(firstText(try page(editor, a), "en") == "kept")
        // Still full: the next save is refused and not journaled.
        do {
            _ = try editor.savePage(b, try retexted(try page(editor, b), "en", "refused"), base: saved.revision, user: "ann")
            Issue.record("a save was journaled while book.json was a batch behind and could not be written")
        } catch {
            guard case .diskFull? = error as? EditError else { Issue.record("expected diskFull, got \(error)"); return }
        }
        #expect(try editor.history().map(\.revision) == [saved.revision])
        // Room again: the timer writes book.json without any save.
        editor.fault = nil
        let deadline = Date().addingTimeInterval(60)
        while try FileIO.read(dir + "/book.json") == manifestBefore, Date() < deadline { Thread.sleep(forTimeInterval: 0.1) }
        #expect(try Book.load(directory: dir).book.pages[a - 1].textBoxes[0].text["en"] == "kept")
        #expect(editor.waitForBookFile(revision: saved.revision, timeout: 60))
        // And saves go on.
        let next = try editor.savePage(c, try retexted(try page(editor, c), "en", "later"), base: saved.revision, user: "ann")
        try editor.finishWrites()
        #expect(try BookEditor(directory: dir).history().map(\.revision) == [saved.revision, next.revision])
    }
}

extension WriteBehindTests {
    /// The write fails (a full disk) after a later batch was answered during it: both changes
    /// stay answered and readable, neither is reported as in book.json, the next save is refused
    /// while the disk stays full, and once there is room book.json gets the newest state.
    @Test func aWriteThatFailsAfterALaterBatchWasAnsweredKeepsBoth() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let pages = try textPages(editor)
        try #require(pages.count >= 3)
        let manifestBefore = try FileIO.read(dir + "/book.json")
        editor.log = { _ in }
        let gate = Gate()
        defer { gate.release() }
        editor.fault = { step throws(EditError) in
            if step == "book" {
                gate.entered.signal()
                gate.open.wait()
                throw .diskFull("simulated: no space left on device")
            }
        }
        guard let first = saveAnswered(editor, pages[0], try retexted(try page(editor, pages[0]), "en", "first"), base: editor.revision) else {
            Issue.record("the first save was not answered")
            return
        }
        let r1 = try first.get().revision
        #expect(gate.entered.wait(timeout: .now() + 60) == .success)
        guard let second = saveAnswered(editor, pages[1], try retexted(try page(editor, pages[1]), "en", "second"), base: r1) else {
            Issue.record("a save was not answered while the previous batch's book.json write was held")
            return
        }
        let r2 = try second.get().revision
        gate.release()
        #expect(editor.waitForBookFile(revision: r1, timeout: 60) == false)
        #expect(editor.waitForBookFile(revision: r2, timeout: 60) == false)
        #expect(try FileIO.read(dir + "/book.json") == manifestBefore)
        #expect(try editor.snapshot().revision == r2)
        #expect(firstText(try page(editor, pages[0]), "en") == "first")
        #expect(firstText(try page(editor, pages[1]), "en") == "second")
        // Still full (the fault now fails at once): the next save is refused, nothing journaled.
        editor.fault = { step throws(EditError) in if step == "book" { throw .diskFull("simulated: no space left on device") } }
        do {
            _ = try editor.savePage(pages[2], try retexted(try page(editor, pages[2]), "en", "refused"), base: r2, user: "ann")
            Issue.record("a save was journaled while book.json lagged and could not be written")
        } catch {
            guard case .diskFull? = error as? EditError else { Issue.record("expected diskFull, got \(error)"); return }
        }
        #expect(try editor.history().map(\.revision) == [r1, r2])
        // Room again: the next save writes the lagging state first, then its own.
        editor.fault = nil
        let r3 = try editor.savePage(pages[2], try retexted(try page(editor, pages[2]), "en", "third"), base: r2, user: "ann").revision
        #expect(editor.waitForBookFile(revision: r2, timeout: 60))
        #expect(editor.waitForBookFile(revision: r3, timeout: 60))
        let written = try Book.load(directory: dir).book
        #expect(written.pages[pages[0] - 1].textBoxes[0].text["en"] == "first")
        #expect(written.pages[pages[1] - 1].textBoxes[0].text["en"] == "second")
        #expect(written.pages[pages[2] - 1].textBoxes[0].text["en"] == "third")
    }
}

/// A value one thread sets and another reads.
final class Box<T>: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: T?
    var value: T? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }

    func mutate(_ f: (inout T?) -> Void) { lock.withLock { f(&stored) } }
}
