// A text ink mask from a box alone, for boxes a librarian drew by hand (no detector mask) and for
// scoring the in-fill separately from detection.
//
// Inside the box the background is estimated by a grey-level closing (dark ink) or opening
// (light ink) wider than a stroke: strokes vanish, the background — flat, shaded or art — stays.
// Ink is where the page departs from that estimate by more than an Otsu threshold on the
// departures (never less than a minimum contrast, so noise on a blank box stays unmasked).
// Polarity comes from the box's pixels against its border colour: the side that has more
// pixels far from the border is the ink.

public import Geometry
public import Raster

/// Parameters of ``InkMask/estimate(page:in:parameters:)``.
public struct InkMaskParameters: Sendable, Hashable, CustomStringConvertible {
    /// Pixels added around the box (the box may be tight around the ink before scan blur).
    public var slack: Int = 3
    /// Smallest departure from the background (luma levels) that can count as ink.
    public var minimumContrast: Double = 18
    /// Side of the closing/opening window; `nil` derives it from the box (wider for taller boxes).
    public var window: Int? = nil
    /// Fraction of the Otsu threshold that still counts as ink — catches the anti-aliased edge.
    public var fringe: Double = 0.5
    /// Printed text is one ink. Over busy art the candidates are clustered by colour and the
    /// text's cluster is the darkest (lightest for light ink) one that stays inside the box;
    /// candidates further than this (sum of channel differences) from its colour are art.
    /// 0 turns the test off.
    public var inkColourTolerance: Int = 60
    /// The colour test applies only when the luma around the box spreads more than this
    /// (standard deviation, levels) — text over art, not on paper.
    public var busyBorder: Double = 15
    /// `clear` lets this estimate replace a detector's mask over art only where the colour of the
    /// ground around the box spreads by more than this (standard deviation of its chroma,
    /// levels): the estimate tells type from drawing by colour, and a pen-and-ink drawing in the
    /// type's own ink gives it nothing to go on. Measured on detected boxes over art: 11–84 on
    /// the generated colour pages, 1.5–4.7 beside Huck Finn's engravings.
    public var colourGround: Double = 8

    /// A pixel of printed text is the ink colour, or a mix of it with the background under it
    /// (anti-aliasing, scan blur, thin or faded letterpress). Candidates further than this (sum of
    /// channel differences) from the line between the two colours are art of another colour.
    /// 0 turns the test off.
    public var mixTolerance: Int = 24
    /// Over busy art, ink-coloured marks that reach further than this beyond the grown box are
    /// art running behind the text (outlines, rails, lines): a mark that is only a line inside
    /// the box is dropped, one that also holds letters loses the part outside. 0 turns the test
    /// off.
    public var artReach: Int = 6
    /// The closing's window is at least this many times the box's stroke width (see
    /// StrokeWidth.swift: bold display type has stems wider than a fifth of its line). 0 keeps
    /// the fifth of the box's short side alone.
    public var strokeWindow: Double = 2
    /// The ground's spread round a box (the over-art tests above) is measured about the straight
    /// line that fits it best along the box's length, not about its mean: a smooth shading or
    /// gradient along the box — a sky from blue to orange down a tall column — is ground, not
    /// art, however far its two ends differ.
    /// Around its mean, such a ring spread like a drawing, and the colour tests then kept a
    /// third of the type's own ink (Documentation/ClearText.md, "A gradient is ground"). False
    /// measures about the mean, as before 3 December.
    public var groundTrend = true

    public init() {}

    public var description: String {
        "slack=\(slack) contrast=\(minimumContrast) window=\(window.map(String.init) ?? "auto") fringe=\(fringe) colour=\(inkColourTolerance)@\(busyBorder)/\(colourGround) mix=\(mixTolerance) reach=\(artReach) stroke=\(strokeWindow)"
            + " ground=\(groundTrend ? "trend" : "mean")"
    }
}

extension InkMaskParameters {
    /// Sets the numeric parameter called `name` (for tuning from the command line); false when
    /// there is no such parameter.
    public mutating func set(_ name: String, to value: Double) -> Bool {
        switch name {
        case "slack": slack = Int(value)
        case "minimumContrast": minimumContrast = value
        case "window": window = value > 0 ? Int(value) : nil
        case "fringe": fringe = value
        case "inkColourTolerance": inkColourTolerance = Int(value)
        case "busyBorder": busyBorder = value
        case "colourGround": colourGround = value
        case "mixTolerance": mixTolerance = Int(value)
        case "artReach": artReach = Int(value)
        case "strokeWindow": strokeWindow = value
        case "groundTrend": groundTrend = value != 0
        default: return false
        }
        return true
    }
}

public enum InkMask {
    /// The ink polarity found in a box.
    public enum Polarity: String, Sendable, Hashable { case darkOnLight, lightOnDark }

    /// A page-sized mask, 255 on ink inside `rect` (grown by the slack), 0 elsewhere.
    public static func estimate(page: Bitmap<RGBA8>, in rect: PixelRect, parameters: InkMaskParameters = InkMaskParameters()) -> Bitmap<UInt8> {
        estimate(page: page, regions: [rect], parameters: parameters)
    }

    /// One page-sized mask for several boxes.
    public static func estimate(page: Bitmap<RGBA8>, regions: [PixelRect], parameters: InkMaskParameters = InkMaskParameters()) -> Bitmap<UInt8> {
        var out = Bitmap<UInt8>(width: page.width, height: page.height, fill: 0)
        for r in regions {
            guard let local = localEstimate(page: page, in: r, parameters: parameters) else { continue }
            let w = page.width
            out.pixels.withUnsafeMutableBufferPointer { o in
                for y in 0..<local.rect.height {
                    for x in 0..<local.rect.width where local.mask[y * local.rect.width + x] != 0 {
                        o[(local.rect.minY + y) * w + local.rect.minX + x] = 255
                    }
                }
            }
        }
        return out
    }

    /// Whether `rect` sits over art rather than plain ground: the luma of a 4-px ring around it
    /// spreads by more than `parameters.busyBorder` levels (the test the estimate's ink-colour
    /// steps use).
    public static func isOverArt(page: Bitmap<RGBA8>, in rect: PixelRect, parameters: InkMaskParameters = InkMaskParameters()) -> Bool {
        guard let r = rect.intersection(page.bounds) else { return false }
        return borderSpread(page: page, box: r, trend: parameters.groundTrend) > parameters.busyBorder
    }

    /// How much the ground around a box varies, in luma and in colour: the RMS departure from the
    /// line that fits the ring best along the box's length (or from its mean,
    /// `InkMaskParameters.groundTrend` false).
    public struct GroundSpread: Sendable, Hashable {
        /// Spread of the luma, levels.
        public var luma: Double
        /// Spread of the chroma (R − G and (R + G)/2 − B together), levels.
        public var chroma: Double
    }

    /// The ground in a 4-px ring around `rect`, leaving out the ring's pixels within 2 px of
    /// `ink` (page-sized, non-zero on ink). A detected box can be a little too tight, and then
    /// its ring runs through the letters it clipped: on a plain sky their strokes alone would
    /// spread the ring like a drawing. Over art when `luma` exceeds `busyBorder`.
    public static func groundSpread(page: Bitmap<RGBA8>, in rect: PixelRect, ignoring ink: Bitmap<UInt8>, trend: Bool = true) -> GroundSpread {
        precondition(ink.width == page.width && ink.height == page.height, "ink mask \(ink.width)×\(ink.height) for a \(page.width)×\(page.height) page")
        guard let r = rect.intersection(page.bounds) else { return GroundSpread(luma: 0, chroma: 0) }
        return groundSpread(page: page, box: r, ignoring: ink, trend: trend)
    }

    /// The polarity the estimate would use for `rect`.
    public static func polarity(page: Bitmap<RGBA8>, in rect: PixelRect) -> Polarity {
        guard let r = rect.intersection(page.bounds) else { return .darkOnLight }
        return decidePolarity(page: page, box: r)
    }

    static func decidePolarity(page: Bitmap<RGBA8>, box r: PixelRect) -> Polarity {
        let border = borderLuma(page: page, box: r)
        // Counted inside the box and in a ring around it: over art both sides are common
        // everywhere (white pickets and dark outlines), and the text is what the box holds in
        // excess of its surround.
        var darker = 0, lighter = 0, inside = 0
        var darkerOut = 0, lighterOut = 0, outside = 0
        let margin = 40
        let ring = r.expanded(by: 12).intersection(page.bounds) ?? r
        page.pixels.withUnsafeBufferPointer { p in
            for y in ring.minY..<ring.maxY {
                for x in ring.minX..<ring.maxX {
                    let l = Int(p[y * page.width + x].luma)
                    let d = l < border - margin, b = l > border + margin
                    if r.contains(x: x, y: y) {
                        inside += 1
                        if d { darker += 1 } else if b { lighter += 1 }
                    } else {
                        outside += 1
                        if d { darkerOut += 1 } else if b { lighterOut += 1 }
                    }
                }
            }
        }
        let scale = outside > 0 ? Double(inside) / Double(outside) : 0
        let darkExcess = Double(darker) - scale * Double(darkerOut)
        let lightExcess = Double(lighter) - scale * Double(lighterOut)
        return lightExcess > darkExcess ? .lightOnDark : .darkOnLight
    }

    /// Median luma of a thin ring just outside the box (or its own edge rows at the page edge).
    static func borderLuma(page: Bitmap<RGBA8>, box r: PixelRect) -> Int {
        var hist = [Int](repeating: 0, count: 256)
        let ring = r.expanded(by: 4)
        page.pixels.withUnsafeBufferPointer { p in
            for y in max(0, ring.minY)..<min(page.height, ring.maxY) {
                for x in max(0, ring.minX)..<min(page.width, ring.maxX) where !r.contains(x: x, y: y) {
                    hist[Int(p[y * page.width + x].luma)] += 1
                }
            }
            if hist.reduce(0, +) == 0 {
                for y in r.minY..<r.maxY {
                    for x in r.minX..<r.maxX where y == r.minY || y == r.maxY - 1 || x == r.minX || x == r.maxX - 1 {
                        hist[Int(p[y * page.width + x].luma)] += 1
                    }
                }
            }
        }
        let total = hist.reduce(0, +)
        var acc = 0
        for (v, c) in hist.enumerated() {
            acc += c
            if acc * 2 >= total { return v }
        }
        return 255
    }

    /// The spread of the luma in a 4-px ring around the box (0 when there is none).
    static func borderSpread(page: Bitmap<RGBA8>, box r: PixelRect, trend: Bool) -> Double {
        groundSpread(page: page, box: r, ignoring: nil, trend: trend).luma
    }

    static func groundSpread(page: Bitmap<RGBA8>, box r: PixelRect, ignoring ink: Bitmap<UInt8>?, trend: Bool) -> GroundSpread {
        let area = r.expanded(by: 4)
        let W = page.width, H = page.height
        let x0 = max(0, area.minX), x1 = min(W, area.maxX), y0 = max(0, area.minY), y1 = min(H, area.maxY)
        guard x1 > x0, y1 > y0 else { return GroundSpread(luma: 0, chroma: 0) }
        let aw = x1 - x0, ah = y1 - y0
        // Ink grown by 2 px, so the letters' anti-aliased edges stay out of the sample too.
        var near = [Bool](repeating: false, count: ink == nil ? 0 : aw * ah)
        ink?.pixels.withUnsafeBufferPointer { m in
            for y in max(0, y0 - 2)..<min(H, y1 + 2) {
                for x in max(0, x0 - 2)..<min(W, x1 + 2) where m[y * W + x] != 0 {
                    for yy in max(y0, y - 2)..<min(y1, y + 3) {
                        for xx in max(x0, x - 2)..<min(x1, x + 3) { near[(yy - y0) * aw + xx - x0] = true }
                    }
                }
            }
        }
        // With `trend`, the spread is about the straight line that fits the ring best along the
        // box's length (least squares of v ≈ a + b·t per channel, t the coordinate along the
        // longer side): there the ring follows the ground continuously, and a gradient is told
        // from a drawing's edge. Across the box the ring sees only two rows (the box's top and
        // bottom, or its two sides), which cannot tell a gradient from sky above a drawn field.
        let alongY = r.height > r.width
        let centre = alongY ? Double(y0 + y1) / 2 : Double(x0 + x1) / 2
        var n = 0.0, st = 0.0, stt = 0.0
        var sv = SIMD3<Double>(repeating: 0), stv = sv, svv = sv
        page.pixels.withUnsafeBufferPointer { p in
            for y in y0..<y1 {
                for x in x0..<x1 where !r.contains(x: x, y: y) && (near.isEmpty || !near[(y - y0) * aw + x - x0]) {
                    let px = p[y * W + x]
                    let red = Double(px.r), green = Double(px.g), blue = Double(px.b)
                    let v = SIMD3(Double(px.luma), red - green, (red + green) / 2 - blue)
                    let t = Double(alongY ? y : x) - centre
                    n += 1; st += t; stt += t * t
                    sv += v; stv += t * v; svv += v * v
                }
            }
        }
        guard n > 0 else { return GroundSpread(luma: 0, chroma: 0) }
        var residual = svv - sv * sv / n  // about the mean
        let spreadT = stt - st * st / n
        if trend, spreadT > 0 {
            let slope = (stv - st * sv / n) / spreadT
            residual -= slope * (stv - st * sv / n)
        }
        let variance = residual / n
        return GroundSpread(luma: max(0, variance.x).squareRoot(), chroma: max(0, variance.y + variance.z).squareRoot())
    }

    struct Local {
        var rect: PixelRect
        var mask: [UInt8]
    }

    /// The closing's window for `box`: a fifth of its short side (7–31 px), widened to `factor`
    /// times its strokes' width (plus one) where they are thicker than that (bold display type),
    /// up to the short side.
    static func automaticWindow(page: Bitmap<RGBA8>, box: PixelRect, polarity: Polarity, strokes factor: Double) -> Int {
        let short = min(box.width, box.height)
        let base = min(31, max(7, short / 5)) | 1
        guard factor > 0 else { return base }
        var luma = [UInt8](repeating: 0, count: box.width * box.height)
        page.pixels.withUnsafeBufferPointer { p in
            for y in 0..<box.height {
                let row = (box.minY + y) * page.width + box.minX
                for x in 0..<box.width { luma[y * box.width + x] = p[row + x].luma }
            }
        }
        if polarity == .lightOnDark { for i in luma.indices { luma[i] = 255 - luma[i] } }
        let stroke = strokeWidth(luma: luma, width: box.width, height: box.height)
        return max(base, min(Int((factor * Double(stroke)).rounded()) + 1, short)) | 1
    }

    static func localEstimate(page: Bitmap<RGBA8>, in rect: PixelRect, parameters: InkMaskParameters) -> Local? {
        guard let box = rect.intersection(page.bounds),
            let r = rect.expanded(by: max(0, parameters.slack)).intersection(page.bounds)
        else { return nil }
        let polarity = decidePolarity(page: page, box: box)
        // Over busy art the window stays a fifth of the line: a wider closing reaches further
        // into the drawing, whose lighter parts then stand out as departures (−0.3 dB over art on
        // the corpus from real illustrations); the colour tests below judge the candidates there.
        let busy = borderSpread(page: page, box: box, trend: parameters.groundTrend) > parameters.busyBorder
        let k = parameters.window ?? automaticWindow(page: page, box: box, polarity: polarity, strokes: busy ? 0 : parameters.strokeWindow)
        let half = k / 2
        // Work area: the grown box plus the morphology window's reach, so the closing near the
        // edges sees real background.
        // Candidates are found a little beyond the box too: a mark that runs on well outside the
        // box (an outline, a rail, a clothesline) is art, not part of the block's text.
        let reachOut = parameters.artReach
        guard let rx = r.expanded(by: reachOut > 0 ? reachOut + 2 : 0).intersection(page.bounds),
            let work = rx.expanded(by: half).intersection(page.bounds)
        else { return nil }
        let ww = work.width, wh = work.height
        var luma = [UInt8](repeating: 0, count: ww * wh)
        page.pixels.withUnsafeBufferPointer { p in
            for y in 0..<wh {
                let row = (work.minY + y) * page.width + work.minX
                for x in 0..<ww { luma[y * ww + x] = p[row + x].luma }
            }
        }
        // Inverting light ink turns both polarities into "dark ink on lighter ground".
        if polarity == .lightOnDark { for i in luma.indices { luma[i] = 255 - luma[i] } }
        let closed = erode(dilate(luma, ww, wh, half), ww, wh, half)
        let xw = rx.width, xh = rx.height
        var departure = [UInt8](repeating: 0, count: xw * xh)
        var hist = [Int](repeating: 0, count: 256)
        for y in 0..<xh {
            for x in 0..<xw {
                let j = (y + rx.minY - work.minY) * ww + x + rx.minX - work.minX
                let d = UInt8(max(0, Int(closed[j]) - Int(luma[j])))
                departure[y * xw + x] = d
                if r.contains(x: x + rx.minX, y: y + rx.minY) { hist[Int(d)] += 1 }
            }
        }
        let otsu = Double(otsuThreshold(hist))
        let threshold = max(parameters.minimumContrast, otsu * parameters.fringe)
        var mask = [UInt8](repeating: 0, count: xw * xh)
        for i in mask.indices where Double(departure[i]) >= threshold { mask[i] = 255 }
        // Only over busy art: on plain paper every dark mark in the box is print, and old
        // letterpress ink varies too much in density for a colour test.
        // The colour tests decide first which candidates are ink-coloured (the core: letters, and
        // outlines drawn in nearly the same dark); art lines are then removed from the core alone,
        // so faint hatching and other mixes can no longer join a letter to an outline outside the
        // box and take the letter down with it. Everything else must lie near the surviving core.
        var core: [UInt8]? = nil
        var inkColour: SIMD3<Float>? = nil
        if parameters.inkColourTolerance > 0, busy,
            let found = inkColouredCore(mask, page: page, rect: rx, box: r, polarity: polarity, tolerance: Int32(parameters.inkColourTolerance))
        {
            core = found.core
            inkColour = found.ink
        }
        if reachOut > 0, busy {
            if var c = core {
                dropArtLines(&c, rect: rx, inner: r.expanded(by: reachOut))
                core = c
            } else {
                dropReachingOut(&mask, rect: rx, inner: r.expanded(by: reachOut))
            }
        }
        // Only the core itself: the in-fill's dilation already takes the anti-aliased edge, and
        // every pixel grown beyond the core over art is as likely an outline beside a letter.
        if let c = core {
            keepCoreAndItsCrumbs(&mask, core: c, width: xw, height: xh)
        }
        if parameters.mixTolerance > 0, busy {
            let background = backgroundColour(page: page, work: work, half: half, polarity: polarity)
            keepInkMixes(&mask, departure: departure, page: page, rect: rx, work: work, background: background, ink: inkColour, tolerance: parameters.mixTolerance)
        }
        var cropped = [UInt8](repeating: 0, count: r.width * r.height)
        for y in 0..<r.height {
            for x in 0..<r.width { cropped[y * r.width + x] = mask[(y + r.minY - rx.minY) * xw + x + r.minX - rx.minX] }
        }
        return Local(rect: r, mask: cropped)
    }

    /// The 8-connected components of the pixels of a `width`×`height` grid where `isMember`
    /// holds, each as its pixel indices (row-major).
    static func components(width w: Int, height h: Int, where isMember: (Int) -> Bool) -> [[Int]] {
        var seen = [Bool](repeating: false, count: w * h)
        var stack: [Int] = []
        var found: [[Int]] = []
        for start in 0..<(w * h) where !seen[start] && isMember(start) {
            seen[start] = true
            stack.append(start)
            var pixels: [Int] = []
            while let i = stack.popLast() {
                pixels.append(i)
                let y = i / w, x = i - y * w
                for yy in max(0, y - 1)...min(h - 1, y + 1) {
                    for xx in max(0, x - 1)...min(w - 1, x + 1) {
                        let j = yy * w + xx
                        if !seen[j] && isMember(j) { seen[j] = true; stack.append(j) }
                    }
                }
            }
            found.append(pixels)
        }
        return found
    }

    /// Clears every 8-connected mask component that has a pixel outside `inner`: text stays
    /// inside its box, the art's lines run on.
    static func dropReachingOut(_ mask: inout [UInt8], rect: PixelRect, inner: PixelRect) {
        let w = rect.width
        let m = mask
        for pixels in components(width: w, height: rect.height, where: { m[$0] != 0 }) {
            let out = pixels.contains { i in !inner.contains(x: i % w + rect.minX, y: i / w + rect.minY) }
            if out { for i in pixels { mask[i] = 0 } }
        }
    }

    /// Keeps the core, and the small candidate marks of another colour that touch it: hairlines,
    /// serif tips and dots that blur lightened out of the ink's cluster. A long mark beside the
    /// core (an outline running along a letter) is not a crumb and goes.
    static func keepCoreAndItsCrumbs(_ mask: inout [UInt8], core: [UInt8], width w: Int, height h: Int) {
        let crumb = 40
        let m = mask
        for pixels in components(width: w, height: h, where: { m[$0] != 0 && core[$0] == 0 }) {
            let keep = pixels.count <= crumb && pixels.contains { i in  // small, and touching the core
                let y = i / w, x = i - y * w
                for yy in max(0, y - 1)...min(h - 1, y + 1) {
                    for xx in max(0, x - 1)...min(w - 1, x + 1) where core[yy * w + xx] != 0 { return true }
                }
                return false
            }
            if !keep { for i in pixels { mask[i] = 0 } }
        }
    }

    /// Marks of the ink's colour that reach out of the box are art running behind the text. A
    /// mark that is only a line there (its inside part no thicker than an outline) goes whole;
    /// one that also holds letters (an outline touching them) keeps its inside part: filling a
    /// stretch of outline costs far less than leaving letters on the page.
    static func dropArtLines(_ core: inout [UInt8], rect: PixelRect, inner: PixelRect) {
        let w = rect.width
        let c = core
        for pixels in components(width: w, height: rect.height, where: { c[$0] != 0 }) {
            var out = false
            var inside = 0
            var x0 = Int.max, y0 = Int.max, x1 = Int.min, y1 = Int.min
            for i in pixels {
                let y = i / w, x = i - y * w
                if !inner.contains(x: x + rect.minX, y: y + rect.minY) {
                    out = true
                } else {
                    inside += 1
                    x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
                }
            }
            guard out else { continue }
            // A line of width w inside the box covers about w × its length, and its length lies
            // between 0.7 and 1 times the sum of its extents: ≤ 3 × that sum takes lines up to
            // 3–4 px wide. Letters joined to a wider outline are kept with it, which is the
            // cheaper mistake.
            let lineLike = inside == 0 || inside <= 3 * ((x1 - x0 + 1) + (y1 - y0 + 1))
            for i in pixels {
                let y = i / w, x = i - y * w
                if lineLike || !inner.contains(x: x + rect.minX, y: y + rect.minY) { core[i] = 0 }
            }
        }
    }

    /// The candidates of the block's ink colour, 1 = core, and that colour. Over art the strongest
    /// departures mix the text with outlines, stripes and shadows, so their median is no ink
    /// colour at all: the candidates are clustered instead (k-medians in RGB, seeded by luma
    /// quantiles), and the ink is the darkest cluster (lightest for light ink) whose pixels stay
    /// inside the box: art runs on beyond it, printed text does not.
    static func inkColouredCore(
        _ mask: [UInt8], page: Bitmap<RGBA8>, rect r: PixelRect, box: PixelRect, polarity: Polarity, tolerance: Int32
    ) -> (core: [UInt8], ink: SIMD3<Float>)? {
        let rw = r.width
        let candidates = mask.indices.filter { mask[$0] != 0 }
        guard candidates.count >= 16 else { return nil }
        let n = candidates.count
        var cols = [SIMD3<Int32>](repeating: .zero, count: n)
        var outside = [Bool](repeating: false, count: n)
        page.pixels.withUnsafeBufferPointer { p in
            for (k, i) in candidates.enumerated() {
                let y = i / rw, x = i - y * rw
                let q = p[(r.minY + y) * page.width + r.minX + x]
                cols[k] = SIMD3(Int32(q.r), Int32(q.g), Int32(q.b))
                outside[k] = !box.contains(x: r.minX + x, y: r.minY + y)
            }
        }
        let clusters = 4
        // Seeds: the per-channel medians of the luma quartiles.
        let byLuma = (0..<n).sorted { cols[$0].wrappedSum() < cols[$1].wrappedSum() }
        var label = [Int](repeating: 0, count: n)
        for (rank, k) in byLuma.enumerated() { label[k] = min(clusters - 1, rank * clusters / n) }
        var centre = [SIMD3<Int32>](repeating: .zero, count: clusters)
        var size = [Int](repeating: 0, count: clusters)
        func recentre() {
            var hist = [[Int]](repeating: [Int](repeating: 0, count: 768), count: clusters)
            size = [Int](repeating: 0, count: clusters)
            for k in 0..<n {
                let c = label[k], v = cols[k]
                hist[c][Int(v.x)] += 1; hist[c][256 + Int(v.y)] += 1; hist[c][512 + Int(v.z)] += 1
                size[c] += 1
            }
            for c in 0..<clusters where size[c] > 0 {
                var m = SIMD3<Int32>.zero
                for ch in 0..<3 {
                    var acc = 0, v = 0
                    while v < 255 && (acc + hist[c][ch * 256 + v]) * 2 < size[c] { acc += hist[c][ch * 256 + v]; v += 1 }
                    m[ch] = Int32(v)
                }
                centre[c] = m
            }
        }
        @inline(__always) func l1(_ a: SIMD3<Int32>, _ b: SIMD3<Int32>) -> Int32 {
            let d = a &- b
            return abs(d.x) + abs(d.y) + abs(d.z)
        }
        recentre()
        for _ in 0..<8 {
            var changed = false
            for k in 0..<n {
                var best = label[k], bestD = Int32.max
                for c in 0..<clusters where size[c] > 0 {
                    let d = l1(cols[k], centre[c])
                    if d < bestD { bestD = d; best = c }
                }
                if best != label[k] { label[k] = best; changed = true }
            }
            recentre()
            if !changed { break }
        }
        var out = [Int](repeating: 0, count: clusters)
        for k in 0..<n where outside[k] { out[label[k]] += 1 }
        let minimum = max(16, n / 20)
        let valid = (0..<clusters).filter { size[$0] >= minimum }
        guard !valid.isEmpty else { return nil }
        func share(_ c: Int) -> Double { Double(out[c]) / Double(size[c]) }
        func lightness(_ c: Int) -> Int32 { centre[c].wrappedSum() }
        let inside = valid.filter { share($0) <= 0.05 }
        let pick: Int
        if inside.isEmpty {
            pick = valid.min { share($0) < share($1) }!
        } else if polarity == .darkOnLight {
            pick = inside.min { lightness($0) < lightness($1) }!
        } else {
            pick = inside.max { lightness($0) < lightness($1) }!
        }
        var core = [UInt8](repeating: 0, count: mask.count)
        for k in 0..<n where label[k] == pick && l1(cols[k], centre[pick]) <= tolerance { core[candidates[k]] = 1 }
        let ink = centre[pick]
        return (core, SIMD3(Float(ink.x), Float(ink.y), Float(ink.z)))
    }

    /// The background colour under the text, per channel: a closing (dark ink) or opening (light
    /// ink) wider than a stroke, over the work area.
    static func backgroundColour(page: Bitmap<RGBA8>, work: PixelRect, half: Int, polarity: Polarity) -> [[UInt8]] {
        let ww = work.width, wh = work.height
        var channels = [[UInt8]](repeating: [UInt8](repeating: 0, count: ww * wh), count: 3)
        page.pixels.withUnsafeBufferPointer { p in
            for y in 0..<wh {
                let row = (work.minY + y) * page.width + work.minX
                for x in 0..<ww {
                    let v = p[row + x]
                    channels[0][y * ww + x] = v.r
                    channels[1][y * ww + x] = v.g
                    channels[2][y * ww + x] = v.b
                }
            }
        }
        return channels.map { c in
            polarity == .darkOnLight ? erode(dilate(c, ww, wh, half), ww, wh, half) : dilate(erode(c, ww, wh, half), ww, wh, half)
        }
    }

    /// Keeps the candidates whose colour lies near the line from the local background to the
    /// block's ink colour (the median of the strongest departures): ink, its anti-aliased edge and
    /// lighter strokes. Outlines, stripes and grass of another colour drop out.
    static func keepInkMixes(_ mask: inout [UInt8], departure: [UInt8], page: Bitmap<RGBA8>, rect r: PixelRect, work: PixelRect, background: [[UInt8]], ink known: SIMD3<Float>?, tolerance: Int) {
        let rw = r.width
        let candidates = mask.indices.filter { mask[$0] != 0 }
        guard candidates.count >= 16 else { return }
        func pixel(_ i: Int) -> RGBA8 { page.pixels[(r.minY + i / rw) * page.width + r.minX + i % rw] }
        func median(_ values: [UInt8]) -> Float { Float(values.sorted()[values.count / 2]) }
        let ink: SIMD3<Float>
        if let known {
            ink = known
        } else {
            let strongest = candidates.sorted { departure[$0] > departure[$1] }.prefix(max(8, candidates.count / 4))
            ink = SIMD3<Float>(median(strongest.map { pixel($0).r }), median(strongest.map { pixel($0).g }), median(strongest.map { pixel($0).b }))
        }
        let tol = Float(tolerance)
        for i in candidates {
            let y = i / rw, x = i - y * rw
            let j = (y + r.minY - work.minY) * work.width + x + r.minX - work.minX
            let b = SIMD3<Float>(Float(background[0][j]), Float(background[1][j]), Float(background[2][j]))
            let q = pixel(i)
            let p = SIMD3<Float>(Float(q.r), Float(q.g), Float(q.b))
            let e = ink - b
            let ee = (e * e).sum()
            guard ee > 1 else { continue }
            let a = max(0, min(1.2, ((p - b) * e).sum() / ee))
            let d = p - (b + a * e)
            if abs(d.x) + abs(d.y) + abs(d.z) > tol { mask[i] = 0 }
        }
    }

    /// Otsu's threshold on a 256-bin histogram.
    static func otsuThreshold(_ hist: [Int]) -> Int {
        let total = hist.reduce(0, +)
        guard total > 0 else { return 0 }
        var sumAll = 0.0
        for (v, c) in hist.enumerated() { sumAll += Double(v * c) }
        var sumB = 0.0, wB = 0, best = 0.0, threshold = 0
        for t in 0..<256 {
            wB += hist[t]
            guard wB > 0 else { continue }
            let wF = total - wB
            if wF == 0 { break }
            sumB += Double(t * hist[t])
            let mB = sumB / Double(wB), mF = (sumAll - sumB) / Double(wF)
            let between = Double(wB) * Double(wF) * (mB - mF) * (mB - mF)
            if between > best { best = between; threshold = t + 1 }
        }
        return threshold
    }

    /// Separable running extremum (square window of side 2·half+1), clipped at the edges.
    /// Each line costs three comparisons a pixel whatever the window (van Herk / Gil–Werman:
    /// running extrema within blocks of the window's length, forwards and backwards, and each
    /// window is one block's tail and the next one's head), so a window widened to a bold
    /// stroke costs no more than a thin one.
    static func extremum(_ a: [UInt8], _ w: Int, _ h: Int, _ half: Int, _ pick: (UInt8, UInt8) -> UInt8, identity: UInt8) -> [UInt8] {
        guard half > 0, w > 0, h > 0 else { return a }
        var tmp = a, out = a
        let longest = max(w, h) + 2 * half
        var line = [UInt8](repeating: identity, count: longest)
        var forward = line, backward = line
        let k = 2 * half + 1
        /// `line[0..<n + 2·half]` holds one line padded with `identity` on both sides; `store(x, v)`
        /// receives the extremum over the window centred on pixel x.
        func run(_ n: Int, _ store: (Int, UInt8) -> Void) {
            let padded = n + 2 * half
            var start = 0
            while start < padded {
                let end = min(padded, start + k)
                var v = identity
                for i in start..<end { v = pick(v, line[i]); forward[i] = v }
                v = identity
                for i in stride(from: end - 1, through: start, by: -1) { v = pick(v, line[i]); backward[i] = v }
                start = end
            }
            for x in 0..<n { store(x, pick(backward[x], forward[x + k - 1])) }
        }
        for y in 0..<h {
            for x in 0..<w { line[half + x] = a[y * w + x] }
            for x in 0..<half { line[x] = identity; line[half + w + x] = identity }
            run(w) { x, v in tmp[y * w + x] = v }
        }
        for x in 0..<w {
            for y in 0..<h { line[half + y] = tmp[y * w + x] }
            for y in 0..<half { line[y] = identity; line[half + h + y] = identity }
            run(h) { y, v in out[y * w + x] = v }
        }
        return out
    }

    static func dilate(_ a: [UInt8], _ w: Int, _ h: Int, _ half: Int) -> [UInt8] { extremum(a, w, h, half, max, identity: 0) }
    static func erode(_ a: [UInt8], _ w: Int, _ h: Int, _ half: Int) -> [UInt8] { extremum(a, w, h, half, min, identity: 255) }
}
