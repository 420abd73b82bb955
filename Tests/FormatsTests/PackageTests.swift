// The packaging exports end to end through the CLI: the zip writer read back by Python's zipfile,
// CBZ with its ComicInfo.xml, EPUB through epubcheck.
import BookModel
@testable import Formats
import Foundation
import Testing

@Suite("Format packages")
struct PackageTests {
    @Test("The zip writer's archives read back in zipfile: names, bytes, CRCs, stored and deflated")
    func zipReadsBack() throws {
        var zip = ZipWriter(timestamp: .init(year: 2026, month: 11, day: 26, hour: 10, minute: 30, second: 12))
        let text = Array(String(repeating: "Salma lives in a small house by the sea. ", count: 200).utf8)
        var noise = [UInt8](repeating: 0, count: 5000)
        var rng = SystemRandomNumberGenerator()
        for k in noise.indices { noise[k] = UInt8.random(in: 0...255, using: &rng) }
        try zip.add("mimetype", Array("application/epub+zip".utf8), method: .store)
        try zip.add("a/text.txt", text)
        try zip.add("a/noise.bin", noise)  // incompressible: falls back to stored
        try zip.add("empty", [])
        try zip.add("名前.txt", Array("ünïcödé".utf8))
        let bytes = zip.finish()
        // EPUB's rule: `mimetype` at byte 30, its content at byte 38.
        #expect(String(decoding: bytes[30..<38], as: UTF8.self) == "mimetype")
        #expect(String(decoding: bytes[38..<58], as: UTF8.self) == "application/epub+zip")
        let dir = try TempDir()
        let file = dir.path + "/t.zip"
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        guard let r = try Tool.python(zipListing, [file]) else { return }
        #expect(r.status == 0, "\(r.stderr)")
        let small = "ünïcödé".utf8.count
        // Eleven bytes do not shrink under deflate, so that entry is stored too.
        #expect(r.stdout == "mimetype\t0\t20\na/text.txt\t8\t\(text.count)\na/noise.bin\t0\t5000\nempty\t0\t0\n名前.txt\t0\t\(small)\n", "\(r.stdout)")
        #expect(try zipEntry(file, "a/text.txt") == String(decoding: text, as: UTF8.self))
    }

    @Test("CBZ: pages in order, spreads joined as double pages, ComicInfo with the reading direction")
    func cbz() throws {
        let dir = try TempDir()
        let ltr = try dir.copyBook("salmas-red-kite")
        let rtl = try dir.copyBook("salmas-red-kite", as: "salma-rtl") { $0.readingDirection = .rightToLeft }
        for (path, isRTL) in [(ltr, false), (rtl, true)] {
            let out = path + ".cbz"
            let r = try Tool.cli(["export", path, "--format", "cbz", "--out", out])
            #expect(r.status == 0, "\(r.stderr)")
            guard let listing = try Tool.python(zipListing, [out]) else { return }
            #expect(listing.status == 0, "\(listing.stderr)")
            let names = listing.stdout.split(separator: "\n").map { String($0.split(separator: "\t")[0]) }
            // 28 pages, two spreads of two joined: 26 images, named in reading order.
            #expect(names == (1...26).map { String(format: "%04d.jpg", $0) } + ["ComicInfo.xml"])
            let info = try zipEntry(out, "ComicInfo.xml") ?? ""
            #expect(info.contains("<Manga>\(isRTL ? "YesAndRightToLeft" : "No")</Manga>"))
            #expect(info.contains("<PageCount>26</PageCount>"))
            #expect(info.contains("<Title>Salma’s Red Kite</Title>"))
            #expect(info.contains("<Page Image=\"0\" Type=\"FrontCover\""))
            // Spread [10, 11] is image 10 (index 9), twice a page wide; [15, 16] is image 14.
            #expect(info.contains("<Page Image=\"9\" Type=\"Story\" DoublePage=\"true\""))
            #expect(info.contains("<Page Image=\"13\" Type=\"Story\" DoublePage=\"true\""))
            #expect(info.components(separatedBy: "DoublePage").count - 1 == 2)
            #expect(info.contains("ImageWidth=\"2480\" ImageHeight=\"1600\""))
        }
    }

    @Test("EPUB 3 fixed layout passes epubcheck with no errors or warnings")
    func epubcheck() throws {
        // Debian's /usr/bin/epubcheck is the jar itself (run through binfmt_misc where jarwrapper
        // is set up); calling Java on it directly works everywhere.
        guard let java = Tool.require("/usr/bin/java") else { return }
        let jar = "/usr/share/java/epubcheck.jar"
        guard FileManager.default.fileExists(atPath: jar) else {
            Issue.record("\(jar) is missing; run Tools/setup.sh --formats")
            return
        }
        let dir = try TempDir()
        // Salma has spreads and Arabic; little-horse vertical Mongolian, here also turned right to
        // left. (epubcheck takes a minute a book on a loaded machine, so two books cover it all.)
        let books = [
            try dir.copyBook("salmas-red-kite"),
            try dir.copyBook("little-horse", as: "horse-rtl") { $0.readingDirection = .rightToLeft },
        ]
        // A cleared image for one page, as `picturebook clear` leaves it, so the ClearText
        // edition's cleared-image pages are checked too.
        try FileManager.default.createDirectory(atPath: books[0] + "/clear", withIntermediateDirectories: true)
        #expect(try Tool.cli(["convert", books[0] + "/page-002.jpg", books[0] + "/clear/page-002.png"]).status == 0)
        for book in books {
            let out = book + ".epub"
            let r = try Tool.cli(["export", book, "--format", "epub", "--out", out])
            #expect(r.status == 0, "\(r.stderr)")
            let check = try Tool.run(java, ["-jar", jar, out])
            let report = check.stdout + check.stderr
            #expect(check.status == 0, "epubcheck \(out): \(report.suffix(4000))")
            #expect(!report.contains("WARNING") && !report.contains("ERROR") && !report.contains("FATAL"), "\(report.suffix(4000))")
        }
    }

    @Test("EPUB: the text layer in every language, spreads on facing sides, RTL progression, ClearText pages")
    func epubContent() throws {
        let dir = try TempDir()
        let salma = try dir.copyBook("salmas-red-kite")
        // One cleared image for page 2, as `picturebook clear` would leave it (a PNG of the scan's size).
        try FileManager.default.createDirectory(atPath: salma + "/clear", withIntermediateDirectories: true)
        let png = try Tool.cli(["convert", salma + "/page-002.jpg", salma + "/clear/page-002.png"])
        #expect(png.status == 0, "\(png.stderr)")
        let out = salma + ".epub"
        let r = try Tool.cli(["export", salma, "--format", "epub", "--out", out])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("1 cleared image(s)"))
        let opf = try zipEntry(out, "OEBPS/content.opf") ?? ""
        #expect(opf.contains("<meta property=\"rendition:layout\">pre-paginated</meta>"))
        #expect(opf.contains("page-progression-direction=\"ltr\""))
        #expect(opf.contains("<itemref idref=\"scan-1\" properties=\"rendition:page-spread-center\"/>"))
        #expect(opf.contains("<itemref idref=\"scan-10\" properties=\"page-spread-left\"/>"))
        #expect(opf.contains("<itemref idref=\"scan-11\" properties=\"page-spread-right\"/>"))
        #expect(opf.contains("href=\"images/clear-0002.png\""))
        // Scans then a ClearText edition per language: 28 × 3 pages.
        #expect(opf.components(separatedBy: "<itemref ").count - 1 == 84)
        let page2 = try zipEntry(out, "OEBPS/pages/scan-0002.xhtml") ?? ""
        #expect(page2.contains("<meta name=\"viewport\" content=\"width=1240, height=1600\"/>"))
        #expect(page2.contains("lang=\"en\"") && page2.contains("lang=\"ar\"") && page2.contains("dir=\"rtl\""))
        #expect(page2.contains("Salma lives in a small house by the sea."))
        let clear2 = try zipEntry(out, "OEBPS/pages/clear-2-0002.xhtml") ?? ""
        #expect(clear2.contains("../images/clear-0002.png"))
        #expect(clear2.contains("تعيش سلمى في بيت صغير بجانب البحر."))
        #expect(!clear2.contains("background-color"))
        let clear3 = try zipEntry(out, "OEBPS/pages/clear-1-0003.xhtml") ?? ""
        #expect(clear3.contains("../images/scan-0003.jpg") && clear3.contains("background-color"))

        // A box `clear` left as scanned for review: its printed text is still in the cleared
        // picture, so page 2 falls back to the scan with the text on a plate, as in the reader.
        var flagged = try Book.load(directory: salma).book
        flagged.pages[1].textBoxes[0].needsReview = true
        try flagged.save(directory: salma)
        let reviewed = salma + "-review.epub"
        let r2 = try Tool.cli(["export", salma, "--format", "epub", "--out", reviewed])
        #expect(r2.status == 0, "\(r2.stderr)")
        #expect(r2.stderr.contains("0 cleared image(s)"), "\(r2.stderr)")
        let clear2Review = try zipEntry(reviewed, "OEBPS/pages/clear-2-0002.xhtml") ?? ""
        #expect(clear2Review.contains("../images/scan-0002.jpg") && clear2Review.contains("background-color"))

        // A page number left as scanned alone keeps its print and the page its ClearText: the
        // cleared picture is used and the number is not drawn again over its printed copy.
        flagged.pages[1].textBoxes[0].needsReview = false
        flagged.pages[1].textBoxes[2].needsReview = true
        #expect(flagged.pages[1].textBoxes[2].role == .pageNumber)
        try flagged.save(directory: salma)
        let numbered = salma + "-number.epub"
        let r3 = try Tool.cli(["export", salma, "--format", "epub", "--out", numbered])
        #expect(r3.status == 0, "\(r3.stderr)")
        #expect(r3.stderr.contains("1 cleared image(s)"), "\(r3.stderr)")
        let clear2Number = try zipEntry(numbered, "OEBPS/pages/clear-1-0002.xhtml") ?? ""
        #expect(clear2Number.contains("../images/clear-0002.png") && !clear2Number.contains("background-color"))
        #expect(clear2Number.contains("id=\"box-p002-b1\"") && !clear2Number.contains("id=\"box-p002-b3\""))
        #expect(clear2.contains("id=\"box-p002-b3\""))

        // PopoutText as Region-Based Navigation: a data-nav document with one text-area region per
        // text box, each linking to its scan page with the box as a Media Fragment.
        #expect(opf.contains("href=\"regions.xhtml\" media-type=\"application/xhtml+xml\" properties=\"data-nav\""))
        let regions = try zipEntry(out, "OEBPS/regions.xhtml") ?? ""
        #expect(regions.contains("<nav epub:type=\"region-based\" id=\"regions\">"))
        let book = try Book.load(directory: salma).book
        #expect(regions.components(separatedBy: "<li epub:type=\"text-area\">").count - 1 == book.pages.reduce(0) { $0 + $1.textBoxes.count })
        let box = book.pages[1].textBoxesInReadingOrder[0].rect
        #expect(regions.contains("href=\"pages/scan-0002.xhtml#xywh=\(box.x),\(box.y),\(box.width),\(box.height)\""))

        let rtl = try dir.copyBook("salmas-red-kite", as: "rtl") { $0.readingDirection = .rightToLeft }
        #expect(try Tool.cli(["export", rtl, "--format", "epub", "--out", rtl + ".epub", "--no-cleartext"]).status == 0)
        let rtlOPF = try zipEntry(rtl + ".epub", "OEBPS/content.opf") ?? ""
        #expect(rtlOPF.contains("page-progression-direction=\"rtl\""))
        #expect(rtlOPF.contains("<itemref idref=\"scan-10\" properties=\"page-spread-right\"/>"))
        #expect(rtlOPF.components(separatedBy: "<itemref ").count - 1 == 28)
    }

    @Test("Export errors name the problem and exit non-zero")
    func exportErrors() throws {
        let dir = try TempDir()
        let missing = try Tool.cli(["export", dir.path + "/nope", "--format", "epub", "--out", dir.path + "/x.epub"])
        #expect(missing.status != 0 && missing.stderr.contains("nope"))
        let book = try dir.copyBook("good-morning-farm")
        try Data("GIF89a not a scan".utf8).write(to: URL(fileURLWithPath: book + "/page-003.jpg"))
        let bad = try Tool.cli(["export", book, "--format", "cbz", "--out", dir.path + "/x.cbz"])
        #expect(bad.status == 1 && bad.stderr.contains("page-003.jpg"), "\(bad.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.path + "/x.cbz"))
        let usage = try Tool.cli(["export", book, "--format", "alto", "--out", dir.path + "/a", "--base-url", "https://x.org"])
        #expect(usage.status != 0 && usage.stderr.contains("--base-url"))
    }
}
