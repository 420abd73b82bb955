// `picturebook ocr` end to end, on a real sample-book scan (lighthouse-cat page 3) in a book whose
// text was partly removed, partly replaced by a "librarian", and partly in a script with no model.
import Foundation
import Testing

@Suite struct OCRCommandTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// Page 3 of lighthouse-cat: b2 with no text (to be read), b3 with a librarian's text that
    /// differs from the print on purpose (must survive), b4 the page number with OCR text from an
    /// earlier run, and a box marked traditional Mongolian (no model: reported, left alone).
    static func makeBook(in scratch: Scratch) throws {
        try FileManager.default.copyItem(
            atPath: repository.appendingPathComponent("Books/lighthouse-cat/page-003.jpg").path, toPath: scratch.file("page-003.jpg"))
        let manifest = """
            {
              "format": "picturebook-book/1",
              "title": "OCR test",
              "languages": ["en", "mn-Mong"],
              "readingDirection": "ltr",
              "pages": [
                {"image": "page-003.jpg", "width": 1060, "height": 1600, "textBoxes": [
                  {"id": "b1", "rect": {"x": 302, "y": 603, "width": 457, "height": 43}, "language": "en"},
                  {"id": "b2", "rect": {"x": 85, "y": 692, "width": 752, "height": 74}, "language": "en", "text": {"mn-Mong": "ᠡᠷᠲᠡ"}},
                  {"id": "b3", "rect": {"x": 85, "y": 813, "width": 752, "height": 74}, "language": "en", "text": {"en": "Corrected by hand."}},
                  {"id": "b4", "rect": {"x": 522, "y": 1506, "width": 16, "height": 24}, "language": "en",
                   "text": {"en": "8"}, "textSources": {"en": {"source": "ocr", "confidence": 0.2}}},
                  {"id": "m1", "rect": {"x": 900, "y": 100, "width": 60, "height": 400}, "language": "mn-Mong", "orientation": "vertical"}
                ]}
              ]
            }
            """
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: scratch.file("book.json")))
    }

    static func boxes(_ scratch: Scratch) throws -> [String: [String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: scratch.file("book.json")))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let pages = try #require(root["pages"] as? [[String: Any]])
        let list = try #require(pages[0]["textBoxes"] as? [[String: Any]])
        var out: [String: [String: Any]] = [:]
        for b in list { out[b["id"] as? String ?? ""] = b }
        return out
    }

    /// Character error rate of `read` against `truth` (edit distance / truth length).
    static func cer(_ read: String?, _ truth: String) -> Double {
        let h = Array(read ?? ""), r = Array(truth)
        var row = Array(0...h.count)
        for i in 1...r.count {
            var diagonal = row[0]
            row[0] = i
            for j in stride(from: 1, through: h.count, by: 1) {
                let above = row[j]
                row[j] = min(row[j] + 1, row[j - 1] + 1, diagonal + (r[i - 1] == h[j - 1] ? 0 : 1))
                diagonal = above
            }
        }
        return Double(row[h.count]) / Double(r.count)
    }

    static func text(_ box: [String: Any]?, _ language: String = "en") -> String? { (box?["text"] as? [String: String])?[language] }
    static func origin(_ box: [String: Any]?, _ language: String = "en") -> [String: Any]? {
        (box?["textSources"] as? [String: Any])?[language] as? [String: Any]
    }

    @Test func readsEmptyBoxesKeepsALibrariansTextAndReportsUnsupportedLanguages() throws {
        let scratch = try Scratch()
        try Self.makeBook(in: scratch)
        let r = try CLI.run(["ocr", scratch.path, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        // No C library chatter: every stderr line is Picturebook's own.
        for line in r.stderr.split(separator: "\n") { #expect(line.hasPrefix("ocr:") || line.hasPrefix("picturebook:"), "stray stderr: \(line)") }
        #expect(r.stderr.contains("mn-Mong"))

        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let unsupported = try #require(report["unsupported"] as? [[String: Any]])
        #expect(unsupported.first?["language"] as? String == "mn-Mong")
        #expect(unsupported.first?["boxes"] as? Int == 1)
        #expect(report["boxesRead"] as? Int == 2)

        let boxes = try Self.boxes(scratch)
        #expect(Self.text(boxes["b1"]) == "Chapter I. The Keeper")
        #expect(Self.cer(Self.text(boxes["b2"]), "Long ago, an old keeper lived in a lighthouse on a rocky island.") <= 0.03, "\(boxes["b2"] ?? [:])")
        #expect(Self.origin(boxes["b2"])?["source"] as? String == "ocr")
        let confidence = try #require(Self.origin(boxes["b2"])?["confidence"] as? Double)
        #expect(confidence > 0.5 && confidence <= 1)
        // The translation already there is untouched and gets no record.
        #expect(Self.text(boxes["b2"], "mn-Mong") == "ᠡᠷᠲᠡ")
        #expect(Self.origin(boxes["b2"], "mn-Mong") == nil)
        // The librarian's text stays, with no OCR record; the old OCR page number is resumable work done.
        #expect(Self.text(boxes["b3"]) == "Corrected by hand.")
        #expect(boxes["b3"]?["textSources"] == nil)
        #expect(Self.text(boxes["b4"]) == "8")
        #expect(Self.text(boxes["m1"], "mn-Mong") == nil)

        // The result is a valid book.
        let v = try CLI.run(["validate", scratch.path])
        #expect(v.status == 0, "\(v.stdout)\(v.stderr)")
    }

    @Test func resumesAndForceRereadsOnlyOCRText() throws {
        let scratch = try Scratch()
        try Self.makeBook(in: scratch)
        let first = try CLI.run(["ocr", scratch.path])
        #expect(first.status == 0, "\(first.stderr)")
        let afterFirst = try Data(contentsOf: URL(fileURLWithPath: scratch.file("book.json")))

        // Nothing left to read: the second run reads no box and leaves the file as it was.
        let second = try CLI.run(["ocr", scratch.path, "--json"])
        #expect(second.status == 0)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(second.stdout.utf8)) as? [String: Any])
        #expect(report["boxesRead"] as? Int == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: scratch.file("book.json"))) == afterFirst)

        // --force reads the OCR text again (the stale page number "8" becomes "3") but never the librarian's.
        let forced = try CLI.run(["ocr", scratch.path, "--force"])
        #expect(forced.status == 0, "\(forced.stderr)")
        let boxes = try Self.boxes(scratch)
        #expect(Self.text(boxes["b4"]) == "3")
        #expect(Self.text(boxes["b3"]) == "Corrected by hand.")
        #expect(Self.cer(Self.text(boxes["b2"]), "Long ago, an old keeper lived in a lighthouse on a rocky island.") <= 0.03, "\(boxes["b2"] ?? [:])")
    }

    @Test func languagesOptionLimitsTheRunAndBadInputFailsCleanly() throws {
        let scratch = try Scratch()
        try Self.makeBook(in: scratch)
        let none = try CLI.run(["ocr", scratch.path, "--languages", "fr", "--json"])
        #expect(none.status == 0)
        #expect(Self.text(try Self.boxes(scratch)["b2"]) == nil)

        let missing = try CLI.run(["ocr", scratch.file("nope")])
        #expect(missing.status == 1)
        #expect(missing.stderr.contains("no such book folder"))

        let empty = try CLI.run(["ocr", scratch.path, "--languages", ","])
        #expect(empty.status == 64)

        // A model folder without the model: named, with the package to install, exit 1.
        let tessdata = scratch.file("tessdata")
        try FileManager.default.createDirectory(atPath: tessdata, withIntermediateDirectories: true)
        let noModel = try CLI.run(["ocr", scratch.path, "--tessdata", tessdata])
        #expect(noModel.status == 1)
        #expect(noModel.stderr.contains("tesseract-ocr-eng"))

        // A damaged scan fails its page, named, and the run exits 1.
        try Data("not a jpeg".utf8).write(to: URL(fileURLWithPath: scratch.file("page-003.jpg")))
        let broken = try CLI.run(["ocr", scratch.path])
        #expect(broken.status == 1)
        #expect(broken.stderr.contains("page-003.jpg"))
    }
}
