import ArgumentParser
import BookModel
import ClearText
import Codecs
import Dispatch
import FileIO
import Foundation
import Geometry
import Preparation
import Raster

/// `picturebook clear`: every page with its printed text in-filled away.
struct Clear: ParsableCommand {
    /// The version of clearing's rules, at the head of every output's fingerprint and of the
    /// prepare stage's record: bumped when a rule changes what a page becomes.
    static let rulesVersion = "clear/12"

    static let configuration = CommandConfiguration(
        abstract: "Write every page with its text removed (in-filled), for re-typesetting.",
        discussion: """
            Reads BOOK_DIR/book.json, in-fills the text of every box on every page, and writes \
            DIR/<page-image-stem>.png (default BOOK_DIR/clear/). The text's ink is taken from \
            --mask-dir when a mask is there for the page (gray PNG named after the page, non-zero \
            on ink), otherwise estimated from each box. Pixels outside the dilated ink are left \
            exactly as decoded. Outputs already up to date (same source file, boxes and \
            parameters) are skipped; --force redoes them.

            Only what can be type is removed: within each box, mask shapes larger than a few \
            glyphs both ways (a dial, a figure) or longer than eight (a rule, a contour) stay. A \
            box that gives up much of its mask lies in a drawing: it is left exactly as scanned \
            and marked "needsReview": true in book.json (the reader then shows that page as the \
            scan, with PopoutText). So is a box whose text is still on the page after the fill \
            (the mask missed its letters, or took the art across them): a third or more of its \
            ink left, read against the detector's own mask; and a box whose fill made edges its \
            ground does not have (letters left in pieces, streaks, blotches); and a box whose \
            line runs on past its end (glyph-sized marks of its text's darkness just beyond the \
            ends of its lines: clearing it would leave half a word); and a box beside which a \
            line of its block lies in no box (a row of such marks across its lines: clearing it \
            would leave half the block); and a box whose fill would cut letters (a letter-sized \
            shape of the scan taken in part, with a piece a reader sees left: ascenders and \
            descenders past a tight box); and a box whose fill left its letters whole (5 % of \
            their ink, or a drop capital alone, read from the scan's own shapes). The \
            orientation in book.json \
            says which way a box's lines run. --report lists the boxes that need review, each \
            with the reason.

            Examples:
              picturebook clear Books/moon-rabbit
              picturebook clear corpus --out /tmp/cleared --fill-masks /tmp/masks --stats /tmp/times.jsonl
              picturebook clear scans/ --report
              picturebook clear scans/ --json
            """)

    @Argument(help: ArgumentHelp("The book folder.", valueName: "book-dir"), completion: .directory)
    var book: String

    @Option(help: "Output folder (default BOOK_DIR/clear).", completion: .directory)
    var out: String?

    @Option(help: "Folder of ink masks named after the pages (<stem>.png), default BOOK_DIR/masks as written by `picturebook analyze`; boxes with no ink in the mask (e.g. drawn by a librarian) get an estimate.", completion: .directory)
    var maskDir: String?

    @Flag(help: "Use the mask files alone, without the box estimate for ink they miss (to score the in-fill by itself).")
    var maskOnly = false

    @Option(help: "Also write the pixels that were replaced (255) as <stem>.png into this folder.", completion: .directory)
    var fillMasks: String?

    @Option(help: "Pixels the ink is grown by before filling (anti-aliasing, blur, JPEG ringing).")
    var dilation: Int = InFillParameters().dilation

    @Option(help: "auto, flat, gradient, structure or texture.")
    var method: String = "auto"

    @Option(help: "Pages processed at once (each page's in-fill is parallel too).")
    var jobs: Int = 2

    @Option(help: "Append one JSON line per page (timings in ms, methods) to this file.", completion: .file())
    var stats: String?

    @Flag(help: "Redo outputs even when they are up to date.")
    var force = false

    @Flag(help: "Print the run as JSON on stdout: pages cleared, up to date and failed, and every box left as scanned with its reason.")
    var json = false

    @Flag(help: "List the boxes left as scanned for a person to review, with the reason (on stdout, one a line).")
    var report = false

    @Option(name: .customLong("set"), help: ArgumentHelp("Override an in-fill, ink-estimate or fill-check parameter, NAME=VALUE (for tuning; see InFillParameters, InkMaskParameters, FillCheckParameters, GlyphFilterParameters; textLeft=0, edgesMade=0, runOn=0, lineBeside=0, cutLetters=0 and lettersLeft=0 turn the readings of the check after the fill off).", visibility: .hidden))
    var overrides: [String] = []

    /// The in-fill's, the ink estimate's and the fill check's parameters from the options, every
    /// `--set` applied; a bad value is a usage error.
    func parameters() throws -> (infill: InFillParameters, mask: InkMaskParameters, check: FillCheckParameters, glyph: GlyphFilterParameters) {
        var params = InFillParameters()
        params.dilation = dilation
        var mask = InkMaskParameters()
        var check = FillCheckParameters()
        var glyph = GlyphFilterParameters()
        try applyOverrides(overrides, known: "InFillParameters, InkMaskParameters, FillCheckParameters or GlyphFilterParameters") {
            params.set($0, to: $1) || mask.set($0, to: $1) || check.set($0, to: $1) || glyph.set($0, to: $1)
        }
        if method != "auto" {
            guard let m = FillMethod(rawValue: method) else {
                throw ValidationError("--method must be auto, flat, gradient, structure or texture, got '\(method)'")
            }
            params.method = m
        }
        do { try params.validate() } catch { throw ValidationError(error.description) }
        do { try check.validate() } catch { throw ValidationError(error.description) }
        return (params, mask, check, glyph)
    }

    func validate() throws {
        _ = try parameters()
        try validateJobs(jobs)
    }

    func run() throws {
        let (params, maskParams, checkParams, glyphParams) = try parameters()
        let job = try BookJob(book: book, out: out, defaultFolder: "clear", command: "clear")
        if let fillMasks { try BookJob.makeFolder(fillMasks, command: "clear") }
        let infill = InFill(params)
        let defaultMasks = BookDirectory.maskFolder(in: book)
        let maskDir = self.maskDir ?? (FileIO.isDirectory(defaultMasks) ? defaultMasks : nil)
        let fillMasks = self.fillMasks, force = self.force, maskOnly = self.maskOnly
        let statsLines = StatsSink(path: stats)
        let reviews = ReviewSink()
        let fingerprintBase = "\(Self.rulesVersion) \(params) mask=\(maskDir ?? "estimate")\(maskOnly ? " only" : "") \(maskParams) check: \(checkParams) glyphs: \(glyphParams.key)"

        let outcome = job.forEachPage(jobs: jobs) { page, source in
            let stem = BookJob.stem(page.image)
            let output = try FileIO.child(stem + ".png", of: job.outDir)
            let boxes = ClearingBoxes(page.textBoxes)
            let maskFile = maskDir.map { $0 + "/" + stem + ".png" }
            // The mask is an input too: re-running `analyze` must redo the page.
            let maskKey = maskFile.flatMap { FileIO.exists($0) ? BookJob.sourceKey($0) : nil } ?? "none"
            // The orientations and polarities are inputs too: the run-on check reads along each
            // box's lines, for ink of the box's polarity.
            let fingerprint = fingerprintBase + " " + BookJob.sourceKey(source) + " mask:" + maskKey + " " + boxes.key
            if !force, BookJob.isUpToDate(output, fingerprint: fingerprint), fillMasks.map({ FileIO.exists($0 + "/" + stem + ".png") }) ?? true {
                return .skipped
            }
            let image = try BookJob.decode(source)
            let result = try PageClearing.clear(
                page: image, boxes: boxes.rects, vertical: boxes.vertical, lightInk: boxes.lightInk, maskFile: maskFile, source: source, infill: infill, maskParameters: maskParams, fileOnly: maskOnly,
                glyphParameters: glyphParams, checkParameters: checkParams)
            let cleared = result.image, fill = result.fill, reports = result.regions
            if !maskOnly { reviews.set(page.image, result.glyphs.map(\.needsReview), reasons: result.reviewReasons) }
            try BookJob.writePNG(cleared, to: output)
            if let fillMasks { try BookJob.writePNG(fill, to: fillMasks + "/" + stem + ".png") }
            try BookJob.recordFingerprint(fingerprint, for: output)
            statsLines.append(PageStats(
                image: page.image, width: image.width, height: image.height, boxes: boxes.rects.count, mask: result.maskKind,
                maskMilliseconds: result.maskMilliseconds, infillMilliseconds: result.infillMilliseconds,
                filledPixels: reports.reduce(0) { $0 + $1.filledPixels },
                methods: reports.map(\.method.rawValue), textLeft: result.textLeft, edgesMade: result.edgesMade,
                smears: result.smears, runsOn: result.runsOn, lineBeside: result.lineBeside, cutLetters: result.cutLetters,
                lettersLeft: result.lettersLeft))
            return .written
        }
        try statsLines.flush()
        let flagged = try recordReviews(reviews.all, reasons: reviews.reasons, book: job)
        job.summarize(outcome, noun: "cleared")
        if flagged > 0 { Console.err("clear: \(flagged) box(es) left as scanned for review (--report lists them)") }
        if report || json {
            let entries = try ClearReport.entries(directory: job.directory, reasons: reviews.reasons)
            if json {
                try Console.json(ClearReport(
                    book: job.directory, out: job.outDir, cleared: outcome.written, upToDate: outcome.skipped, failed: outcome.failed,
                    review: entries))
            } else {
                for e in entries { print(e.line) }
            }
        }
        if outcome.failed > 0 { throw ExitCode.failure }
    }

    /// Writes this run's verdicts into book.json: `needsReview` and its `reviewReason` set on the
    /// boxes left as scanned and cleared on the others of every page cleared now (pages skipped as
    /// up to date keep theirs). Returns how many boxes of the whole book need review.
    private func recordReviews(_ verdicts: [String: [Bool]], reasons: [String: [ReviewReason?]], book job: BookJob) throws -> Int {
        guard !verdicts.isEmpty else { return job.book.pages.reduce(0) { $0 + $1.textBoxes.filter(\.needsReview).count } }
        var model: Book
        do { model = try Book.load(directory: job.directory).book } catch {
            Console.error("clear: \(error)")
            throw ExitCode.failure
        }
        var changed = false
        for i in model.pages.indices {
            guard let flags = verdicts[model.pages[i].image], flags.count == model.pages[i].textBoxes.count else { continue }
            let why = reasons[model.pages[i].image] ?? []
            for (j, flag) in flags.enumerated() {
                let reason = flag && j < why.count ? why[j] : nil
                guard model.pages[i].textBoxes[j].needsReview != flag || model.pages[i].textBoxes[j].reviewReason != reason else { continue }
                model.pages[i].textBoxes[j].needsReview = flag
                model.pages[i].textBoxes[j].reviewReason = reason
                changed = true
            }
        }
        if changed {
            do { try model.save(directory: job.directory) } catch {
                Console.error("clear: \(error)")
                throw ExitCode.failure
            }
        }
        return model.pages.reduce(0) { $0 + $1.textBoxes.filter(\.needsReview).count }
    }

}

struct PageStats: Encodable {
    var image: String
    var width: Int
    var height: Int
    var boxes: Int
    var mask: String
    var maskMilliseconds: Double
    var infillMilliseconds: Double
    var filledPixels: Int
    var methods: [String]
    /// Per box, the readings of the check after the fill (null where a box gave none).
    var textLeft: [Double?]
    var edgesMade: [Double?]
    var smears: [Double?]
    var runsOn: [Double?]
    var lineBeside: [Double?]
    var cutLetters: [Double?]
    var lettersLeft: [Double?]
}

/// Per page image, which boxes `clear` left as scanned; filled from worker threads.
final class ReviewSink: @unchecked Sendable {
    private var verdicts: [String: [Bool]] = [:]
    private var why: [String: [ReviewReason?]] = [:]
    private let lock = NSLock()
    func set(_ image: String, _ flags: [Bool], reasons: [ReviewReason?]) { lock.withLock { verdicts[image] = flags; why[image] = reasons } }
    var all: [String: [Bool]] { lock.withLock { verdicts } }
    var reasons: [String: [ReviewReason?]] { lock.withLock { why } }
}

/// Collects JSON lines from worker threads; written once at the end (appended).
final class StatsSink: @unchecked Sendable {
    private let path: String?
    private var lines: [String] = []
    private let lock = NSLock()

    init(path: String?) { self.path = path }

    func append(_ value: some Encodable) {
        guard path != nil else { return }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        guard let data = try? encoder.encode(value), let line = String(data: data, encoding: .utf8) else { return }
        lock.withLock { lines.append(line) }
    }

    func flush() throws {
        guard let path, !lines.isEmpty else { return }
        var existing: [UInt8] = FileIO.exists(path) ? ((try? FileIO.read(path)) ?? []) : []
        existing += Array((lines.joined(separator: "\n") + "\n").utf8)
        do { try AtomicFile.write(existing, to: path) } catch {
            Console.error("cannot write stats to \(path): \(error)")
            throw ExitCode.failure
        }
    }
}

/// What page commands share: the book, the output folder, skipping up-to-date outputs, running
/// pages on both cores with a progress bar, and reporting failures per page.
struct BookJob: Sendable {
    enum PageResult: Sendable { case written, skipped }
    struct Outcome { var written = 0, skipped = 0, failed = 0 }

    let directory: String
    let book: Book
    let outDir: String
    let command: String

    init(book operand: String, out: String?, defaultFolder: String, command: String) throws {
        guard FileIO.exists(operand) else {
            Console.error("\(command): \(operand): no such book folder")
            throw ExitCode.failure
        }
        let (directory, _) = BookDirectory.resolve(operand)
        // A bare folder of scans is the usual first try: say which command makes it a book.
        guard BookDirectory.containsBook(directory) else {
            Console.error("\(command): \(operand): not a book folder: there is no \(BookDirectory.manifestName) in it; "
                          + "`picturebook analyze \(operand)` finds the text on the scans and writes one")
            throw ExitCode.failure
        }
        do {
            self.book = try Book.load(directory: directory).book
        } catch {
            Console.error("\(command): \(error)")
            throw ExitCode.failure
        }
        self.directory = directory
        self.outDir = out ?? (directory + "/" + defaultFolder)
        self.command = command
        // The book's own folder is untrusted data; a folder the user named is theirs to follow.
        try Self.makeFolder(outDir, command: command, ownedByBook: out == nil)
    }

    static func makeFolder(_ path: String, command: String, ownedByBook: Bool = false) throws {
        do { try ownedByBook ? FileIO.createOwnedDirectory(path) : FileIO.createDirectory(path) } catch {
            Console.error("\(command): cannot create \(path): \(error)")
            throw ExitCode.failure
        }
        // What a killed run left half-written is never an output; clear it away.
        AtomicFile.removeStale(in: path)
    }

    static func stem(_ image: String) -> String { BookDirectory.stem(of: image) }

    /// Identifies the source file's version: its size and modification time.
    static func sourceKey(_ path: String) -> String { SourceKey.of(path) }

    /// The fingerprint of an output lives beside it in a hidden file, written after the output,
    /// so an interrupted run never leaves a stale output looking current.
    static func fingerprintPath(_ output: String) -> String {
        let dir = output.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/")
        let name = output.split(separator: "/").last.map(String.init) ?? output
        return (dir.isEmpty ? "." : dir) + "/." + name + ".key"
    }

    /// Up to date when the record's fingerprint matches and the output is still the file that was
    /// recorded: same size and the same last bytes (a truncated or replaced output is redone, not
    /// trusted), checked without reading the whole file.
    static func isUpToDate(_ output: String, fingerprint: String) -> Bool {
        guard let bytes = try? FileIO.read(fingerprintPath(output)), let seal = outputSeal(output) else { return false }
        return String(decoding: bytes, as: UTF8.self) == fingerprint + "\n" + seal
    }

    static func recordFingerprint(_ fingerprint: String, for output: String) throws {
        guard let seal = outputSeal(output) else { throw FileError.readFailed(path: output, reason: "the output just written is gone") }
        try AtomicFile.write(Array((fingerprint + "\n" + seal).utf8), to: fingerprintPath(output))
    }

    /// The output's size and an FNV-1a hash of its last 4 KiB.
    static func outputSeal(_ path: String) -> String? {
        guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
        defer { try? handle.close() }
        guard let size = try? handle.seekToEnd() else { return nil }
        try? handle.seek(toOffset: size > 4096 ? size - 4096 : 0)
        let tail = (try? handle.readToEnd()) ?? Data()
        var h: UInt64 = 0xCBF2_9CE4_8422_2325
        for b in tail { h = (h ^ UInt64(b)) &* 0x0000_0100_0000_01B3 }
        return "size=\(size) tail=\(String(h, radix: 16))"
    }

    static func decode(_ path: String) throws -> Bitmap<RGBA8> { try ImageDecoder.decode(file: path) }
    static func decodeGray(_ path: String) throws -> Bitmap<UInt8> { try ImageDecoder.decodeGray(file: path) }
    static func writePNG(_ image: Bitmap<RGBA8>, to path: String) throws { try PNGEncoder.write(image, to: path, options: .fast) }
    static func writePNG(_ image: Bitmap<UInt8>, to path: String) throws { try PNGEncoder.write(image, to: path, options: .fast) }

    /// Runs `body` for every page, `jobs` at a time, with a progress bar; a failing page is
    /// reported and the others go on.
    func forEachPage(jobs: Int, _ body: @escaping @Sendable (Page, String) throws -> PageResult) -> Outcome {
        let pages = book.pages
        let progress = Progress(command, total: pages.count)
        let lock = NSLock()
        nonisolated(unsafe) var outcome = Outcome()
        let next = ManagedCounter()
        let directory = self.directory, command = self.command
        DispatchQueue.concurrentPerform(iterations: min(max(1, jobs), max(1, pages.count))) { _ in
            while let i = next.take(below: pages.count) {
                let page = pages[i]
                let source = BookDirectory.imagePath(of: page, in: directory)
                do {
                    let r = try body(page, source)
                    lock.withLock { if r == .written { outcome.written += 1 } else { outcome.skipped += 1 } }
                } catch {
                    Console.error("\(command): \(source): \(error)")
                    lock.withLock { outcome.failed += 1 }
                }
                progress.advance(page.image)
            }
        }
        progress.finish()
        return lock.withLock { outcome }
    }

    func summarize(_ o: Outcome, noun: String) {
        Console.err("\(command): \(o.written) \(noun), \(o.skipped) up to date, \(o.failed) failed → \(outDir)")
    }
}

/// Hands out indices 0, 1, 2 … to worker threads.
final class ManagedCounter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func take(below limit: Int) -> Int? {
        lock.withLock {
            guard value < limit else { return nil }
            defer { value += 1 }
            return value
        }
    }
}
