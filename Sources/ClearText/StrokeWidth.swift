// How thick the box's strokes are, so the closing that estimates the background is wider than them.
//
// The closing (opening for light ink) only removes dark marks narrower than its window. The window
// was a fifth of the box's short side, which assumes a stroke under a fifth of the line: true of
// book type, not of bold display type — the stems of a bold "Wait for me!" in a 58-px box are
// 12 px and the window was 11, so the middle of every stem stayed "background" and was never
// masked (the fill left bars of the letters standing). Here the strokes are measured: the box is
// split at its Otsu threshold, and every dark pixel's stroke width is the shorter of the
// horizontal and vertical dark runs through it (a vertical stem's width, a horizontal bar's
// height; about 1.4 × the width on a diagonal). Runs that reach the box's edge are not counted:
// they are art running through the box, or letters the box cut, and neither says how thick the
// type is.
extension InkMask {
    /// The upper quartile of the stroke widths of the dark side of `box` (dark ink: `luma` already
    /// inverted for light ink), px; 0 when fewer than 16 pixels can be measured.
    static func strokeWidth(luma: [UInt8], width w: Int, height h: Int) -> Int {
        guard w > 2, h > 2 else { return 0 }
        var hist = [Int](repeating: 0, count: 256)
        for v in luma { hist[Int(v)] += 1 }
        let threshold = otsuThreshold(hist)
        let dark = luma.map { Int($0) < threshold }
        // Run lengths through each dark pixel, 0 where the run touches the edge: along the rows,
        // then down the columns.
        let across = runLengths(dark, lines: h, length: w) { line, at in line * w + at }
        let down = runLengths(dark, lines: w, length: h) { line, at in at * w + line }
        var widths: [Int32] = []
        for i in dark.indices where across[i] > 0 && down[i] > 0 { widths.append(min(across[i], down[i])) }
        guard widths.count >= 16 else { return 0 }
        widths.sort()
        return Int(widths[3 * widths.count / 4])
    }

    /// For each pixel of `lines` lines of `length` pixels (`index(line, position)` its place in
    /// `dark`), the length of the dark run through it; 0 off the dark side and for runs that
    /// touch either end of their line.
    private static func runLengths(_ dark: [Bool], lines: Int, length: Int, index: (Int, Int) -> Int) -> [Int32] {
        var out = [Int32](repeating: 0, count: dark.count)
        for line in 0..<lines {
            var at = 0
            while at < length {
                guard dark[index(line, at)] else { at += 1; continue }
                var end = at
                while end < length && dark[index(line, end)] { end += 1 }
                let run = at == 0 || end == length ? 0 : Int32(end - at)
                for p in at..<end { out[index(line, p)] = run }
                at = end
            }
        }
        return out
    }
}
