// `analyze`'s reading check end to end: on a text-free engraving the learned detector proposes a
// row of grain as a line; in a Latin-script book the check drops it, `--set read.enabled=0`
// keeps it, and a book in Japanese is not read (the recogniser's confidence means nothing there).
import Foundation
import Testing

/// The build's detector folder, as `analyze` finds it beside the program (.build/<triple>/debug's
/// program finds .build/detector two levels up).
private let readerInstalled = ["../detector", "../../detector"].contains { folder in
    FileManager.default.fileExists(
        atPath: CLI.executable.deletingLastPathComponent().appendingPathComponent(folder + "/text-reader.onnx").standardized.path)
}

@Suite(.enabled(if: readerInstalled, "Tools/setup.sh --detector not run"))
struct ReadingCheckCLITests {
    static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path

    struct Report: Decodable {
        struct Page: Decodable { var detected: [Box]; var unread: [Rect]? }
        struct Box: Decodable { var id: String }
        struct Rect: Decodable { var x, y, width, height: Int }
        var detector: String
        var pages: [Page]
    }

    func scans() throws -> Scratch {
        let s = try Scratch()
        try FileManager.default.createDirectory(atPath: s.file("scans"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: Self.root + "/Benchmarks/RealCorpus/max-und-moritz/7-11.jpg", toPath: s.file("scans/7-11.jpg"))
        return s
    }

    /// (boxes in the book, blocks reported as unread or nil when the check did not run).
    func analyze(_ extra: [String]) throws -> (boxes: Int, unread: Int?) {
        let s = try scans()
        let r = try CLI.run(["analyze", s.file("scans"), "--detector", "learned", "--json", "--dry-run", "--no-masks"] + extra)
        #expect(r.status == 0, "\(r.stderr)")
        let report = try JSONDecoder().decode(Report.self, from: Data(r.stdout.utf8))
        #expect(report.detector == "learned")
        let unread = report.pages.compactMap(\.unread)
        return (report.pages.reduce(0) { $0 + $1.detected.count }, unread.isEmpty ? nil : unread.reduce(0) { $0 + $1.count })
    }

    @Test func aRowOfGrainIsNotReadAsText() throws {
        let unchecked = try analyze(["--set", "read.enabled=0"])
        #expect(unchecked.boxes >= 1, "the detector no longer proposes the grain; the test needs a page it is fooled by")
        #expect(unchecked.unread == nil)
        let checked = try analyze([])
        #expect(checked.boxes == 0)
        #expect(checked.unread == unchecked.boxes)
        #expect(try analyze(["--language", "de"]).boxes == 0)
        let japanese = try analyze(["--language", "ja"])
        #expect(japanese.boxes == unchecked.boxes && japanese.unread == nil)
    }

    /// Without --json the librarian is told what was left out, and --draw frames it.
    @Test func whatWasLeftOutIsSaidAndDrawn() throws {
        let s = try scans()
        let r = try CLI.run(["analyze", s.file("scans"), "--detector", "learned", "--dry-run", "--no-masks", "--draw", s.file("drawn")])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("did not read as text"), "\(r.stderr)")
        #expect(FileManager.default.fileExists(atPath: s.file("drawn/7-11.jpg")))
    }

    @Test func anUnknownReadingParameterIsAUsageError() throws {
        let s = try Scratch()
        try s.writeTestImages()
        let r = try CLI.run(["analyze", s.file("scans"), "--dry-run", "--set", "read.bogus=1"])
        #expect(r.status != 0)
        #expect(r.stderr.contains("read.bogus"))
        #expect(r.stderr.contains("ReadingCheck"))
    }
}

/// Without the learned detector installed, `auto` falls back to the classical one and says so: it
/// finds much less on real scans, and a librarian must not take its few boxes for the book's.
@Suite struct DetectorFallbackCLITests {
    @Test func theFallbackIsSaid() throws {
        let s = try Scratch()
        // A copy of the program in a folder with no detector beside it, and a home without one.
        for dir in ["bin", "home", "scans"] { try FileManager.default.createDirectory(atPath: s.file(dir), withIntermediateDirectories: true) }
        try FileManager.default.copyItem(atPath: CLI.executable.path, toPath: s.file("bin/picturebook"))
        try FileManager.default.copyItem(atPath: ReadingCheckCLITests.root + "/Benchmarks/RealCorpus/max-und-moritz/7-11.jpg", toPath: s.file("scans/7-11.jpg"))
        var env = ProcessInfo.processInfo.environment
        env["PICTUREBOOK_DETECTOR_DIR"] = nil
        env["XDG_DATA_HOME"] = nil
        env["HOME"] = s.file("home")
        let program = URL(fileURLWithPath: s.file("bin/picturebook"))
        let r = try CLI.run(["analyze", s.file("scans"), "--json", "--dry-run", "--no-masks"], environment: env, program: program)
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("\"detector\" : \"classical\""))
        #expect(r.stderr.contains("learned detector is not installed"), "\(r.stderr)")
        #expect(r.stderr.contains("Tools/setup.sh --detector"))
        // Asking for the classical one is a choice, not a fallback: nothing to say.
        let chosen = try CLI.run(["analyze", s.file("scans"), "--detector", "classical", "--json", "--dry-run", "--no-masks"], environment: env, program: program)
        #expect(chosen.status == 0)
        #expect(!chosen.stderr.contains("not installed"))
    }
}
