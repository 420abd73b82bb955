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
//
// A block is then cut where its measure changes on one side only: text set round a picture runs
// short beside it and full width under it, so the lines' far edges stay together while their
// near edges jump by the picture's width. The union of such lines would be a rectangle over the
// picture. Verse staggered round a figure, centred titles and ragged lines move both edges, and a
// paragraph's short last line or indented first line is one line; neither is cut.

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
    /// A block is cut between two rows when one edge of the text moves by more than this many
    /// thicknesses there and the other stays within one thickness, each side's edges taken as the
    /// medians of its nearest three rows, with at least `measureRows` rows on each side, each side
    /// set to a measure (`measureAlignment`). 0: never cut.
    public var measureJump: Double = 3
    public var measureRows: Int = 2
    /// How closely the rows of one measure keep their edges, in thicknesses.
    public var measureAlignment: Double = 0.25

    public init() {}

    /// Sets a parameter by name (`--set group.NAME=VALUE`); false for an unknown name.
    public mutating func set(_ name: String, to value: Double) -> Bool {
        switch name {
        case "leading": leading = value
        case "sizeRatio": sizeRatio = value
        case "minimumLineLength": minimumLineLength = value
        case "measureJump": measureJump = value
        case "measureRows": measureRows = Int(value)
        case "measureAlignment": measureAlignment = value
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
        return groups.values.flatMap { splitAtMeasureChanges(TextBlock(lines: $0, vertical: $0[0].vertical)) }
            .filter { b in
                guard b.lines.count == 1, let l = b.lines.first else { return true }
                let along = l.vertical ? l.rect.height : l.rect.width, across = l.vertical ? l.rect.width : l.rect.height
                return along >= minimumLineLength * across
            }
            .sorted { ($0.rect.minY, $0.rect.minX) < ($1.rect.minY, $1.rect.minX) }
    }

    /// The block cut wherever its measure changes on one side only (see the top of the file).
    func splitAtMeasureChanges(_ block: TextBlock) -> [TextBlock] {
        guard measureJump > 0, measureRows > 0, block.lines.count >= 2 * measureRows else { return [block] }
        let v = block.vertical
        // Rows: lines that overlap across by half the thinner one's thickness are one row.
        func across(_ r: Rect) -> (Double, Double) { v ? (r.minX, r.maxX) : (r.minY, r.maxY) }
        func along(_ r: Rect) -> (Double, Double) { v ? (r.minY, r.maxY) : (r.minX, r.maxX) }
        // Vertical columns run right to left in the books that set them; rows in reading order.
        let sorted = block.lines.sorted { v ? across($0.rect).1 > across($1.rect).1 : across($0.rect).0 < across($1.rect).0 }
        var rows: [[TextLine]] = []
        for line in sorted {
            let (c0, c1) = across(line.rect)
            if let last = rows.last, let ref = last.first {
                let (d0, d1) = across(ref.rect)
                if min(c1, d1) - max(c0, d0) >= 0.5 * min(c1 - c0, d1 - d0) { rows[rows.count - 1].append(line); continue }
            }
            rows.append([line])
        }
        guard rows.count >= 2 * measureRows else { return [block] }
        typealias Edges = (start: Double, end: Double, thickness: Double)
        let edges = rows.map { row -> Edges in
            let a = row.map { along($0.rect) }, c = row.map { across($0.rect) }
            return (a.map(\.0).min()!, a.map(\.1).max()!, c.map { $0.1 - $0.0 }.max()!)
        }
        let thickness = edges.map(\.thickness).sorted()[edges.count / 2]
        // Each side's edges are the medians of its nearest rows, so that one indented first line
        // or short last line of a paragraph does not move them; the rows on either side of the
        // cut must themselves lie on their own side.
        func median(_ v: [Double]) -> Double { v.sorted()[v.count / 2] }
        let near = max(measureRows, 3)
        var cuts: [Int] = []
        for i in measureRows...(rows.count - measureRows) where i - (cuts.last ?? 0) >= measureRows {
            let before = edges[max(0, i - near)..<i], after = edges[i..<min(rows.count, i + near)]
            let s0 = median(before.map(\.start)), s1 = median(after.map(\.start))
            let e0 = median(before.map(\.end)), e1 = median(after.map(\.end))
            // Each side is set to a measure: all its nearest rows but one (all, with two) keep
            // both its edges to within `alignment` of a thickness, as justified type does (a
            // degree of skew moves an edge by a pixel or two over three rows). Centred, staggered
            // and ragged lines do not.
            func set(_ rows: ArraySlice<Edges>, _ s: Double, _ e: Double) -> Bool {
                let need = max(2, rows.count - 1), tolerance = measureAlignment * thickness
                return rows.filter { abs($0.start - s) <= tolerance }.count >= need && rows.filter { abs($0.end - e) <= tolerance }.count >= need
            }
            guard set(before, s0, e0), set(after, s1, e1) else { continue }
            let startJumps = abs(s1 - s0) > measureJump * thickness && abs(e1 - e0) <= thickness
            let endJumps = abs(e1 - e0) > measureJump * thickness && abs(s1 - s0) <= thickness
            // The two rows either side of the cut each lie nearer their own side's edge.
            func sides(_ a: Double, _ b: Double, _ x0: Double, _ x1: Double) -> Bool { abs(a - x0) < abs(a - x1) && abs(b - x1) < abs(b - x0) }
            let onTheirSides = startJumps
                ? sides(edges[i - 1].start, edges[i].start, s0, s1)
                : sides(edges[i - 1].end, edges[i].end, e0, e1)
            if (startJumps || endJumps) && onTheirSides { cuts.append(i) }
        }
        guard !cuts.isEmpty else { return [block] }
        var pieces: [TextBlock] = []
        var from = 0
        for cut in cuts + [rows.count] {
            pieces.append(TextBlock(lines: rows[from..<cut].flatMap { $0 }, vertical: v))
            from = cut
        }
        return pieces
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
