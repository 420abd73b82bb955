import ArgumentParser
import BookModel
import FileIO
import Codecs
import Dispatch
import Foundation
import Geometry
import PageAnalysis
import Raster
import TextDetection

/// `picturebook analyze`: find the text blocks on every page scan and record them in book.json.
struct Analyze: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Detect the text blocks on every page scan and record them in book.json.",
        discussion: """
            BOOK-DIR holds page scans (PNG, JPEG, TIFF or JPEG 2000) and maybe a book.json. Without one, a book is \
            made from the scans in natural order (p2 before p10). Detected boxes are written with \
            source "detected"; boxes and text a librarian entered are kept. A page that already \
            carries a librarian's box counts as reviewed: analyze adds nothing there (so a false \
            detection the librarian deleted does not come back) unless --include-reviewed is given, \
            and then a detection overlapping a librarian box is dropped in its favour. Re-running \
            replaces earlier detections on unreviewed pages; --replace discards every old box.

            Examples:
              picturebook analyze Books/salmas-red-kite
              picturebook analyze scans/ --json --dry-run | jq '.pages[].detected | length'
            """)

    @Argument(help: ArgumentHelp("Book folder (scans, maybe a book.json).", valueName: "book-dir"), completion: .directory)
    var book: String

    @Flag(help: "Print the detected boxes (and per-page timings) as JSON on stdout.")
    var json = false

    @Flag(help: "Discard every existing text box, librarian-entered ones included.")
    var replace = false

    @Flag(name: .customLong("include-reviewed"), help: "Also add detections on pages that already have a librarian's boxes.")
    var includeReviewed = false

    @Flag(name: .customLong("dry-run"), help: "Do not write book.json.")
    var dryRun = false

    @Option(help: "Pages analysed at once (each page also splits its own work across the cores).")
    var jobs: Int = 2

    @Option(help: "Language of the printed text, for a book.json made from a bare folder (a book's own book.json says it otherwise). In a Latin-script language every block must also read as text to the learned recogniser.")
    var language: String = "en"

    @Option(help: ArgumentHelp("Also write each page with its detected boxes and ink mask drawn on it, as JPEG, into this folder.", valueName: "dir"))
    var draw: String?

    @Option(help: ArgumentHelp("Folder for each page's ink mask (<page-stem>.png), which `picturebook clear` uses instead of estimating its own (default BOOK_DIR/masks).", valueName: "dir"))
    var masks: String?

    @Flag(name: .customLong("no-masks"), help: "Do not write ink masks.")
    var noMasks = false

    @Option(help: ArgumentHelp("""
        Which detector finds the text: learned (a DBNet line detector run through ONNX Runtime; \
        install it with Tools/setup.sh --detector, or point PICTUREBOOK_DETECTOR_DIR at a folder \
        holding libonnxruntime.so and text-detector.onnx), classical (Picturebook's own, no model), \
        or auto (learned when installed, else classical).
        """, valueName: "auto|learned|classical"))
    var detector: DetectorChoice = .auto

    @Option(name: .customLong("set"), help: ArgumentHelp("Override a detector parameter, NAME=VALUE (for tuning; see AnalysisParameters).", visibility: .hidden))
    var overrides: [String] = []

    /// The detector's parameters with every `--set` applied; a bad override is a usage error.
    func analysisParameters() throws -> AnalysisParameters {
        var parameters = AnalysisParameters()
        // Names without a group's prefix are AnalysisParameters'.
        let grouped = ["learned.", "group.", "read.", "spread."]
        try applyOverrides(overrides.filter { o in !grouped.contains { o.hasPrefix($0) } }, known: "AnalysisParameters") { parameters.set($0, to: $1) }
        return parameters
    }

    /// The learned detector's and the line grouping's parameters with `--set learned.NAME=…` and
    /// `--set group.NAME=…` applied.
    func learnedParameters() throws -> (LearnedDetectorParameters, LineGrouping) {
        var learned = LearnedDetectorParameters(), grouping = LineGrouping()
        try applyOverrides(overrides.filter { $0.hasPrefix("learned.") }, known: "LearnedDetectorParameters") { learned.set(String($0.dropFirst(8)), to: $1) }
        try applyOverrides(overrides.filter { $0.hasPrefix("group.") }, known: "LineGrouping") { grouping.set(String($0.dropFirst(6)), to: $1) }
        return (learned, grouping)
    }

    /// The reading check's settings with `--set read.NAME=…` applied.
    func readingCheck() throws -> ReadingCheck {
        var check = ReadingCheck()
        try applyOverrides(overrides.filter { $0.hasPrefix("read.") }, known: "ReadingCheck") { check.set(String($0.dropFirst(5)), to: $1) }
        return check
    }

    /// The spread test's settings with `--set spread.NAME=…` applied.
    func spreadParameters() throws -> SpreadParameters {
        var spread = SpreadParameters()
        try applyOverrides(overrides.filter { $0.hasPrefix("spread.") }, known: "SpreadParameters") { spread.set(String($0.dropFirst(7)), to: $1) }
        return spread
    }

    func validate() throws {
        _ = try analysisParameters()
        _ = try spreadParameters()
        _ = try learnedParameters()
        _ = try readingCheck()
        try validateJobs(jobs)
    }

    func run() throws {
        let parameters = try analysisParameters()
        let directory = book
        var model: Book
        // A bare folder: every readable scan becomes a page; the unreadable ones are named and
        // make the run fail at the end, after the good pages are done.
        var unreadable: [String] = []
        do {
            if BookDirectory.containsBook(directory) {
                model = try Book.load(directory: directory, imageSize: pageImageSize).book
            } else {
                model = try Book.make(fromImagesIn: directory, languages: [language], imageSize: pageImageSize) { unreadable.append($0) }
            }
        } catch {
            Console.error("analyze: \(error.description)")
            throw ExitCode.failure
        }

        // The detector's ink mask is what the in-fill needs; keeping it spares `clear` a second
        // detection (or a cruder estimate from the boxes alone).
        let maskFolder: String? = dryRun || noMasks ? nil : (masks ?? BookDirectory.maskFolder(in: directory))
        if let maskFolder {
            do { try masks == nil ? FileIO.createOwnedDirectory(maskFolder) : FileIO.createDirectory(maskFolder) } catch {
                Console.error("analyze: \(error)")
                throw ExitCode.failure
            }
        }
        let direction: PageAnalyzer.ReadingDirection = model.readingDirection == .rightToLeft ? .rightToLeft : .leftToRight
        let analyzer = PageAnalyzer(parameters: parameters)
        let (learnedParameters, grouping) = try learnedParameters()
        let learned: LearnedTextDetector?
        let check = try readingCheck()
        let reader: LearnedTextReader?
        // The printed language decides whether the reader's confidence means anything.
        let printedLanguage = model.languages.first ?? language
        do {
            // Every core for the model: one page is in it at a time (OnnxModel), the others wait.
            let threads = max(1, ProcessInfo.processInfo.activeProcessorCount)
            learned = try detector.load(parameters: learnedParameters, threads: threads)
            if let learned {
                reader = try DetectorChoice.loadReader(files: learned.files, check: check, language: printedLanguage, threads: threads)
            } else {
                reader = nil
            }
        } catch {
            Console.error("analyze: \(error.description)")
            throw ExitCode.failure
        }
        if learned == nil && detector == .auto {
            // Said once, because the fallback finds far less on real scans (Documentation/
            // Evaluation.md) and a librarian would otherwise take its few boxes for the book's.
            Console.err("analyze: the learned detector is not installed, so the classical one is used; on real scans it finds much less of the text (run Tools/setup.sh --detector, or set PICTUREBOOK_DETECTOR_DIR)")
        }
        let spreadDetector = SpreadDetector(parameters: try spreadParameters())
        let pages = model.pages
        let progress = Progress("analyze", total: pages.count, enabled: !json)
        let results = ResultSlots(count: pages.count)
        let next = Counter()
        DispatchQueue.concurrentPerform(iterations: min(jobs, max(1, pages.count))) { _ in
            while true {
                let i = next.take()
                guard i < pages.count else { return }
                let path = BookDirectory.imagePath(of: pages[i], in: directory)
                do {
                    let bitmap = try ImageDecoder.decode(file: path)
                    let start = DispatchTime.now().uptimeNanoseconds
                    let analysis: PageAnalysis
                    var lines: [PixelRect]?
                    var unread: [PixelRect] = []
                    if let learned {
                        let blocks = grouping.blocks(try learned.lines(in: bitmap))
                        // One grey copy of the page for both the rule and the analyzer.
                        let gray = bitmap.grayscale()
                        // Short lines whose ink runs on out of their box are pieces of a drawing.
                        var proposals = DrawingLineRule().keep(
                            blocks.map { ProposedBlock(lines: $0.lines.map(\.rect), vertical: $0.vertical, score: $0.score) }, on: bitmap, gray: gray)
                        // Blocks the recogniser cannot read at all are drawings with the rhythm of type.
                        if let reader {
                            var read: [ProposedBlock] = []
                            for p in proposals {
                                if try check.reads(lines: p.lines, vertical: p.vertical, on: bitmap, with: reader) {
                                    read.append(p)
                                } else if !p.lines.isEmpty {
                                    // Reported, and drawn by --draw, so a person can see what was left out.
                                    unread.append(p.bounds.enclosingPixelRect)
                                }
                            }
                            proposals = read
                        }
                        analysis = analyzer.analyze(bitmap, proposals: proposals, gray: gray, readingDirection: direction)
                        // Only the JSON report shows them; not kept per page otherwise.
                        if json { lines = analysis.lines }
                    } else {
                        analysis = analyzer.analyze(bitmap, readingDirection: direction)
                    }
                    let ms = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
                    if let draw {
                        let name = (pages[i].image as NSString).deletingPathExtension.replacingOccurrences(of: "/", with: "_")
                        try? FileManager.default.createDirectory(atPath: draw, withIntermediateDirectories: true)
                        try JPEGEncoder.write(overlay(bitmap, analysis, unread: unread), to: draw + "/" + name + ".jpg")
                    }
                    if let maskFolder {
                        try PNGEncoder.write(analysis.inkMask, to: maskFolder + "/" + BookDirectory.stem(of: pages[i].image) + ".png", options: .fast)
                    }
                    results.set(i, .success(PageResult(
                        blocks: analysis.blocks, lines: lines, unread: unread, width: bitmap.width, height: bitmap.height, milliseconds: ms,
                        edges: spreadDetector.edges(of: bitmap))))
                } catch {
                    results.set(i, .failure(AnalyzeError.unreadableScan(path: path, reason: "\(error)")))
                }
                progress.advance(pages[i].image)
            }
        }
        progress.finish()

        // Per-page reports are kept only for --json; otherwise a long book would hold every
        // page's boxes twice (here and in the model) just to print three totals.
        var report: [PageReport] = []
        var times: [Double] = []
        var boxes = 0, kept = 0, unreadBlocks = 0
        var failures = 0
        for (i, slot) in results.all.enumerated() {
            switch slot {
            case .failure(let e)?:
                Console.error("analyze: \(e.description)")
                failures += 1
            case .success(let r)?:
                if r.width != model.pages[i].width || r.height != model.pages[i].height {
                    Console.warning("analyze: \(model.pages[i].image) is \(r.width)×\(r.height) but book.json says \(model.pages[i].width)×\(model.pages[i].height); boxes are in the scan's pixels")
                }
                let (page, added, keptHere) = merge(r.blocks, into: model.pages[i], pageIndex: i)
                model.pages[i] = page
                let ms = (r.milliseconds * 10).rounded() / 10
                times.append(ms)
                boxes += added.count
                unreadBlocks += r.unread.count
                kept += keptHere
                if json {
                    report.append(PageReport(image: page.image, width: r.width, height: r.height, milliseconds: ms,
                                             detected: added.map(BoxReport.init), keptBoxes: keptHere,
                                             lines: r.lines?.map(BoxReport.R.init), unread: reader == nil ? nil : r.unread.map(BoxReport.R.init)))
                }
            case nil:
                failures += 1
            }
        }
        let (foundSpreads, spreadEvidence) = detectSpreads(in: &model, results: results.all, detector: spreadDetector)
        if !dryRun {
            do { try model.save(directory: directory) } catch {
                Console.error("analyze: \(error.description)")
                throw ExitCode.failure
            }
        }
        times.sort()
        let medianMs = times.isEmpty ? 0 : times[times.count / 2]
        if json {
            try Console.json(Report(book: directory, detector: learned == nil ? "classical" : "learned", pages: report, medianMilliseconds: medianMs, detectedSpreads: foundSpreads.map { [$0.first, $0.second] },
                spreadEvidence: spreadEvidence))
        } else {
            // A book whose boxes a librarian entered gets nothing new; say so, or "0 detected" reads as a failure.
            let keptNote = kept > 0 ? String(format: " (%d boxes already in book.json kept)", kept) : ""
            Console.err(String(format: "analyze: %d pages, %d text boxes and %d panoramic spreads detected%@, median %.1f ms/page%@", times.count, boxes, foundSpreads.count, keptNote, medianMs,
                               dryRun ? " (book.json not written: --dry-run)" : " → \(BookDirectory.manifestPath(in: directory))"))
            if unreadBlocks > 0 {
                Console.err("analyze: \(unreadBlocks) more block\(unreadBlocks == 1 ? "" : "s") looked like text but did not read as text, and were left out as drawing (--draw DIR shows them as grey dashed frames; --set read.enabled=0 keeps them)")
            }
        }
        for path in unreadable { Console.error("analyze: \(path): cannot read the image; left out of the book") }
        if failures > 0 || !unreadable.isEmpty { throw ExitCode.failure }
    }

    /// Tests each pair of consecutive pages for one illustration painted across the gutter and
    /// records the pairs found in `spreads`, which the reader's pairing then honours. Every
    /// consecutive pair is a candidate, not only the ones the default pairing would put together:
    /// a book with a blank or unnumbered page has its spreads on "odd" pairs. Pages marked single
    /// and spreads already listed, whoever entered them, are left as they are.
    private func detectSpreads(in model: inout Book, results: [Result<PageResult, AnalyzeError>?], detector: SpreadDetector)
        -> ([Spread], [SpreadReport])
    {
        // Every consecutive pair is judged at once, against the rest of the book (the seam test
        // asks how well each page continues into every other page). On the table a right-to-left
        // book's earlier page lies on the right.
        let edges: [PageEdges?] = results.map { if case .success(let r)? = $0 { r.edges } else { nil } }
        let rtl = model.readingDirection == .rightToLeft
        let candidates = (0..<max(0, model.pages.count - 1)).map { i in rtl ? (left: i + 1, right: i) : (left: i, right: i + 1) }
        let verdicts = detector.findSpreads(pages: edges, candidates: candidates)
        // Pages marked single and pages of a listed spread are never paired; of the passing pairs
        // that share a page the stronger set is taken (`SpreadDetector.choosePairs`).
        let available = verdicts.indices.map { k in
            let (a, b) = (k + 1, k + 2)
            return !model.pages[a - 1].single && !model.pages[b - 1].single
                && model.spread(containing: a) == nil && model.spread(containing: b) == nil
        }
        let found = detector.choosePairs(verdicts, available: available).map { Spread($0 + 1, $0 + 2) }
        model.spreads += found
        model.spreads.sort { $0.first < $1.first }
        // Why each consecutive pair was or was not taken, for a librarian checking a spread the
        // detector missed or invented (and for Tools/bench-panoramas.py).
        let evidence = verdicts.enumerated().map { i, e in
            SpreadReport(
                pages: [i + 1, i + 2], found: found.contains { $0.first == i + 1 },
                profileCorrelation: e.correlation.isFinite ? e.correlation : nil,
                seamContinuity: e.continuity, marginOverBook: e.margin, rivals: e.rivals,
                extrapolation: e.extrapolation, extrapolationMargin: e.extrapolationMargin, extrapolationRivals: e.extrapolationRivals,
                edgeDeviation: e.edgeDeviation)
        }
        return (found, evidence)
    }

    /// Detected boxes replace earlier detected boxes; librarian boxes stay, and win over any
    /// detection that overlaps them.
    private func merge(_ blocks: [DetectedBlock], into page: Page, pageIndex: Int) -> (Page, [TextBox], Int) {
        var page = page
        // A librarian has been over this page: what is on it (including detections they chose
        // to keep) is their decision, and what they deleted must stay deleted.
        if !replace && !includeReviewed && page.textBoxes.contains(where: \.isLibrarianOwned) {
            return (page, [], page.textBoxes.count)
        }
        let kept = replace ? [] : page.textBoxes.filter(\.isLibrarianOwned)
        var ids = Set(kept.map(\.id))
        let orderBase = (kept.compactMap(\.order).max() ?? -1) + 1
        var added: [TextBox] = []
        for b in blocks {
            let r = Rect(b.rect)
            let overlapsLibrarian = kept.contains { k in
                guard let i = Rect(k.rect).intersection(r) else { return false }
                return i.area >= 0.5 * min(Rect(k.rect).area, r.area)
            }
            if overlapsLibrarian { continue }
            var n = added.count + 1
            var id = String(format: "p%03d-d%d", pageIndex + 1, n)
            while ids.contains(id) { n += 1; id = String(format: "p%03d-d%d", pageIndex + 1, n) }
            ids.insert(id)
            added.append(TextBox(
                id: id, rect: b.rect, role: b.role == .pageNumber ? .pageNumber : .body,
                order: orderBase + b.order, orientation: b.orientation == .vertical ? .vertical : .horizontal,
                polarity: b.polarity == .lightOnDark ? .lightOnDark : .darkOnLight,
                inkColor: RGBColor(red: b.inkColor.r, green: b.inkColor.g, blue: b.inkColor.b),
                backgroundColor: RGBColor(red: b.backgroundColor.r, green: b.backgroundColor.g, blue: b.backgroundColor.b),
                confidence: (b.confidence * 1000).rounded() / 1000, source: .detected))
        }
        page.textBoxes = kept + added
        return (page, added, kept.count)
    }
}

/// The page with its ink mask tinted red and every box outlined: green dark-on-light body text,
/// orange light-on-dark, magenta vertical, blue page numbers.
private func overlay(_ page: Bitmap<RGBA8>, _ analysis: PageAnalysis, unread: [PixelRect] = []) -> Bitmap<RGBA8> {
    var out = page
    for i in out.pixels.indices where analysis.inkMask.pixels[i] != 0 {
        let p = out.pixels[i]
        out.pixels[i] = RGBA8(r: UInt8((Int(p.r) + 255) / 2), g: UInt8(Int(p.g) / 2), b: UInt8(Int(p.b) / 2))
    }
    let t = max(2, page.width / 300)
    for b in analysis.blocks {
        let c: RGBA8 = b.role == .pageNumber ? RGBA8(r: 30, g: 80, b: 255)
            : b.orientation == .vertical ? RGBA8(r: 230, g: 0, b: 200)
            : b.polarity == .lightOnDark ? RGBA8(r: 255, g: 140, b: 0) : RGBA8(r: 0, g: 190, b: 40)
        let r = b.rect
        let x0 = max(0, r.x - t), y0 = max(0, r.y - t)
        let x1 = min(page.width, r.x + r.width + t), y1 = min(page.height, r.y + r.height + t)
        out.fill(PixelRect(x: x0, y: y0, width: x1 - x0, height: t), with: c)
        out.fill(PixelRect(x: x0, y: y1 - t, width: x1 - x0, height: t), with: c)
        out.fill(PixelRect(x: x0, y: y0, width: t, height: y1 - y0), with: c)
        out.fill(PixelRect(x: x1 - t, y: y0, width: t, height: y1 - y0), with: c)
    }
    // Blocks the reading check left out: a grey dashed frame, so a reviewer sees them.
    for r in unread {
        out.strokeRect(r, color: RGBA8(r: 128, g: 128, b: 128), lineWidth: t, dash: DashPattern(on: 4 * t, off: 4 * t))
    }
    return out
}

enum AnalyzeError: Error, CustomStringConvertible {
    case unreadableScan(path: String, reason: String)
    var description: String {
        switch self {
        case .unreadableScan(let p, let r): return "\(p): cannot read the scan: \(r)"
        }
    }
}

private struct PageResult: Sendable {
    var blocks: [DetectedBlock]
    /// The lines of the learned detector's blocks (nil with the classical detector).
    var lines: [PixelRect]?
    /// Blocks the reading check left out (their lines' bounding boxes).
    var unread: [PixelRect]
    var width: Int, height: Int
    var milliseconds: Double
    /// For the panoramic-spread test, which runs once every page is in.
    var edges: PageEdges
}

private final class ResultSlots: @unchecked Sendable {
    private var slots: [Result<PageResult, AnalyzeError>?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<PageResult, AnalyzeError>) { lock.withLock { slots[i] = r } }
    var all: [Result<PageResult, AnalyzeError>?] { lock.withLock { slots } }
}

private final class Counter: @unchecked Sendable {
    private var value = 0
    private let lock = NSLock()
    func take() -> Int { lock.withLock { defer { value += 1 }; return value } }
}

private struct Report: Encodable {
    var book: String
    /// "learned" or "classical": which detector found the boxes.
    var detector: String
    var pages: [PageReport]
    var medianMilliseconds: Double
    /// Facing pairs found to share one illustration, added to book.json's `spreads` (1-based).
    var detectedSpreads: [[Int]]
    /// The evidence for every consecutive pair (see Documentation/PageAnalysis.md, panoramas).
    var spreadEvidence: [SpreadReport]
}

/// One consecutive pair's spread evidence: the exact profile test's correlation, the seam score
/// (0...1), how many of the book's deviations it stands above the pages' matches with the rest
/// of the book and how many other pages continue its edges as well (the last two absent when the
/// pair was not judged against the book); the same three for the colour-field measure
/// (`extrapolation`, -1...1), and the smaller raw luma deviation of the two edges (grey levels),
/// which that measure's gate asks of both. `found` is false for a
/// pair that was already in book.json or is marked single, whatever the evidence.
private struct SpreadReport: Encodable {
    var pages: [Int]
    var found: Bool
    var profileCorrelation: Double?
    var seamContinuity: Double
    var marginOverBook: Double?
    var rivals: Int?
    var extrapolation: Double
    var extrapolationMargin: Double?
    var extrapolationRivals: Int?
    var edgeDeviation: Double
}

private struct PageReport: Encodable {
    var image: String
    var width: Int, height: Int
    /// Analysis time for this page (decoding excluded).
    var milliseconds: Double
    var detected: [BoxReport]
    /// Librarian boxes kept from the existing book.json.
    var keptBoxes: Int
    /// The lines of the blocks the learned detector found (lone marks already dropped), for
    /// scoring against truth drawn per line (the NDL scans'); absent with the classical detector.
    var lines: [BoxReport.R]?
    /// Blocks the learned detector proposed that the reading check could not read as text, left
    /// out of the book; absent when the check did not run (classical detector, a script the
    /// recogniser does not read, `--set read.enabled=0`).
    var unread: [BoxReport.R]?
}

private struct BoxReport: Encodable {
    struct R: Encodable {
        var x, y, width, height: Int
        init(_ r: PixelRect) { (x, y, width, height) = (r.x, r.y, r.width, r.height) }
    }
    var id: String
    var rect: R
    var role: String
    var orientation: String
    var polarity: String
    var inkColor: String
    var backgroundColor: String
    var confidence: Double
    var order: Int

    init(_ b: TextBox) {
        id = b.id
        rect = R(b.rect)
        role = b.role?.rawValue ?? "body"
        orientation = b.orientation?.rawValue ?? "horizontal"
        polarity = b.polarity?.rawValue ?? "darkOnLight"
        inkColor = b.inkColor?.hex ?? ""
        backgroundColor = b.backgroundColor?.hex ?? ""
        confidence = b.confidence ?? 0
        order = b.order ?? 0
    }
}

/// `--detector`: which text detector `analyze` uses.
enum DetectorChoice: String, ExpressibleByArgument, CaseIterable, Sendable {
    case auto, learned, classical

    /// The learned detector when chosen or (auto) installed; nil for the classical one. Asking
    /// for `learned` when it is not installed is an error, not a silent fallback.
    func load(parameters: LearnedDetectorParameters = .init(), threads: Int) throws(TextDetectionError) -> LearnedTextDetector? {
        switch self {
        case .classical: return nil
        case .auto:
            guard let files = DetectorFiles.locate() else { return nil }
            return try LearnedTextDetector(files: files, parameters: parameters, threads: threads)
        case .learned:
            guard let files = DetectorFiles.locate() else {
                throw .unavailable("no libonnxruntime.so and text-detector.onnx found (run Tools/setup.sh --detector, or set PICTUREBOOK_DETECTOR_DIR)")
            }
            return try LearnedTextDetector(files: files, parameters: parameters, threads: threads)
        }
    }

    /// The reading check's recogniser when the check is on, the detector folder has one, and the
    /// book is printed in a script it reads; nil otherwise (the blocks are then kept unread).
    static func loadReader(files: DetectorFiles, check: ReadingCheck, language: String, threads: Int) throws(TextDetectionError) -> LearnedTextReader? {
        guard check.isEnabled, let path = files.reader, ReadingCheck.applies(toLanguage: language) else { return nil }
        return try LearnedTextReader(library: files.library, model: path, threads: threads)
    }

    /// What `auto` will run with default settings, for records that must change when it does
    /// (prepare's analyze stage): installing or replacing the model redoes analyze. The model is
    /// named by its size and modification time, which a new model changes without reading it.
    static func autoIdentity() -> String {
        guard let files = DetectorFiles.locate() else { return "detector=classical" }
        // A model file by its size and modification time, its links followed.
        func stamp(_ file: String) -> String {
            let attributes = try? FileManager.default.attributesOfItem(atPath: URL(fileURLWithPath: file).resolvingSymlinksInPath().path)
            let size = (attributes?[.size] as? NSNumber)?.int64Value ?? -1
            let modified = (attributes?[.modificationDate] as? Date)?.timeIntervalSince1970 ?? 0
            return "\(size)@\(Int(modified))"
        }
        var identity = "detector=learned \(LearnedDetectorParameters()) \(LineGrouping()) \(DrawingLineRule()) model=\(stamp(files.model))"
        if let reader = files.reader { identity += " \(ReadingCheck()) reader=\(stamp(reader))" }
        return identity
    }
}
