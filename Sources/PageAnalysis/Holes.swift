// Hole counts per component (the Euler number by bit-quad counting). Enclosed counters — o, e,
// a, 口, ف — are the cheapest cue that separates letters from pickets, blades, ripples and
// hatching strokes, which are simply connected.

enum HoleCounter {
    /// Holes of every component in `labels` (component index + 1 per pixel, 0 = background).
    static func holes(labels: UnsafeBufferPointer<Int32>, width w: Int, height h: Int, componentCount: Int) -> [Int32] {
        // 8-connected foreground: E = (Q1 − Q3 − 2·QD) / 4, accumulated ×4 per component.
        var e4 = [Int32](repeating: 0, count: componentCount + 1)
        e4.withUnsafeMutableBufferPointer { e in
            for y in -1..<h {
                for x in -1..<w {
                    let a = (y >= 0 && x >= 0) ? labels[y * w + x] : 0
                    let b = (y >= 0 && x + 1 < w) ? labels[y * w + x + 1] : 0
                    let c = (y + 1 < h && x >= 0) ? labels[(y + 1) * w + x] : 0
                    let d = (y + 1 < h && x + 1 < w) ? labels[(y + 1) * w + x + 1] : 0
                    if a == 0 && b == 0 && c == 0 && d == 0 { continue }
                    // Each distinct label in the quad sees its own 2×2 pattern.
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
            }
        }
        return (0..<componentCount).map { i in max(0, 1 - e4[i + 1] / 4) }
    }
}
