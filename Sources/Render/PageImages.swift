// Page pictures for rendering: scans and cleared pages decoded once, at no more resolution
// than the screen needs (JPEG scaling in the decoder does most of the shrinking for free).

public import BookModel
import Codecs
import FileIO
import Foundation
public import Raster

/// Errors while rendering; every message names the file and what went wrong.
public enum RenderError: Error, CustomStringConvertible {
    case pageImage(path: String, reason: String)
    case noSuchPage(Int, count: Int)
    case noSuchBox(String)
    case typesetting(boxID: String, reason: String)
    case write(path: String, reason: String)
    case lastScreen(page: Int)

    public var description: String {
        switch self {
        case .pageImage(let p, let r): return "\(p): cannot read page image: \(r)"
        case .noSuchPage(let n, let c): return "page \(n) does not exist (the book has \(c) pages)"
        case .noSuchBox(let id): return "no text box with id '\(id)' on the rendered pages"
        case .typesetting(let id, let r): return "text box \(id): \(r)"
        case .write(let p, let r): return "\(p): cannot write: \(r)"
        case .lastScreen(let n): return "page \(n) is on the last screen: there is no next screen to turn to"
        }
    }
}

/// Which picture of a page.
public enum PageVariant: Sendable, Hashable {
    /// The scan as printed.
    case scan
    /// BOOK_DIR/clear/<stem>.png, the page with its printed text removed.
    case cleared
}

/// Loads and caches page pictures of one book; safe to use from several threads (the pages of
/// a spread load in parallel).
public final class PageImages: @unchecked Sendable {
    public let directory: String
    public let book: Book
    private var cache: [Key: Bitmap<RGBA8>] = [:]
    private let lock = NSLock()

    private struct Key: Hashable {
        var page: Int, variant: PageVariant, width: Int, height: Int
    }

    /// Where cleared pages are looked for: BOOK_DIR/clear unless given.
    public let clearedDirectory: String

    public init(directory: String, book: Book, clearedDirectory: String? = nil) {
        self.directory = directory
        self.book = book
        self.clearedDirectory = clearedDirectory ?? directory + "/clear"
    }

    /// <clearedDirectory>/<stem>.png for page `number` (1-based).
    public func clearedPath(of number: Int) -> String? {
        guard number >= 1, number <= book.pages.count else { return nil }
        let image = book.pages[number - 1].image
        let file = image.split(separator: "/").last.map(String.init) ?? image
        let stem = file.contains(".") ? String(file[..<file.lastIndex(of: ".")!]) : file
        return clearedDirectory + "/" + stem + ".png"
    }

    /// Whether page `number` has a cleared picture to show: its file exists and no box of it but
    /// a page number was left as scanned for review (that box's printed text is still in the
    /// picture; `Page.readsAsScanInClearText`).
    public func hasCleared(_ number: Int) -> Bool {
        guard let path = clearedPath(of: number), !book.pages[number - 1].readsAsScanInClearText else { return false }
        return FileIO.exists(path)
    }

    /// The page's picture at exactly `width`×`height` pixels.
    public func image(_ number: Int, variant: PageVariant = .scan, width: Int, height: Int) throws -> Bitmap<RGBA8> {
        guard number >= 1, number <= book.pages.count else { throw RenderError.noSuchPage(number, count: book.pages.count) }
        let key = Key(page: number, variant: variant, width: width, height: height)
        if let hit = lock.withLock({ cache[key] }) { return hit }
        let path = variant == .cleared ? clearedPath(of: number)! : BookDirectory.imagePath(of: book.pages[number - 1], in: directory)
        let out: Bitmap<RGBA8>
        do {
            // From the file, read in pieces: the encoded file is never held beside the pixels.
            let info = try ImageDecoder.info(file: path)
            if ImageDecoder.canDecodeRows(info), !info.hasAlpha, info.width > 0, info.height > 0 {
                out = try Self.decodeResampling(path, info: info, width: max(1, width), height: max(1, height))
            } else {
                let scale = JPEGScale.largestReduction(from: info, covering: width, height)
                let decoded = try ImageDecoder.decode(file: path, options: DecodeOptions(jpegScale: scale))
                out = decoded.resized(width: max(1, width), height: max(1, height))
            }
        } catch {
            throw RenderError.pageImage(path: path, reason: "\(error)")
        }
        lock.withLock { cache[key] = out }
        return out
    }

    /// An opaque PNG (a cleared page) decoded a strip of rows at a time straight into the
    /// resampler: the full-size page is never held, which saves its allocation, the page faults
    /// of touching it and a pass over it, the bulk of a spread's decode-and-resize time.
    private static func decodeResampling(_ name: String, info: ImageInfo, width: Int, height: Int) throws -> Bitmap<RGBA8> {
        try Bitmap<RGBA8>(width: width, height: height) { out in
            let resampler = RowResampler(sourceWidth: info.width, sourceHeight: info.height, width: width, height: height, into: out)
            // The file is opened again to decode: if it was replaced since `info` by one of
            // another size, its rows are not fed to a resampler sized for the first.
            var changed = false
            let found = try ImageDecoder.decodeRows(file: name) { rows, first, count in
                guard !changed, rows.count >= count * info.width, first + count <= info.height else { changed = true; return }
                resampler.consume(rows, count: count)
            }
            guard !changed, found.width == info.width, found.height == info.height, resampler.isComplete else {
                throw RenderError.pageImage(path: name, reason: "the file changed while it was being read")
            }
        }
    }

    /// The page's picture with its longer side near `maxSide`, aspect kept (for transitions,
    /// which resize every frame anyway).
    public func preview(_ number: Int, maxSide: Int) throws -> Bitmap<RGBA8> {
        guard number >= 1, number <= book.pages.count else { throw RenderError.noSuchPage(number, count: book.pages.count) }
        let p = book.pages[number - 1]
        let (w, h) = Bitmap<RGBA8>.fittedSize(width: max(1, p.width), height: max(1, p.height), maxWidth: maxSide, maxHeight: maxSide, allowEnlarging: true)
        return try image(number, width: w, height: h)
    }
}
