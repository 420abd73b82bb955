import ArgumentParser
import BookModel
import Codecs
import FileIO
import Geometry
import Layout
import Raster
import Render

struct TransitionFrames: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "transition",
        abstract: "Render a reader transition as numbered PNG frames.",
        discussion: """
            Kinds: zoom (overview thumbnail → page, zooming in log scale anchored at the \
            thumbnail), rotate (portrait page → its place in the landscape spread), popout (a \
            text block growing; --reverse shrinks it), turn (to the next screen, with a snap). \
            Frames are sampled evenly from the first screen (frame-000.png) to the last, exactly.

            Example:
              picturebook transition Books/salmas-red-kite --kind zoom --page 6 --frames 24 --out zoom/
            """)

    @Argument(help: "The book folder (holding book.json).", completion: .directory)
    var book: String

    @Option(help: "zoom, rotate, popout or turn.")
    var kind: String

    @Option(help: "Number of frames, first and last included.")
    var frames: Int = 12

    @Option(help: "Device: iphone-2008, phone, tablet, desktop, or WxH@scale.")
    var device: String = "phone"

    @Option(help: "portrait or landscape (rotate always goes portrait → landscape).")
    var orientation: String = "portrait"

    @Option(help: "The page the transition is about (default 2).")
    var page: Int = 2

    @Option(help: "Text box to pop out (popout; default the page's first block).")
    var popout: String?

    @Flag(help: "Play the popout backwards (shrink).")
    var reverse = false

    @Flag(help: "Also write the frames as one animated PNG, DIR/animation.png.")
    var apng = false

    @Option(help: "Frames per second of the animated PNG.")
    var fps: Double = 30

    @Option(help: "Output folder (created if missing).", completion: .directory)
    var out: String

    func validate() throws {
        guard ["zoom", "rotate", "popout", "turn"].contains(kind) else { throw ValidationError("--kind must be zoom, rotate, popout or turn, got '\(kind)'") }
        guard (1...600).contains(frames) else { throw ValidationError("--frames must be 1…600, got \(frames)") }
        try validateDevice(device)
        guard ScreenOrientation(rawValue: orientation) != nil else { throw ValidationError("--orientation must be portrait or landscape, got '\(orientation)'") }
        guard page >= 1 else { throw ValidationError("--page must be 1 or more, got \(page)") }
        guard fps > 0, fps <= 120 else { throw ValidationError("--fps must be in (0, 120], got \(fps)") }
    }

    func run() async throws {
        try reportingFailure(runChecked)
    }

    private func runChecked() throws {
        let (book, _) = try Book.load(directory: book)
        guard page <= book.pages.count else { throw RenderError.noSuchPage(page, count: book.pages.count) }
        let profile = DeviceProfile.parse(device)!
        let o = ScreenOrientation(rawValue: orientation)!
        let vp = profile.viewport(kind == "rotate" ? .landscape : o)
        let times = frameTimes(count: frames)
        let composer = SpreadComposer()
        func layout(of page: Int, _ orientation: ScreenOrientation) -> ScreenLayout {
            let screens = composer.screens(for: book, orientation: orientation)
            let i = SpreadComposer.screenIndex(of: page, in: screens) ?? 0
            return Fit.layout(screens[i], of: book, in: profile.viewport(orientation))
        }
        let sampled: [TransitionFrame]
        switch kind {
        case "zoom":
            sampled = Transition.zoom(grid: GridLayout.layout(book, in: vp), tapped: page, into: layout(of: page, o), times: times)
        case "rotate":
            sampled = Transition.rotate(from: layout(of: page, .portrait), to: layout(of: page, .landscape), page: page, times: times)
        case "popout":
            let l = layout(of: page, o)
            guard let f = l.frame(of: page) else { throw RenderError.noSuchPage(page, count: book.pages.count) }
            let boxes = book.pages[page - 1].textBoxesInReadingOrder
            guard let box = popout.map({ id in boxes.first { $0.id == id } }) ?? boxes.first(where: { $0.role != .pageNumber }) else {
                throw RenderError.noSuchBox(popout ?? "(any on page \(page))")
            }
            let g = PopoutLayout().popout(box: box, on: f, in: vp)
            sampled = Transition.popout(g, page: page, boxRect: Rect(box.rect), on: l, grow: !reverse, times: times)
        default:
            let screens = composer.screens(for: book, orientation: o)
            let i = SpreadComposer.screenIndex(of: page, in: screens) ?? 0
            guard i + 1 < screens.count else { throw RenderError.lastScreen(page: page) }
            sampled = Transition.turn(
                from: Fit.layout(screens[i], of: book, in: vp), to: Fit.layout(screens[i + 1], of: book, in: vp),
                rightToLeft: book.readingDirection == .rightToLeft, times: times)
        }
        // Each page once, at the largest size it reaches on screen.
        let images = PageImages(directory: self.book, book: book)
        var largest: [Int: Double] = [:]
        for f in sampled {
            for p in f.placements {
                switch p.content {
                case .page(let n), .pageRegion(let n, _):
                    let side = max(p.rect.width, p.rect.height) * vp.scale
                    largest[n] = max(largest[n] ?? 0, side)
                case .dim: break
                }
            }
        }
        var previews: [Int: Bitmap<RGBA8>] = [:]
        let cap = Double(max(vp.pixelWidth, vp.pixelHeight))
        // A page whose scan cannot be read is drawn as a plain grey sheet and named; every frame
        // is still written (the motion is what the frames show), and the run exits 1.
        var unreadable = 0
        for (n, side) in largest.sorted(by: { $0.key < $1.key }) {
            let isRegion = sampled.contains { $0.placements.contains { if case .pageRegion(n, _) = $0.content { true } else { false } } }
            let p = book.pages[n - 1]
            let maxSide = isRegion ? max(p.width, p.height) : Int(min(side, cap * 1.5).rounded(.up))
            do {
                previews[n] = try images.preview(n, maxSide: maxSide)
            } catch {
                Console.error("transition: page \(n) (\(p.image)): \(error); drawn as a blank grey page")
                let (w, h) = Bitmap<RGBA8>.fittedSize(
                    width: max(1, p.width), height: max(1, p.height), maxWidth: maxSide, maxHeight: maxSide, allowEnlarging: true)
                previews[n] = Bitmap(width: w, height: h, fill: RGBA8(gray: 200))
                unreadable += 1
            }
        }
        let renderer = ScreenRenderer(images: images)
        try FileIO.createDirectory(out)
        // Every frame the same colour type, so they can also be joined into an animated PNG.
        let options = PNGEncodeOptions(compressionLevel: 1, filter: .up, reduceChannels: false)
        var encoded: [[UInt8]] = []
        for (k, f) in sampled.enumerated() {
            let image = renderer.renderFrame(f, previews: previews)
            let name = "frame-" + String(repeating: "0", count: max(0, 3 - String(k).count)) + String(k) + ".png"
            let bytes = try PNGEncoder.encode(image, options: options, name: name)
            try AtomicFile.write(bytes, to: out + "/" + name)
            if apng { encoded.append(bytes) }
        }
        Console.out("\(out): \(sampled.count) frames of \(kind), \(vp.pixelWidth)×\(vp.pixelHeight)")
        if apng {
            let path = out + "/animation.png"
            try AtomicFile.write(try APNG.assemble(frames: encoded, delayMilliseconds: Int((1000 / fps).rounded())), to: path)
            Console.out("\(path): animated PNG, \(encoded.count) frames at \(Int(fps)) fps")
        }
        if unreadable > 0 {
            throw TransitionFailure(pages: unreadable)
        }
    }
}

/// Frames were written, but some pages in them could not be read (each was named on stderr).
struct TransitionFailure: Error, CustomStringConvertible {
    let pages: Int
    var description: String { "\(pages) page\(pages == 1 ? "" : "s") could not be read and \(pages == 1 ? "was" : "were") drawn blank" }
}
