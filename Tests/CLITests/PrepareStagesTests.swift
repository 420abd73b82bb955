// `prepare`'s ocr and export stages and the library's IIIF collection written by --merge.
import Foundation
import Testing

@Suite struct PrepareStagesTests {
    static func runTool(_ executable: String, _ args: [String]) throws -> CLIResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return CLIResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// A book whose boxes are in a language with no Tesseract model installed (Italian; Tools/setup.sh
    /// installs only the sample books' languages) is not a failure: ocr notes what it left, names
    /// the model, records itself done, and the next run passes the book by.
    @Test func ocrWithoutTheBooksLanguageDataIsNotedNotFailed() throws {
        let s = try Scratch()
        let lib = s.file("library")
        try PrepareLibrary.copy(to: lib)
        let manifest = lib + "/shelf-1/book-1/book.json"
        var book = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as? [String: Any])
        var pages = try #require(book["pages"] as? [[String: Any]])
        var boxes = 0
        for i in pages.indices {
            var list = pages[i]["textBoxes"] as? [[String: Any]] ?? []
            for j in list.indices {
                list[j]["language"] = "it"
                list[j]["text"] = nil
                boxes += 1
            }
            pages[i]["textBoxes"] = list
        }
        #expect(boxes > 0, "the generated book has no text boxes to read")
        book["pages"] = pages
        book["languages"] = ["it"]
        try JSONSerialization.data(withJSONObject: book).write(to: URL(fileURLWithPath: manifest))
        let tessdata = s.file("tessdata")
        try FileManager.default.createDirectory(atPath: tessdata, withIntermediateDirectories: true)

        let r = try CLI.run(["prepare", lib, "--stages", "ocr", "--tessdata", tessdata, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = PrepareLibrary.jsonLines(r.stdout)
        let line = try #require(lines.first { $0["book"] as? String == "shelf-1/book-1" })
        #expect(line["status"] as? String == "done")
        let ocr = try #require((line["stages"] as? [[String: Any]])?.first)
        #expect(ocr["status"] as? String == "done")
        let note = ocr["message"] as? String ?? ""
        #expect(note.contains("ita.traineddata") && note.contains("\(boxes) box(es) in it"), "\(note)")
        #expect(lines.last?["failed"] as? Int == 0)
        // The other books' boxes already have text: nothing to read, no note.
        let other = try #require(lines.first { $0["book"] as? String == "shelf-0/book-2" })
        #expect(((other["stages"] as? [[String: Any]])?.first?["message"]) == nil)

        let text = try CLI.run(["prepare", lib, "--stages", "ocr", "--tessdata", tessdata])
        #expect(text.status == 0)
        #expect(text.stderr.contains("up to date"), "\(text.stderr)")
        #expect(try CLI.run(["prepare", lib, "--stages", "ocr", "--tessdata", tessdata, "--force"]).stderr.contains("ita.traineddata"))
    }

    /// ocr runs after clear and writes the text it read into book.json, which clear's record
    /// hashes: the record must be re-recorded (clear reads no text), or a library prepared to the
    /// end is not done — `--merge` refused and the next run redid clear (found by
    /// Tools/bench-prepare.sh on books whose boxes had no text).
    @Test func textReadByOCRLeavesTheLibraryDone() throws {
        let s = try Scratch()
        let lib = s.file("library")
        try PrepareLibrary.copy(to: lib)
        let manifest = lib + "/shelf-1/book-1/book.json"
        func englishBoxes() throws -> [[String: Any]] {
            let book = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as? [String: Any])
            let pages = try #require(book["pages"] as? [[String: Any]])
            return pages.flatMap { ($0["textBoxes"] as? [[String: Any]] ?? []).filter { $0["language"] as? String == "en" } }
        }
        var book = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifest))) as? [String: Any])
        var pages = try #require(book["pages"] as? [[String: Any]])
        for i in pages.indices {
            var list = pages[i]["textBoxes"] as? [[String: Any]] ?? []
            for j in list.indices where list[j]["language"] as? String == "en" { list[j]["text"] = nil }
            pages[i]["textBoxes"] = list
        }
        book["pages"] = pages
        try JSONSerialization.data(withJSONObject: book).write(to: URL(fileURLWithPath: manifest))
        #expect(try englishBoxes().count > 0, "the generated book has no English boxes")

        let first = try CLI.run(["prepare", lib, "--json"])
        #expect(first.status == 0, "\(first.stderr)")
        // Not vacuous: ocr did change book.json (Tools/setup.sh installs eng.traineddata).
        let read = try englishBoxes().filter { ($0["text"] as? [String: Any])?.isEmpty == false }
        try #require(!read.isEmpty, "ocr read none of the English boxes, so book.json never changed after clear")

        let again = try CLI.run(["prepare", lib, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let books = PrepareLibrary.jsonLines(again.stdout).filter { $0["event"] as? String == "book" }
        #expect(books.count == PrepareLibrary.books)
        #expect(books.allSatisfy { $0["status"] as? String == "skipped" }, "\(books)")
        let merged = try CLI.run(["prepare", lib, "--merge"])
        #expect(merged.status == 0, "\(merged.stderr)")
    }

    /// export writes each book's IIIF manifest and ALTO (the default formats), or what
    /// --export-formats names; --merge then writes the collection of those manifests, which the
    /// iiif-prezi3 model loads, each entry's id the id of the manifest the book got.
    @Test func mergeWritesTheLibrarysIIIFCollection() throws {
        let s = try Scratch()
        let lib = s.file("library")
        try PrepareLibrary.copy(to: lib)
        let base = "https://books.example.org/library"
        let r = try CLI.run(["prepare", lib, "--stages", "export", "--base-url", base, "--export-formats", "iiif,alto,hocr"])
        #expect(r.status == 0, "\(r.stderr)")
        // Not merged yet: no collection.
        #expect(!FileManager.default.fileExists(atPath: lib + "/collection.json"))
        let merged = try CLI.run(["prepare", lib, "--stages", "export", "--base-url", base, "--export-formats", "iiif,alto,hocr", "--merge"])
        #expect(merged.status == 0, "\(merged.stderr)")

        let data = try Data(contentsOf: URL(fileURLWithPath: lib + "/collection.json"))
        let collection = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(collection["type"] as? String == "Collection")
        #expect(collection["id"] as? String == base + "/collection.json")
        let items = try #require(collection["items"] as? [[String: Any]])
        #expect(items.count == PrepareLibrary.books)
        var expected: [String] = []
        for i in 1...PrepareLibrary.books {
            let folder = lib + "/shelf-\(i % 2)/book-\(i)/export"
            let m = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: folder + "/manifest.json"))) as? [String: Any])
            #expect(m["id"] as? String == "\(base)/shelf-\(i % 2)/book-\(i)/manifest.json")
            expected.append(m["id"] as? String ?? "")
            let alto = try FileManager.default.contentsOfDirectory(atPath: folder + "/alto")
            let hocr = try FileManager.default.contentsOfDirectory(atPath: folder + "/hocr")
            #expect(alto.filter { $0.hasSuffix(".alto.xml") }.count == 3, "\(alto)")
            #expect(hocr.filter { $0.hasSuffix(".hocr") }.count == 3, "\(hocr)")
        }
        #expect(Set(items.compactMap { $0["id"] as? String }) == Set(expected))
        #expect(items.allSatisfy { $0["type"] as? String == "Manifest" && $0["label"] != nil })
        #expect(!(try FileManager.default.contentsOfDirectory(atPath: lib).contains { $0.contains(".tmp-") }))

        // The venv Tools/setup.sh --formats makes (the export tests validate manifests with it).
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
        let python = root + "/.build/venv-formats/bin/python"
        if FileManager.default.isExecutableFile(atPath: python) {
            let check = try Self.runTool(python, ["-c", """
                import json, sys
                from iiif_prezi3 import Collection
                c = Collection(**json.load(open(sys.argv[1])))
                Collection(**json.loads(c.jsonld()))
                print(len(c.items))
                """, lib + "/collection.json"])
            #expect(check.status == 0, "\(check.stderr)")
            #expect(check.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "\(PrepareLibrary.books)")
        }
    }
}
