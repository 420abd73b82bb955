// How `clear` combines `analyze`'s mask file with its own box-wise ink estimate: the file rules on
// plain ground, the estimate over art.

import ClearText
import Codecs
import Foundation
import Geometry
import Preparation
import Raster
import TestSupport
import Testing

private let navy = RGBA8(r: 20, g: 26, b: 60)
private let brown = RGBA8(r: 70, g: 38, b: 18)

/// A page with navy "letters" (bars 4 px wide, 22 px apart) in `box` and a brown outline 3 px thick that crosses
/// the whole page through the letters, over `ground`.
private struct Page {
    var image: Bitmap<RGBA8>
    var letters: Bitmap<UInt8>
    var outlineRows: Range<Int>
    let box = PixelRect(x: 60, y: 40, width: 122, height: 34)

    init(ground: (Int, Int) -> RGBA8, outlined: Bool = true, ink: RGBA8 = navy, outline: RGBA8 = brown) {
        let w = 240, h = 120
        outlineRows = outlined ? 56..<59 : 0..<0
        image = Bitmap(width: w, height: h, pixels: (0..<(w * h)).map { ground($0 % w, $0 / w) })
        letters = Bitmap(width: w, height: h, fill: 0)
        for y in 0..<h where outlineRows.contains(y) { for x in 0..<w { image.pixels[y * w + x] = outline } }
        var x = box.minX + 4
        while x + 4 <= box.maxX - 4 {
            letters.fill(PixelRect(x: x, y: box.minY + 4, width: 4, height: box.height - 8), with: 255)
            x += 22
        }
        for i in letters.pixels.indices where letters.pixels[i] != 0 { image.pixels[i] = ink }
    }

    /// What a detector's threshold takes: the letters and every pixel of the outline in the box.
    var greedyMask: Bitmap<UInt8> {
        var m = letters
        for y in outlineRows { for x in box.minX..<box.maxX { m.pixels[y * m.width + x] = 255 } }
        return m
    }

    /// Outline pixels in the box at least `margin` px from every letter.
    func outlineAwayFromLetters(margin: Int) -> [Int] {
        var out: [Int] = []
        for y in outlineRows {
            for x in box.minX..<box.maxX {
                var near = false
                for dx in -margin...margin where letters.pixels[y * letters.width + min(letters.width - 1, max(0, x + dx))] != 0 { near = true }
                if !near { out.append(y * letters.width + x) }
            }
        }
        return out
    }
}

private func writeMask(_ m: Bitmap<UInt8>, in dir: String) throws -> String {
    let path = dir + "/mask.png"
    try Data(PNGEncoder.encode(m, name: path)).write(to: URL(fileURLWithPath: path))
    return path
}

@Suite struct MaskMergeTests {
    /// Pickets: cream and green bands 6 px wide — busy ground all round the box.
    static let pickets: @Sendable (Int, Int) -> RGBA8 = { x, _ in (x / 6) % 2 == 0 ? RGBA8(r: 236, g: 226, b: 190) : RGBA8(r: 110, g: 160, b: 80) }
    static let paper: @Sendable (Int, Int) -> RGBA8 = { _, _ in RGBA8(r: 240, g: 232, b: 210) }
    /// These tests are about which ink is filled, so the check after the fill does not read the
    /// edges: on grounds of hard 6-px stripes even a fill that continues them reads as making
    /// edges (the stripes' median edge is nothing; Documentation/ClearText.md, "Edges the fill
    /// made") and the box would go back to the scan. Nor the smears: the detector's mask here took
    /// the outline, so the outline is not counted as the box's ground, and the fill drawing it on
    /// through the letters reads as a shade the ground does not reach (a tenth of the filled
    /// pixels: a cost of that reading, seen only on this synthetic page; Documentation/ClearText.md,
    /// "Smears").
    static let edgesUnread: FillCheckParameters = { var p = FillCheckParameters(); p.edgesMade = 0; p.smears = 0; return p }()
    /// The outline here crosses the letters and runs on past the box: by default the glyph filter
    /// would hold those letters back as joined to a drawing and leave the whole box as scanned
    /// (`GlyphFilterParameters.joinedShare`). What is tested is which mask is used, so that rule
    /// is off.
    static let joinedAllowed: GlyphFilterParameters = { var p = GlyphFilterParameters(); p.runOut = 0; return p }()

    @Test func overArtTheEstimateKeepsTheOutlineTheFileTook() throws {
        let page = Page(ground: Self.pickets)
        let ground = InkMask.groundSpread(page: page.image, in: page.box, ignoring: page.greedyMask)
        #expect(ground.luma > 15 && ground.chroma > 8, "\(ground)")
        let dir = makeTemporaryDirectory("mask-merge")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = try writeMask(page.greedyMask, in: dir)
        let cleared = try PageClearing.clear(
            page: page.image, boxes: [page.box], maskFile: file, source: "p.png", infill: InFill(), checkParameters: Self.edgesUnread)
        #expect(cleared.maskKind == "file+estimate")
        // The outline between the letters is the drawing's, and stays exactly as scanned (but
        // for the in-fill's 1–2 px dilation around the letters)…
        let kept = page.outlineAwayFromLetters(margin: 3)
        #expect(kept.count > 150)
        let changed = kept.filter { cleared.image.pixels[$0] != page.image.pixels[$0] }
        #expect(changed.count * 20 <= kept.count, "\(changed.count) of \(kept.count) outline pixels away from the letters were filled")
        // …while the letters are gone.
        let left = page.letters.pixels.indices.filter { page.letters.pixels[$0] != 0 && cleared.image.pixels[$0] == navy }
        #expect(left.isEmpty, "\(left.count) letter pixels left")

        // With the file alone, the outline in the box is filled away: what the rule prevents.
        let fileOnly = try PageClearing.clear(page: page.image, boxes: [page.box], maskFile: file, source: "p.png", infill: InFill(), fileOnly: true)
        #expect(kept.allSatisfy { fileOnly.image.pixels[$0] != page.image.pixels[$0] })
    }

    /// Beside a drawing in the type's own ink (an engraving, a pen drawing) colour cannot tell
    /// the estimate which dark strokes are type; the detector's mask, which kept to the letters,
    /// is kept.
    @Test func besideAnInkDrawingTheFileIsKept() throws {
        let black = RGBA8(r: 34, g: 30, b: 28)
        let hatching: @Sendable (Int, Int) -> RGBA8 = { x, _ in (x / 6) % 2 == 0 ? RGBA8(r: 236, g: 228, b: 208) : RGBA8(r: 150, g: 144, b: 132) }
        let page = Page(ground: hatching, ink: black, outline: black)
        let ground = InkMask.groundSpread(page: page.image, in: page.box, ignoring: page.letters)
        #expect(ground.luma > 15 && ground.chroma < 8, "\(ground)")
        let dir = makeTemporaryDirectory("mask-merge")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cleared = try PageClearing.clear(
            page: page.image, boxes: [page.box], maskFile: try writeMask(page.letters, in: dir), source: "p.png", infill: InFill(),
            glyphParameters: Self.joinedAllowed, checkParameters: Self.edgesUnread)
        // (The estimate's fringe around the file's ink reaches 3 px, the in-fill's dilation 1–2
        // px more: the outline is taken where it touches a letter.)
        let kept = page.outlineAwayFromLetters(margin: 6)
        let changed = kept.filter { cleared.image.pixels[$0] != page.image.pixels[$0] }
        #expect(changed.isEmpty, "\(changed.count) of \(kept.count) outline pixels away from the letters were filled")
        // (Where the outline crosses a letter, the fill draws it on through: that stays black.)
        let left = page.letters.pixels.indices.filter {
            page.letters.pixels[$0] != 0 && !page.outlineRows.contains($0 / 240) && cleared.image.pixels[$0] == black
        }
        #expect(left.isEmpty, "\(left.count) letter pixels left")
    }

    @Test func onPlainGroundTheFileIsTrusted() throws {
        var page = Page(ground: Self.paper, outlined: false)
        // A pale pencil mark under the letters, too faint for the estimate's threshold, that the
        // file (a librarian's mask, or the detector's) calls ink.
        var file = page.letters
        let mark = PixelRect(x: page.box.minX + 2, y: page.box.maxY - 5, width: page.box.width - 4, height: 2)
        for y in mark.minY..<mark.maxY {
            for x in mark.minX..<mark.maxX {
                page.image.pixels[y * 240 + x] = RGBA8(r: 228, g: 220, b: 200)
                file.pixels[y * 240 + x] = 255
            }
        }
        #expect(InkMask.groundSpread(page: page.image, in: page.box, ignoring: file).luma < 15)
        let dir = makeTemporaryDirectory("mask-merge")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let cleared = try PageClearing.clear(page: page.image, boxes: [page.box], maskFile: try writeMask(file, in: dir), source: "p.png", infill: InFill())
        func offPaper(_ p: RGBA8) -> Int { abs(Int(p.r) - 240) + abs(Int(p.g) - 232) + abs(Int(p.b) - 210) }
        let inked = file.pixels.indices.filter { file.pixels[$0] != 0 }
        let worst = inked.map { offPaper(cleared.image.pixels[$0]) }.max() ?? 0
        #expect(worst <= 6, "a pixel of the file's ink is \(worst) levels (sum over channels) off the paper")
    }

    /// A box drawn a little too tight on a plain sky: its ring cuts through the letters it clipped,
    /// which alone would make the ground look busy.
    @Test func lettersTheBoxClippedDoNotMakeItArt() {
        let page = Page(ground: Self.paper, outlined: false)
        let tight = PixelRect(x: page.box.minX + 6, y: page.box.minY + 8, width: page.box.width - 12, height: page.box.height - 16)
        let plainTest = InkMask.isOverArt(page: page.image, in: tight)
        let inkLeftOut = InkMask.groundSpread(page: page.image, in: tight, ignoring: page.letters).luma > 15
        #expect(plainTest)
        #expect(!inkLeftOut)
    }
}
