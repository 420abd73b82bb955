// The check after the fill (issue 17, item 2: "after each box is filled, check the result").
//
// The glyph filter decides before the fill what may be removed; this looks at what the fill
// made. A box whose text is still on the page after the fill — the mask missed letters, only
// their cores went and the outlines stayed, or the fill copied neighbouring lines back in — is
// worse for a reader than the scan: the reader draws the text natively over what is left of it.
// Such a box goes back to the scan and is flagged for review (the reader then shows the page as
// the scan with PopoutText).
//
// The measure needs no truth: the scan, the cleared page, and the detector's own mask of the ink
// (a reading independent of the estimate that may have replaced it over art). In the box, the
// scan under that mask gives the text's ink colour, the scan neither under it nor filled the
// ground; a pixel is ink-like when it lies past halfway from the ground towards that ink
// (projected on the line between the two colours, so a coloured ink on a coloured ground is read
// as such). Ink-like strokes that run on
// out of the box's neighbourhood are drawing and are not counted; the art's own rate of the rest,
// read in a ring round the box, is taken off before and after; what remains after the fill, over
// what the text had before it, is the share of the text left by colour. A second reading counts
// the detector's own ink pixels the fill left as they were. The box's text is left when both
// readings say so. Nothing reads the script, the type size or the resolution.

public import Geometry
public import Raster

public struct FillCheckParameters: Sendable, Hashable, CustomStringConvertible {
    /// Share of a box's text still on the page after the fill, by both readings, at which the box
    /// goes back to the scan: a third, enough of every word left to be read. Chosen on the
    /// generated corpus (Documentation/ClearText.md, "The check after the fill"). 0 turns the
    /// check off.
    public var textLeft: Double = 1.0 / 3
    /// Ink and ground closer than this (RGB distance, 8-bit levels) give no reading.
    public var minimumContrast: Double = 30
    /// Text ink (pixels, beyond the surround's rate) needed for a reading.
    public var minimumInk: Int = 20
    /// A pixel the fill moved by less than this (8-bit levels, any channel) was left as it was.
    public var unchangedLevels: Int = 8
    /// Edges the fill made, over the ground's own (``FillCheck/edgesMade(scan:cleared:filled:box:ink:parameters:)``),
    /// at which the box goes back to the scan: a fill with more edge than the typical ground
    /// round it. Chosen on RealCorpus boxes labelled by eye (Documentation/ClearText.md, "Edges
    /// the fill made"). 0 turns this reading off.
    public var edgesMade: Double = 1
    /// Edge strength (Sobel magnitude of 8-bit luma) added to the ground's: what JPEG noise and
    /// paper grain give a flat ground, so a fill over flat paper is not judged against zero.
    public var edgeFloor: Double = 8
    /// The share of a box's filled pixels the fill shaded towards the text's ink beyond the
    /// ground's own reach (``SmearCheck``), at which the box goes back to the scan: smears a
    /// reader sees on the ground (a grey band bridged across a white strip, a frame or divider
    /// carried into the hole, a letter's shadow). The run-on check's bar, 5 %; decided on
    /// RealCorpus and NDL boxes looked at one by one (Documentation/ClearText.md, "Smears").
    /// 0 turns this reading off.
    public var smears: Double = 0.05
    /// How far past the ground's own reach towards the ink (a share of the way from ground to
    /// ink) a filled pixel must lie to count as shaded by the fill.
    public var smearShade: Double = 0.2
    /// Glyph-sized marks of the text's darkness left along the ends of a box's lines, over the
    /// pixels filled in it (``RunOnCheck/share(scan:cleared:filled:box:vertical:boxes:parameters:)``),
    /// at which the box goes back to the scan: its line ran on past the box and the fill left a
    /// half word. 5 %, the bar the benchmark's count of marks beside a box uses; decided on NDL,
    /// confirmed on the picture-book and generated corpora (Documentation/ClearText.md, "Only
    /// along the lines"). 0 turns this reading off.
    public var runOn: Double = 0.05
    /// A row of glyph-sized marks of the text's darkness lying beside a box across its lines, in
    /// no box, over the pixels filled in it (``LineBesideCheck``), at which the box goes back to
    /// the scan: a line of the same block the detector left out, which clearing the box would
    /// leave standing alone. The run-on check's bar. 0 turns this reading off.
    public var lineBeside: Double = 0.05
    /// Letters the fill cut and left a visible piece of (glyph-sized shapes of the scan's ink
    /// it took part of, ``CutLetterCheck``), at which a box goes back to the scan: ascenders left
    /// floating over a cleared line, a neighbour's descenders cut. One. 0 turns this reading off.
    public var cutLetters: Double = 1
    /// The share of a box's letters' ink (letter-sized shapes of the scan inside it) that its fill
    /// left whole (``LettersLeftCheck``), at which the box goes back to the scan as text left:
    /// letters the detector's mask missed, which the text-left reading (judged against that mask)
    /// cannot see. The run-on check's bar, 5 %. 0 turns this reading off.
    public var lettersLeft: Double = 0.05
    /// The longest side, in type sizes, of a shape ``LettersLeftCheck`` still reads (one over three
    /// type sizes left whole is a drop capital or an ornament): a drop capital spans two to five lines.
    public var letterLargest: Double = 6

    public init() {}

    /// Sets a parameter by name (`clear --set NAME=VALUE`, for tuning); false for an unknown name.
    public mutating func set(_ name: String, to value: Double) -> Bool {
        switch name {
        case "textLeft": textLeft = value
        case "minimumContrast": minimumContrast = value
        case "minimumInk": minimumInk = Int(value)
        case "unchangedLevels": unchangedLevels = Int(value)
        case "edgesMade": edgesMade = value
        case "edgeFloor": edgeFloor = value
        case "runOn": runOn = value
        case "lineBeside": lineBeside = value
        case "cutLetters": cutLetters = value
        case "lettersLeft": lettersLeft = value
        case "letterLargest": letterLargest = value
        case "smears": smears = value
        case "smearShade": smearShade = value
        default: return false
        }
        return true
    }

    /// Throws ``ClearTextError/invalidParameter(name:reason:)`` for the first parameter out of range.
    public func validate() throws(ClearTextError) {
        if !(textLeft >= 0 && textLeft.isFinite) { throw .invalidParameter(name: "textLeft", reason: "must be finite and ≥ 0, got \(textLeft)") }
        if !(minimumContrast >= 0 && minimumContrast.isFinite) {
            throw .invalidParameter(name: "minimumContrast", reason: "must be finite and ≥ 0, got \(minimumContrast)")
        }
        if !(1...1_000_000).contains(minimumInk) { throw .invalidParameter(name: "minimumInk", reason: "must be 1...1000000, got \(minimumInk)") }
        if !(1...256).contains(unchangedLevels) { throw .invalidParameter(name: "unchangedLevels", reason: "must be 1...256, got \(unchangedLevels)") }
        if !(edgesMade >= 0 && edgesMade.isFinite) { throw .invalidParameter(name: "edgesMade", reason: "must be finite and ≥ 0, got \(edgesMade)") }
        if !(edgeFloor > 0 && edgeFloor.isFinite) { throw .invalidParameter(name: "edgeFloor", reason: "must be finite and > 0, got \(edgeFloor)") }
        if !(runOn >= 0 && runOn.isFinite) { throw .invalidParameter(name: "runOn", reason: "must be finite and ≥ 0, got \(runOn)") }
        if !(lineBeside >= 0 && lineBeside.isFinite) {
            throw .invalidParameter(name: "lineBeside", reason: "must be finite and ≥ 0, got \(lineBeside)")
        }
        if !(smears >= 0 && smears.isFinite) { throw .invalidParameter(name: "smears", reason: "must be finite and ≥ 0, got \(smears)") }
        if !(smearShade >= 0 && smearShade.isFinite) {
            throw .invalidParameter(name: "smearShade", reason: "must be finite and ≥ 0, got \(smearShade)")
        }
        if !(lettersLeft >= 0 && lettersLeft.isFinite) {
            throw .invalidParameter(name: "lettersLeft", reason: "must be finite and ≥ 0, got \(lettersLeft)")
        }
        if !(letterLargest > 0 && letterLargest.isFinite) {
            throw .invalidParameter(name: "letterLargest", reason: "must be finite and > 0, got \(letterLargest)")
        }
        if !(cutLetters >= 0 && cutLetters.isFinite) {
            throw .invalidParameter(name: "cutLetters", reason: "must be finite and ≥ 0, got \(cutLetters)")
        }
    }

    public var description: String {
        "textLeft=\(textLeft) contrast=\(minimumContrast) ink=\(minimumInk) unchanged=\(unchangedLevels) edges=\(edgesMade) edgeFloor=\(edgeFloor) smears=\(smears)/\(smearShade) runOn=\(runOn) lineBeside=\(lineBeside) cutLetters=\(cutLetters) lettersLeft=\(lettersLeft) letterLargest=\(letterLargest)"
    }
}

public enum FillCheck {
    /// The share of the text in `box` that `cleared` still shows, or nil when the box gives no
    /// reading (too little contrast between ink and ground, too little ink or ground). A box
    /// nothing was filled in reads how much of its text is there, as any other.
    /// `filled` is non-zero where the fill changed the page; `others` are the page's other boxes
    /// (left out of the ring, which reads the surround's own rate of ink-like pixels).
    ///
    /// `ink` is a reading of the text's ink independent of the fill's (the detector's mask file):
    /// the ink colour is read under it rather than from what was filled, so a fill that took the
    /// wrong thing (white pickets of a fence instead of the blue words across them) is seen to
    /// have left the words. Read from the fill's own mask the check would only confirm itself
    /// (tried on the generated corpus: six of seven boxes it flagged were cleared well), so
    /// `clear` checks only where a mask file gives the independent reading.
    public static func textLeft(
        scan: Bitmap<RGBA8>, cleared: Bitmap<RGBA8>, filled: Bitmap<UInt8>, box: PixelRect, others: [PixelRect],
        ink inkMask: Bitmap<UInt8>, parameters p: FillCheckParameters = .init()
    ) -> Double? {
        precondition(scan.width == cleared.width && scan.height == cleared.height && scan.width == filled.width
            && scan.height == filled.height && inkMask.width == scan.width && inkMask.height == scan.height,
            "scan, cleared page, fill and ink masks differ in size")
        guard let b = box.intersection(scan.bounds), b.width > 0, b.height > 0 else { return nil }
        let w = scan.width
        // Ink: the scan under the independent reading. Ground: the scan neither ink nor filled.
        var groundPixels: [RGBA8] = [], inkPixels: [RGBA8] = []
        for y in b.minY..<b.maxY {
            for x in b.minX..<b.maxX {
                let i = y * w + x
                let isFilled = filled.pixels[i] != 0
                if inkMask.pixels[i] != 0 { inkPixels.append(scan.pixels[i]) } else if !isFilled { groundPixels.append(scan.pixels[i]) }
            }
        }
        // A box the fill did not touch is read too: its letters are all still there when the mask
        // it was given lost them to a neighbour's judgement (a box lying in a drawing that held
        // it), and ClearText would set its text again over the print.
        guard inkPixels.count >= p.minimumInk, groundPixels.count >= p.minimumInk else { return nil }
        let ground = median(groundPixels), ink = median(inkPixels)
        let d = SIMD3(ink.x - ground.x, ink.y - ground.y, ink.z - ground.z)
        let n2 = (d * d).sum()
        guard n2 >= p.minimumContrast * p.minimumContrast else { return nil }
        func inkLike(_ c: RGBA8) -> Bool {
            let v = SIMD3(Double(c.r) - ground.x, Double(c.g) - ground.y, Double(c.b) - ground.z)
            return (v * d).sum() / n2 > 0.5
        }
        // The neighbourhood: the box and a ring a quarter of its short side wide (at least 4 px)
        // round it. Ink-like strokes that run out to the ring's outer edge are drawing (an outline
        // through the line, a rule, a frame): letters end within it. They are left out of every
        // count, before and after, so a line the fill rightly drew on through is not text left.
        let r = max(4, min(b.width, b.height) / 4)
        guard let g = b.expanded(by: r).intersection(scan.bounds) else { return nil }
        let gw = g.width, gh = g.height
        // Only the sides where the ring was not cut by the page's edge: there a letter may touch.
        let open = (left: g.minX == b.minX - r, right: g.maxX == b.maxX + r, top: g.minY == b.minY - r, bottom: g.maxY == b.maxY + r)
        func textLike(_ page: Bitmap<RGBA8>) -> [Bool] {
            var ink = [Bool](repeating: false, count: gw * gh)
            for y in 0..<gh { for x in 0..<gw { ink[y * gw + x] = inkLike(page.pixels[(g.minY + y) * w + g.minX + x]) } }
            for part in InkMask.components(width: gw, height: gh, where: { ink[$0] }) {
                let runsOut = part.contains { i in
                    let y = i / gw, x = i - y * gw
                    return (open.left && x == 0) || (open.right && x == gw - 1) || (open.top && y == 0) || (open.bottom && y == gh - 1)
                }
                if runsOut { for i in part { ink[i] = false } }
            }
            return ink
        }
        let before = textLike(scan), after = textLike(cleared)
        var inBefore = 0, inAfter = 0, ringCount = 0, ringInk = 0
        for y in 0..<gh {
            for x in 0..<gw {
                let i = y * gw + x, px = g.minX + x, py = g.minY + y
                if b.contains(x: px, y: py) {
                    if before[i] { inBefore += 1 }
                    if after[i] { inAfter += 1 }
                } else if !others.contains(where: { $0.contains(x: px, y: py) }) {
                    // The surround's own rate of text-like marks (specks, hatching of the art).
                    ringCount += 1
                    if before[i] { ringInk += 1 }
                }
            }
        }
        guard ringCount >= p.minimumInk else { return nil }
        let base = Double(ringInk) / Double(ringCount) * Double(b.width * b.height)
        let text = Double(inBefore) - base
        guard text >= Double(p.minimumInk) else { return nil }
        let byColour = max(0, Double(inAfter) - base) / text
        // The second reading: the detector's ink pixels that the fill left as they were (within
        // a few levels). It reads no colour, so a textured ground cannot fool it; but over art
        // the detector's mask also holds outlines the letters touch, which rightly stay. The first
        // reading is fooled by texture and not by outlines. Only where both find the text left is
        // it left (each alone flagged well-cleared boxes: Documentation/ClearText.md).
        var inkCount = 0, unchanged = 0
        for y in b.minY..<b.maxY {
            for x in b.minX..<b.maxX where inkMask.pixels[y * w + x] != 0 {
                inkCount += 1
                let a = scan.pixels[y * w + x], c = cleared.pixels[y * w + x]
                if max(absDiff(a.r, c.r), absDiff(a.g, c.g), absDiff(a.b, c.b)) < p.unchangedLevels { unchanged += 1 }
            }
        }
        let byMask = Double(unchanged) / Double(inkCount)
        return min(byColour, byMask)
    }

    private static func absDiff(_ a: UInt8, _ b: UInt8) -> Int { abs(Int(a) - Int(b)) }

    /// The edges the fill made in `box`, over the ground's own: the mean edge strength (Sobel
    /// magnitude of the cleared page's luma) over the filled pixels and the pixel round each,
    /// divided by the median edge strength of the scan's ground round the text plus
    /// `edgeFloor`. The ground is the box and a ring a quarter of its short side wide (at least
    /// 4 px), less everything within 2 px of a filled pixel or of the detector's ink (`ink`, when
    /// there is a mask file). A fill that gives back the ground has about its texture and reads
    /// under 1; letters left in pieces, outlines left round filled cores, streaks of copied
    /// neighbouring lines and blotches read above (their edges are what a reader sees). Nil when
    /// fewer than `minimumInk` pixels of the box were filled.
    ///
    /// It needs no colours, so it reads every box the colour readings cannot: ink and ground of
    /// the same grey, librarian-drawn boxes with no mask file, text over dark art.
    public static func edgesMade(
        scan: Bitmap<RGBA8>, cleared: Bitmap<RGBA8>, filled: Bitmap<UInt8>, box: PixelRect, ink inkMask: Bitmap<UInt8>?,
        parameters p: FillCheckParameters = .init()
    ) -> Double? {
        precondition(scan.width == cleared.width && scan.height == cleared.height && scan.width == filled.width
            && scan.height == filled.height && (inkMask.map { $0.width == scan.width && $0.height == scan.height } ?? true),
            "scan, cleared page, fill and ink masks differ in size")
        guard let b = box.intersection(scan.bounds), b.width > 0, b.height > 0 else { return nil }
        let w = scan.width
        var filledCount = 0
        for y in b.minY..<b.maxY { for x in b.minX..<b.maxX where filled.pixels[y * w + x] != 0 { filledCount += 1 } }
        guard filledCount >= p.minimumInk else { return nil }
        let r = max(4, min(b.width, b.height) / 4)
        guard let g = b.expanded(by: r).intersection(scan.bounds) else { return nil }
        let gw = g.width, gh = g.height
        // Filled or ink, then grown by 2: the ground is what lies farther from both.
        var marked = [UInt8](repeating: 0, count: gw * gh), filledHere = marked
        for y in 0..<gh {
            for x in 0..<gw {
                let i = (g.minY + y) * w + g.minX + x
                if filled.pixels[i] != 0 { filledHere[y * gw + x] = 1; marked[y * gw + x] = 1 }
                if (inkMask?.pixels[i] ?? 0) != 0 { marked[y * gw + x] = 1 }
            }
        }
        let near = InkMask.dilate(marked, gw, gh, 2)
        // The ground's edge strengths, counted by whole levels, for their median.
        var histogram = [Int](repeating: 0, count: 2048)
        var groundCount = 0
        for y in 0..<gh {
            for x in 0..<gw where near[y * gw + x] == 0 {
                let e = Self.edge(scan, x: g.minX + x, y: g.minY + y)
                histogram[min(histogram.count - 1, Int(e))] += 1
                groundCount += 1
            }
        }
        var ground = 0.0
        if groundCount >= p.minimumInk {
            var seen = 0
            for (v, n) in histogram.enumerated() {
                seen += n
                if 2 * seen >= groundCount { ground = Double(v) + 0.5; break }
            }
        }
        // The filled pixels and the pixel round each, in the box: a remnant's edge lies on the
        // fill's border.
        let filledNear = InkMask.dilate(filledHere, gw, gh, 1)
        var sum = 0.0, count = 0
        for y in b.minY..<b.maxY {
            for x in b.minX..<b.maxX where filledNear[(y - g.minY) * gw + x - g.minX] != 0 {
                sum += Self.edge(cleared, x: x, y: y)
                count += 1
            }
        }
        guard count > 0 else { return nil }
        return sum / Double(count) / (ground + p.edgeFloor)
    }

    /// Sobel magnitude of the luma at (x, y), the page's edge pixels repeated beyond it.
    static func edge(_ page: Bitmap<RGBA8>, x: Int, y: Int) -> Double {
        func l(_ dx: Int, _ dy: Int) -> Double {
            let px = page.pixels[min(page.height - 1, max(0, y + dy)) * page.width + min(page.width - 1, max(0, x + dx))]
            return 0.299 * Double(px.r) + 0.587 * Double(px.g) + 0.114 * Double(px.b)
        }
        let gx = (l(1, -1) + 2 * l(1, 0) + l(1, 1)) - (l(-1, -1) + 2 * l(-1, 0) + l(-1, 1))
        let gy = (l(-1, 1) + 2 * l(0, 1) + l(1, 1)) - (l(-1, -1) + 2 * l(0, -1) + l(1, -1))
        return (gx * gx + gy * gy).squareRoot()
    }

    /// Puts the scan back wherever `fill` marks a change within `area`, outside every rectangle
    /// of `except`, and clears those marks.
    public static func restore(
        _ cleared: inout Bitmap<RGBA8>, fill: inout Bitmap<UInt8>, from scan: Bitmap<RGBA8>, within area: PixelRect, except: [PixelRect] = []
    ) {
        precondition(scan.width == cleared.width && scan.height == cleared.height && scan.width == fill.width
            && scan.height == fill.height, "scan, cleared page and fill mask differ in size")
        guard let back = area.intersection(scan.bounds) else { return }
        let w = scan.width
        let spared = except.compactMap { $0.intersection(back) }
        for y in back.minY..<back.maxY {
            for x in back.minX..<back.maxX where fill.pixels[y * w + x] != 0 {
                if spared.contains(where: { $0.contains(x: x, y: y) }) { continue }
                cleared.pixels[y * w + x] = scan.pixels[y * w + x]
                fill.pixels[y * w + x] = 0
            }
        }
    }

    static func median(_ pixels: [RGBA8]) -> SIMD3<Double> {
        func channel(_ f: (RGBA8) -> UInt8) -> Double {
            var histogram = [Int](repeating: 0, count: 256)
            for p in pixels { histogram[Int(f(p))] += 1 }
            var seen = 0
            for (v, n) in histogram.enumerated() {
                seen += n
                if 2 * seen >= pixels.count { return Double(v) }
            }
            return 255
        }
        return SIMD3(channel { $0.r }, channel { $0.g }, channel { $0.b })
    }
}
