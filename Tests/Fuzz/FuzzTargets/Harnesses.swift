// The fuzz harnesses: what each one feeds its input to, and what it checks beyond "does not
// crash". The same functions run under libFuzzer (`make fuzz`, an instrumented build of
// `picturebook-fuzz`) and, uninstrumented, in FuzzRegressionTests over every file of
// Tests/Fuzz/Corpus, so an input that once crashed stays a test.

public import Foundation
import BookModel
import Codecs
import Raster

/// One fuzz target.
public enum Harness: String, CaseIterable, Sendable {
    /// PNG bytes → header, RGBA decode, gray decode, row-by-row decode.
    case png
    /// JPEG bytes → header, RGBA decode at full and reduced scale, gray decode, strict decode;
    /// a progressive file also decoded in bands of one MCU row, which must give the same.
    case jpeg
    /// book.json bytes → parse + validate; a manifest that loads must survive encode → decode.
    case book
    /// TIFF bytes → header, RGBA and gray decode of the first page, then every page (up to 8)
    /// through ScanDocument, as `import` reads a multi-page file.
    case tiff
    /// JPEG 2000 (JP2 or J2K) bytes → header, RGBA and gray decode, and a decode in bands of
    /// three rows, which must give the same image.
    case jp2
    /// PDF bytes → each page (up to 4) as import takes it: the single image, or a rendering.
    case pdf
    /// An HTTP request (method line, headers) → the reader server's router, over Books/.
    case request

    /// What the harness found wrong other than a crash (libFuzzer turns a trap into a finding,
    /// so the instrumented build stops on these; the regression tests report them).
    public struct Violation: Error, CustomStringConvertible {
        public var description: String
    }

    /// Runs one input. Throws only for a broken property; decoding errors are the expected
    /// outcome for most inputs and are swallowed.
    public func run(_ bytes: [UInt8]) throws(Violation) {
        switch self {
        case .png, .jpeg, .jp2: try Self.image(bytes)
        case .tiff:
            try Self.image(bytes)
            try Self.document(bytes, pages: 8)
        case .pdf: try Self.document(bytes, pages: 4)
        case .book: try Self.book(bytes)
        case .request: _ = try RequestHarness.shared.status(bytes)
        }
    }

    /// The status the reader server answers a request input with (nil: not a request).
    public static func responseStatus(_ bytes: [UInt8]) throws(Violation) -> Int? {
        try RequestHarness.shared.status(bytes)
    }

    /// The request harness's checks of one answer (exposed so a test can show they fail).
    public static func checkResponse(what: String, asked: String, status: Int, body: [UInt8]) throws(Violation) {
        try RequestHarness.check(what: what, asked: asked, status: status, body: body, secrets: RequestHarness.shared.secrets)
    }

    /// The texts no answer of the request harness may contain (the first is the secret kept
    /// outside the books folder).
    public static var requestSecrets: [String] { RequestHarness.shared.secrets.map(\.0) }

    /// Small ceilings, so that a valid input declaring a big image is refused in microseconds and
    /// libFuzzer's RSS limit catches any allocation a declared length could still force
    /// (the decoders must never allocate more than the limits allow, whatever the file says).
    /// A quarter of a megapixel: the parsing paths do not depend on the size, but the pixel loops
    /// do — with 2 MP, a 286-byte CCITT G4 TIFF of 3160×529 took seconds under AddressSanitizer
    /// (five decodes of each input), and the tiff harness fell from 3,100 to 21 inputs a second.
    static let options = DecodeOptions(limits: DecodeLimits(maxDimension: 4096, maxPixels: 262_144))

    static func image(_ bytes: [UInt8]) throws(Violation) {
        let name = "fuzz-input"
        guard let info = try? ImageDecoder.info(bytes, name: name) else {
            // A file whose header does not read must not decode either.
            if (try? ImageDecoder.decode(bytes, name: name, options: options)) != nil {
                throw Violation(description: "decoded an image whose header was refused")
            }
            return
        }
        var options = options
        if let rgba = try? ImageDecoder.decode(bytes, name: name, options: options) {
            guard options.limits.allows(width: rgba.width, height: rgba.height) else {
                throw Violation(description: "decoded \(rgba.width)×\(rgba.height), past the limits")
            }
            guard rgba.width == info.orientedWidth, rgba.height == info.orientedHeight else {
                throw Violation(description: "header says \(info.orientedWidth)×\(info.orientedHeight), pixels are \(rgba.width)×\(rgba.height)")
            }
        }
        _ = try? ImageDecoder.decodeGray(bytes, name: name, options: options)
        if info.format == .jpeg && info.isInterlaced {
            // A progressive file read a band of MCU rows at a time (how large ones are) must give
            // exactly what libjpeg gives whole: the same pixels, or the same error.
            var banded = options
            banded.progressiveBandBytes = 1
            for strict in [false, true] {
                options.strict = strict
                banded.strict = strict
                let whole = Result { () throws(CodecError) in try ImageDecoder.decode(bytes, name: name, options: options) }
                let bands = Result { () throws(CodecError) in try ImageDecoder.decode(bytes, name: name, options: banded) }
                switch (whole, bands) {
                case (.success(let a), .success(let b)) where a == b: break
                case (.failure(let a), .failure(let b)) where a == b: break
                default:
                    throw Violation(description: "progressive JPEG in bands (strict \(strict)): \(bands.map { "\($0.width)×\($0.height)" }), whole: \(whole.map { "\($0.width)×\($0.height)" })")
                }
            }
            options.strict = false
        }
        if info.format == .jpeg2000 {
            // Read a band of three rows at a time (how large images are), the same image: exactly
            // for the reversible wavelet; OpenJPEG's decode of an area with the 9/7 one may put a
            // rare sample one level off (Documentation/Reliability.md), so one level is allowed.
            var banded = options
            banded.jpeg2000BandRows = 3
            let whole = Result { () throws(CodecError) in try ImageDecoder.decode(bytes, name: name, options: options) }
            let bands = Result { () throws(CodecError) in try ImageDecoder.decode(bytes, name: name, options: banded) }
            switch (whole, bands) {
            case (.success(let a), .success(let b)) where a.width == b.width && a.height == b.height:
                for (p, q) in zip(a.pixels, b.pixels) where max(absDiff(p.r, q.r), absDiff(p.g, q.g), absDiff(p.b, q.b), absDiff(p.a, q.a)) > 1 {
                    throw Violation(description: "JPEG 2000 in bands: \(q) where the whole decode gives \(p)")
                }
            case (.failure, .failure): break
            default:
                throw Violation(description: "JPEG 2000 in bands: \(bands.map { "\($0.width)×\($0.height)" }), whole: \(whole.map { "\($0.width)×\($0.height)" })")
            }
        }
        if info.format == .jpeg {
            options.jpegScale = .eighth
            _ = try? ImageDecoder.decode(bytes, name: name, options: options)
            options.jpegScale = .full
            options.fastJPEG = true
        }
        options.strict = true
        _ = try? ImageDecoder.decode(bytes, name: name, options: options)
        if ImageDecoder.canDecodeRows(info, options: options) {
            var rows = 0
            _ = try? ImageDecoder.decodeRows(bytes, name: name, options: options) { _, first, count in
                rows = max(rows, first + count)
            }
            if rows > info.height { throw Violation(description: "row decoding delivered \(rows) rows of \(info.height)") }
        }
    }

    /// A multi-page TIFF or a PDF page by page; every page that decodes must be within the limits.
    /// PDF pages are rendered at 36 dpi so a page of vector art costs milliseconds, not seconds.
    static func document(_ bytes: [UInt8], pages: Int) throws(Violation) {
        guard let doc = try? ScanDocument(bytes: bytes, name: "fuzz-input", limits: options.limits) else { return }
        guard doc.pageCount >= 1 else { throw Violation(description: "a document opened with no pages") }
        for k in 0..<min(pages, doc.pageCount) {
            guard let (bitmap, _) = try? doc.page(k, options: options, renderDPI: 36) else { continue }
            guard options.limits.allows(width: bitmap.width, height: bitmap.height), bitmap.width > 0, bitmap.height > 0 else {
                throw Violation(description: "page \(k + 1) decoded \(bitmap.width)×\(bitmap.height), outside the limits")
            }
        }
    }

    static func book(_ bytes: [UInt8]) throws(Violation) {
        guard let (book, _) = try? Book.decode(bytes) else { return }
        let again = book.encoded()
        guard let (reread, _) = try? Book.decode(again) else {
            throw Violation(description: "a valid manifest, written back, no longer loads")
        }
        guard reread == book else { throw Violation(description: "encode → decode changed the book") }
    }
}

private func absDiff(_ a: UInt8, _ b: UInt8) -> Int { abs(Int(a) - Int(b)) }
