// The detector. Pipeline (Documentation/PageAnalysis.md explains each choice):
//   1. grey at a working resolution of about 1000 px tall (integer box reduction);
//   2. local-mean binarization in both polarities (dark ink and light ink);
//   3. connected components, kept when their size, fill and stroke width could be a glyph;
//   4. components chained into horizontal and vertical lines; each component joins the
//      direction in which its line is longer;
//   5. lines merged into blocks; blocks scored for text-likeness (alignment, holes, size variety)
//      so fences, grass, hatching and stripes drop out; groups that fail only the soft tests
//      are kept as weak fragments that may extend a line they continue; the readings' blocks
//      compete, are joined, trimmed to their text and grown along their lines, and a paragraph
//      wrapped around a drawing is cut where its margin moves;
//   6. a second look at each block (BlockVerifier.swift): hatching and painted detail that
//      passed the grouping are dropped; the punctuation at the lines' ends is added;
//   7. each block refined at full resolution: ink mask (from every reading on a flat ground),
//      tight box, ink and background colours;
//   8. roles, a pass near the edges for page numbers (PageNumbers.swift), and reading order.

import Dispatch
import Geometry
public import Raster

public struct PageAnalyzer: Sendable {
    /// The order blocks are read in across a row of blocks.
    public enum ReadingDirection: String, Sendable, Hashable, CaseIterable {
        case leftToRight
        case rightToLeft
    }

    public var parameters: AnalysisParameters

    public init(parameters: AnalysisParameters = .init()) {
        self.parameters = parameters
    }

    /// Finds the text blocks on `page`.
    public func analyze(_ page: Bitmap<RGBA8>, readingDirection: ReadingDirection = .leftToRight) -> PageAnalysis {
        var mask = Bitmap<UInt8>(width: page.width, height: page.height, fill: 0)
        guard page.width >= 8 && page.height >= 8 else { return PageAnalysis(blocks: [], inkMask: mask) }
        let p = parameters
        // Reduce from 1.4× the working height up: below that the detail lost costs more than the time saved.
        let f = max(1, Int(Double(page.height) / Double(max(1, p.workingHeight)) + 0.6))
        let work = WorkingImage(page: page, factor: f, parameters: p)
        var readings: [(DetectedPolarity, UInt8, Bool)] = []
        for polarity in DetectedPolarity.allCases {
            var levels: [UInt8] = p.strongContrast > p.minimumContrast ? [1, 2, 4] : [1, 4]
            if p.lineArtReading && (polarity == .darkOnLight || !p.lineArtDarkOnly) { levels += [8, 16] }
            if p.faintContrast > 0 { levels.append(32) }
            if p.coreInkFraction > 0 && polarity == .darkOnLight { levels.append(64) }
            readings += levels.map { (polarity, $0, false) }
            if p.erodedReading { readings.append((polarity, 1, true)) }
        }
        // One reading for all the page's ink colours (its layers are labelled together).
        if !work.colourInks.isEmpty { readings.append((.darkOnLight, 128, false)) }
        // Each reading is labelled and grouped on its own, so they share the cores.
        let rs = readings
        var perReading = [[BlockCandidate]](repeating: [], count: rs.count)
        perReading.withUnsafeMutableBufferPointer { out in
            nonisolated(unsafe) let out = out
            DispatchQueue.concurrentPerform(iterations: rs.count) { i in
                let (polarity, level, eroded) = rs[i]
                if level == 128 {
                    out[i] = work.colourCandidates().enumerated().flatMap { k, comps in
                        Grouper(work: work, parameters: p, polarity: polarity, level: level, colour: k).blocks(from: comps)
                    }
                    return
                }
                let comps = work.candidates(polarity: polarity, level: level, eroded: eroded)
                out[i] = Grouper(work: work, parameters: p, polarity: polarity, level: level).blocks(from: comps)
            }
        }
        var found = perReading.flatMap { $0 }
        let fragments = found.filter(\.weak)
        found.removeAll(where: \.weak)
        // Colour readings are for type that no other reading finds: where another reading has a
        // block, its block stands and the colour reading's goes.
        let byColour = found.filter { $0.level == 128 }
        found = suppressOverlaps(found.filter { $0.level != 128 })
        for c in suppressOverlaps(byColour) where !found.contains(where: { ($0.rect.intersection(c.rect)?.area ?? 0) > 0.1 * c.rect.area }) {
            found.append(c)
        }
        if p.growLines { found = found.map { work.extendLine($0) } }
        if p.shortColumns { found = found.map { work.addShortColumns($0) } }
        found = mergeFragments(found)
        if p.attachFragments { found = attach(fragments, to: found) }
        if p.trimBlocks {
            // A block cut back to one line may be a line whose other words were fused with the
            // art it sits on; growing it through its band recovers them.
            found = found.map { b in
                let t = trimToText(b, work: work)
                return p.growLines && t.rect != b.rect ? work.extendLine(t) : t
            }
        }
        if p.growEachLine { found = found.map { work.extendEachLine($0) } }
        if found.contains(where: { $0.level == 128 }) { found = absorbIntoColourBlocks(found) }
        if p.splitAtMargins {
            let all = found.flatMap(\.lines)
            found = found.flatMap { splitAtMargins($0, allLines: all, work: work) }
        }

        let verifier = BlockVerifier(work: work)
        found = verifier.filter(found)
        // Punctuation is added last: it widens a block the other steps have settled on, and no
        // step before needs it.
        found = found.map { work.addLineEndMarks($0) }

        var blocks: [DetectedBlock] = []
        var glyphCounts: [Int] = []
        for b in found {
            let flat = p.maskAllReadingsTexture > 0 && verifier.texture(around: b) <= p.maskAllReadingsTexture
            if let refined = work.refine(b, flatGround: flat, into: &mask) { blocks.append(refined); glyphCounts.append(b.componentCount) }
        }
        blocks = assignPageNumberRoles(blocks, glyphCounts: glyphCounts, pageWidth: page.width, pageHeight: page.height)
        blocks += work.pageNumbers(avoiding: blocks, into: &mask)
        blocks = readingOrder(blocks, direction: readingDirection)
        return PageAnalysis(blocks: blocks, inkMask: mask)
    }

    /// Where a dark-ink and a light-ink reading (or two orientations) claim the same place —
    /// the counters of dark letters look like light text — the stronger one wins.
    ///
    /// A weaker block loses only the lines that lie in a stronger one: one reading may find a
    /// paragraph's upper lines as one block and its lower lines, with some of the upper ones, as
    /// another, and the lower lines are found nowhere else.
    private func suppressOverlaps(_ blocks: [BlockCandidate]) -> [BlockCandidate] {
        let sorted = blocks.sorted { $0.strength > $1.strength }
        var kept: [BlockCandidate] = []
        func clashes(_ r: Rect) -> Bool {
            kept.contains { k in
                guard let i = k.rect.intersection(r) else { return false }
                return i.area >= 0.4 * min(k.rect.area, r.area)
            }
        }
        for b in sorted {
            guard clashes(b.rect) else { kept.append(b); continue }
            guard parameters.salvageLines, b.lines.count >= 2 else { continue }
            let rest = b.lines.filter { !clashes($0.rect) }
            guard rest.count < b.lines.count, let first = rest.first else { continue }
            var r = b
            r.lines = rest
            r.rect = rest.dropFirst().reduce(first.rect) { $0.union($1.rect) }
            r.componentCount = rest.reduce(0) { $0 + $1.glyphs }
            // What is left must stand as text on its own, and not overlap what was kept.
            guard r.componentCount >= 4, !clashes(r.rect) else { continue }
            kept.append(r)
        }
        return kept
    }

    /// A colour reading's block stands only where no other reading has one, but grown along its
    /// lines it can come to cover a piece of the same text that another reading found (a line's
    /// darkest words): that piece is taken into it rather than left as a second box over the
    /// same words.
    private func absorbIntoColourBlocks(_ blocks: [BlockCandidate]) -> [BlockCandidate] {
        var out = blocks
        var absorbed = Set<Int>()
        for i in out.indices where out[i].level == 128 {
            for j in out.indices where out[j].level != 128 && !absorbed.contains(j) {
                let (a, b) = (out[i], out[j])
                guard a.polarity == b.polarity, a.orientation == b.orientation,
                      let x = a.rect.intersection(b.rect), x.area >= 0.7 * b.rect.area else { continue }
                out[i].rect = a.rect.union(b.rect)
                out[i].lines += b.lines
                out[i].componentCount += b.componentCount
                absorbed.insert(j)
            }
        }
        return out.indices.filter { !absorbed.contains($0) }.map { out[$0] }
    }

    /// Over busy art a paragraph often comes out in pieces (words touching the drawing are
    /// lost); pieces with the same ink, type size and direction that sit where the next word or
    /// line of one paragraph would are joined into one block.
    private func mergeFragments(_ blocks: [BlockCandidate]) -> [BlockCandidate] {
        var uf = UnionFind(blocks.count)
        for i in blocks.indices {
            for j in blocks.indices where j > i {
                let a = blocks[i], b = blocks[j]
                guard a.polarity == b.polarity, a.orientation == b.orientation, abs(a.inkGray - b.inkGray) <= 40,
                      (a.level == 128) == (b.level == 128),
                      max(a.size, b.size) <= 1.6 * min(a.size, b.size) else { continue }
                let t = max(a.size, b.size)
                let horizontal = a.orientation == .horizontal
                let (along, across) = horizontal
                    ? (max(a.rect.minX, b.rect.minX) - min(a.rect.maxX, b.rect.maxX), max(a.rect.minY, b.rect.minY) - min(a.rect.maxY, b.rect.maxY))
                    : (max(a.rect.minY, b.rect.minY) - min(a.rect.maxY, b.rect.maxY), max(a.rect.minX, b.rect.minX) - min(a.rect.maxX, b.rect.maxX))
                // Next line (overlapping along the line) or next word (overlapping across it).
                if (across <= parameters.lineGap * t && along < 0) || (across < -0.5 * t && along <= 2.5 * t) { uf.union(i, j) }
            }
        }
        var groups: [Int: [Int]] = [:]
        for i in blocks.indices { groups[uf.find(i), default: []].append(i) }
        return groups.sorted(by: { $0.key < $1.key }).map { _, m in
            var b = blocks[m.max { blocks[$0].strength < blocks[$1].strength } ?? m[0]]
            for i in m {
                b.rect = b.rect.union(blocks[i].rect)
                b.confidence = max(b.confidence, blocks[i].confidence)
            }
            b.componentCount = m.reduce(0) { $0 + blocks[$1].componentCount }
            b.lines = m.flatMap { blocks[$0].lines }
            return b
        }
    }

    /// Hysteresis for lines: a weak fragment (see `Grouper.score`) joins a block when one of its
    /// lines continues one of the block's — the same row, glyph size and ink, and at most a
    /// word space or two along — so a line's last words come with it even where they alone
    /// would not pass for text. Fragments can chain (each one added extends the line).
    func attach(_ fragments: [BlockCandidate], to blocks: [BlockCandidate]) -> [BlockCandidate] {
        var out = blocks
        var pending = fragments.flatMap { f in f.lines.map { (line: $0, polarity: f.polarity) } }
        var changed = true
        while changed && !pending.isEmpty {
            changed = false
            pending.removeAll { piece in
                let l = piece.line
                for bi in out.indices where out[bi].orientation == .horizontal && out[bi].polarity == piece.polarity {
                    let continues = out[bi].lines.contains { k in
                        let overlap = min(l.rect.maxY, k.rect.maxY) - max(l.rect.minY, k.rect.minY)
                        let gap = max(l.rect.minX, k.rect.minX) - min(l.rect.maxX, k.rect.maxX)
                        return overlap >= 0.6 * min(l.rect.height, k.rect.height)
                            && max(l.thickness, k.thickness) <= 1.4 * min(l.thickness, k.thickness)
                            && abs(l.gray - k.gray) <= 40
                            && gap <= parameters.fragmentGap * max(l.thickness, k.thickness)
                    }
                    guard continues else { continue }
                    // A fragment only extends a block: one inside it (another reading's copy of
                    // a line it has, or art between its lines) adds nothing, and would change
                    // which line the block's trimming takes for its reference.
                    let known = (out[bi].rect.intersection(l.rect)?.area ?? 0) >= 0.8 * l.rect.area
                    changed = changed || !known
                    if known { return true }
                    out[bi].rect = out[bi].rect.union(l.rect)
                    var line = l
                    line.attached = true
                    out[bi].lines.append(line)
                    out[bi].componentCount += l.glyphs
                    return true
                }
                return false
            }
        }
        return out
    }

    /// A paragraph that wraps around a drawing — narrow beside it, full width below — is an
    /// L-shaped area, and its one box covers the drawing; the ink mask (and so ClearText) would
    /// take the drawing with the text. Such a block is cut in two where its margin moves.
    /// Rows are the lines in the block's box (its own, and those of blocks inside it set in its
    /// type's size and ink: the words of one row are often found as blocks of their own)
    /// grouped by their vertical overlap.
    /// Many rows are found only in part — words fused with the drawing, a last line, an indent —
    /// so the cut is a change point: the row between which the rows' left ends (or right ends)
    /// are best explained as two runs, each about its own median (least absolute deviation),
    /// among cuts with three rows at least on each side whose medians differ by `marginShift`
    /// glyph sizes. Rows found in part make such runs too, so the cut must also be seen on the
    /// page: beside the narrow part's rows, near their margin, a column of the working mask
    /// that is (almost) free of ink — the white gutter between a text column and a drawing,
    /// which words of rows found in part do not leave. The narrow part is cut back to that
    /// gutter; the wide part keeps the block's full width. The parts meet halfway between
    /// their rows, so text that no line found there is still inside one.
    func splitAtMargins(_ b: BlockCandidate, allLines: [LineSummary], work: WorkingImage) -> [BlockCandidate] {
        guard b.orientation == .horizontal, b.lines.count >= 6 else { return [b] }
        var rows: [(rect: Rect, lines: [LineSummary])] = []
        // A drawing's "lines" inside the box (blocks of hatching the verifier has yet to see)
        // are no rows of the paragraph, and they would hide its margin.
        let ink = median(b.lines.map(\.gray))
        func ownType(_ l: LineSummary) -> Bool {
            b.lines.contains { $0.rect == l.rect }
                || (max(l.thickness, b.size) <= parameters.trimSizeRatio * min(l.thickness, b.size)
                    && abs(l.gray - ink) <= parameters.trimGrayDifference)
        }
        let inBox = allLines.filter { l in (l.rect.intersection(b.rect)?.area ?? 0) >= 0.5 * l.rect.area && ownType(l) }
        for l in inBox.sorted(by: { $0.rect.minY < $1.rect.minY }) {
            if let i = rows.firstIndex(where: { r in
                min(l.rect.maxY, r.rect.maxY) - max(l.rect.minY, r.rect.minY) >= 0.5 * min(l.rect.height, r.rect.height)
            }) {
                rows[i].rect = rows[i].rect.union(l.rect)
                rows[i].lines.append(l)
            } else {
                rows.append((l.rect, [l]))
            }
        }
        rows.sort { $0.rect.minY < $1.rect.minY }
        guard rows.count >= 6 else { return [b] }
        func quantile(_ v: [Double], _ q: Double) -> Double {
            let s = v.sorted()
            return s[min(s.count - 1, Int(q * Double(s.count - 1) + 0.5))]
        }
        // The margin's change point: the cut that best explains the rows' ends as two runs,
        // each about its own median (least absolute deviation), among cuts where the medians
        // differ by `marginShift` glyph sizes. (Row where the lower part starts, left margin
        // moved, lower part is the narrow one.)
        let shift = parameters.marginShift * b.size
        func deviation(_ v: ArraySlice<Double>) -> (median: Double, cost: Double) {
            let m = quantile(Array(v), 0.5)
            return (m, v.reduce(0) { $0 + abs($1 - m) })
        }
        var best = 0.0, cut: (at: Int, left: Bool, lowerNarrow: Bool)?
        for isLeft in [true, false] {
            let ends = rows.map { isLeft ? $0.rect.minX : $0.rect.maxX }
            let whole = deviation(ends[...]).cost
            for k in 3...(rows.count - 3) {
                let above = deviation(ends[0..<k]), below = deviation(ends[k...])
                let move = isLeft ? below.median - above.median : above.median - below.median
                let gain = whole - above.cost - below.cost
                if abs(move) >= shift && gain > best { best = gain; cut = (k, isLeft, move > 0) }
            }
        }
        guard let cut else { return [b] }
        let narrow = cut.lowerNarrow ? rows[cut.at...] : rows[0..<cut.at]
        let margin = cut.left ? quantile(narrow.map(\.rect.minX), 0.1) : quantile(narrow.map(\.rect.maxX), 0.9)
        guard let gutter = gutter(near: margin, left: cut.left, rows: narrow.map(\.rect), size: b.size,
                                  polarity: b.polarity, work: work) else { return [b] }
        let mid = (rows[cut.at - 1].rect.maxY + rows[cut.at].rect.minY) / 2
        var parts: [BlockCandidate] = []
        for lower in [false, true] {
            var minX = b.rect.minX, maxX = b.rect.maxX
            if lower == cut.lowerNarrow {
                if cut.left { minX = gutter } else { maxX = gutter }
            }
            let (top, bottom) = lower ? (mid, b.rect.maxY) : (b.rect.minY, mid)
            guard maxX > minX, bottom > top else { return [b] }
            var part = b
            part.rect = Rect(x: minX, y: top, width: maxX - minX, height: bottom - top)
            part.lines = b.lines.filter { l in (l.rect.intersection(part.rect)?.area ?? 0) >= 0.5 * l.rect.area }
            part.componentCount = part.lines.reduce(0) { $0 + $1.glyphs }
            if !part.lines.isEmpty { parts.append(part) }
        }
        return parts.isEmpty ? [b] : parts
    }

    /// The white gutter beside a text column: the column of the working mask, from two glyph
    /// sizes outside `margin` to half a glyph inside it, with the least ink over the rows'
    /// height, if that is at most 3 % of it (a stray mark may cross a gutter). Nil when there
    /// is none — the rows' ends there are words, not a margin.
    private func gutter(near margin: Double, left: Bool, rows: [Rect], size: Double,
                        polarity: DetectedPolarity, work: WorkingImage) -> Double? {
        guard let m = work.masks[polarity], let first = rows.first else { return nil }
        let y0 = max(0, Int(first.minY)), y1 = min(work.height, Int((rows.map(\.maxY).max() ?? first.maxY).rounded(.up)) + 1)
        guard y1 > y0 else { return nil }
        let (a, b) = left ? (margin - 2 * size, margin + 0.5 * size) : (margin - 0.5 * size, margin + 2 * size)
        let x0 = max(0, Int(a)), x1 = min(work.width - 1, Int(b.rounded(.up)))
        guard x1 > x0 else { return nil }
        var best = Int.max, at = 0
        // Nearest the text first, so of equal columns the one hugging the text wins.
        let xs = left ? Array(stride(from: x1, through: x0, by: -1)) : Array(x0...x1)
        for x in xs {
            var ink = 0
            for y in y0..<y1 where m[y * work.width + x] != 0 { ink += 1 }
            if ink < best { best = ink; at = x }
        }
        guard Double(best) <= 0.03 * Double(y1 - y0) else { return nil }
        return left ? min(Double(at + 1), margin) : max(Double(at), margin)
    }

    /// Over a drawing, a block's lines include "lines" of the picture — picket tips, bunting,
    /// a row of grass clumps — that joined it because they lie a line's distance away with
    /// about the text's glyph size. They differ from the text in what is measured line by line:
    /// grey, stroke width, glyph size. The block keeps the lines that match its reference line
    /// and shrinks to them; the confidence and glyph count stay what they were, so this never
    /// costs a block its place.
    func trimToText(_ b: BlockCandidate, work: WorkingImage? = nil) -> BlockCandidate {
        guard b.lines.count >= 2 else { return b }
        func evidence(_ l: LineSummary) -> Double { Double(l.glyphs) * (1 + Double(l.holed) / Double(max(1, l.glyphs))) }
        // Printed type is solid ink, so its lines are the darkest (lightest, for light ink) of
        // the block; drawn outlines come out paler at the working resolution. The reference is
        // the best-evidenced line among those as inky as the inkiest.
        func reference(among lines: [LineSummary]) -> LineSummary? {
            let inkiest = b.polarity == .darkOnLight ? lines.map(\.gray).min() ?? 0 : lines.map(\.gray).max() ?? 255
            return lines.filter { abs($0.gray - inkiest) <= parameters.trimGrayDifference }.max { evidence($0) < evidence($1) }
        }
        let own = b.lines.filter { !$0.attached }
        guard var ref = reference(among: own) else { return b }
        // Hatched shading is the exception: its strokes are packed so close that at working
        // resolution they read darker than small type, and the gaps between them count as
        // counters. But type is set where it can be read, on paper or a smooth ground, while
        // hatching lies amid more of itself (the verifier's texture). A reference on textured
        // ground gives way to the inkiest lines on smooth ground when those hold most of the
        // block's glyphs (a paragraph beside a drawing, not text over one, where both kinds of
        // line share the ground); the lines on textured ground are then the drawing's unless
        // they match that reference themselves. `work` nil: no texture is read.
        var drawing: [Bool]? = nil
        if parameters.trimOnSmoothGround, let work {
            let verifier = BlockVerifier(work: work)
            if verifier.textures(around: [ref.rect], polarity: b.polarity)[0] >= parameters.texturedGround {
                let busy = verifier.textures(around: b.lines.map(\.rect), polarity: b.polarity).map { $0 >= parameters.texturedGround }
                let smooth = b.lines.indices.filter { !busy[$0] && !b.lines[$0].attached }.map { b.lines[$0] }
                if 2 * smooth.reduce(0, { $0 + $1.glyphs }) > own.reduce(0, { $0 + $1.glyphs }), let r = reference(among: smooth) {
                    ref = r
                    drawing = busy
                }
            }
        }
        // The counters' allowance is for lighter lettering, which is paler than the reference;
        // a line inkier than the reference by more than the plain limit is not type.
        func grayLimit(_ l: LineSummary) -> Double {
            let paler = b.polarity == .darkOnLight ? l.gray > ref.gray : l.gray < ref.gray
            return paler && l.holed >= 2 && 3 * l.holed >= l.glyphs
                ? max(parameters.trimGrayDifference, parameters.trimHoledGrayDifference) : parameters.trimGrayDifference
        }
        let matches = b.lines.map { l in
            max(l.thickness, ref.thickness) <= parameters.trimSizeRatio * min(l.thickness, ref.thickness)
                && abs(l.gray - ref.gray) <= grayLimit(l)
                && max(l.stroke, ref.stroke) <= parameters.trimStrokeRatio * min(l.stroke, ref.stroke) + 0.2
        }
        var kept = b.lines.indices.filter { matches[$0] }.map { b.lines[$0] }
        // Pieces of a kept line (an Arabic line comes in word groups of their own weight) are
        // text too: what is trimmed is what lies in other rows. Beside a column of type, the
        // drawing's lines share its rows, and they stay out.
        let horizontal = b.orientation == .horizontal
        func span(_ r: Rect) -> (Double, Double) { horizontal ? (r.minY, r.maxY) : (r.minX, r.maxX) }
        for (i, l) in b.lines.enumerated() where !(drawing?[i] ?? false) && !kept.contains(where: { $0.rect == l.rect }) {
            let (lo, hi) = span(l.rect)
            let sameRow = kept.contains { k in
                let (klo, khi) = span(k.rect)
                return min(hi, khi) - max(lo, klo) >= 0.5 * min(hi - lo, khi - klo)
            }
            if sameRow { kept.append(l) }
        }
        guard let first = kept.first else { return b }
        let rect = kept.dropFirst().reduce(first.rect) { $0.union($1.rect) }
        // A drawing set into a paragraph's L need not stretch the box, but its lines would
        // still take it into the ink mask (the mask keeps to the block's lines) and into the
        // rows that cut the L.
        let dropped = drawing != nil && kept.count < b.lines.count
        guard let clipped = rect.intersection(b.rect), clipped.area < b.rect.area || dropped else { return b }
        var out = b
        out.rect = clipped
        out.lines = kept
        return out
    }

    /// Rows of blocks top to bottom; within a row (blocks whose vertical spans overlap by half)
    /// in the book's direction. Page numbers come last.
    func readingOrder(_ blocks: [DetectedBlock], direction: ReadingDirection) -> [DetectedBlock] {
        let body = blocks.filter { $0.role != .pageNumber }.sorted { $0.rect.y < $1.rect.y }
        var rows: [[DetectedBlock]] = []
        for b in body {
            if var last = rows.last, let first = last.first {
                let top = max(first.rect.y, b.rect.y)
                let bottom = min(last.map { $0.rect.y + $0.rect.height }.max() ?? 0, b.rect.y + b.rect.height)
                if bottom - top > min(first.rect.height, b.rect.height) / 2 {
                    last.append(b)
                    rows[rows.count - 1] = last
                    continue
                }
            }
            rows.append([b])
        }
        var out: [DetectedBlock] = []
        for row in rows {
            let s = row.sorted { direction == .leftToRight ? $0.rect.x < $1.rect.x : $0.rect.x + $0.rect.width > $1.rect.x + $1.rect.width }
            out += s
        }
        out += blocks.filter { $0.role == .pageNumber }.sorted { $0.rect.x < $1.rect.x }
        for i in out.indices { out[i].order = i }
        return out
    }
}

/// A block before full-resolution refinement, in working pixels.
struct BlockCandidate {
    var rect: Rect
    var orientation: DetectedOrientation
    var polarity: DetectedPolarity
    var confidence: Double
    var componentCount: Int
    /// Mean working-resolution grey of the block's glyph components.
    var inkGray: Double
    /// The contrast level (1-based) whose mask the block was found in.
    var level: UInt8
    /// For level 128: which of the page's ink colours (`WorkingImage.colourInks`).
    var colour: Int = -1
    /// Median glyph size across the lines (height for horizontal text, width for vertical).
    var size: Double
    /// The lines the block was built from (after `score` dropped what did not sit on them).
    var lines: [LineSummary] = []
    /// A fragment that is no block on its own and may only extend one (see `attachFragments`).
    var weak = false
    var strength: Double { confidence * Double(componentCount).squareRoot() * rect.area.squareRoot() }
}

/// What trimming a block needs to know about one of its lines, in working pixels.
struct LineSummary {
    var rect: Rect
    /// Median glyph size across the line.
    var thickness: Double
    /// Mean working grey of its glyphs.
    var gray: Double
    /// Median stroke width of its glyphs.
    var stroke: Double
    var glyphs: Int
    /// Glyphs with at least one enclosed counter.
    var holed: Int
    /// Added by `attach` (a weak fragment continuing a line): never the block's reference line.
    var attached = false
}
