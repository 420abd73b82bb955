// `clear` checks each box after the fill (FillCheck): a well-cleared box is reported with its text
// gone and stays cleared; a box whose words the fill left (read against the detector's mask) or
// whose fill made edges its ground does not have goes back to the scan and is flagged; without a
// mask file only the edges are read, and for the in-fill scored alone (`fileOnly`) nothing is.

@testable import ClearText
import BookModel
import Codecs
import Foundation
import Geometry
@testable import Preparation
import Raster
import TestSupport
import Testing

@Suite struct FillCheckPageTests {
    static let paper = RGBA8(r: 240, g: 232, b: 210)
    static let navy = RGBA8(r: 20, g: 26, b: 60)
    static let box = PixelRect(x: 60, y: 40, width: 122, height: 34)

    static func page() -> (image: Bitmap<RGBA8>, letters: Bitmap<UInt8>) {
        let w = 240, h = 120
        var image = Bitmap(width: w, height: h, fill: paper)
        var letters = Bitmap<UInt8>(width: w, height: h, fill: 0)
        var x = box.minX + 4
        while x + 4 <= box.maxX - 4 {
            letters.fill(PixelRect(x: x, y: box.minY + 4, width: 4, height: box.height - 8), with: 255)
            x += 11
        }
        for i in letters.pixels.indices where letters.pixels[i] != 0 { image.pixels[i] = navy }
        return (image, letters)
    }

    /// `mask` as the PNG mask file `analyze` would write, in `dir`.
    static func writeMask(_ mask: Bitmap<UInt8>, in dir: String) throws -> String {
        let file = dir + "/mask.png"
        try Data(PNGEncoder.encode(mask, name: file)).write(to: URL(fileURLWithPath: file))
        return file
    }

    @Test func aWellClearedBoxPassesTheCheck() throws {
        let (image, letters) = Self.page()
        let dir = makeTemporaryDirectory("fill-check")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = try Self.writeMask(letters, in: dir)
        let cleared = try PageClearing.clear(page: image, boxes: [Self.box], maskFile: file, source: "p.png", infill: InFill())
        #expect(cleared.textLeft.count == 1)
        let left = try #require(cleared.textLeft[0])
        #expect(left < 0.05, "\(left)")
        #expect(cleared.glyphs.map(\.needsReview) == [false])
        #expect(cleared.reviewReasons == [nil])
        for i in letters.pixels.indices where letters.pixels[i] != 0 {
            #expect(cleared.image.pixels[i] != Self.navy)
        }
    }

    /// The failure seen on a generated page, wired through `clear`'s check: the words' ink (the
    /// detector's mask) untouched and the fence's cream pickets across them painted over. The box
    /// goes back to the scan, is flagged, and the fill mask says nothing changed there; a second,
    /// well-cleared box on the page keeps its fill.
    @Test func aBoxWhoseWordsTheFillLeftGoesBackToTheScanAndIsFlagged() throws {
        let cream = RGBA8(r: 246, g: 242, b: 228), green = RGBA8(r: 96, g: 150, b: 70)
        let w = 240, h = 160
        let ground: (Int, Int) -> RGBA8 = { x, _ in (x / 10) % 3 == 0 ? cream : green }
        var scan = Bitmap(width: w, height: h, pixels: (0..<(w * h)).map { ground($0 % w, $0 / w) })
        var letters = Bitmap<UInt8>(width: w, height: h, fill: 0)
        let fence = PixelRect(x: 40, y: 20, width: 160, height: 40), clean = PixelRect(x: 40, y: 100, width: 160, height: 40)
        for box in [fence, clean] {
            var x = box.minX + 4
            while x + 4 <= box.maxX - 4 {
                letters.fill(PixelRect(x: x, y: box.minY + 6, width: 4, height: box.height - 12), with: 255)
                x += 12
            }
        }
        for i in letters.pixels.indices where letters.pixels[i] != 0 { scan.pixels[i] = Self.navy }
        var cleared = scan
        var fill = Bitmap<UInt8>(width: w, height: h, fill: 0)
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                if fence.contains(x: x, y: y) && scan.pixels[i] == cream { cleared.pixels[i] = green; fill.pixels[i] = 255 }
                if clean.contains(x: x, y: y) && letters.pixels[i] != 0 { cleared.pixels[i] = ground(x, y); fill.pixels[i] = 255 }
            }
        }
        let before = cleared
        let report = GlyphFilterReport(region: fence, glyphSize: 28, keptPixels: 1, droppedPixels: 0, needsReview: false)
        var glyphs = [report, report]
        var textOnly = FillCheckParameters()
        textOnly.edgesMade = 0
        let (readings, edges, _, _, _, _, _) = PageClearing.checkFills(
            scan: scan, cleared: &cleared, fill: &fill, boxes: [fence, clean], regions: [fence, clean], glyphs: &glyphs,
            ink: letters, infill: InFillParameters(), parameters: textOnly)
        #expect((readings[0] ?? 0) > 0.9, "\(readings)")
        #expect((readings[1] ?? 1) < 0.05, "\(readings)")
        #expect(edges.isEmpty, "the edge reading was off")
        #expect(glyphs.map(\.needsReview) == [true, false])
        for y in 0..<h {
            for x in 0..<w {
                let i = y * w + x
                if fence.expanded(by: 8).contains(x: x, y: y) {
                    #expect(cleared.pixels[i] == scan.pixels[i] && fill.pixels[i] == 0)
                } else {
                    #expect(cleared.pixels[i] == before.pixels[i])
                }
            }
        }
    }

    @Test func theCheckCanBeTurnedOffAndDoesNotRunOnTheInFillAlone() throws {
        let (image, letters) = Self.page()
        let dir = makeTemporaryDirectory("fill-check")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = try Self.writeMask(letters, in: dir)
        let fileOnly = try PageClearing.clear(page: image, boxes: [Self.box], maskFile: file, source: "p.png", infill: InFill(), fileOnly: true)
        #expect(fileOnly.textLeft.isEmpty && fileOnly.edgesMade.isEmpty)
        var off = FillCheckParameters()
        off.textLeft = 0
        off.edgesMade = 0
        let unchecked = try PageClearing.clear(page: image, boxes: [Self.box], maskFile: file, source: "p.png", infill: InFill(), checkParameters: off)
        #expect(unchecked.textLeft.isEmpty && unchecked.edgesMade.isEmpty)
        // Without a mask file there is no reading of the ink independent of the fill's own; the
        // edges the fill made are still read (and a clean fill on paper makes none).
        let estimated = try PageClearing.clear(page: image, boxes: [Self.box], maskFile: nil, source: "p.png", infill: InFill())
        #expect(estimated.textLeft.isEmpty)
        #expect(estimated.edgesMade.count == 1)
        let edges = try #require(estimated.edgesMade[0])
        #expect(edges < 0.5, "\(edges)")
        #expect(estimated.glyphs.map(\.needsReview) == [false])
    }

    /// Letters `width` px wide whose mask held only a 2-px core, the cores (grown by one)
    /// replaced by paper and the outlines left: what a mask that missed the letters' edges gives.
    static func outlinedPage(width: Int) -> (scan: Bitmap<RGBA8>, cleared: Bitmap<RGBA8>, fill: Bitmap<UInt8>, cores: Bitmap<UInt8>) {
        let w = 240, h = 120
        var scan = Bitmap(width: w, height: h, fill: Self.paper)
        var cores = Bitmap<UInt8>(width: w, height: h, fill: 0)
        var x = Self.box.minX + 4
        while x + width <= Self.box.maxX - 4 {
            scan.fill(PixelRect(x: x, y: Self.box.minY + 4, width: width, height: Self.box.height - 8), with: Self.navy)
            cores.fill(PixelRect(x: x + width / 2 - 1, y: Self.box.minY + 7, width: 2, height: Self.box.height - 14), with: 255)
            x += width + 6
        }
        let fill = Self.grownByOne(cores)
        var cleared = scan
        for i in fill.pixels.indices where fill.pixels[i] != 0 { cleared.pixels[i] = Self.paper }
        return (scan, cleared, fill, cores)
    }

    /// Letters' outlines left round filled cores: with no mask file to read colours against, the
    /// edge reading alone sends the box back to the scan and flags it.
    @Test(arguments: [8, 14])
    func outlinesLeftSendTheBoxBackToTheScan(width: Int) throws {
        var (scan, cleared, fill, _) = Self.outlinedPage(width: width)
        let report = GlyphFilterReport(region: Self.box, glyphSize: 26, keptPixels: 1, droppedPixels: 0, needsReview: false)
        var glyphs = [report]
        let (_, edges, _, _, _, _, _) = PageClearing.checkFills(
            scan: scan, cleared: &cleared, fill: &fill, boxes: [Self.box], regions: [Self.box], glyphs: &glyphs,
            ink: nil, infill: InFillParameters(), parameters: FillCheckParameters())
        let made = try #require(edges.first ?? nil)
        #expect(made >= FillCheckParameters().edgesMade, "\(made)")
        #expect(glyphs.map(\.needsReview) == [true])
        #expect(cleared.pixels == scan.pixels, "the box is back as scanned")
        #expect(fill.pixels.allSatisfy { $0 == 0 })
    }

    /// `clear --report` says why: the glyph filter's verdict first (it came before the fill),
    /// then text left, then edges; a reading under its bar, or turned off, is no reason.
    @Test func reviewReasonsFollowTheRulesInOrder() {
        let p = FillCheckParameters()
        let reasons = PageClearing.reviewReasons(
            drawing: [true, false, false, false, false], textLeft: [0.9, 0.5, 0.1, nil, 0.1], edges: [2, 2, 1.5, 0.4, 0.2],
            flagged: [true, true, true, true, false], parameters: p)
        #expect(reasons == [.inDrawing, .textLeft, .edgesMade, nil, nil])
        // A box flagged only for letters joined to a drawing says so; shapes take precedence.
        let joined = PageClearing.reviewReasons(
            drawing: [true, true], joined: [true, false], textLeft: [0.9, nil], edges: [2, nil], flagged: [true, true], parameters: p)
        #expect(joined == [.joinedToDrawing, .inDrawing])
        #expect(ReviewReason.joinedToDrawing.description.contains("half words"))
        var off = p
        off.edgesMade = 0
        #expect(PageClearing.reviewReasons(drawing: [false], textLeft: [], edges: [5], flagged: [true], parameters: off) == [nil])
        #expect(ReviewReason.edgesMade.description.contains("edges"))
        // Smears come after edges, and at their own bar.
        let smeared = PageClearing.reviewReasons(
            drawing: [false, false, false], textLeft: [0.1, 0.1, 0.1], edges: [2, 0.4, 0.4], smears: [0.5, 0.5, 0.01],
            flagged: [true, true, false], parameters: p)
        #expect(smeared == [.edgesMade, .smeared, nil])
        var noSmears = p
        noSmears.smears = 0
        #expect(PageClearing.checkVerdict(textLeft: nil, edges: nil, smears: 0.9, parameters: noSmears) == nil)
        #expect(ReviewReason.smeared.description.contains("smears"))
    }

    /// A box the glyph filter leaves as scanned stays exactly as scanned: the estimate's fringe
    /// of its ink reaches a pixel or two past the box, and without care that fringe was filled
    /// and the fill, grown for the letters' halo, reached back in. Fixtures/kept-box-fence.png is
    /// the case as seen (generated corpus, seed 1003 page 11, cropped): vertical Japanese over a
    /// fence, a librarian's box; 55 pixels round it changed, 13 inside, so the box scored below its
    /// own scan. (Only the box's rectangle is put back: a neighbour's fill beside it is the
    /// neighbour's.)
    @Test func aBoxKeptAsScannedIsNotTouchedByFillsAroundIt() throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
        let image = try ImageDecoder.decode(file: folder + "/kept-box-fence.png")
        let box = PixelRect(x: 40, y: 40, width: 46, height: 546)
        let cleared = try PageClearing.clear(page: image, boxes: [box], maskFile: nil, source: "fence.png", infill: InFill())
        #expect(cleared.glyphs.map(\.needsReview) == [true])
        var changed = 0, filled = 0
        for y in box.minY..<box.maxY {
            for x in box.minX..<box.maxX {
                if cleared.image.pixels[y * image.width + x] != image.pixels[y * image.width + x] { changed += 1 }
                if cleared.fill.pixels[y * image.width + x] != 0 { filled += 1 }
            }
        }
        #expect(changed == 0, "\(changed) pixels of a box left as scanned changed")
        #expect(filled == 0)
    }

    /// A two-line signature the detector took for one line: "ERNEST" boxed, "ARIS" under it in no
    /// box. Cleared, the plate was left with half a signature (and the top of its A cut off).
    /// Fixtures/signature-two-lines.png (with its detector mask) is the case as seen: Ernest Aris's
    /// signature on a grainy tree trunk, *Willie Mouse* (Alta Tabor; Project Gutenberg
    /// 18742, public domain in the USA), plate p. 9, cropped. The box now stays as scanned.
    @Test func aBoxWithALineOfItsBlockBesideItInNoBoxStaysAsScanned() throws {
        let (image, mask) = try Self.fixture("signature-two-lines")
        let box = PixelRect(x: 34, y: 74, width: 97, height: 24)
        let kept = try PageClearing.clear(page: image, boxes: [box], lightInk: [true], maskFile: mask, source: "signature.png", infill: InFill())
        #expect(kept.glyphs.map(\.needsReview) == [true])
        #expect(kept.reviewReasons == [.lineBeside])
        let unchanged = kept.image.pixels == image.pixels
        #expect(unchanged, "a box left as scanned changed the page")
        // The fill also took the top of the A, which reaches into the box: with this reading off,
        // the cut-letter reading keeps the box; with both off it is cleared, and "ARIS" stays.
        var off = FillCheckParameters()
        off.lineBeside = 0
        let cut = try PageClearing.clear(
            page: image, boxes: [box], lightInk: [true], maskFile: mask, source: "signature.png", infill: InFill(), checkParameters: off)
        #expect(cut.reviewReasons == [.lettersCut])
        off.cutLetters = 0
        let cleared = try PageClearing.clear(
            page: image, boxes: [box], lightInk: [true], maskFile: mask, source: "signature.png", infill: InFill(), checkParameters: off)
        #expect(cleared.glyphs.map(\.needsReview) == [false])
        let changed = cleared.image.pixels != image.pixels
        #expect(changed)
        #expect(ReviewReason.lineBeside.description.contains("beside"))
    }

    /// Hand lettering boxed round its x-height band: the fill took the letters' bodies and left the
    /// tops of h, t and d floating over a cleared line. Fixtures/ascenders-past-the-box.png (with its
    /// detector mask) is the case as seen: "hen the pie was open'd", *The Song of Sixpence Picture
    /// Book* (Walter Crane; Project Gutenberg 18344, public domain in the USA), page 9,
    /// cropped. The box now stays as scanned.
    @Test func aBoxWhoseFillWouldCutLettersStaysAsScanned() throws {
        let (image, mask) = try Self.fixture("ascenders-past-the-box")
        let box = PixelRect(x: 27, y: 55, width: 453, height: 58)
        let kept = try PageClearing.clear(page: image, boxes: [box], lightInk: [false], maskFile: mask, source: "sixpence.png", infill: InFill())
        #expect(kept.glyphs.map(\.needsReview) == [true])
        let unchanged = kept.image.pixels == image.pixels
        #expect(unchanged, "a box left as scanned changed the page")
        // The fill left an apostrophe whole too, which the letters-left reading sees first; alone,
        // the cut-letter reading keeps the box, and with both off it is cleared.
        var off = FillCheckParameters()
        off.lettersLeft = 0
        let cut = try PageClearing.clear(
            page: image, boxes: [box], lightInk: [false], maskFile: mask, source: "sixpence.png", infill: InFill(), checkParameters: off)
        #expect(cut.reviewReasons == [.lettersCut])
        off.cutLetters = 0
        let cleared = try PageClearing.clear(
            page: image, boxes: [box], lightInk: [false], maskFile: mask, source: "sixpence.png", infill: InFill(), checkParameters: off)
        #expect(cleared.glyphs.map(\.needsReview) == [false])
        #expect(ReviewReason.lettersCut.description.contains("letters"))
    }

    /// A title whose letters the detector's mask missed in part: "THE SHIP." was cleared to "P." and
    /// nothing was flagged, since the text-left reading judges the fill against that same mask.
    /// Fixtures/title-letters-missed.png (with its detector mask) is the case as seen: *The Tiny
    /// Story Book* (Project Gutenberg 23336, public domain in the USA), page 3, a 1-bit scan,
    /// cropped. The box now stays as scanned, as text left.
    @Test func aBoxWhoseFillLeftLettersWholeStaysAsScanned() throws {
        let (image, mask) = try Self.fixture("title-letters-missed")
        let box = PixelRect(x: 44, y: 34, width: 381, height: 54)
        let kept = try PageClearing.clear(page: image, boxes: [box], lightInk: [false], maskFile: mask, source: "ship.png", infill: InFill())
        #expect(kept.reviewReasons == [.textLeft])
        let share = try #require(kept.lettersLeft.first ?? nil)
        #expect(share >= FillCheckParameters().lettersLeft, "\(share)")
        let unchanged = kept.image.pixels == image.pixels
        #expect(unchanged, "a box left as scanned changed the page")
        var off = FillCheckParameters()
        off.lettersLeft = 0
        let cleared = try PageClearing.clear(
            page: image, boxes: [box], lightInk: [false], maskFile: mask, source: "ship.png", infill: InFill(), checkParameters: off)
        #expect(cleared.glyphs.map(\.needsReview) == [false])
    }

    /// A page crop from Fixtures/ (see its README) and the path of its detector mask.
    static func fixture(_ name: String) throws -> (Bitmap<RGBA8>, mask: String) {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures").path
        return (try ImageDecoder.decode(file: folder + "/" + name + ".png"), folder + "/" + name + "-mask.png")
    }

    static func grownByOne(_ m: Bitmap<UInt8>) -> Bitmap<UInt8> {
        var out = m
        for y in 1..<(m.height - 1) {
            for x in 1..<(m.width - 1) where m.pixels[y * m.width + x] != 0 {
                for dy in -1...1 { for dx in -1...1 { out.pixels[(y + dy) * m.width + x + dx] = 255 } }
            }
        }
        return out
    }
}
