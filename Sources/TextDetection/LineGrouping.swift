// Lines into blocks. A block is what a reader would tap as one piece of text: a paragraph, a
// title, a caption, the words in one bubble. Two lines belong together when either
//   - they are pieces of one line: they overlap across the line by at least half the thinner
//     one's thickness and the gap along it is at most one thickness (a word space is well under
//     one line height in every face); or
//   - they are neighbouring lines of one paragraph: they overlap along the line, the gap between
//     them is at most `leading` of the thinner line's thickness, and their thicknesses differ by
//     at most `sizeRatio` (a title over its text is set larger and is a block of its own).
// Both rules are about type, not about any one book: line spacing and word spacing are set
// relative to the type size in every tradition of typesetting and lettering.

public import Geometry

/// A block of text lines.
public struct TextBlock: Sendable, Hashable {
    public var lines: [TextLine]
    public var vertical: Bool
    public var rect: Rect { lines.dropFirst().reduce(lines[0].rect) { $0.union($1.rect) } }
    /// The mean of its lines' scores, weighted by their areas.
    public var score: Double {
        let area = lines.reduce(0) { $0 + $1.rect.area }
        return area > 0 ? lines.reduce(0) { $0 + $1.score * $1.rect.area } / area : 0
    }
}

public struct LineGrouping: Sendable, Hashable {
    /// Largest gap between neighbouring lines, in thicknesses of the thinner line.
    public var leading: Double = 0.6
    /// Largest ratio of two neighbouring lines' thicknesses.
    public var sizeRatio: Double = 1.6
    /// A block of one line must run at least this many thicknesses along: a lone glyph-sized
    /// mark is far more often a detail of a drawing (an eye, a knot, a leaf) than a text of one
    /// letter, and the one-glyph texts that exist — page numbers — are neither popped out nor
    /// worth erasing. Two letters of any script run at least about 1.5 thicknesses.
    public var minimumLineLength: Double = 1.5

    public init() {}

    /// Sets a parameter by name (`--set group.NAME=VALUE`); false for an unknown name.
    public mutating func set(_ name: String, to value: Double) -> Bool {
        switch name {
        case "leading": leading = value
        case "sizeRatio": sizeRatio = value
        case "minimumLineLength": minimumLineLength = value
        default: return false
        }
        return true
    }

    public func blocks(_ lines: [TextLine]) -> [TextBlock] {
        var parent = Array(lines.indices)
        func find(_ i: Int) -> Int {
            var i = i
            while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
            return i
        }
        for i in lines.indices {
            for j in lines.indices where j > i && lines[i].vertical == lines[j].vertical && joins(lines[i], lines[j]) {
                let a = find(i), b = find(j)
                if a != b { parent[a] = b }
            }
        }
        var groups: [Int: [TextLine]] = [:]
        for i in lines.indices { groups[find(i), default: []].append(lines[i]) }
        return groups.values.map { TextBlock(lines: $0, vertical: $0[0].vertical) }
            .filter { b in
                guard b.lines.count == 1, let l = b.lines.first else { return true }
                let along = l.vertical ? l.rect.height : l.rect.width, across = l.vertical ? l.rect.width : l.rect.height
                return along >= minimumLineLength * across
            }
            .sorted { ($0.rect.minY, $0.rect.minX) < ($1.rect.minY, $1.rect.minX) }
    }

    func joins(_ a: TextLine, _ b: TextLine) -> Bool {
        // In the line's own frame: `along` runs with the text, `across` from line to line.
        func along(_ r: Rect) -> (Double, Double) { a.vertical ? (r.minY, r.maxY) : (r.minX, r.maxX) }
        func across(_ r: Rect) -> (Double, Double) { a.vertical ? (r.minX, r.maxX) : (r.minY, r.maxY) }
        let (a0, a1) = along(a.rect), (b0, b1) = along(b.rect)
        let (c0, c1) = across(a.rect), (d0, d1) = across(b.rect)
        let ta = c1 - c0, tb = d1 - d0, thin = min(ta, tb)
        guard thin > 0 else { return false }
        let overlapAlong = min(a1, b1) - max(a0, b0), overlapAcross = min(c1, d1) - max(c0, d0)
        if overlapAcross >= 0.5 * thin && -overlapAlong <= thin { return true }
        return overlapAlong > 0 && -overlapAcross <= leading * thin && max(ta, tb) <= sizeRatio * thin
    }
}
