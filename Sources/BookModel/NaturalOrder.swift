// Natural ordering of file names, the way people number scans: "p2" before "p10", "page-9" before
// "page-10", "IMG_0099" before "IMG_0100". Digit runs compare by value; everything else compares
// case-insensitively; remaining ties are broken by the plain bytes, so the order is total and a
// sort is the same on every machine (unlike locale-aware comparisons).

public enum NaturalOrder {
    /// Negative when `a` sorts before `b`, zero when they are identical, positive otherwise.
    public static func compare(_ a: String, _ b: String) -> Int {
        let x = Array(a.utf8), y = Array(b.utf8)
        var i = 0, j = 0
        // First difference that only case or leading zeros make; used if nothing else differs.
        var tieBreak = 0
        while i < x.count, j < y.count {
            if isDigit(x[i]), isDigit(y[j]) {
                let si = i, sj = j
                while i < x.count, isDigit(x[i]) { i += 1 }
                while j < y.count, isDigit(y[j]) { j += 1 }
                // Compare by value without converting (runs can be longer than any integer).
                var zi = si, zj = sj
                while zi < i - 1, x[zi] == 0x30 { zi += 1 }
                while zj < j - 1, y[zj] == 0x30 { zj += 1 }
                let li = i - zi, lj = j - zj
                if li != lj { return li < lj ? -1 : 1 }
                for k in 0..<li where x[zi + k] != y[zj + k] {
                    return x[zi + k] < y[zj + k] ? -1 : 1
                }
                // Same value: more leading zeros sorts first ("p01" before "p1").
                if tieBreak == 0, i - si != j - sj { tieBreak = (i - si) > (j - sj) ? -1 : 1 }
                continue
            }
            // Non-digits: compare one Unicode scalar at a time, case-folded. The UTF-8 bytes of a
            // scalar never contain ASCII digits, so byte-wise stepping stays aligned.
            let (cx, nx) = scalar(x, i), (cy, ny) = scalar(y, j)
            let fx = fold(cx), fy = fold(cy)
            if fx != fy { return fx < fy ? -1 : 1 }
            if tieBreak == 0, cx != cy { tieBreak = cx < cy ? -1 : 1 }
            i += nx
            j += ny
        }
        if i < x.count { return 1 }
        if j < y.count { return -1 }
        return tieBreak
    }

    /// For `sorted(by:)`.
    public static func areInIncreasingOrder(_ a: String, _ b: String) -> Bool { compare(a, b) < 0 }

    private static func isDigit(_ c: UInt8) -> Bool { c >= 0x30 && c <= 0x39 }

    private static func scalar(_ s: [UInt8], _ i: Int) -> (UInt32, Int) {
        let c = s[i]
        let n = c < 0x80 ? 1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : 4
        guard i + n <= s.count else { return (UInt32(c), 1) }
        if n == 1 { return (UInt32(c), 1) }
        var v = UInt32(c) & (0xFF >> (n + 1))
        for k in 1..<n { v = v << 6 | UInt32(s[i + k] & 0x3F) }
        return (v, n)
    }

    private static func fold(_ v: UInt32) -> UInt32 {
        if v >= 0x41 && v <= 0x5A { return v + 32 }
        guard v >= 0x80, let u = Unicode.Scalar(v) else { return v }
        let lower = u.properties.lowercaseMapping.unicodeScalars
        return lower.count == 1 ? lower.first!.value : v
    }
}

extension Sequence<String> {
    /// The strings in natural order (see `NaturalOrder`).
    public func sortedNaturally() -> [String] { sorted(by: NaturalOrder.areInIncreasingOrder) }
}
