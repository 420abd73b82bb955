import ArgumentParser
import BookModel
import Editor
import FileIO
import Foundation

/// `picturebook history`: a book's editing journal, and restoring an earlier revision.
struct History: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show a book's editing history (the journal) or restore an earlier revision.",
        discussion: """
            Every change made in the web editor (`serve --edit`) is appended to \
            BOOK/.picturebook/journal.jsonl: who, when, which page, the page before and after. \
            This lists it, oldest first. --restore REV sets the whole book back to revision REV as \
            a new journal entry (so the restore itself can be undone by restoring the revision before \
            it). Safe while a server is editing the same book: both take the journal's lock.

            Examples:
              picturebook history Books/farm
              picturebook history Books/farm --json
              picturebook history Books/farm --restore 3-5d1c0e8a9f2b4c71
            """)

    @Argument(help: "The book folder.", completion: .directory) var book: String
    @Flag(help: "One JSON object per entry (seq, revision, user, time, page, kind, summary).") var json = false
    @Option(help: ArgumentHelp("Restore the book to this revision.", valueName: "revision")) var restore: String?

    func run() throws {
        let directory = BookDirectory.resolve(book).directory
        guard BookDirectory.containsBook(directory) else {
            Console.error("history: \(book): not a book folder (no book.json)")
            throw ExitCode.failure
        }
        do throws(EditError) {
            let editor = try BookEditor(directory: directory)
            if let restore {
                let user = "cli:" + (ProcessInfo.processInfo.environment["USER"] ?? "unknown")
                let revision = try editor.restore(to: restore, base: nil, user: user)
                // The restore is answered once journaled; book.json is written just after.
                try editor.finishWrites()
                Console.err("history: \(book) restored to \(restore); now at revision \(revision)")
                return
            }
            let entries = try editor.history()
            if entries.isEmpty && !json { Console.err("history: \(book): no edits yet (revision \(editor.revision))") }
            for e in entries {
                if json {
                    let o: JSONObject = [
                        "seq": .number(JSONNumber(e.seq)), "revision": .string(e.revision), "user": .string(e.user),
                        "time": .string(e.time), "page": e.page.map { .number(JSONNumber($0)) } ?? .null,
                        "kind": .string(e.kind.rawValue), "summary": .string(e.summary),
                    ]
                    Console.out(JSONWriter.compact(.object(o)))
                } else {
                    let page = e.page.map { "page \($0)" } ?? "whole book"
                    Console.out("\(e.seq)\t\(e.revision)\t\(e.time)\t\(e.user)\t\(page)\t\(e.summary)")
                }
            }
        } catch {
            Console.error("history: \(book): \(error)")
            throw ExitCode.failure
        }
    }
}
