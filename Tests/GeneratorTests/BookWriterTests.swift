import Foundation
import Testing
import BookModel
import Raster
import Codecs
@testable import Generator

/// Stands in for the JPEG/PNG codecs: a tiny deterministic serialization of the pixels.
struct RawEncoder: PageImageEncoder {
    func jpeg(_ image: Bitmap<RGBA8>, quality: Int, name: String) throws -> [UInt8] { raw(image, tag: UInt8(quality)) }
    func png(_ image: Bitmap<RGBA8>, name: String) throws -> [UInt8] { raw(image, tag: 0) }
    private func raw(_ b: Bitmap<RGBA8>, tag: UInt8) -> [UInt8] {
        var out: [UInt8] = [tag, UInt8(b.width & 0xff), UInt8(b.width >> 8), UInt8(b.height & 0xff), UInt8(b.height >> 8)]
        out.reserveCapacity(5 + b.pixelCount * 3)
        for p in b.pixels { out += [p.r, p.g, p.b] }
        return out
    }
}

@Suite struct BookWriterTests {
    func temporaryDirectory() -> String {
        let dir = NSTemporaryDirectory() + "pb-gen-\(UInt64.random(in: 0...UInt64.max))"
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test func writesPagesCleanTruthAndAValidBook() throws {
        let dir = temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let plan = try Fixture.storyPlan()
        let truth = try BookWriter.write(plan, to: dir, encoder: RawEncoder())
        #expect(truth.pages.map(\.number) == [1, 2, 3])
        for p in truth.pages {
            #expect(FileManager.default.fileExists(atPath: dir + "/" + p.image))
            #expect(FileManager.default.fileExists(atPath: dir + "/" + p.clean))
        }
        // truth.json round-trips.
        let decoded = try JSONDecoder().decode(CorpusTruth.self, from: Data(contentsOf: URL(fileURLWithPath: dir + "/truth.json")))
        #expect(decoded == truth)
        // book.json is a valid manifest carrying the translations and the spread.
        let (book, _) = try Book.load(directory: dir)
        #expect(book.pages.count == 3)
        #expect(book.spreads == [Spread(2, 3)])
        #expect(book.languages == ["en", "ar"])
        #expect(book.pages[0].role == .cover)
        let left = try #require(book.pages[1].textBoxes.first { $0.role == .body })
        #expect(left.text["en"] == "Left page words.")
        #expect(left.text["ar"] == "كلمات الصفحة اليسرى.")
        #expect(left.source == .librarian)
        #expect(book.pages[1].label == "2")
        #expect(left.rect == truth.pages[1].textBoxes.first { $0.role == .body }?.rect)
    }

    @Test func outputIsIdenticalWhateverTheScheduling() throws {
        // Two runs of a multi-unit corpus (units rendered concurrently) give identical files.
        let a = temporaryDirectory(), b = temporaryDirectory()
        defer {
            try? FileManager.default.removeItem(atPath: a)
            try? FileManager.default.removeItem(atPath: b)
        }
        let plan = try PageGenerator.plan(GeneratorOptions(seed: 77, pageCount: 3, width: 300, height: 380, difficulty: .hard))
        _ = try BookWriter.write(plan, to: a, encoder: RawEncoder())
        _ = try BookWriter.write(plan, to: b, encoder: RawEncoder())
        let files = try FileManager.default.subpathsOfDirectory(atPath: a).sorted()
        #expect(files.contains("truth.json") && files.contains("book.json"))
        #expect(files == (try FileManager.default.subpathsOfDirectory(atPath: b).sorted()))
        for f in files where !f.hasSuffix("clean") {
            let da = FileManager.default.contents(atPath: a + "/" + f), db = FileManager.default.contents(atPath: b + "/" + f)
            #expect(da == db, "\(f) differs between runs")
        }
    }

    @Test func unwritableOutputIsReportedWithThePath() {
        #expect(throws: GeneratorError.self) {
            try BookWriter.write(try Fixture.storyPlan(), to: "/proc/picturebook-cannot-write", encoder: RawEncoder())
        }
    }
}

@Suite struct CodecsOutputTests {
    @Test func jpegAndPNGBytesAreReproducibleAndCleanMatchesOutsideText() throws {
        let page = Fixture.pages[0]
        let encoder = CodecsPageEncoder()
        let q = page.truth.degradation.jpegQuality
        let jpeg = try encoder.jpeg(page.image, quality: q, name: "page-001.jpg")
        #expect(jpeg == (try encoder.jpeg(page.image, quality: q, name: "page-001.jpg")))
        let again = try PageGenerator.render(Fixture.plan, unit: 0)[0]
        #expect(jpeg == (try encoder.jpeg(again.image, quality: q, name: "page-001.jpg")))
        // The clean background is stored losslessly.
        let png = try encoder.png(page.clean, name: "clean.png")
        #expect(try ImageDecoder.decode(png, name: "clean.png") == page.clean)
        // Outside the text the decoded JPEG is within JPEG error of the clean background.
        let decoded = try ImageDecoder.decode(jpeg, name: "page-001.jpg")
        var mask = Bitmap<UInt8>(width: page.image.width, height: page.image.height, fill: 255)
        for b in page.truth.textBoxes { mask.fill(b.rect.expanded(by: page.truth.degradation.reach + 8), with: 0) }
        let outside = ImageComparison.psnr(decoded, page.clean, mask: mask)
        #expect(outside > 30, "PSNR outside text \(outside) dB")
        if let body = page.truth.textBoxes.first(where: { $0.role == .body }) {
            let inside = ImageComparison.psnr(decoded, page.clean, in: body.rect)
            #expect(inside < outside - 3, "text should stand out: inside \(inside) dB, outside \(outside) dB")
        }
    }

    @Test func differentSeedsGiveDifferentJPEGs() throws {
        var o = Fixture.options
        o.seed = 12_345
        o.pageCount = 1
        let other = try PageGenerator.render(try PageGenerator.plan(o), unit: 0)[0]
        let encoder = CodecsPageEncoder()
        #expect(try encoder.jpeg(other.image, quality: 80, name: "a") != (try encoder.jpeg(Fixture.pages[0].image, quality: 80, name: "b")))
    }
}
