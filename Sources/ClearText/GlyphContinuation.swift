// Ink that runs on beyond its box is drawing, not type (issue 17: "never harm the pictures").
//
// A numeral printed on a drawn scale touches the scale's rails and ticks; a label beside a drawn
// box touches the box's edge; the hours on a dial touch the dial's spokes. Each piece of such a
// component is glyph-sized and lies inside the text box, so the size tests of ``GlyphFilter`` keep
// it, and the in-fill erases the drawing with the label. What gives it away is the page, not the
// mask: the scan's ink joined to the component runs on well beyond the box, out into the picture,
// and printed type does not. A letter the detector clipped reaches a few pixels past its box; a
// neighbouring line's letters are text too, so ink is not followed through another text box's
// letters (its masked pixels). It is followed through the rest of such a box: the hours of a
// dial each have a box touching the ring, and a ring that could not pass the others' boxes never
// ran out of any of them (NDL 2568591_17: its arcs were erased with the hours beside them once the
// detector, at 1600 px, boxed every hour).
//
// So, per box, the page's ink (at least halfway from the box's ground colour to its masked ink's,
// and of that ink's colour) is labelled in the box grown by the run-out distance, never entering
// another box's letters; a mask component joined to ink that reaches that distance beyond its box is left on
// the page. Only the type's own colour is followed: over colour art a letter touching a green
// hill is still type (the ink estimate sorts those by colour), one touching a black outline that
// runs on is entangled with the drawing. Yellowed paper and colour plates are told apart by this
// colour test alone; a test of the ground's chroma spread took a scale on an old page for art.

import Geometry
import Raster

extension GlyphFilter {
    /// How far from the ground towards the type's ink (a share of the way) a pixel joined to ink
    /// at half-way is still followed as ink.
    static let faintInk: Float = 1.0 / 3
    /// Region-local flags (row-major over `region`, which lies inside the page; `mask` is
    /// page-sized, non-zero on the type's ink): true on the pixels of `region` whose
    /// page ink is joined to ink reaching `distance` px or more beyond `region`, without passing
    /// through the masked pixels of any of `others` (the other text boxes' letters). Empty when the test does not apply: no
    /// ink in the mask or too little contrast between it and the ground. `tolerance`: how far (sum
    /// of channel differences) a pixel may lie from the line between the ground's and the type's
    /// colours and still be followed as ink. With `straight`, only the pixels on a straight run of
    /// that ink reaching `distance` beyond the region (see `straightRuns`).
    static func inkRunningOut(
        page: Bitmap<RGBA8>, mask: Bitmap<UInt8>, region r: PixelRect, others: [PixelRect], distance: Int,
        straight: Bool = false, tolerance: Int = InkMaskParameters().inkColourTolerance
    ) -> [Bool] {
        guard let (window, member) = inkAround(page: page, mask: mask, region: r, others: others, distance: distance, tolerance: tolerance)
        else { return [] }
        return straight
            ? straightRuns(member, window: window, region: r, distance: distance)
            : joinedComponents(member, window: window, region: r, distance: distance)
    }

    /// The components of `member` (over `window`) that touch the region and reach `distance`
    /// beyond it, as region-local flags.
    private static func joinedComponents(_ member: [Bool], window: PixelRect, region r: PixelRect, distance: Int) -> [Bool] {
        let w = r.width, h = r.height
        let ww = window.width, wh = window.height
        var out = [Bool](repeating: false, count: w * h)
        for part in InkMask.components(width: ww, height: wh, where: { member[$0] }) {
            var reach = 0, touchesBox = false
            for i in part {
                let x = i % ww + window.minX, y = i / ww + window.minY
                let d = max(r.minX - x, x - (r.maxX - 1), r.minY - y, y - (r.maxY - 1), 0)
                reach = max(reach, d)
                if d == 0 { touchesBox = true }
            }
            guard touchesBox, reach >= distance else { continue }
            for i in part {
                let x = i % ww + window.minX - r.minX, y = i / ww + window.minY - r.minY
                if x >= 0, x < w, y >= 0, y < h { out[y * w + x] = true }
            }
        }
        return out
    }

    /// The page's ink around `region` (within `distance` + 1 of it): pixels at least halfway from
    /// the box's ground colour to its masked ink's, and of that ink's colour; other text boxes'
    /// masked pixels outside the region are left out. Nil when the test does not apply (no ink in the
    /// mask, or too little contrast between it and the ground).
    static func inkAround(
        page: Bitmap<RGBA8>, mask: Bitmap<UInt8>, region r: PixelRect, others: [PixelRect], distance: Int, tolerance: Int
    ) -> (window: PixelRect, member: [Bool])? {
        let w = r.width, h = r.height
        guard distance > 0, let window = r.expanded(by: distance + 1).intersection(page.bounds) else { return nil }

        // Ink and ground colours from the box itself: the masked pixels are the type, the rest
        // of the box is what it is printed on. The mask is grown around the strokes (their
        // anti-aliased rim), so the type's colour is that of its strongest quarter: the darkest
        // masked pixels for dark type, the lightest for light.
        var inkPixels: [RGBA8] = []
        var groundHist = [[Int]](repeating: [Int](repeating: 0, count: 256), count: 3)
        page.pixels.withUnsafeBufferPointer { p in
            for y in 0..<h {
                for x in 0..<w {
                    let q = p[(r.minY + y) * page.width + r.minX + x]
                    if mask.pixels[(r.minY + y) * page.width + r.minX + x] != 0 {
                        inkPixels.append(q)
                    } else {
                        groundHist[0][Int(q.r)] += 1; groundHist[1][Int(q.g)] += 1; groundHist[2][Int(q.b)] += 1
                    }
                }
            }
        }
        func median(_ hist: [Int]) -> Float? {
            let n = hist.reduce(0, +)
            guard n > 0 else { return nil }
            var acc = 0
            for (v, c) in hist.enumerated() {
                acc += c
                if 2 * acc >= n { return Float(v) }
            }
            return 255
        }
        guard inkPixels.count >= 8, let gr = median(groundHist[0]), let gg = median(groundHist[1]), let gb = median(groundHist[2])
        else { return nil }
        let ground = SIMD3<Float>(gr, gg, gb)
        let groundLuma = 0.299 * gr + 0.587 * gg + 0.114 * gb
        inkPixels.sort { $0.luma < $1.luma }
        let inkLuma = Float(inkPixels[inkPixels.count / 2].luma)
        let quarter = inkLuma < groundLuma ? inkPixels.prefix(max(1, inkPixels.count / 4)) : inkPixels.suffix(max(1, inkPixels.count / 4))
        func channelMedian(_ c: (RGBA8) -> UInt8) -> Float { Float(quarter.map(c).sorted()[quarter.count / 2]) }
        let ink = SIMD3<Float>(channelMedian(\.r), channelMedian(\.g), channelMedian(\.b))
        let e = ink - ground
        let ee = (e * e).sum()
        // Too little contrast to tell ink from ground: nothing to follow.
        guard abs(e.x) + abs(e.y) + abs(e.z) >= 48, ee > 1 else { return nil }
        let tolerance = Float(tolerance)
        let ww = window.width, wh = window.height
        // Ink pixels of the window: at least halfway from the ground to the type's ink, and of the
        // type's colour (near the line from ground to ink: ink, its blur, nothing else). Over
        // colour art the greens and browns of a drawing are not followed, only what is drawn in
        // the type's own ink. Other text boxes' letters (their masked pixels, outside this box)
        // are taken out; a drawing's strokes through those boxes are not.
        // A drawing's hairline is often fainter than the type (NDL 3508165_11: a dial's arc and a
        // divider at a third of the way to the ink, broken into pieces at half-way), so ink is
        // followed by hysteresis: pixels a third of the way or more, of the type's colour, in a
        // piece that holds ink at half-way or more. Faint marks alone (grain, a wash) are not ink.
        var member = [Bool](repeating: false, count: ww * wh), strong = member
        page.pixels.withUnsafeBufferPointer { p in
            for y in 0..<wh {
                let row = (window.minY + y) * page.width + window.minX
                for x in 0..<ww {
                    let q = p[row + x]
                    let v = SIMD3<Float>(Float(q.r), Float(q.g), Float(q.b))
                    let a = ((v - ground) * e).sum() / ee
                    guard a >= Self.faintInk else { continue }
                    let d = v - (ground + min(a, 1.5) * e)
                    member[y * ww + x] = abs(d.x) + abs(d.y) + abs(d.z) <= tolerance
                    strong[y * ww + x] = member[y * ww + x] && a >= 0.5
                }
            }
        }
        for part in InkMask.components(width: ww, height: wh, where: { member[$0] }) where !part.contains(where: { strong[$0] }) {
            for i in part { member[i] = false }
        }
        for o in others {
            guard let cut = o.intersection(window) else { continue }
            for y in cut.minY..<cut.maxY {
                for x in cut.minX..<cut.maxX where !r.contains(x: x, y: y) && mask.pixels[y * page.width + x] != 0 {
                    member[(y - window.minY) * ww + x - window.minX] = false
                }
            }
        }
        return (window, member)
    }

    /// With `straight`: the pixels of the region on a straight run of that ink — across, down (each
    /// allowing the line to drift a pixel sideways, as a scanned rule does) or along either
    /// diagonal — reaching `distance` beyond the region. That is a drawn line through the box (a
    /// scale's rails, a frame, a rule, a dial's spoke); the letters it touches are not on such a
    /// run and stay type.
    private static func straightRuns(_ member: [Bool], window: PixelRect, region r: PixelRect, distance: Int) -> [Bool] {
        let w = r.width, h = r.height
        let ww = window.width, wh = window.height
        func reach(_ x: Int, _ y: Int) -> Int {
            let px = x + window.minX, py = y + window.minY
            return max(r.minX - px, px - (r.maxX - 1), r.minY - py, py - (r.maxY - 1), 0)
        }
        var out = [Bool](repeating: false, count: w * h)
        // For each direction, the maximal runs of ink along it; a run reaching `distance` beyond
        // the region marks its pixels inside the region. (How far a straight run reaches beyond
        // a rectangle is greatest at one of its ends.) Across and down, a pixel also counts as
        // ink when one of its two side neighbours is, so a rule scanned a little askew still
        // makes one run.
        let directions: [(dx: Int, dy: Int, lateral: Bool)] = [(1, 0, true), (0, 1, true), (1, 1, false), (1, -1, false)]
        for d in directions {
            func ink(_ x: Int, _ y: Int) -> Bool {
                if member[y * ww + x] { return true }
                guard d.lateral else { return false }
                if d.dx == 0 { return (x > 0 && member[y * ww + x - 1]) || (x + 1 < ww && member[y * ww + x + 1]) }
                return (y > 0 && member[(y - 1) * ww + x]) || (y + 1 < wh && member[(y + 1) * ww + x])
            }
            // Every run starts on the window's edge or after a gap: walk from each start.
            var starts: [(Int, Int)] = []
            if d.dy == 0 {
                for y in 0..<wh { starts.append((0, y)) }
            } else if d.dx == 0 {
                for x in 0..<ww { starts.append((x, 0)) }
            } else if d.dy == 1 {
                for x in 0..<ww { starts.append((x, 0)) }
                for y in 1..<max(1, wh) { starts.append((0, y)) }
            } else {
                for x in 0..<ww { starts.append((x, wh - 1)) }
                for y in 0..<max(0, wh - 1) { starts.append((0, y)) }
            }
            for (sx, sy) in starts {
                var x = sx, y = sy
                var runStart: (Int, Int)? = nil
                func close(_ ex: Int, _ ey: Int) {
                    guard let (bx, by) = runStart else { return }
                    runStart = nil
                    guard max(reach(bx, by), reach(ex, ey)) >= distance else { return }
                    var cx = bx, cy = by
                    while true {
                        let px = cx + window.minX - r.minX, py = cy + window.minY - r.minY
                        if px >= 0, px < w, py >= 0, py < h { out[py * w + px] = true }
                        if cx == ex && cy == ey { break }
                        cx += d.dx
                        cy += d.dy
                    }
                }
                var lastX = x, lastY = y
                while x >= 0, x < ww, y >= 0, y < wh {
                    if ink(x, y) {
                        if runStart == nil { runStart = (x, y) }
                    } else {
                        close(lastX, lastY)
                    }
                    lastX = x
                    lastY = y
                    x += d.dx
                    y += d.dy
                }
                close(lastX, lastY)
            }
        }
        return out
    }
}
