import ArgumentParser
import BookModel
import Codecs
import FileIO
import Geometry
import Layout
import Raster
import Render
#if canImport(Glibc)
import Glibc
#endif

struct RenderScreens: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "render",
        abstract: "Render reader screens of a book as PNG at a device's pixel size.",
        discussion: """
            One PNG per screen, named by its pages (p001.png, p002-003.png). Portrait shows one \
            page per screen; landscape shows the book's spreads (cover and single pages alone, \
            the manifest's spreads honoured, right-to-left books paired right to left).

            Modes: scan (the pages as scanned), popout (a text block magnified over the dimmed \
            screen: --popout BOX_ID, or the first block of each screen), hint (the first-open \
            "Tap to enlarge text" outlines), cleartext (the text re-set in --lang over \
            BOOK_DIR/clear/<page>.png, or over the scan with a warning when a page has no cleared \
            picture yet), overview (the thumbnail grid, one PNG).

            Devices: iphone-2008 (320×480 @1x), phone (393×852 @3x), tablet (820×1180 @2x), \
            desktop (1280×800 @1x), or any WxH@scale in points.

            Examples:
              picturebook render Books/salmas-red-kite --device phone --orientation landscape --out out/
              picturebook render Books/salmas-red-kite --mode cleartext --lang ar --pages 2-5 --out out/
              picturebook render Books/little-horse --mode popout --popout p004-b1 --pages 4 --out out/
            """)

    @Argument(help: "The book folder (holding book.json).", completion: .directory)
    var book: String

    @Option(help: "Device: iphone-2008, phone, tablet, desktop, or WxH@scale.")
    var device: String = "phone"

    @Option(help: "portrait or landscape.")
    var orientation: String = "portrait"

    @Option(help: "scan, popout, hint, cleartext or overview.")
    var mode: String = "scan"

    @Option(help: "Language of the ClearText (default: the book's first).")
    var lang: String?

    @Option(help: "Only screens showing these pages: N or A-B (1-based).")
    var pages: String?

    @Option(help: "Id of the text box to pop out (popout mode).")
    var popout: String?

    @Option(help: "Output folder (created if missing).", completion: .directory)
    var out: String

    @Flag(help: "Smallest PNGs (slower) instead of fast compression.")
    var small = false

    @Option(help: .hidden)
    var bench: Int?

    static let modes = ["scan", "popout", "hint", "cleartext", "overview"]

    func validate() throws {
        try validateDevice(device)
        guard ScreenOrientation(rawValue: orientation) != nil else { throw ValidationError("--orientation must be portrait or landscape, got '\(orientation)'") }
        guard Self.modes.contains(mode) else { throw ValidationError("--mode must be one of \(Self.modes.joined(separator: ", ")), got '\(mode)'") }
        if let pages { guard PageRange.parse(pages) != nil else { throw ValidationError("--pages must be N or A-B, got '\(pages)'") } }
        if popout != nil && mode != "popout" { throw ValidationError("--popout needs --mode popout") }
        if let bench { guard bench > 0 else { throw ValidationError("--bench needs a positive count") } }
    }

    func run() async throws {
        try reportingFailure(runChecked)
    }

    private func runChecked() throws {
        let (book, _) = try Book.load(directory: book)
        let viewport = DeviceProfile.parse(device)!.viewport(ScreenOrientation(rawValue: orientation)!)
        let images = PageImages(directory: self.book, book: book)
        let renderer = ScreenRenderer(images: images)
        let png: PNGEncodeOptions = small ? .smallest : .fast
        try FileIO.createDirectory(out)

        if mode == "overview" {
            let image = try renderer.renderGrid(GridLayout.layout(book, in: viewport))
            let path = out + "/overview.png"
            try PNGEncoder.write(image, to: path, options: png)
            Console.out("\(path): \(image.width)×\(image.height)")
            return
        }
        let language = lang ?? book.languages.first ?? "en"
        if mode == "cleartext", !book.languages.contains(language) {
            Console.warning("the book does not list '\(language)' among its languages (\(book.languages.joined(separator: ", "))); boxes without it are skipped")
        }
        var screens = SpreadComposer().screens(for: book, orientation: viewport.orientation)
        if let pages, let range = PageRange.parse(pages) {
            guard range.lowerBound <= book.pages.count else { throw RenderError.noSuchPage(range.lowerBound, count: book.pages.count) }
            screens = screens.filter { $0.pages.contains { range.contains($0) } }
        }
        if let popout {
            screens = screens.filter { s in s.pages.contains { book.pages[$0 - 1].textBoxes.contains { $0.id == popout } } }
            guard !screens.isEmpty else { throw RenderError.noSuchBox(popout) }
        }

        guard !screens.isEmpty else {
            Console.warning("no screens to render (the book has \(book.pages.count) pages)")
            return
        }
        if let bench {
            try runBenchmark(bench, screen: screens[0], book: book, viewport: viewport, language: language, png: png)
            return
        }

        var warnedPages = Set<Int>()
        // One screen that cannot be drawn (a page whose scan is damaged) does not stop the others:
        // each failure is named, and the run exits 1 at the end.
        var failures = 0
        for screen in screens {
            do {
                let layout = Fit.layout(screen, of: book, in: viewport)
                let path = out + "/" + screen.name + ".png"
                var note = ""
                let image: Bitmap<RGBA8>
                switch mode {
                case "popout":
                    let id = popout ?? screen.pages.lazy.compactMap { n in
                        book.pages[n - 1].textBoxesInReadingOrder.first { $0.role != .pageNumber }?.id
                    }.first
                    guard let id else {
                        Console.warning("\(screen.name): no text block to pop out; skipped")
                        continue
                    }
                    let (img, g) = try renderer.renderPopout(layout, boxID: id)
                    image = img
                    note = " popout \(id) ×\(Self.format(g.magnification)) to \(Self.format(g.textSize)) pt"
                        + (g.needsScroll ? ", scrolls \(Self.format(g.scrollExtent.width))×\(Self.format(g.scrollExtent.height)) pt" : "")
                case "hint":
                    image = try renderer.renderHint(layout)
                case "cleartext":
                    let (img, report) = try renderer.renderClearText(layout, language: language)
                    image = img
                    for n in report.pagesWithoutClearedImage where !warnedPages.contains(n) {
                        warnedPages.insert(n)
                        if n >= 1, n <= book.pages.count, book.pages[n - 1].readsAsScanInClearText {
                            Console.warning("page \(n) has boxes left as scanned for review (`picturebook clear --report`): drawn over its scan")
                        } else {
                            Console.warning("\(images.clearedPath(of: n) ?? "page \(n)") not found: page \(n) drawn over its scan (run `picturebook clear` first)")
                        }
                    }
                    let grown = report.blocks.filter(\.grew).count, scrolling = report.blocks.filter { $0.scrollExtent > 0 }
                    note = " \(report.blocks.count) block\(report.blocks.count == 1 ? "" : "s") in \(language)"
                        + (grown > 0 ? ", \(grown) grown" : "")
                        + (scrolling.isEmpty ? "" : ", scrolling: " + scrolling.map { "\($0.boxID) +\(Self.format($0.scrollExtent)) pt" }.joined(separator: ", "))
                        + (report.skipped.filter(\.duplicate).isEmpty ? "" : ", \(report.skipped.filter(\.duplicate).count) duplicate")
                        + (report.skipped.filter { !$0.duplicate }.isEmpty ? "" : ", \(report.skipped.filter { !$0.duplicate }.count) without \(language) text")
                default:
                    image = try renderer.renderPages(layout)
                }
                try PNGEncoder.write(image, to: path, options: png)
                Console.out("\(path): \(image.width)×\(image.height)\(note)")
            } catch {
                Console.error("\(screen.name): \(error)")
                failures += 1
            }
        }
        if failures > 0 { throw ExitCode.failure }
    }

    /// Renders the first selected screen `n` times (fresh page cache each time, so decoding is
    /// counted) including PNG encoding, and prints the median and mean in milliseconds.
    private func runBenchmark(_ n: Int, screen: Screen, book: Book, viewport: Viewport, language: String, png: PNGEncodeOptions) throws {
        var times: [Double] = [], encodeTimes: [Double] = [], pagesTimes: [Double] = []
        var bytes = 0
        var cpu: [Double] = []
        func cpuMilliseconds() -> Double {
            var u = rusage()
            getrusage(RUSAGE_SELF.rawValue, &u)
            return Double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000 + Double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1000
        }
        for i in 0..<(n + 2) {
            let c0 = cpuMilliseconds()
            let t0 = ContinuousClock.now
            let renderer = ScreenRenderer(images: PageImages(directory: self.book, book: book))
            let layout = Fit.layout(screen, of: book, in: viewport)
            let image: Bitmap<RGBA8>
            switch mode {
            case "cleartext": image = try renderer.renderClearText(layout, language: language).0
            case "popout": image = try renderer.renderPopout(layout, boxID: popout ?? book.pages[screen.pages[0] - 1].textBoxes.first?.id ?? "").0
            default: image = try renderer.renderPages(layout)
            }
            let t1 = ContinuousClock.now
            let encoded = try PNGEncoder.encode(image, options: png, name: "bench")
            let t2 = ContinuousClock.now
            if i >= 2 {
                times.append((t2 - t0).milliseconds)
                cpu.append(cpuMilliseconds() - c0)
                encodeTimes.append((t2 - t1).milliseconds)
                let p0 = ContinuousClock.now
                _ = try ScreenRenderer(images: PageImages(directory: self.book, book: book)).renderPages(layout) { _ in mode == "cleartext" ? .cleared : .scan }
                pagesTimes.append((ContinuousClock.now - p0).milliseconds)
            }
            bytes = encoded.count
        }
        times.sort()
        let median = times[times.count / 2], mean = times.reduce(0, +) / Double(times.count)
        func med(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        Console.out("render \(mode) \(screen.name) \(viewport.pixelWidth)×\(viewport.pixelHeight): median \(Self.format(median)) ms, mean \(Self.format(mean)) ms over \(n) runs (CPU time \(Self.format(med(cpu))) ms per run, both cores), PNG \(bytes) bytes; of which PNG encoding \(Self.format(med(encodeTimes))) ms; pages decoded, resampled and composed \(Self.format(med(pagesTimes))) ms")
    }

    static func format(_ v: Double) -> String {
        let r = (v * 10).rounded() / 10
        return r == r.rounded() ? String(Int(r)) : String(r)
    }
}

enum PageRange {
    /// "N" or "A-B" (1-based, A ≤ B).
    static func parse(_ s: String) -> ClosedRange<Int>? {
        let parts = s.split(separator: "-", omittingEmptySubsequences: false)
        if parts.count == 1, let n = Int(parts[0]), n >= 1 { return n...n }
        if parts.count == 2, let a = Int(parts[0]), let b = Int(parts[1]), a >= 1, b >= a { return a...b }
        return nil
    }
}
