// `picturebook import` of TIFF, JPEG 2000 and PDF scans, end to end, over the fixtures of
// Tests/CodecsTests/Fixtures/Scans (Tools/make-scan-fixtures.py), and the errors damaged ones give.
import Codecs
import Foundation
import Raster
import Testing

private let scans = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("../CodecsTests/Fixtures/Scans").standardizedFileURL.path

private func book(_ folder: String) throws -> [String: Any] {
    let data = try Data(contentsOf: URL(fileURLWithPath: folder + "/book.json"))
    return try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
}

private func pages(_ folder: String) throws -> [[String: Any]] { try #require(try book(folder)["pages"] as? [[String: Any]]) }

@Suite struct ImportScanTests {
    @Test func aMultiPageTIFFBecomesABookOfJPEGs() throws {
        let s = try Scratch()
        let out = s.file("ms")
        let r = try CLI.run(["import", scans + "/three-pages.tif", "--out", out, "--title", "Manuscript"])
        #expect(r.status == 0, "\(r.stderr)")
        let p = try pages(out)
        #expect(p.map { $0["image"] as? String } == ["scans/p0001.jpg", "scans/p0002.jpg", "scans/p0003.jpg"])
        #expect(p.allSatisfy { $0["width"] as? Int == 24 && $0["height"] as? Int == 16 })
        // The written pages are real JPEGs of the TIFF's pages: page 3 is the black-and-white one.
        let third = try ImageDecoder.decode(file: out + "/scans/p0003.jpg")
        #expect(third.width == 24 && third.height == 16)
        #expect(third[0, 0].r < 60 && third[4, 0].r > 195)  // columns 0-2 black, 3-5 white on row 0
        #expect(try CLI.run(["validate", out]).status == 0)
        #expect(r.stderr.contains("import: 3 page(s)"))
    }

    @Test func aPDFOfScansKeepsEachScansResolution() throws {
        let s = try Scratch()
        let out = s.file("pdf")
        let r = try CLI.run(["import", scans + "/two-pages.pdf", "--out", out, "--scan-format", "png", "--dpi", "150"])
        #expect(r.status == 0, "\(r.stderr)")
        let p = try pages(out)
        #expect(p.count == 2)
        // Page 1 is a 24×16 scan on a 1×⅔-inch page: taken as 24×16, not re-rendered at 150 dpi.
        #expect(p[0]["width"] as? Int == 24 && p[0]["height"] as? Int == 16)
        // Page 2 has no image: rendered, 72×48 pt at 150 dpi.
        #expect(p[1]["width"] as? Int == 150 && p[1]["height"] as? Int == 100)
        #expect(r.stderr.contains("1 embedded image, 1 rendered at 150 dpi"))
        let first = try ImageDecoder.decode(file: out + "/" + (p[0]["image"] as? String ?? ""))
        #expect(first[23, 15] == RGBA8(r: 230, g: 225, b: 174))  // lossless PNG of the pattern's last pixel
    }

    @Test func aFolderOfTIFFAndJPEG2000ScansIsConvertedInOrder() throws {
        let s = try Scratch()
        let source = s.file("delivery")
        try FileManager.default.createDirectory(atPath: source, withIntermediateDirectories: true)
        for (from, to) in [("rgb16-lzw.tif", "p10.tif"), ("gray8.jp2", "p2.jp2"), ("gray16.j2k", "p1.j2k")] {
            try FileManager.default.copyItem(atPath: scans + "/" + from, toPath: source + "/" + to)
        }
        let out = s.file("book")
        let r = try CLI.run(["import", source, "--out", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try pages(out).map { $0["image"] as? String } == ["scans/p1.jpg", "scans/p2.jpg", "scans/p10.jpg"])
        #expect(try CLI.run(["validate", out]).status == 0)
    }

    @Test func commandsReadTIFFAndJPEG2000Directly() throws {
        let r = try CLI.run(["info", scans + "/rgb16-lzw.tif", scans + "/rgb8.jp2"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stdout.contains("RGB 16-bit, LZW") && r.stdout.contains("24×16"))
    }

    static let damaged: [(name: String, source: String, keep: Int, expected: String)] = [
        ("cut.tif", "rgb16-lzw.tif", 200, "cut.tif: "),
        ("cut.jp2", "rgb8.jp2", 150, "cut.jp2: truncated JPEG 2000"),
        ("cut.pdf", "two-pages.pdf", 300, "cut.pdf: corrupt PDF"),
    ]

    @Test(arguments: damaged.map(\.name))
    func damagedScansFailWithOneClearLine(_ name: String) throws {
        let d = try #require(Self.damaged.first { $0.name == name })
        let s = try Scratch()
        let bytes = try Data(contentsOf: URL(fileURLWithPath: scans + "/" + d.source)).prefix(d.keep)
        try bytes.write(to: URL(fileURLWithPath: s.file(name)))
        let r = try CLI.run(["import", s.file(name), "--out", s.file("out")])
        #expect(r.status == 1)
        // One line, the file and the problem; nothing from libtiff, OpenJPEG or Poppler.
        let lines = r.stderr.split(separator: "\n")
        #expect(lines.count == 1, "\(r.stderr)")
        #expect(r.stderr.hasPrefix("picturebook: error: " + s.file(d.expected)) || r.stderr.contains(d.expected), "\(r.stderr)")
        #expect(!FileManager.default.fileExists(atPath: s.file("out/book.json")))
    }

    @Test func aPDFDeclaringAGiantImageIsRefusedAtOnce() throws {
        let s = try Scratch()
        var pdf = try Data(contentsOf: URL(fileURLWithPath: scans + "/two-pages.pdf"))
        let range = try #require(pdf.range(of: Data("/Width 24 /Height 16".utf8)))
        pdf.replaceSubrange(range, with: Data("/Width 60000 /Height 60000".utf8))
        try pdf.write(to: URL(fileURLWithPath: s.file("giant.pdf")))
        let r = try CLI.run(["import", s.file("giant.pdf"), "--out", s.file("out")])
        #expect(r.status == 1)
        #expect(r.stderr.contains("giant.pdf: image is 60000×60000, larger than the limit"), "\(r.stderr)")
    }
}
