// The page reduced to grey at working resolution, its two binarizations, glyph-candidate
// components, and the full-resolution refinement of finished blocks.

import Dispatch
import Geometry
import Raster

/// A connected component that could be a glyph (or a glyph part), with what the grouping needs.
struct Glyph {
    var minX: Double, minY: Double, maxX: Double, maxY: Double
    var stroke: Double
    var gray: Double
    var holes: Int
    var fill: Double
    var width: Double { maxX - minX + 1 }
    var height: Double { maxY - minY + 1 }
    var cx: Double { (minX + maxX) / 2 }
    var cy: Double { (minY + maxY) / 2 }
}

final class WorkingImage: @unchecked Sendable {
    let page: Bitmap<RGBA8>
    let factor: Int
    let width: Int, height: Int
    let parameters: AnalysisParameters
    /// Working-resolution luma.
    var gray: [UInt8]
    /// Per polarity: nonzero where the pixel stands out from its local mean in that direction.
    /// Per polarity, how many of the contrast levels each pixel passes (0 = none).
    var masks: [DetectedPolarity: [UInt8]] = [:]
    /// The page's candidate ink colours (see `readColours`)…
    private(set) var colourInks: [(Int, Int, Int)] = []
    /// …and per working pixel 0, or k + 1 where it is read as ink `colourInks[k]`.
    private(set) var colourLayer: [UInt8] = []
    private var colourMaskCache: [Int: [UInt8]] = [:]
    private var nearCache: [Int: [UInt8]] = [:]

    init(page: Bitmap<RGBA8>, factor f: Int, parameters: AnalysisParameters) {
        self.page = page
        factor = f
        self.parameters = parameters
        width = page.width / f
        height = page.height / f
        let w = width, h = height, pw = page.width
        var g = [UInt8](repeating: 0, count: w * h)
        page.pixels.withUnsafeBufferPointer { src in
            g.withUnsafeMutableBufferPointer { dst in
                let d = dst
                concurrentRows(h) { rows in
                    let n = UInt32(f * f)
                    for y in rows {
                        for x in 0..<w {
                            var s: UInt32 = 0
                            for yy in 0..<f {
                                let base = (y * f + yy) * pw + x * f
                                for xx in 0..<f {
                                    let p = src[base + xx]
                                    s += (54 * UInt32(p.r) + 183 * UInt32(p.g) + 19 * UInt32(p.b)) >> 8
                                }
                            }
                            d[y * w + x] = UInt8(s / n)
                        }
                    }
                }
            }
        }
        gray = g
        binarize()
    }

    /// Local-mean thresholding in both directions from one integral image. A fixed contrast
    /// margin (not one scaled by local variance) keeps text over busy art, whose neighbourhood
    /// variance is high; the component filters deal with the art that passes too.
    private func binarize() {
        let w = width, h = height
        let r = max(4, parameters.windowRadius * height / max(1, min(height, parameters.workingHeight)))
        var integral = [Int](repeating: 0, count: (w + 1) * (h + 1))
        gray.withUnsafeBufferPointer { g in
            integral.withUnsafeMutableBufferPointer { ii in
                for y in 0..<h {
                    var rowSum = 0
                    for x in 0..<w {
                        rowSum += Int(g[y * w + x])
                        ii[(y + 1) * (w + 1) + x + 1] = ii[y * (w + 1) + x + 1] + rowSum
                    }
                }
            }
        }
        var dark = [UInt8](repeating: 0, count: w * h)
        var light = [UInt8](repeating: 0, count: w * h)
        let colours = parameters.colourReadings > 0
        var localMean = [UInt8](repeating: 0, count: colours ? w * h : 0)
        let contrast = parameters.minimumContrast
        let strong = max(contrast, parameters.strongContrast)
        let faint = parameters.faintContrast > 0 ? max(parameters.deepInkContrast, parameters.faintContrast) : 256
        let floor = min(parameters.deepInkContrast, faint)
        let deep = Int(parameters.deepInkRatio * 100)
        let coreK = Int(parameters.coreInkFraction * 1000)
        let darkest = coreK > 0 ? localMinimum(radius: r) : []
        darkest.withUnsafeBufferPointer { lowest in
            gray.withUnsafeBufferPointer { g in
                integral.withUnsafeBufferPointer { ii in
                    dark.withUnsafeMutableBufferPointer { dk in
                        light.withUnsafeMutableBufferPointer { lt in
                          localMean.withUnsafeMutableBufferPointer { lm in
                            let dk = dk, lt = lt, lm = lm
                            concurrentRows(h) { rows in
                                for y in rows {
                                    let y0 = max(0, y - r), y1 = min(h, y + r + 1)
                                    for x in 0..<w {
                                        let x0 = max(0, x - r), x1 = min(w, x + r + 1)
                                        let n = (y1 - y0) * (x1 - x0)
                                        let s = ii[y1 * (w + 1) + x1] - ii[y0 * (w + 1) + x1] - ii[y1 * (w + 1) + x0] + ii[y0 * (w + 1) + x0]
                                        let v = Int(g[y * w + x]) * n
                                        // Bit 1: contrast; bit 2: strong contrast; bit 4: deep ink —
                                        // far darker (lighter) than the neighbourhood relative to its
                                        // own level, which holds for dark type on a dark sky too.
                                        // Bit 64 (dark only): the inkiest ink — contrast or deep ink
                                        // within `coreInkFraction` of the way from the darkest grey
                                        // around to the mean, where type's solid strokes lie and the
                                        // paler outlines and grass it touches do not.
                                        var d: UInt8 = 0, l: UInt8 = 0
                                        if v < s - floor * n {
                                            if v < s - contrast * n { d |= 1 }
                                            if v < s - strong * n { d |= 2 }
                                            if v * 100 <= s * deep { d |= 4 }
                                            if v < s - faint * n { d |= 32 }
                                            if coreK > 0 && d & 5 != 0 {
                                                let lo = Int(lowest[y * w + x]) * n
                                                if (v - lo) * 1000 <= coreK * (s - lo) { d |= 64 }
                                            }
                                        } else if v > s + floor * n {
                                            if v > s + contrast * n { l |= 1 }
                                            if v > s + strong * n { l |= 2 }
                                            if (255 * n - v) * 100 <= (255 * n - s) * deep { l |= 4 }
                                            if v > s + faint * n { l |= 32 }
                                        }
                                        dk[y * w + x] = d
                                        lt[y * w + x] = l
                                        if colours { lm[y * w + x] = UInt8(s / n) }
                                    }
                                }
                            }
                          }
                        }
                    }
                }
            }
        }
        if parameters.lineArtReading {
            removeLineArt(&dark)
            if !parameters.lineArtDarkOnly { removeLineArt(&light) }
        }
        masks[.darkOnLight] = dark
        masks[.lightOnDark] = light
        if colours { readColours(localMean: localMean) }
    }

    /// Coloured type over a drawing — blue words across a cat and a fence, green words in green
    /// grass — differs from its neighbourhood's grey by less than the contrast readings ask
    /// (the type and the drawing darken the neighbourhood's mean together), and where it passes
    /// it fuses with outlines of other colours. Read by its own colour, it comes loose. This is
    /// colour reduction followed by components per colour layer, the classical scheme for
    /// coloured text (Jain & Yu): the page's candidate pixels are those darker than their
    /// neighbourhood (`colourReadingContrast`) and clearly coloured (`colourReadingChroma`); its
    /// inks are the densest colours among them, weighted by how far below the mean they are
    /// (type is solid ink; grass blades in the type's own green are a lighter mix), found one
    /// at a time on a colour histogram; each candidate pixel within `colourReadingDistance` of
    /// an ink joins that ink's layer. All layers are labelled in one pass (neighbours join only
    /// within one layer).
    private func readColours(localMean: [UInt8]) {
        let w = width, h = height, n = w * h
        let contrast = parameters.colourReadingContrast, chroma = parameters.colourReadingChroma
        let radius = parameters.colourReadingDistance
        // Candidate pixels, their weights (0: not a candidate) and their mean colour over the
        // scan pixels they stand for (r | g << 8 | b << 16), read for candidates only.
        var weight = [UInt8](repeating: 0, count: n)
        var rgb = [UInt32](repeating: 0, count: n)
        let f = factor, pw = page.width, ff = f * f
        // Per row chunk: a weighted colour histogram, 16 levels a channel, with colour sums.
        let chunks = min(h, 8)
        var histograms = [[Int]](repeating: [], count: chunks)
        page.pixels.withUnsafeBufferPointer { src in
        rgb.withUnsafeMutableBufferPointer { c in
            gray.withUnsafeBufferPointer { g in
                localMean.withUnsafeBufferPointer { lm in
                    weight.withUnsafeMutableBufferPointer { wt in
                        histograms.withUnsafeMutableBufferPointer { hs in
                            nonisolated(unsafe) let wt = wt, hs = hs, c = c, g = g, lm = lm, src = src
                            // Division by f² as a multiply and shift (exact for f a power of two).
                            let inv = (65536 + ff - 1) / ff
                            DispatchQueue.concurrentPerform(iterations: chunks) { k in
                                // bin * 5: weight, pixels, weighted r, g, b
                                var hist = [Int](repeating: 0, count: 4096 * 5)
                                hist.withUnsafeMutableBufferPointer { hb in
                                    for y in h * k / chunks..<h * (k + 1) / chunks {
                                        for x in 0..<w {
                                            let i = y * w + x
                                            let d = Int(lm[i]) - Int(g[i])
                                            guard d >= contrast else { continue }
                                            var r = 0, gg = 0, b = 0
                                            for yy in 0..<f {
                                                let base = (y * f + yy) * pw + x * f
                                                for xx in 0..<f {
                                                    let p = src[base + xx]
                                                    r &+= Int(p.r); gg &+= Int(p.g); b &+= Int(p.b)
                                                }
                                            }
                                            r = (r &* inv) >> 16; gg = (gg &* inv) >> 16; b = (b &* inv) >> 16
                                            c[i] = UInt32(r | gg << 8 | b << 16)
                                            guard max(r, gg, b) - min(r, gg, b) >= chroma else { continue }
                                            let q = min(255, d - contrast + 1)
                                            wt[i] = UInt8(q)
                                            let bin = ((r >> 4) << 8 | (gg >> 4) << 4 | b >> 4) * 5
                                            hb[bin] &+= q; hb[bin + 1] &+= 1
                                            hb[bin + 2] &+= q &* r; hb[bin + 3] &+= q &* gg; hb[bin + 4] &+= q &* b
                                        }
                                    }
                                }
                                hs[k] = hist
                            }
                        }
                    }
                }
            }
        }
        }
        var hist = [Int](repeating: 0, count: 4096 * 5)
        for part in histograms { for i in hist.indices { hist[i] += part[i] } }
        // Bins' mean colours; the inks by mean shift on the bins, densest first.
        var bins: [(w: Int, n: Int, r: Int, g: Int, b: Int)] = []
        for i in 0..<4096 where hist[i * 5] > 0 {
            let q = hist[i * 5]
            bins.append((q, hist[i * 5 + 1], hist[i * 5 + 2] / q, hist[i * 5 + 3] / q, hist[i * 5 + 4] / q))
        }
        func distance(_ a: (Int, Int, Int), _ b: (Int, Int, Int)) -> Int { max(abs(a.0 - b.0), abs(a.1 - b.1), abs(a.2 - b.2)) }
        var active = [Bool](repeating: true, count: bins.count)
        var inks: [(Int, Int, Int)] = []
        while inks.count < parameters.colourReadings {
            guard let top = bins.indices.filter({ active[$0] }).max(by: { bins[$0].w < bins[$1].w }) else { break }
            var centre = (bins[top].r, bins[top].g, bins[top].b)
            var pixels = 0
            for _ in 0..<4 {
                var q = 0, r = 0, g = 0, b = 0
                pixels = 0
                for (j, bin) in bins.enumerated() where active[j] && distance((bin.r, bin.g, bin.b), centre) <= radius {
                    q += bin.w; r += bin.w * bin.r; g += bin.w * bin.g; b += bin.w * bin.b; pixels += bin.n
                }
                guard q > 0 else { break }
                centre = (r / q, g / q, b / q)
            }
            guard pixels >= parameters.colourReadingMinimumPixels else { break }
            for (j, bin) in bins.enumerated() where distance((bin.r, bin.g, bin.b), centre) <= 2 * radius { active[j] = false }
            // Type set in colour is set in a saturated ink; the browns, olives and greys of a
            // drawing's shading and outlines are the picture's own (and dark neutral type is the
            // grey readings').
            if max(centre.0, centre.1, centre.2) - min(centre.0, centre.1, centre.2) >= parameters.colourInkChroma { inks.append(centre) }
        }
        colourInks = inks
        guard !inks.isEmpty else { return }
        // Layers: each candidate pixel joins the ink it lies near (inks are more than twice the
        // distance apart, so at most one).
        var layer = [UInt8](repeating: 0, count: n)
        let inkChannels = inks.flatMap { [Int32($0.0), Int32($0.1), Int32($0.2)] }, count = inks.count
        let rad = Int32(radius)
        rgb.withUnsafeBufferPointer { c in
            weight.withUnsafeBufferPointer { wt in
                inkChannels.withUnsafeBufferPointer { ic in
                    layer.withUnsafeMutableBufferPointer { out in
                        let out = out
                        concurrentRows(h) { rows in
                            for i in rows.lowerBound * w..<rows.upperBound * w where wt[i] != 0 {
                                let v = c[i]
                                let r = Int32(v & 255), g = Int32((v >> 8) & 255), b = Int32((v >> 16) & 255)
                                var k = 0
                                while k < count {
                                    if abs(r - ic[3 * k]) <= rad && abs(g - ic[3 * k + 1]) <= rad && abs(b - ic[3 * k + 2]) <= rad {
                                        out[i] = UInt8(k + 1)
                                        break
                                    }
                                    k += 1
                                }
                            }
                        }
                    }
                }
            }
        }
        colourLayer = layer
    }

    /// The colour layer of ink `k` as a mask (bit 128), as the steps after grouping read it.
    func colourMask(_ k: Int) -> [UInt8]? {
        guard colourInks.indices.contains(k), !colourLayer.isEmpty else { return nil }
        if let m = colourMaskCache[k] { return m }
        let v = UInt8(k + 1)
        let m = colourLayer.map { $0 == v ? UInt8(128) : 0 }
        colourMaskCache[k] = m
        return m
    }

    /// The mask a block was found in: its polarity's, or its ink colour's.
    func mask(for b: BlockCandidate) -> [UInt8]? {
        b.level == 128 ? colourMask(b.colour) : masks[b.polarity]
    }

    /// Glyph candidates of every colour layer, per ink.
    func colourCandidates() -> [[Glyph]] {
        guard !colourInks.isEmpty, !colourLayer.isEmpty else { return [] }
        let w = width, h = height
        let labeling = colourLayer.withUnsafeBufferPointer { lb in
            gray.withUnsafeBufferPointer { gb in ComponentLabeler.label(layers: lb, gray: gb, width: w, height: h) }
        }
        var labels = [Int32](repeating: 0, count: w * h)
        var ink = [Int](repeating: 0, count: labeling.components.count)
        labels.withUnsafeMutableBufferPointer { lb in
            for run in labeling.runs {
                let base = Int(run.y) * w
                ink[Int(run.component)] = Int(colourLayer[base + Int(run.x0)]) - 1
                for x in Int(run.x0)...Int(run.x1) { lb[base + x] = run.component + 1 }
            }
        }
        let (glyphs, source) = glyphCandidates(labels: &labels, count: labeling.components.count)
        var out = [[Glyph]](repeating: [], count: colourInks.count)
        // Letters are compact pieces; long ones in a colour layer are a drawing's outlines and
        // edges in that colour (a hill's rim, a stripe).
        let aspect = parameters.colourGlyphAspect
        for (g, s) in zip(glyphs, source) where max(g.width, g.height) <= aspect * min(g.width, g.height) { out[ink[s]].append(g) }
        return out
    }

    /// The darkest working grey within `radius` (a square window, clipped at the page's edge),
    /// by van Herk / Gil–Werman running minima (three comparisons a pixel whatever the radius):
    /// along each row, then down the columns a whole row at a time.
    private func localMinimum(radius r: Int) -> [UInt8] {
        let w = width, h = height, k = 2 * r + 1
        var rowMin = [UInt8](repeating: 255, count: w * h)
        gray.withUnsafeBufferPointer { g in
            rowMin.withUnsafeMutableBufferPointer { out in
                let out = out
                concurrentRows(h) { rows in
                    let len = (w + 2 * r + k - 1) / k * k
                    var fwd = [UInt8](repeating: 255, count: len), bwd = [UInt8](repeating: 255, count: len)
                    fwd.withUnsafeMutableBufferPointer { f in
                        bwd.withUnsafeMutableBufferPointer { bw in
                            for y in rows {
                                let src = y * w
                                var start = 0
                                while start < len {
                                    var run: UInt8 = 255
                                    for i in start..<(start + k) {
                                        let j = i - r
                                        let v: UInt8 = j >= 0 && j < w ? g[src + j] : 255
                                        run = min(run, v)
                                        f[i] = run
                                        bw[i] = v
                                    }
                                    run = 255
                                    var i = start + k - 1
                                    while i >= start {
                                        run = min(run, bw[i])
                                        bw[i] = run
                                        i -= 1
                                    }
                                    start += k
                                }
                                for x in 0..<w { out[src + x] = min(bw[x], f[x + 2 * r]) }
                            }
                        }
                    }
                }
            }
        }
        // Columns: the same recurrences with whole rows as the elements, which vectorise.
        let len = (h + 2 * r + k - 1) / k * k
        var fwd = [UInt8](repeating: 255, count: len * w), bwd = [UInt8](repeating: 255, count: len * w)
        var result = [UInt8](repeating: 255, count: w * h)
        rowMin.withUnsafeBufferPointer { rm in
            fwd.withUnsafeMutableBufferPointer { f in
                bwd.withUnsafeMutableBufferPointer { bw in
                    for i in 0..<len {
                        let j = i - r
                        let row = i * w
                        if j >= 0 && j < h {
                            let src = j * w
                            if i % k == 0 {
                                for x in 0..<w { f[row + x] = rm[src + x] }
                            } else {
                                for x in 0..<w { f[row + x] = min(f[row - w + x], rm[src + x]) }
                            }
                            for x in 0..<w { bw[row + x] = rm[src + x] }
                        } else if i % k != 0 {
                            for x in 0..<w { f[row + x] = f[row - w + x] }
                        }
                    }
                    var i = len - 2
                    while i >= 0 {
                        if (i + 1) % k != 0 {
                            let row = i * w
                            for x in 0..<w { bw[row + x] = min(bw[row + x], bw[row + w + x]) }
                        }
                        i -= 1
                    }
                    result.withUnsafeMutableBufferPointer { out in
                        for y in 0..<h {
                            let a = y * w, b = (y + 2 * r) * w
                            for x in 0..<w { out[a + x] = min(bw[a + x], f[b + x]) }
                        }
                    }
                }
            }
        }
        return result
    }

    /// Adds bits 8 (contrast) and 16 (deep ink) to `m`: the same readings without line art.
    /// Text over a drawing touches the drawing's outlines — pickets, rails, trunks, roof
    /// edges — and fuses with them into components no glyph test accepts. Those outlines are
    /// long and thin: a pixel whose run of ink along a row or column is much longer than any
    /// glyph stroke while its run the other way is a stroke or two wide belongs to a drawn
    /// line, not a letter. Inside a letter the crossing outline meets wide ink and is kept,
    /// which leaves it within the letter's box. Mongolian stems and Arabic baselines are long
    /// and thin too, so this is a reading of its own that competes with the others rather
    /// than a clean-up of them.
    private func removeLineArt(_ m: inout [UInt8]) {
        let w = width, h = height
        let long = max(12, Int(parameters.lineArtLength * Double(h)))
        let thin = parameters.lineArtWidth
        var hrun = [UInt16](repeating: 0, count: w * h), vrun = [UInt16](repeating: 0, count: w * h)
        m.withUnsafeBufferPointer { mb in
            hrun.withUnsafeMutableBufferPointer { hr in
                let hr = hr
                concurrentRows(h) { rows in
                    for y in rows {
                        let r = y * w
                        var x = 0
                        while x < w {
                            if mb[r + x] & 5 == 0 { x += 1; continue }
                            let s = x
                            while x < w && mb[r + x] & 5 != 0 { x += 1 }
                            let len = UInt16(min(x - s, 65535))
                            for i in s..<x { hr[r + i] = len }
                        }
                    }
                }
            }
            vrun.withUnsafeMutableBufferPointer { vr in
                let vr = vr
                concurrentRows(w) { cols in
                    for x in cols {
                        var y = 0
                        while y < h {
                            if mb[y * w + x] & 5 == 0 { y += 1; continue }
                            let s = y
                            while y < h && mb[y * w + x] & 5 != 0 { y += 1 }
                            let len = UInt16(min(y - s, 65535))
                            for i in s..<y { vr[i * w + x] = len }
                        }
                    }
                }
            }
        }
        for i in 0..<(w * h) where m[i] & 5 != 0 {
            let a = Int(hrun[i]), b = Int(vrun[i])
            let lineArt = (a >= long && b <= thin) || (b >= long && a <= thin)
            if !lineArt { m[i] |= (m[i] & 1 != 0 ? 8 : 0) | (m[i] & 4 != 0 ? 16 : 0) }
        }
    }

    /// 3×3 erosion of the pixels at or above `level`, as a 0/1 mask.
    private func erode(_ m: [UInt8], level: UInt8) -> [UInt8] {
        let w = width, h = height
        var rows = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            let r = y * w
            for x in 1..<max(1, w - 1) where m[r + x] & level != 0 && m[r + x - 1] & level != 0 && m[r + x + 1] & level != 0 { rows[r + x] = 1 }
        }
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 1..<max(1, h - 1) {
            let r = y * w
            for x in 0..<w where rows[r + x] != 0 && rows[r - w + x] != 0 && rows[r + w + x] != 0 { out[r + x] = 1 }
        }
        return out
    }

    /// 3×3 dilation: where a full-resolution pixel may still be ink (the working mask is coarser).
    private func dilated(_ m: [UInt8], level: UInt8) -> [UInt8] {
        let w = width, h = height
        var rows = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            let r = y * w
            for x in 0..<w where m[r + x] & level != 0 || (x > 0 && m[r + x - 1] & level != 0) || (x + 1 < w && m[r + x + 1] & level != 0) { rows[r + x] = 1 }
        }
        var out = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            let r = y * w
            for x in 0..<w where rows[r + x] != 0 || (y > 0 && rows[r - w + x] != 0) || (y + 1 < h && rows[r + w + x] != 0) { out[r + x] = 1 }
        }
        return out
    }

    /// Components of one polarity's mask that could be glyphs.
    ///
    /// With `eroded`, components are seeded from the mask eroded by one working pixel and then
    /// grown back by one pixel inside the mask: glyphs keep their shape but come loose from the
    /// thinner art outlines they touch when text is printed over a drawing.
    func candidates(polarity: DetectedPolarity, level: UInt8, eroded: Bool = false) -> [Glyph] {
        guard let m = masks[polarity] else { return [] }
        let w = width, h = height
        let seeds = eroded ? erode(m, level: level) : m
        let seedLevel: UInt8 = eroded ? 1 : level
        let labeling = seeds.withUnsafeBufferPointer { mb in
            gray.withUnsafeBufferPointer { gb in ComponentLabeler.label(mask: mb, atLeast: seedLevel, gray: gb, width: w, height: h) }
        }
        var labels = [Int32](repeating: 0, count: w * h)
        labels.withUnsafeMutableBufferPointer { lb in
            for run in labeling.runs {
                let base = Int(run.y) * w
                for x in Int(run.x0)...Int(run.x1) { lb[base + x] = run.component + 1 }
            }
        }
        if eroded {
            let cores = labels
            for y in 0..<h {
                for x in 0..<w where m[y * w + x] & level != 0 && cores[y * w + x] == 0 {
                    search: for yy in max(0, y - 1)...min(h - 1, y + 1) {
                        for xx in max(0, x - 1)...min(w - 1, x + 1) where cores[yy * w + xx] != 0 {
                            labels[y * w + x] = cores[yy * w + xx]
                            break search
                        }
                    }
                }
            }
        } else if level == 64 && parameters.coreGrowBack {
            // The inkiest-ink reading keeps only the cores of its strokes; grown back by one pixel
            // into the contrast reading, its glyphs regain their stroke width and fill without
            // rejoining the paler outlines they were cut from. Every core pixel is labelled and
            // only non-core pixels are written, so rows can be grown independently.
            m.withUnsafeBufferPointer { mb in
                labels.withUnsafeMutableBufferPointer { lb in
                    let lb = lb
                    concurrentRows(h) { rows in
                        for y in rows {
                            let ylo = max(0, y - 1), yhi = min(h - 1, y + 1)
                            for x in 0..<w {
                                let v = mb[y * w + x]
                                guard v & 5 != 0, v & 64 == 0 else { continue }
                                let xlo = max(0, x - 1), xhi = min(w - 1, x + 1)
                                search: for yy in ylo...yhi {
                                    for xx in xlo...xhi where mb[yy * w + xx] & 64 != 0 {
                                        lb[y * w + x] = lb[yy * w + xx]
                                        break search
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
        return glyphCandidates(labels: &labels, count: labeling.components.count).glyphs
    }

    /// The components of a label image (component index + 1 per pixel) that could be glyphs,
    /// with the index of the component each came from. Relabels `labels` to the kept ones.
    private func glyphCandidates(labels: inout [Int32], count: Int) -> (glyphs: [Glyph], source: [Int]) {
        let h = height
        let comps = componentStats(labels: labels, count: count)

        let minSize = parameters.minimumCharacterSize
        let maxSize = Int(parameters.maximumCharacterFraction * Double(h))
        var keep = [Int32](repeating: 0, count: comps.count + 1)
        var kept: [Component] = []
        var source: [Int] = []
        for (i, c) in comps.enumerated() where c.area > 0 {
            let cw = c.width, ch = c.height
            guard max(cw, ch) >= minSize, min(cw, ch) >= 2, cw <= maxSize * 3, ch <= maxSize * 3 else { continue }
            guard min(cw, ch) <= maxSize else { continue }
            guard c.area >= 10 else { continue }
            let fill = c.fill
            guard fill >= 0.08, fill <= 0.95 else { continue }
            let sw = c.strokeWidth
            // A glyph is drawn with strokes: thick relative to its size means a blob or a patch.
            guard sw <= 0.36 * Double(max(cw, ch)) + 1, sw <= Double(maxSize) / 4 else { continue }
            // Bars — no wider than about two strokes either way — are left out of the grouping:
            // they are grass blades, hatching, pickets and rays far more often than they are an
            // l or an i, and a glyph left out still lies inside its block's box.
            // Strokes one or two pixels wide all measure 2 (every pixel is on the boundary), so small
            // print gets a fixed minimum instead.
            guard Double(min(cw, ch)) >= (sw < 2.5 ? 4 : parameters.barFactor * sw + 1) else { continue }
            kept.append(c)
            source.append(i)
            keep[i + 1] = Int32(kept.count)
        }
        // Holes need the label image of the kept components only.
        keep.withUnsafeBufferPointer { kb in
            labels.withUnsafeMutableBufferPointer { lb in
                for i in 0..<lb.count where lb[i] != 0 { lb[i] = kb[Int(lb[i])] }
            }
        }
        let holes = labels.withUnsafeBufferPointer { HoleCounter.holes(labels: $0, width: width, height: h, componentCount: kept.count) }
        let glyphs = kept.enumerated().map { i, c in
            Glyph(minX: Double(c.minX), minY: Double(c.minY), maxX: Double(c.maxX), maxY: Double(c.maxY),
                  stroke: c.strokeWidth, gray: c.meanGray, holes: Int(holes[i]), fill: c.fill)
        }
        return (glyphs, source)
    }

    /// Box, area, boundary and grey sum of every label (1...count) in a label image.
    private func componentStats(labels: [Int32], count: Int) -> [Component] {
        let w = width, h = height
        var comps = [Component](repeating: Component(minX: .max, minY: .max, maxX: -1, maxY: -1), count: count)
        labels.withUnsafeBufferPointer { lb in
            gray.withUnsafeBufferPointer { g in
                comps.withUnsafeMutableBufferPointer { c in
                    for y in 0..<h {
                        let r = y * w
                        for x in 0..<w {
                            let l = lb[r + x]
                            guard l != 0 else { continue }
                            let i = Int(l) - 1
                            let x32 = Int32(x), y32 = Int32(y)
                            if x32 < c[i].minX { c[i].minX = x32 }
                            if x32 > c[i].maxX { c[i].maxX = x32 }
                            if y32 < c[i].minY { c[i].minY = y32 }
                            if y32 > c[i].maxY { c[i].maxY = y32 }
                            c[i].area += 1
                            c[i].graySum += Int64(g[r + x])
                            if x == 0 || x == w - 1 || y == 0 || y == h - 1 || lb[r + x - 1] != l || lb[r + x + 1] != l
                                || lb[r - w + x] != l || lb[r + w + x] != l
                            {
                                c[i].boundary += 1
                            }
                        }
                    }
                }
            }
        }
        return comps
    }

    /// Grows a one-line block along its own band. Over a drawing, words touching the art
    /// merge with it into components too big to be glyphs, so a line is often found only in
    /// pieces. Inside a band just wider than the line, the art that crosses it (pickets, legs,
    /// stems; rails and outlines across a vertical column) is cut into slivers, and what it
    /// touched becomes glyph-sized again; glyph-sized pieces next to the line extend it. The
    /// band is read transposed for a vertical column, so both directions share one rule.
    func extendLine(_ b: BlockCandidate) -> BlockCandidate {
        let t = b.size
        let horizontal = b.orientation == .horizontal
        guard horizontal || parameters.growColumns, t >= 3, let m = mask(for: b) else { return b }
        guard b.level != 64 || parameters.coreGrowth > 0 else { return b }
        let (aLo, aHi, cLo, cHi) = horizontal
            ? (b.rect.minX, b.rect.maxX, b.rect.minY, b.rect.maxY) : (b.rect.minY, b.rect.maxY, b.rect.minX, b.rect.maxX)
        guard cHi - cLo <= 2.2 * t else { return b }
        let (alongSize, acrossSize) = horizontal ? (width, height) : (height, width)
        // Band coordinates: x along the line, y across it.
        let y0 = max(0, Int(cLo - 0.25 * t)), y1 = min(acrossSize, Int(cHi + 0.25 * t) + 1)
        let x0 = max(0, Int(aLo - 12 * t)), x1 = min(alongSize, Int(aHi + 12 * t) + 1)
        let bw = x1 - x0, bh = y1 - y0
        guard bw > 0, bh > 2 else { return b }
        var band = [UInt8](repeating: 0, count: bw * bh), bandGray = [UInt8](repeating: 0, count: bw * bh)
        for y in 0..<bh {
            for x in 0..<bw {
                let i = horizontal ? (y + y0) * width + x + x0 : (x + x0) * width + y + y0
                band[y * bw + x] = m[i]
                bandGray[y * bw + x] = gray[i]
            }
        }
        // Rails and long outlines run along a line of text set over a fence and fuse its words
        // into one mass; the same contrast without line art (when it was read) frees them.
        var level = b.level
        if parameters.growWithoutLineArt && parameters.lineArtReading && (b.polarity == .darkOnLight || !parameters.lineArtDarkOnly) {
            if level == 1 { level = 8 } else if level == 4 { level = 16 }
        }
        var pieces: [(lo: Double, hi: Double)] = []
        func isBar(_ c: Component) -> Bool {
            Double(min(c.width, c.height)) < (c.strokeWidth < 2.5 ? 3 : parameters.barFactor * c.strokeWidth + 1)
        }
        // The line's baseline, x-height and ascender line (band rows), from the letters it
        // already has: where a stem two working pixels wide must start and end to count as an
        // l or an i (see below).
        var guides: (base: Double, xHeight: Double, ascender: Double)?
        // Pieces of the band read one way (a mask and the bits that count as ink).
        func addPieces(_ band: [UInt8], _ level: UInt8) {
            let labeling = band.withUnsafeBufferPointer { mb in
                bandGray.withUnsafeBufferPointer { gb in ComponentLabeler.label(mask: mb, atLeast: level, gray: gb, width: bw, height: bh) }
            }
            if horizontal && guides == nil {
                let letters = labeling.components.filter { c in
                    Double(c.minX + Int32(x0)) >= aLo && Double(c.maxX + Int32(x0)) <= aHi && Double(c.height) >= 0.5 * t
                        && c.minY > 0 && Int(c.maxY) < bh - 1 && !isBar(c)
                }
                if letters.count >= 3 {
                    let tops = letters.map { Double($0.minY) }.sorted()
                    guides = (median(letters.map { Double($0.maxY) }), median(tops), tops[tops.count / 10])
                }
            }
            for c in labeling.components {
                let cw = Double(c.width), ch = Double(c.height)
                // Art crossing the band is cut to slivers, which the bar test below drops; a letter
                // still joined to such a sliver is kept.
                if c.minY == 0 && Int(c.maxY) == bh - 1 && c.fill > 0.85 { continue }
                guard ch >= 0.5 * t, cw >= 2, cw <= 6 * t, c.area >= 8 else { continue }
                // A bar that reaches the band's edge is art crossing it; one inside the band is
                // an l, an i or a t (which the page-wide glyph test leaves out). At working
                // resolution body type's stems are two pixels wide; so are blades of grass, so a
                // stem that thin counts only where an l or an i would stand: upright and solid,
                // from the line's baseline up to its x-height or its ascender line.
                if isBar(c) {
                    guard parameters.growThroughBars, c.minY > 0, Int(c.maxY) < bh - 1, min(cw, ch) >= 2 else { continue }
                    if min(cw, ch) < 3 {
                        let tol = max(1.5, 0.1 * t), top = Double(c.minY)
                        guard parameters.growThroughThinStems, let g = guides, cw < ch, c.fill >= 0.7, abs(Double(c.maxY) - g.base) <= tol,
                              abs(top - g.xHeight) <= tol || abs(top - g.ascender) <= tol else { continue }
                    }
                }
                guard abs(c.meanGray - b.inkGray) <= 50 else { continue }
                // A line of the inkiest-ink reading grows only by pieces as inky as its own glyphs
                // and solid enough to be letters: past the end of the text, the neighbourhood's
                // darkest ink is the drawing's outlines (picket tips, the sparse mesh of a fence).
                if b.level == 64 && (c.meanGray > b.inkGray + parameters.coreGrowthGrayMargin || c.fill < 0.12) { continue }
                pieces.append((Double(Int(c.minX) + x0), Double(Int(c.minX) + x0) + cw))
            }
        }
        addPieces(band, level)
        if parameters.inkColourDistance > 0 && b.polarity == .darkOnLight && (b.level != 64 || parameters.coreGrowth > 1) {
            addPieces(inkColourBand(b, horizontal: horizontal, x0: x0, y0: y0, bw: bw, bh: bh), 1)
        }
        var lo = aLo, hi = aHi
        var grown = true
        while grown {
            grown = false
            for p in pieces where !(p.lo >= lo && p.hi <= hi) {
                let gap = p.lo >= hi ? p.lo - hi : (p.hi <= lo ? lo - p.hi : 0)
                // Words down a column stand further apart than letters along a line (and a
                // Mongolian word's space holds punctuation too small to count).
                guard gap <= (horizontal ? 1.2 : parameters.columnGrowthGap) * t else { continue }
                lo = min(lo, p.lo)
                hi = max(hi, p.hi)
                grown = true
            }
        }
        var out = b
        out.rect = horizontal
            ? Rect(x: lo, y: b.rect.minY, width: hi - lo, height: b.rect.height)
            : Rect(x: b.rect.minX, y: lo, width: b.rect.width, height: hi - lo)
        for i in out.lines.indices {
            var r = out.lines[i].rect
            if horizontal {
                if r.minX <= aLo { r = Rect(x: lo, y: r.minY, width: r.maxX - lo, height: r.height) }
                if r.maxX >= aHi { r = Rect(x: r.minX, y: r.minY, width: hi - r.minX, height: r.height) }
            } else {
                if r.minY <= aLo { r = Rect(x: r.minX, y: lo, width: r.width, height: r.maxY - lo) }
                if r.maxY >= aHi { r = Rect(x: r.minX, y: r.minY, width: r.width, height: hi - r.minY) }
            }
            out.lines[i].rect = r
        }
        return out
    }

    /// The band of `extendLine` read by colour: set where the working pixel's mean colour lies
    /// within `inkColourDistance` (per channel) of the line's ink. Type is printed in one ink,
    /// while what it is set over differs in hue even where its grey matches: grass blades and
    /// a dark door the last word runs onto fuse with the letters by contrast but not by colour.
    private func inkColourBand(_ b: BlockCandidate, horizontal: Bool, x0: Int, y0: Int, bw: Int, bh: Int) -> [UInt8] {
        let f = factor, pw = page.width
        var out = [UInt8](repeating: 0, count: bw * bh)
        guard let m = mask(for: b) else { return out }
        page.pixels.withUnsafeBufferPointer { src in
            func mean(_ wx: Int, _ wy: Int) -> (Int, Int, Int) {
                var r = 0, g = 0, bl = 0
                for yy in 0..<f {
                    let base = (wy * f + yy) * pw + wx * f
                    for xx in 0..<f {
                        let p = src[base + xx]
                        r += Int(p.r); g += Int(p.g); bl += Int(p.b)
                    }
                }
                let n = f * f
                return (r / n, g / n, bl / n)
            }
            // The ink: the inkier half of the line's own mask pixels.
            var sr = 0, sg = 0, sb = 0, n = 0
            let level = b.level
            let ys = max(0, Int(b.rect.minY)), ye = max(ys, min(height, Int(b.rect.maxY) + 1))
            let xs = max(0, Int(b.rect.minX)), xe = max(xs, min(width, Int(b.rect.maxX) + 1))
            for wy in ys..<ye {
                for wx in xs..<xe {
                    let i = wy * width + wx
                    guard m[i] & level != 0, Double(gray[i]) <= b.inkGray else { continue }
                    let (r, g, bl) = mean(wx, wy)
                    sr += r; sg += g; sb += bl; n += 1
                }
            }
            guard n >= 8 else { return }
            let ink = (sr / n, sg / n, sb / n)
            let d = parameters.inkColourDistance
            for y in 0..<bh {
                for x in 0..<bw {
                    let (wx, wy) = horizontal ? (x + x0, y + y0) : (y + y0, x + x0)
                    let (r, g, bl) = mean(wx, wy)
                    if abs(r - ink.0) <= d && abs(g - ink.1) <= d && abs(bl - ink.2) <= d { out[y * bw + x] = 1 }
                }
            }
        }
        return out
    }

    /// `extendLine` for each line of a block of several: over a drawing the words of any line,
    /// not just a lone one, can be fused with the art beside them.
    func extendEachLine(_ b: BlockCandidate) -> BlockCandidate {
        guard b.lines.count >= 2 else { return b }
        var out = b
        for i in b.lines.indices {
            var one = b
            one.rect = b.lines[i].rect
            // The block's glyph size, not the line's: the largest line of a title (Three Little
            // Pigs' "THREE LITTLE", 24 px against the block's 18) would otherwise reach across a
            // gap of 1.2 of its own size into the drawing beside it.
            one.size = min(b.size, b.lines[i].thickness)
            one.lines = [b.lines[i]]
            let grown = extendLine(one)
            out.lines[i].rect = grown.rect
            out.rect = out.rect.union(grown.rect)
        }
        return out
    }

    /// Adds the punctuation at the ends of a block's lines. A full stop, a comma, 。 and 、, the
    /// dots of Mongolian ᠃ or an opening quote are far smaller than the letters, so no glyph
    /// test takes them and no line grows by them; a box that stops at the last letter leaves
    /// the mark on the cleared page, where a lone dot is plain to see. Beyond each end of each
    /// line, within about a glyph gap, a small mark of the line's reading and ink that lies
    /// inside the line's band (it does not reach the band's edge, as art crossing it does) is
    /// taken into the line and the block; a second or third mark may follow it (an ellipsis,
    /// "?!", the two dots of ᠃).
    func addLineEndMarks(_ b: BlockCandidate) -> BlockCandidate {
        guard parameters.lineEndMarkGap > 0, let m = mask(for: b), !b.lines.isEmpty else { return b }
        let horizontal = b.orientation == .horizontal
        let (alongSize, acrossSize) = horizontal ? (width, height) : (height, width)
        var out = b
        for li in b.lines.indices {
            let l = b.lines[li]
            let t = min(b.size, l.thickness)
            guard t >= 3 else { continue }
            let r = l.rect
            var (lo, hi) = horizontal ? (r.minX, r.maxX) : (r.minY, r.maxY)
            let (cLo, cHi) = horizontal ? (r.minY, r.maxY) : (r.minX, r.maxX)
            let reach = (parameters.lineEndMarkGap + 1.5) * t
            // Band coordinates: x along the line, y across it, as in `extendLine`.
            let y0 = max(0, Int(cLo - 0.3 * t)), y1 = min(acrossSize, Int((cHi + 0.3 * t).rounded(.up)) + 1)
            let x0 = max(0, Int(lo - reach)), x1 = min(alongSize, Int((hi + reach).rounded(.up)) + 1)
            let bw = x1 - x0, bh = y1 - y0
            guard bw > 0, bh > 2 else { continue }
            var band = [UInt8](repeating: 0, count: bw * bh), bandGray = [UInt8](repeating: 0, count: bw * bh)
            for y in 0..<bh {
                for x in 0..<bw {
                    let i = horizontal ? (y + y0) * width + x + x0 : (x + x0) * width + y + y0
                    band[y * bw + x] = m[i]
                    bandGray[y * bw + x] = gray[i]
                }
            }
            let labeling = band.withUnsafeBufferPointer { mb in
                bandGray.withUnsafeBufferPointer { gb in ComponentLabeler.label(mask: mb, atLeast: b.level, gray: gb, width: bw, height: bh) }
            }
            // Marks: smaller than the line's letters, yet not specks, wholly inside the band, and
            // about as inky as the letters (small marks come out a little paler at working
            // resolution, their edges mixed with the ground).
            let marks = labeling.components.compactMap { c -> (lo: Double, hi: Double, across: (Double, Double))? in
                let cw = Double(c.width), ch = Double(c.height)
                guard c.minY > 0, Int(c.maxY) < bh - 1, max(cw, ch) <= parameters.lineEndMarkSize * t,
                      max(cw, ch) >= max(2, 0.15 * t), min(cw, ch) >= 2, max(cw, ch) <= 2.5 * min(cw, ch), c.fill >= 0.4,
                      abs(c.meanGray - l.gray) <= parameters.lineEndMarkGrayDifference else { return nil }
                let a = Double(Int(c.minX) + x0)
                return (a, a + cw, (Double(Int(c.minY) + y0), Double(Int(c.minY) + y0) + ch))
            }
            guard !marks.isEmpty else { continue }
            // Only the marks widen the block: a line may reach beyond its block's box (the
            // narrow part of a paragraph cut at a drawing's gutter keeps its lines whole).
            var box = r, added: Rect?
            for side in [-1.0, 1.0] {
                for k in 0..<3 {
                    // Marks that follow a first one are set close to it (an ellipsis, ᠃'s dots).
                    let allowed = (k == 0 ? parameters.lineEndMarkGap : parameters.lineEndMarkFollowGap) * t
                    let next = marks.filter { mk in
                        let gap = side > 0 ? mk.lo - hi : lo - mk.hi
                        return gap >= -0.1 * t && gap <= allowed && (side > 0 ? mk.hi > hi : mk.lo < lo)
                    }.min { side > 0 ? $0.lo < $1.lo : $0.hi > $1.hi }
                    guard let mk = next else { break }
                    if side > 0 { hi = max(hi, mk.hi) } else { lo = min(lo, mk.lo) }
                    let markRect = horizontal
                        ? Rect(x: mk.lo, y: mk.across.0, width: mk.hi - mk.lo, height: mk.across.1 - mk.across.0)
                        : Rect(x: mk.across.0, y: mk.lo, width: mk.across.1 - mk.across.0, height: mk.hi - mk.lo)
                    box = box.union(markRect)
                    added = added?.union(markRect) ?? markRect
                }
            }
            guard let added else { continue }
            out.lines[li].rect = box
            out.rect = out.rect.union(added)
        }
        return out
    }

    /// Adds the short columns beside a vertical block. Vertical text is set in top-aligned
    /// columns, and the last one is often a word or two — one glyph, or two with a full stop
    /// too small to count — which no chain of glyphs finds on its own. Beside a found column, a
    /// run of glyph-sized pieces of the same grey that starts at the block's top, a column gap
    /// away, is that short column.
    func addShortColumns(_ b: BlockCandidate) -> BlockCandidate {
        let t = b.size
        guard b.orientation == .vertical, t >= 3, let m = masks[b.polarity] else { return b }
        var rect = b.rect
        var added: [LineSummary] = []
        for _ in 0..<3 {
            var grew = false
            for side in [-1.0, 1.0] {
                let reach = (parameters.lineGap + 1.6) * t
                let x0 = side < 0 ? max(0, Int(rect.minX - reach)) : min(width, Int(rect.maxX) + 1)
                let x1 = side < 0 ? max(0, Int(rect.minX)) : min(width, Int(rect.maxX + reach) + 1)
                let y0 = max(0, Int(rect.minY - 0.5 * t)), y1 = min(height, Int(rect.maxY) + 1)
                let rw = x1 - x0, rh = y1 - y0
                guard rw > 2, rh > 2 else { continue }
                var region = [UInt8](repeating: 0, count: rw * rh), regionGray = [UInt8](repeating: 0, count: rw * rh)
                for y in 0..<rh {
                    for x in 0..<rw {
                        region[y * rw + x] = m[(y + y0) * width + x + x0]
                        regionGray[y * rw + x] = gray[(y + y0) * width + x + x0]
                    }
                }
                let labeling = region.withUnsafeBufferPointer { mb in
                    regionGray.withUnsafeBufferPointer { gb in ComponentLabeler.label(mask: mb, atLeast: b.level, gray: gb, width: rw, height: rh) }
                }
                var pieces: [Rect] = []
                for c in labeling.components {
                    let cw = Double(c.width), ch = Double(c.height)
                    // Pieces cut by the region's sides belong to whatever lies beyond it.
                    if c.minX == 0 || Int(c.maxX) == rw - 1 || c.minY == 0 { continue }
                    // CJK characters come apart into radicals, so pieces may be narrower than
                    // the column; the column they add up to must not.
                    guard cw >= 0.2 * t, cw <= 1.6 * t, ch >= 0.2 * t, ch <= 6 * t, c.area >= 8, min(cw, ch) >= 3 else { continue }
                    guard abs(c.meanGray - b.inkGray) <= 50 else { continue }
                    pieces.append(Rect(x: Double(Int(c.minX) + x0), y: Double(Int(c.minY) + y0), width: cw, height: ch))
                }
                pieces.sort { $0.minY < $1.minY }
                guard let top = pieces.first, top.minY <= rect.minY + t else { continue }
                var column = top
                for p in pieces.dropFirst() {
                    let overlap = min(p.maxX, column.maxX) - max(p.minX, column.minX)
                    guard overlap >= -0.3 * t, p.minY - column.maxY <= 1.2 * t, column.union(p).width <= 1.6 * t else { continue }
                    column = column.union(p)
                }
                let gap = side < 0 ? rect.minX - column.maxX : column.minX - rect.maxX
                guard gap <= parameters.lineGap * t, column.width >= 0.5 * t, column.height >= 0.6 * t else { continue }
                rect = rect.union(column)
                added.append(LineSummary(rect: column, thickness: column.width, gray: b.inkGray, stroke: b.lines.first?.stroke ?? 1, glyphs: 1, holed: 1))
                grew = true
            }
            if !grew { break }
        }
        var out = b
        out.rect = rect
        out.lines += added
        return out
    }

    /// Full-resolution box, ink mask and colours of a block; nil when no ink is found there.
    func refine(_ b: BlockCandidate, flatGround: Bool = false, into inkMask: inout Bitmap<UInt8>) -> DetectedBlock? {
        let f = factor, W = page.width, H = page.height
        guard let m = mask(for: b) else { return nil }
        // The reading a block was found in can hold only part of its letters: the line-art-free
        // readings drop every long thin stroke, and Mongolian's stem is one; the inkiest-ink
        // reading keeps only cores. On a flat ground (sky, paper, a panel) nothing but the type
        // is ink in any reading, so the mask starts from all of them there. Over a drawing the
        // other readings bring its outlines back along the letters (they are what the block's
        // own reading left out), so there it keeps to its own.
        let near: [UInt8]
        if b.level == 128 {
            near = dilated(colourLetters(b, layer: m), level: 128)
        } else {
            let levels: UInt8 = flatGround ? 0xFF : b.level
            let key = (b.polarity == .darkOnLight ? 0 : 1000) + Int(levels)
            near = nearCache[key] ?? dilated(m, level: levels)
            nearCache[key] = near
        }
        let pad = 2 * f + 2
        let x0 = max(0, Int(b.rect.minX) * f - pad), y0 = max(0, Int(b.rect.minY) * f - pad)
        let x1 = min(W, Int(b.rect.maxX) * f + pad), y1 = min(H, Int(b.rect.maxY) * f + pad)
        guard x1 > x0, y1 > y0 else { return nil }
        let dark = b.polarity == .darkOnLight

        // Background level: the paper side of the block's grey distribution at working res.
        var hist = [Int](repeating: 0, count: 256)
        let wx0 = x0 / f, wx1 = min(width, (x1 + f - 1) / f), wy0 = y0 / f, wy1 = min(height, (y1 + f - 1) / f)
        var total = 0
        for y in wy0..<wy1 { for x in wx0..<wx1 where m[y * width + x] == 0 { hist[Int(gray[y * width + x])] += 1; total += 1 } }
        guard total > 0 else { return nil }
        var acc = 0, median = 128
        for v in 0..<256 { acc += hist[v]; if acc * 2 >= total { median = v; break } }
        let bg = Double(median), ink = b.inkGray
        guard abs(bg - ink) >= 8 else { return nil }
        // Ink wherever at least ~30% of the way from paper to ink: keeps the anti-aliased edge.
        let t = ink + 0.7 * (bg - ink)

        // Only ink in the bands of the block's own lines is text. A block's box also holds
        // whatever lies between and beside its lines, and over a drawing that is the drawing's
        // outlines (two paragraphs either side of a cat, a fence under the last line): taken into
        // the mask, ClearText would erase them. The pad keeps dots, accents and Arabic's
        // diacritics that sit off the line's glyphs. Along the line the band reaches on through
        // any ink in the block's box up to a gap wider than `lineBandGap` glyph sizes: a line is
        // often found from its darkest words only (old letterpress prints unevenly), and the
        // paler words at its ends belong to it all the same, while the white gutter between a
        // column and a drawing beside it is wider than a word space.
        let bw = wx1 - wx0, bh = wy1 - wy0
        var inBand = [Bool](repeating: b.lines.isEmpty || parameters.lineBandPad < 0, count: bw * bh)
        if !b.lines.isEmpty && parameters.lineBandPad >= 0 {
            let horizontal = b.orientation == .horizontal
            for l in b.lines {
                let pad = max(1, parameters.lineBandPad * l.thickness)
                let r = l.rect.insetBy(dx: -pad, dy: -pad)
                let xs = max(wx0, Int(r.minX.rounded(.down))), xe = min(wx1, Int(r.maxX.rounded(.up)) + 1)
                let ys = max(wy0, Int(r.minY.rounded(.down))), ye = min(wy1, Int(r.maxY.rounded(.up)) + 1)
                guard xe > xs, ye > ys else { continue }
                for y in ys..<ye { for x in xs..<xe { inBand[(y - wy0) * bw + x - wx0] = true } }
                guard parameters.lineBandGap > 0 else { continue }
                // The reach along the line: ink looked for in the line's own rows (columns), not
                // the padded band, which reaches the ascenders of the next line; and the band
                // there is only a quarter of a glyph size wider than the line, so that the tops
                // of the next line's capitals are not taken with the paler words.
                let gap = max(2, Int((parameters.lineBandGap * l.thickness).rounded()))
                let own = l.rect, slim = max(1, 0.25 * l.thickness)
                if horizontal {
                    let rows = max(wy0, Int(own.minY))..<min(wy1, Int(own.maxY.rounded(.up)))
                    let (lo, hi) = inkRun(from: xs, to: xe, within: wx0..<wx1, gap: gap) { x in
                        rows.contains { y in m[y * self.width + x] != 0 }
                    }
                    let sy = max(wy0, Int((own.minY - slim).rounded(.down))), ey = min(wy1, Int((own.maxY + slim).rounded(.up)) + 1)
                    for y in sy..<max(sy, ey) {
                        for x in lo..<xs { inBand[(y - wy0) * bw + x - wx0] = true }
                        for x in xe..<max(xe, hi) { inBand[(y - wy0) * bw + x - wx0] = true }
                    }
                } else {
                    let columns = max(wx0, Int(own.minX))..<min(wx1, Int(own.maxX.rounded(.up)))
                    let (lo, hi) = inkRun(from: ys, to: ye, within: wy0..<wy1, gap: gap) { y in
                        columns.contains { x in m[y * self.width + x] != 0 }
                    }
                    let sx = max(wx0, Int((own.minX - slim).rounded(.down))), ex = min(wx1, Int((own.maxX + slim).rounded(.up)) + 1)
                    for x in sx..<max(sx, ex) {
                        for y in lo..<ys { inBand[(y - wy0) * bw + x - wx0] = true }
                        for y in ye..<max(ye, hi) { inBand[(y - wy0) * bw + x - wx0] = true }
                    }
                }
            }
        }

        // The candidate ink at full resolution, in the block's area.
        let aw = x1 - x0, ah = y1 - y0
        var cand = [UInt8](repeating: 0, count: aw * ah)
        var lum = [UInt8](repeating: 0, count: aw * ah)
        var bgSum = (0, 0, 0, 0)
        page.pixels.withUnsafeBufferPointer { src in
            for y in y0..<y1 {
                let wy = min(height - 1, y / f), nearRow = wy * width
                let bandRow = (min(wy, wy1 - 1) - wy0) * bw
                for x in x0..<x1 {
                    let p = src[y * W + x]
                    let gi = (54 * Int(p.r) + 183 * Int(p.g) + 19 * Int(p.b)) >> 8
                    let g = Double(gi)
                    let wx = min(width - 1, x / f)
                    let isNear = near[nearRow + wx] != 0
                    let i = (y - y0) * aw + x - x0
                    lum[i] = UInt8(gi)
                    if (dark ? g <= t : g >= t) && isNear && inBand[bandRow + min(wx, wx1 - 1) - wx0] {
                        cand[i] = 1
                    } else if !isNear {
                        bgSum.0 += Int(p.r); bgSum.1 += Int(p.g); bgSum.2 += Int(p.b); bgSum.3 += 1
                    }
                }
            }
        }

        let labeling = cand.withUnsafeBufferPointer { mb in
            lum.withUnsafeBufferPointer { gb in ComponentLabeler.label(mask: mb, atLeast: 1, gray: gb, width: aw, height: ah) }
        }
        // The lines' own bands, tight, at full resolution: where a piece far taller than a
        // glyph (a letter fused with an outline that runs on across the drawing) may keep ink.
        var tight = [Bool](repeating: b.lines.isEmpty, count: aw * ah)
        for l in b.lines {
            let pad = 0.25 * l.thickness
            let r = l.rect.insetBy(dx: -pad, dy: -pad)
            let xs = max(x0, Int(r.minX * Double(f))), xe = min(x1, Int((r.maxX * Double(f)).rounded(.up)) + f)
            let ys = max(y0, Int(r.minY * Double(f))), ye = min(y1, Int((r.maxY * Double(f)).rounded(.up)) + f)
            guard xe > xs, ye > ys else { continue }
            for y in ys..<ye { for x in xs..<xe { tight[(y - y0) * aw + x - x0] = true } }
        }
        let keep = page.pixels.withUnsafeBufferPointer { src in
            textColoured(labeling, src: src, origin: (x0, y0), size: (aw, ah), lum: lum, core: ink + 0.35 * (bg - ink), dark: dark,
                         glyphSize: b.size * Double(f), horizontal: b.orientation == .horizontal, tight: tight)
        }

        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        var inkSum = (0, 0, 0, 0)
        let core = ink + 0.35 * (bg - ink)
        page.pixels.withUnsafeBufferPointer { src in
            inkMask.pixels.withUnsafeMutableBufferPointer { dst in
                for y in y0..<y1 {
                    for x in x0..<x1 where keep[(y - y0) * aw + x - x0] {
                        dst[y * W + x] = 255
                        minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                        let g = Double(lum[(y - y0) * aw + x - x0])
                        if dark ? g <= core : g >= core {
                            let p = src[y * W + x]
                            inkSum.0 += Int(p.r); inkSum.1 += Int(p.g); inkSum.2 += Int(p.b); inkSum.3 += 1
                        }
                    }
                }
            }
        }
        guard maxX >= minX, maxY >= minY else { return nil }
        func mean(_ s: (Int, Int, Int, Int), _ fallback: Double) -> RGBA8 {
            guard s.3 > 0 else { return RGBA8(gray: UInt8(max(0, min(255, fallback)))) }
            return RGBA8(r: UInt8(s.0 / s.3), g: UInt8(s.1 / s.3), b: UInt8(s.2 / s.3))
        }
        return DetectedBlock(
            rect: PixelRect(x: minX, y: minY, width: maxX - minX + 1, height: maxY - minY + 1),
            orientation: b.orientation, polarity: b.polarity, inkColor: mean(inkSum, ink), backgroundColor: mean(bgSum, bg),
            confidence: b.confidence, role: .body, order: 0)
    }

    /// `start..<end` grown both ways inside `bounds` for as long as `inked` finds ink with gaps
    /// of at most `gap` positions: the grown ends are the last inked positions before a wider gap.
    private func inkRun(from start: Int, to end: Int, within bounds: Range<Int>, gap: Int, inked: (Int) -> Bool) -> (Int, Int) {
        var lo = start, hi = end
        var blank = 0, i = end
        while i < bounds.upperBound && blank <= gap {
            if inked(i) { hi = i + 1; blank = 0 } else { blank += 1 }
            i += 1
        }
        blank = 0; i = start - 1
        while i >= bounds.lowerBound && blank <= gap {
            if inked(i) { lo = i; blank = 0 } else { blank += 1 }
            i -= 1
        }
        return (lo, hi)
    }

    /// The letters of a colour reading's block in its colour layer. Over a drawing the layer also
    /// holds the drawing's strokes in the type's own colour — grass blades in the green of the
    /// words — which cross the lines and stand between them; colour cannot tell them from the
    /// letters, but where they lie can. Each line's type band runs from its ascender line to its
    /// descender line: the baseline, x-height and ascender line are read from its letters (the
    /// layer's pieces inside the line, at least half a glyph tall, not bars), the descent taken
    /// as 0.6 of the x-height. Of the layer's pieces, one that reaches beyond the type band keeps
    /// only what lies inside it, and nothing when that part is a single stroke (on average no
    /// wider than `colourStrokeWidth` working pixels): a blade crossing the line, not a letter a
    /// blade runs through.
    private func colourLetters(_ b: BlockCandidate, layer m: [UInt8]) -> [UInt8] {
        let w = width, h = height
        var out = [UInt8](repeating: 0, count: w * h)
        let reach = Int((max(1, parameters.lineBandPad) * b.size).rounded(.up)) + 2
        let x0 = max(0, Int(b.rect.minX) - reach), x1 = min(w, Int(b.rect.maxX.rounded(.up)) + reach + 1)
        let y0 = max(0, Int(b.rect.minY) - reach), y1 = min(h, Int(b.rect.maxY.rounded(.up)) + reach + 1)
        let rw = x1 - x0, rh = y1 - y0
        guard rw > 0, rh > 0 else { return out }
        var region = [UInt8](repeating: 0, count: rw * rh), regionGray = region
        for y in 0..<rh {
            for x in 0..<rw {
                region[y * rw + x] = m[(y + y0) * w + x + x0]
                regionGray[y * rw + x] = gray[(y + y0) * w + x + x0]
            }
        }
        let labeling = region.withUnsafeBufferPointer { mb in
            regionGray.withUnsafeBufferPointer { gb in ComponentLabeler.label(mask: mb, atLeast: 128, gray: gb, width: rw, height: rh) }
        }
        let comps = labeling.components
        func isBar(_ c: Component) -> Bool {
            Double(min(c.width, c.height)) < (c.strokeWidth < 2.5 ? 3 : parameters.barFactor * c.strokeWidth + 1)
        }
        // Type bands (region rows).
        var inBand = [Bool](repeating: false, count: rh)
        for l in b.lines {
            let t = l.thickness, pad = 0.25 * t, tol = max(1.5, 0.1 * t)
            var (lo, hi) = (l.rect.minY - pad, l.rect.maxY + pad)
            let letters = comps.filter { c in
                let cx0 = Double(Int(c.minX) + x0), cx1 = Double(Int(c.maxX) + x0), cy0 = Double(Int(c.minY) + y0), cy1 = Double(Int(c.maxY) + y0)
                return cx0 >= l.rect.minX - 1 && cx1 <= l.rect.maxX + 1 && cy0 >= lo && cy1 <= hi && Double(c.height) >= 0.5 * t && !isBar(c)
            }
            if b.orientation == .horizontal && letters.count >= 3 {
                let base = median(letters.map { Double(Int($0.maxY) + y0) })
                let tops = letters.map { Double(Int($0.minY) + y0) }.sorted()
                let xHeight = median(tops), ascender = tops[tops.count / 10]
                lo = max(lo, ascender - tol)
                hi = min(hi, base + 0.6 * max(0, base - xHeight) + tol)
            }
            for y in max(0, Int(lo.rounded(.down)) - y0)..<max(0, min(rh, Int(hi.rounded(.up)) - y0 + 1)) { inBand[y] = true }
        }
        if b.orientation != .horizontal || b.lines.isEmpty { inBand = [Bool](repeating: true, count: rh) }
        // Per piece: its pixels and rows in the bands, and whether it reaches outside them.
        var inside = [Int](repeating: 0, count: comps.count), rows = [Int](repeating: 0, count: comps.count)
        var lastRow = [Int](repeating: -1, count: comps.count), outside = [Bool](repeating: false, count: comps.count)
        for run in labeling.runs {
            let c = Int(run.component), y = Int(run.y)
            guard inBand[y] else { outside[c] = true; continue }
            inside[c] += Int(run.x1 - run.x0) + 1
            if lastRow[c] != y { rows[c] += 1; lastRow[c] = y }
        }
        let stroke = parameters.colourStrokeWidth
        let keep = comps.indices.map { i in inside[i] > 0 && (!outside[i] || Double(inside[i]) > stroke * Double(rows[i])) }
        for run in labeling.runs where keep[Int(run.component)] && inBand[Int(run.y)] {
            let y = Int(run.y)
            for x in Int(run.x0)...Int(run.x1) { out[(y + y0) * w + x + x0] = 128 }
        }
        return out
    }

    /// Which candidate ink pixels of a block are its type, by colour.
    ///
    /// Drawn outlines cross the lines' bands too (picket tips under a line, a cat's ear beside
    /// a word), as dark as the type and often as thick, but type is printed in one ink and the
    /// drawing's lines mostly are not. The ink is the colour of the block's glyph-sized pieces;
    /// a piece of another colour is drawing and left out, and a piece in which a letter is fused
    /// with drawn lines keeps just its ink-coloured pixels and their anti-aliased fringe. When
    /// the glyph-sized pieces themselves disagree (a title set in several colours) nothing is
    /// left out.
    private func textColoured(
        _ labeling: ComponentLabeling, src: UnsafeBufferPointer<RGBA8>, origin: (Int, Int), size: (Int, Int),
        lum: [UInt8], core: Double, dark: Bool, glyphSize: Double, horizontal: Bool, tight: [Bool]
    ) -> [Bool] {
        let (x0, y0) = origin, (aw, ah) = size, W = page.width
        let comps = labeling.components
        var keep = [Bool](repeating: false, count: aw * ah)
        func markAll() { for run in labeling.runs { for x in Int(run.x0)...Int(run.x1) { keep[Int(run.y) * aw + x] = true } } }
        let spread = parameters.inkColourSpread
        guard spread > 0 else { markAll(); return keep }
        func isCore(_ i: Int) -> Bool { dark ? Double(lum[i]) <= core : Double(lum[i]) >= core }

        // Mean colour of each piece's core: its edges blend with what surrounds it.
        var sums = [(Int, Int, Int, Int)](repeating: (0, 0, 0, 0), count: comps.count)
        for run in labeling.runs {
            let c = Int(run.component), y = Int(run.y)
            for x in Int(run.x0)...Int(run.x1) where isCore(y * aw + x) {
                let p = src[(y + y0) * W + x + x0]
                sums[c].0 += Int(p.r); sums[c].1 += Int(p.g); sums[c].2 += Int(p.b); sums[c].3 += 1
            }
        }
        var glyphs: [(r: Int, g: Int, b: Int, n: Int)] = []
        for (c, s) in zip(comps, sums) where s.3 >= 8 {
            guard Double(c.height) <= 1.6 * glyphSize, Double(c.width) <= 2.5 * glyphSize else { continue }
            glyphs.append((s.0 / s.3, s.1 / s.3, s.2 / s.3, s.3))
        }
        let total = glyphs.reduce(0) { $0 + $1.n }
        guard total > 0 else { markAll(); return keep }
        // The inks: the densest colours among glyph-sized pieces, weighted by core area, that
        // hold a fair share of them. Letters cluster tightly; the drawing's pieces that pass
        // for glyphs (picket tips, ears) are scattered over its colours.
        let radius = max(8, spread / 2)
        var inks: [(Int, Int, Int)] = []
        var rest = glyphs
        while !rest.isEmpty {
            var best = (n: -1, r: 0, g: 0, b: 0)
            for a in rest {
                var n = 0, r = 0, g = 0, bl = 0
                for o in rest where max(abs(o.r - a.r), abs(o.g - a.g), abs(o.b - a.b)) <= radius {
                    n += o.n; r += o.r * o.n; g += o.g * o.n; bl += o.b * o.n
                }
                if n > best.n { best = (n, r / n, g / n, bl / n) }
            }
            guard Double(best.n) >= parameters.inkClusterShare * Double(total) else { break }
            inks.append((best.r, best.g, best.b))
            rest.removeAll { max(abs($0.r - best.r), abs($0.g - best.g), abs($0.b - best.b)) <= spread }
        }
        func near(_ r: Int, _ g: Int, _ b: Int) -> Bool {
            inks.contains { max(abs(r - $0.0), abs(g - $0.1), abs(b - $0.2)) <= spread }
        }
        // Letters in many colours (a rainbow title) make no colour common enough: then the
        // colours say nothing and every piece stays.
        let covered = glyphs.reduce(0) { $0 + (near($1.r, $1.g, $1.b) ? $1.n : 0) }
        guard Double(covered) >= 0.4 * Double(total) else { markAll(); return keep }

        var whole = [Bool](repeating: false, count: comps.count)
        var oversized = [Bool](repeating: false, count: comps.count)
        for (c, s) in sums.enumerated() {
            oversized[c] = Double(horizontal ? comps[c].height : comps[c].width) > 2.2 * glyphSize
            whole[c] = !oversized[c] && (s.3 < 8 || near(s.0 / s.3, s.1 / s.3, s.2 / s.3))
        }
        // Seeds: every pixel of an ink-coloured piece, and the ink-coloured core pixels of the others…
        var seeds: [Int] = []
        for run in labeling.runs {
            let y = Int(run.y)
            for x in Int(run.x0)...Int(run.x1) {
                let i = y * aw + x
                if whole[Int(run.component)] {
                    keep[i] = true
                } else if isCore(i) && (!oversized[Int(run.component)] || tight[i]) {
                    let p = src[(y + y0) * W + x + x0]
                    if near(Int(p.r), Int(p.g), Int(p.b)) { keep[i] = true; seeds.append(i) }
                }
            }
        }
        guard !seeds.isEmpty else { return keep }
        // …grown through their piece by the fringe the threshold took around them.
        var cand = [Bool](repeating: false, count: aw * ah)
        for run in labeling.runs where !whole[Int(run.component)] { for x in Int(run.x0)...Int(run.x1) { cand[Int(run.y) * aw + x] = true } }
        var frontier = seeds
        for _ in 0..<2 {
            var next: [Int] = []
            for i in frontier {
                let x = i % aw, y = i / aw
                for (dx, dy) in [(-1, 0), (1, 0), (0, -1), (0, 1)] {
                    let nx = x + dx, ny = y + dy
                    guard nx >= 0, ny >= 0, nx < aw, ny < ah else { continue }
                    let j = ny * aw + nx
                    if cand[j] && !keep[j] { keep[j] = true; next.append(j) }
                }
            }
            frontier = next
        }
        return keep
    }
}

/// Runs `body` over disjoint row ranges of `0..<rows` on all cores.
func concurrentRows(_ rows: Int, _ body: (Range<Int>) -> Void) {
    let chunks = min(rows, 8)
    guard chunks > 1 else { body(0..<rows); return }
    // Dispatch wants a Sendable closure; `body` only writes rows of its own range and does not
    // outlive this call.
    withoutActuallyEscaping(body) { body in
        nonisolated(unsafe) let body = body
        DispatchQueue.concurrentPerform(iterations: chunks) { i in
            body(rows * i / chunks..<rows * (i + 1) / chunks)
        }
    }
}
