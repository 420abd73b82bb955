import ArgumentParser
import Foundation
import Generator

/// `picturebook generate`: deterministic scanned-looking picture-book pages with ground truth —
/// a benchmark corpus from a seed, or a sample book from a story file.
struct Generate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Generate picture-book pages with ground truth (a benchmark corpus or a sample book).",
        discussion: """
            Writes DIR/page-001.jpg …, DIR/clean/page-001.png (the same pages without text, \
            lossless), DIR/truth.json (every text box, its language, placement style and the scan \
            parameters) and DIR/book.json. The same seed always gives the same bytes.

            Examples:
              picturebook generate --out corpus --pages 40 --seed 1 --difficulty mixed
              picturebook generate --out /tmp/farm --story Tools/books/board.json
              picturebook generate --illustrations Benchmarks/Illustrations --out synth2 --pages 24 --seed 5001
            """)

    @Option(name: .long, help: "Output directory (created if missing).")
    var out: String

    @Option(name: .long, help: "Number of pages.")
    var pages: Int = 12

    @Option(name: .long, help: "Random seed; the same seed gives the same pages.")
    var seed: UInt64 = 1

    @Option(name: .long, help: "easy | mixed | hard")
    var difficulty: String = "mixed"

    @Option(name: .long, help: "Page size in pixels, WIDTHxHEIGHT.")
    var size: String = "1600x2000"

    @Option(name: .long, help: "Illustrate a story file (Tools/books/*.json) instead of random pages; --pages, --seed, --size and --difficulty come from the story.")
    var story: String?

    @Option(name: .long, help: "Compose pages from the real illustrations (PNG/JPEG) in this folder, with text typeset over and beside them, instead of painted scenes; --difficulty sets the scan wear.")
    var illustrations: String?

    @Flag(name: .long, help: "Do not write the clean backgrounds.")
    var noClean = false

    @Flag(name: .long, help: "Do not write truth.json.")
    var noTruth = false

    @Option(name: .long, help: "JPEG quality for every page (default: each page's seeded scan quality; stories use 80).")
    var quality: Int?

    func run() throws {
        do {
            let plan: BookPlan
            if let story {
                if illustrations != nil {
                    throw GeneratorError.invalidOption(name: "--illustrations", reason: "cannot be combined with --story")
                }
                plan = try Story.load(story).plan(path: story)
            } else if let illustrations {
                guard let d = Difficulty(rawValue: difficulty) else {
                    throw GeneratorError.invalidOption(name: "--difficulty", reason: "expected easy, mixed or hard, got '\(difficulty)'")
                }
                let (w, h) = try GeneratorOptions.parseSize(size)
                let options = GeneratorOptions(seed: seed, pageCount: pages, width: w, height: h, difficulty: d)
                try options.validate()
                plan = try PageGenerator.plan(options, illustrations: IllustrationLibrary.load(illustrations))
            } else {
                guard let d = Difficulty(rawValue: difficulty) else {
                    throw GeneratorError.invalidOption(name: "--difficulty", reason: "expected easy, mixed or hard, got '\(difficulty)'")
                }
                let (w, h) = try GeneratorOptions.parseSize(size)
                plan = try PageGenerator.plan(GeneratorOptions(seed: seed, pageCount: pages, width: w, height: h, difficulty: d))
            }
            if let quality, !(1...100).contains(quality) {
                throw GeneratorError.invalidOption(name: "--quality", reason: "must be 1...100, got \(quality)")
            }
            let progress = Progress("generate", total: plan.pageCount)
            let started = Date()
            let truth = try BookWriter.write(
                plan, to: out,
                options: BookWriteOptions(clean: !noClean, truth: !noTruth, jpegQuality: quality ?? (story == nil ? nil : 80)),
                encoder: CodecsPageEncoder(), progress: { progress.advance($0) })
            progress.finish()
            let boxes = truth.pages.reduce(0) { $0 + $1.textBoxes.count }
            Console.err(String(format: "generate: %d pages, %d text boxes → %@ (%.1f s)",
                               truth.pages.count, boxes, out, Date().timeIntervalSince(started)))
        } catch let e as GeneratorError {
            Console.error(e.description)
            throw ExitCode.failure
        }
    }
}
