// The detector. Pipeline (Documentation/PageAnalysis.md explains each choice):
//   1. grey at a working resolution of about 1000 px tall (integer box reduction);
//   2. local-mean binarization in both polarities (dark ink and light ink);
//   3. connected components, kept when their size, fill and stroke width could be a glyph;
//   4. components chained into horizontal and vertical lines; each component joins the
//      direction in which its line is longer;
//   5. lines merged into blocks; blocks scored for text-likeness (alignment, holes, size variety)
//      so fences, grass, hatching and stripes drop out;
//   6. a second look at each block (BlockVerifier.swift): hatching and painted detail that
//      passed the grouping are dropped;
//   7. each block refined at full resolution: ink mask, tight box, ink and background colours;
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
        // Each reading is labelled and grouped on its own, so they share the cores.
        let rs = readings
        var perReading = [[BlockCandidate]](repeating: [], count: rs.count)
        perReading.withUnsafeMutableBufferPointer { out in
            nonisolated(unsafe) let out = out
            DispatchQueue.concurrentPerform(iterations: rs.count) { i in
                let (polarity, level, eroded) = rs[i]
                let comps = work.candidates(polarity: polarity, level: level, eroded: eroded)
                out[i] = Grouper(work: work, parameters: p, polarity: polarity, level: level).blocks(from: comps)
            }
        }
        var found = perReading.flatMap { $0 }
        found = suppressOverlaps(found)
        if p.growLines { found = found.map { work.extendLine($0) } }
        if p.shortColumns { found = found.map { work.addShortColumns($0) } }
        found = mergeFragments(found)
        if p.trimBlocks {
            // A block cut back to one line may be a line whose other words were fused with the
            // art it sits on; growing it through its band recovers them.
            found = found.map { b in
                let t = trimToText(b)
                return p.growLines && t.rect != b.rect ? work.extendLine(t) : t
            }
        }
        if p.growEachLine { found = found.map { work.extendEachLine($0) } }

        found = BlockVerifier(work: work).filter(found)

        var blocks: [DetectedBlock] = []
        var glyphCounts: [Int] = []
        for b in found {
            if let refined = work.refine(b, into: &mask) { blocks.append(refined); glyphCounts.append(b.componentCount) }
        }
        blocks = assignPageNumberRoles(blocks, glyphCounts: glyphCounts, pageWidth: page.width, pageHeight: page.height)
        blocks += work.pageNumbers(avoiding: blocks, into: &mask)
        blocks = readingOrder(blocks, direction: readingDirection)
        return PageAnalysis(blocks: blocks, inkMask: mask)
    }

    /// Where a dark-ink and a light-ink reading (or two orientations) claim the same place —
    /// the counters of dark letters look like light text — the stronger one wins.
    private func suppressOverlaps(_ blocks: [BlockCandidate]) -> [BlockCandidate] {
        let sorted = blocks.sorted { $0.strength > $1.strength }
        var kept: [BlockCandidate] = []
        for b in sorted {
            let clash = kept.contains { k in
                guard let i = k.rect.intersection(b.rect) else { return false }
                return i.area >= 0.4 * min(k.rect.area, b.rect.area)
            }
            if !clash { kept.append(b) }
        }
        return kept
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

    /// Over a drawing, a block's lines include "lines" of the picture — picket tips, bunting,
    /// a row of grass clumps — that joined it because they lie a line's distance away with
    /// about the text's glyph size. They differ from the text in what is measured line by line:
    /// grey, stroke width, glyph size. The block keeps the lines that match its reference line
    /// and shrinks to them; the confidence and glyph count stay what they were, so this never
    /// costs a block its place.
    func trimToText(_ b: BlockCandidate) -> BlockCandidate {
        guard b.lines.count >= 2 else { return b }
        func evidence(_ l: LineSummary) -> Double { Double(l.glyphs) * (1 + Double(l.holed) / Double(max(1, l.glyphs))) }
        // Printed type is solid ink, so its lines are the darkest (lightest, for light ink) of
        // the block; drawn outlines come out paler at the working resolution. The reference is
        // the best-evidenced line among those as inky as the inkiest.
        let inkiest = b.polarity == .darkOnLight ? b.lines.map(\.gray).min() ?? 0 : b.lines.map(\.gray).max() ?? 255
        guard let ref = b.lines.filter({ abs($0.gray - inkiest) <= parameters.trimGrayDifference })
            .max(by: { evidence($0) < evidence($1) }) else { return b }
        func grayLimit(_ l: LineSummary) -> Double {
            l.holed >= 2 && 3 * l.holed >= l.glyphs ? max(parameters.trimGrayDifference, parameters.trimHoledGrayDifference)
                : parameters.trimGrayDifference
        }
        var kept = b.lines.filter { l in
            max(l.thickness, ref.thickness) <= parameters.trimSizeRatio * min(l.thickness, ref.thickness)
                && abs(l.gray - ref.gray) <= grayLimit(l)
                && max(l.stroke, ref.stroke) <= parameters.trimStrokeRatio * min(l.stroke, ref.stroke) + 0.2
        }
        // Pieces of a kept line (an Arabic line comes in word groups of their own weight) are
        // text too: what is trimmed is what lies in other rows.
        let horizontal = b.orientation == .horizontal
        func span(_ r: Rect) -> (Double, Double) { horizontal ? (r.minY, r.maxY) : (r.minX, r.maxX) }
        for l in b.lines where !kept.contains(where: { $0.rect == l.rect }) {
            let (lo, hi) = span(l.rect)
            let sameRow = kept.contains { k in
                let (klo, khi) = span(k.rect)
                return min(hi, khi) - max(lo, klo) >= 0.5 * min(hi - lo, khi - klo)
            }
            if sameRow { kept.append(l) }
        }
        guard let first = kept.first else { return b }
        let rect = kept.dropFirst().reduce(first.rect) { $0.union($1.rect) }
        guard let clipped = rect.intersection(b.rect), clipped.area < b.rect.area else { return b }
        var out = b
        out.rect = clipped
        out.lines = kept
        return out
    }

    /// Rows of blocks top to bottom; within a row (blocks whose vertical spans overlap by half)
    /// in the book's direction. Page numbers come last.
    private func readingOrder(_ blocks: [DetectedBlock], direction: ReadingDirection) -> [DetectedBlock] {
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
    /// Median glyph size across the lines (height for horizontal text, width for vertical).
    var size: Double
    /// The lines the block was built from (after `score` dropped what did not sit on them).
    var lines: [LineSummary] = []
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
}
