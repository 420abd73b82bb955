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
//
// A second test judges every short line of any block: a painted shape. On real colour plates the
// network also boxes whole figures (a rabbit, a cat on a basket, a duck) as lines a fifth of the
// page thick, stacked into blocks of two to four: Benchmarks/Illustrations, 29 text-free plates,
// drew 24 false lines, a dozen of them whole figures. A line at most `shapeLength` thicknesses
// long holds one or two glyphs, and a glyph is printed in one ink, so the body of its strokes
// (away from their anti-aliased rim) has one tone, whatever the face or the size. A figure
// painted in watercolour or tints does not: the tone of its body spreads over much of the ink's
// contrast with the ground. A short line whose ink runs out of its box (as above) *and* whose ink
// body is painted is dropped. Both are needed: giant display initials run out into the drawing
// they are part of (an ABC book's letters), but their ink is flat; a painted title stays inside
// its box. Decided on Benchmarks/Illustrations with RealCorpus's lines checked; HeldOut, NDL, the
// synthetic corpora and the held-out Tom Kitten plates (Benchmarks/TextFree) confirm.
//
// A block left with no line whose ink a reader could see (the glyph mask's contrast floor) is
// dropped too: what remains of a figure once its painted lines are gone is specks of its wash.

public import Geometry
public import Raster

/// The rules that drop a short line whose ink runs out of its box, or a painted shape.
public struct DrawingLineRule: Sendable, Hashable {
    /// Lines longer than this many thicknesses (along the line / across it) are not judged.
    public var maximumLength: Double = 4
    /// A line is drawing when at least this share of its ink belongs to strokes that run out of
    /// its box.
    public var runOutShare: Double = 0.5
    /// How far past the box a stroke must reach to run out, in line thicknesses (at least one
    /// pixel): a glyph anti-aliased into the box's last pixel does not run out, a stroke does.
    public var reach: Double = 0.05
    /// Lines at most this many thicknesses long are judged for a painted shape (one or two
    /// glyphs: a longer line is a row of glyphs, evidence of text by its shape).
    public var shapeLength: Double = 2.5
    /// A line's ink body is painted when the interquartile range of its tones is at least this
    /// share of the ink's contrast with the ground (flat ink: under 0.1; the painted figures of
    /// Benchmarks/Illustrations: 0.5–1.0).
    public var paintSpread: Double = 0.3
    /// The body is the ink this many pixels (4-connected) inside its edge: the anti-aliased rim,
    /// a scanner's property of one or two pixels, is not the ink's tone.
    public var bodyDepth: Int = 2
    /// Fewer body pixels than this and the tone is not judged (thin strokes: quartiles of a few
    /// pixels mean nothing).
    public var minimumBody: Int = 50

    public init() {}

    /// The proposals that are not pieces of a drawing, in their order. `gray` is the page's
    /// grey copy (`page.grayscale()`) when the caller has one already: the analyzer needs the
    /// same copy, and making it twice costs a pass over the page.
    public func keep(_ proposals: [ProposedBlock], on page: Bitmap<RGBA8>, gray pageGray: Bitmap<UInt8>? = nil) -> [ProposedBlock] {
        var gray = pageGray
        // The grey copy is made only when some line is short enough to be judged.
        func grey() -> Bitmap<UInt8> {
            if let g = gray { return g }
            let g = page.grayscale()
            gray = g
            return g
        }
        return proposals.compactMap { p in
            if p.lines.count == 1, let line = p.lines.first {
                let along = p.vertical ? line.height : line.width, across = p.vertical ? line.width : line.height
                if across > 0, along <= maximumLength * across,
                   let share = runOut(line, vertical: p.vertical, gray: grey()), share >= runOutShare { return nil }
            }
            let lines = p.lines.filter { line in
                let along = p.vertical ? line.height : line.width, across = p.vertical ? line.width : line.height
                guard across > 0, along <= shapeLength * across else { return true }
                return !paintedShape(line, vertical: p.vertical, gray: grey())
            }
            // A block none of whose lines has ink a reader could see as type is no text (what
            // is left of a figure once its painted lines are gone: faint specks of its wash).
            guard lines.contains(where: { visible($0, gray: grey()) }) else { return nil }
            var kept = p
            kept.lines = lines
            return kept
        }
    }

    /// Whether the line's ink differs from its ground by at least `LineInk.minimumContrast`, the
    /// contrast below which the glyph mask marks nothing.
    func visible(_ line: Rect, gray: Bitmap<UInt8>) -> Bool {
        let x0 = max(0, Int(line.minX)), y0 = max(0, Int(line.minY))
        let x1 = min(gray.width, Int(line.maxX.rounded(.up))), y1 = min(gray.height, Int(line.maxY.rounded(.up)))
        guard x1 - x0 >= 3, y1 - y0 >= 3, let split = LineInk.split(x0: x0, y0: y0, x1: x1, y1: y1, gray: gray) else { return false }
        return abs(split.inkMean - Double(split.groundLevel)) >= LineInk.minimumContrast
    }

    /// Whether the line is a piece of a painted figure: its ink mostly runs out of its box and the
    /// body of that ink spreads over `paintSpread` of the ink's contrast with the ground.
    public func paintedShape(_ line: Rect, vertical: Bool, gray: Bitmap<UInt8>) -> Bool {
        guard let share = runOut(line, vertical: vertical, gray: gray), share >= runOutShare,
              let body = inkBody(line, gray: gray), body.count >= minimumBody else { return false }
        return body.spread >= paintSpread * body.contrast
    }

    /// The tones of the line's ink body: the interquartile range of the grey levels of ink pixels
    /// at least `bodyDepth` pixels inside the ink's edge (the box's edge counts as an edge), how
    /// many there are, and the ink's contrast with the ground. Nil when the box holds no ink.
    public func inkBody(_ line: Rect, gray: Bitmap<UInt8>) -> (spread: Double, count: Int, contrast: Double)? {
        let W = gray.width, H = gray.height
        let x0 = max(0, Int(line.minX)), y0 = max(0, Int(line.minY))
        let x1 = min(W, Int(line.maxX.rounded(.up))), y1 = min(H, Int(line.maxY.rounded(.up)))
        guard x1 - x0 >= 3, y1 - y0 >= 3,
              let split = LineInk.split(x0: x0, y0: y0, x1: x1, y1: y1, gray: gray) else { return nil }
        let w = x1 - x0, h = y1 - y0
        var ink = [Bool](repeating: false, count: w * h)
        for y in 0..<h {
            for x in 0..<w {
                let v = Int(gray.pixels[(y0 + y) * W + x0 + x])
                ink[y * w + x] = split.dark ? v <= split.threshold : v > split.threshold
            }
        }
        // Erosion by the 4-neighbourhood, `bodyDepth` times.
        for _ in 0..<max(0, bodyDepth) {
            var next = ink
            for y in 0..<h {
                for x in 0..<w where ink[y * w + x] {
                    let inside = x > 0 && x < w - 1 && y > 0 && y < h - 1
                        && ink[y * w + x - 1] && ink[y * w + x + 1] && ink[(y - 1) * w + x] && ink[(y + 1) * w + x]
                    if !inside { next[y * w + x] = false }
                }
            }
            ink = next
        }
        var histogram = [Int](repeating: 0, count: 256)
        var count = 0
        for y in 0..<h {
            for x in 0..<w where ink[y * w + x] {
                histogram[Int(gray.pixels[(y0 + y) * W + x0 + x])] += 1
                count += 1
            }
        }
        let contrast = abs(split.inkMean - Double(split.groundLevel))
        guard count > 0 else { return (0, 0, contrast) }
        // The grey level at a rank (nearest rank).
        func level(atRank rank: Int) -> Int {
            var acc = 0
            for v in 0..<256 {
                acc += histogram[v]
                if acc > rank { return v }
            }
            return 255
        }
        let spread = Double(level(atRank: (3 * (count - 1)) / 4) - level(atRank: (count - 1) / 4))
        return (spread, count, contrast)
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
