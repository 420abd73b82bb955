import BookModel
import Editor
import FileIO
import Foundation
import Testing

/// A save checks only its page (and the book-level rules a page can break) instead of the whole
/// book; these make sure it refuses exactly what the whole-book check refuses, with its message.
@Suite struct PageCheckTests {
    /// Page `n` with `edit` applied to its object.
    func edited(_ editor: BookEditor, _ n: Int, _ edit: (inout JSONObject) throws -> Void) throws -> JSONValue {
        var o = try #require(try page(editor, n).objectValue)
        try edit(&o)
        return .object(o)
    }

    /// Sets a field of the page's box `k`.
    func boxField(_ o: inout JSONObject, _ k: Int, _ key: String, _ value: JSONValue) throws {
        var boxes = try #require(o["textBoxes"]?.arrayValue)
        var box = try #require(boxes[k].objectValue)
        box[key] = value
        boxes[k] = .object(box)
        o["textBoxes"] = .array(boxes)
    }

    /// What the whole-book check says about the book with page `n` replaced: the usual problems.
    func wholeBookProblems(_ dir: String, _ editor: BookEditor, _ n: Int, _ p: JSONValue) throws -> [String] {
        var root = try #require(editor.snapshot().book.objectValue)
        var pages = try #require(root["pages"]?.arrayValue)
        pages[n - 1] = p
        root["pages"] = .array(pages)
        do {
            _ = try Book.decode(JSONWriter.serialize(.object(root)), file: BookDirectory.manifestName, baseDirectory: dir)
            return []
        } catch {
            guard case .invalid(_, let diagnostics) = error else { return [error.description] }
            return diagnostics.errors.map { $0.formatted(file: BookDirectory.manifestName) }
        }
    }

    func refusal(_ editor: BookEditor, _ n: Int, _ p: JSONValue) -> [String]? {
        do {
            _ = try editor.savePage(n, p, base: editor.revision, user: "ann")
            return nil
        } catch {
            guard case .badRequest(_, let problems) = error else { return ["not a 400: \(error)"] }
            return problems
        }
    }

    @Test func brokenPagesAreRefusedWithTheWholeBookMessage() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let n = try textPage(editor)
        let spreadPage = 2  // the farm book's spreads are [2, 3], [6, 7], [10, 11]
        let cases: [(String, Int, JSONValue, String)] = [
            ("a box outside its page", n, try edited(editor, n) { try boxField(&$0, 0, "rect", .object(["x": -50, "y": 0, "width": 10, "height": 10])) },
             "extends outside"),
            ("a box id used twice on the page", n, try edited(editor, n) { o in
                var boxes = try #require(o["textBoxes"]?.arrayValue)
                boxes.append(boxes[0])
                o["textBoxes"] = .array(boxes)
            }, "duplicate id"),
            ("an unknown text language", n, try edited(editor, n) { try boxField(&$0, 0, "text", .object(["not a tag!": "hi"])) },
             "text"),
            ("a text that is not text", n, try edited(editor, n) { try boxField(&$0, 0, "text", .object(["en": .number(JSONNumber(5))])) },
             "en"),
            ("a page of a spread marked single", spreadPage, try edited(editor, spreadPage) { $0["single"] = .bool(true) },
             "cannot be part of a spread"),
        ]
        for (what, page, p, words) in cases {
            let expected = try wholeBookProblems(dir, editor, page, p)
            try #require(!expected.isEmpty, "the whole-book check accepts \(what)")
            let problems = refusal(editor, page, p)
            #expect(problems == expected, "\(what)")
            #expect(problems?.contains { $0.contains(words) } == true, "\(what): \(String(describing: problems))")
            // Each message names the file and where in it.
            #expect(problems?.allSatisfy { $0.hasPrefix("book.json:") } == true)
        }
        // Nothing refused reached the disk, and the book still loads.
        let journalPath = dir + "/.picturebook/journal.jsonl"
        let journalText = FileIO.exists(journalPath) ? try String(contentsOfFile: journalPath, encoding: .utf8) : ""
        #expect(journalText.isEmpty)
        _ = try Book.load(directory: dir)
        // And a good save after them all goes through, checked against the unchanged book.
        let ok = try editor.savePage(n, try retexted(try page(editor, n), "en", "fine"), base: editor.revision, user: "ann")
        #expect(firstText(ok.page, "en") == "fine")
        try editor.finishWrites()
        #expect(try Book.load(directory: dir).book.pages[n - 1].textBoxes[0].text["en"] == "fine")
    }

    /// The whole-book check once a batch is the safety net under the page checks: another page's
    /// scan removed behind the editor's back is not something a page check sees, yet the save
    /// must still be refused as the whole-book check refuses it, and book.json stay valid.
    @Test func whatOnlyTheWholeBookCheckSeesIsStillRefused() throws {
        let dir = try farmCopy()
        let editor = try BookEditor(directory: dir)
        let n = try textPage(editor)
        // A save first, so the editor holds the decoded book the page checks use.
        let first = try editor.savePage(n, try retexted(try page(editor, n), "en", "one"), base: editor.revision, user: "ann")
        let root = try #require(editor.snapshot().book.objectValue)
        let pages = try #require(root["pages"]?.arrayValue)
        let other = try #require(pages.indices.first { $0 != n - 1 })
        let image = try #require(pages[other].objectValue?["image"]?.stringValue)
        try FileManager.default.removeItem(atPath: dir + "/" + image)
        let p = try retexted(try page(editor, n), "en", "two")
        let problems = refusal(editor, n, p)
        #expect(problems?.contains { $0.contains("\(image) not found") } == true, "\(String(describing: problems))")
        let journal = try String(contentsOfFile: dir + "/.picturebook/journal.jsonl", encoding: .utf8)
        #expect(journal.split(separator: "\n").count == 1)
        // book.json is written behind the answers (the refused batch does not wait for it).
        #expect(editor.waitForBookFile(revision: first.revision, timeout: 60))
        let manifest = try JSONParser.parse(FileIO.read(dir + "/book.json")).value
        #expect(firstText(BookEditorPages.page(manifest, n), "en") == "one")
    }

    /// A crash after a batch of several changes reached the journal but before book.json was
    /// written: the next open puts every one of them back, not only the last.
    @Test func aWholeBatchIsReplayedAfterACrash() throws {
        let dir = try farmCopy()
        let manifest = dir + "/book.json"
        let before = try FileIO.read(manifest)
        let editor = try BookEditor(directory: dir)
        let pages = try #require(editor.snapshot().book.objectValue?["pages"]?.arrayValue)
        let withText = pages.indices.filter { !(pages[$0].objectValue?["textBoxes"]?.arrayValue ?? []).isEmpty }.map { $0 + 1 }
        try #require(withText.count >= 2)
        let (a, b) = (withText[0], withText[1])
        _ = try editor.savePage(a, try retexted(try page(editor, a), "en", "first of the batch"), base: editor.revision, user: "ann")
        let last = try editor.savePage(b, try retexted(try page(editor, b), "en", "last of the batch"), base: editor.revision, user: "bob")
        // book.json as before both, as if the process died after the journal's fsync.
        try AtomicFile.write(before, to: manifest)
        let reopened = try BookEditor(directory: dir)
        #expect(reopened.revision == last.revision)
        let book = try Book.load(directory: dir).book
        #expect(book.pages[a - 1].textBoxes[0].text["en"] == "first of the batch")
        #expect(book.pages[b - 1].textBoxes[0].text["en"] == "last of the batch")
        // A book.json changed by hand is left as it is (no suffix of the journal explains it).
        try AtomicFile.write(before, to: manifest)
        var o = try #require(try JSONParser.parse(FileIO.read(manifest)).value.objectValue)
        o["year"] = .number(JSONNumber(1999))
        try AtomicFile.write(JSONWriter.serialize(.object(o)), to: manifest)
        let handEdited = try BookEditor(directory: dir)
        #expect(handEdited.revision != last.revision)
        #expect(try Book.load(directory: dir).book.pages[a - 1].textBoxes[0].text["en"] != "first of the batch")
    }
}

enum BookEditorPages {
    static func page(_ book: JSONValue, _ n: Int) -> JSONValue {
        book.objectValue?["pages"]?.arrayValue?[n - 1] ?? .null
    }
}
