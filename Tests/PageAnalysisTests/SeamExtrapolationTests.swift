import Foundation
@testable import PageAnalysis
import Raster
import Testing

/// The colour-field measure (SeamExtrapolation) and its place in the book-relative decision. Most
/// tests switch the other tests' own verdicts off (`minimumContinuity`, `minimumCorrelation` above
/// any score) so that a pair taken is taken by the field measure; the crossings rule (≥ 2 outlines on both edges) still
/// applies to it, as in the detector.
@Suite struct SeamExtrapolationTests {
    /// A painted scene: a wash whose colours drift slowly across and down the picture (what the
    /// field measure carries over the fold), crossed by a few ribbons of flat colour with wavy
    /// outlines (so the crossings rule is met). Everything is drawn from the seed, the sky-above-
    /// ground order of a landscape included, so unrelated scenes share no structure by design.
    static func scene(seed: Int, width: Int, height: Int) -> Bitmap<RGBA8> {
        func unit(_ k: Int) -> Double {
            var x = UInt64(truncatingIfNeeded: seed &* 7919 &+ k &* 104_729)
            x = x &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Double(x >> 11) / Double(1 << 53)
        }
        let fx = (0..<3).map { 0.002 + 0.008 * unit(200 + $0) }, fy = (0..<3).map { 0.004 + 0.02 * unit(210 + $0) }
        let px = (0..<3).map { 6.28 * unit(220 + $0) }, py = (0..<3).map { 6.28 * unit(230 + $0) }
        let base = (0..<3).map { 70 + 110 * unit(240 + $0) }
        var pixels = [RGBA8](repeating: .white, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                func wash(_ c: Int) -> UInt8 {
                    UInt8(max(0, min(255, base[c] + 60 * sin(fx[c] * Double(x) + px[c]) * cos(fy[c] * Double(y) + py[c]))))
                }
                pixels[y * width + x] = RGBA8(r: wash(0), g: wash(1), b: wash(2))
            }
        }
        for l in 0..<3 {
            let centre = Double(height) * (0.1 + 0.8 * unit(10 * l)), thickness = Double(height) * (0.03 + 0.08 * unit(10 * l + 1))
            let a = 10 + 30 * unit(10 * l + 2), f = 0.004 + 0.01 * unit(10 * l + 3), p = 6.28 * unit(10 * l + 4)
            let colour = RGBA8(r: UInt8(30 + 200 * unit(10 * l + 5)), g: UInt8(30 + 200 * unit(10 * l + 6)), b: UInt8(30 + 200 * unit(10 * l + 7)))
            for x in 0..<width {
                let top = centre + a * sin(f * Double(x) + p)
                let lo = max(0, min(height, Int(top))), hi = max(lo, min(height, Int(top + thickness)))
                for y in lo..<hi { pixels[y * width + x] = colour }
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    /// Each page of a spread scanned on its own: exposure, a colour cast per channel, a vertical
    /// shift.
    static func rescanned(_ page: Bitmap<RGBA8>, gain: Double, cast: SIMD3<Double>, shift: Int) -> Bitmap<RGBA8> {
        var out = page
        for y in 0..<page.height {
            let sy = min(page.height - 1, max(0, y - shift))
            for x in 0..<page.width {
                let p = page.pixels[sy * page.width + x]
                func g(_ v: UInt8, _ c: Double) -> UInt8 { UInt8(max(0, min(255, Double(v) * gain + c))) }
                out.pixels[y * page.width + x] = RGBA8(r: g(p.r, cast.x), g: g(p.g, cast.y), b: g(p.b, cast.z))
            }
        }
        return out
    }

    /// Unrelated scenes with one panorama in the middle: 14 px (3.5 % of a page) lost into the
    /// fold, the right half darker, warmer and 6 px lower than the left.
    static func book(picture: (Int, Int, Int) -> Bitmap<RGBA8> = scene) -> (pages: [Bitmap<RGBA8>], panorama: Int) {
        let (w, h) = (400, 560)
        var pages = (1...5).map { picture($0, w, h) }
        let wide = picture(77, 2 * w + 14, h)
        pages.append(rescanned(wide.cropped(to: .init(x: 0, y: 0, width: w, height: h)), gain: 1.06, cast: [0, -3, 4], shift: 0))
        pages.append(rescanned(wide.cropped(to: .init(x: w + 14, y: 0, width: w, height: h)), gain: 0.9, cast: [7, 2, -6], shift: 6))
        pages += (6...10).map { picture($0, w, h) }
        return (pages, 5)
    }

    /// The crossing test's and the exact profile test's own verdicts off (bars above any score), so
    /// what is taken is taken by the field measure.
    static var fieldOnly: SpreadDetector {
        var p = SpreadParameters()
        p.minimumContinuity = 2
        p.minimumCorrelation = 2
        return SpreadDetector(parameters: p)
    }

    static func verdicts(_ detector: SpreadDetector, _ pages: [Bitmap<RGBA8>]) -> [SpreadEvidence] {
        let edges = pages.map { Optional(detector.edges(of: $0)) }
        return detector.findSpreads(pages: edges, candidates: (0..<(pages.count - 1)).map { (left: $0, right: $0 + 1) })
    }

    @Test func aPanoramaCutWithAGapAndRescannedDifferentlyScoresHighAndIsTaken() {
        let (pages, panorama) = Self.book()
        let detector = Self.fieldOnly
        let verdicts = Self.verdicts(detector, pages)
        let e = verdicts[panorama]
        #expect(e.extrapolation >= 0.6, "\(e)")
        #expect(e.edgeDeviation >= 10, "\(e)")
        #expect((e.extrapolationMargin ?? 0) >= 3, "\(e)")
        #expect(e.isSpread, "\(e)")
        let taken = verdicts.indices.filter { verdicts[$0].isSpread }
        #expect(taken == [panorama], "\(taken.map { verdicts[$0] })")
        // The exact profile test does not see it: the gap and the rescan break it.
        #expect(!SpreadDetector().evidence(left: pages[panorama], right: pages[panorama + 1]).isSpread)
    }

    @Test func twoUnrelatedPagesAreNotTakenAndScoreWellBelowAPanorama() {
        let (pages, panorama) = Self.book()
        let detector = Self.fieldOnly
        let edges = pages.map { detector.edges(of: $0) }
        let field = SeamExtrapolation(parameters: .init())
        let pano = field.score(left: edges[panorama].field.right, right: edges[panorama + 1].field.left)
        let unrelated = field.score(left: edges[1].field.right, right: edges[2].field.left)
        #expect(pano - unrelated >= 0.3, "panorama \(pano), unrelated \(unrelated)")
        // The halves swapped: each page is still a picture, but nothing continues.
        var swapped = pages
        swapped.swapAt(panorama, panorama + 1)
        #expect(Self.verdicts(detector, swapped).allSatisfy { !$0.isSpread })
    }

    /// Vignettes on white: the edges are paper with faint shading and a couple of thin lines (so
    /// the crossings rule is met). Standardised per edge, the shading becomes a "profile" that a
    /// cut picture continues perfectly; only the gate, which asks for real variation in grey
    /// levels, refuses it.
    static func vignette(seed: Int, width: Int, height: Int) -> Bitmap<RGBA8> {
        let phase = Double(seed) * 1.7, freq = 0.01 + 0.002 * Double(seed % 5)
        var page = Bitmap<RGBA8>(width: width, height: height, fill: .white)
        for y in 0..<height {
            for x in 0..<width {
                let shade = 240 + 3 * sin(freq * Double(y) + phase + 0.004 * Double(x))
                page.pixels[y * width + x] = RGBA8(r: UInt8(shade), g: UInt8(shade - 4), b: UInt8(shade - 12))
            }
        }
        for k in 0..<2 {
            let y0 = (seed * 97 + k * 211) % (height - 40) + 20
            for x in 0..<width {
                let y = y0 + Int(8 * sin(0.01 * Double(x) + phase))
                for t in 0..<2 { page.pixels[(y + t) * width + x] = RGBA8(r: 60, g: 50, b: 40) }
            }
        }
        // The drawing itself, well inside the page (and left of the fold of a panorama).
        page.fill(.init(x: width / 10, y: height / 4, width: width / 4, height: height / 2), with: RGBA8(r: 90, g: 140, b: 70))
        return page
    }

    @Test func aBlankEdgedPairIsRefusedByTheGate() {
        let (pages, panorama) = Self.book(picture: Self.vignette)
        let gated = Self.verdicts(Self.fieldOnly, pages)
        let e = gated[panorama]
        #expect(e.edgeDeviation < 10, "\(e)")
        #expect(gated.allSatisfy { !$0.isSpread }, "\(gated.indices.filter { gated[$0].isSpread }.map { ($0, gated[$0]) })")
        // What the gate stops: ungated, the continued shading is taken.
        var p = Self.fieldOnly.parameters
        p.extrapolation.minimumEdgeDeviation = 0
        let ungated = Self.verdicts(SpreadDetector(parameters: p), pages)
        #expect(ungated[panorama].isSpread, "\(ungated[panorama])")
    }

    /// A blank edge is refused by the outline test too: the vignettes' two thin lines cross both
    /// edges of the cut picture and continue exactly, but the edges are paper with a few levels of
    /// shading, so the pair is refused; with the floor off (`outlineMinimumEdgeDeviation` 0) the
    /// outline test takes it.
    @Test func aBlankEdgedPairIsRefusedByTheOutlineTestToo() {
        let (pages, panorama) = Self.book(picture: Self.vignette)
        var p = SpreadParameters()
        p.minimumCorrelation = 2           // the exact profile test off
        p.extrapolation.minimumScore = 2   // the field measure cannot take a pair
        p.minimumMargin = 2                // the vignettes' lines recur through the book (margin 2.4)
        let gated = Self.verdicts(SpreadDetector(parameters: p), pages)
        #expect(gated[panorama].edgeDeviation < SpreadParameters().outlineMinimumEdgeDeviation, "\(gated[panorama])")
        #expect(gated.allSatisfy { !$0.isSpread }, "\(gated.indices.filter { gated[$0].isSpread }.map { ($0, gated[$0]) })")
        p.outlineMinimumEdgeDeviation = 0
        let ungated = Self.verdicts(SpreadDetector(parameters: p), pages)
        #expect(ungated[panorama].isSpread, "\(ungated[panorama])")
        // A picture's panorama is not touched by the gate.
        var q = SpreadParameters()
        q.minimumCorrelation = 2
        q.extrapolation.minimumScore = 2
        let (scenes, at) = Self.book()
        let e = Self.verdicts(SpreadDetector(parameters: q), scenes)[at]
        #expect(e.edgeDeviation >= 2 * q.outlineMinimumEdgeDeviation, "\(e)")
    }

    @Test func parametersAreSettableAndOffMeansTheFormerDetector() {
        let defaults = SeamExtrapolationParameters()
        // The lab's constants (Tools/panorama-seam-lab.py: DIST, GAPS, SHIFT, SCALES["extrap"], LAB_RAW_SD=10).
        #expect(defaults.distances == [0.004, 0.012, 0.02, 0.03, 0.04, 0.05])
        #expect(defaults.gaps == [0, 0.01, 0.02, 0.03, 0.04])
        #expect(defaults.maxShift == 2 && defaults.bandRadii == [0, 2, 6] && defaults.bins == 100)
        #expect(defaults.minimumEdgeDeviation == 10 && defaults.minimumScore == 0.3 && defaults.minimumMargin == 3)
        #expect(SpreadParameters().extrapolation == defaults)

        let (pages, panorama) = Self.book()
        var p = Self.fieldOnly.parameters
        p.extrapolation.isEnabled = false
        let off = SpreadDetector(parameters: p)
        let verdicts = Self.verdicts(off, pages)
        #expect(verdicts.allSatisfy { !$0.isSpread && $0.extrapolationMargin == nil && $0.extrapolation == 0 })
        #expect(off.edges(of: pages[0]).byteCount < SpreadDetector().edges(of: pages[0]).byteCount)
        // A bar above what the panorama reaches turns it down.
        p.extrapolation.isEnabled = true
        p.extrapolation.minimumMargin = 1000
        #expect(!Self.verdicts(SpreadDetector(parameters: p), pages)[panorama].isSpread)
    }

    @Test func degenerateParametersAndTinyPagesDoNotTrap() {
        var x = SeamExtrapolationParameters()
        x.distances = []
        x.gaps = []
        x.bandRadii = []
        x.maxShift = -3
        let field = SeamExtrapolation(parameters: x)
        let page = Self.scene(seed: 3, width: 160, height: 200)
        let e = field.edges(of: page)
        #expect(field.score(left: e.right, right: e.left) == 0)
        var one = SeamExtrapolationParameters()
        one.distances = [0.01]
        one.maxShift = -1
        let f1 = SeamExtrapolation(parameters: one)
        let e1 = f1.edges(of: page)
        #expect(f1.score(left: e1.right, right: e1.left).isFinite)
        // Under `bins` rows there is no field to keep; the pair scores 0.
        let tiny = Bitmap<RGBA8>(width: 40, height: 50, fill: .white)
        let t = SeamExtrapolation(parameters: .init()).edges(of: tiny)
        #expect(t.left.bins == 0 && SeamExtrapolation(parameters: .init()).score(left: t.right, right: e.left) == 0)
    }
}
