import Foundation
@testable import PageAnalysis
import Raster
import Testing

/// Panoramas that lost a strip into the fold and were scanned page by page: the seam test judged
/// against the rest of the book (SpreadDetector.findSpreads).
@Suite struct SeamContinuityTests {
    /// A landscape of layered hills, each with its own colour and a silhouette of two sines: outlines
    /// cross any vertical cut at heights that depend on the seed.
    static func landscape(seed: Int, width: Int, height: Int) -> Bitmap<RGBA8> {
        func unit(_ k: Int) -> Double {
            // Deterministic pseudo-random numbers from the seed (a small LCG is enough here).
            var x = UInt64(truncatingIfNeeded: seed &* 7919 &+ k &* 104_729)
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(x >> 11) / Double(1 << 53)
        }
        let layers = 5
        var pixels = [RGBA8](repeating: .white, count: width * height)
        for y in 0..<height {
            let sky = RGBA8(r: UInt8(120 + 100 * y / height), g: UInt8(170 + 60 * y / height), b: 235)
            for x in 0..<width { pixels[y * width + x] = sky }
        }
        for l in 0..<layers {
            let base = Double(height) * (0.25 + 0.14 * Double(l)) + 40 * unit(10 * l)
            let a1 = 20 + 40 * unit(10 * l + 1), f1 = 0.004 + 0.01 * unit(10 * l + 2), p1 = 6.28 * unit(10 * l + 3)
            let a2 = 6 + 14 * unit(10 * l + 4), f2 = 0.02 + 0.03 * unit(10 * l + 5), p2 = 6.28 * unit(10 * l + 6)
            let colour = RGBA8(r: UInt8(40 + 180 * unit(10 * l + 7)), g: UInt8(60 + 160 * unit(10 * l + 8)), b: UInt8(20 + 120 * unit(10 * l + 9)))
            for x in 0..<width {
                let top = base + a1 * sin(f1 * Double(x) + p1) + a2 * sin(f2 * Double(x) + p2)
                for y in max(0, Int(top))..<height { pixels[y * width + x] = colour }
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// Exposure and a vertical shift, as when each page of a spread is scanned on its own.
    static func rescanned(_ page: Bitmap<RGBA8>, gain: Double, shift: Int) -> Bitmap<RGBA8> {
        var out = page
        for y in 0..<page.height {
            let sy = min(page.height - 1, max(0, y - shift))
            for x in 0..<page.width {
                let p = page.pixels[sy * page.width + x]
                func g(_ v: UInt8) -> UInt8 { UInt8(min(255, Double(v) * gain)) }
                out.pixels[y * page.width + x] = RGBA8(r: g(p.r), g: g(p.g), b: g(p.b))
            }
        }
        return out
    }

    /// A book of unrelated landscapes with one panorama in the middle: 12 px of the picture lost
    /// into the fold, the right page 8 % brighter and 5 px lower.
    static func book() -> (pages: [Bitmap<RGBA8>], panorama: Int) {
        var pages = (1...4).map { landscape(seed: $0, width: 400, height: 560) }
        let wide = landscape(seed: 99, width: 812, height: 560)
        pages.append(wide.cropped(to: .init(x: 0, y: 0, width: 400, height: 560)))
        pages.append(rescanned(wide.cropped(to: .init(x: 412, y: 0, width: 400, height: 560)), gain: 1.08, shift: 5))
        pages += (5...9).map { landscape(seed: $0, width: 400, height: 560) }
        return (pages, 4)
    }

    @Test func aPanoramaThatLostAStripIntoTheFoldIsFoundAndNothingElse() {
        let detector = SpreadDetector()
        let (pages, panorama) = Self.book()
        let edges = pages.map { Optional(detector.edges(of: $0)) }
        let candidates = (0..<(pages.count - 1)).map { (left: $0, right: $0 + 1) }
        let verdicts = detector.findSpreads(pages: edges, candidates: candidates)
        let found = candidates.indices.filter { verdicts[$0].isSpread }
        #expect(found == [panorama], "\(verdicts[panorama])")
        // The exact profile test alone does not see it: the gap and the rescan break it.
        #expect(!detector.evidence(left: pages[panorama], right: pages[panorama + 1]).isSpread)
    }

    /// Two plates of different sizes are not one picture across the fold, however well their
    /// edges' profiles (taken in bins of each page's own height) agree: the panorama's right half,
    /// squashed to 60 % of its height, is refused; at 95 % (a scan's crop) it is still found.
    @Test(arguments: [(0.6, false), (0.95, true)])
    func halvesOfDifferentHeightsAreNotASpread(scale: Double, found: Bool) {
        let detector = SpreadDetector()
        var (pages, panorama) = Self.book()
        let right = pages[panorama + 1]
        let h = Int(Double(right.height) * scale)
        pages[panorama + 1] = Bitmap(width: right.width, height: h, pixels: (0..<(right.width * h)).map { i in
            let x = i % right.width, y = i / right.width
            return right.pixels[min(right.height - 1, y * right.height / h) * right.width + x]
        })
        let edges = pages.map { Optional(detector.edges(of: $0)) }
        let candidates = (0..<(pages.count - 1)).map { (left: $0, right: $0 + 1) }
        let verdicts = detector.findSpreads(pages: edges, candidates: candidates)
        #expect(verdicts[panorama].isSpread == found, "\(verdicts[panorama])")
        var off = detector
        off.parameters.maximumHeightRatio = 0
        let unchecked = off.findSpreads(pages: edges, candidates: candidates)
        #expect(unchecked[panorama].isSpread, "the squashed half still continues its partner's outlines: \(unchecked[panorama])")
    }

    @Test func theSameHalvesSwappedAreNotASpread() {
        let detector = SpreadDetector()
        var (pages, panorama) = Self.book()
        pages.swapAt(panorama, panorama + 1)
        let edges = pages.map { Optional(detector.edges(of: $0)) }
        let candidates = (0..<(pages.count - 1)).map { (left: $0, right: $0 + 1) }
        #expect(detector.findSpreads(pages: edges, candidates: candidates).allSatisfy { !$0.isSpread })
    }

    @Test func pagesWithBlankEdgesAreNeverSpreads() {
        // Text pages: paper at both edges, a dark block in the middle. Their edges are identical,
        // so every profile agrees; without outlines at the edges nothing may be called a spread.
        var page = Bitmap<RGBA8>(width: 400, height: 560, fill: RGBA8(r: 240, g: 232, b: 215))
        page.fill(.init(x: 60, y: 80, width: 280, height: 400), with: RGBA8(r: 30, g: 30, b: 30))
        let detector = SpreadDetector()
        let edges = [PageEdges?](repeating: detector.edges(of: page), count: 8)
        let candidates = (0..<7).map { (left: $0, right: $0 + 1) }
        #expect(detector.findSpreads(pages: edges, candidates: candidates).allSatisfy { !$0.isSpread })
    }

    @Test func unreadablePagesAreSkipped() {
        let detector = SpreadDetector()
        let (pages, panorama) = Self.book()
        var edges = pages.map { Optional(detector.edges(of: $0)) }
        edges[panorama + 1] = nil
        let verdicts = detector.findSpreads(pages: edges, candidates: [(left: panorama, right: panorama + 1), (left: 0, right: 99)])
        #expect(verdicts.allSatisfy { !$0.isSpread })
    }
}

extension SeamContinuityTests {
    /// Open books photographed one opening at a time on the same table, the same ruler beside
    /// them: every image's edges show the same background, so every pair "continues". That proves
    /// nothing about any one pair (ndl-docl-dev had 5 false spreads in 11 images from this).
    @Test func pagesSharingOneBackgroundAreNotSpreads() {
        // The table: grey, with a ruler and a colour chart crossing every image at the same heights.
        func table(_ y: Int) -> RGBA8 {
            switch y {
            case 20..<60: RGBA8(r: UInt8(40 + (y * 37) % 200), g: UInt8(200 - (y * 13) % 150), b: UInt8((y * 71) % 255))
            case 500..<530: y % 6 < 2 ? RGBA8(r: 30, g: 30, b: 30) : RGBA8(r: 230, g: 225, b: 200)
            default: RGBA8(r: 150, g: 152, b: 155)
            }
        }
        let pages = (1...8).map { k -> Bitmap<RGBA8> in
            var page = Self.landscape(seed: 100 + k, width: 400, height: 560)
            for y in 0..<560 {
                for x in 0..<40 {
                    page.pixels[y * 400 + x] = table(y)
                    page.pixels[y * 400 + 399 - x] = table(y)
                }
            }
            return page
        }
        let detector = SpreadDetector()
        let edges = pages.map { Optional(detector.edges(of: $0)) }
        let candidates = (0..<7).map { (left: $0, right: $0 + 1) }
        // Each pair alone passes the exact profile test: the edges are one picture.
        #expect(detector.evidence(left: pages[0], right: pages[1]).isSpread)
        #expect(detector.findSpreads(pages: edges, candidates: candidates).allSatisfy { !$0.isSpread })
    }
}
