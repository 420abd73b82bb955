// `picturebook users` and `picturebook history` end to end: accounts in the users file with
// mode 0600 and Argon2id hashes; the journal listed and a revision restored.
import BookModel
import Editor
import Foundation
import Testing

func runWithInput(_ args: [String], input: String) throws -> CLIResult {
    let p = Process()
    p.executableURL = CLI.executable
    p.arguments = args
    let out = Pipe(), err = Pipe(), inp = Pipe()
    p.standardOutput = out
    p.standardError = err
    p.standardInput = inp
    try p.run()
    inp.fileHandleForWriting.write(Data(input.utf8))
    try inp.fileHandleForWriting.close()
    let o = out.fileHandleForReading.readDataToEndOfFile()
    let e = err.fileHandleForReading.readDataToEndOfFile()
    p.waitUntilExit()
    return CLIResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
}

@Suite struct UsersCommandTests {
    @Test func addListResetRemove() throws {
        let s = try Scratch()
        let lib = s.file("books")
        try FileManager.default.createDirectory(atPath: lib, withIntermediateDirectories: true)
        let add = try runWithInput(["users", "add", "ann", "--role", "editor", "--password-stdin", "--library", lib], input: "a good password\n")
        #expect(add.status == 0, "\(add.stderr)")
        let file = lib + "/.picturebook/users.json"
        let attrs = try FileManager.default.attributesOfItem(atPath: file)
        #expect((attrs[.posixPermissions] as? Int) == 0o600)
        let text = try String(contentsOfFile: file, encoding: .utf8)
        #expect(text.contains("$argon2id$"))
        #expect(!text.contains("a good password"))

        let dup = try runWithInput(["users", "add", "ann", "--role", "admin", "--password-stdin", "--library", lib], input: "another password\n")
        #expect(dup.status != 0 && dup.stderr.contains("already exists"))
        let short = try runWithInput(["users", "add", "bob", "--role", "editor", "--password-stdin", "--library", lib], input: "short\n")
        #expect(short.status != 0 && short.stderr.contains("at least"))
        let badRole = try runWithInput(["users", "add", "bob", "--role", "king", "--password-stdin", "--library", lib], input: "long enough pw\n")
        #expect(badRole.status != 0 && badRole.stderr.contains("editor or admin"))
        let badName = try runWithInput(["users", "add", "../x", "--role", "editor", "--password-stdin", "--library", lib], input: "long enough pw\n")
        #expect(badName.status != 0)
        // No TTY and no --password-stdin: refused, not hung.
        let noTTY = try CLI.run(["users", "add", "carl", "--role", "editor", "--library", lib])
        #expect(noTTY.status != 0 && noTTY.stderr.contains("--password-stdin"))

        let list = try CLI.run(["users", "list", "--library", lib])
        #expect(list.status == 0 && list.stdout.hasPrefix("ann\teditor\t"))
        let before = try String(contentsOfFile: file, encoding: .utf8)
        let reset = try runWithInput(["users", "reset", "ann", "--role", "admin", "--password-stdin", "--library", lib], input: "a new password\n")
        #expect(reset.status == 0, "\(reset.stderr)")
        let after = try String(contentsOfFile: file, encoding: .utf8)
        #expect(after != before && after.contains("\"admin\""))
        #expect(try CLI.run(["users", "remove", "ann", "--library", lib]).status == 0)
        #expect(try CLI.run(["users", "list", "--library", lib]).stdout.isEmpty)
        let gone = try CLI.run(["users", "remove", "ann", "--library", lib])
        #expect(gone.status != 0 && gone.stderr.contains("no user 'ann'"))
    }

    @Test func historyListsAndRestores() throws {
        let s = try Scratch()
        var repo = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { repo.deleteLastPathComponent() }
        let book = s.file("farm")
        try FileManager.default.copyItem(atPath: repo.path + "/Books/good-morning-farm", toPath: book)
        let original = try String(contentsOfFile: book + "/book.json", encoding: .utf8)
        let empty = try CLI.run(["history", book, "--json"])
        #expect(empty.status == 0 && empty.stdout.isEmpty)
        // Two page saves made the way the server makes them.
        let editor = try BookEditor(directory: book)
        let r0 = editor.revision
        var page = try #require(try editor.snapshot().book.objectValue?["pages"]?.arrayValue?[1].objectValue)
        page["reviewed"] = true
        let first = try editor.savePage(2, .object(page), base: r0, user: "ann")
        page["reviewed"] = false
        _ = try editor.savePage(2, .object(page), base: first.revision, user: "bob")

        let listed = try CLI.run(["history", book, "--json"])
        #expect(listed.status == 0)
        let lines = listed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        let firstLine = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
        #expect(firstLine["user"] as? String == "ann" && firstLine["page"] as? Int == 2 && firstLine["revision"] as? String == first.revision)
        #expect(try CLI.run(["history", book]).stdout.contains("marked reviewed"))

        let restored = try CLI.run(["history", book, "--restore", r0])
        #expect(restored.status == 0, "\(restored.stderr)")
        let now = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: book + "/book.json")))
        let was = try JSONSerialization.jsonObject(with: Data(original.utf8))
        #expect((now as? NSDictionary)?.isEqual(was) == true)
        #expect(try CLI.run(["validate", book]).status == 0)
        #expect(try CLI.run(["history", book, "--json"]).stdout.split(separator: "\n").count == 3)
        let bad = try CLI.run(["history", book, "--restore", "nope"])
        #expect(bad.status != 0 && bad.stderr.contains("not in this book's history"))
        let notBook = try CLI.run(["history", s.path])
        #expect(notBook.status != 0 && notBook.stderr.contains("not a book folder"))
    }
}
