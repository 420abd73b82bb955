import ArgumentParser
import BookModel
import ClearText
import FileIO
import Foundation
import Geometry
import Preparation
import Raster

/// `picturebook popout`: each text block cropped from the scan for PopoutText, optionally magnified.
struct Popout: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a crop of every text box (with a margin, full resolution, optionally magnified).",
        discussion: """
            Writes DIR/<page-image-stem>-<box-id>.png (default BOOK_DIR/popout/) for every text box \
            of every page. The crop is the box grown by a margin and clipped at the page edges. \
            --scale magnifies by a fixed factor; --text-height magnifies so the measured line \
            height reaches that many pixels (Lanczos3 either way). Up-to-date crops are skipped.

            Examples:
              picturebook popout Books/moon-rabbit
              picturebook popout Books/moon-rabbit --scale 2 --out /tmp/popouts
              picturebook popout Books/moon-rabbit --text-height 64
            """)

    @Argument(help: ArgumentHelp("The book folder.", valueName: "book-dir"), completion: .directory)
    var book: String

    @Option(help: "Output folder (default BOOK_DIR/popout).", completion: .directory)
    var out: String?

    @Option(help: "Magnification factor.")
    var scale: Double?

    @Option(help: "Magnify so the lines of text are this many pixels tall (measured from the ink).")
    var textHeight: Double?

    @Option(help: "Margin around each box as a fraction of its shorter side.")
    var margin: Double = PopoutParameters().marginFraction

    @Option(help: "Pages processed at once.")
    var jobs: Int = 2

    @Flag(help: "Redo outputs even when they are up to date.")
    var force = false

    /// The crop parameters from the options; a bad value is a usage error.
    func popoutParameters() throws -> PopoutParameters {
        var p = PopoutParameters()
        p.scale = scale
        p.targetTextHeight = textHeight
        p.marginFraction = margin
        if scale != nil && textHeight != nil { throw ValidationError("give either --scale or --text-height, not both") }
        do { try p.validate() } catch { throw ValidationError(error.description) }
        return p
    }

    func validate() throws {
        _ = try popoutParameters()
        try validateJobs(jobs)
    }

    func run() throws {
        let p = try popoutParameters()
        let job = try BookJob(book: book, out: out, defaultFolder: "popout", command: "popout")
        let force = self.force, params = p
        let fingerprintBase = "popout/1 \(params) mask=estimate \(InkMaskParameters())"
        let outcome = job.forEachPage(jobs: jobs) { page, source in
            let stem = BookJob.stem(page.image)
            let key = BookJob.sourceKey(source)
            // Book data names these files: each must be a plain name inside the output folder.
            let outputs = try page.textBoxes.map { try FileIO.child("\(stem)-\($0.id).png", of: job.outDir) }
            let pending = zip(page.textBoxes, outputs).filter { box, output in
                force || !BookJob.isUpToDate(output, fingerprint: "\(fingerprintBase) \(key) \(box.rect)")
            }
            guard !pending.isEmpty else { return .skipped }
            let image = try BookJob.decode(source)
            for (box, output) in pending {
                let crop = try PagePreparation.popout(page: image, box: box.rect, boxID: box.id, source: source, parameters: params)
                try BookJob.writePNG(crop, to: output)
                try BookJob.recordFingerprint("\(fingerprintBase) \(key) \(box.rect)", for: output)
            }
            return .written
        }
        job.summarize(outcome, noun: "pages cropped")
        if outcome.failed > 0 { throw ExitCode.failure }
    }
}
