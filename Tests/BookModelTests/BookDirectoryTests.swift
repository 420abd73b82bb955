import BookModel
import FileIO
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite struct BookDirectoryTests {
    /// A book folder holding the sample manifest and (empty) files for its page images.
    func sampleBookFolder(images: [String] = ["p1.jpg", "p2.jpg", "p3.jpg", "p4.jpg"]) throws -> String {
        let dir = makeTempDirectory()
        try write(sampleManifest, to: dir + "/book.json")
        for name in images { try write("", to: dir + "/" + name) }
        return dir
    }

    /// Sizes as the sample declares them, for an imageSize closure.
    let sampleSizes = ["p1.jpg": (400, 600), "p2.jpg": (410, 600), "p3.jpg": (420, 600), "p4.jpg": (430, 600)]

    func sizeReader(_ sizes: [String: (Int, Int)]) -> (String) -> (Int, Int)? {
        { path in sizes[String(path.split(separator: "/").last ?? "")] }
    }

    @Test func loadsAFolderAndChecksImagesExist() throws {
        let dir = try sampleBookFolder()
        let (book, warnings) = try Book.load(directory: dir, imageSize: sizeReader(sampleSizes))
        #expect(warnings.isEmpty)
        #expect(book.pages.map(\.image) == ["p1.jpg", "p2.jpg", "p3.jpg", "p4.jpg"])
        #expect(BookDirectory.containsBook(dir))
        #expect(BookDirectory.imagePath(of: book.pages[2], in: dir) == dir + "/p3.jpg")
    }

    @Test func missingImagesAreErrorsWithACaseHint() throws {
        let dir = try sampleBookFolder(images: ["p1.jpg", "P3.JPG", "p4.jpg"])
        try FileIO.createDirectory(dir + "/p2.jpg.d")
        do {
            _ = try Book.load(directory: dir)
            Issue.record("missing images accepted")
        } catch {
            let d = error.diagnostics
            #expect(d.map(\.description) == [
                "pages[1].image: file p2.jpg not found",
                "pages[2].image: file p3.jpg not found; there is P3.JPG (names are case-sensitive)",
            ])
            #expect(error.description.hasPrefix("\(dir)/book.json: not a valid book (2 errors)"))
            #expect(error.description.contains("\(dir)/book.json:11:15: error: pages[1].image: file p2.jpg not found"))
        }
    }

    @Test func scansNoPageUsesAreWarnedAbout() throws {
        let dir = try sampleBookFolder(images: ["p1.jpg", "p2.jpg", "p3.jpg", "p4.jpg", "p5.jpg", "P6.png", "notes.txt"])
        let (_, warnings) = try Book.load(directory: dir)
        #expect(warnings.map(\.description) == ["pages: 2 images in the book folder are not used by any page: p5.jpg, P6.png"])
    }

    @Test func imageSizesAreComparedWhenAReaderIsGiven() throws {
        let dir = try sampleBookFolder()
        var sizes = sampleSizes
        sizes["p2.jpg"] = (600, 410)
        sizes["p4.jpg"] = nil
        do {
            _ = try Book.load(directory: dir, imageSize: sizeReader(sizes))
            Issue.record("size mismatch accepted")
        } catch {
            #expect(error.diagnostics.map(\.description) == [
                "pages[1].image: p2.jpg is 600×410 pixels, but the page says 410×600 (rotated?)",
                "pages[3].image: cannot read p4.jpg as a PNG, JPEG, TIFF or JPEG 2000 image",
            ])
        }
    }

    @Test func notABookFolder() {
        let dir = makeTempDirectory()
        #expect(throws: BookError.notFound(path: dir, reason: "not a book folder: there is no book.json in it")) {
            try Book.load(directory: dir)
        }
        #expect(throws: BookError.notFound(path: dir + "/nope", reason: "no such folder")) {
            try Book.load(directory: dir + "/nope")
        }
        #expect(throws: BookError.notFound(path: dir + "/x.json", reason: "no such file")) {
            try Book.load(file: dir + "/x.json")
        }
    }

    @Test func saveIsAtomicAndLoadable() throws {
        let dir = try sampleBookFolder()
        var (book, _) = try Book.load(directory: dir)
        book.pages[0].label = "cover"
        try book.save(directory: dir)
        let (again, _) = try Book.load(directory: dir)
        #expect(again == book)
        #expect(again.pages[0].label == "cover")
        // Nothing but the manifest and the scans: no temporary files left behind.
        let names = try BookDirectory.imageFiles(in: dir)
        #expect(names == ["p1.jpg", "p2.jpg", "p3.jpg", "p4.jpg"])
        #expect(throws: BookError.self) { try book.save(to: dir + "/missing-folder/book.json") }
    }

    @Test func makeBuildsASkeletonFromAFolderOfScans() throws {
        let dir = makeTempDirectory("scans")
        for name in ["p10.JPG", "p2.jpg", "cover.png", "back-cover.jpg", "p1.jpeg", "notes.txt", ".p0.jpg", "._p3.jpg"] {
            try write("", to: dir + "/" + name)
        }
        try FileIO.createDirectory(dir + "/folder.jpg")
        var asked: [String] = []
        let book = try Book.make(fromImagesIn: dir, languages: ["en"]) { path in
            asked.append(path)
            return path.hasSuffix("p2.jpg") ? (500, 700) : (600, 800)
        }
        #expect(book.pages.map(\.image) == ["cover.png", "p1.jpeg", "p2.jpg", "p10.JPG", "back-cover.jpg"])
        #expect(asked.first == dir + "/cover.png")
        #expect(book.pages[0].role == .cover && book.pages[0].single)
        #expect(book.pages[4].role == .backCover && book.pages[4].single)
        #expect(book.pages[2].width == 500 && book.pages[2].height == 700)
        #expect(book.title == .plain(String(dir.split(separator: "/").last!)))
        #expect(book.validate(baseDirectory: dir).isEmpty)
        // The skeleton saves and loads as a valid book.
        try book.save(directory: dir)
        #expect(try Book.load(directory: dir).book == book)
    }

    @Test func makeReportsEmptyFoldersAndUnreadableScans() throws {
        let empty = makeTempDirectory("empty")
        #expect(throws: BookError.noImages(directory: empty)) {
            try Book.make(fromImagesIn: empty, languages: ["en"]) { _ in (1, 1) }
        }
        try write("", to: empty + "/a.png")
        #expect(throws: BookError.unreadableImage(path: empty + "/a.png")) {
            try Book.make(fromImagesIn: empty, languages: ["en"]) { _ in nil }
        }
    }
}

@Suite struct ValidationReportTests {
    @Test func exitCodesSummaryAndLines() throws {
        let good = makeTempDirectory("good")
        try write(sampleManifest.replacingFirst(#""p3.jpg""#, with: #""p3.png""#), to: good + "/book.json")
        for n in ["p1.jpg", "p2.jpg", "p3.png", "p4.jpg"] { try write("", to: good + "/" + n) }
        let warned = makeTempDirectory("warned")
        try write(sampleManifest.replacingFirst(#""ar": "أرنب القمر""#, with: #""fr": "Lapin""#), to: warned + "/book.json")
        for n in ["p1.jpg", "p2.jpg", "p3.jpg", "p4.jpg"] { try write("", to: warned + "/" + n) }
        // Inside a folder of its own, so that `bad/..` is a folder this test knows holds no book
        // (the system's temp folder may hold anything).
        let bad = makeTempDirectory("bad-parent") + "/bad"
        try FileIO.createDirectory(bad)
        try write("{\"format\": \"picturebook-book/1\",}", to: bad + "/book.json")

        let checks = [good, warned].map { BookCheck.run($0) }
        #expect(checks.map(\.status) == [.valid, .valid])
        #expect(ValidationReport(checks: checks, strict: false).exitCode == 0)
        #expect(ValidationReport(checks: checks, strict: true).exitCode == 1)

        let withBad = ValidationReport(checks: checks + [BookCheck.run(bad)], strict: false)
        #expect(withBad.exitCode == 1)
        #expect(withBad.diagnosticLines == [
            "\(warned)/book.json:9:112: warning: pages[0].textBoxes[0].text.fr: text language \"fr\" is not one of the book's languages \"en\", \"ar\"",
            "\(bad)/book.json:1:32: error: trailing comma before '}': JSON allows no comma after the last member",
        ])
        #expect(withBad.summary == "3 books checked: 2 valid, 1 invalid; 1 error, 1 warning")

        let missing = ValidationReport(checks: [BookCheck.run(good), BookCheck.run(good + "/nope"), BookCheck.run(bad + "/..")], strict: false)
        #expect(missing.exitCode == 2)
        #expect(missing.unreadableMessages == ["\(good)/nope: no such file or folder", "\(bad)/..: not a book folder: there is no book.json in it"])
        #expect(missing.summary == "3 books checked: 1 valid, 2 unreadable; 0 errors, 0 warnings")

        // A manifest file may be named directly.
        #expect(BookCheck.run(good + "/book.json").status == .valid)
    }

    @Test func jsonReportIsMachineReadable() throws {
        let bad = makeTempDirectory("json")
        try write(sampleManifest.replacingFirst(#""width": 400"#, with: #""width": "abc""#), to: bad + "/book.json")
        let report = ValidationReport(checks: [BookCheck.run(bad)], strict: false)
        let text = JSONWriter.string(report.json)
        let parsed = try JSONParser.parse(text).value
        let o = try #require(parsed.objectValue)
        #expect(o["valid"] == false)
        let book = try #require(o["books"]?.arrayValue?.first?.objectValue)
        #expect(book["status"] == "invalid")
        let diagnostics = try #require(book["diagnostics"]?.arrayValue)
        let paths = diagnostics.compactMap { $0.objectValue?["path"]?.stringValue }
        #expect(paths.contains("pages[0].width"))
        let first = try #require(diagnostics.first?.objectValue)
        #expect(first["severity"] == "error")
        #expect(first["line"] == 8)
    }
}
