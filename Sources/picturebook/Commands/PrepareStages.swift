// The stages `prepare` runs, handed to the Library module as values. Each runs the very command a
// user would run by hand, in this process (parsed from the same arguments, so the defaults and
// checks are the same), with its messages captured for the book's report.

import ArgumentParser
import BookModel
import ClearText
import FileIO
import Foundation
import Library
import PageAnalysis
import Thumbnails

enum PrepareStages {
    /// In pipeline order.
    static let available = ["analyze", "clear", "popout", "thumbs"]
    /// Stages of the pipeline this build does not have yet: named so asking for one gets a clear
    /// answer instead of "unknown stage".
    static let notBuilt = ["ocr", "export"]

    /// The named stages, in pipeline order whatever order they were given in.
    static func make(_ names: [String], thumbsOut: String, jobs: Int) -> [LibraryStage] {
        available.filter(names.contains).map { name in
            switch name {
            case "analyze": return analyze(jobs: jobs)
            case "clear": return clear(jobs: jobs)
            case "popout": return popout(jobs: jobs)
            default: return thumbs(out: thumbsOut)
            }
        }
    }

    static func analyze(jobs: Int) -> LibraryStage {
        LibraryStage(
            name: "analyze", version: "analyze/1 \(AnalysisParameters()) language=en", readsManifest: false,
            outputFolders: { [BookDirectory.maskFolder(in: $0.directory)] }
        ) { request in
            // Analyze has no up-to-date check of its own: the stage record is what skips it.
            try runCommand(Analyze.self, ["--jobs", String(jobs), "--", request.book.directory])
            return StageResult(pages: pageCount(request.book))
        }
    }

    static func clear(jobs: Int) -> LibraryStage {
        LibraryStage(
            name: "clear", version: "clear/2 \(InFillParameters()) \(InkMaskParameters())", readsManifest: true,
            inputFolders: ["masks"], outputFolders: { [$0.directory + "/clear"] }
        ) { request in
            // `redo` after a run killed inside this stage: pages cleared before the kill are current
            // by their own records, but their review marks never reached book.json.
            try runCommand(Clear.self, ["--jobs", String(jobs)] + (request.redo ? ["--force"] : []) + ["--", request.book.directory])
            return StageResult(pages: pageCount(request.book))
        }
    }

    static func popout(jobs: Int) -> LibraryStage {
        LibraryStage(
            name: "popout", version: "popout/1 \(PopoutParameters())", readsManifest: true, outputFolders: { [$0.directory + "/popout"] }
        ) { request in
            try runCommand(Popout.self, ["--jobs", String(jobs)] + (request.redo ? ["--force"] : []) + ["--", request.book.directory])
            return StageResult(pages: pageCount(request.book))
        }
    }

    static func thumbs(out: String) -> LibraryStage {
        let parameters = ThumbnailParameters()
        return LibraryStage(
            name: "thumbs", version: "thumbs \(parameters.fingerprint) out=\(out)", readsManifest: true,
            outputFolders: { book in [out + "/" + book.key] }
        ) { request in
            // Two pages in flight: one book at a time, and prepare's memory budget is one stage's.
            let runner = ThumbnailRunner(parameters: parameters, outputDirectory: out, workers: 2, force: request.redo)
            let summary: ThumbnailSummary
            do { summary = try runner.run([request.book.source], library: false) } catch { throw StageFailure("\(error)") }
            if !summary.failures.isEmpty {
                throw StageFailure(summary.failures.map { "\($0.file): \($0.message)" }.joined(separator: "; "))
            }
            return StageResult(pages: pageCount(request.book))
        }
    }

    static func pageCount(_ book: LibraryBook) -> Int {
        (try? Book.decode(FileIO.read(BookDirectory.manifestPath(in: book.directory), limit: BookDirectory.manifestSizeLimit)).book.pages.count) ?? 0
    }

    /// Parses and runs a subcommand here, its stderr messages collected; a failure becomes a
    /// `StageFailure` carrying its error lines (which name the files).
    static func runCommand<C: ParsableCommand>(_ command: C.Type, _ arguments: [String]) throws {
        let sink = LineSink()
        Console.capture = { sink.append($0) }
        defer { Console.capture = nil }
        do {
            var parsed = try C.parse(arguments)
            try parsed.run()
        } catch {
            let prefix = "picturebook: error: "
            let errors = sink.lines.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
            if !errors.isEmpty { throw StageFailure(errors.joined(separator: "; ")) }
            if error is ExitCode { throw StageFailure(sink.lines.last ?? "the stage failed") }
            throw StageFailure(C.message(for: error))
        }
    }
}

final class LineSink: @unchecked Sendable {
    private var stored: [String] = []
    private let lock = NSLock()
    func append(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}
