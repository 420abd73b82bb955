import ArgumentParser
import BookModel
import Codecs
import FileIO
import Foundation
import OCR
import Raster

/// `picturebook ocr`: read the printed text of every box into book.json.
struct OCRCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ocr",
        abstract: "Read the printed text of every text box into book.json (Tesseract).",
        discussion: """
            For each text box, reads the box on the scan in the box's printed language (its \
            "language", else the book's first language), honouring its orientation (vertical \
            Chinese and Japanese use Tesseract's vertical models) and polarity, and writes \
            text[language] with "textSources": {language: {"source": "ocr", "confidence": …}}.

            Text a person entered (any text without an "ocr" record) is never overwritten. Boxes \
            that already have text are skipped, so an interrupted run resumes where it stopped \
            (book.json is saved every few seconds); --force reads again the boxes whose text came \
            from OCR. Languages without an OCR model (Mongolian in the traditional script) are \
            reported and left for a person to type. Models come from the Debian packages \
            tesseract-ocr-<lang> (Tools/setup.sh installs those the sample books need).

            Exit status: 0 when every box that could be read was read, 1 when a page failed or a \
            model is missing, 64 for a wrong command line.

            Examples:
              picturebook ocr Books/lighthouse-cat
              picturebook ocr scans/ --languages en,fr --json
            """)

    @Argument(help: ArgumentHelp("The book folder.", valueName: "book-dir"), completion: .directory)
    var book: String

    @Option(help: ArgumentHelp("Only boxes printed in these languages (comma-separated BCP 47 tags).", valueName: "tags"))
    var languages: String?

    @Flag(help: "Print what was read (and per-page timings) as JSON on stdout.")
    var json = false

    @Flag(help: "Read again boxes whose text came from OCR (a person's text is still never touched).")
    var force = false

    @Flag(name: .customLong("dry-run"), help: "Do not write book.json.")
    var dryRun = false

    @Option(help: "Pages read at once; each worker has its own Tesseract engine.")
    var jobs: Int = 2

    @Option(help: ArgumentHelp("Folder of Tesseract .traineddata models (default: TESSDATA_PREFIX, then the system's).", valueName: "dir"), completion: .directory)
    var tessdata: String?

    @Option(name: .customLong("debug-crops"), help: ArgumentHelp("Write each box as Tesseract sees it (<page>-<box>.png) into this folder.", visibility: .hidden))
    var debugCrops: String?

    func validate() throws {
        try validateJobs(jobs)
        if let languages, parsedLanguages(languages).isEmpty {
            throw ValidationError("--languages expects comma-separated language tags like en,fr, got '\(languages)'")
        }
    }

    private func parsedLanguages(_ s: String) -> [String] {
        s.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    func run() async throws {
        // Tesseract parallelises inside one recognition with OpenMP; on top of one engine per
        // core that only adds thread contention, so each engine keeps to one thread unless the
        // user asked otherwise.
        if ProcessInfo.processInfo.environment["OMP_THREAD_LIMIT"] == nil { setenv("OMP_THREAD_LIMIT", "1", 1) }
        guard FileIO.exists(book) else {
            Console.error("ocr: \(book): no such book folder")
            throw ExitCode.failure
        }
        let (directory, _) = BookDirectory.resolve(book)
        guard BookDirectory.containsBook(directory) else {
            Console.error("ocr: \(book): not a book folder: there is no \(BookDirectory.manifestName) in it; `picturebook analyze \(book)` finds the text boxes and writes one")
            throw ExitCode.failure
        }
        let model: Book
        do { model = try Book.load(directory: directory).book } catch {
            Console.error("ocr: \(error)")
            throw ExitCode.failure
        }

        let plan = OCRPlan.make(book: model, only: languages.map(parsedLanguages), force: force, tessdata: tessdata)
        for u in plan.unsupported {
            Console.warning("ocr: \(u.boxes) box(es) in \"\(u.language)\" left for a person: \(OCRError.unsupportedLanguage(u.language))")
        }
        for m in plan.missingModels { Console.error("ocr: \(m.error) (\(m.boxes) box(es) not read)") }

        let progress = Progress("ocr", total: plan.pages.count, enabled: !json)
        let writer = OCRWriter(directory: directory, dryRun: dryRun)
        let queue = WorkQueue(count: plan.pages.count)
        let pages = plan.pages, tessdata = self.tessdata, debugCrops = self.debugCrops
        if let debugCrops { try BookJob.makeFolder(debugCrops, command: "ocr") }
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<min(jobs, max(1, pages.count)) {
                group.addTask {
                    // Tesseract handles are not thread-safe: each worker owns its engine.
                    let engine = OCREngine(dataPath: tessdata)
                    while let i = await queue.next() {
                        let outcome = OCRPlan.read(pages[i], in: directory, engine: engine, debugCrops: debugCrops)
                        if let failure = outcome.failure { Console.error("ocr: \(failure)") }
                        await writer.add(outcome)
                        progress.advance(pages[i].image)
                    }
                }
            }
        }
        progress.finish()
        let summary = await writer.finish()
        if let saveError = summary.saveError { Console.error("ocr: \(saveError)") }

        if json {
            try Console.json(OCRReport(
                book: directory, tesseract: OCREngine.tesseractVersion, pagesRead: summary.pages, boxesRead: summary.results.count,
                boxesKept: summary.kept, boxesAlreadyDone: plan.alreadyDone, failedPages: summary.failures,
                unsupported: plan.unsupported, missingModels: plan.missingModels.map { .init(language: $0.language, model: $0.model, boxes: $0.boxes) },
                results: summary.results, pageTimings: summary.timings))
        }
        let meanConfidence = summary.results.isEmpty ? 0 : summary.results.map(\.confidence).reduce(0, +) / Double(summary.results.count)
        Console.err(
            "ocr: \(summary.results.count) box(es) read on \(summary.pages) page(s) (mean confidence \(String(format: "%.2f", meanConfidence))), "
                + "\(plan.alreadyDone) already had text, \(summary.kept) kept a person's text, \(summary.failures.count) page(s) failed"
                + (dryRun ? " (dry run: book.json not written)" : " → \(BookDirectory.manifestPath(in: directory))"))
        if !summary.failures.isEmpty || !plan.missingModels.isEmpty || summary.saveError != nil { throw ExitCode.failure }
    }
}

/// Hands out page indices to the workers.
actor WorkQueue {
    private var nextIndex = 0
    private let count: Int
    init(count: Int) { self.count = count }
    func next() -> Int? {
        guard nextIndex < count else { return nil }
        defer { nextIndex += 1 }
        return nextIndex
    }
}

/// Collects what the workers read and writes it into book.json every few seconds and at the end.
/// Each save reloads book.json and re-checks every box, so text a person typed while the run was
/// going (in the editor, say) is still never overwritten, and boxes deleted meanwhile are skipped.
actor OCRWriter {
    struct Summary {
        var pages = 0
        var kept = 0
        var results: [OCRReport.Box] = []
        var failures: [String] = []
        var timings: [OCRReport.Timing] = []
        var saveError: String?
    }

    private let directory: String
    private let dryRun: Bool
    private var pending: [OCRPlan.BoxResult] = []
    private var summary = Summary()
    private var lastSave = Date()

    init(directory: String, dryRun: Bool) {
        self.directory = directory
        self.dryRun = dryRun
    }

    func add(_ outcome: OCRPlan.PageOutcome) {
        summary.pages += 1
        if let failure = outcome.failure { summary.failures.append(failure) }
        summary.timings.append(.init(image: outcome.image, milliseconds: outcome.milliseconds, boxes: outcome.results.count))
        pending += outcome.results
        if Date().timeIntervalSince(lastSave) > 3 { flush() }
    }

    func finish() -> Summary {
        flush()
        summary.timings.sort { $0.image < $1.image }
        return summary
    }

    private enum Applied { case written, kept, gone }

    /// Writes one result into the book unless the box is gone or its text is now a person's.
    private static func apply(_ r: OCRPlan.BoxResult, to book: inout Book?) -> Applied {
        // By position first (two pages may share a scan), by scan if pages moved meanwhile.
        let atIndex = book?.pages.indices.contains(r.pageIndex) == true && book?.pages[r.pageIndex].image == r.image ? r.pageIndex : nil
        guard let p = atIndex ?? book?.pages.firstIndex(where: { $0.image == r.image }),
              let j = book?.pages[p].textBoxes.firstIndex(where: { $0.id == r.box })
        else { return .gone }
        guard book?.pages[p].textBoxes[j].textIsReplaceableByOCR(r.language) == true else { return .kept }
        book?.pages[p].textBoxes[j].text[r.language] = r.text
        // Three decimals: the confidence is a hint for the reviewer, not a measurement.
        book?.pages[p].textBoxes[j].textSources[r.language] = TextOrigin(source: .ocr, confidence: (r.confidence * 1000).rounded() / 1000)
        return .written
    }

    private func flush() {
        lastSave = Date()
        guard !pending.isEmpty else { return }
        let batch = pending
        pending = []
        var book: Book? = nil
        if !dryRun {
            do { book = try Book.load(directory: directory).book } catch {
                summary.saveError = "cannot re-read book.json to save what was read: \(error)"
                return
            }
        }
        for r in batch {
            if book != nil {
                switch Self.apply(r, to: &book) {
                case .written: break
                case .kept:
                    summary.kept += 1
                    continue
                case .gone: continue
                }
            }
            summary.results.append(r)
        }
        if let book {
            do { try book.save(directory: directory) } catch { summary.saveError = "\(error)" }
        }
    }
}

/// What `--json` prints.
struct OCRReport: Encodable {
    /// One box read (its page index stays out of the JSON: `image` names the page).
    typealias Box = OCRPlan.BoxResult
    struct Timing: Encodable {
        var image: String
        var milliseconds: Double
        var boxes: Int
    }
    struct Missing: Encodable {
        var language: String
        var model: String
        var boxes: Int
    }

    var book: String
    var tesseract: String
    var pagesRead: Int
    var boxesRead: Int
    var boxesKept: Int
    var boxesAlreadyDone: Int
    var failedPages: [String]
    var unsupported: [OCRPlan.Unsupported]
    var missingModels: [Missing]
    var results: [Box]
    var pageTimings: [Timing]
}
