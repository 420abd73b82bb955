import ArgumentParser
import BookModel
import Codecs
import FileIO
import Formats
import Foundation
import Raster

/// `import` of scans that are not PNG or JPEG: TIFF, JPEG 2000 and PDF pages become PNG or JPEG
/// files in the book folder, one page decoded, encoded and written at a time — a 300-page
/// document costs one page's pixels, never the whole document's.
extension Import {
    /// A book from one file of scans: a multi-page TIFF, a PDF, or a single image.
    func importDocument(_ kind: ImageFormat) throws -> (book: Book, copies: [(from: String, to: String)]) {
        let name = BookDirectory.stem(of: source)
        let direction = ReadingDirection(rawValue: readingDirection) ?? .leftToRight
        let bookLanguages = languages.isEmpty ? ["und"] : languages
        if kind.isWebImage {
            // A single PNG or JPEG needs no conversion: it is copied as it is.
            let info = try ImageDecoder.info(file: source)
            let image = BookDirectory.lastComponentName(source)
            let page = Page(image: image, width: info.orientedWidth, height: info.orientedHeight)
            return (Book(title: .plain(title ?? name), languages: bookLanguages, readingDirection: direction, pages: [page]), [(source, image)])
        }
        let document = try ScanDocument(file: source)
        let digits = max(4, String(document.pageCount).count)
        let progress = Progress("import", total: document.pageCount)
        defer { progress.finish() }
        var pages: [Page] = []
        var copies: [(from: String, to: String)] = []
        var sources: [ScanPageSource: Int] = [:]
        for k in 0..<document.pageCount {
            let number = String(k + 1)
            let image = "scans/p" + String(repeating: "0", count: digits - number.count) + number + "." + scanExtension
            let (width, height, from) = try writePage(document, index: k, to: image)
            sources[from, default: 0] += 1
            var page = Page(image: image, width: width, height: height)
            if k == 0 && document.pageCount > 1 {
                page.role = .cover
                page.single = true
            }
            pages.append(page)
            copies.append(("", image))
            progress.advance(document.pageName(k))
        }
        if document.format == .pdf {
            let summary = sources.map { (count: $0.value, name: "\($0.key)") }.sorted { ($1.count, $0.name) < ($0.count, $1.name) }.map { "\($0.count) \($0.name)" }.joined(separator: ", ")
            Console.err("import: \(source): \(summary)")
        }
        return (Book(title: .plain(title ?? name), languages: bookLanguages, readingDirection: direction, pages: pages), copies)
    }

    /// The pages of a folder import whose scans are not PNG or JPEG, converted into BOOK_DIR/scans;
    /// the others are copied as they are. Returns each page's (source, name in the book).
    func convertScans(of book: inout Book, in dir: String) throws -> [(from: String, to: String)] {
        var copies: [(from: String, to: String)] = []
        var pending: [Int] = []
        for (k, page) in book.pages.enumerated() {
            let path = dir + "/" + page.image
            let format = ImageFormat.sniff((try? FileIO.readPrefix(path, count: 16)) ?? [])
            if let format, !format.isWebImage { pending.append(k) }
            copies.append((path, page.image))
        }
        guard !pending.isEmpty else { return copies }
        let progress = Progress("import", total: pending.count)
        defer { progress.finish() }
        for k in pending {
            let path = copies[k].from
            let document = try ScanDocument(file: path)
            guard document.pageCount == 1 else {
                throw FormatError.unsupportedDocument(
                    file: path, reason: "holds \(document.pageCount) pages; import a multi-page file on its own (picturebook import \(path) --out BOOK_DIR)")
            }
            let image = "scans/" + BookDirectory.stem(of: book.pages[k].image) + "." + scanExtension
            let (width, height, _) = try writePage(document, index: 0, to: image)
            book.pages[k].image = image
            book.pages[k].width = width
            book.pages[k].height = height
            copies[k] = ("", image)
            progress.advance(path)
        }
        return copies
    }

    private var scanExtension: String { scanFormat == "png" ? "png" : "jpg" }

    /// Decodes one page, encodes it as --scan-format and writes it atomically to BOOK_DIR/`image`;
    /// the bitmap is released before the next page is read.
    private func writePage(_ document: ScanDocument, index: Int, to image: String) throws -> (Int, Int, ScanPageSource) {
        let (bitmap, from) = try document.page(index, renderDPI: dpi)
        let name = document.pageName(index)
        let bytes = scanFormat == "png"
            ? try PNGEncoder.encode(bitmap, name: name)
            : try JPEGEncoder.encode(bitmap, options: JPEGEncodeOptions(quality: quality), name: name)
        try FileIO.createDirectory(out + "/scans")
        try AtomicFile.write(bytes, to: out + "/" + image)
        return (bitmap.width, bitmap.height, from)
    }
}

extension BookDirectory {
    /// "a/b/p1.png" → "p1.png".
    static func lastComponentName(_ path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }
}
