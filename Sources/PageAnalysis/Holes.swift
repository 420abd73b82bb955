// Hole counts per component (the Euler number by bit-quad counting). Enclosed counters — o, e,
// a, 口, ف — are the cheapest cue that separates letters from pickets, blades, ripples and
// hatching strokes, which are simply connected.

enum HoleCounter {
    /// Holes of every component in `labels` (component index + 1 per pixel, 0 = background).
    static func holes(labels: UnsafeBufferPointer<Int32>, width w: Int, height h: Int, componentCount: Int) -> [Int32] {
        // 8-connected foreground: E = (Q1 − Q3 − 2·QD) / 4, accumulated ×4 per component.
        var e4 = [Int32](repeating: 0, count: componentCount + 1)
        guard w > 0, h > 0 else { return [Int32](repeating: 0, count: componentCount) }
        e4.withUnsafeMutableBufferPointer { e in
            // One 2×2 quad (a b / c d); each distinct label in it sees its own pattern.
            @inline(__always) func quad(_ a: Int32, _ b: Int32, _ c: Int32, _ d: Int32) {
                @inline(__always) func add(_ l: Int32) {
                    let pa = a == l, pb = b == l, pc = c == l, pd = d == l
                    let n = (pa ? 1 : 0) + (pb ? 1 : 0) + (pc ? 1 : 0) + (pd ? 1 : 0)
                    if n == 1 { e[Int(l)] += 1 } else if n == 3 { e[Int(l)] -= 1 } else if n == 2 && ((pa && pd) || (pb && pc)) { e[Int(l)] -= 2 }
                }
                if a != 0 { add(a) }
                if b != 0 && b != a { add(b) }
                if c != 0 && c != a && c != b { add(c) }
                if d != 0 && d != a && d != b && d != c { add(d) }
            }
            // Quads straddle rows y and y + 1 (y = −1 and y = h − 1 are the border outside the
            // image, read as background). Most quads are background: a column pair that is
            // empty in both rows is skipped after two loads.
            for y in -1..<h {
                let top = y >= 0 ? y * w : -1, bottom = y + 1 < h ? (y + 1) * w : -1
                @inline(__always) func t(_ x: Int) -> Int32 { top >= 0 ? labels[top + x] : 0 }
                @inline(__always) func bt(_ x: Int) -> Int32 { bottom >= 0 ? labels[bottom + x] : 0 }
                var a = t(0), c = bt(0)
                if a | c != 0 { quad(0, a, 0, c) }
                for x in 0..<(w - 1) {
                    let b = t(x + 1), d = bt(x + 1)
                    if a | b | c | d != 0 { quad(a, b, c, d) }
                    a = b
                    c = d
                }
                if a | c != 0 { quad(a, 0, c, 0) }
            }
        }
        return (0..<componentCount).map { i in max(0, 1 - e4[i + 1] / 4) }
    }
}
