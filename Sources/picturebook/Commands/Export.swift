import ArgumentParser
import BookModel
import Codecs
import FileIO
import Formats
import Foundation
import Raster

/// `picturebook export`: a book in a standard format for libraries, viewers, e-readers and comic
/// readers. The Formats module makes the documents; this command reads the book and its scans
/// and writes the result atomically.
struct Export: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Write a book as ALTO, hOCR, a IIIF manifest, a CBZ comic archive or a fixed-layout EPUB.",
        discussion: """
            Formats (Documentation/Formats.md describes each):
              alto   ALTO 4.4 XML per page: --out is a folder; files are <scan-stem>.alto.xml
              hocr   hOCR per page: --out is a folder; files are <scan-stem>.hocr
              iiif   IIIF Presentation 3 manifest: --out is the manifest file (or a folder to get \
            manifest.json in it); ids and image URLs start with --base-url, the URL the book \
            folder is published at (default http://localhost:8080/iiif/<book-folder-name>, \
            where `picturebook serve` publishes it)
              cbz    comic archive with ComicInfo.xml: --out is the .cbz file; spreads become one \
            double-page image
              epub   EPUB 3 fixed layout: --out is the .epub file; scans with a text layer, then a \
            ClearText edition per language (cleared images from BOOK/clear/ when \
            `picturebook clear` has made them, except for pages with a box left for review, \
            shown as the scan as the reader shows them; --no-cleartext leaves these out)

            Examples:
              picturebook export Books/moon-rabbit --format epub --out moon-rabbit.epub
              picturebook export Books/moon-rabbit --format iiif --out site/moon-rabbit/manifest.json --base-url https://example.org/moon-rabbit
              picturebook export Books/moon-rabbit --format alto --out /tmp/alto
            """)

    enum Format: String, ExpressibleByArgument, CaseIterable {
        case alto, hocr, iiif, cbz, epub
    }

    @Argument(help: ArgumentHelp("The book folder.", valueName: "book-dir"), completion: .directory)
    var book: String

    @Option(help: "alto, hocr, iiif, cbz or epub.")
    var format: Format

    @Option(help: "Output file (iiif, cbz, epub) or folder (alto, hocr).", completion: .file())
    var out: String

    @Option(help: "IIIF only: the URL the book folder is published at.")
    var baseURL: String?

    @Flag(help: "IIIF only: give each scan a level-1 IIIF Image API service under the base URL (as `picturebook serve` provides).")
    var imageService = false

    @Flag(help: "EPUB only: leave out the ClearText editions.")
    var noCleartext = false

    func validate() throws {
        if let baseURL {
            guard baseURL.hasPrefix("http://") || baseURL.hasPrefix("https://"), baseURL.count > 8, !baseURL.contains(" ") else {
                throw ValidationError("--base-url must be an http:// or https:// URL without spaces, got '\(baseURL)'")
            }
        }
        if format != .iiif, baseURL != nil || imageService { throw ValidationError("--base-url and --image-service apply to --format iiif only") }
        if format != .epub, noCleartext { throw ValidationError("--no-cleartext applies to --format epub only") }
    }

    func run() throws {
        guard FileIO.exists(book) else {
            Console.error("export: \(book): no such book folder")
            throw ExitCode.failure
        }
        let (directory, _) = BookDirectory.resolve(book)
        let loaded: Book
        do { loaded = try Book.load(directory: directory).book } catch {
            Console.error("export: \(error)")
            throw ExitCode.failure
        }
        try reportingFailure {
            switch format {
            case .alto, .hocr:
                try FileIO.createDirectory(out)
                for n in 1...loaded.pages.count {
                    let page = loaded.pages[n - 1]
                    let (name, bytes) = format == .alto
                        ? (ALTO.fileName(for: page), ALTO.document(book: loaded, pageNumber: n))
                        : (HOCR.fileName(for: page), HOCR.document(book: loaded, pageNumber: n))
                    try AtomicFile.write(bytes, to: try FileIO.child(name, of: out))
                }
                Console.err("export: \(loaded.pages.count) \(format.rawValue) file(s) in \(out)")
            case .iiif:
                let name = URL(fileURLWithPath: directory).standardizedFileURL.lastPathComponent
                let base = baseURL ?? "http://localhost:8080/iiif/" + (name.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? "book")
                let target = FileIO.isDirectory(out) ? out + "/manifest.json" : out
                try AtomicFile.write(IIIF.manifest(book: loaded, baseURL: base, imageService: imageService), to: target)
                Console.err("export: IIIF manifest of \(loaded.pages.count) canvases in \(target)")
            case .cbz:
                let images = try ExportImages.cbzImages(book: loaded, directory: directory)
                try AtomicFile.write(try CBZ.archive(book: loaded, images: images, timestamp: ExportImages.zipTimestamp()), to: out)
                Console.err("export: \(images.count) image(s) in \(out)")
            case .epub:
                let scans = try loaded.pages.map { try FileIO.read(BookDirectory.imagePath(of: $0, in: directory)) }
                var cleared: [[UInt8]?] = []
                if !noCleartext {
                    cleared = try loaded.pages.map { page in
                        let path = directory + "/clear/" + BookDirectory.stem(of: page.image) + ".png"
                        // A page with a box left as scanned for review is shown as the scan, as
                        // the reader shows it (its cleared picture still has that box's text);
                        // a kept page number alone keeps its print and the page its ClearText.
                        guard FileIO.exists(path), !page.readsAsScanInClearText else { return nil }
                        let bytes = try FileIO.read(path)
                        // A cleared image of another size is stale (the scan was replaced); the
                        // page then falls back to the scan with its boxes painted over.
                        let info = try ImageDecoder.info(bytes, name: path)
                        return info.width == page.width && info.height == page.height ? bytes : nil
                    }
                }
                let options = EPUB.Options(clearText: !noCleartext, modified: ExportImages.isoNow())
                try AtomicFile.write(try EPUB.archive(book: loaded, scans: scans, cleared: cleared, options: options), to: out)
                let found = cleared.compactMap { $0 }.count
                Console.err("export: EPUB of \(loaded.pages.count) page(s)" + (noCleartext ? "" : " + ClearText in \(loaded.languages.count) language(s), \(found) cleared image(s) from clear/") + " in \(out)")
            }
        }
    }
}

/// Reading and joining the scans the packaging formats need.
enum ExportImages {
    /// One image per CBZ entry: a page's scan as it is, or a spread's two scans side by side (in
    /// a right-to-left book the first page read is on the right), re-encoded as JPEG.
    static func cbzImages(book: Book, directory: String) throws -> [CBZ.Image] {
        try CBZ.plan(book).map { group in
            let pages = group.map { book.pages[$0 - 1] }
            if group.count == 1 {
                let bytes = try FileIO.read(BookDirectory.imagePath(of: pages[0], in: directory))
                return CBZ.Image(bytes: bytes, width: pages[0].width, height: pages[0].height, pages: group)
            }
            let paths = pages.map { BookDirectory.imagePath(of: $0, in: directory) }
            var bitmaps = try paths.map { try ImageDecoder.decode(file: $0) }
            // Spread pages should share a height (validate warns otherwise); scale the second to
            // the first's so the picture lines up across the fold.
            if bitmaps[1].height != bitmaps[0].height {
                let w = max(1, Int((Double(bitmaps[1].width) * Double(bitmaps[0].height) / Double(bitmaps[1].height)).rounded()))
                bitmaps[1] = bitmaps[1].resized(width: w, height: bitmaps[0].height)
            }
            if book.readingDirection == .rightToLeft { bitmaps.reverse() }
            var joined = Bitmap<RGBA8>(width: bitmaps[0].width + bitmaps[1].width, height: bitmaps[0].height, fill: RGBA8(r: 255, g: 255, b: 255))
            joined.paste(bitmaps[0], atX: 0, y: 0)
            joined.paste(bitmaps[1], atX: bitmaps[0].width, y: 0)
            let bytes = try JPEGEncoder.encode(joined, options: JPEGEncodeOptions(quality: 90), name: paths.joined(separator: " + "))
            return CBZ.Image(bytes: bytes, width: joined.width, height: joined.height, pages: group)
        }
    }

    static func zipTimestamp() -> ZipWriter.Timestamp {
        let c = Calendar(identifier: .gregorian).dateComponents(in: TimeZone.current, from: Date())
        return ZipWriter.Timestamp(year: c.year ?? 1980, month: c.month ?? 1, day: c.day ?? 1, hour: c.hour ?? 0, minute: c.minute ?? 0, second: c.second ?? 0)
    }

    /// Now in UTC as EPUB's dcterms:modified wants it, to the second.
    static func isoNow() -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        f.timeZone = TimeZone(identifier: "UTC")
        return f.string(from: Date())
    }
}
