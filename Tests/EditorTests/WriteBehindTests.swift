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
        // Another save waits for the write (the next batch starts once book.json has this one,
        // so book.json is never two batches behind); made on r0, it is then a 409 naming the
        // answered revision.
        let stale = Box<Result<(revision: String, page: JSONValue), any Error>>()
        let staleDone = DispatchSemaphore(value: 0)
        let staleEdit = try retexted(original, "en", "stale")
        DispatchQueue.global().async {
            stale.value = Result { try editor.savePage(n, staleEdit, base: r0, user: "bob") }
            staleDone.signal()
        }
        #expect(staleDone.wait(timeout: .now() + 0.5) == .timedOut)
        editor.fault = nil
        gate.release()
        #expect(staleDone.wait(timeout: .now() + 60) == .success)
        if case .failure(let e)? = stale.value, case .conflict(let c)? = e as? EditError {
            #expect(c.currentRevision == saved.revision)
            #expect(firstText(c.current, "en") == "answered")
        } else {
            Issue.record("expected a conflict, got \(String(describing: stale.value))")
        }
        #expect(editor.waitForBookFile(revision: saved.revision, timeout: 60))
        #expect(try Book.load(directory: dir).book.pages[n - 1].textBoxes[0].text["en"] == "answered")
        #expect(try BookEditor(directory: dir).revision == saved.revision)
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
    /// diskFull while book.json still cannot be written (book.json stays at most one batch
    /// behind); once there is room the next save, or the timer, writes it.
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
