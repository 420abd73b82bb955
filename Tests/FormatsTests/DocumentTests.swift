// ALTO, hOCR and IIIF documents from the sample books, each checked by its format's own validator
// (xmllint with the ALTO 4.4 schema, hocr-check, the iiif-prezi3 model) and for content.
import BookModel
@testable import Formats
import Foundation
import Testing

@Suite("Format documents")
struct DocumentTests {
    static let salma = Repo.book("salmas-red-kite")

    @Test("ALTO 4.4 of every page validates against the schema offline", .enabled(if: Repo.altoSchema != nil, "the ALTO schema is not in ../shared/schemas/alto (no shared folder beside this checkout)"))
    func altoValidates() throws {
        guard let schema = Repo.altoSchema, let xmllint = Tool.require("/usr/bin/xmllint") else { return }
        let dir = try TempDir()
        for name in ["salmas-red-kite", "little-horse"] {
            let book = try Book.load(directory: Repo.book(name)).book
            var files: [String] = []
            for n in 1...book.pages.count {
                let file = dir.path + "/\(name)-" + ALTO.fileName(for: book.pages[n - 1])
                try Data(ALTO.document(book: book, pageNumber: n)).write(to: URL(fileURLWithPath: file))
                files.append(file)
            }
            // --nonet: the schema's xlink import must resolve to the local copy, not the web.
            let r = try Tool.run(xmllint, ["--noout", "--nonet", "--schema", schema] + files)
            #expect(r.status == 0, "xmllint: \(r.stderr.suffix(2000))")
            #expect(r.stderr.components(separatedBy: " validates").count - 1 == files.count)
        }
    }

    @Test("ALTO carries each box's printed text, position, language and role")
    func altoContent() throws {
        let book = try Book.load(directory: Self.salma).book
        let page = book.pages[0]
        let xml = String(decoding: ALTO.document(book: book, pageNumber: 1), as: UTF8.self)
        #expect(xml.contains("<MeasurementUnit>pixel</MeasurementUnit>"))
        #expect(xml.contains("WIDTH=\"\(page.width)\" HEIGHT=\"\(page.height)\""))
        for box in page.textBoxes {
            let r = box.rect
            #expect(xml.contains("<TextBlock ID=\"block_\(box.id)\" HPOS=\"\(r.x)\" VPOS=\"\(r.y)\" WIDTH=\"\(r.width)\" HEIGHT=\"\(r.height)\""))
            let language = box.language ?? book.languages[0]
            #expect(xml.contains("LANG=\"\(language)\""))
            for word in (box.text[language] ?? "").split(separator: " ") {
                #expect(xml.contains("CONTENT=\"\(XMLText.escape(String(word)))\""), "word \(word)")
            }
        }
        #expect(xml.contains("<RoleTag ID=\"role_title\" LABEL=\"title\"/>"))
        // The Arabic title block's lines run right to left.
        #expect(xml.contains("BASEDIRECTION=\"rtl\""))
    }

    @Test("Estimated words stay inside their box and in order")
    func wordLayout() {
        let layout = TextLayout(text: "one two three\nfour", x: 10, y: 20, width: 100, height: 40)
        #expect(layout.lines.count == 2)
        #expect(layout.lines.map { $0.words.map(\.text) } == [["one", "two", "three"], ["four"]])
        for line in layout.lines {
            #expect(line.y >= 20 && line.y + line.height <= 60)
            var last = 0
            for w in line.words {
                #expect(w.x >= 10 && w.x + w.width <= 110 && w.width > 0)
                #expect(w.x >= last)
                last = w.x + w.width
            }
        }
        let rtl = TextLayout(text: "أ ب", x: 0, y: 0, width: 30, height: 10, rightToLeft: true)
        #expect(rtl.lines[0].words[0].x > rtl.lines[0].words[1].x)
        let vertical = TextLayout(text: "ᠮᠣᠷᠢ ᠨᠢ", x: 0, y: 0, width: 30, height: 200, vertical: true)
        #expect(vertical.lines.count == 1 && vertical.lines[0].words.count == 2 && vertical.lines[0].words[1].y > 0)
    }

    @Test("Text XML cannot hold is dropped, markup is escaped")
    func escaping() {
        #expect(XMLText.escape("a<b & \"c\"\u{1}") == "a&lt;b &amp; &quot;c&quot;")
    }

    @Test("hOCR of every page passes hocr-check")
    func hocrChecks() throws {
        guard let check = Tool.require(Repo.venv + "/hocr-check") else { return }
        let dir = try TempDir()
        for name in ["salmas-red-kite", "little-horse"] {
            let book = try Book.load(directory: Repo.book(name)).book
            for n in 1...book.pages.count {
                let file = dir.path + "/" + HOCR.fileName(for: book.pages[n - 1])
                try Data(HOCR.document(book: book, pageNumber: n)).write(to: URL(fileURLWithPath: file))
                let r = try Tool.run(check, [file])
                // hocr-check reports TAP on stderr: a line "not ok N - …" per failed check.
                let tap = r.stdout + r.stderr
                #expect(r.status == 0 && tap.contains("ok 1 -") && !tap.contains("not ok"), "\(name) page \(n): \(tap)")
            }
        }
        let book = try Book.load(directory: Self.salma).book
        let html = String(decoding: HOCR.document(book: book, pageNumber: 2), as: UTF8.self)
        let box = book.pages[1].textBoxes[0]
        #expect(html.contains("class=\"ocr_carea\" id=\"block_\(box.id)\" title=\"bbox \(box.rect.x) \(box.rect.y) \(box.rect.x + box.rect.width) \(box.rect.y + box.rect.height)\""))
        #expect(html.contains(">Salma</span>"))
    }

    @Test("The IIIF manifest loads in iiif-prezi3 with its canvases, direction and annotations")
    func iiifLoads() throws {
        let dir = try TempDir()
        let book = try Book.load(directory: Self.salma).book
        var rtl = book
        rtl.readingDirection = .rightToLeft
        for (tag, b) in [("ltr", book), ("rtl", rtl)] {
            let file = dir.path + "/\(tag).json"
            try Data(IIIF.manifest(book: b, baseURL: "https://example.org/books/salma/", imageService: true)).write(to: URL(fileURLWithPath: file))
            let script = try String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent().path + "/check-iiif.py", encoding: .utf8)
            guard let r = try Tool.python(script, [file]) else { return }
            #expect(r.status == 0, "check-iiif: \(r.stderr.suffix(3000))")
            // The script prints what the model parsed, so the test compares it with the book.
            let facts = Dictionary(uniqueKeysWithValues: r.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
                let kv = line.split(separator: "=", maxSplits: 1).map(String.init)
                return kv.count == 2 ? (kv[0], kv[1]) : nil
            })
            #expect(facts["canvases"] == String(b.pages.count))
            #expect(facts["behavior"] == "paged")
            #expect(facts["viewingDirection"] == (tag == "rtl" ? "right-to-left" : "left-to-right"))
            #expect(facts["annotations"] == String(b.pages.reduce(0) { $0 + $1.textBoxes.count }))
            #expect(facts["bodyLanguages"] == "ar,en")
            #expect(facts["firstCanvasLabel"] == "Cover")
            #expect(facts["spreadRanges"] == String(b.spreads.count))
        }
    }

    @Test("SPDX Creative Commons identifiers map to rights URIs, others do not")
    func rights() {
        #expect(IIIF.rightsURI("CC-BY-NC-4.0") == "http://creativecommons.org/licenses/by-nc/4.0/")
        #expect(IIIF.rightsURI("CC0-1.0") == "http://creativecommons.org/publicdomain/zero/1.0/")
        #expect(IIIF.rightsURI("MIT") == nil)
        #expect(IIIF.rightsURI("CC-XY-4.0") == nil)
    }
}
