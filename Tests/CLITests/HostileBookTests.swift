// A crafted book must never make Picturebook write outside the book's output folders.
import Codecs
import Foundation
import Raster
import Testing

@Suite struct HostileBookTests {
    /// A one-page book whose only text box has `id`.
    static func book(in scratch: Scratch, id: String) throws -> String {
        let dir = scratch.file("book")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        try PNGEncoder.write(Bitmap<RGBA8>(width: 64, height: 48, fill: RGBA8(r: 230, g: 220, b: 200)), to: dir + "/p1.png")
        let idJSON = String(decoding: try JSONSerialization.data(withJSONObject: [id], options: [.fragmentsAllowed]), as: UTF8.self).dropFirst().dropLast()
        let manifest = """
        {"format": "picturebook-book/1", "readingDirection": "ltr", "title": {"en": "Crafted"}, "languages": ["en"], "pages": [
          {"image": "p1.png", "width": 64, "height": 48,
           "textBoxes": [{"id": \(idJSON), "rect": {"x": 4, "y": 4, "width": 30, "height": 12}, "text": {"en": "Hi"}}]}
        ]}
        """
        try manifest.write(toFile: dir + "/book.json", atomically: true, encoding: .utf8)
        return dir
    }

    /// The exploit as reported: an id that climbs out of `popout/` through a folder it names.
    @Test func aTextBoxIdCannotWriteOutsideTheBook() throws {
        let scratch = try Scratch()
        let target = scratch.file("PWNED")
        let climb = String(repeating: "../", count: 12)
        let id = "x/\(climb)\(String(target.dropFirst()))"
        let dir = try Self.book(in: scratch, id: id)
        try FileManager.default.createDirectory(atPath: dir + "/popout/p1-x", withIntermediateDirectories: true)

        let popout = try CLI.run(["popout", dir])
        #expect(popout.status != 0)
        #expect(popout.stderr.contains("textBoxes[0].id"), "\(popout.stderr)")
        #expect(!FileManager.default.fileExists(atPath: target + ".png"))

        let validate = try CLI.run(["validate", dir])
        #expect(validate.status != 0)
        #expect(validate.stderr.contains("it names files") || validate.stdout.contains("it names files"), "\(validate.stdout)\(validate.stderr)")
    }

    @Test(arguments: ["a/b", "..", ".hidden", "x\\y", "p1 b2", "ünï", String(repeating: "a", count: 129)])
    func unsafeIdsAreRefused(_ id: String) throws {
        let scratch = try Scratch()
        let dir = try Self.book(in: scratch, id: id)
        let validate = try CLI.run(["validate", dir])
        #expect(validate.status != 0, "\(id)")
        #expect((validate.stdout + validate.stderr).contains("it names files"), "\(validate.stdout)\(validate.stderr)")
    }

    @Test(arguments: ["p001-b1", "title.en", "A_1"])
    func ordinaryIdsAreAccepted(_ id: String) throws {
        let scratch = try Scratch()
        let dir = try Self.book(in: scratch, id: id)
        let validate = try CLI.run(["validate", dir])
        #expect(validate.status == 0, "\(validate.stdout)\(validate.stderr)")
    }

    /// A `clear` (or `popout`) folder inside the book that is a symbolic link is refused, not
    /// followed; an output folder the user names explicitly is theirs.
    @Test(arguments: ["clear", "popout"])
    func symlinkedOutputFoldersInsideABookAreRefused(_ command: String) throws {
        let scratch = try Scratch()
        let dir = try Self.book(in: scratch, id: "b1")
        let elsewhere = scratch.file("elsewhere")
        try FileManager.default.createDirectory(atPath: elsewhere, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: dir + "/" + command, withDestinationPath: elsewhere)
        let r = try CLI.run([command, dir])
        #expect(r.status != 0)
        #expect(r.stderr.contains("symbolic link"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: elsewhere).isEmpty)

        let explicit = try CLI.run([command, dir, "--out", elsewhere])
        #expect(explicit.status == 0, "\(explicit.stderr)")
    }
}

/// A FIFO named like a scan must be refused at once, not waited on.
@Suite struct FIFOTests {
    @Test func aPipeNamedLikeAScanIsRefused() throws {
        let scratch = try Scratch()
        let fifo = scratch.file("scan.jpg")
        #expect(mkfifo(fifo, 0o600) == 0)
        // A watchdog, not a speed assertion: before the fix this never returned.
        let p = Process()
        p.executableURL = CLI.executable
        p.arguments = ["info", fifo]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let deadline = Date().addingTimeInterval(60)
        while p.isRunning && Date() < deadline { usleep(20_000) }
        if p.isRunning { p.terminate() }
        p.waitUntilExit()
        let message = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(p.terminationReason == .exit && p.terminationStatus != 0, "\(message)")
        #expect(message.contains("not a regular file"), "\(message)")
    }
}

/// Output sizes a user chooses are held to the decoding limits before anything is allocated
/// (these used to abort allocating 25–40 GB, or make a 40000² PNG).
@Suite struct OutputSizeLimitTests {
    @Test(arguments: [["--device", "10000x10000@8"], ["--device", "5000x5000@8"], ["--device", "3000x9000@3"]])
    func hugeDevicesAreRefused(_ args: [String]) throws {
        let scratch = try Scratch()
        let r = try CLI.run(["render", "Books/good-morning-farm", "--out", scratch.file("screens")] + args, in: Self.repo)
        #expect(r.status != 0)
        #expect(r.stderr.contains("larger than the limit"), "\(r.stderr)")
        let t = try CLI.run(["transition", "Books/good-morning-farm", "--kind", "turn", "--out", scratch.file("frames")] + args, in: Self.repo)
        #expect(t.status != 0)
        #expect(t.stderr.contains("larger than the limit"), "\(t.stderr)")
        #expect(try scratch.contents().isEmpty)
    }

    @Test(arguments: [["--fit", "100000x100000"], ["--scale", "16"]])
    func hugeConversionsAreRefused(_ args: [String]) throws {
        let scratch = try Scratch()
        try PNGEncoder.write(Bitmap<RGBA8>(width: 2000, height: 1500, fill: .white), to: scratch.file("in.png"))
        let r = try CLI.run(["convert", scratch.file("in.png"), scratch.file("out.jpg")] + args)
        #expect(r.status != 0)
        #expect(r.stderr.contains("larger than the limit") && r.stderr.contains("in.png"), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out.jpg")))
    }

    static let repo: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()
}

/// What a killed run leaves behind: half-written temp files are cleared, and an output changed
/// after it was recorded (truncated, replaced) is redone rather than trusted.
@Suite struct KilledRunTests {
    @Test func staleTempFilesAreRemovedAndLiveOnesKept() throws {
        let scratch = try Scratch()
        let dir = try HostileBookTests.book(in: scratch, id: "b1")
        try FileManager.default.createDirectory(atPath: dir + "/popout", withIntermediateDirectories: true)
        var dead: pid_t = 4_000_000
        while kill(dead, 0) == 0 || errno != ESRCH { dead -= 1 }
        let stale = dir + "/popout/.p1-b1.png.tmp-\(dead)-AbC123"
        let legacy = dir + "/popout/.p1-b1.png.tmp-XyZ789"
        let live = dir + "/popout/.p1-b1.png.tmp-\(getpid())-QwE456"
        for f in [stale, legacy, live] { try Data([1, 2, 3]).write(to: URL(fileURLWithPath: f)) }
        let hourAgo = Date().addingTimeInterval(-3600), twoDaysAgo = Date().addingTimeInterval(-2 * 86_400)
        try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: stale)
        try FileManager.default.setAttributes([.modificationDate: twoDaysAgo], ofItemAtPath: legacy)
        try FileManager.default.setAttributes([.modificationDate: hourAgo], ofItemAtPath: live)

        let r = try CLI.run(["popout", dir])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: stale))
        #expect(!FileManager.default.fileExists(atPath: legacy))
        // Its writer (this test process) is alive: it may still be renamed into place.
        #expect(FileManager.default.fileExists(atPath: live))
    }

    @Test func aTruncatedOutputIsRedone() throws {
        let scratch = try Scratch()
        let dir = try HostileBookTests.book(in: scratch, id: "b1")
        let output = dir + "/popout/p1-b1.png"
        #expect(try CLI.run(["popout", dir]).status == 0)
        let original = try Data(contentsOf: URL(fileURLWithPath: output))
        #expect(try CLI.run(["popout", dir]).stderr.contains("0 pages cropped, 1 up to date"))

        try original.prefix(original.count / 2).write(to: URL(fileURLWithPath: output))
        let again = try CLI.run(["popout", dir])
        #expect(again.status == 0)
        #expect(again.stderr.contains("1 pages cropped"), "\(again.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: output)) == original)
    }
}

/// One bad scan never stops a run: the good pages are done, every bad one is named, exit 1.
@Suite struct BadPageTests {
    @Test func analyzeOnABareFolderSkipsAnUnreadableScan() throws {
        let scratch = try Scratch()
        try scratch.writeTestImages()  // scans/p1.png, p2.jpg, p10.png
        try Data("not an image at all".utf8).write(to: URL(fileURLWithPath: scratch.file("scans/p5.jpg")))
        let r = try CLI.run(["analyze", scratch.file("scans")])
        #expect(r.status == 1)
        #expect(r.stderr.contains("p5.jpg"), "\(r.stderr)")
        let manifest = try String(contentsOfFile: scratch.file("scans/book.json"), encoding: .utf8)
        for good in ["p1.png", "p2.jpg", "p10.png"] { #expect(manifest.contains(good)) }
        #expect(!manifest.contains("p5.jpg"))
    }
}

/// `validate` reads headers; `validate --deep` decodes every scan, so damage past the header shows.
@Suite struct DeepValidationTests {
    @Test(arguments: ["truncated", "bitflipped"])
    func damagedScansFailOnlyTheDeepCheck(_ damage: String) throws {
        let scratch = try Scratch()
        let dir = try HostileBookTests.book(in: scratch, id: "b1")
        // A real photo-like JPEG page instead of the PNG, then damaged after its header.
        var pixels: [RGBA8] = []
        for i in 0..<(64 * 48) {
            let r = UInt8((i * 7) % 256), g = UInt8((i / 64) * 5), b = UInt8((i * 13) % 256)
            pixels.append(RGBA8(r: r, g: g, b: b))
        }
        let card = Bitmap<RGBA8>(width: 64, height: 48, pixels: pixels)
        var jpeg = try JPEGEncoder.encode(card, options: .init())
        if damage == "truncated" { jpeg = Array(jpeg.prefix(jpeg.count * 2 / 3)) } else {
            for i in stride(from: jpeg.count / 2, to: jpeg.count - 40, by: 7) { jpeg[i] ^= 0x5A }
        }
        try Data(jpeg).write(to: URL(fileURLWithPath: dir + "/p1.jpg"))
        let manifest = try String(contentsOfFile: dir + "/book.json", encoding: .utf8).replacingOccurrences(of: "p1.png", with: "p1.jpg")
        try manifest.write(toFile: dir + "/book.json", atomically: true, encoding: .utf8)

        let shallow = try CLI.run(["validate", dir])
        #expect(shallow.status == 0, "\(shallow.stdout)\(shallow.stderr)")
        let deep = try CLI.run(["validate", dir, "--deep"])
        #expect(deep.status == 1)
        #expect(deep.stdout.contains("pages[0].image"), "\(deep.stdout)")
    }

    @Test func aControlCharacterInAnImagePathIsAnError() throws {
        let scratch = try Scratch()
        let dir = try HostileBookTests.book(in: scratch, id: "b1")
        let manifest = try String(contentsOfFile: dir + "/book.json", encoding: .utf8).replacingOccurrences(of: "\"p1.png\"", with: "\"p1\\u0000.png\"")
        try manifest.write(toFile: dir + "/book.json", atomically: true, encoding: .utf8)
        let r = try CLI.run(["validate", dir])
        #expect(r.status == 1)
        #expect(r.stdout.contains("control character"), "\(r.stdout)")
    }
}

extension BadPageTests {
    /// A copy of the farm book whose page 4 scan is cut to a third.
    static func farmWithDamagedPage4(in scratch: Scratch) throws -> String {
        let book = scratch.file("farm")
        try FileManager.default.copyItem(atPath: OutputSizeLimitTests.repo + "/Books/good-morning-farm", toPath: book)
        let page = book + "/page-004.jpg"
        let bytes = try Data(contentsOf: URL(fileURLWithPath: page))
        try bytes.prefix(bytes.count / 3).write(to: URL(fileURLWithPath: page))
        return book
    }

    @Test func renderGoesOnPastADamagedScan() throws {
        let scratch = try Scratch()
        let book = try Self.farmWithDamagedPage4(in: scratch)
        let out = scratch.file("screens")
        let r = try CLI.run(["render", book, "--orientation", "portrait", "--pages", "3-5", "--out", out])
        #expect(r.status == 1)
        #expect(r.stderr.contains("page-004.jpg") || r.stderr.contains("004"), "\(r.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasSuffix(".png") }
        #expect(written.count == 2, "\(written)")
    }

    /// A turn from page 3 to a damaged page 4: every frame is written, page 4 drawn blank and named, exit 1.
    @Test func transitionGoesOnPastADamagedScan() throws {
        let scratch = try Scratch()
        let book = try Self.farmWithDamagedPage4(in: scratch)
        let out = scratch.file("frames")
        let r = try CLI.run(["transition", book, "--kind", "turn", "--page", "3", "--frames", "4", "--out", out])
        #expect(r.status == 1)
        #expect(r.stderr.contains("page-004.jpg"), "\(r.stderr)")
        let written = try FileManager.default.contentsOfDirectory(atPath: out).filter { $0.hasPrefix("frame-") }
        #expect(written.count == 4, "\(written)")
    }
}
