import BookModel
import Codecs
import Foundation
import Geometry
import Layout
import Raster
import Render
import Testing

/// Renders screens of the sample books and compares them with reference images in Golden/
/// (PSNR and mean error, not bytes: resampling and anti-aliasing may move by a level between
/// library versions; a wrong page, spread, box or text does not pass).
/// `PICTUREBOOK_UPDATE_GOLDENS=1 swift test --filter RenderTests` rewrites them and the copies
/// in Documentation/render/.
@Suite(.serialized) struct GoldenTests {
    static let testsDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let goldenDir = testsDir.appendingPathComponent("Golden")
    static let root = testsDir.deletingLastPathComponent().deletingLastPathComponent()
    static let docsDir = root.appendingPathComponent("Documentation/render")
    static let updating = ProcessInfo.processInfo.environment["PICTUREBOOK_UPDATE_GOLDENS"] == "1"

    static func load(_ name: String) throws -> (String, Book) {
        let dir = root.appendingPathComponent("Books/\(name)").path
        return (dir, try Book.load(directory: dir).book)
    }

    /// A renderer that never finds cleared pages, so the goldens do not change when someone
    /// adds BOOK_DIR/clear/ to a sample book.
    static func renderer(_ name: String) throws -> (ScreenRenderer, Book) {
        let (dir, book) = try load(name)
        return (ScreenRenderer(images: PageImages(directory: dir, book: book, clearedDirectory: "/nonexistent-clear")), book)
    }

    static func screen(_ book: Book, page: Int, _ vp: Viewport) -> ScreenLayout {
        let screens = SpreadComposer().screens(for: book, orientation: vp.orientation)
        return Fit.layout(screens[SpreadComposer.screenIndex(of: page, in: screens)!], of: book, in: vp)
    }

    static func compare(_ image: Bitmap<RGBA8>, name: String) throws {
        if updating {
            let png = Data(try PNGEncoder.encode(image, options: .smallest, name: name))
            for dir in [goldenDir, docsDir] {
                try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
                try png.write(to: dir.appendingPathComponent(name + ".png"), options: .atomic)
            }
        }
        let url = goldenDir.appendingPathComponent(name + ".png")
        let golden = try ImageDecoder.decode(try [UInt8](Data(contentsOf: url)), name: url.path)
        try #require(golden.width == image.width && golden.height == image.height,
                     "\(name): rendered \(image.width)×\(image.height), golden \(golden.width)×\(golden.height)")
        let psnr = ImageComparison.psnr(image, golden)
        let mae = ImageComparison.meanAbsoluteError(image, golden)
        #expect(psnr >= 30, "\(name): PSNR \(psnr) dB against the golden")
        #expect(mae <= 2, "\(name): mean absolute error \(mae)")
        // The thresholds mean something: the plain background is far from the golden.
        let blank = Bitmap<RGBA8>(width: image.width, height: image.height, fill: RenderStyle().background)
        #expect(ImageComparison.psnr(blank, golden) < psnr - 10, "\(name): golden looks blank")
    }

    static let small = DeviceProfile.iPhone2008
    static let phone1x = DeviceProfile.parse("393x852@1")!

    @Test func portraitPage() throws {
        let (r, book) = try Self.renderer("salmas-red-kite")
        let image = try r.renderPages(Self.screen(book, page: 2, Self.small.viewport(.portrait)))
        try Self.compare(image, name: "portrait-page")
    }

    @Test func landscapeSpread() throws {
        let (r, book) = try Self.renderer("salmas-red-kite")
        let layout = Self.screen(book, page: 10, Self.small.viewport(.landscape))
        #expect(layout.screen.pages == [10, 11])
        try Self.compare(try r.renderPages(layout), name: "landscape-spread")
    }

    @Test func popout() throws {
        let (r, book) = try Self.renderer("salmas-red-kite")
        let (image, g) = try r.renderPopout(Self.screen(book, page: 2, Self.small.viewport(.portrait)), boxID: "p002-b1")
        // The line fits the screen width at no less than 80 % of the readable size.
        #expect(g.textSize >= 0.8 * Self.small.readableTextSize && !g.needsScroll)
        try Self.compare(image, name: "popout")
    }

    @Test func hint() throws {
        let (r, book) = try Self.renderer("lighthouse-cat")
        try Self.compare(try r.renderHint(Self.screen(book, page: 3, Self.small.viewport(.portrait))), name: "hint")
    }

    @Test(arguments: [("en", "cleartext-en", "p002-b1"), ("ar", "cleartext-ar", "p002-b2")])
    func clearText(language: String, name: String, printedBox: String) throws {
        let (r, book) = try Self.renderer("salmas-red-kite")
        let (image, report) = try r.renderClearText(Self.screen(book, page: 2, Self.phone1x.viewport(.portrait)), language: language)
        // Each line is shown once, in the box printed in that language.
        #expect(report.blocks.contains { $0.boxID == printedBox })
        #expect(report.skipped.contains { $0.duplicate })
        #expect(report.blocks.allSatisfy { $0.language == language && $0.scrollExtent == 0 })
        #expect(report.pagesWithoutClearedImage == [2])
        try Self.compare(image, name: name)
    }

    @Test func mongolianVerticalPage() throws {
        let (r, book) = try Self.renderer("little-horse")
        let (image, report) = try r.renderClearText(Self.screen(book, page: 4, Self.small.viewport(.portrait)), language: "mn-Mong")
        let block = try #require(report.blocks.first)
        #expect(block.layout.style.writingMode == .verticalLeftToRight)
        try Self.compare(image, name: "cleartext-mn-vertical")
    }

    @Test func overview() throws {
        let (r, book) = try Self.renderer("good-morning-farm")
        try Self.compare(try r.renderGrid(GridLayout.layout(book, in: Self.small.viewport(.portrait))), name: "overview")
    }

    @Test func zoomMiddleFrame() throws {
        let (dir, book) = try Self.load("good-morning-farm")
        let vp = Self.small.viewport(.portrait)
        let frames = Transition.zoom(grid: GridLayout.layout(book, in: vp), tapped: 5, into: Self.screen(book, page: 5, vp), times: frameTimes(count: 9))
        let images = PageImages(directory: dir, book: book)
        var previews: [Int: Bitmap<RGBA8>] = [:]
        for n in 1...book.pages.count { previews[n] = try images.preview(n, maxSide: 480) }
        let image = ScreenRenderer(images: images).renderFrame(frames[4], previews: previews)
        try Self.compare(image, name: "zoom-middle")
    }
}

@Suite struct ScreenTests {
    @Test(arguments: [DeviceProfile.iPhone2008, .phone, .tablet, .desktop])
    func spreadPagesTouchInPixelsAndFillTheScreenSize(device: DeviceProfile) throws {
        let (r, book) = try GoldenTests.renderer("salmas-red-kite")
        let vp = device.viewport(.landscape)
        let layout = GoldenTests.screen(book, page: 4, vp)
        let a = layout.pages[0].frame.pixelRect(scale: vp.scale), b = layout.pages[1].frame.pixelRect(scale: vp.scale)
        #expect(a.maxX == b.minX)
        let image = try r.renderPages(layout)
        #expect(image.width == vp.pixelWidth && image.height == vp.pixelHeight)
        // The gutter column is page, not background.
        #expect(image[b.minX, b.minY + b.height / 2] != RenderStyle().background)
    }

    @Test func unknownPopoutBoxIsAnError() throws {
        let (r, book) = try GoldenTests.renderer("salmas-red-kite")
        #expect(throws: RenderError.self) {
            try r.renderPopout(GoldenTests.screen(book, page: 2, DeviceProfile.iPhone2008.viewport(.portrait)), boxID: "nope")
        }
    }
}

/// A page with a box `clear` left as scanned for review still shows that box's printed text in its
/// cleared picture; like the reader, `render` draws such a page over its scan (the text on a plate
/// over each box), never the text natively over its own printed copy.
@Suite struct ClearedPictureTests {
    @Test func aPageWithABoxForReviewIsDrawnOverItsScan() throws {
        var (dir, book) = try GoldenTests.load("salmas-red-kite")
        let clear = FileManager.default.temporaryDirectory.appendingPathComponent("cleared-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: clear, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: clear) }
        let stem = (book.pages[1].image as NSString).deletingPathExtension.split(separator: "/").last.map(String.init) ?? ""
        try Data([0]).write(to: URL(fileURLWithPath: clear + "/" + stem + ".png"))
        #expect(PageImages(directory: dir, book: book, clearedDirectory: clear).hasCleared(2))

        book.pages[1].textBoxes[0].needsReview = true
        #expect(book.pages[1].hasBoxForReview && !book.pages[0].hasBoxForReview)
        let images = PageImages(directory: dir, book: book, clearedDirectory: clear)
        #expect(!images.hasCleared(2))
        let (_, report) = try ScreenRenderer(images: images).renderClearText(
            GoldenTests.screen(book, page: 2, GoldenTests.phone1x.viewport(.portrait)), language: "en")
        #expect(report.pagesWithoutClearedImage == [2])
    }

    @Test func aPageNumberLeftAsScannedKeepsThePagesClearTextAndIsNotDrawnAgain() throws {
        var (dir, book) = try GoldenTests.load("salmas-red-kite")
        let clear = FileManager.default.temporaryDirectory.appendingPathComponent("cleared-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: clear, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: clear) }
        let stem = (book.pages[1].image as NSString).deletingPathExtension.split(separator: "/").last.map(String.init) ?? ""
        // The cleared picture: the scan itself, as a PNG of its size.
        let scan = try ImageDecoder.decode(file: BookDirectory.imagePath(of: book.pages[1], in: dir))
        try PNGEncoder.write(scan, to: clear + "/" + stem + ".png")
        let screen = GoldenTests.screen(book, page: 2, GoldenTests.phone1x.viewport(.portrait))
        let (_, before) = try ScreenRenderer(images: PageImages(directory: dir, book: book, clearedDirectory: clear)).renderClearText(screen, language: "en")
        #expect(before.pagesWithoutClearedImage.isEmpty)
        #expect(before.blocks.contains { $0.boxID == "p002-b3" })

        let number = try #require(book.pages[1].textBoxes.firstIndex { $0.role == .pageNumber })
        book.pages[1].textBoxes[number].needsReview = true
        #expect(book.pages[1].hasBoxForReview && !book.pages[1].readsAsScanInClearText)
        let images = PageImages(directory: dir, book: book, clearedDirectory: clear)
        #expect(images.hasCleared(2))
        let (_, report) = try ScreenRenderer(images: images).renderClearText(screen, language: "en")
        #expect(report.pagesWithoutClearedImage.isEmpty)
        #expect(!report.blocks.contains { $0.boxID == "p002-b3" })
        #expect(report.blocks.contains { $0.boxID == "p002-b1" })
    }
}
