// Only text ink is removed (issue 17: "never harm the pictures").
//
// A box that takes in part of a drawing hands the drawing's ink to the mask: a dial's circles and
// spokes, a figure's outline, a rule across the page. In-filling those erases the picture, which is
// far worse than leaving a letter on it. Whatever detector made the mask, letters share a property
// a drawing does not: however the mask joins them (letters, words, whole lines), they are about
// one type size thick. So within each box the mask's 8-connected components are measured against
// the box's type size (the upper quartile of its components' longer sides), and a component
// is kept only if it could be type:
//   - not large both ways (a circle, a figure: shorter side over `blobFactor` type sizes), and
//   - not a rule (longer than `lineFactor` type sizes yet thinner than a quarter of one: a
//     border, a rule, a long contour), and
//   - when the page is given, not joined to the scan's ink that runs on beyond the box (a numeral
//     on a drawn scale's rails, a label touching a frame, an hour touching a dial's spokes; see
//     GlyphContinuation.swift).
// Arabic words, joined Latin script, Mongolian words and whole lines are long one way but one
// type size thick, and stay. What was dropped is reported, so a box that gave up much of its mask is flagged for a
// person to look at rather than trusted.

public import Geometry
public import Raster

public struct GlyphFilterParameters: Sendable, Hashable {
    /// A component whose *shorter* side exceeds this many type sizes is a drawn shape.
    public var blobFactor = 2.0
    /// A component longer than this many type sizes and thinner than `ruleThickness` of one is a
    /// rule, a border or a contour line.
    public var lineFactor = 8.0
    public var ruleThickness = 0.25
    /// Components needed before their sizes say the type size (else the box's short side).
    public var minimumComponents = 6
    /// Components smaller than this (pixels) are specks: kept, and not counted for the glyph size.
    public var speck = 4
    /// Share of a box's mask dropped above which the box is reported as needing review.
    public var reviewShare = 0.15
    /// Leave a box that needs review as scanned (its whole mask cleared) rather than fill its glyphs.
    public var keepScanWhenUnsure = true
    /// How far beyond its region (px, at least; half a type size when that is more) the page's ink
    /// joined to a mask component must run for the component to count as drawing. A clipped
    /// letter reaches a few pixels past its box, a scale's rail or a frame runs on. Regions from
    /// `clear` are already the boxes grown by `PageClearing.reach` (12 px), so ink must reach 24 px
    /// past the detected box. 0 turns the test off. It was off until the check after the fill
    /// existed: alone it cost the generated corpus 2 dB (letters touching outlines stayed, half a
    /// word cleared); with `joinedShare` such a box stays whole as scanned, and NDL's drawing ink
    /// changed fell from 4.13 to 1.33 % (Documentation/ClearText.md, "Letters joined to a drawing").
    public var runOut = 12
    /// How far beyond its region (px, at least; half the region's short side when that is more)
    /// a straight run of the page's ink through a mask pixel must reach for that pixel to count
    /// as a drawn line and stay on the page (GlyphContinuation.swift). Unlike `runOut`, only the
    /// line's own pixels stay: the letters it touches are still type; the lines count towards
    /// review as rules do. Regions from `clear` are the boxes grown by 12 px, so 24 asks for 36 px
    /// past the detected box. 0 turns it off, and it is off by default: at 24 it took NDL's
    /// drawing harm from 5.51 to 4.68 % and changed no picture-book page's drawing, but left 18
    /// more of the generated corpus's librarian-drawn boxes as scanned (its text boxes 29.63 →
    /// 26.85 dB). Without counting towards review it cost nothing there, but two captions of
    /// *The Real Mother Goose* printed between frame lines were filled into smears
    /// (Documentation/Evaluation.md).
    public var lineRunOut = 0
    /// Share of a box's mask held back by `runOut` (letters joined to a drawing) above which the
    /// box is left as scanned and flagged. A box is cleared whole or not at all: clearing the
    /// other letters round one left standing makes half a word, uglier than the scan ("obinson",
    /// "bells" of a verse whose flourishes touch it). The 2 % spares a dot or a speck. 1 never
    /// flags for it.
    public var joinedShare = 0.02

    public init() {}

    /// Sets the numeric parameter called `name` (for tuning from the command line); false when
    /// there is no such parameter.
    public mutating func set(_ name: String, to value: Double) -> Bool {
        switch name {
        case "blobFactor": blobFactor = value
        case "lineFactor": lineFactor = value
        case "runOut": runOut = Int(value)
        case "lineRunOut": lineRunOut = Int(value)
        case "joinedShare": joinedShare = value
        default: return false
        }
        return true
    }

    /// The values that change a result, for the up-to-date record.
    public var key: String { "blob=\(blobFactor) line=\(lineFactor) runOut=\(runOut) lineRunOut=\(lineRunOut) joined=\(joinedShare)" }
}

/// What the filter did in one box.
public struct GlyphFilterReport: Sendable, Hashable {
    public var region: PixelRect
    /// Type size (upper quartile of the components' longer sides, or the box's short side), px.
    public var glyphSize: Int
    public var keptPixels: Int
    public var droppedPixels: Int
    /// True when so much was dropped that the box likely takes in a drawing.
    public var needsReview: Bool
    /// True when the box needs review only because letters of it are joined to a drawing's
    /// strokes (`joinedShare`), not because it takes in the drawing's shapes or rules.
    public var joinedToDrawing = false
}

public enum GlyphFilter {
    /// Clears, inside each region, the mask components that cannot be type (see above). Regions
    /// are filtered one after another on the mask as it stands, so overlapping boxes agree.
    ///
    /// With `page` (the scan the mask belongs to) a component joined to ink that runs on beyond
    /// its region is dropped too; other regions count as text, so ink is not followed into them.
    public static func keepGlyphs(
        _ mask: inout Bitmap<UInt8>, regions: [PixelRect], parameters p: GlyphFilterParameters = .init(),
        page: Bitmap<RGBA8>? = nil
    ) -> [GlyphFilterReport] {
        if let page { precondition(page.width == mask.width && page.height == mask.height, "mask \(mask.width)×\(mask.height) for a \(page.width)×\(page.height) page") }
        return regions.enumerated().map { index, region in
            guard let r = region.intersection(mask.bounds), r.width > 0, r.height > 0 else {
                return GlyphFilterReport(region: region, glyphSize: 0, keptPixels: 0, droppedPixels: 0, needsReview: false)
            }
            let w = r.width, h = r.height, pageWidth = mask.width
            var local = [UInt8](repeating: 0, count: w * h)
            mask.pixels.withUnsafeBufferPointer { m in
                for y in 0..<h { for x in 0..<w { local[y * w + x] = m[(r.minY + y) * pageWidth + r.minX + x] != 0 ? 1 : 0 } }
            }
            // Drawn lines through the box first (a scale's rails, a frame a label touches): their
            // pixels stay on the page, and the letters they touched are measured without them.
            var lineDropped = 0
            if let page, p.lineRunOut > 0 {
                let others = regions.enumerated().filter { $0.offset != index }.map(\.element)
                let lines = inkRunningOut(
                    page: page, mask: mask, region: r, others: others, distance: max(p.lineRunOut, min(r.width, r.height) / 2),
                    straight: true)
                if !lines.isEmpty {
                    mask.pixels.withUnsafeMutableBufferPointer { m in
                        for y in 0..<h {
                            for x in 0..<w where lines[y * w + x] && local[y * w + x] != 0 {
                                local[y * w + x] = 0
                                m[(r.minY + y) * pageWidth + r.minX + x] = 0
                                lineDropped += 1
                            }
                        }
                    }
                }
            }
            let parts = InkMask.components(width: w, height: h, where: { local[$0] != 0 })
            struct Part { var pixels: [Int]; var width: Int; var height: Int }
            let measured = parts.map { pixels -> Part in
                var x0 = w, x1 = 0, y0 = h, y1 = 0
                for i in pixels {
                    let y = i / w, x = i - y * w
                    x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
                }
                return Part(pixels: pixels, width: x1 - x0 + 1, height: y1 - y0 + 1)
            }
            let total = measured.reduce(0) { $0 + $1.pixels.count } + lineDropped
            // The type size: the upper quartile of the components' longer sides. Letters, words,
            // Mongolian words and whole lines run together by the mask reach about one type size
            // the short way and at least one the long way; dots, diacritics and noise are smaller
            // (and in a Mongolian column may outnumber the words, hence the quartile, not the
            // median); a drawing's shape is large both ways, a rule is thin and long.
            let sizes = measured.filter { $0.pixels.count >= p.speck }.map { max($0.width, $0.height) }.sorted()
            // With few components (one word, or a rule and a letter) the median says little; the
            // box's short side then stands for the type size (a detected line is about one glyph
            // tall), which still tells a rule across the box from the word on it.
            let glyph = sizes.count >= p.minimumComponents ? Double(sizes[3 * sizes.count / 4]) : Double(min(r.width, r.height))
            var runningOut: [Bool] = []
            if let page, p.runOut > 0 {
                let others = regions.enumerated().filter { $0.offset != index }.map(\.element)
                runningOut = inkRunningOut(
                    page: page, mask: mask, region: r, others: others, distance: max(p.runOut, Int(glyph / 2)))
            }
            // Drawn lines count towards review as rules do: where they are a large share of the
            // box's ink, its letters sit among them and the fill would take their ink into its
            // ground, so the box stays as scanned.
            var dropped = lineDropped, joined = 0
            mask.pixels.withUnsafeMutableBufferPointer { m in
                for part in measured {
                    let short = Double(min(part.width, part.height)), long = Double(max(part.width, part.height))
                    let blob = short > p.blobFactor * glyph
                    let line = long > p.lineFactor * glyph && short < p.ruleThickness * glyph
                    let drawing = !runningOut.isEmpty && part.pixels.contains { runningOut[$0] }
                    guard blob || line || drawing else { continue }
                    dropped += part.pixels.count
                    if drawing && !blob && !line { joined += part.pixels.count }
                    for i in part.pixels {
                        let y = i / w, x = i - y * w
                        m[(r.minY + y) * pageWidth + r.minX + x] = 0
                    }
                }
            }
            // Shapes, rules and lines count towards review by their share of the mask. Letters
            // joined to a drawing count by `joinedShare`: left on the page while the letters round
            // them are cleared they make half words, so beyond a speck the box stays as scanned.
            let shapes = total > 0 && Double(dropped - joined) > p.reviewShare * Double(total)
            let touching = total > 0 && Double(joined) > p.joinedShare * Double(total)
            let review = shapes || touching
            if review && p.keepScanWhenUnsure {
                // A box that gave up this much of its mask lies in a drawing (labels in a diagram,
                // a caption across a figure): its letters are entangled with the lines, so its
                // pixels stay as scanned and a person decides.
                mask.pixels.withUnsafeMutableBufferPointer { m in
                    for y in r.minY..<r.maxY { for x in r.minX..<r.maxX { m[y * pageWidth + x] = 0 } }
                }
            }
            return GlyphFilterReport(
                region: region, glyphSize: Int(glyph), keptPixels: review && p.keepScanWhenUnsure ? 0 : total - dropped,
                droppedPixels: review && p.keepScanWhenUnsure ? total : dropped, needsReview: review,
                joinedToDrawing: touching && !shapes)
        }
    }
}
