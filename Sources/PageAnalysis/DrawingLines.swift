// Lines a learned detector proposes on a drawing. The network boxes what looks like text at its
// scale — a row of grains, buttons down a gaiter, a mouth of teeth, hatching in an ear, a fist, a
// pig — and its score cannot tell those from a short word (issue 17: on the real picture books'
// text-free pages the false boxes scored 0.56–0.81, the correct ones 0.28–0.95).
//
// What does tell them apart is where the ink goes. The detector's line box is the row of glyphs
// grown by a margin (the unclip distance), so every glyph of a real line lies wholly inside it and
// ground surrounds it. The strokes of a drawing do not stop at a box the network drew: the outline
// of a hand, the rim of an ear, the seam of a gaiter run on past it. So a line whose ink mostly
// belongs to strokes that run out of its box is a piece of the drawing.
//
// Only short lines of their own are judged (one line in its block, at most `maximumLength` line
// thicknesses long). A long line, or several lines stacked as a paragraph, is evidence of text by
// its shape; lettering over hatched art does touch the art's strokes, and judging such long lines
// cost recall on the real picture books (text over Denslow's hatching) without finding more of
// the false boxes, which are short.
//
// Decided on Benchmarks/RealCorpus; confirmed on the synthetic corpora and NDL; Documentation/
// Evaluation.md has the figures.

public import Geometry
public import Raster

/// The rule that drops a short line whose ink runs out of its box.
public struct DrawingLineRule: Sendable, Hashable {
    /// Lines longer than this many thicknesses (along the line / across it) are not judged.
    public var maximumLength: Double = 4
    /// A line is drawing when at least this share of its ink belongs to strokes that run out of
    /// its box.
    public var runOutShare: Double = 0.5
    /// How far past the box a stroke must reach to run out, in line thicknesses (at least one
    /// pixel): a glyph anti-aliased into the box's last pixel does not run out, a stroke does.
    public var reach: Double = 0.05

    public init() {}

    /// The proposals that are not pieces of a drawing, in their order. `gray` is the page's
    /// grey copy (`page.grayscale()`) when the caller has one already: the analyzer needs the
    /// same copy, and making it twice costs a pass over the page.
    public func keep(_ proposals: [ProposedBlock], on page: Bitmap<RGBA8>, gray pageGray: Bitmap<UInt8>? = nil) -> [ProposedBlock] {
        var gray = pageGray
        return proposals.filter { p in
            guard p.lines.count == 1, let line = p.lines.first else { return true }
            let along = p.vertical ? line.height : line.width, across = p.vertical ? line.width : line.height
            guard across > 0, along <= maximumLength * across else { return true }
            if gray == nil { gray = page.grayscale() }
            guard let g = gray, let share = runOut(line, vertical: p.vertical, gray: g) else { return true }
            return share < runOutShare
        }
    }

    /// The share of the line's ink (the class of its box's grey levels farther from the box's
    /// border, as the glyph mask reads it) that belongs to 4-connected strokes reaching past the
    /// box by `reach` thicknesses on a side where the page goes on. Nil when the box holds no ink.
    public func runOut(_ line: Rect, vertical: Bool, gray: Bitmap<UInt8>) -> Double? {
        let W = gray.width, H = gray.height
        let x0 = max(0, Int(line.minX)), y0 = max(0, Int(line.minY))
        let x1 = min(W, Int(line.maxX.rounded(.up))), y1 = min(H, Int(line.maxY.rounded(.up)))
        guard x1 - x0 >= 3, y1 - y0 >= 3,
              let split = LineInk.split(x0: x0, y0: y0, x1: x1, y1: y1, gray: gray) else { return nil }
        let across = Double(vertical ? x1 - x0 : y1 - y0)
        let m = max(1, Int((reach * across).rounded()))
        // The window: the box and `m` pixels round it, clipped to the page.
        let wx0 = max(0, x0 - m), wy0 = max(0, y0 - m), wx1 = min(W, x1 + m), wy1 = min(H, y1 + m)
        let w = wx1 - wx0, h = wy1 - wy0
        func isInk(_ i: Int) -> Bool {
            let v = Int(gray.pixels[(wy0 + i / w) * W + wx0 + i % w])
            return split.dark ? v <= split.threshold : v > split.threshold
        }
        var seen = [Bool](repeating: false, count: w * h)
        var stack: [Int] = []
        var inkInBox = 0, runningOut = 0
        for start in 0..<(w * h) where !seen[start] && isInk(start) {
            seen[start] = true
            stack.append(start)
            var inBox = 0, out = false
            while let i = stack.popLast() {
                let x = i % w, y = i / w
                if wx0 + x >= x0 && wx0 + x < x1 && wy0 + y >= y0 && wy0 + y < y1 { inBox += 1 }
                // Reaching the window's edge where the page goes on beyond it: the ink continues.
                if (x == 0 && wx0 > 0) || (y == 0 && wy0 > 0) || (x == w - 1 && wx1 < W) || (y == h - 1 && wy1 < H) { out = true }
                for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let nx = x + dx, ny = y + dy
                    guard nx >= 0, nx < w, ny >= 0, ny < h else { continue }
                    let j = ny * w + nx
                    if !seen[j] && isInk(j) { seen[j] = true; stack.append(j) }
                }
            }
            inkInBox += inBox
            if out { runningOut += inBox }
        }
        return inkInBox > 0 ? Double(runningOut) / Double(inkInBox) : nil
    }
}
