// Helpers for the format tests: where the repository, the sample books, the shared schemas and the
// validator tools are, and running a tool or the built CLI.
import BookModel
import Foundation
import Testing

enum Repo {
    /// The package root: three levels above this file (Tests/FormatsTests/Support.swift).
    static let root: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().path

    static func book(_ name: String) -> String { root + "/Books/" + name }

    /// `../shared` beside the checkout, as on every developer machine and in CI; a git worktree
    /// kept one folder deeper (worktrees/<name>) finds it one level further up.
    static let shared: String? = [root + "/../shared", root + "/../../shared"]
        .map { URL(fileURLWithPath: $0).standardizedFileURL.path }
        .first { FileManager.default.fileExists(atPath: $0 + "/schemas/alto/alto-4-4.xsd") }

    static var altoSchema: String? { shared.map { $0 + "/schemas/alto/alto-4-4.xsd" } }

    /// The venv Tools/setup.sh --formats makes for hocr-check and iiif-prezi3.
    static let venv = root + "/.build/venv-formats/bin"
}

struct ToolResult {
    var status: Int32
    var stdout: String
    var stderr: String
}

enum Tool {
    static func run(_ executable: String, _ args: [String], in directory: String? = nil) throws -> ToolResult {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: executable)
        p.arguments = args
        if let directory { p.currentDirectoryURL = URL(fileURLWithPath: directory) }
        // stderr goes to a file, so a chatty tool can never block on a pipe nobody reads yet.
        let errPath = NSTemporaryDirectory() + "pb-formats-stderr-" + UUID().uuidString
        FileManager.default.createFile(atPath: errPath, contents: nil)
        defer { try? FileManager.default.removeItem(atPath: errPath) }
        let errFile = try FileHandle(forWritingTo: URL(fileURLWithPath: errPath))
        let out = Pipe()
        p.standardOutput = out
        p.standardError = errFile
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try errFile.close()
        let e = FileManager.default.contents(atPath: errPath) ?? Data()
        return ToolResult(status: p.terminationStatus, stdout: String(decoding: o, as: UTF8.self), stderr: String(decoding: e, as: UTF8.self))
    }

    /// The `picturebook` binary built beside the test bundle.
    static let picturebook: String = {
        var dir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("picturebook").path), dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("picturebook").path
    }()

    static func cli(_ args: [String]) throws -> ToolResult { try run(picturebook, args) }

    /// A required validator: its absence is a failure that says how to install it, not a skip —
    /// `make test` installs every one of them.
    static func require(_ path: String) -> String? {
        if FileManager.default.isExecutableFile(atPath: path) { return path }
        Issue.record("\(path) is missing; run Tools/setup.sh --formats")
        return nil
    }

    static func python(_ script: String, _ args: [String]) throws -> ToolResult? {
        guard let py = require(Repo.venv + "/python") else { return nil }
        return try run(py, ["-c", script] + args)
    }
}

/// A fresh temporary folder, removed when the value goes away.
final class TempDir {
    let path: String
    init() throws {
        path = NSTemporaryDirectory() + "pb-formats-" + UUID().uuidString
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }
    deinit { try? FileManager.default.removeItem(atPath: path) }

    /// A copy of a sample book, optionally changed, at `path/name`.
    func copyBook(_ name: String, as copy: String? = nil, change: ((inout Book) -> Void)? = nil) throws -> String {
        let target = path + "/" + (copy ?? name)
        try FileManager.default.copyItem(atPath: Repo.book(name), toPath: target)
        if let change {
            var book = try Book.load(directory: target).book
            change(&book)
            try book.save(directory: target)
        }
        return target
    }
}

/// Reads a zip through Python's zipfile (an independent reader): every entry's name, method and
/// bytes checked against its CRC; the names printed in order, one per line, the method after a tab.
let zipListing = """
    import sys, zipfile
    with zipfile.ZipFile(sys.argv[1]) as z:
        bad = z.testzip()
        if bad: sys.exit("bad CRC in " + bad)
        for i in z.infolist():
            print(i.filename + "\\t" + str(i.compress_type) + "\\t" + str(i.file_size))
    """

func zipEntry(_ zip: String, _ name: String) throws -> String? {
    let script = """
        import sys, zipfile
        with zipfile.ZipFile(sys.argv[1]) as z:
            sys.stdout.write(z.read(sys.argv[2]).decode("utf-8"))
        """
    guard let r = try Tool.python(script, [zip, name]), r.status == 0 else { return nil }
    return r.stdout
}
