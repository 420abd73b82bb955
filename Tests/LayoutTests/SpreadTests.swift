import BookModel
import Geometry
import Layout
import Testing

/// A book of `count` portrait pages (1000×1400), the first a cover.
func makeBook(_ count: Int, direction: ReadingDirection = .leftToRight, cover: Bool = true,
              spreads: [Spread] = [], single: Set<Int> = [], wide: Set<Int> = []) -> Book {
    let pages = (1...count).map { n in
        Page(image: "p\(n).jpg", width: wide.contains(n) ? 2000 : 1000, height: 1400,
             role: n == 1 ? (cover ? .cover : .page) : .page, single: single.contains(n))
    }
    return Book(title: "T", languages: ["en"], readingDirection: direction, pages: pages, spreads: spreads)
}

@Suite struct SpreadTests {
    let composer = SpreadComposer()

    @Test(arguments: [
        (7, [[1], [2, 3], [4, 5], [6, 7]]),
        (8, [[1], [2, 3], [4, 5], [6, 7], [8]]),
        (2, [[1], [2]]),
        (1, [[1]]),
    ])
    func landscapePairsAfterCover(count: Int, expected: [[Int]]) {
        let screens = composer.screens(for: makeBook(count), orientation: .landscape)
        #expect(screens.map(\.pages) == expected)
        #expect(screens.map(\.visualOrder) == expected)
        #expect(screens.last?.kind == (expected.last!.count == 1 ? .single : .pair))
    }

    @Test(arguments: [7, 8])
    func rightToLeftPairsRightToLeft(count: Int) {
        let screens = composer.screens(for: makeBook(count, direction: .rightToLeft), orientation: .landscape)
        let ltr = composer.screens(for: makeBook(count), orientation: .landscape)
        // Same pairs in the same reading order; on screen the first page read is on the right.
        #expect(screens.map(\.pages) == ltr.map(\.pages))
        #expect(screens[1].visualOrder == [3, 2])
        #expect(screens.allSatisfy { $0.visualOrder == $0.pages.reversed() })
    }

    @Test func portraitIsOnePagePerScreen() {
        let screens = composer.screens(for: makeBook(6, spreads: [Spread(3, 4)]), orientation: .portrait)
        #expect(screens.map(\.pages) == (1...6).map { [$0] })
    }

    @Test func coverWithoutRoleStillStandsAloneButNonCoverFirstPagePairs() {
        var b = makeBook(5)
        b.pages[0].role = nil
        #expect(composer.screens(for: b, orientation: .landscape).map(\.pages) == [[1], [2, 3], [4, 5]])
        b.pages[0].role = .page
        #expect(composer.screens(for: b, orientation: .landscape).map(\.pages) == [[1, 2], [3, 4], [5]])
    }

    @Test func singlePagesBreakThePairing() {
        let screens = composer.screens(for: makeBook(8, single: [4]), orientation: .landscape)
        #expect(screens.map(\.pages) == [[1], [2, 3], [4], [5, 6], [7, 8]])
    }

    @Test func wideScanIsASpreadOnItsOwn() {
        let book = makeBook(8, wide: [4])
        #expect(composer.isWideScan(4, in: book))
        #expect(!composer.isWideScan(3, in: book))
        let screens = composer.screens(for: book, orientation: .landscape)
        #expect(screens.map(\.pages) == [[1], [2, 3], [4], [5, 6], [7, 8]])
        #expect(screens[2].kind == .wideScan)
    }

    @Test(arguments: [(1.15, false), (1.17, true)])
    func wideScanThreshold(ratio: Double, wide: Bool) {
        var book = makeBook(5)
        book.pages[2].width = Int((1000 * ratio).rounded())
        #expect(composer.isWideScan(3, in: book) == wide)
    }

    @Test func manifestSpreadsOverridePairing() {
        // Natural pairs would be [2,3] [4,5] [6,7]; the manifest says 5 and 6 face each other.
        let screens = composer.screens(for: makeBook(9, spreads: [Spread(5, 6)]), orientation: .landscape)
        #expect(screens.map(\.pages) == [[1], [2, 3], [4], [5, 6], [7, 8], [9]])
        #expect(screens[3].kind == .pair)
    }

    @Test func manifestSpreadBeatsSingleFlagAndIgnoresNonNeighbours() {
        let screens = composer.screens(for: makeBook(6, spreads: [Spread(3, 4), Spread(2, 5)], single: [3]), orientation: .landscape)
        #expect(screens.map(\.pages) == [[1], [2], [3, 4], [5, 6]])
    }

    @Test func screenNames() {
        let screens = composer.screens(for: makeBook(12), orientation: .landscape)
        #expect(screens.map(\.name).prefix(3) == ["p001", "p002-003", "p004-005"])
        #expect(SpreadComposer.screenIndex(of: 5, in: screens) == 2)
    }

    @Test func sampleBookSpreads() {
        // Salma's Red Kite: manifest spreads [10, 11] and [15, 16].
        var book = makeBook(28, spreads: [Spread(10, 11), Spread(15, 16)])
        book.pages[0].single = true
        let pages = composer.screens(for: book, orientation: .landscape).map(\.pages)
        #expect(pages.contains([10, 11]))
        #expect(pages.contains([15, 16]))
        #expect(pages.contains([14]))
        #expect(pages.flatMap { $0 } == Array(1...28))
    }
}

@Suite struct DeviceTests {
    @Test(arguments: [
        ("iphone-2008", 320, 480, 1.0),
        ("phone", 1179, 2556, 3.0),
        ("tablet", 1640, 2360, 2.0),
        ("desktop", 800, 1280, 1.0),
        ("400x300@2", 600, 800, 2.0),
        ("400x300", 300, 400, 1.0),
    ])
    func portraitPixels(name: String, w: Int, h: Int, scale: Double) throws {
        let d = try #require(DeviceProfile.parse(name))
        let p = d.viewport(.portrait), l = d.viewport(.landscape)
        #expect(p.pixelWidth == w && p.pixelHeight == h)
        #expect(l.pixelWidth == h && l.pixelHeight == w)
        #expect(p.scale == scale)
    }

    @Test(arguments: ["", "phone2", "0x0", "100x", "100x100@0", "100x100@x", "99999x10"])
    func rejectsNonsense(name: String) {
        #expect(DeviceProfile.parse(name) == nil)
    }

    @Test func safeAreaFollowsOrientation() {
        let p = DeviceProfile.phone.viewport(.portrait), l = DeviceProfile.phone.viewport(.landscape)
        #expect(p.safeBounds == Rect(x: 0, y: 59, width: 393, height: 852 - 59 - 34))
        #expect(l.safeBounds == Rect(x: 59, y: 0, width: 852 - 118, height: 393 - 21))
    }
}

@Suite struct FitTests {
    @Test(arguments: [
        (Size(width: 100, height: 200), Rect(x: 0, y: 0, width: 400, height: 400), Rect(x: 100, y: 0, width: 200, height: 400)),
        (Size(width: 200, height: 100), Rect(x: 0, y: 0, width: 400, height: 400), Rect(x: 0, y: 100, width: 400, height: 200)),
        (Size(width: 1000, height: 1000), Rect(x: 10, y: 20, width: 50, height: 100), Rect(x: 10, y: 45, width: 50, height: 50)),
    ])
    func aspectFit(content: Size, bounds: Rect, expected: Rect) {
        let r = Fit.aspectFit(content, in: bounds)
        #expect(abs(r.minX - expected.minX) < 1e-9 && abs(r.minY - expected.minY) < 1e-9)
        #expect(abs(r.width - expected.width) < 1e-9 && abs(r.height - expected.height) < 1e-9)
    }

    @Test func spreadFillsTheSafeAreaCentredWithPagesTouching() {
        let book = makeBook(5)
        let vp = DeviceProfile.phone.viewport(.landscape)
        let screen = SpreadComposer().screens(for: book, orientation: .landscape)[1]
        let l = Fit.layout(screen, of: book, in: vp)
        #expect(l.pages.count == 2)
        let a = l.pages[0].frame, b = l.pages[1].frame
        #expect(a.maxX == b.minX)
        #expect(a.height == vp.safeBounds.height)
        #expect(abs(l.contentFrame.midX - vp.safeBounds.midX) < 1e-9)
        #expect(abs(a.width / a.height - 1000.0 / 1400) < 1e-9)
        #expect(l.pages[0].page == 2 && l.pages[1].page == 3)
        #expect(abs(l.pages[0].scale - a.height / 1400) < 1e-12)
        // A rect on the scan maps proportionally.
        let r = l.pages[1].toScreen(PixelRect(x: 500, y: 700, width: 100, height: 140))
        #expect(abs(r.minX - b.midX) < 1e-9 && abs(r.minY - b.midY) < 1e-9)
    }

    @Test func rightToLeftSpreadPutsFirstPageRight() {
        let book = makeBook(5, direction: .rightToLeft)
        let vp = DeviceProfile.tablet.viewport(.landscape)
        let screen = SpreadComposer().screens(for: book, orientation: .landscape)[1]
        let l = Fit.layout(screen, of: book, in: vp)
        #expect(l.pages.map(\.page) == [3, 2])
        #expect(l.frame(of: 2)!.frame.minX > l.frame(of: 3)!.frame.minX)
    }

    @Test func mixedHeightsShareACommonHeight() {
        let screen = Screen(pages: [2, 3], direction: .leftToRight, kind: .pair)
        let vp = Viewport(size: Size(width: 1000, height: 500), scale: 1)
        let l = Fit.layout(screen, pageSizes: [Size(width: 700, height: 1000), Size(width: 350, height: 500)], in: vp)
        #expect(l.pages[0].frame.height == l.pages[1].frame.height)
        #expect(abs(l.pages[0].frame.width - l.pages[1].frame.width) < 1e-9)
        #expect(l.contentFrame.height == 500)
    }
}
