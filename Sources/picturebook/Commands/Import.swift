import ArgumentParser
import BookModel
import Codecs
import FileIO
import Formats
import Foundation
import Geometry

/// `picturebook import`: a book folder from what libraries hand over — a IIIF manifest, a folder
/// of scans with ALTO or hOCR beside them, or one document of scans (a multi-page TIFF or a PDF).
struct Import: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "import",
        abstract: "Make a book folder from a local IIIF manifest, a folder of scans with ALTO/hOCR, or a TIFF/PDF of scans.",
        discussion: """
            SOURCE is either
              a IIIF Presentation 3 manifest file (.json) on this disk, such as `picturebook export \
            --format iiif` writes: canvases become pages in order, supplementing annotations text \
            boxes in every language, two-canvas no-nav ranges spreads. Each scan is looked for \
            on disk by the end of its URL's path, relative to the manifest's folder \
            (https://host/books/farm/p1.jpg → farm/p1.jpg, then p1.jpg), or at a file:// URL inside the manifest's folder.
              a folder of PNG/JPEG/TIFF/JPEG 2000 scans: pages in natural order; a scan's text is read from \
            <stem>.alto.xml or <stem>.xml (ALTO, pixel positions) or <stem>.hocr or <stem>.html \
            (hOCR) beside it. Positions are scaled when the document's page size differs from \
            the scan's.
              a multi-page TIFF, a PDF of scans, or a single TIFF/JPEG 2000/PNG/JPEG image: a page \
            per page. A PDF page that is one image (a scan) is taken at that image's own \
            resolution; any other page is rendered at --dpi.
            PNG and JPEG scans are copied into BOOK_DIR; TIFF, JPEG 2000 and PDF pages are decoded \
            one at a time and written there as --scan-format (JPEG by default) under scans/. \
            book.json is written there and validated.

            Examples:
              picturebook import site/moon-rabbit/manifest.json --out Books/moon-rabbit
              picturebook import ~/digitized/farm --out Books/farm --language en --language fr
              picturebook import delivery/ms-123.tif --out Books/ms-123 --scan-format png
              picturebook import scans.pdf --out Books/scans --reading-direction rtl
            """)

    @Argument(help: "A IIIF manifest file, a folder of scans, or a TIFF/PDF/JPEG 2000 file of scans.", completion: .file())
    var source: String

    @Option(help: "The book folder to create (it must not already hold a book.json unless --force).", completion: .directory)
    var out: String

    @Option(name: .customLong("language"), help: "A language of the book (repeat for several, main first); languages found in the text files are added after them. Default: those found, or und.")
    var languages: [String] = []

    @Option(help: "Folder or document import: ltr or rtl (a manifest says its own viewingDirection).")
    var readingDirection: String = "ltr"

    @Option(help: "Folder or document import: the book's title (default: the folder's or file's name).")
    var title: String?

    @Option(help: "What TIFF, JPEG 2000 and PDF pages are written as: jpeg or png (lossless, larger).")
    var scanFormat: String = "jpeg"

    @Option(help: "JPEG quality of converted pages, 1-100.")
    var quality: Int = 92

    @Option(help: "PDF pages that are not a single scan are rendered at this resolution (dots per inch).")
    var dpi: Double = 300

    @Flag(help: "Replace a book.json already in BOOK_DIR.")
    var force = false

    func validate() throws {
        guard ReadingDirection(rawValue: readingDirection) != nil else {
            throw ValidationError("--reading-direction must be ltr or rtl, got '\(readingDirection)'")
        }
        guard ["jpeg", "jpg", "png"].contains(scanFormat) else {
            throw ValidationError("--scan-format must be jpeg or png, got '\(scanFormat)'")
        }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1-100, got \(quality)") }
        guard dpi >= 36, dpi <= 1200 else { throw ValidationError("--dpi must be 36-1200, got \(dpi)") }
        for l in languages where !LanguageTag.isValid(l) {
            throw ValidationError("--language \(l) is not a BCP 47 language tag such as en, ar or zh-Hant")
        }
    }

    func run() throws {
        if BookDirectory.containsBook(out), !force {
            Console.error("import: \(out) already holds a book.json; give another --out or --force to replace it")
            throw ExitCode.failure
        }
        try reportingFailure {
            guard FileIO.exists(source) else { throw FormatError.nothingToImport(path: source, reason: "no such file or folder") }
            try FileIO.createDirectory(out)
            let imported: (book: Book, copies: [(from: String, to: String)])
            if FileIO.isDirectory(source) {
                imported = try importFolder()
            } else if let kind = ImageFormat.sniff((try? FileIO.readPrefix(source, count: 16)) ?? []) {
                imported = try importDocument(kind)
            } else {
                imported = try importManifest()
            }
            var book = imported.book
            // Pages already written into BOOK_DIR (converted scans) have an empty `from`.
            let copies = imported.copies
            let sameFolder = URL(fileURLWithPath: out).standardizedFileURL.path == URL(fileURLWithPath: source).standardizedFileURL.path
            if !sameFolder {
                for c in copies where !c.from.isEmpty {
                    let target = out + "/" + c.to
                    if let slash = c.to.lastIndex(of: "/") { try FileIO.createDirectory(out + "/" + c.to[..<slash]) }
                    try AtomicFile.write(try FileIO.read(c.from), to: target)
                }
            }
            for k in book.pages.indices { book.pages[k].image = copies[k].to }
            try book.save(directory: out)
            // What was written must be a valid book: load it back as every other command will.
            let (_, warnings) = try Book.load(directory: out, imageSize: pageImageSize)
            for w in warnings { Console.warning("\(BookDirectory.manifestPath(in: out)): \(w)") }
            let boxes = book.pages.reduce(0) { $0 + $1.textBoxes.count }
            Console.err("import: \(book.pages.count) page(s), \(boxes) text box(es), languages \(book.languages.joined(separator: ", ")) → \(out)")
        }
    }

    // MARK: - Folder of scans

    func importFolder() throws -> (book: Book, copies: [(from: String, to: String)]) {
        let dir = source.hasSuffix("/") && source.count > 1 ? String(source.dropLast()) : source
        var unreadable: [String] = []
        var book = try Book.make(
            fromImagesIn: dir, title: title, languages: languages.isEmpty ? ["und"] : languages,
            readingDirection: ReadingDirection(rawValue: readingDirection) ?? .leftToRight, imageSize: pageImageSize) { unreadable.append($0) }
        if let bad = unreadable.first {
            // Say what is wrong with it: the decoder's message names the file and the problem.
            do { _ = try ImageDecoder.info(file: bad) } catch { throw error }
            throw FormatError.unsupportedDocument(file: bad, reason: "not a readable PNG, JPEG, TIFF or JPEG 2000 scan")
        }
        let fallback = languages.first ?? "und"
        var found: [String] = languages
        for k in book.pages.indices {
            let page = book.pages[k]
            let stem = BookDirectory.stem(of: page.image)
            let candidates: [(String, Bool)] = [(".alto.xml", true), (".xml", true), (".hocr", false), (".hocr.html", false), (".html", false)]
            guard let textFile = candidates.lazy.map({ (path: dir + "/" + stem + $0.0, isALTO: $0.1) }).first(where: { FileIO.exists($0.path) }) else { continue }
            let (path, isALTO) = textFile
            let bytes = try FileIO.read(path, limit: 64 << 20)
            let text = isALTO
                ? try PageTextImport.alto(bytes, file: path, defaultLanguage: fallback)
                : try PageTextImport.hocr(bytes, file: path, defaultLanguage: fallback)
            book.pages[k].textBoxes = Self.fit(text, to: page)
            for b in book.pages[k].textBoxes { for l in b.text.languages where !found.contains(l) { found.append(l) } }
        }
        if !found.isEmpty { book.languages = found }
        return (book, try convertScans(of: &book, in: dir))
    }

    /// Boxes in the scan's pixels: scaled when the document measured another size of the same
    /// page, then clipped to the page (a box must lie inside it); boxes left empty are dropped.
    static func fit(_ text: ImportedPageText, to page: Page) -> [TextBox] {
        let sx = text.width.map { $0 > 0 ? Double(page.width) / Double($0) : 1 } ?? 1
        let sy = text.height.map { $0 > 0 ? Double(page.height) / Double($0) : 1 } ?? 1
        return text.boxes.compactMap { box in
            var b = box
            let r = box.rect
            let x0 = max(0, Int((Double(r.x) * sx).rounded())), y0 = max(0, Int((Double(r.y) * sy).rounded()))
            let x1 = min(page.width, Int((Double(r.x + r.width) * sx).rounded())), y1 = min(page.height, Int((Double(r.y + r.height) * sy).rounded()))
            guard x1 > x0, y1 > y0 else { return nil }
            b.rect = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            return b
        }
    }

    // MARK: - IIIF manifest

    func importManifest() throws -> (book: Book, copies: [(from: String, to: String)]) {
        let bytes = try FileIO.read(source, limit: BookDirectory.manifestSizeLimit)
        var imported = try IIIFImport.manifest(bytes, file: source)
        let base = URL(fileURLWithPath: source).deletingLastPathComponent().path
        var copies: [(from: String, to: String)] = []
        for (k, url) in imported.imageURLs.enumerated() {
            guard let scan = Self.localScan(url, near: base) else {
                throw FormatError.badManifest(file: source, reason: "the scan of canvas \(k + 1), \(url), is not on this disk (looked for the end of its path under \(base))")
            }
            copies.append((scan.path, scan.relative))
        }
        if !languages.isEmpty {
            imported.book.languages = languages + imported.book.languages.filter { !languages.contains($0) }
        }
        return (imported.book, copies)
    }

    /// The local file a manifest's image URL names: a file:// URL directly, otherwise the longest
    /// tail of the URL's path that exists under the manifest's folder. The relative path it is
    /// copied to keeps that tail (never `..`, never absolute).
    static func localScan(_ url: String, near base: String) -> (path: String, relative: String)? {
        guard let u = URL(string: url) else { return nil }
        let segments = u.path.split(separator: "/").map(String.init).filter { !$0.isEmpty && $0 != "." && $0 != ".." }
        if u.isFileURL {
            // Only files beside the manifest: a manifest from elsewhere must not be able to copy
            // any file of this machine into the new book.
            let path = URL(fileURLWithPath: u.path).standardizedFileURL.path
            let folder = URL(fileURLWithPath: base).standardizedFileURL.path
            guard path.hasPrefix(folder == "/" ? "/" : folder + "/"), FileIO.exists(path), !FileIO.isDirectory(path) else { return nil }
            return (path, String(path.dropFirst(folder == "/" ? 1 : folder.count + 1)))
        }
        for start in segments.indices {
            let relative = segments[start...].joined(separator: "/")
            let path = base + "/" + relative
            if FileIO.exists(path), !FileIO.isDirectory(path) { return (path, relative) }
        }
        return nil
    }
}
