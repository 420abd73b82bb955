// TIFF, JPEG 2000 and PDF decoding over the tiny files in Fixtures/Scans, which
// Tools/make-scan-fixtures.py draws from the patterns below (tiffcp and opj_compress compress them,
// the PDF is written by hand). Each decoded pixel is compared with the pattern, so a swapped
// channel, a wrong bit-depth reduction or a flipped row fails.
import Codecs
import Foundation
import Raster
import Testing

extension Result {
    var error: Failure? { if case .failure(let e) = self { return e } else { return nil } }
}

enum ScanFixtures {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/Scans").path
    static func path(_ name: String) -> String { folder + "/" + name }
    static func bytes(_ name: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path(name)))) }

    static let width = 24, height = 16

    // The generator's patterns, the same formulas.
    static func gray(_ x: Int, _ y: Int) -> RGBA8 { let v = UInt8((x * 10 + y * 5) % 256); return RGBA8(r: v, g: v, b: v) }
    static func rgb(_ x: Int, _ y: Int) -> RGBA8 {
        RGBA8(r: UInt8((x * 10) % 256), g: UInt8((y * 15) % 256), b: UInt8((x * 3 + y * 7) % 256))
    }
    static func bilevel(_ x: Int, _ y: Int) -> RGBA8 { RGBA8(gray: (x / 3 + y / 2) % 2 == 0 ? 0 : 255) }
    static let palette: [RGBA8] = [RGBA8(r: 250, g: 10, b: 10), RGBA8(r: 10, g: 200, b: 30), RGBA8(r: 20, g: 40, b: 240), .white]
    static func paletted(_ x: Int, _ y: Int) -> RGBA8 { palette[(x / 6 + y / 4) % 4] }
}

/// The largest and the mean per-channel difference between `bitmap` and `pattern`.
private func difference(_ bitmap: Bitmap<RGBA8>, _ pattern: (Int, Int) -> RGBA8) -> (max: Int, mean: Double) {
    var worst = 0, total = 0
    for y in 0..<bitmap.height {
        for x in 0..<bitmap.width {
            let a = bitmap[x, y], b = pattern(x, y)
            for d in [Int(a.r) - Int(b.r), Int(a.g) - Int(b.g), Int(a.b) - Int(b.b), Int(a.a) - Int(b.a)] {
                worst = max(worst, abs(d))
                total += abs(d)
            }
        }
    }
    return (worst, Double(total) / Double(bitmap.width * bitmap.height * 4))
}

struct ScanFixture: Sendable, CustomTestStringConvertible {
    let file: String
    let format: ImageFormat
    let pattern: @Sendable (Int, Int) -> RGBA8
    /// Largest channel error allowed: 0 for lossless files, more for JPEG-in-TIFF.
    let tolerance: Int
    let isGray: Bool
    let bitDepth: Int
    var testDescription: String { file }
}

@Suite struct ScanFormatTests {
    static let fixtures: [ScanFixture] = [
        .init(file: "gray8-lzw.tif", format: .tiff, pattern: ScanFixtures.gray, tolerance: 0, isGray: true, bitDepth: 8),
        .init(file: "gray16-deflate.tif", format: .tiff, pattern: ScanFixtures.gray, tolerance: 1, isGray: true, bitDepth: 16),
        .init(file: "rgb8-jpeg.tif", format: .tiff, pattern: ScanFixtures.rgb, tolerance: 48, isGray: false, bitDepth: 8),
        .init(file: "rgb16-lzw.tif", format: .tiff, pattern: ScanFixtures.rgb, tolerance: 1, isGray: false, bitDepth: 16),
        .init(file: "bilevel-g4.tif", format: .tiff, pattern: ScanFixtures.bilevel, tolerance: 0, isGray: true, bitDepth: 1),
        .init(file: "palette8-lzw.tif", format: .tiff, pattern: ScanFixtures.paletted, tolerance: 0, isGray: false, bitDepth: 8),
        .init(file: "three-pages.tif", format: .tiff, pattern: ScanFixtures.gray, tolerance: 0, isGray: true, bitDepth: 8),
        .init(file: "rgb8.jp2", format: .jpeg2000, pattern: ScanFixtures.rgb, tolerance: 0, isGray: false, bitDepth: 8),
        .init(file: "gray8.jp2", format: .jpeg2000, pattern: ScanFixtures.gray, tolerance: 0, isGray: true, bitDepth: 8),
        .init(file: "gray16.j2k", format: .jpeg2000, pattern: ScanFixtures.gray, tolerance: 0, isGray: true, bitDepth: 16),
        .init(file: "rgb8-tiled.jp2", format: .jpeg2000, pattern: ScanFixtures.rgb, tolerance: 0, isGray: false, bitDepth: 8),
    ]

    @Test(arguments: fixtures)
    func decodesToThePattern(_ f: ScanFixture) throws {
        let bytes = try ScanFixtures.bytes(f.file)
        #expect(ImageFormat.sniff(bytes) == f.format)
        let info = try ImageDecoder.info(bytes, name: f.file)
        #expect(info.format == f.format)
        #expect(info.width == ScanFixtures.width && info.height == ScanFixtures.height)
        #expect(info.isGray == f.isGray)
        #expect(info.bitDepth == f.bitDepth)
        let bitmap = try ImageDecoder.decode(bytes, name: f.file)
        #expect(bitmap.width == ScanFixtures.width && bitmap.height == ScanFixtures.height)
        let d = difference(bitmap, f.pattern)
        #expect(d.max <= f.tolerance, "largest channel error \(d.max)")
        if f.tolerance > 0 { #expect(d.mean < 6, "mean channel error \(d.mean)") }
        // Gray decoding goes through the same pixels.
        let gray = try ImageDecoder.decodeGray(bytes, name: f.file)
        #expect(gray.width == bitmap.width && gray.height == bitmap.height)
        if f.isGray { #expect(gray[5, 7] == bitmap[5, 7].r) }
    }

    @Test func multiPageTIFFDecodesEachPage() throws {
        let doc = try ScanDocument(file: ScanFixtures.path("three-pages.tif"))
        #expect(doc.format == .tiff && doc.pageCount == 3)
        let patterns: [(Int, Int) -> RGBA8] = [ScanFixtures.gray, ScanFixtures.rgb, ScanFixtures.bilevel]
        for (k, pattern) in patterns.enumerated() {
            let (bitmap, source) = try doc.page(k)
            #expect(source == .image)
            #expect(difference(bitmap, pattern).max == 0, "page \(k + 1)")
        }
        #expect(doc.pageName(1) == ScanFixtures.path("three-pages.tif") + " page 2")
        // The same document from memory (the fuzz harness's way in) has the same pages.
        let fromMemory = try ScanDocument(bytes: try ScanFixtures.bytes("three-pages.tif"), name: "three-pages.tif")
        #expect(fromMemory.pageCount == 3)
        #expect(difference(try fromMemory.page(2).bitmap, ScanFixtures.bilevel).max == 0)
        #expect(throws: CodecError.self) { _ = try doc.page(3) }
    }

    @Test func pdfTakesTheScanAsStoredAndRendersOtherPages() throws {
        let doc = try ScanDocument(file: ScanFixtures.path("two-pages.pdf"))
        #expect(doc.format == .pdf && doc.pageCount == 2)
        // Page 1: one 24×16 image on a 72×48 pt page: taken at its own 24×16, not at 300 dpi.
        let (scan, scanSource) = try doc.page(0)
        #expect(scanSource == .embeddedImage)
        #expect(scan.width == 24 && scan.height == 16)
        #expect(difference(scan, ScanFixtures.rgb).max == 0)
        // Page 2: a navy square on white, rendered: 72×48 pt at 150 dpi is 150×100 pixels.
        let (page, source) = try doc.page(1, renderDPI: 150)
        #expect(source == .rendered(dpi: 150))
        #expect(page.width == 150 && page.height == 100)
        #expect(page[3, 3] == .white)
        let centre = page[75, 50]
        #expect(centre.r < 5 && centre.g < 5 && abs(Int(centre.b) - 128) <= 2 && centre.a == 255)
        #expect(page[75, 5] == .white)  // above the square (it spans y 25...75)
    }

    @Test func limitsAreCheckedBeforeDecoding() throws {
        let small = DecodeLimits(maxDimension: 20, maxPixels: 10_000)
        for file in ["rgb16-lzw.tif", "rgb8.jp2"] {
            #expect(throws: CodecError.tooLarge(name: file, width: 24, height: 16, limits: small)) {
                _ = try ImageDecoder.decode(try ScanFixtures.bytes(file), name: file, options: DecodeOptions(limits: small))
            }
        }
        let doc = try ScanDocument(file: ScanFixtures.path("two-pages.pdf"))
        // 72×48 pt at 300 dpi is 300×200: over a 20-pixel limit before anything is rendered.
        #expect(throws: CodecError.self) { _ = try doc.page(1, options: DecodeOptions(limits: small)) }
    }

    static let damaged: [(file: String, cut: Int)] = [
        ("rgb16-lzw.tif", 200), ("gray8-lzw.tif", 20), ("three-pages.tif", 1500), ("rgb8.jp2", 150), ("gray16.j2k", 100),
    ]

    /// Opens and decodes every page; the error, or nil when all decoded.
    static func decodeAll(_ bytes: [UInt8], name: String) -> CodecError? {
        if ImageFormat.sniff(bytes) == .jpeg2000 {
            return Result { () throws(CodecError) in _ = try ImageDecoder.decode(bytes, name: name) }.error
        }
        return Result { () throws(CodecError) in
            let doc = try ScanDocument(bytes: bytes, name: name)
            for k in 0..<doc.pageCount { _ = try doc.page(k) }
        }.error
    }

    @Test(arguments: zip(damaged.map(\.file), damaged.map(\.cut)))
    func truncatedScansGiveErrorsNamingTheFile(_ file: String, _ keep: Int) throws {
        let bytes = Array(try ScanFixtures.bytes(file).prefix(keep))
        let error = Self.decodeAll(bytes, name: file)
        #expect(error != nil, "\(file) cut at \(keep) bytes decoded without an error")
        if let error {
            #expect(error.description.hasPrefix(file + ": "), "\(error)")
            #expect(error.description.contains("TIFF") || error.description.contains("JPEG 2000"), "\(error)")
        }
    }

    @Test func corruptPDFsNameTheFile() throws {
        var pdf = try ScanFixtures.bytes("two-pages.pdf")
        pdf = Array(pdf.prefix(300))
        #expect {
            _ = try ScanDocument(bytes: pdf, name: "scans.pdf")
        } throws: { e in
            (e as? CodecError)?.description.hasPrefix("scans.pdf: corrupt PDF: ") == true
        }
        #expect {
            _ = try ImageDecoder.decode(try ScanFixtures.bytes("two-pages.pdf"), name: "book.pdf")
        } throws: { e in
            (e as? CodecError)?.description.contains("picturebook import") == true
        }
    }
}
