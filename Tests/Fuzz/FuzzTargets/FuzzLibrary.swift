// The books folder the request harness serves: the sample books of Books/ at an eighth of their
// size, beside books that try to reach outside the folder, with a secret just outside it.
//
// Why small: the harness is meant to run a million requests, and a request for a page image the
// server has not prepared yet costs a full decode, clean-up and encode of a 1240×1600 scan (seconds
// in an instrumented debug build). At an eighth of the size every route does the same work on a
// tenth of a megapixel at most, so the fuzzer spends its time on routing, ids, escapes, query
// parameters and containment — what this harness is about — instead of in the JPEG codec, which
// has its own harness.
//
// Why the hostile books and the secret: "never traverses outside the library" is checked, not
// assumed. Files outside the books folder carry a token (a text file, and a JPEG with the token in
// a comment segment, which the server would pass through byte for byte if it ever served it as a
// scan); books inside reach for them by a symbolic link, by `..` in an image path, and by a
// symbolic link to the outside folder itself. No response may ever contain the token.

import BookModel
import Codecs
import Foundation
import Geometry
import Raster

struct FuzzLibrary {
    /// Written into every file outside the books folder; a response holding it read one of them.
    static let canary = "pbfuzz-canary-5d41402abc4b2a76-outside-the-library"

    /// The folder holding `books` (served), `outside` (the secret) and `cache`.
    let root: String
    let books: String
    let cache: String
    /// Ids of the books that load (the small copies); the hostile ones must be refused.
    let goodBooks: [String]

    enum SetupError: Error, CustomStringConvertible {
        case noSampleBooks(String)
        case sample(String, String)
        case write(String, String)
        var description: String {
            switch self {
            case .noSampleBooks(let p): return "\(p): no sample books to shrink (FUZZ_BOOKS names the folder)"
            case .sample(let p, let why): return "\(p): \(why)"
            case .write(let p, let why): return "cannot write \(p): \(why)"
            }
        }
    }

    /// Builds the folder under a fresh temporary directory from the books in `samples`.
    static func make(from samples: String) throws(SetupError) -> FuzzLibrary {
        let fm = FileManager.default
        let root = NSTemporaryDirectory() + "picturebook-fuzz-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        let books = root + "/books", outside = root + "/outside", cache = root + "/cache"
        for dir in [books, outside, cache] {
            do { try fm.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw .write(dir, "\(error)")
            }
        }
        let names = ((try? fm.contentsOfDirectory(atPath: samples)) ?? []).filter {
            fm.fileExists(atPath: samples + "/" + $0 + "/" + BookDirectory.manifestName)
        }.sorted()
        guard !names.isEmpty else { throw .noSampleBooks(samples) }
        for name in names { try shrink(samples + "/" + name, into: books + "/" + name) }

        // The secret, and the ways books inside try to reach it.
        let canaryJPEG = try Self.canaryJPEG()
        try write(outside + "/secret.txt", Array("\(canary)\n".utf8))
        try write(outside + "/page-001.jpg", canaryJPEG)
        let first = names[0]
        let manifest = (try? Array(Data(contentsOf: URL(fileURLWithPath: books + "/" + first + "/book.json")))) ?? []

        // A book whose first scan is a symbolic link out of the folder.
        let linked = books + "/escape-by-link"
        try copyBook(books + "/" + first, to: linked)
        try? fm.removeItem(atPath: linked + "/page-001.jpg")
        try symlink("../../outside/page-001.jpg", at: linked + "/page-001.jpg")

        // A book naming its first scan with `..`.
        let dotted = books + "/escape-by-path"
        try copyBook(books + "/" + first, to: dotted)
        let text = String(decoding: manifest, as: UTF8.self)
            .replacingOccurrences(of: "\"page-001.jpg\"", with: "\"../../outside/page-001.jpg\"")
        try write(dotted + "/book.json", Array(text.utf8))

        // A "book" that is a symbolic link to the outside folder, given a manifest there.
        try write(outside + "/book.json", manifest)
        try symlink("../outside", at: books + "/escape-folder")

        // A book whose manifest is not JSON at all.
        try write(books + "/not-json/book.json", Array("{\"format\": \"picturebook-book/1\", \"pages\": [".utf8))

        return FuzzLibrary(root: root, books: books, cache: cache, goodBooks: names)
    }

    /// A copy of one sample book with every scan at an eighth of its size and every box scaled to
    /// match, so the copy validates exactly as the original does.
    static func shrink(_ source: String, into target: String) throws(SetupError) {
        let manifestPath = source + "/" + BookDirectory.manifestName
        guard let bytes = FileManager.default.contents(atPath: manifestPath) else { throw .sample(manifestPath, "cannot read it") }
        var book: Book
        do { book = try Book.decode(Array(bytes)).book } catch { throw .sample(manifestPath, error.description) }
        for i in book.pages.indices {
            let page = book.pages[i]
            let scan = source + "/" + page.image
            var options = DecodeOptions()
            options.jpegScale = .eighth
            let small: Bitmap<RGBA8>
            let encoded: [UInt8]
            do {
                small = try ImageDecoder.decode(file: scan, options: options)
                encoded = try JPEGEncoder.encode(small, name: scan)
            } catch {
                throw .sample(scan, error.description)
            }
            try write(target + "/" + page.image, encoded)
            let sx = Double(small.width) / Double(page.width), sy = Double(small.height) / Double(page.height)
            book.pages[i].width = small.width
            book.pages[i].height = small.height
            for b in book.pages[i].textBoxes.indices {
                let r = book.pages[i].textBoxes[b].rect
                // Edges are scaled and rounded, so boxes that touched still touch and none grows
                // past the page; at least a pixel a side.
                let x0 = min(Int((Double(r.x) * sx).rounded(.down)), small.width - 1)
                let y0 = min(Int((Double(r.y) * sy).rounded(.down)), small.height - 1)
                let x1 = min(max(Int((Double(r.x + r.width) * sx).rounded(.up)), x0 + 1), small.width)
                let y1 = min(max(Int((Double(r.y + r.height) * sy).rounded(.up)), y0 + 1), small.height)
                book.pages[i].textBoxes[b].rect = PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
            }
        }
        try write(target + "/" + BookDirectory.manifestName, book.encoded())
    }

    /// An 8×8 JPEG with the canary in a comment segment right after its start marker.
    static func canaryJPEG() throws(SetupError) -> [UInt8] {
        let plain: [UInt8]
        do { plain = try JPEGEncoder.encode(Bitmap<RGBA8>(width: 8, height: 8, fill: RGBA8(r: 200, g: 10, b: 10, a: 255))) } catch {
            throw .write("canary.jpg", error.description)
        }
        let text = Array(canary.utf8)
        let length = text.count + 2
        return Array(plain[0..<2]) + [0xFF, 0xFE, UInt8(length >> 8), UInt8(length & 0xFF)] + text + Array(plain[2...])
    }

    static func copyBook(_ from: String, to: String) throws(SetupError) {
        do { try FileManager.default.copyItem(atPath: from, toPath: to) } catch { throw .write(to, "\(error)") }
    }

    static func symlink(_ destination: String, at path: String) throws(SetupError) {
        do { try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: destination) } catch {
            throw .write(path, "\(error)")
        }
    }

    static func write(_ path: String, _ bytes: [UInt8]) throws(SetupError) {
        let dir = (path as NSString).deletingLastPathComponent
        do {
            try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path))
        } catch {
            throw .write(path, "\(error)")
        }
    }

    /// Removes the whole folder (the harness calls this when its process ends cleanly).
    func remove() { try? FileManager.default.removeItem(atPath: root) }
}
