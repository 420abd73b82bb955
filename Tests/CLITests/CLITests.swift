// End-to-end tests: run the built `picturebook` executable as a user would and check its exit
// status, what it prints and what it leaves on disk.
import Codecs
import Foundation
import Raster
import Testing

struct CLIResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum CLI {
    /// The `picturebook` binary built beside this test bundle.
    static let executable: URL = {
        let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var dir = exe.deletingLastPathComponent()
        // macOS runs tests from inside an .xctest bundle; Linux runs them from the build folder.
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("picturebook").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("picturebook")
    }()

    /// Runs the CLI (or `program`, a copy of it) with `args`; `environment` replaces the test's own.
    static func run(_ args: [String], in directory: String? = nil, environment: [String: String]? = nil, program: URL? = nil) throws -> CLIResult {
        let p = Process()
        p.executableURL = program ?? executable
        p.arguments = args
        if let environment { p.environment = environment }
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        let out = Pipe(), err = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = FileHandle.nullDevice
        try p.run()
        // Read before waiting so a chatty child never blocks on a full pipe.
        let o = out.fileHandleForReading.readDataToEndOfFile()
        let e = err.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        return CLIResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }
}

/// A fresh temporary folder per test, removed afterwards.
final class Scratch {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "pb-cli-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }
    func file(_ name: String) -> String { path + "/" + name }
    func contents() throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: path).sorted() }

    /// A 64×48 test card: a horizontal ramp in red, vertical in green, a blue square.
    func writeTestImages() throws {
        let card = Bitmap<RGBA8>(width: 64, height: 48, pixels: (0..<64 * 48).map { i in
            let x = i % 64, y = i / 64
            return RGBA8(r: UInt8(x * 4), g: UInt8(y * 5), b: (x > 20 && x < 40 && y > 10 && y < 30) ? 255 : 0)
        })
        try FileManager.default.createDirectory(atPath: file("scans"), withIntermediateDirectories: true)
        try PNGEncoder.write(card, to: file("scans/p1.png"))
        try JPEGEncoder.write(card, to: file("scans/p2.jpg"))
        try PNGEncoder.write(card, to: file("scans/p10.png"))
    }
}

@Suite struct CLIHelpTests {
    @Test func helpListsSubcommands() throws {
        let r = try CLI.run(["--help"])
        #expect(r.status == 0)
        for sub in ["info", "convert", "validate"] { #expect(r.stdout.contains(sub), "\(sub) missing from --help") }
    }

    @Test(arguments: ["info", "convert", "validate"])
    func subcommandHelpTeachesWithExamples(_ sub: String) throws {
        let r = try CLI.run(["help", sub])
        #expect(r.status == 0)
        #expect(r.stdout.contains("USAGE"))
    }

    /// The overview of every subcommand is prose the parser re-wraps: a long line joined by hand
    /// in the source (no `\` continuation) leaves runs of spaces in the middle of a sentence, as
    /// `serve --help` once showed. Example lines (indented) may align their comments.
    @Test func everyOverviewReadsAsProse() throws {
        let top = try CLI.run(["--help"])
        let subcommands = top.stdout.components(separatedBy: "SUBCOMMANDS:").last?
            .split(separator: "\n")
            .filter { $0.hasPrefix("  ") && !$0.hasPrefix("   ") }
            .compactMap { $0.split(separator: " ").first.map(String.init) } ?? []
        #expect(subcommands.count >= 15, "\(subcommands)")
        for sub in subcommands {
            let r = try CLI.run(["help", sub])
            let overview = r.stdout.components(separatedBy: "USAGE:").first ?? ""
            for line in overview.split(separator: "\n") where !line.hasPrefix(" ") {
                #expect(!line.contains("   "), "\(sub) --help: \(line)")
            }
        }
    }
}

@Suite struct InfoCommandTests {
    @Test func describesImagesInNaturalOrder() throws {
        let s = try Scratch()
        try s.writeTestImages()
        let r = try CLI.run(["info", s.file("scans")])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n")
        #expect(lines.count == 3)
        #expect(lines[0].contains("p1.png: PNG 64×48"))
        #expect(lines[1].contains("p2.jpg: JPEG 64×48"))
        #expect(lines[2].contains("p10.png"))
        #expect(r.stderr.isEmpty)
    }

    @Test func jsonIsMachineReadable() throws {
        let s = try Scratch()
        try s.writeTestImages()
        let r = try CLI.run(["info", "--json", s.file("scans/p2.jpg")])
        #expect(r.status == 0)
        let rows = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [[String: Any]])
        #expect(rows.count == 1)
        #expect(rows[0]["format"] as? String == "JPEG")
        #expect(rows[0]["width"] as? Int == 64)
        #expect(rows[0]["decodeMilliseconds"] is Double)
    }

    @Test func badFilesAreNamedAndTheRunFails() throws {
        let s = try Scratch()
        try s.writeTestImages()
        try Data("not an image".utf8).write(to: URL(fileURLWithPath: s.file("junk.png")))
        let png = try Data(contentsOf: URL(fileURLWithPath: s.file("scans/p1.png")))
        try png.prefix(png.count / 2).write(to: URL(fileURLWithPath: s.file("half.png")))
        let r = try CLI.run(["info", s.file("junk.png"), s.file("scans/p1.png"), s.file("half.png"), s.file("missing.jpg")])
        #expect(r.status == 1)
        #expect(r.stdout.contains("p1.png: PNG"), "good files are still described")
        #expect(r.stderr.contains("junk.png: not a PNG, JPEG, TIFF or JPEG 2000"))
        #expect(r.stderr.contains("half.png"))
        #expect(r.stderr.contains("missing.jpg: no such file"))
        #expect(!r.stderr.contains("libpng"), "C library chatter leaked: \(r.stderr)")
    }
}

@Suite struct ConvertCommandTests {
    @Test func convertsAndResizes() throws {
        let s = try Scratch()
        try s.writeTestImages()
        let r = try CLI.run(["convert", s.file("scans/p1.png"), s.file("small.jpg"), "--fit", "32x32", "--quality", "80"])
        #expect(r.status == 0, "\(r.stderr)")
        let info = try ImageDecoder.info(file: s.file("small.jpg"))
        #expect(info.format == .jpeg)
        #expect(info.width == 32 && info.height == 24)

        let r2 = try CLI.run(["convert", s.file("scans/p2.jpg"), s.file("big.png"), "--scale", "2"])
        #expect(r2.status == 0, "\(r2.stderr)")
        let big = try ImageDecoder.decode(file: s.file("big.png"))
        #expect(big.width == 128 && big.height == 96)
    }

    @Test func corruptInputLeavesNoOutput() throws {
        let s = try Scratch()
        try s.writeTestImages()
        let jpg = try Data(contentsOf: URL(fileURLWithPath: s.file("scans/p2.jpg")))
        try jpg.prefix(jpg.count * 2 / 3).write(to: URL(fileURLWithPath: s.file("cut.jpg")))
        let r = try CLI.run(["convert", s.file("cut.jpg"), s.file("out.png")])
        #expect(r.status == 1)
        #expect(r.stderr.contains("cut.jpg"))
        #expect(try s.contents() == ["cut.jpg", "scans"], "no output or temp file may be left behind")
    }

    @Test(arguments: [
        ["--scale", "0"], ["--fit", "12"], ["--quality", "101"], ["--compression", "huge"], ["--scale", "2", "--fit", "9x9"],
    ])
    func badOptionsAreUsageErrors(_ extra: [String]) throws {
        let s = try Scratch()
        try s.writeTestImages()
        let r = try CLI.run(["convert", s.file("scans/p1.png"), s.file("o.png")] + extra)
        #expect(r.status == 64, "\(extra): \(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: s.file("o.png")))
    }

    // Exit status 64 means "the command line is wrong" in every subcommand (README's table), and
    // such a run must not touch the book.
    @Test(arguments: [
        ["analyze", "BOOK", "--jobs", "0"], ["analyze", "BOOK", "--set", "noSuchParameter=1"],
        ["analyze", "BOOK", "--set", "windowRadius"], ["clear", "BOOK", "--jobs", "65"],
        ["clear", "BOOK", "--method", "smudge"], ["clear", "BOOK", "--dilation", "-1"],
        ["clear", "BOOK", "--set", "noSuchParameter=1"], ["clear", "BOOK", "--set", "spectralWeight=2"],
        // Integer parameters made from a value that is not a number, or too large for one, used
        // to trap (Int(nan)); every `--set` now refuses them.
        ["clear", "BOOK", "--set", "slack=nan"], ["clear", "BOOK", "--set", "artReach=1e300"],
        ["analyze", "BOOK", "--set", "windowRadius=inf"],
        ["popout", "BOOK", "--jobs", "0"], ["popout", "BOOK", "--scale", "2", "--text-height", "30"],
        ["popout", "BOOK", "--scale", "0"], ["validate"],
    ])
    func badBookCommandOptionsAreUsageErrors(_ arguments: [String]) throws {
        let s = try Scratch()
        try s.writeTestImages()
        let before = try s.contents()
        let r = try CLI.run(arguments.map { $0 == "BOOK" ? s.file("scans") : $0 })
        #expect(r.status == 64, "\(arguments): \(r.stderr)")
        #expect(!r.stderr.isEmpty)
        #expect(try s.contents() == before, "\(arguments) must not write anything")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.file("scans")).sorted() == ["p1.png", "p10.png", "p2.jpg"])
    }

    @Test(arguments: ["clear", "popout"])
    func bareFolderOfScansPointsToAnalyze(_ command: String) throws {
        let s = try Scratch()
        try s.writeTestImages()
        let r = try CLI.run([command, s.file("scans")])
        #expect(r.status == 1)
        #expect(r.stderr.contains("no book.json") && r.stderr.contains("picturebook analyze"), "\(r.stderr)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: s.file("scans")).sorted() == ["p1.png", "p10.png", "p2.jpg"])
    }

    @Test func unknownOutputFormatIsRefused() throws {
        let s = try Scratch()
        try s.writeTestImages()
        let r = try CLI.run(["convert", s.file("scans/p1.png"), s.file("o.gif")])
        #expect(r.status != 0)
        #expect(r.stderr.contains("output format"))
    }
}

@Suite struct ValidateCommandTests {
    @Test func validBookPassesAndWrongSizeIsReported() throws {
        let s = try Scratch()
        try s.writeTestImages()
        let manifest = """
            {"format": "picturebook-book/1", "title": "Test", "languages": ["en"], "readingDirection": "ltr",
             "pages": [{"image": "p1.png", "width": 64, "height": 48, "textBoxes": []},
                       {"image": "p2.jpg", "width": 60, "height": 48, "textBoxes": []}]}
            """
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: s.file("scans/book.json")))
        let r = try CLI.run(["validate", s.file("scans")])
        #expect(r.status == 1)
        #expect(r.stdout.contains("pages[1]"))
        #expect(r.stdout.contains("64×48"))
        #expect(!r.stdout.contains("pages[0]"))
    }
}

@Suite struct AnalyzeSpreadTests {
    /// The board book's three panoramic spreads, removed from its manifest, are found again and
    /// written back; nothing else is paired.
    @Test func analyzeRecordsPanoramicSpreads() throws {
        let s = try Scratch()
        var books = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { books.deleteLastPathComponent() }
        let source = books.appendingPathComponent("Books/good-morning-farm").path
        let book = s.file("farm")
        try FileManager.default.copyItem(atPath: source, toPath: book)
        let manifest = URL(fileURLWithPath: book + "/book.json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifest)) as? [String: Any])
        #expect(json["spreads"] as? [[Int]] == [[2, 3], [6, 7], [10, 11]])
        json["spreads"] = nil
        try JSONSerialization.data(withJSONObject: json).write(to: manifest)

        let r = try CLI.run(["analyze", book, "--no-masks", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(report["detectedSpreads"] as? [[Int]] == [[2, 3], [6, 7], [10, 11]])
        // The evidence names every consecutive pair once, and marks found exactly those recorded.
        let evidence = try #require(report["spreadEvidence"] as? [[String: Any]])
        let pages = try #require(report["pages"] as? [Any])
        #expect(evidence.compactMap { $0["pages"] as? [Int] } == (1..<pages.count).map { [$0, $0 + 1] })
        #expect(evidence.filter { $0["found"] as? Bool == true }.compactMap { $0["pages"] as? [Int] } == [[2, 3], [6, 7], [10, 11]])
        #expect(evidence.allSatisfy { ($0["seamContinuity"] as? Double).map { (0...1).contains($0) } ?? false })
        // The colour-field measure's score and the edges' deviation are given for every pair too.
        #expect(evidence.allSatisfy { ($0["extrapolation"] as? Double).map { (-1...1).contains($0) } ?? false })
        #expect(evidence.allSatisfy { ($0["edgeDeviation"] as? Double).map { $0 >= 0 } ?? false })
        let saved = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifest)) as? [String: Any])
        #expect(saved["spreads"] as? [[Int]] == [[2, 3], [6, 7], [10, 11]])
    }

    /// What a librarian entered stands: a listed spread is kept even where the detector would pair
    /// otherwise (pp. 3–4 listed, so the panorama pp. 2–3 is not taken), and a page marked single
    /// (p. 10) is never paired; the rest is found as before.
    @Test func analyzeKeepsListedSpreadsAndSinglePages() throws {
        let s = try Scratch()
        var books = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { books.deleteLastPathComponent() }
        let book = s.file("farm")
        try FileManager.default.copyItem(atPath: books.appendingPathComponent("Books/good-morning-farm").path, toPath: book)
        let manifest = URL(fileURLWithPath: book + "/book.json")
        var json = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifest)) as? [String: Any])
        json["spreads"] = [[3, 4]]
        var pages = try #require(json["pages"] as? [[String: Any]])
        pages[9]["single"] = true
        json["pages"] = pages
        try JSONSerialization.data(withJSONObject: json).write(to: manifest)

        let r = try CLI.run(["analyze", book, "--no-masks", "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        #expect(report["detectedSpreads"] as? [[Int]] == [[6, 7]])
        let saved = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: manifest)) as? [String: Any])
        #expect(saved["spreads"] as? [[Int]] == [[3, 4], [6, 7]])
        let savedPages = try #require(saved["pages"] as? [[String: Any]])
        #expect(savedPages[9]["single"] as? Bool == true)
    }
}
