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
    /// Printed text is one ink: candidates whose colour is further than this (sum of channel
    /// differences) from the block's ink colour are art, unless they lie within three pixels of
    /// ink that is (its anti-aliased fringe and thin strokes the scan blur lightened).
    /// 0 turns the test off.
    public var inkColourTolerance: Int = 28
    /// The colour test applies only when the luma around the box spreads more than this
    /// (standard deviation, levels) — text over art, not on paper.
    public var busyBorder: Double = 15

    /// A pixel of printed text is the ink colour, or a mix of it with the background under it
    /// (anti-aliasing, scan blur, thin or faded letterpress). Candidates further than this (sum of
    /// channel differences) from the line between the two colours are art of another colour.
    /// 0 turns the test off.
    public var mixTolerance: Int = 36
    /// Over busy art, candidate marks that reach further than this beyond the grown box are art
    /// running behind the text (outlines, rails, lines) and are dropped with everything joined
    /// to them. 0 turns the test off.
    public var artReach: Int = 6

    public init() {}

    public var description: String {
        "slack=\(slack) contrast=\(minimumContrast) window=\(window.map(String.init) ?? "auto") fringe=\(fringe) colour=\(inkColourTolerance)@\(busyBorder) mix=\(mixTolerance) reach=\(artReach)"
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
        return borderSpread(page: page, box: r) > parameters.busyBorder
    }

    /// The polarity the estimate would use for `rect`.
    public static func polarity(page: Bitmap<RGBA8>, in rect: PixelRect) -> Polarity {
        guard let r = rect.intersection(page.bounds) else { return .darkOnLight }
        return decidePolarity(page: page, box: r)
    }

    static func decidePolarity(page: Bitmap<RGBA8>, box r: PixelRect) -> Polarity {
        let border = borderLuma(page: page, box: r)
        var darker = 0, lighter = 0
        let margin = 40
        page.pixels.withUnsafeBufferPointer { p in
            for y in r.minY..<r.maxY {
                for x in r.minX..<r.maxX {
                    let l = Int(p[y * page.width + x].luma)
                    if l < border - margin { darker += 1 } else if l > border + margin { lighter += 1 }
                }
            }
        }
        return lighter > darker ? .lightOnDark : .darkOnLight
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

    /// Standard deviation of the luma in a 4-px ring around the box (0 when there is none).
    static func borderSpread(page: Bitmap<RGBA8>, box r: PixelRect) -> Double {
        let ring = r.expanded(by: 4)
        var n = 0.0, sum = 0.0, sq = 0.0
        page.pixels.withUnsafeBufferPointer { p in
            for y in max(0, ring.minY)..<min(page.height, ring.maxY) {
                for x in max(0, ring.minX)..<min(page.width, ring.maxX) where !r.contains(x: x, y: y) {
                    let l = Double(p[y * page.width + x].luma)
                    n += 1; sum += l; sq += l * l
                }
            }
        }
        guard n > 0 else { return 0 }
        let mean = sum / n
        return max(0, sq / n - mean * mean).squareRoot()
    }

    struct Local {
        var rect: PixelRect
        var mask: [UInt8]
    }

    static func localEstimate(page: Bitmap<RGBA8>, in rect: PixelRect, parameters: InkMaskParameters) -> Local? {
        guard let box = rect.intersection(page.bounds),
            let r = rect.expanded(by: max(0, parameters.slack)).intersection(page.bounds)
        else { return nil }
        let polarity = decidePolarity(page: page, box: box)
        let k = parameters.window ?? min(31, max(7, min(box.width, box.height) / 5)) | 1
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
        let busy = borderSpread(page: page, box: box) > parameters.busyBorder
        if parameters.inkColourTolerance > 0, busy { keepInkColoured(&mask, departure: departure, page: page, rect: rx, tolerance: parameters.inkColourTolerance) }
        if parameters.mixTolerance > 0, busy {
            let background = backgroundColour(page: page, work: work, half: half, polarity: polarity)
            keepInkMixes(&mask, departure: departure, page: page, rect: rx, work: work, background: background, tolerance: parameters.mixTolerance)
        }
        if reachOut > 0, busy {
            dropReachingOut(&mask, rect: rx, inner: r.expanded(by: reachOut))
        }
        var cropped = [UInt8](repeating: 0, count: r.width * r.height)
        for y in 0..<r.height {
            for x in 0..<r.width { cropped[y * r.width + x] = mask[(y + r.minY - rx.minY) * xw + x + r.minX - rx.minX] }
        }
        return Local(rect: r, mask: cropped)
    }

    /// Clears every 8-connected mask component that has a pixel outside `inner`: text stays
    /// inside its box, the art's lines run on.
    static func dropReachingOut(_ mask: inout [UInt8], rect: PixelRect, inner: PixelRect) {
        let w = rect.width, h = rect.height
        var label = [Int32](repeating: -1, count: w * h)
        var stack: [Int] = [], pixels: [Int] = []
        for start in mask.indices where mask[start] != 0 && label[start] < 0 {
            label[start] = 0
            stack.append(start)
            pixels.removeAll(keepingCapacity: true)
            var out = false
            while let i = stack.popLast() {
                pixels.append(i)
                let y = i / w, x = i - y * w
                if !inner.contains(x: x + rect.minX, y: y + rect.minY) { out = true }
                for yy in max(0, y - 1)...min(h - 1, y + 1) {
                    for xx in max(0, x - 1)...min(w - 1, x + 1) {
                        let j = yy * w + xx
                        if mask[j] != 0 && label[j] < 0 { label[j] = 0; stack.append(j) }
                    }
                }
            }
            if out { for i in pixels { mask[i] = 0 } }
        }
    }

    /// Drops candidates that are not the block's ink colour — dark outlines, stripes and hatching
    /// of the art under the text — keeping those within three pixels of true-coloured ink (its
    /// anti-aliased edge and thin, blur-lightened strokes). The ink colour is the median of the
    /// strongest departures.
    static func keepInkColoured(_ mask: inout [UInt8], departure: [UInt8], page: Bitmap<RGBA8>, rect r: PixelRect, tolerance: Int) {
        let rw = r.width, rh = r.height
        let candidates = mask.indices.filter { mask[$0] != 0 }
        guard candidates.count >= 16 else { return }
        let strongest = candidates.sorted { departure[$0] > departure[$1] }.prefix(max(8, candidates.count / 4))
        func pixel(_ i: Int) -> RGBA8 { page.pixels[(r.minY + i / rw) * page.width + r.minX + i % rw] }
        func median(_ values: [UInt8]) -> Int { Int(values.sorted()[values.count / 2]) }
        let ink = (median(strongest.map { pixel($0).r }), median(strongest.map { pixel($0).g }), median(strongest.map { pixel($0).b }))
        var core = [UInt8](repeating: 0, count: rw * rh)
        for i in candidates {
            let p = pixel(i)
            if abs(Int(p.r) - ink.0) + abs(Int(p.g) - ink.1) + abs(Int(p.b) - ink.2) <= tolerance { core[i] = 1 }
        }
        let grown = dilate(core, rw, rh, 3)
        for i in candidates where grown[i] == 0 { mask[i] = 0 }
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
    static func keepInkMixes(_ mask: inout [UInt8], departure: [UInt8], page: Bitmap<RGBA8>, rect r: PixelRect, work: PixelRect, background: [[UInt8]], tolerance: Int) {
        let rw = r.width
        let candidates = mask.indices.filter { mask[$0] != 0 }
        guard candidates.count >= 16 else { return }
        let strongest = candidates.sorted { departure[$0] > departure[$1] }.prefix(max(8, candidates.count / 4))
        func pixel(_ i: Int) -> RGBA8 { page.pixels[(r.minY + i / rw) * page.width + r.minX + i % rw] }
        func median(_ values: [UInt8]) -> Float { Float(values.sorted()[values.count / 2]) }
        let ink = SIMD3<Float>(median(strongest.map { pixel($0).r }), median(strongest.map { pixel($0).g }), median(strongest.map { pixel($0).b }))
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
    static func extremum(_ a: [UInt8], _ w: Int, _ h: Int, _ half: Int, _ pick: (UInt8, UInt8) -> UInt8) -> [UInt8] {
        guard half > 0 else { return a }
        var tmp = a, out = a
        for y in 0..<h {
            for x in 0..<w {
                var v = a[y * w + x]
                for xx in max(0, x - half)...min(w - 1, x + half) { v = pick(v, a[y * w + xx]) }
                tmp[y * w + x] = v
            }
        }
        for y in 0..<h {
            for x in 0..<w {
                var v = tmp[y * w + x]
                for yy in max(0, y - half)...min(h - 1, y + half) { v = pick(v, tmp[yy * w + x]) }
                out[y * w + x] = v
            }
        }
        return out
    }

    static func dilate(_ a: [UInt8], _ w: Int, _ h: Int, _ half: Int) -> [UInt8] { extremum(a, w, h, half, max) }
    static func erode(_ a: [UInt8], _ w: Int, _ h: Int, _ half: Int) -> [UInt8] { extremum(a, w, h, half, min) }
}
