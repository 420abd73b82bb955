// Page numbers. A folio is one to four digits set small and alone near the top or bottom edge —
// too few glyphs for the block pass, whose confidence rests on glyph count, line count and
// counters. So the edge bands get a pass of their own that looks for exactly that shape: a short
// run of digit-sized, equally tall, baseline-aligned components, with nothing of their size
// nearby, at one of the places books put folios (an outer corner or the centre), printed in a
// neutral ink (art near the edge — grass, flowers — is coloured).
//
// The same description decides the role of blocks the main pass found near an edge: a caption
// or a list entry there has more glyphs than a folio and stays body text.

import Geometry
import Raster

extension WorkingImage {
    /// Page-number blocks in the top and bottom bands that `blocks` (already refined, scan
    /// pixels) do not cover, refined at full resolution into `inkMask`.
    func pageNumbers(avoiding blocks: [DetectedBlock], into inkMask: inout Bitmap<UInt8>) -> [DetectedBlock] {
        let p = parameters
        guard p.pageNumberBand > 0 else { return [] }
        let band = max(8, Int(p.pageNumberBand * Double(height)))
        let f = Double(factor)
        let taken = blocks.map { b in
            Rect(x: Double(b.rect.x) / f, y: Double(b.rect.y) / f, width: Double(b.rect.width) / f, height: Double(b.rect.height) / f)
        }
        var found: [DetectedBlock] = []
        for (y0, y1) in [(0, min(height, band)), (max(0, height - band), height)] where y1 - y0 > 4 {
            var here: [BlockCandidate] = []
            for polarity in DetectedPolarity.allCases {
                // Both polarities can claim one folio (the counters of dark digits are light).
                for c in numberCandidates(polarity: polarity, rows: y0..<y1, avoiding: taken) where !here.contains(where: { $0.rect.intersects(c.rect) }) {
                    here.append(c)
                }
            }
            // A page has one folio per edge (a scanned spread one per half): two candidates on
            // one half of a band mean the band holds something else — stars, a border, lettering.
            for c in here {
                let left = c.rect.midX < Double(width) / 2
                guard !here.contains(where: { $0.rect != c.rect && ($0.rect.midX < Double(width) / 2) == left }) else { continue }
                guard var b = refine(c, into: &inkMask) else { continue }
                b.role = .pageNumber
                found.append(b)
            }
        }
        return found
    }

    /// Digit groups in `rows` of one polarity's mask, as block candidates in working pixels.
    private func numberCandidates(polarity: DetectedPolarity, rows: Range<Int>, avoiding taken: [Rect]) -> [BlockCandidate] {
        guard let m = masks[polarity] else { return [] }
        let p = parameters
        let w = width, bh = rows.count
        // Contrast or deep ink: a folio is solid type, and on a dark or coloured ground only one
        // of the two may hold it.
        let level: UInt8 = 5
        var band = [UInt8](repeating: 0, count: w * bh), bandGray = [UInt8](repeating: 0, count: w * bh)
        for y in 0..<bh {
            for x in 0..<w {
                band[y * w + x] = m[(y + rows.lowerBound) * w + x]
                bandGray[y * w + x] = gray[(y + rows.lowerBound) * w + x]
            }
        }
        let labeling = band.withUnsafeBufferPointer { mb in
            bandGray.withUnsafeBufferPointer { gb in ComponentLabeler.label(mask: mb, atLeast: level, gray: gb, width: w, height: bh) }
        }
        let minH = max(5.0, p.pageNumberMinimumHeight * Double(height)), maxH = p.pageNumberMaximumHeight * Double(height)
        struct Piece { var rect: Rect; var stroke: Double; var gray: Double }
        var pieces: [Piece] = []
        var others: [Rect] = []
        for c in labeling.components where c.area >= 6 {
            let cw = Double(c.width), ch = Double(c.height)
            let r = Rect(x: Double(c.minX), y: Double(Int(c.minY) + rows.lowerBound), width: cw, height: ch)
            // Digits are taller than wide, down to about a third for a "1" (thinner is a stroke
            // of grass or an outline). A ring or a dot as wide as it is tall (a star, an
            // ornament) is no digit ("0" never stands alone), and neither is anything wider: two
            // digits the scan fused are given up rather than let monograms and lettering in.
            let isDigit = ch >= minH && ch <= maxH && cw >= max(2, 0.3 * ch) && cw <= 0.85 * ch
                && c.fill >= 0.12 && c.fill <= 0.8 && c.strokeWidth <= 0.4 * ch + 1
                && c.minY > 0 && Int(c.maxY) < bh - 1
            if isDigit {
                pieces.append(Piece(rect: r, stroke: c.strokeWidth, gray: c.meanGray))
            } else if max(cw, ch) >= 0.5 * minH {
                others.append(r)
            }
        }
        guard !pieces.isEmpty else { return [] }
        pieces.sort { $0.rect.minX < $1.rect.minX }
        // Runs of equally tall, aligned pieces close together: the digits of one number.
        var groups: [[Int]] = []
        for i in pieces.indices {
            if let last = groups.last?.last {
                let a = pieces[last].rect, b = pieces[i].rect
                let t = max(a.height, b.height)
                if b.minX - a.maxX <= 0.6 * t, max(a.height, b.height) <= 1.25 * min(a.height, b.height),
                   abs(a.maxY - b.maxY) <= 0.15 * t + 1, abs(a.minY - b.minY) <= 0.15 * t + 1,
                   abs(pieces[last].gray - pieces[i].gray) <= 40
                {
                    groups[groups.count - 1].append(i)
                    continue
                }
            }
            groups.append([i])
        }
        var out: [BlockCandidate] = []
        let W = Double(w)
        // Everything in the band, indexed by column so each group only meets its row.
        let all = pieces.map(\.rect) + others
        let cell = 32.0, cells = Int(W / cell) + 1
        var columns = [[Int]](repeating: [], count: cells)
        for (i, r) in all.enumerated() {
            for c in max(0, Int(r.minX / cell))...min(cells - 1, Int(r.maxX / cell)) { columns[c].append(i) }
        }
        for g in groups {
            guard g.count <= p.pageNumberMaximumDigits else { continue }
            let rect = g.dropFirst().reduce(pieces[g[0]].rect) { $0.union(pieces[$1].rect) }
            let t = rect.height
            // Where books set folios: an outer corner or the middle.
            let cx = rect.midX / W
            guard (cx >= 0.04 && cx <= 0.25) || (cx >= 0.4 && cx <= 0.6) || (cx >= 0.75 && cx <= 0.96) else { continue }
            let strokes = g.map { pieces[$0].stroke }
            guard (strokes.max() ?? 0) <= 1.8 * (strokes.min() ?? 0) + 1 else { continue }
            // Alone. A folio has its line to itself: nothing of at least half its height beside it
            // (a word, a letter of a larger line, grass, the rest of a drawing); no type-sized
            // mark just above or below; no block the main pass found beside it (one just above
            // is fine: a folio can sit a line under the text, whose box reaches its descenders).
            let zone = rect.insetBy(dx: -2.5 * t, dy: -0.8 * t)
            let row = rect.insetBy(dx: -5 * t, dy: 0)
            let members = Set(g)
            var crowded = taken.contains { $0.insetBy(dx: -1.5 * t, dy: 0).intersects(rect) }
            var seen = Set<Int>()
            search: for c in max(0, Int(row.minX / cell))...min(cells - 1, Int(row.maxX / cell)) where !crowded {
                for i in columns[c] where !members.contains(i) && seen.insert(i).inserted {
                    let o = all[i]
                    let inRow = row.intersects(o) && o.height >= 0.5 * t && min(o.maxY, rect.maxY) - max(o.minY, rect.minY) >= 0.3 * t
                    let near = zone.intersects(o) && (i < pieces.count || (o.height >= 0.5 * t && o.height <= 2 * t && o.width <= 3 * t))
                    if inRow || near { crowded = true; break search }
                }
            }
            guard !crowded else { continue }
            // Printed in a neutral ink: grass, flowers and painted detail near the edge are not.
            guard inkChroma(in: rect, polarity: polarity, level: level) <= p.pageNumberMaximumChroma else { continue }
            let inkGray = g.reduce(0.0) { $0 + pieces[$1].gray } / Double(g.count)
            // Refined in the reading that holds most of its ink (contrast or deep ink), whose
            // full-resolution neighbourhood mask the main pass has usually built already.
            let c = BlockCandidate(rect: rect, orientation: .horizontal, polarity: polarity, confidence: 0.7,
                                   componentCount: g.count, inkGray: inkGray, level: mainLevel(in: rect, of: m), size: t)
            // On paper, a flat colour or a drawing's smooth fields — not in hatching or foliage.
            guard BlockVerifier(work: self).texture(around: c) < p.texturedGround else { continue }
            out.append(c)
        }
        return out
    }

    /// 1 (contrast) when at least half of the contrast-or-deep ink in `r` passes the contrast
    /// reading, else 4 (deep ink).
    private func mainLevel(in r: Rect, of m: [UInt8]) -> UInt8 {
        var contrast = 0, any = 0
        for y in max(0, Int(r.minY))..<min(height, Int(r.maxY) + 1) {
            for x in max(0, Int(r.minX))..<min(width, Int(r.maxX) + 1) where m[y * width + x] & 5 != 0 {
                any += 1
                if m[y * width + x] & 1 != 0 { contrast += 1 }
            }
        }
        return 2 * contrast >= any ? 1 : 4
    }

    /// max − min of the mean scan colour under the mask inside `r` (working pixels).
    private func inkChroma(in r: Rect, polarity: DetectedPolarity, level: UInt8) -> Double {
        guard let m = masks[polarity] else { return .infinity }
        let f = factor, W = page.width
        var s = (0, 0, 0), n = 0
        page.pixels.withUnsafeBufferPointer { px in
            for y in max(0, Int(r.minY))..<min(height, Int(r.maxY)) {
                for x in max(0, Int(r.minX))..<min(width, Int(r.maxX)) where m[y * width + x] & level != 0 {
                    let q = px[(y * f + f / 2) * W + x * f + f / 2]
                    s.0 += Int(q.r); s.1 += Int(q.g); s.2 += Int(q.b); n += 1
                }
            }
        }
        guard n > 0 else { return .infinity }
        let c = [Double(s.0), Double(s.1), Double(s.2)].map { $0 / Double(n) }
        return (c.max() ?? 0) - (c.min() ?? 0)
    }
}

extension PageAnalyzer {
    /// Blocks near the top or bottom edge that look like a folio — small, horizontal, and only a
    /// few glyphs — are page numbers; a caption or a list line there has more glyphs.
    func assignPageNumberRoles(_ blocks: [DetectedBlock], glyphCounts: [Int], pageWidth: Int, pageHeight: Int) -> [DetectedBlock] {
        let H = Double(pageHeight)
        return blocks.indices.map { i in
            var b = blocks[i]
            let r = Rect(b.rect)
            let nearEdge = r.midY > 0.86 * H || r.midY < 0.09 * H
            if nearEdge && r.height <= parameters.pageNumberMaximumHeight * H && r.width < 0.12 * Double(pageWidth) && b.orientation == .horizontal
                && glyphCounts[i] <= parameters.pageNumberMaximumDigits && r.width <= 3.2 * r.height
            {
                b.role = .pageNumber
            }
            return b
        }
    }
}
