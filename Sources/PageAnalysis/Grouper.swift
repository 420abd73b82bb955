// Glyph candidates → lines → blocks, and the text-likeness score that keeps illustration detail
// out. Lines are built in both directions at once; each glyph joins the direction in which its
// chain is longer (in units of character size), which is what tells a Mongolian column from a
// paragraph of Latin without knowing the script.

import Geometry

struct UnionFind {
    var parent: [Int]
    init(_ n: Int) { parent = Array(0..<n) }
    mutating func find(_ i: Int) -> Int {
        var i = i
        while parent[i] != i { parent[i] = parent[parent[i]]; i = parent[i] }
        return i
    }
    mutating func union(_ a: Int, _ b: Int) {
        let ra = find(a), rb = find(b)
        if ra != rb { parent[max(ra, rb)] = min(ra, rb) }
    }
}

/// One line: glyph indices and its direction.
struct Line {
    var members: [Int]
    var orientation: DetectedOrientation
    var rect: Rect
    /// Median glyph size across the line (height for horizontal lines, width for vertical).
    var thickness: Double
    var gray: Double
}

struct Grouper {
    let work: WorkingImage
    let parameters: AnalysisParameters
    let polarity: DetectedPolarity
    let level: UInt8
    var colour: Int = -1

    func blocks(from g: [Glyph]) -> [BlockCandidate] {
        let n = g.count
        guard n >= 2 else { return [] }
        var hUF = UnionFind(n), vUF = UnionFind(n)
        // Spatial grid so each glyph only meets its neighbours.
        let cell = 24.0
        let gw = Int(Double(work.width) / cell) + 1, gh = Int(Double(work.height) / cell) + 1
        var grid = [[Int]](repeating: [], count: gw * gh)
        for (i, c) in g.enumerated() {
            for cy in Int(c.minY / cell)...min(gh - 1, Int(c.maxY / cell)) {
                for cx in Int(c.minX / cell)...min(gw - 1, Int(c.maxX / cell)) { grid[cy * gw + cx].append(i) }
            }
        }
        var stamp = [Int](repeating: -1, count: n)
        let gap = parameters.characterGap
        for i in 0..<n {
            let a = g[i]
            let reach = gap * max(a.width, a.height) + 1
            let qx0 = max(0, Int((a.minX - reach) / cell)), qx1 = min(gw - 1, Int((a.maxX + reach) / cell))
            let qy0 = max(0, Int((a.minY - reach) / cell)), qy1 = min(gh - 1, Int((a.maxY + reach) / cell))
            for cy in qy0...qy1 {
                for cx in qx0...qx1 {
                    for j in grid[cy * gw + cx] where j > i && stamp[j] != i {
                        stamp[j] = i
                        let b = g[j]
                        guard abs(a.gray - b.gray) <= 45, max(a.stroke, b.stroke) <= 2.5 * min(a.stroke, b.stroke) + 0.5 else { continue }
                        if linked(a, b, horizontal: true) { hUF.union(i, j) }
                        if linked(a, b, horizontal: false) { vUF.union(i, j) }
                    }
                }
            }
        }
        // Score each chain by its length in character sizes.
        func chainRatios(_ uf: inout UnionFind, horizontal: Bool) -> (root: [Int], ratio: [Double]) {
            var roots = [Int](repeating: 0, count: n)
            var groups: [Int: [Int]] = [:]
            for i in 0..<n { roots[i] = uf.find(i); groups[roots[i], default: []].append(i) }
            var ratio = [Double](repeating: 0, count: n)
            for (_, m) in groups where m.count >= 2 {
                let lo = m.map { horizontal ? g[$0].minX : g[$0].minY }.min() ?? 0
                let hi = m.map { horizontal ? g[$0].maxX : g[$0].maxY }.max() ?? 0
                let t = median(m.map { horizontal ? g[$0].height : g[$0].width })
                let r = (hi - lo + 1) / max(t, 1)
                for i in m { ratio[i] = r }
            }
            return (roots, ratio)
        }
        let (hRoot, hRatio) = chainRatios(&hUF, horizontal: true)
        let (vRoot, vRatio) = chainRatios(&vUF, horizontal: false)

        var lineMembers: [Int: [Int]] = [:]  // key: root * 2 + (vertical ? 1 : 0)
        for i in 0..<n {
            if hRatio[i] == 0 && vRatio[i] == 0 { continue }
            if hRatio[i] >= vRatio[i] { lineMembers[hRoot[i] * 2, default: []].append(i) } else { lineMembers[vRoot[i] * 2 + 1, default: []].append(i) }
        }
        var lines: [Line] = []
        for (key, m) in lineMembers.sorted(by: { $0.key < $1.key }) {
            guard m.count >= 2 else { continue }
            let vertical = key % 2 == 1
            let rect = m.dropFirst().reduce(rectOf(g[m[0]])) { $0.union(rectOf(g[$1])) }
            let t = median(m.map { vertical ? g[$0].width : g[$0].height })
            let gray = m.reduce(0.0) { $0 + g[$1].gray } / Double(m.count)
            lines.append(Line(members: m, orientation: vertical ? .vertical : .horizontal, rect: rect, thickness: t, gray: gray))
        }

        // Lines → blocks.
        var bUF = UnionFind(lines.count)
        for i in 0..<lines.count {
            for j in (i + 1)..<lines.count where lines[i].orientation == lines[j].orientation {
                if joinable(lines[i], lines[j]) { bUF.union(i, j) }
            }
        }
        var blockLines: [Int: [Int]] = [:]
        for i in 0..<lines.count { blockLines[bUF.find(i), default: []].append(i) }
        var out: [BlockCandidate] = []
        for (_, members) in blockLines.sorted(by: { $0.key < $1.key }) {
            let ls = members.map { lines[$0] }
            if let b = score(ls, glyphs: g) { out.append(b) }
        }
        return out
    }

    private func rectOf(_ c: Glyph) -> Rect { Rect(x: c.minX, y: c.minY, width: c.width, height: c.height) }

    /// Neighbouring glyphs of one line: similar size across the line, overlapping across it,
    /// and close along it.
    private func linked(_ a: Glyph, _ b: Glyph, horizontal: Bool) -> Bool {
        let (aLo, aHi, bLo, bHi) = horizontal ? (a.minY, a.maxY, b.minY, b.maxY) : (a.minX, a.maxX, b.minX, b.maxX)
        let (aS, bS) = horizontal ? (a.height, b.height) : (a.width, b.width)
        guard max(aS, bS) <= 2.2 * min(aS, bS) else { return false }
        let overlap = min(aHi, bHi) - max(aLo, bLo) + 1
        guard overlap >= 0.5 * min(aS, bS) else { return false }
        let gapAlong = horizontal ? max(a.minX, b.minX) - min(a.maxX, b.maxX) - 1 : max(a.minY, b.minY) - min(a.maxY, b.maxY) - 1
        return gapAlong <= parameters.characterGap * max(aS, bS)
    }

    private func joinable(_ a: Line, _ b: Line) -> Bool {
        guard max(a.thickness, b.thickness) <= 1.6 * min(a.thickness, b.thickness), abs(a.gray - b.gray) <= 45 else { return false }
        let t = max(a.thickness, b.thickness)
        let horizontal = a.orientation == .horizontal
        let (aLo, aHi, bLo, bHi) = horizontal ? (a.rect.minX, a.rect.maxX, b.rect.minX, b.rect.maxX) : (a.rect.minY, a.rect.maxY, b.rect.minY, b.rect.maxY)
        let (aLo2, aHi2, bLo2, bHi2) = horizontal ? (a.rect.minY, a.rect.maxY, b.rect.minY, b.rect.maxY) : (a.rect.minX, a.rect.maxX, b.rect.minX, b.rect.maxX)
        let alongOverlap = min(aHi, bHi) - max(aLo, bLo)
        let acrossGap = max(aLo2, bLo2) - min(aHi2, bHi2)
        // Stacked lines of one paragraph.
        if acrossGap <= parameters.lineGap * t && alongOverlap >= 0.3 * min(aHi - aLo, bHi - bLo) { return true }
        // Two pieces of one line split by a wide space.
        let acrossOverlap = -acrossGap
        if acrossOverlap >= 0.5 * t && -alongOverlap <= 2.0 * t { return true }
        return false
    }

    /// Text-likeness of a group of lines; nil when it does not look like text. Glyphs that do
    /// not sit on their line (top, bottom or centre) are dropped first: over busy art a line
    /// picks up bits of the picture, and they should not sink the whole line.
    private func score(_ lines: [Line], glyphs g: [Glyph]) -> BlockCandidate? {
        let orientation = lines[0].orientation
        let horizontal = orientation == .horizontal
        var kept: [Line] = []
        var along: [Double] = []
        var candidates: [Line] = []
        var thin = 0, withHoles = 0, unaligned = 0
        var units = 0.0
        var fillSum = 0.0
        for l in lines {
            let m = l.members
            let lo = median(m.map { horizontal ? g[$0].minY : g[$0].minX })
            let hi = median(m.map { horizontal ? g[$0].maxY : g[$0].maxX })
            let mid = median(m.map { horizontal ? g[$0].cy : g[$0].cx })
            let tol = max(1.5, 0.2 * l.thickness)
            var members: [Int] = []
            for i in m {
                let c = g[i]
                let (cLo, cHi, cMid) = horizontal ? (c.minY, c.maxY, c.cy) : (c.minX, c.maxX, c.cx)
                // Much taller than the line's glyphs (a picket, a post the text sits on): not text.
                let across = horizontal ? c.height : c.width
                if m.count >= 4 && across > parameters.tallGlyphLimit * l.thickness { unaligned += 1; continue }
                if abs(cLo - lo) <= tol || abs(cHi - hi) <= tol || abs(cMid - mid) <= tol { members.append(i) } else { unaligned += 1 }
            }
            guard members.count >= 2 else { continue }
            // A row of identical shapes — pickets, bricks, stripes, bunting — however ring-like.
            if members.count >= 4 && coefficientOfVariation(members.map { horizontal ? g[$0].width : g[$0].height }) < parameters.regularityLimit
                && coefficientOfVariation(members.map { horizontal ? g[$0].height : g[$0].width }) < parameters.regularityLimit { continue }
            var line = l
            line.members = members
            line.rect = members.dropFirst().reduce(rectOf(g[members[0]])) { $0.union(rectOf(g[$1])) }
            // A letter fused with a picket or a stem it crosses still sits on the line, so it is
            // kept, but its box runs far across the line; ascenders and descenders reach about
            // half the line's typical glyph size beyond it, and the line's box no further.
            if parameters.glyphOvershoot > 0 {
                let reach = parameters.glyphOvershoot * max(hi - lo + 1, l.thickness)
                let (cLo, cHi) = horizontal ? (line.rect.minY, line.rect.maxY) : (line.rect.minX, line.rect.maxX)
                let nLo = max(cLo, lo - reach), nHi = min(cHi, hi + reach)
                if nHi > nLo {
                    line.rect = horizontal
                        ? Rect(x: line.rect.minX, y: nLo, width: line.rect.width, height: nHi - nLo)
                        : Rect(x: nLo, y: line.rect.minY, width: nHi - nLo, height: line.rect.height)
                }
            }
            candidates.append(line)
        }
        // Over a drawing, a paragraph's lines pick up neighbouring "lines" of the picture — two
        // or three picket tips, a rail and a post — which stretch its box over the art. A line
        // that short, without a single enclosed counter, next to a line that is clearly text,
        // is left out of the block (the art it stands for stays outside the box).
        if parameters.pruneWeakLines && candidates.count >= 2 {
            func strong(_ l: Line) -> Bool { l.members.count >= 4 || l.members.contains { g[$0].holes > 0 } }
            if candidates.contains(where: { strong($0) && $0.members.count >= 6 }) {
                candidates.removeAll { l in
                    guard !strong(l) else { return false }
                    unaligned += l.members.count
                    return true
                }
            }
        }
        // Type is drawn with strokes in proportion to its size; a drawing's outlines keep one
        // pen width however large the shapes they enclose. A line of shapes many times taller
        // than their strokes are thick, over a drawing, is outline drawing — a cat's head,
        // pickets, a cloth. On a flat ground (paper, sky) there is no drawing to mistake, and
        // a pen-lettered title (Huck Finn's "Chapter") is thin-stroked too, so it stays.
        if horizontal && parameters.minimumStrokeToSize > 0 {
            candidates.removeAll { l in
                guard median(l.members.map { g[$0].stroke }) < parameters.minimumStrokeToSize * l.thickness,
                      backgroundSpread(l.rect) > parameters.flatBackgroundSpread else { return false }
                unaligned += l.members.count
                return true
            }
        }
        for l in candidates {
            let members = l.members
            for i in members {
                let c = g[i]
                along.append(horizontal ? c.width : c.height)
                // A long connected word in a vertical column (Mongolian) is evidence of
                // several characters.
                units += horizontal ? 1 : max(1, c.height / max(1, l.thickness))
                let (s, a) = horizontal ? (c.height, c.width) : (c.width, c.height)
                if a * 3.2 < s { thin += 1 }
                if c.holes > 0 { withHoles += 1 }
                fillSum += c.fill
            }
            kept.append(l)
        }
        let n = kept.reduce(0) { $0 + $1.members.count }
        guard n >= 2 else { return nil }
        let alignFrac = Double(n) / Double(n + unaligned)
        let alongCV = coefficientOfVariation(along)
        let thinFrac = Double(thin) / Double(n)
        let holeFrac = Double(withHoles) / Double(n)
        let meanFill = fillSum / Double(n)

        // Hard rejections: the illustration detail the generator (and real books) draw.
        if thinFrac > 0.55 { return nil }                             // grass blades, pickets, rain
        if meanFill < 0.2 && holeFrac < 0.1 { return nil }            // hatching strokes
        if alignFrac < 0.4 { return nil }
        // A fragment that fails only the softer tests below may still be the end of a line
        // found elsewhere (a few words of small print whose counters closed up at the working
        // resolution look as even as a row of shapes); it is kept aside, marked weak, and
        // joins a block only when it continues one of that block's lines.
        let mayBeWeak = horizontal && parameters.attachFragments && thinFrac <= 0.3 && alignFrac >= 0.6 && level != 32 && level != 128
        func weak() -> BlockCandidate? {
            guard mayBeWeak else { return nil }
            var b = candidate(kept, glyphs: g, confidence: 0)
            b.weak = true
            return b
        }
        if holeFrac == 0 && alongCV < 0.22 && n >= 3 { return weak() }   // evenly repeated shapes
        // Two stacked blobs are a stem or a post; side by side, pairs like that are a fence's
        // pickets between its rails: a column needs three glyphs of its own — or, on a flat
        // ground (sky, paper), two long ones, as traditional Mongolian writes a whole word as
        // one joined stroke down the column (pickets are long shapes too, but never on a flat
        // ground). And vertical type is never tiny: columns a few pixels wide are gaps between
        // pickets and blades of grass.
        var longWords = false
        if !horizontal && (kept.map(\.members.count).max() ?? 0) < 3 {
            longWords = parameters.longWordColumns
                && kept.contains { l in l.members.count == 2 && l.members.allSatisfy { g[$0].height >= 2.2 * g[$0].width } }
                && backgroundSpread(kept.dropFirst().reduce(kept[0].rect) { $0.union($1.rect) }) <= parameters.flatBackgroundSpread
            if !longWords { return nil }
        }
        if !horizontal && median(kept.map(\.thickness)) < parameters.minimumVerticalCharacterFraction * Double(work.height) { return nil }

        let nScore = min(1, units / 10)
        let holeScore = min(1, holeFrac / 0.25)
        let varietyScore = min(1, alongCV / 0.35)
        let lineScore = min(1, Double(kept.count) / 2)
        var conf = 0.25 * nScore + 0.3 * alignFrac + 0.2 * holeScore + 0.15 * varietyScore + 0.1 * lineScore
        // Few glyphs are weak evidence, unless they are long joined words worth several.
        if n < 4 && !(longWords && units >= 4) { conf *= 0.8 }
        // Vertical chains are what hatching, bark and shading make most often; they need more.
        var floor = horizontal ? parameters.minimumConfidence : parameters.minimumVerticalConfidence
        let rect = kept.dropFirst().reduce(kept[0].rect) { $0.union($1.rect) }
        if level == 4 || level == 16 {
            // Deep ink's low contrast floor is what lets art in, but on a flat ground (sky,
            // paper, a wash) there is no art to let in: pale or coloured type on a sky keeps
            // the ordinary floor there.
            let flat = horizontal && backgroundSpread(rect) <= parameters.flatBackgroundSpread
            floor = max(floor, flat ? parameters.minimumConfidence : parameters.minimumDeepConfidence)
        }
        // The faint reading exists for pale type on a sky; anywhere else it is the drawing's.
        if level == 32 && backgroundSpread(rect) > parameters.flatBackgroundSpread { return nil }
        if level == 128 {
            // A colour reading is for coloured type over a drawing; the drawing's own colours
            // make lines of pieces too, so only rows count and they need a high confidence.
            if !horizontal || holeFrac < parameters.minimumColourHoles { return nil }
            floor = max(floor, parameters.minimumColourConfidence)
        } else if level == 64 {
            // The inkiest-ink reading is for type over a drawing; where no type is near, the
            // darkest ink around is the drawing's own outlines, whose cores come loose in pieces.
            // They stack into columns (a striped lighthouse's edges), so only lines count here,
            // and like deep ink these blocks need a high confidence.
            if !horizontal { return nil }
            // Outline cores are one or two pixels wide (their stroke measures about 2 once grown
            // back) and, in a drawing without type, paler than near-black ink.
            let stroke = median(kept.flatMap(\.members).map { g[$0].stroke })
            let inkGray = kept.flatMap(\.members).reduce(0.0) { $0 + g[$1].gray } / Double(n)
            if stroke < parameters.minimumCoreStroke || inkGray > parameters.maximumCoreGray { return nil }
            floor = max(floor, parameters.minimumCoreConfidence)
            if units < parameters.minimumCoreGlyphs { return nil }
        } else if level >= 8 {
            floor = max(floor, parameters.minimumLineArtConfidence)
            if units < parameters.minimumLineArtGlyphs { return nil }
        }
        guard conf >= floor else { return weak() }
        return candidate(kept, glyphs: g, confidence: min(1, conf))
    }

    private func candidate(_ kept: [Line], glyphs g: [Glyph], confidence: Double) -> BlockCandidate {
        let n = kept.reduce(0) { $0 + $1.members.count }
        let rect = kept.dropFirst().reduce(kept[0].rect) { $0.union($1.rect) }
        let gray = kept.flatMap(\.members).reduce(0.0) { $0 + g[$1].gray } / Double(max(1, n))
        let summaries = kept.map { l in
            LineSummary(rect: l.rect, thickness: l.thickness, gray: l.members.reduce(0.0) { $0 + g[$1].gray } / Double(l.members.count),
                        stroke: median(l.members.map { g[$0].stroke }), glyphs: l.members.count,
                        holed: l.members.filter { g[$0].holes > 0 }.count)
        }
        return BlockCandidate(rect: rect, orientation: kept[0].orientation, polarity: polarity, confidence: confidence,
                              componentCount: n, inkGray: gray, level: level, colour: colour, size: median(kept.map(\.thickness)), lines: summaries)
    }
}

extension Grouper {
    /// Standard deviation of the working grey over the pixels of `r` (grown by a quarter of its
    /// height) that are not ink in this polarity at any level: near 0 on a sky or paper, large
    /// over a drawing.
    func backgroundSpread(_ r: Rect) -> Double {
        guard let m = work.masks[polarity] else { return .infinity }
        let w = work.width, h = work.height
        let pad = 0.25 * r.height
        let x0 = max(0, Int(r.minX - pad)), x1 = min(w - 1, Int(r.maxX + pad))
        let y0 = max(0, Int(r.minY - pad)), y1 = min(h - 1, Int(r.maxY + pad))
        guard x1 > x0, y1 > y0 else { return .infinity }
        var n = 0.0, sum = 0.0, sq = 0.0
        for y in y0...y1 {
            let row = y * w
            for x in x0...x1 where m[row + x] == 0 {
                let v = Double(work.gray[row + x])
                n += 1; sum += v; sq += v * v
            }
        }
        guard n > 0 else { return .infinity }
        let mean = sum / n
        return max(0, sq / n - mean * mean).squareRoot()
    }
}

func median(_ v: [Double]) -> Double {
    guard !v.isEmpty else { return 0 }
    let s = v.sorted()
    return s[s.count / 2]
}

func coefficientOfVariation(_ v: [Double]) -> Double {
    guard v.count >= 2 else { return 0 }
    let m = v.reduce(0, +) / Double(v.count)
    guard m > 0 else { return 0 }
    let varSum = v.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(v.count)
    return varSum.squareRoot() / m
}
