// The run-on check: does a cleared line carry on, as text, past the end of its box?
//
// A detector's line that stops a glyph short (the flat last stroke of 第一, one hour of a dial
// whose neighbours were boxed apart) is filled to its box's edge and the rest of the word stays:
// a half word, worse for a reader than the scan. The fill check's colour reading cannot see it,
// since what is left lies outside the box; the marks it leaves are only visible beside the box.
//
// Only the ends of the box's lines are looked at (past its left and right sides for horizontal
// text, its top and bottom for vertical), within the band of its lines: what the line ran on
// into. Across the lines (above and below horizontal text) lie the neighbours a box rightly
// leaves — ruby, another block, a drawing's feathers and grass — and counted there the check
// took back two good clearings for each bad one on the picture books (Documentation/ClearText.md,
// "Marks left beside the boxes cleared"). Along the lines it took back only half words on NDL
// (the corpus it was decided on) and no box of the picture-book or generated corpora.
//
// Everything is measured in the box's own type size (the median line-wise extent of what was
// filled in it), so nothing depends on resolution or face: a mark counts when it is glyph-sized
// (0.2–1.5 type sizes), of the text's darkness (past half-way from the ground to the ink), lies
// within one type size of the box's end, outside every box, and does not run on two type sizes
// out (a rule, a frame, a drawing's stroke).

public import Geometry
public import Raster

public enum RunOnCheck {
    /// Glyph-sized marks along the ends of `box`'s lines on the cleared page, over the pixels
    /// filled in the box; nil when the box gives no reading (too little filled, or ink and
    /// ground too close). `boxes` are all the page's boxes (the box's own included): marks within
    /// 2 px of any of them are another box's business. `filled` is non-zero where the fill changed
    /// the page.
    ///
    /// The text's ink level is read from what was filled: its darkest fifth, or its brightest for
    /// light type (`lightInk`, the polarity `analyze` read for the box). The filled pixels include
    /// the halo round the glyphs, so for hairlines that fifth may still be halo and give too
    /// little contrast; then the median under `ink` (the detector's own mask of the ink) is read
    /// instead. With the polarity not known: dark, then the mask, then light.
    public static func share(
        scan: Bitmap<RGBA8>, cleared: Bitmap<RGBA8>, filled: Bitmap<UInt8>, box: PixelRect, vertical: Bool, boxes: [PixelRect],
        ink inkMask: Bitmap<UInt8>? = nil, lightInk: Bool? = nil, parameters p: FillCheckParameters = .init()
    ) -> Double? {
        precondition(scan.width == cleared.width && scan.height == cleared.height, "scan and cleared page differ in size")
        return reading(scan: scan, filled: filled, box: box, vertical: vertical, ink: inkMask, lightInk: lightInk, parameters: p)
            .flatMap { share(reading: $0, cleared: cleared, vertical: vertical, boxes: boxes) }
    }

    /// ``share(scan:cleared:filled:box:vertical:boxes:ink:lightInk:parameters:)`` from the box's reading.
    package static func share(reading r: InkReading, cleared: Bitmap<RGBA8>, vertical: Bool, boxes: [PixelRect]) -> Double? {
        let b = r.box, g = r.grid, size = r.size
        // The window: two type sizes round the box. A mark reaching its edge runs on: drawing.
        guard let win = b.expanded(by: 2 * g).intersection(cleared.bounds) else { return nil }
        let ww = win.width, wh = win.height
        let mark = r.marks(of: cleared, in: win)
        // Along the lines: past the box's ends by one type size, within its band, and farther
        // than 2 px from every box (the fill's halo, the neighbours' own text).
        let occupied = boxes.map { $0.expanded(by: 2) }
        func along(_ px: Int, _ py: Int) -> Bool {
            let inBand = vertical
                ? px >= b.minX && px < b.maxX && py >= b.minY - g && py < b.maxY + g
                : py >= b.minY && py < b.maxY && px >= b.minX - g && px < b.maxX + g
            return inBand && !occupied.contains { $0.contains(x: px, y: py) }
        }
        var marks = 0
        for part in InkMask.components(width: ww, height: wh, where: { mark[$0] }) {
            var x0 = Int.max, x1 = Int.min, y0 = Int.max, y1 = Int.min
            for i in part {
                let y = i / ww, x = i - y * ww
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
            }
            if x0 == 0 || y0 == 0 || x1 == ww - 1 || y1 == wh - 1 { continue }
            let extent = Double(max(x1 - x0 + 1, y1 - y0 + 1))
            guard extent >= 0.2 * size, extent <= 1.5 * size else { continue }
            let inside = part.reduce(0) { n, i in
                let y = i / ww, x = i - y * ww
                return n + (along(win.minX + x, win.minY + y) ? 1 : 0)
            }
            if 2 * inside >= part.count { marks += part.count }
        }
        return Double(marks) / Double(r.filledCount)
    }

    /// What a box's fill tells of its text: the type size, and the level that makes a pixel of
    /// the cleared page a mark of that text's darkness (or lightness).
    package struct InkReading {
        /// The box within the page.
        var box: PixelRect
        /// The pixels filled in the box.
        var filledCount: Int
        /// The type size: the median extent across the lines of the filled parts.
        var size: Double
        /// The type size in whole pixels, at least 2.
        var grid: Int
        /// Whether the type is lighter than its ground.
        var lightType: Bool
        /// Half-way from the ground's level to the ink's.
        var halfway: Double
        /// The letters' size as the marks are read: the median extent across the lines of the
        /// scan's marks in the box (``letterSize(scan:box:vertical:isMark:)``), else `size`. The
        /// fill's own parts are the glyphs grown by their halo and may run together into one part
        /// the height of the box (a two-line signature did: twice the letters' size).
        var letters: Double
        /// `letters` in whole pixels, at least 2.
        var letterGrid: Int { max(2, Int(letters.rounded())) }

        /// Row by row, which pixels of `image` (the scan or the cleared page) in `rect` are marks.
        func marks(of image: Bitmap<RGBA8>, in rect: PixelRect) -> [Bool] {
            var mark = [Bool](repeating: false, count: rect.width * rect.height)
            for y in 0..<rect.height {
                for x in 0..<rect.width { mark[y * rect.width + x] = isMark(image.pixels[(rect.minY + y) * image.width + rect.minX + x]) }
            }
            return mark
        }

        func isMark(_ c: RGBA8) -> Bool {
            let v = Double(luma(c))
            return lightType ? v > halfway : v < halfway
        }
    }

    /// The reading both checks beside a box start from; nil when the box gives none (too little
    /// filled, filled whole, or ink and ground too close).
    package static func reading(
        scan: Bitmap<RGBA8>, filled: Bitmap<UInt8>, box: PixelRect, vertical: Bool, ink inkMask: Bitmap<UInt8>?, lightInk: Bool?,
        parameters p: FillCheckParameters
    ) -> InkReading? {
        precondition(scan.width == filled.width && scan.height == filled.height
            && (inkMask.map { $0.width == scan.width && $0.height == scan.height } ?? true),
            "scan, cleared page, fill and ink masks differ in size")
        guard let b = box.intersection(scan.bounds), b.width > 0, b.height > 0 else { return nil }
        let w = scan.width
        let bw = b.width, bh = b.height
        var inBox = [Bool](repeating: false, count: bw * bh)
        var filledCount = 0
        var groundLevels = [Int](repeating: 0, count: 256), filledLevels = groundLevels, maskLevels = groundLevels
        var maskCount = 0
        for y in 0..<bh {
            for x in 0..<bw {
                let i = (b.minY + y) * w + b.minX + x
                let level = Int(luma(scan.pixels[i]))
                let masked = (inkMask?.pixels[i] ?? 0) != 0
                if masked { maskLevels[level] += 1; maskCount += 1 }
                if filled.pixels[i] != 0 {
                    inBox[y * bw + x] = true
                    filledCount += 1
                    filledLevels[level] += 1
                } else {
                    groundLevels[level] += 1
                }
            }
        }
        // A box filled whole has no ground of its own to read the ink against.
        guard filledCount >= p.minimumInk, filledCount < bw * bh else { return nil }
        // The type size: the median extent across the lines of the filled parts (their heights
        // for horizontal text, widths for vertical).
        var extents: [Int] = []
        for part in InkMask.components(width: bw, height: bh, where: { inBox[$0] }) {
            var lo = Int.max, hi = Int.min
            for i in part {
                let v = vertical ? i % bw : i / bw
                lo = min(lo, v); hi = max(hi, v)
            }
            extents.append(hi - lo + 1)
        }
        extents.sort()
        let size = Double(extents[extents.count / 2])
        let g = max(2, Int(size.rounded()))
        // Ground: the median level of what was not filled (a few letters the fill left count too,
        // as in the benchmark's reading: a box that is mostly ink has little ground of its own).
        let ground = Double(quantile(groundLevels, 0.5))
        // The fill's own reading first (the one the rule was decided with); where it gives too
        // little contrast (hairlines, whose filled fifth is still halo), the mask's.
        let dark = Double(quantile(filledLevels, 0.2)), light = Double(quantile(filledLevels, 0.8))
        let masked: Double? = maskCount >= p.minimumInk ? Double(quantile(maskLevels, 0.5)) : nil
        let c = p.minimumContrast
        let darkReading = ground - dark >= c ? dark : nil, lightReading = light - ground >= c ? light : nil
        let maskReading = masked.flatMap { abs($0 - ground) >= c ? $0 : nil }
        let read: Double?
        switch lightInk {
        case false?: read = darkReading ?? maskReading.flatMap { $0 < ground ? $0 : nil }
        case true?: read = lightReading ?? maskReading.flatMap { $0 > ground ? $0 : nil }
        case nil: read = darkReading ?? maskReading ?? lightReading
        }
        guard let inkLevel = read else { return nil }
        let lightType = inkLevel > ground, halfway = ground + 0.5 * (inkLevel - ground)
        let isMark = { (c: RGBA8) -> Bool in lightType ? Double(luma(c)) > halfway : Double(luma(c)) < halfway }
        return InkReading(
            box: b, filledCount: filledCount, size: size, grid: g, lightType: lightType, halfway: halfway,
            letters: letterSize(scan: scan, box: b, vertical: vertical, isMark: isMark) ?? size)
    }

    /// The median extent across the lines of the marks the scan has in `b` (at least 3 px, not
    /// touching the box's sides across the lines, where a part may be cut); nil without any.
    static func letterSize(scan: Bitmap<RGBA8>, box b: PixelRect, vertical: Bool, isMark: (RGBA8) -> Bool) -> Double? {
        let bw = b.width, bh = b.height, w = scan.width
        var mark = [Bool](repeating: false, count: bw * bh)
        for y in 0..<bh {
            for x in 0..<bw { mark[y * bw + x] = isMark(scan.pixels[(b.minY + y) * w + b.minX + x]) }
        }
        var extents: [Int] = []
        for part in InkMask.components(width: bw, height: bh, where: { mark[$0] }) {
            var lo = Int.max, hi = Int.min
            for i in part {
                let v = vertical ? i % bw : i / bw
                lo = min(lo, v); hi = max(hi, v)
            }
            let span = vertical ? bw : bh
            guard hi - lo + 1 >= 3, lo > 0, hi < span - 1 else { continue }
            extents.append(hi - lo + 1)
        }
        guard !extents.isEmpty else { return nil }
        extents.sort()
        return Double(extents[extents.count / 2])
    }

    /// ITU-R 601 luma, as the benchmark's greyscale reads it.
    static func luma(_ c: RGBA8) -> UInt8 {
        let r = 299 * Int(c.r), g = 587 * Int(c.g), b = 114 * Int(c.b)
        return UInt8((r + g + b) / 1000)
    }

    /// The level below which `q` of the counted pixels lie.
    static func quantile(_ histogram: [Int], _ q: Double) -> Int {
        let total = histogram.reduce(0, +)
        let target = max(1, Int((q * Double(total)).rounded(.up)))
        var seen = 0
        for (v, n) in histogram.enumerated() {
            seen += n
            if seen >= target { return v }
        }
        return histogram.count - 1
    }
}
