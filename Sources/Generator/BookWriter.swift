// Writing a generated book: page JPEGs, lossless clean backgrounds, truth.json and book.json,
// every file atomically. Pages are rendered on all cores; each unit writes only its own files
// and its truth goes into its own slot, so the output does not depend on scheduling.

import Dispatch
import Foundation
public import Raster
import FileIO
import BookModel

/// Turns pages into file bytes. The default is `CodecsPageEncoder`; tests may substitute one.
public protocol PageImageEncoder: Sendable {
    func jpeg(_ image: Bitmap<RGBA8>, quality: Int, name: String) throws -> [UInt8]
    func png(_ image: Bitmap<RGBA8>, name: String) throws -> [UInt8]
}

public struct BookWriteOptions: Sendable {
    /// Also write clean/page-NNN.png (the in-fill benchmark's reference).
    public var clean: Bool
    /// Also write truth.json.
    public var truth: Bool
    /// Overrides every page's JPEG quality (sample books use one quality throughout).
    public var jpegQuality: Int?

    public init(clean: Bool = true, truth: Bool = true, jpegQuality: Int? = nil) {
        self.clean = clean
        self.truth = truth
        self.jpegQuality = jpegQuality
    }
}

public enum BookWriter {
    /// Renders every page of `plan` into `directory` and returns the ground truth.
    /// `progress` is called (from any thread) after each page with its file name.
    public static func write(
        _ plan: BookPlan, to directory: String, options: BookWriteOptions = .init(),
        encoder: any PageImageEncoder, progress: (@Sendable (String) -> Void)? = nil
    ) throws(GeneratorError) -> CorpusTruth {
        do {
            try FileIO.createDirectory(directory)
            if options.clean { try FileIO.createDirectory(directory + "/clean") }
        } catch {
            throw .output(path: directory, reason: error.description)
        }
        let count = plan.unitCount
        let slots = Slots<Result<[PageTruth], GeneratorError>>(count)
        // Two units at a time: each already splits its own pixel loops across the cores, and a
        // 1600×2000 unit holds a few hundred megabytes of float planes while it renders.
        let lanes = min(count, 2)
        DispatchQueue.concurrentPerform(iterations: lanes) { lane in
            var i = lane
            while i < count {
                slots[i] = Result { () throws(GeneratorError) -> [PageTruth] in
                    try writeUnit(plan, unit: i, to: directory, options: options, encoder: encoder, progress: progress)
                }
                i += lanes
            }
        }
        var pages: [PageTruth] = []
        for i in 0..<count {
            switch slots[i] {
            case .success(let p): pages += p
            case .failure(let e): throw e
            case nil: throw .output(path: directory, reason: "page unit \(i) was not rendered")
            }
        }
        let truth = CorpusTruth(
            seed: String(plan.seed), difficulty: plan.difficulty,
            title: plan.title["en"] ?? plan.title.values.sorted().first ?? "", pages: pages, spreads: plan.spreads)
        let encoderJSON = JSONEncoder()
        encoderJSON.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        do {
            if options.truth {
                try AtomicFile.write(Array(try encoderJSON.encode(truth)) + [0x0A], to: directory + "/truth.json")
            }
        } catch let e as FileError {
            throw .output(path: e.path, reason: e.description)
        } catch {
            throw .output(path: directory, reason: "cannot encode JSON: \(error)")
        }
        let book = plan.manifest(pages: pages)
        let problems = book.validate(baseDirectory: directory).filter { $0.severity == .error }
        guard problems.isEmpty else {
            throw .output(path: directory + "/book.json", reason: "generated manifest is invalid: \(problems.map(\.description).joined(separator: "; "))")
        }
        do {
            try book.save(directory: directory)
        } catch {
            throw .output(path: directory + "/book.json", reason: error.description)
        }
        return truth
    }

    private static func writeUnit(
        _ plan: BookPlan, unit: Int, to directory: String, options: BookWriteOptions,
        encoder: any PageImageEncoder, progress: (@Sendable (String) -> Void)?
    ) throws(GeneratorError) -> [PageTruth] {
        let pages = try PageGenerator.render(plan, unit: unit)
        for p in pages {
            let imagePath = directory + "/" + p.truth.image
            do {
                let q = options.jpegQuality ?? p.truth.degradation.jpegQuality
                try AtomicFile.write(try encoder.jpeg(p.image, quality: q, name: imagePath), to: imagePath)
                if options.clean {
                    let cleanPath = directory + "/" + p.truth.clean
                    try AtomicFile.write(try encoder.png(p.clean, name: cleanPath), to: cleanPath)
                }
            } catch let e as GeneratorError {
                throw e
            } catch let e as FileError {
                throw .output(path: e.path, reason: e.description)
            } catch {
                throw .output(path: imagePath, reason: "\(error)")
            }
            progress?(p.truth.image)
        }
        return pages.map(\.truth)
    }
}

/// Fixed-size result slots filled concurrently, one writer per index.
final class Slots<T>: @unchecked Sendable {
    private var items: [T?]
    private let lock = NSLock()
    init(_ n: Int) { items = Array(repeating: nil, count: n) }
    subscript(i: Int) -> T? {
        get { lock.withLock { items[i] } }
        set { lock.withLock { items[i] = newValue } }
    }
}

extension BookPlan {
    /// The book.json for these pages: the `picturebook-book/1` manifest, built and checked with
    /// BookModel. Text boxes are librarian-owned ground truth with every translation.
    func manifest(pages: [PageTruth]) -> Book {
        func map(_ texts: [String: String]) -> LanguageMap {
            var m = LanguageMap()
            for l in languages where texts[l] != nil { m[l] = texts[l] }
            for l in texts.keys.sorted() where m[l] == nil { m[l] = texts[l] }
            return m
        }
        let bookPages = pages.map { p in
            var page = Page(image: p.image, width: p.width, height: p.height)
            page.role = p.role.map { PageRole(rawValue: $0) }
            page.label = p.textBoxes.first { $0.role == .pageNumber }?.text
            page.single = p.role == "cover"
            page.textBoxes = p.textBoxes.enumerated().map { i, b in
                TextBox(
                    id: b.id, rect: b.rect, text: map(b.translations), role: TextRole(rawValue: b.role.rawValue),
                    language: b.language, order: i + 1, orientation: b.orientation == .horizontal ? .horizontal : .vertical,
                    polarity: (RGBA8(hex: b.inkColor)?.luma ?? 0) > 128 ? .lightOnDark : .darkOnLight,
                    inkColor: RGBColor(hex: b.inkColor), source: .librarian)
            }
            return page
        }
        return Book(
            title: .localized(map(title)), languages: languages,
            readingDirection: ReadingDirection(rawValue: readingDirection) ?? .leftToRight,
            pages: bookPages, spreads: spreads.map { Spread($0[0], $0[1]) })
    }
}
