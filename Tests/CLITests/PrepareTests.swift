// `picturebook prepare` end to end on a small generated library: shards against one process,
// a broken book, re-runs, locks, and runs killed with SIGKILL.
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A library of generated books (small pages), made once and copied for each test with `cp -a`, so
/// every copy has the same scans with the same modification times.
enum PrepareLibrary {
    static let books = 5
    static let templatePath = NSTemporaryDirectory() + "pb-prepare-template-\(getpid())"
    static let template: Result<String, any Error> = Result {
        let dir = templatePath
        try? FileManager.default.removeItem(atPath: dir)
        // Removed when the test process exits (each run would otherwise leave one in /tmp).
        atexit { try? FileManager.default.removeItem(atPath: PrepareLibrary.templatePath) }
        for i in 1...books {
            let r = try CLI.run([
                "generate", "--out", "\(dir)/shelf-\(i % 2)/book-\(i)", "--pages", "3", "--seed", "\(i)",
                "--size", "240x300", "--no-clean", "--no-truth",
            ])
            guard r.status == 0 else { throw TemplateError(message: r.stderr) }
        }
        return dir
    }
    struct TemplateError: Error { var message: String }

    /// A fresh copy of the template at `path` (replacing whatever is there).
    static func copy(to path: String) throws {
        let source = try template.get()
        try? FileManager.default.removeItem(atPath: path)
        try shell("/bin/cp", ["-a", source, path])
    }

    static func shell(_ exe: String, _ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = args
        try p.run()
        p.waitUntilExit()
        guard p.terminationStatus == 0 else { throw TemplateError(message: "\(exe) \(args) failed") }
    }

    /// Every file under `root` (hidden ones too) with its bytes, by path relative to `root`.
    static func tree(_ root: String) throws -> [String: Data] {
        var out: [String: Data] = [:]
        guard let e = FileManager.default.enumerator(atPath: root) else { return out }
        while let rel = e.nextObject() as? String {
            var isDir: ObjCBool = false
            if FileManager.default.fileExists(atPath: root + "/" + rel, isDirectory: &isDir), !isDir.boolValue {
                out[rel] = try Data(contentsOf: URL(fileURLWithPath: root + "/" + rel))
            }
        }
        return out
    }

    /// The two trees hold the same files with the same bytes — except three kinds of bookkeeping
    /// record that stamp a file written during the run with its modification time (when it was
    /// written, not what): the library grid's record (each cover's), clear's per-page `.key` and
    /// clear's stage record (each ink mask's, which analyze wrote). They must exist in both.
    static func expectSameOutputs(_ a: String, _ b: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        func stamped(_ path: String) -> Bool {
            path == "thumbs/library.json" || path.hasSuffix("/.prepare/clear.done")
                || (path.contains("/clear/.") && path.hasSuffix(".png.key"))
        }
        let fa = try tree(a), fb = try tree(b)
        #expect(Set(fa.keys.filter(stamped)) == Set(fb.keys.filter(stamped)), sourceLocation: sourceLocation)
        let ta = fa.filter { !stamped($0.key) }, tb = fb.filter { !stamped($0.key) }
        #expect(Set(ta.keys) == Set(tb.keys), "files differ: only in one \(Set(ta.keys).subtracting(tb.keys).sorted()), only in other \(Set(tb.keys).subtracting(ta.keys).sorted())", sourceLocation: sourceLocation)
        let differing = ta.keys.filter { tb[$0] != nil && ta[$0] != tb[$0] }.sorted()
        #expect(differing.isEmpty, "bytes differ: \(differing)", sourceLocation: sourceLocation)
        // Not a vacuous comparison: every stage wrote something.
        for part in ["/masks/", "/clear/", "/popout/", "thumbs/library.png", "/overview.png", "/export/manifest.json", "/export/alto/"] {
            #expect(ta.keys.contains { $0.contains(part) }, "no \(part) output", sourceLocation: sourceLocation)
        }
    }

    static func jsonLines(_ text: String) -> [[String: Any]] {
        text.split(separator: "\n").compactMap { try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any] }
    }

    static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        gethostname(&buffer, 255)
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}

@Suite struct PrepareTests {
    /// Three shard processes at once produce byte for byte what one process produces; each book
    /// is done by exactly one shard.
    @Test func threeConcurrentShardsMatchOneProcess() throws {
        let s = try Scratch()
        let lib = s.file("library")
        try PrepareLibrary.copy(to: lib)
        let one = try CLI.run(["prepare", lib])
        #expect(one.status == 0, "\(one.stderr)")
        #expect(try CLI.run(["prepare", lib, "--merge"]).status == 0)
        try FileManager.default.moveItem(atPath: lib, toPath: s.file("one"))

        try PrepareLibrary.copy(to: lib)
        let results = ConcurrentResults()
        DispatchQueue.concurrentPerform(iterations: 3) { k in
            results.set(k, Result { try CLI.run(["prepare", lib, "--shard", "\(k + 1)/3", "--json"]) })
        }
        var seen: [String] = []
        for r in results.all {
            let r = try r.get()
            #expect(r.status == 0, "\(r.stderr)")
            seen += PrepareLibrary.jsonLines(r.stdout).filter { $0["event"] as? String == "book" }.compactMap { $0["book"] as? String }
        }
        #expect(seen.sorted() == (1...PrepareLibrary.books).map { "shelf-\($0 % 2)/book-\($0)" }.sorted())
        let merged = try CLI.run(["prepare", lib, "--merge"])
        #expect(merged.status == 0, "\(merged.stderr)")
        try PrepareLibrary.expectSameOutputs(s.file("one"), lib)
    }

    /// `--list` per shard partitions the library, and a new book moves no other book.
    @Test func shardsPartitionTheLibraryStably() throws {
        let s = try Scratch()
        let lib = s.file("library")
        try PrepareLibrary.copy(to: lib)
        func list(_ extra: [String]) throws -> [String] {
            let r = try CLI.run(["prepare", lib, "--list"] + extra)
            #expect(r.status == 0, "\(r.stderr)")
            return r.stdout.split(separator: "\n").map(String.init)
        }
        let all = try list([])
        #expect(all.count == PrepareLibrary.books)
        let shards = try (1...3).map { try list(["--shard", "\($0)/3"]) }
        #expect(shards.flatMap { $0 }.sorted() == all.sorted())
        #expect(Set(shards.flatMap { $0 }).count == all.count)
        try FileManager.default.copyItem(atPath: lib + "/shelf-1/book-1", toPath: lib + "/shelf-0/a-new-book")
        let after = try (1...3).map { try list(["--shard", "\($0)/3"]) }
        for k in 0..<3 { #expect(after[k].filter { $0 != "shelf-0/a-new-book" } == shards[k]) }
    }

    /// A book whose book.json is garbage is named, the exit status is 1, and the others are done.
    @Test func aBrokenBookIsNamedAndTheOthersAreDone() throws {
        let s = try Scratch()
        let lib = s.file("library")
        try PrepareLibrary.copy(to: lib)
        try FileManager.default.createDirectory(atPath: lib + "/broken", withIntermediateDirectories: true)
        try Data("{ not json".utf8).write(to: URL(fileURLWithPath: lib + "/broken/book.json"))
        let r = try CLI.run(["prepare", lib])
        #expect(r.status == 1)
        #expect(r.stderr.contains("broken"), "\(r.stderr)")
        #expect(r.stderr.contains("1 failed"), "\(r.stderr)")
        for i in 1...PrepareLibrary.books {
            let book = lib + "/shelf-\(i % 2)/book-\(i)"
            #expect(FileManager.default.fileExists(atPath: book + "/clear/page-001.png"), "book-\(i) not cleared")
            #expect(FileManager.default.fileExists(atPath: lib + "/thumbs/book-\(i)/overview.png"), "book-\(i) has no overview")
        }
        let json = try CLI.run(["prepare", lib, "--json"])
        #expect(json.status == 1)
        let summary = try #require(PrepareLibrary.jsonLines(json.stdout).last)
        let failures = try #require(summary["failures"] as? [[String: Any]])
        #expect(failures.map { $0["book"] as? String } == ["broken"])
        #expect((failures.first?["message"] as? String)?.contains("book.json") == true, "\(failures)")
    }

    /// A second run finds everything up to date, says so, and rewrites nothing.
    @Test func aSecondRunSkipsEverything() throws {
        let s = try Scratch()
        let lib = s.file("library")
        try PrepareLibrary.copy(to: lib)
        #expect(try CLI.run(["prepare", lib]).status == 0)
        func stamps() throws -> [String: Date] {
            var out: [String: Date] = [:]
            for path in try PrepareLibrary.tree(lib).keys {
                out[path] = try FileManager.default.attributesOfItem(atPath: lib + "/" + path)[.modificationDate] as? Date
            }
            return out
        }
        let before = try stamps()
        let again = try CLI.run(["prepare", lib, "--json"])
        #expect(again.status == 0, "\(again.stderr)")
        let lines = PrepareLibrary.jsonLines(again.stdout)
        let books = lines.filter { $0["event"] as? String == "book" }
        #expect(books.count == PrepareLibrary.books)
        #expect(books.allSatisfy { $0["status"] as? String == "skipped" }, "\(books)")
        #expect(lines.last?["skipped"] as? Int == PrepareLibrary.books)
        #expect(try stamps() == before)
    }

    /// A live worker's lock is respected (the book is left alone); a dead one's — this host and
    /// its pid gone, or another host and older than the timeout — is broken and the book done.
    @Test func liveLocksAreRespectedAndStaleOnesRecovered() throws {
        let s = try Scratch()
        let lib = s.file("library")
        try PrepareLibrary.copy(to: lib)
        let now = Int(Date().timeIntervalSince1970)
        func lock(_ book: Int, _ content: String, age: TimeInterval = 0) throws -> String {
            let path = lib + "/shelf-\(book % 2)/book-\(book)/.picturebook-prepare.lock"
            try Data(content.utf8).write(to: URL(fileURLWithPath: path))
            if age > 0 { try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-age)], ofItemAtPath: path) }
            return path
        }
        let dead = Process()
        dead.executableURL = URL(fileURLWithPath: "/bin/true")
        try dead.run()
        dead.waitUntilExit()
        let host = PrepareLibrary.hostName
        let live = try lock(1, "\(getpid()) \(host) \(now)\n")
        let deadHere = try lock(2, "\(dead.processIdentifier) \(host) \(now)\n")
        let oldElsewhere = try lock(3, "4242 some-other-node \(now - 7200)\n", age: 7200)
        let freshElsewhere = try lock(4, "4242 some-other-node \(now)\n")

        let r = try CLI.run(["prepare", lib, "--json", "--lock-timeout", "3600"])
        #expect(r.status == 0, "\(r.stderr)")
        var status: [String: String] = [:]
        for line in PrepareLibrary.jsonLines(r.stdout) where line["event"] as? String == "book" {
            status[line["book"] as? String ?? ""] = line["status"] as? String
        }
        #expect(status["shelf-1/book-1"] == "busy")
        #expect(status["shelf-0/book-4"] == "busy")
        #expect(status["shelf-0/book-2"] == "done")
        #expect(status["shelf-1/book-3"] == "done")
        #expect(status["shelf-1/book-5"] == "done")
        // The busy books were not touched and keep their holders' locks; the broken locks are gone.
        #expect(!FileManager.default.fileExists(atPath: lib + "/shelf-1/book-1/clear"))
        #expect(FileManager.default.fileExists(atPath: live) && FileManager.default.fileExists(atPath: freshElsewhere))
        #expect(!FileManager.default.fileExists(atPath: deadHere) && !FileManager.default.fileExists(atPath: oldElsewhere))
        // Busy books are not done: merging now is refused, naming them.
        let merge = try CLI.run(["prepare", lib, "--merge"])
        #expect(merge.status == 1)
        #expect(merge.stderr.contains("shelf-1/book-1") && merge.stderr.contains("shelf-0/book-4"), "\(merge.stderr)")
    }

    /// A run killed while export wrote ALTO leaves a temp file in `export/alto/` and no export
    /// record; the next run clears it under the lock like any output folder's (the release soak
    /// found one left when only `export/` itself was cleared).
    @Test func aKilledExportsTempFileInItsALTOFolderIsCleared() throws {
        let s = try Scratch()
        let lib = s.file("library")
        try PrepareLibrary.copy(to: lib)
        #expect(try CLI.run(["prepare", lib, "--stages", "export"]).status == 0)
        let book = lib + "/shelf-1/book-1"
        // What SIGKILL inside the ALTO writer leaves: a temp file of a writer that is gone, and
        // export's record removed before the stage started.
        let temp = book + "/export/alto/.page-001.alto.xml.tmp-\(Int32.max - 1)-AbCdEf"
        try Data("partial".utf8).write(to: URL(fileURLWithPath: temp))
        try FileManager.default.removeItem(atPath: book + "/.prepare/export.done")
        let again = try CLI.run(["prepare", lib, "--stages", "export"])
        #expect(again.status == 0, "\(again.stderr)")
        #expect(!FileManager.default.fileExists(atPath: temp), "the killed writer's temp file is still there")
        #expect(FileManager.default.fileExists(atPath: book + "/.prepare/export.done"))
    }

    /// Runs killed with SIGKILL at several moments, then a final run: the outputs are byte for byte
    /// those of an uninterrupted run, and no temp file or lock is left anywhere.
    @Test func killedRunsThenARerunMatchAnUninterruptedRun() throws {
        let s = try Scratch()
        let lib = s.file("library")
        try PrepareLibrary.copy(to: lib)
        #expect(try CLI.run(["prepare", lib]).status == 0)
        #expect(try CLI.run(["prepare", lib, "--merge"]).status == 0)
        try FileManager.default.moveItem(atPath: lib, toPath: s.file("reference"))

        try PrepareLibrary.copy(to: lib)
        var killedMidway = 0
        for delay in [0.15, 0.4, 0.8, 1.3] {
            let p = Process()
            p.executableURL = CLI.executable
            p.arguments = ["prepare", lib]
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            try p.run()
            Thread.sleep(forTimeInterval: delay)
            if p.isRunning {
                kill(p.processIdentifier, SIGKILL)
                killedMidway += 1
            }
            p.waitUntilExit()
        }
        #expect(killedMidway > 0, "every run finished before its kill; the library is too small to test this")
        let final = try CLI.run(["prepare", lib])
        #expect(final.status == 0, "\(final.stderr)")
        #expect(try CLI.run(["prepare", lib, "--merge"]).status == 0)
        let leftovers = try PrepareLibrary.tree(lib).keys.filter { $0.contains(".tmp-") || $0.hasSuffix(".lock") || $0.contains(".stale-") }
        #expect(leftovers.isEmpty, "\(leftovers)")
        try PrepareLibrary.expectSameOutputs(s.file("reference"), lib)
    }

    @Test(arguments: [
        ["--stages", "bogus"], ["--shard", "4/3"], ["--merge", "--stages", "clear"], ["--export-formats", "pdf"],
        ["--export-formats", ""], ["--base-url", "ftp://example.org"],
    ])
    func badOptionsAreUsageErrors(_ extra: [String]) throws {
        let s = try Scratch()
        let r = try CLI.run(["prepare", s.path] + extra)
        #expect(r.status == 64, "\(r.stderr)")
        if extra.contains("pdf") { #expect(r.stderr.contains("unknown export format 'pdf'"), "\(r.stderr)") }
    }
}

final class ConcurrentResults: @unchecked Sendable {
    private var slots: [Result<CLIResult, any Error>?] = [nil, nil, nil]
    private let lock = NSLock()
    func set(_ i: Int, _ r: Result<CLIResult, any Error>) { lock.withLock { slots[i] = r } }
    var all: [Result<CLIResult, any Error>] { lock.withLock { slots.compactMap { $0 } } }
}
