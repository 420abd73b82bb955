import BookModel
import Editor
import FileIO
import Foundation
import Testing

/// A copy of the sample farm book in a fresh folder per test.
func farmCopy() throws -> String {
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    let dir = Scratch.path("farm")
    try FileManager.default.copyItem(atPath: url.path + "/Books/good-morning-farm", toPath: dir)
    return dir
}

func page(_ editor: BookEditor, _ n: Int) throws -> JSONValue {
    try #require(editor.snapshot().book.objectValue?["pages"]?.arrayValue?[n - 1])
}

/// The page with its first box's text in `lang` set to `text`.
func retexted(_ p: JSONValue, _ lang: String, _ text: String) throws -> JSONValue {
    var o = try #require(p.objectValue)
    var boxes = try #require(o["textBoxes"]?.arrayValue)
    var box = try #require(boxes.first?.objectValue)
    var t = box["text"]?.objectValue ?? JSONObject()
    t[lang] = .string(text)
    box["text"] = .object(t)
    boxes[0] = .object(box)
    o["textBoxes"] = .array(boxes)
    return .object(o)
}

func firstText(_ p: JSONValue, _ lang: String) -> String? {
    p.objectValue?["textBoxes"]?.arrayValue?.first?.objectValue?["text"]?.objectValue?[lang]?.stringValue
}

/// The first page that has text boxes.
func textPage(_ editor: BookEditor) throws -> Int {
    let pages = try #require(editor.snapshot().book.objectValue?["pages"]?.arrayValue)
    let i = try #require(pages.firstIndex { !($0.objectValue?["textBoxes"]?.arrayValue ?? []).isEmpty })
    return i + 1
}

@Suite struct BookEditorTests {
    @Test func saveWritesJournalThenBook() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let n = try textPage(editor)
        let r0 = editor.revision
        let saved = try editor.savePage(n, try retexted(try page(editor, n), "en", "Hello there"), base: r0, user: "ann")
        #expect(saved.revision != r0)
        // book.json is written just after the answer; once that is done it has the change and
        // still validates.
        try editor.finishWrites()
        let loaded = try Book.load(directory: dir).book
        #expect(loaded.pages[n - 1].textBoxes[0].text["en"] == "Hello there")
        let journal = try String(contentsOfFile: dir + "/.picturebook/journal.jsonl", encoding: .utf8)
        #expect(journal.split(separator: "\n").count == 1)
        #expect(journal.contains("\"user\": \"ann\"") || journal.contains("\"user\":\"ann\""))
        // A fresh editor (a restarted server) sees the same revision.
        #expect(try BookEditor(directory: dir).revision == saved.revision)
        // The entry's time is ISO 8601 UTC with milliseconds, and now.
        let time = try #require(try editor.history().first?.time)
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        let when = try #require(f.date(from: time), "\(time)")
        #expect(abs(when.timeIntervalSinceNow) < 600)
        #expect(time.count == 24 && time.hasSuffix("Z"))
    }

    @Test func staleSaveOfSamePageConflictsButOtherPageDoesNot() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let n = try textPage(editor)
        let pages = try #require(editor.snapshot().book.objectValue?["pages"]?.arrayValue)
        let other = try #require(pages.indices.first { $0 != n - 1 && !(pages[$0].objectValue?["textBoxes"]?.arrayValue ?? []).isEmpty }) + 1
        let r0 = editor.revision
        let original = try page(editor, n)
        _ = try editor.savePage(n, try retexted(original, "en", "first"), base: r0, user: "ann")
        // Another page edited on the old revision: kept.
        let otherSave = try editor.savePage(other, try retexted(try page(editor, other), "en", "other"), base: r0, user: "bob")
        #expect(firstText(otherSave.page, "en") == "other")
        // Same page on the old revision: 409 with current, yours and base.
        do {
            _ = try editor.savePage(n, try retexted(original, "en", "second"), base: r0, user: "bob")
            Issue.record("a stale save of the same page was accepted")
        } catch {
            guard case .conflict(let c)? = error as? EditError else { Issue.record("expected a conflict, got \(error)"); return }
            #expect(firstText(c.current, "en") == "first")
            #expect(firstText(c.yours, "en") == "second")
            #expect(c.base == original)
            #expect(c.currentRevision == editor.revision)
        }
        // An unknown revision is a conflict with no base.
        #expect(throws: EditError.self) { try editor.savePage(n, original, base: "99-nonsense", user: "bob") }
    }

    @Test func invalidPageIsRefusedWithProblems() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let n = try textPage(editor)
        var o = try #require(try page(editor, n).objectValue)
        var boxes = try #require(o["textBoxes"]?.arrayValue)
        var box = try #require(boxes[0].objectValue)
        box["rect"] = .object(["x": -50, "y": 0, "width": 10, "height": 10])
        boxes[0] = .object(box)
        o["textBoxes"] = .array(boxes)
        do {
            _ = try editor.savePage(n, .object(o), base: editor.revision, user: "ann")
            Issue.record("an out-of-page box was accepted")
        } catch {
            guard case .badRequest(_, let problems)? = error as? EditError else { Issue.record("expected 400, got \(error)"); return }
            #expect(!problems.isEmpty)
        }
        // Changing the scan is refused too.
        var moved = try #require(try page(editor, n).objectValue)
        moved["width"] = .number(JSONNumber(1))
        #expect(throws: EditError.self) { try editor.savePage(n, .object(moved), base: editor.revision, user: "ann") }
        let journal = dir + "/.picturebook/journal.jsonl"
        let journalText = FileIO.exists(journal) ? try String(contentsOfFile: journal, encoding: .utf8) : ""
        #expect(journalText.isEmpty)
    }

    /// The process dies after the journal line is on disk but before book.json is replaced: the
    /// next open replays the entry. Simulated by putting the old book.json back.
    @Test func journalIsReplayedAfterACrash() throws {
        let dir = try farmCopy()
        let manifest = dir + "/book.json"
        let before = try FileIO.read(manifest)
        let editor = try BookEditor(directory: dir)
        let n = try textPage(editor)
        let saved = try editor.savePage(n, try retexted(try page(editor, n), "en", "survives"), base: editor.revision, user: "ann")
        try AtomicFile.write(before, to: manifest)
        // Plus a half-written line after it, as a kill mid-append would leave.
        let h = try #require(FileHandle(forWritingAtPath: dir + "/.picturebook/journal.jsonl"))
        h.seekToEndOfFile()
        h.write(Data("{\"seq\": 2, \"revis".utf8))
        h.closeFile()
        let reopened = try BookEditor(directory: dir)
        #expect(reopened.revision == saved.revision)
        #expect(try Book.load(directory: dir).book.pages[n - 1].textBoxes[0].text["en"] == "survives")
        #expect(try reopened.history().count == 1)
        // The cut-off line is gone, so the next append starts on a line of its own.
        _ = try reopened.savePage(n, try retexted(try page(reopened, n), "en", "again"), base: reopened.revision, user: "ann")
        #expect(try BookEditor(directory: dir).history().count == 2)
    }

    /// A full disk at the journal append: nothing is answered, nothing changed. (A full disk at
    /// the book.json write, which comes after the answer, is WriteBehindTests'.)
    @Test func fullDiskAcknowledgesNothing() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let n = try textPage(editor)
        let r0 = editor.revision
        let manifestBefore = try FileIO.read(dir + "/book.json")
        for step in ["journal"] {
            editor.fault = { s throws(EditError) in if s == step { throw .diskFull("simulated: no space left on device") } }
            do {
                _ = try editor.savePage(n, try retexted(try page(editor, n), "en", "lost"), base: r0, user: "ann")
                Issue.record("a save went through a full disk at step \(step)")
            } catch {
                guard case .diskFull? = error as? EditError else { Issue.record("expected diskFull, got \(error)"); continue }
            }
            #expect(editor.revision == r0)
            #expect(try FileIO.read(dir + "/book.json") == manifestBefore)
            #expect(try editor.history().isEmpty)
        }
        editor.fault = nil
        _ = try editor.savePage(n, try retexted(try page(editor, n), "en", "kept"), base: r0, user: "ann")
        #expect(try editor.history().count == 1)
    }

    @Test func undoAndRestore() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let n = try textPage(editor)
        let r0 = editor.revision
        let original = try page(editor, n)
        let a = try editor.savePage(n, try retexted(original, "en", "A"), base: r0, user: "ann")
        let b = try editor.savePage(n, try retexted(a.page, "en", "B"), base: a.revision, user: "ann")
        let u1 = try editor.undo(n, base: b.revision, user: "ann")
        #expect(firstText(u1.page, "en") == "A")
        let u2 = try editor.undo(n, base: u1.revision, user: "ann")
        #expect(u2.page == original)
        #expect(throws: EditError.self) { try editor.undo(n, base: u2.revision, user: "ann") }
        // Restore the whole book to revision b.
        let r = try editor.restore(to: b.revision, base: nil, user: "admin")
        #expect(firstText(try page(editor, n), "en") == "B")
        #expect(r != b.revision)  // a new entry, even though the content matches b
        try editor.finishWrites()
        #expect(try Book.load(directory: dir).book.pages[n - 1].textBoxes[0].text["en"] == "B")
        #expect(throws: EditError.self) { try editor.restore(to: "no-such-revision", base: nil, user: "admin") }
        let kinds = try editor.history().map(\.kind)
        #expect(kinds == [.page, .page, .undo, .undo, .restore])
    }

    @Test func unknownFieldsAreKept() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let n = try textPage(editor)
        var o = try #require(try page(editor, n).objectValue)
        o["reviewed"] = true
        o["x-librarian-note"] = "check the spelling"
        _ = try editor.savePage(n, .object(o), base: editor.revision, user: "ann")
        try editor.finishWrites()
        let text = try String(contentsOfFile: dir + "/book.json", encoding: .utf8)
        #expect(text.contains("x-librarian-note"))
        #expect(try editor.history().last?.summary.contains("marked reviewed") == true)
    }
}
