import Geometry
import Raster
import Testing
@testable import ClearText

/// A glyph joined to drawn structure that runs on beyond its box is not type (issue 17, the dial
/// and scale of NDL 2568591_17): the scan decides, not the mask's sizes.
@Suite struct GlyphContinuationTests {
    static let paper = RGBA8(r: 222, g: 208, b: 186)
    static let ink = RGBA8(r: 70, g: 62, b: 52)

    /// A drawn scale: two rails the height of the page with ticks on the left one, a diamond
    /// between them holding a numeral, and a line of free-standing letters at the top right. The
    /// mask is what a detector that thresholds its line boxes gives: every ink pixel in them.
    struct Scene {
        var page: Bitmap<RGBA8>
        var mask: Bitmap<UInt8>
        let scaleBox = PixelRect(x: 104, y: 100, width: 34, height: 40)
        let lineBox = PixelRect(x: 146, y: 16, width: 88, height: 20)
        /// The rails and ticks inside the scale's box (the drawing that must stay).
        let rails = [PixelRect(x: 110, y: 100, width: 2, height: 40), PixelRect(x: 130, y: 100, width: 2, height: 40)]
    }

    static func scene(clippedLetter: Bool = false) -> Scene {
        var page = Bitmap<RGBA8>(width: 240, height: 240, fill: paper)
        // Rails from top to bottom of the page, ticks every 10 px on the left one.
        page.fill(.init(x: 110, y: 10, width: 2, height: 220), with: ink)
        page.fill(.init(x: 130, y: 10, width: 2, height: 220), with: ink)
        for y in stride(from: 14, to: 230, by: 10) { page.fill(.init(x: 102, y: y, width: 8, height: 1), with: ink) }
        // The diamond between the rails, its corners on them, and a numeral inside it.
        for d in 0...10 {
            for (x, y) in [(111 + d, 120 - d), (111 + d, 120 + d), (130 - d, 120 - d), (130 - d, 120 + d)] {
                page.fill(.init(x: x, y: y, width: 1, height: 1), with: ink)
            }
        }
        page.fill(.init(x: 116, y: 118, width: 10, height: 2), with: ink)
        page.fill(.init(x: 120, y: 114, width: 2, height: 11), with: ink)
        // A line of letters on plain paper; the last one optionally clipped by its box (its
        // foot 5 px below the box, as a detector cuts a descender).
        for k in 0..<6 { page.fill(.init(x: 150 + k * 14, y: 20, width: 8, height: 12), with: ink) }
        if clippedLetter { page.fill(.init(x: 150 + 5 * 14, y: 30, width: 3, height: 11), with: ink) }
        var scene = Scene(page: page, mask: Bitmap<UInt8>(width: 240, height: 240, fill: 0))
        for box in [scene.scaleBox, scene.lineBox] {
            for y in box.minY..<box.maxY {
                for x in box.minX..<box.maxX where page.pixels[y * 240 + x] == ink { scene.mask.pixels[y * 240 + x] = 255 }
            }
        }
        return scene
    }

    static func count(_ m: Bitmap<UInt8>, in r: PixelRect) -> Int {
        var n = 0
        for y in r.minY..<r.maxY { for x in r.minX..<r.maxX where m.pixels[y * m.width + x] != 0 { n += 1 } }
        return n
    }

    /// NDL 3508165_11: a dial's arc and a divider drawn at about a third of the way from the paper
    /// to the type's ink run through a small box of two characters. At half-way (the ink the
    /// type is made of) the arc breaks into pieces none of which runs out of the box, and the
    /// fill took it with the letters. Faint ink joined to ink is followed: the letter it touches
    /// runs out of the box; faint marks on their own are not ink.
    @Test func aFaintLineJoinedToALetterIsFollowedOutOfTheBox() {
        let box = PixelRect(x: 100, y: 100, width: 24, height: 24)
        var page = Bitmap<RGBA8>(width: 240, height: 240, fill: Self.paper)
        func shade(_ t: Double) -> RGBA8 {
            func c(_ a: UInt8, _ b: UInt8) -> UInt8 { UInt8(Double(a) + t * (Double(b) - Double(a))) }
            return RGBA8(r: c(Self.paper.r, Self.ink.r), g: c(Self.paper.g, Self.ink.g), b: c(Self.paper.b, Self.ink.b))
        }
        // A letter in the box, and a hairline at 40 % from its right side out across the page.
        page.fill(PixelRect(x: 104, y: 104, width: 10, height: 14), with: Self.ink)
        page.fill(PixelRect(x: 114, y: 110, width: 120, height: 1), with: shade(0.4))
        // A second hairline, as faint, crossing the box's lower part and touching no ink.
        page.fill(PixelRect(x: 0, y: 121, width: 240, height: 1), with: shade(0.4))
        var mask = Bitmap<UInt8>(width: 240, height: 240, fill: 0)
        mask.fill(PixelRect(x: 104, y: 104, width: 10, height: 14), with: 255)
        mask.fill(PixelRect(x: 114, y: 110, width: 10, height: 1), with: 255)
        let out = GlyphFilter.inkRunningOut(page: page, mask: mask, region: box, others: [], distance: 12)
        #expect(out.count == box.width * box.height)
        let at = { (x: Int, y: Int) in out[(y - box.minY) * box.width + x - box.minX] }
        #expect(at(108, 110), "the letter joined to the hairline runs out")
        #expect(at(120, 110), "the hairline itself")
        #expect(!at(110, 121), "a faint line touching no ink is not followed")
    }

    @Test func aNumeralOnADrawnScaleLeavesTheScaleOnThePage() {
        let s = Self.scene()
        #expect(s.rails.allSatisfy { Self.count(s.mask, in: $0) > 0 })  // the case is real: the mask holds the rails
        let lineInk = Self.count(s.mask, in: s.lineBox)

        // Without the scan (the mask's sizes alone), the rails inside the box look like glyph
        // pieces and would be in-filled.
        var sizesOnly = s.mask
        var p = GlyphFilterParameters()
        p.keepScanWhenUnsure = false
        p.runOut = 12
        p.joinedShare = 1
        let blind = GlyphFilter.keepGlyphs(&sizesOnly, regions: [s.scaleBox, s.lineBox], parameters: p)
        #expect(s.rails.allSatisfy { Self.count(sizesOnly, in: $0) > 0 })
        #expect(!blind[0].needsReview)

        // With the scan: the rails run on far beyond the box, so what they join stays.
        var seen = s.mask
        let reports = GlyphFilter.keepGlyphs(&seen, regions: [s.scaleBox, s.lineBox], parameters: p, page: s.page)
        #expect(s.rails.allSatisfy { Self.count(seen, in: $0) == 0 })
        // The numeral, not touching the drawing, is still type; a box is not flagged for
        // letters joined to a drawing, only for shapes and rules.
        #expect(Self.count(seen, in: s.scaleBox) > 0)
        #expect(reports[0].droppedPixels > 0 && !reports[0].needsReview)
        // The free-standing line is untouched.
        #expect(Self.count(seen, in: s.lineBox) == lineInk)
        #expect(reports[1].droppedPixels == 0 && !reports[1].needsReview)

        // By default a box whose letters are partly joined to a drawing is not cleared at all
        // (half a word is uglier than the scan): the scale's box stays as scanned and is flagged,
        // the free-standing line is cleared as before.
        let q = GlyphFilterParameters()
        #expect(q.runOut == 12 && q.joinedShare == 0.02 && q.keepScanWhenUnsure)
        var byDefault = s.mask
        let flagged = GlyphFilter.keepGlyphs(&byDefault, regions: [s.scaleBox, s.lineBox], parameters: q, page: s.page)
        #expect(Self.count(byDefault, in: s.scaleBox) == 0)
        #expect(flagged[0].needsReview && flagged[0].keptPixels == 0 && flagged[0].joinedToDrawing)
        #expect(Self.count(byDefault, in: s.lineBox) == lineInk)
        #expect(!flagged[1].needsReview)
    }

    /// A speck joined to a drawing (under `joinedShare` of the box's mask) does not hold the box
    /// back: only letters do.
    @Test func aSpeckJoinedToADrawingDoesNotKeepTheBox() {
        var s = Self.scene()
        // A 2×2 speck touching the left rail's outside, inside a box that holds the free line's
        // letters too, so the speck is well under 2 % of the box's mask.
        let box = PixelRect(x: 100, y: 16, width: 140, height: 20)
        s.page.fill(.init(x: 108, y: 22, width: 2, height: 2), with: Self.ink)
        s.mask.pixels[22 * 240 + 108] = 255; s.mask.pixels[22 * 240 + 109] = 255
        s.mask.pixels[23 * 240 + 108] = 255; s.mask.pixels[23 * 240 + 109] = 255
        var m = s.mask
        // The rail itself crosses this box: keep it out of the mask so only the speck joins it.
        for y in box.minY..<box.maxY { for x in 110..<112 { m.pixels[y * 240 + x] = 0 } }
        let before = Self.count(m, in: s.lineBox)
        let report = GlyphFilter.keepGlyphs(&m, regions: [box], parameters: GlyphFilterParameters(), page: s.page)[0]
        #expect(!report.needsReview)
        #expect(report.droppedPixels == 4, "the speck joined to the rail stays on the page")
        #expect(Self.count(m, in: s.lineBox) == before)
    }

    @Test func aLetterClippedByItsBoxIsStillType() {
        // Ink reaching a few pixels past the box is the letter the detector cut, not a drawing.
        let s = Self.scene(clippedLetter: true)
        var m = s.mask
        let before = Self.count(m, in: s.lineBox)
        var p = GlyphFilterParameters()
        p.runOut = 12
        let report = GlyphFilter.keepGlyphs(&m, regions: [s.lineBox], parameters: p, page: s.page)[0]
        #expect(report.droppedPixels == 0)
        #expect(Self.count(m, in: s.lineBox) == before)
    }

    @Test func theRunOutTestCanBeTurnedOff() {
        let s = Self.scene()
        var m = s.mask
        var p = GlyphFilterParameters()
        p.runOut = 0
        p.lineRunOut = 0
        p.keepScanWhenUnsure = false
        _ = GlyphFilter.keepGlyphs(&m, regions: [s.scaleBox], parameters: p, page: s.page)
        #expect(s.rails.allSatisfy { Self.count(m, in: $0) > 0 })
    }

    /// The straight-run test keeps a drawn line's own pixels on the page and nothing else: the
    /// rails through the scale's box stay, the numeral between them (not on a run reaching out)
    /// is still type, and the free-standing line and a letter its box clipped are untouched. The
    /// lines count towards review as rules do.
    @Test func aStraightLineThroughTheBoxStaysAndItsNeighboursAreStillType() {
        for clipped in [false, true] {
            let s = Self.scene(clippedLetter: clipped)
            var m = s.mask
            var p = GlyphFilterParameters()
            p.keepScanWhenUnsure = false
            p.lineRunOut = 12
            let numeral = [PixelRect(x: 116, y: 118, width: 10, height: 2), PixelRect(x: 120, y: 114, width: 2, height: 11)]
            let numeralInk = numeral.map { Self.count(m, in: $0) }
            let lineInk = Self.count(m, in: s.lineBox)
            let reports = GlyphFilter.keepGlyphs(&m, regions: [s.scaleBox, s.lineBox], parameters: p, page: s.page)
            #expect(s.rails.allSatisfy { Self.count(m, in: $0) == 0 }, "the rails run on: they stay on the page")
            #expect(numeral.map { Self.count(m, in: $0) } == numeralInk, "the numeral is not on a run that reaches out")
            #expect(Self.count(m, in: s.lineBox) == lineInk)
            // The rails are most of the scale box's ink: like rules, that is a reason for review
            // (with review's default the box would stay as scanned).
            #expect(reports[0].droppedPixels > 0 && reports[0].needsReview, "lines that are most of a box's ink flag it")
            #expect(reports[1].droppedPixels == 0)
        }
        // Off by default (and at 0): the mask is left to the other tests.
        let s = Self.scene()
        var m = s.mask
        var p = GlyphFilterParameters()
        #expect(p.lineRunOut == 0)
        p.keepScanWhenUnsure = false
        p.runOut = 0  // on by default: it would keep the rails (and what they join) for its own reason
        _ = GlyphFilter.keepGlyphs(&m, regions: [s.scaleBox], parameters: p, page: s.page)
        #expect(s.rails.allSatisfy { Self.count(m, in: $0) > 0 })
    }

    /// A letter touching a long horizontal rule (a frame's edge through the box): the rule's
    /// pixels stay, the letter's are still masked.
    @Test func aLetterTouchingARuleLosesOnlyTheRule() {
        var page = Bitmap<RGBA8>(width: 200, height: 80, fill: Self.paper)
        page.fill(.init(x: 0, y: 40, width: 200, height: 2), with: Self.ink)  // the rule, edge to edge
        for k in 0..<4 { page.fill(.init(x: 80 + k * 12, y: 28, width: 6, height: 12), with: Self.ink) }  // letters standing on it
        let box = PixelRect(x: 74, y: 24, width: 52, height: 20)
        var mask = Bitmap<UInt8>(width: 200, height: 80, fill: 0)
        for y in box.minY..<box.maxY { for x in box.minX..<box.maxX where page.pixels[y * 200 + x] == Self.ink { mask.pixels[y * 200 + x] = 255 } }
        var p = GlyphFilterParameters()
        p.keepScanWhenUnsure = false
        p.lineRunOut = 12
        p.runOut = 0  // the letters stand on the rule, so the run-out test would keep them whole
        _ = GlyphFilter.keepGlyphs(&mask, regions: [box], parameters: p, page: page)
        #expect(Self.count(mask, in: PixelRect(x: 74, y: 40, width: 52, height: 2)) == 0, "the rule stays on the page")
        // Each letter keeps its body; only the row beside the rule (one pixel of tolerance for a
        // rule scanned askew) goes with it.
        for k in 0..<4 {
            #expect(Self.count(mask, in: PixelRect(x: 80 + k * 12, y: 28, width: 6, height: 11)) == 66)
        }
    }

    /// A dial's hours sit in a ring of boxes, each touching the ring: the ring runs on out of one
    /// box only through the others. Their glyphs are text and block the way, the ring between
    /// them is not: the drawing is followed through the other boxes' unmasked ink (NDL 2568591_17,
    /// where the ring's arcs were erased with the hours beside them).
    @Test func aDrawingIsFollowedThroughOtherBoxesButNotThroughTheirLetters() {
        let s = Self.scene()
        // Two more labels on the rails, above and below the scale's box, whose boxes cover the
        // rails wherever the run-out window reaches; their masks hold their own numerals only.
        let above = PixelRect(x: 100, y: 60, width: 42, height: 40), below = PixelRect(x: 100, y: 140, width: 42, height: 40)
        var page = s.page, mask = s.mask
        for box in [above, below] {
            page.fill(.init(x: box.minX + 16, y: box.minY + 14, width: 8, height: 10), with: Self.ink)
            for y in (box.minY + 14)..<(box.minY + 24) { for x in (box.minX + 16)..<(box.minX + 24) { mask.pixels[y * 240 + x] = 255 } }
        }
        var p = GlyphFilterParameters()
        p.keepScanWhenUnsure = false
        p.joinedShare = 1
        var m = mask
        _ = GlyphFilter.keepGlyphs(&m, regions: [s.scaleBox, above, below], parameters: p, page: page)
        #expect(s.rails.allSatisfy { Self.count(m, in: $0) == 0 }, "the rails run on through the other boxes: they stay")

        // A neighbouring line's letters are text: a letter touching one is not followed through it.
        var two = Bitmap<RGBA8>(width: 200, height: 100, fill: Self.paper)
        let upper = PixelRect(x: 20, y: 20, width: 160, height: 24), lower = PixelRect(x: 20, y: 44, width: 160, height: 24)
        for k in 0..<10 { two.fill(.init(x: 24 + k * 15, y: 24, width: 8, height: 16), with: Self.ink) }
        for k in 0..<10 { two.fill(.init(x: 24 + k * 15, y: 48, width: 8, height: 16), with: Self.ink) }
        two.fill(.init(x: 24, y: 40, width: 2, height: 8), with: Self.ink)  // a descender touching the letter below
        var twoMask = Bitmap<UInt8>(width: 200, height: 100, fill: 0)
        for box in [upper, lower] {
            for y in box.minY..<box.maxY { for x in box.minX..<box.maxX where two.pixels[y * 200 + x] == Self.ink { twoMask.pixels[y * 200 + x] = 255 } }
        }
        let inkBefore = Self.count(twoMask, in: upper)
        let reports = GlyphFilter.keepGlyphs(&twoMask, regions: [upper, lower], parameters: p, page: two)
        #expect(reports.allSatisfy { $0.droppedPixels == 0 })
        #expect(Self.count(twoMask, in: upper) == inkBefore)
    }
}
