// The stages `prepare` runs, handed to the Library module as values. Each runs the very command a
// user would run by hand, in this process (parsed from the same arguments, so the defaults and
// checks are the same), with its messages captured for the book's report.

import ArgumentParser
import BookModel
import ClearText
import FileIO
import Foundation
import Library
import OCR
import PageAnalysis
import Thumbnails

/// What `prepare` passes on to the ocr and export stages.
struct PrepareOptions {
    var jobs = 2
    var thumbsOut: String
    var tessdata: String?
    /// Export formats, written to BOOK/export/.
    var exportFormats: [String] = PrepareStages.defaultExportFormats
    /// The URL the library folder is published at (each book's IIIF ids start with it + its path).
    var baseURL: String?
}

enum PrepareStages {
    /// In pipeline order. ocr comes after clear although it reads the scans, not the cleared
    /// images: clear rewrites book.json (review marks), which would make ocr's record stale on
    /// every other run if ocr came first; nothing in clear needs the text.
    static let available = ["analyze", "clear", "ocr", "popout", "thumbs", "export"]
    static let exportFormats = ["iiif", "alto", "hocr", "cbz", "epub"]
    static let defaultExportFormats = ["iiif", "alto"]

    /// The named stages, in pipeline order whatever order they were given in.
    static func make(_ names: [String], options: PrepareOptions) -> [LibraryStage] {
        available.filter(names.contains).map { name in
            switch name {
            case "analyze": return analyze(jobs: options.jobs)
            case "clear": return clear(jobs: options.jobs)
            case "ocr": return ocr(jobs: options.jobs, tessdata: options.tessdata)
            case "popout": return popout(jobs: options.jobs)
            case "export": return export(formats: options.exportFormats, baseURL: options.baseURL)
            default: return thumbs(out: options.thumbsOut)
            }
        }
    }

    /// The Tesseract models that can be found, as "folder/name": part of ocr's version, so
    /// installing a model a book was missing redoes ocr on every book (the others find their
    /// boxes read already and are quick).
    static func installedModels(tessdata: String?) -> [String] {
        OCREngine.candidateDataPaths(explicit: tessdata).flatMap { dir in
            ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { $0.hasSuffix(".traineddata") }.map { dir + "/" + $0 }
        }.sorted()
    }

    static func ocr(jobs: Int, tessdata: String?) -> LibraryStage {
        let models = installedModels(tessdata: tessdata)
        return LibraryStage(
            name: "ocr", version: "ocr/1 tesseract=\(OCREngine.tesseractVersion) models=\(models.joined(separator: ","))",
            // It only adds recognised text to book.json, which clear (before it) does not read.
            readsManifest: true, keepsEarlierRecords: true, outputFolders: { _ in [] }
        ) { request in
            let directory = request.book.directory
            let book: Book
            do { book = try Book.load(directory: directory).book } catch { throw StageFailure("\(error)") }
            // A box whose language has no model installed is not an error of the book: the
            // stage reads the others and says what it left (the run's report carries the note).
            let plan = OCRPlan.make(book: book, only: nil, force: false, tessdata: tessdata)
            var left: [String] = plan.missingModels.map {
                "\($0.boxes) box(es) in \($0.language): no Tesseract model \($0.model).traineddata (\($0.error))"
            }
            left += plan.unsupported.map { "\($0.boxes) box(es) in \($0.language): no OCR model exists for it" }
            if !plan.pages.isEmpty {
                let readable = Set(plan.pages.flatMap { $0.boxes.map(\.region.language) }).sorted()
                try runCommand(
                    OCRCommand.self,
                    ["--jobs", String(jobs), "--languages", readable.joined(separator: ",")] + (tessdata.map { ["--tessdata", $0] } ?? [])
                        + ["--", directory])
            }
            return StageResult(pages: book.pages.count, note: left.isEmpty ? nil : "ocr left unread: " + left.joined(separator: "; "))
        }
    }

    /// The book's export folder and what goes in it.
    static func exportFolder(_ book: LibraryBook) -> String { book.directory + "/export" }

    static func exportTargetIsFolder(_ format: String) -> Bool { !["iiif", "cbz", "epub"].contains(format) }

    static func exportTarget(_ format: String, in folder: String) -> String {
        switch format {
        case "iiif": return folder + "/manifest.json"
        case "cbz": return folder + "/book.cbz"
        case "epub": return folder + "/book.epub"
        default: return folder + "/" + format
        }
    }

    /// The URL a book folder is published at: the library's URL and the book's path in it, or
    /// where `picturebook serve` publishes it (by folder name) when no URL is given.
    static func bookURL(_ book: LibraryBook, baseURL: String?) -> String {
        let allowed = CharacterSet.urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))
        func encode(_ s: Substring) -> String { String(s).addingPercentEncoding(withAllowedCharacters: allowed) ?? "book" }
        guard var base = baseURL else {
            return "http://localhost:8080/iiif/" + encode(Substring(book.directory.split(separator: "/").last ?? "book"))
        }
        while base.hasSuffix("/") { base.removeLast() }
        return base + "/" + book.name.split(separator: "/").map(encode).joined(separator: "/")
    }

    static func export(formats: [String], baseURL: String?) -> LibraryStage {
        LibraryStage(
            name: "export", version: "export/1 formats=\(formats.joined(separator: ",")) base=\(baseURL ?? "-")",
            readsManifest: true, inputFolders: formats.contains("epub") ? ["clear"] : [],
            // ALTO and hOCR are folders of their own: a run killed while writing them leaves its
            // temp files there, so they are output folders too (cleared under the lock; the
            // kill -9 soak found one left in export/alto/).
            outputFolders: { book in
                [exportFolder(book)] + formats.filter(exportTargetIsFolder).map { exportTarget($0, in: exportFolder(book)) }
            }
        ) { request in
            let folder = exportFolder(request.book)
            do { try FileIO.createDirectory(folder) } catch { throw StageFailure("\(error)") }
            for format in formats {
                var arguments = ["--format", format, "--out", exportTarget(format, in: folder)]
                if format == "iiif" { arguments += ["--base-url", bookURL(request.book, baseURL: baseURL)] }
                try runCommand(Export.self, arguments + ["--", request.book.directory])
            }
            return StageResult(pages: pageCount(request.book))
        }
    }

    static func analyze(jobs: Int) -> LibraryStage {
        LibraryStage(
            name: "analyze", version: "analyze/3 \(AnalysisParameters()) \(DetectorChoice.autoIdentity()) language=en", readsManifest: false,
            outputFolders: { [BookDirectory.maskFolder(in: $0.directory)] }
        ) { request in
            // Analyze has no up-to-date check of its own: the stage record is what skips it.
            try runCommand(Analyze.self, ["--jobs", String(jobs), "--", request.book.directory])
            return StageResult(pages: pageCount(request.book))
        }
    }

    static func clear(jobs: Int) -> LibraryStage {
        LibraryStage(
            name: "clear", version: "\(Clear.rulesVersion) \(InFillParameters()) \(InkMaskParameters()) \(FillCheckParameters())", readsManifest: true,
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
            if let asyncCommand = parsed as? any AsyncParsableCommand {
                let box = AsyncCommandBox(asyncCommand)
                try runBlocking { try await box.run() }
            } else {
                try parsed.run()
            }
        } catch {
            let prefix = "picturebook: error: "
            let errors = sink.lines.filter { $0.hasPrefix(prefix) }.map { String($0.dropFirst(prefix.count)) }
            if !errors.isEmpty { throw StageFailure(errors.joined(separator: "; ")) }
            if error is ExitCode { throw StageFailure(sink.lines.last ?? "the stage failed") }
            throw StageFailure(C.message(for: error))
        }
    }
}

/// Runs an async command to its end from prepare's synchronous loop (one book at a time; the
/// calling thread just waits, the work runs on the concurrency pool).
func runBlocking(_ body: @escaping @Sendable () async throws -> Void) throws {
    let done = DispatchSemaphore(value: 0)
    let outcome = OutcomeBox()
    Task.detached {
        do { try await body() } catch { outcome.error = error }
        done.signal()
    }
    done.wait()
    if let error = outcome.error { throw error }
}

final class OutcomeBox: @unchecked Sendable {
    var error: (any Error)?
}

/// Carries a parsed async command into the task that runs it (it is used by that task alone).
final class AsyncCommandBox: @unchecked Sendable {
    var command: any AsyncParsableCommand
    init(_ command: any AsyncParsableCommand) { self.command = command }
    func run() async throws { try await command.run() }
}

final class LineSink: @unchecked Sendable {
    private var stored: [String] = []
    private let lock = NSLock()
    func append(_ line: String) { lock.withLock { stored.append(line) } }
    var lines: [String] { lock.withLock { stored } }
}
