// The per-page work that `picturebook clear`/`popout` run over a whole book and that the reader
// runs on demand for one page: clearing the printed text, cropping a text block, and shrinking a
// scan for the screen. Pure functions of their inputs; callers decide where outputs go.

public import BookModel
public import ClearText
public import Geometry
public import Raster
import Codecs
import Dispatch
import FileIO
import Foundation

/// Identifies a source file's version by its size and modification time: an output made from
/// it is current while this string is unchanged.
public enum SourceKey {
    /// `src=<size>@<mtime>`, or `src=-1@-1` for a file that cannot be read.
    public static func of(_ path: String) -> String {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
        return "src=\(size)@\(FileIO.modificationTime(path) ?? -1)"
    }
}

/// A page with its text in-filled away, with what it took.
public struct ClearedPage: Sendable {
    public var image: Bitmap<RGBA8>
    /// 255 where the in-fill changed the pixel.
    public var fill: Bitmap<UInt8>
    public var regions: [RegionReport]
    /// Per box, what the glyph filter kept and dropped (empty with `fileOnly`); a box that gave up
    /// much of its mask likely takes in a drawing and `needsReview`.
    public var glyphs: [GlyphFilterReport]
    /// Per box, the share of its text the fill left on the page (``FillCheck``), nil where the box
    /// gave no reading; empty when there was no check (no mask file, or `fileOnly`). A box at or
    /// over the check's bar went back to the scan and `needsReview`.
    public var textLeft: [Double?]
    /// Per box, the edges its fill made over its ground's (``FillCheck/edgesMade(scan:cleared:filled:box:ink:parameters:)``),
    /// nil where the box gave no reading; empty when not read (`fileOnly`, or the reading off).
    /// A box at or over the bar went back to the scan and `needsReview`.
    public var edgesMade: [Double?]
    /// Per box, the share of its filled pixels the fill shaded towards its ink beyond the
    /// ground's own reach (``SmearCheck``), nil where the box gave no reading; empty when not read
    /// (no mask file). A box at or over the bar went back to the scan and `needsReview`.
    public var smears: [Double?]
    /// Per box, the glyph-sized marks its fill left along the ends of its lines, over the pixels
    /// filled in it (``RunOnCheck``), nil where the box gave no reading; empty when not read.
    /// A box at or over the bar went back to the scan and `needsReview`.
    public var runsOn: [Double?]
    /// Per box, the largest row of glyph-sized marks its fill left beside it across its lines,
    /// in no box, over the pixels filled in it (``LineBesideCheck``), nil where the box gave no
    /// reading; empty when not read. A box at or over the bar went back to the scan and `needsReview`.
    public var lineBeside: [Double?]
    /// Per box, how many letters the fill cut and left a visible piece of (``CutLetterCheck``), nil where the box gave no reading; empty when not read. A box at or
    /// over the bar went back to the scan and `needsReview`.
    public var cutLetters: [Double?]
    /// Per box, the share of its letters' ink the fill left whole, or 1 for a drop capital left
    /// (``LettersLeftCheck``), nil where the box gave no reading; empty when not read. A box at or over the bar went back
    /// to the scan and `needsReview` (as text left).
    public var lettersLeft: [Double?]
    /// Per box, why it was left as scanned (nil for a box that was cleared); empty with `fileOnly`.
    public var reviewReasons: [ReviewReason?]
    /// "estimate", "file+estimate" when a mask file was used, or "file" when it was used alone.
    public var maskKind: String
    public var maskMilliseconds: Double
    public var infillMilliseconds: Double
}

/// A page's text boxes as clearing reads them from book.json: each box's rectangle, which way its
/// lines run, and its polarity (nil when not recorded); `key` names all three, for up-to-date
/// records and cache names.
public struct ClearingBoxes: Sendable {
    public var rects: [PixelRect]
    public var vertical: [Bool]
    public var lightInk: [Bool?]

    public init(_ boxes: [TextBox]) {
        rects = boxes.map(\.rect)
        vertical = boxes.map { $0.orientation == .vertical }
        lightInk = boxes.map { $0.polarity.map { $0 == .lightOnDark } }
    }

    public var key: String {
        rects.map(\.description).joined(separator: ",") + " v:" + vertical.map { $0 ? "1" : "0" }.joined()
            + " l:" + lightInk.map { $0.map { $0 ? "1" : "0" } ?? "-" }.joined()
    }
}

public enum PageClearing {
    /// How far beyond a box the estimate may find ink that continues the mask file's ink: a
    /// detected block is often clipped through a descender or the last letter of a line, and the
    /// clipped part would stay on the page.
    public static let reach = 12
    /// How close to the mask file's ink an estimated pixel must lie to be taken: the fringe the
    /// file's threshold left out.
    public static let fringe = 3

    /// Clears `boxes` on `page`.
    ///
    /// Without a mask file the ink is the box-wise estimate (`InkMask`). With one (a gray PNG the
    /// size of the page, non-zero on ink, as `analyze` writes it), how the two combine depends on
    /// the ground around each box (``InkMask/groundSpread(page:in:ignoring:)``, with the file's
    /// ink left out of it):
    ///
    /// * **Plain ground** (luma spread up to `busyBorder`): the file is trusted, and the estimate
    ///   adds what it surely missed: the whole estimate in a box the file barely covers (under a
    ///   tenth of the estimate's ink: a box a librarian drew, or text the detector kept no ink
    ///   for), the estimate within ``fringe`` px of the file's ink (the anti-aliased edge and
    ///   blur halo), and every estimated mark joined to the file's ink up to ``reach`` px beyond
    ///   the box (clipped glyphs, the faint parts of strokes).
    /// * **Colour art** (luma spread over `busyBorder`, chroma over `colourGround`): the estimate
    ///   made for the box itself replaces the file inside the box. The detector's mask is a
    ///   threshold between ground and ink that keeps whatever is as dark as the type, and over a
    ///   drawing that is the outlines, rails and grass the letters touch; the estimate sorts type
    ///   from drawing by colour and by what runs on beyond the box (benchmark, whole pipeline:
    ///   20.2 dB over art with the file, 22.6 with the estimate). That holds even where the
    ///   estimate finds far less ink than the file: the file's extra "ink" was the drawing. A box
    ///   in which the estimate finds no ink at all keeps the file.
    /// * **Art in the ink's own colour** (an engraving, a pen drawing): colour cannot tell type
    ///   from drawing, so the file stays (it keeps to the lines and stops at the drawing's edge),
    ///   with the estimate's fringe around its ink; file ink further than ``fringe`` px from any
    ///   estimated ink is dropped unless the estimate found under a third of the file's ink.
    ///
    /// With `fileOnly` the mask file is used alone (to score the in-fill by itself).
    ///
    /// `vertical` and `lightInk` give, per box, the orientation of its lines and its polarity
    /// (light type on a dark ground; nil when not known), as book.json records them: the run-on
    /// check reads along the lines, for ink of that polarity. Missing entries are horizontal, not known.
    public static func clear(
        page image: Bitmap<RGBA8>, boxes: [PixelRect], vertical: [Bool] = [], lightInk: [Bool?] = [], maskFile: String?, source: String,
        infill: InFill, maskParameters: InkMaskParameters = InkMaskParameters(), fileOnly: Bool = false,
        glyphParameters: GlyphFilterParameters = .init(), checkParameters: FillCheckParameters = .init()
    ) throws -> ClearedPage {
        let t0 = DispatchTime.now()
        var mask: Bitmap<UInt8>
        var maskKind = "estimate"
        var regions = boxes
        // The detector's own reading of the ink, kept to check the fill against (see below).
        var detectorInk: Bitmap<UInt8>?
        if let maskFile, FileIO.exists(maskFile) {
            let file = try ImageDecoder.decodeGray(file: maskFile)
            guard file.width == image.width, file.height == image.height else {
                throw ClearTextError.maskSizeMismatch(
                    page: source, pageWidth: image.width, pageHeight: image.height, maskWidth: file.width, maskHeight: file.height)
            }
            if fileOnly {
                mask = file
                maskKind = "file"
            } else {
                regions = boxes.map { $0.expanded(by: reach).intersection(image.bounds) ?? $0 }
                mask = merged(file: file, page: image, boxes: boxes, grown: regions, parameters: maskParameters)
                maskKind = "file+estimate"
                detectorInk = file
            }
        } else {
            mask = InkMask.estimate(page: image, regions: boxes, parameters: maskParameters)
        }
        // Only what can be type is removed: drawn shapes and lines that a box took in stay, and
        // so does whatever the scan shows joined to ink running on beyond the box (a drawn
        // scale's rails and ticks through its numerals, a frame a label touches).
        var glyphs = fileOnly ? [] : GlyphFilter.keepGlyphs(&mask, regions: regions, parameters: glyphParameters, page: image)
        let t1 = DispatchTime.now()
        var fill = infill.fillMask(mask: mask, regions: regions)
        let (filled, reports) = infill.fillMasked(page: image, fill: fill, regions: regions)
        var cleared = filled
        let t2 = DispatchTime.now()
        // The fill mask is what may be replaced; over busy art the in-fill keeps part of its
        // outer ring as decoded. What a caller (`--fill-masks`, the benchmark) wants is what
        // changed.
        fill.pixels.withUnsafeMutableBufferPointer { f in
            image.pixels.withUnsafeBufferPointer { a in
                cleared.pixels.withUnsafeBufferPointer { b in
                    for i in f.indices where f[i] != 0 { f[i] = a[i] == b[i] ? 0 : 255 }
                }
            }
        }
        // A box the glyph filter left as scanned stays exactly as scanned: the estimate's fringe
        // of its ink reaches a pixel or two past the box, and a fill of that fringe, grown for the
        // letters' halo, reached back into it. Its own rectangle goes back, and only that: grown
        // further, the restore put back the lower halves of the line above it (a speech balloon's
        // first line, filled well, left as half letters).
        if glyphParameters.keepScanWhenUnsure {
            for (i, glyph) in glyphs.enumerated() where glyph.needsReview && i < boxes.count {
                FillCheck.restore(&cleared, fill: &fill, from: image, within: boxes[i])
            }
        }
        let drawn = glyphs.map(\.needsReview), joined = glyphs.map(\.joinedToDrawing)
        // After the fill, each box is checked: where its text is still on the page (read against
        // the detector's own reading of the ink: the mask missed the letters, or took the art
        // across them instead), or where the fill made edges its ground does not have (letters
        // left in pieces, smears, blotches), the box goes back to the scan and is flagged, as a
        // box the glyph filter could not judge is. Without a mask file there is no reading of
        // the ink independent of the fill's, and only the edges are read.
        // `fileOnly` scores the in-fill by itself: nothing is checked or put back.
        let (textLeft, edges, smears, runsOn, lineBeside, cutLetters, lettersLeft) = fileOnly ? ([], [], [], [], [], [], []) : checkFills(
            scan: image, cleared: &cleared, fill: &fill, boxes: boxes, vertical: vertical, lightInk: lightInk, regions: regions,
            glyphs: &glyphs, ink: detectorInk, infill: infill.parameters, parameters: checkParameters)
        let t3 = DispatchTime.now()
        func ms(_ a: DispatchTime, _ b: DispatchTime) -> Double { Double(b.uptimeNanoseconds - a.uptimeNanoseconds) / 1e6 }
        return ClearedPage(
            image: cleared, fill: fill, regions: reports, glyphs: glyphs, textLeft: textLeft, edgesMade: edges, smears: smears, runsOn: runsOn,
            lineBeside: lineBeside, cutLetters: cutLetters, lettersLeft: lettersLeft,
            reviewReasons: reviewReasons(
                drawing: drawn, joined: joined, textLeft: textLeft, edges: edges, smears: smears, runsOn: runsOn, lineBeside: lineBeside,
                cutLetters: cutLetters, lettersLeft: lettersLeft, flagged: glyphs.map(\.needsReview),
                parameters: checkParameters),
            maskKind: maskKind,
            maskMilliseconds: ms(t0, t1), infillMilliseconds: ms(t1, t2) + ms(t2, t3))
    }

    /// Checks every box after the fill (``FillCheck``, ``RunOnCheck``): a box whose text is left,
    /// whose fill made edges its ground does not have, or whose line runs on past it as text,
    /// goes back to the scan (every pixel its fill may have changed: its region grown as far as
    /// the fill mask reaches) and is flagged. `vertical` gives each box's orientation (missing
    /// entries are horizontal), `lightInk` its polarity as `analyze` read it (missing or nil:
    /// not known). Returns each box's readings.
    static func checkFills(
        scan: Bitmap<RGBA8>, cleared: inout Bitmap<RGBA8>, fill: inout Bitmap<UInt8>, boxes: [PixelRect], vertical: [Bool] = [],
        lightInk: [Bool?] = [], regions: [PixelRect], glyphs: inout [GlyphFilterReport], ink: Bitmap<UInt8>?, infill p: InFillParameters,
        parameters: FillCheckParameters
    ) -> (
        textLeft: [Double?], edges: [Double?], smears: [Double?], runsOn: [Double?], lineBeside: [Double?], cutLetters: [Double?],
        lettersLeft: [Double?]
    ) {
        var textLeft: [Double?] = [], edges: [Double?] = [], smears: [Double?] = [], runsOn: [Double?] = [], lineBeside: [Double?] = []
        var cutLetters: [Double?] = [], lettersLeft: [Double?] = []
        let readLeft = ink != nil && parameters.textLeft > 0, readEdges = parameters.edgesMade > 0, readRunOn = parameters.runOn > 0
        let readSmears = ink != nil && parameters.smears > 0
        let readBeside = parameters.lineBeside > 0, readCut = parameters.cutLetters > 0, readWhole = parameters.lettersLeft > 0
        guard readLeft || readEdges || readSmears || readRunOn || readBeside || readCut || readWhole else { return ([], [], [], [], [], [], []) }
        // Every box is read before any goes back to the scan: a box put back would otherwise
        // change what its neighbours' rings read.
        for (i, box) in boxes.enumerated() {
            if let ink, readLeft {
                let others = boxes.enumerated().compactMap { $0.offset == i ? nil : $0.element }
                textLeft.append(FillCheck.textLeft(scan: scan, cleared: cleared, filled: fill, box: box, others: others, ink: ink, parameters: parameters))
            }
            if readEdges { edges.append(FillCheck.edgesMade(scan: scan, cleared: cleared, filled: fill, box: box, ink: ink, parameters: parameters)) }
            if let ink, readSmears { smears.append(SmearCheck.share(scan: scan, cleared: cleared, filled: fill, box: box, ink: ink, parameters: parameters)) }
            // The four readings beside and inside the box start from one reading of its text's
            // ink level and type size, read once.
            guard readRunOn || readBeside || readCut || readWhole else { continue }
            let upright = i < vertical.count && vertical[i]
            precondition(scan.width == cleared.width && scan.height == cleared.height, "scan and cleared page differ in size")
            let reading = RunOnCheck.reading(
                scan: scan, filled: fill, box: box, vertical: upright, ink: ink, lightInk: i < lightInk.count ? lightInk[i] : nil,
                parameters: parameters)
            if readRunOn { runsOn.append(reading.flatMap { RunOnCheck.share(reading: $0, cleared: cleared, vertical: upright, boxes: boxes) }) }
            if readBeside {
                lineBeside.append(reading.flatMap { LineBesideCheck.share(reading: $0, cleared: cleared, box: box, vertical: upright, boxes: boxes) })
            }
            if readCut { cutLetters.append(reading.flatMap { CutLetterCheck.count(reading: $0, scan: scan, cleared: cleared, filled: fill) }) }
            if readWhole {
                lettersLeft.append(reading.map {
                    LettersLeftCheck.share(reading: $0, scan: scan, cleared: cleared, filled: fill, largest: parameters.letterLargest)
                })
            }
        }
        var back: [Int] = []
        for i in boxes.indices {
            let verdict = checkVerdict(
                textLeft: readLeft ? textLeft[i] : nil, edges: readEdges ? edges[i] : nil, smears: readSmears ? smears[i] : nil,
                runsOn: readRunOn ? runsOn[i] : nil,
                lineBeside: readBeside ? lineBeside[i] : nil, cutLetters: readCut ? cutLetters[i] : nil,
                lettersLeft: readWhole ? lettersLeft[i] : nil, parameters: parameters)
            guard verdict != nil else { continue }
            if i < glyphs.count { glyphs[i].needsReview = true }
            back.append(i)
        }
        // A box goes back as far as its fill may reach, its region grown by the fill's growth
        // (18 px round the box at the defaults), which can take in a neighbour's letters: on the
        // cover of Denslow's *Humpty Dumpty* the title went back and put back the top halves of
        // the credit line under it, which had been judged cleared whole. The boxes that stay
        // cleared keep their fill, as judged, over their own rectangles and the letters' halo.
        let kept = boxes.indices.filter { !(($0 < glyphs.count) && glyphs[$0].needsReview) }.map { boxes[$0].expanded(by: p.dilation) }
        for i in back {
            let region = i < regions.count ? regions[i] : boxes[i]
            FillCheck.restore(&cleared, fill: &fill, from: scan, within: region.expanded(by: p.slack + p.dilation + p.smoothGrowth), except: kept)
        }
        return (textLeft, edges, smears, runsOn, lineBeside, cutLetters, lettersLeft)
    }

    /// Why each flagged box was left as scanned, in the order the rules apply: the glyph filter
    /// before the fill, then the check's readings after it.
    static func reviewReasons(
        drawing: [Bool], joined: [Bool] = [], textLeft: [Double?], edges: [Double?], smears: [Double?] = [], runsOn: [Double?] = [],
        lineBeside: [Double?] = [],
        cutLetters: [Double?] = [], lettersLeft: [Double?] = [], flagged: [Bool],
        parameters: FillCheckParameters
    ) -> [ReviewReason?] {
        flagged.indices.map { i in
            guard flagged[i] else { return nil }
            if i < drawing.count, drawing[i] { return i < joined.count && joined[i] ? .joinedToDrawing : .inDrawing }
            return checkVerdict(
                textLeft: i < textLeft.count ? textLeft[i] : nil, edges: i < edges.count ? edges[i] : nil,
                smears: i < smears.count ? smears[i] : nil,
                runsOn: i < runsOn.count ? runsOn[i] : nil, lineBeside: i < lineBeside.count ? lineBeside[i] : nil,
                cutLetters: i < cutLetters.count ? cutLetters[i] : nil, lettersLeft: i < lettersLeft.count ? lettersLeft[i] : nil,
                parameters: parameters)
        }
    }

    /// The check's verdict on one box from its readings (nil where not read): text left, else
    /// edges made, else the line running on, else a line beside, else letters cut — a reading under its bar, or turned off, is no reason.
    static func checkVerdict(
        textLeft: Double?, edges: Double?, smears: Double? = nil, runsOn: Double? = nil, lineBeside: Double? = nil, cutLetters: Double? = nil,
        lettersLeft: Double? = nil, parameters p: FillCheckParameters
    ) -> ReviewReason? {
        if let l = textLeft, p.textLeft > 0, l >= p.textLeft { return .textLeft }
        if let n = lettersLeft, p.lettersLeft > 0, n >= p.lettersLeft { return .textLeft }
        if let e = edges, p.edgesMade > 0, e >= p.edgesMade { return .edgesMade }
        if let s = smears, p.smears > 0, s >= p.smears { return .smeared }
        if let r = runsOn, p.runOn > 0, r >= p.runOn { return .runsOn }
        if let l = lineBeside, p.lineBeside > 0, l >= p.lineBeside { return .lineBeside }
        if let c = cutLetters, p.cutLetters > 0, c >= p.cutLetters { return .lettersCut }
        return nil
    }

    /// The mask file plus the estimate's ink it missed, by the rules of ``clear(page:boxes:maskFile:source:infill:maskParameters:fileOnly:)``.
    static func merged(
        file: Bitmap<UInt8>, page: Bitmap<RGBA8>, boxes: [PixelRect], grown: [PixelRect], parameters: InkMaskParameters
    ) -> Bitmap<UInt8> {
        let grounds = boxes.map { InkMask.groundSpread(page: page, in: $0, ignoring: file, trend: parameters.groundTrend) }
        let colourArt = grounds.map { $0.luma > parameters.busyBorder && $0.chroma > parameters.colourGround }
        // Elsewhere the older, plainer test (the whole ring, letters and all) decides between
        // flooding the estimate's marks and vetoing: a ring that crosses neighbouring lines of
        // small print is no place to flood from either.
        let overArt = boxes.map { InkMask.isOverArt(page: page, in: $0, parameters: parameters) }
        // The estimate reads a region's ground and ink colour from the region it is given, so
        // over art it gets the box itself: grown by `reach`, its ring takes in more of the drawing.
        let regions = zip(boxes, grown).enumerated().map { i, pair in colourArt[i] ? pair.0 : pair.1 }
        let estimate = InkMask.estimate(page: page, regions: regions, parameters: parameters)
        var out = file
        let w = page.width
        // Over art the estimate replaces the file in the box. Cleared for every such box before
        // any ink is added, so a box that overlaps another never erases the other's ink.
        var replaced = [Bool](repeating: false, count: boxes.count)
        for (i, box) in boxes.enumerated() where colourArt[i] {
            guard let box = box.intersection(page.bounds) else { continue }
            var found = false
            for y in box.minY..<box.maxY where !found {
                for x in box.minX..<box.maxX where estimate.pixels[y * w + x] != 0 { found = true; break }
            }
            guard found else { continue }
            replaced[i] = true
            for y in box.minY..<box.maxY { for x in box.minX..<box.maxX { out.pixels[y * w + x] = 0 } }
        }
        for (i, (box, area)) in zip(boxes, grown).enumerated() {
            guard let box = box.intersection(page.bounds) else { continue }
            let aw = area.width, ah = area.height
            var f = [UInt8](repeating: 0, count: aw * ah), e = f
            var fileInBox = 0, estimateInBox = 0
            for y in 0..<ah {
                for x in 0..<aw {
                    let i = (area.minY + y) * w + area.minX + x
                    f[y * aw + x] = file.pixels[i] != 0 ? 1 : 0
                    e[y * aw + x] = estimate.pixels[i] != 0 ? 1 : 0
                    if box.contains(x: area.minX + x, y: area.minY + y) {
                        fileInBox += Int(f[y * aw + x]); estimateInBox += Int(e[y * aw + x])
                    }
                }
            }
            let bx0 = max(0, box.minX - area.minX), bx1 = min(aw, box.maxX - area.minX)
            let by0 = max(0, box.minY - area.minY), by1 = min(ah, box.maxY - area.minY)
            var take = [UInt8](repeating: 0, count: aw * ah)
            if replaced[i] || fileInBox * 10 < estimateInBox {
                // The estimate in the box, and nothing of the file's: where the estimate replaced
                // it over art, not even the file's ink right beside the estimate's is added back,
                // as that is mostly the outline a letter touches (measured: −0.8 dB over art for
                // file ink within 1 px, −1.6 within 2 px).
                for y in by0..<by1 { for x in bx0..<bx1 where e[y * aw + x] != 0 { take[y * aw + x] = 1 } }
            } else if overArt[i] {
                // Beside a drawing in the ink's colour: the file's ink plus the estimate's fringe
                // around it, and file ink far from any estimated ink is dropped, unless the
                // estimate found too little to judge by. No flooding: a mark touching a letter
                // is as often the drawing's outline.
                let near = dilated(f, width: aw, height: ah, by: fringe)
                for j in take.indices where e[j] != 0 && near[j] != 0 { take[j] = 1 }
                if estimateInBox * 3 >= fileInBox {
                    let confirmed = dilated(e, width: aw, height: ah, by: fringe)
                    for y in 0..<ah {
                        for x in 0..<aw where f[y * aw + x] != 0 && confirmed[y * aw + x] == 0 {
                            out.pixels[(area.minY + y) * w + area.minX + x] = 0
                        }
                    }
                }
            } else {
                let near = dilated(f, width: aw, height: ah, by: fringe)
                for j in take.indices where e[j] != 0 && near[j] != 0 { take[j] = 1 }
                // Flood the estimate's marks from every estimated pixel touching file ink.
                let touching = dilated(f, width: aw, height: ah, by: 1)
                var stack: [Int] = []
                for j in take.indices where e[j] != 0 && touching[j] != 0 { take[j] = 2; stack.append(j) }
                while let j = stack.popLast() {
                    let x = j % aw, y = j / aw
                    for dy in -1...1 {
                        for dx in -1...1 {
                            let nx = x + dx, ny = y + dy
                            guard nx >= 0, ny >= 0, nx < aw, ny < ah else { continue }
                            let k = ny * aw + nx
                            if e[k] != 0 && take[k] != 2 { take[k] = 2; stack.append(k) }
                        }
                    }
                }
            }
            for y in 0..<ah {
                for x in 0..<aw where take[y * aw + x] != 0 { out.pixels[(area.minY + y) * w + area.minX + x] = 255 }
            }
        }
        return out
    }

    /// A 0/1 mask grown by `r` px (square neighbourhood), separably.
    static func dilated(_ m: [UInt8], width w: Int, height h: Int, by r: Int) -> [UInt8] {
        var rows = [UInt8](repeating: 0, count: m.count)
        for y in 0..<h {
            for x in 0..<w where m[y * w + x] != 0 {
                for xx in max(0, x - r)...min(w - 1, x + r) { rows[y * w + xx] = 1 }
            }
        }
        var out = [UInt8](repeating: 0, count: m.count)
        for y in 0..<h {
            for x in 0..<w where rows[y * w + x] != 0 {
                for yy in max(0, y - r)...min(h - 1, y + r) { out[yy * w + x] = 1 }
            }
        }
        return out
    }
}

public enum PagePreparation {
    /// Decodes a page scan (PNG, JPEG, TIFF or JPEG 2000; EXIF/TIFF orientation applied).
    public static func decode(_ path: String) throws -> Bitmap<RGBA8> { try ImageDecoder.decode(file: path) }

    /// The crop of `box` for PopoutText. The line height is measured from the ink only when the
    /// parameters ask for a target text height.
    public static func popout(
        page image: Bitmap<RGBA8>, box: PixelRect, boxID: String, source: String,
        parameters: PopoutParameters = PopoutParameters()
    ) throws -> Bitmap<RGBA8> {
        let mask = parameters.targetTextHeight == nil ? nil : InkMask.estimate(page: image, in: box)
        return try ClearText.Popout.crop(page: image, box: box, mask: mask, parameters: parameters, name: source, boxID: boxID).image
    }

    /// The image in `path` shrunk (never enlarged) to fit `maxWidth`×`maxHeight`. A JPEG is
    /// decoded straight at the smallest DCT scale that still covers the target, which makes a
    /// thumbnail of a large scan several times cheaper than a full decode.
    public static func fitted(file path: String, maxWidth: Int, maxHeight: Int, fastDecode: Bool = true) throws -> Bitmap<RGBA8> {
        let info = try ImageDecoder.info(file: path)
        let (w, h) = Bitmap<RGBA8>.fittedSize(
            width: info.orientedWidth, height: info.orientedHeight, maxWidth: maxWidth, maxHeight: maxHeight)
        let scale = JPEGScale.largestReduction(from: info, covering: w, h)
        let decoded = try ImageDecoder.decode(file: path, options: DecodeOptions(jpegScale: scale, fastJPEG: fastDecode))
        return fitted(decoded, maxWidth: maxWidth, maxHeight: maxHeight)
    }

    /// `image` shrunk (never enlarged) to fit `maxWidth`×`maxHeight`.
    public static func fitted(_ image: Bitmap<RGBA8>, maxWidth: Int, maxHeight: Int) -> Bitmap<RGBA8> {
        image.resized(fittingWidth: maxWidth, height: maxHeight)
    }

    public static func jpeg(_ image: Bitmap<RGBA8>, quality: Int = 85, name: String = "image") throws -> [UInt8] {
        try JPEGEncoder.encode(image, options: JPEGEncodeOptions(quality: quality, progressive: false), name: name)
    }

    /// Fast PNG (low zlib effort): prepared pages are written once and read many times, but a
    /// reader waiting on the first one should not wait for the last few percent of size.
    public static func png(_ image: Bitmap<RGBA8>, name: String = "image") throws -> [UInt8] {
        try PNGEncoder.encode(image, options: .fast, name: name)
    }
}
