// A second look at each block: what kind of ground it lies on. The grouping's tests are local
// (is this component glyph-sized, does it sit on its neighbours' line), and engraved or painted
// illustration — cross-hatched foliage, flower spikes, fur, straw, the hatched shading of a
// woodcut — passes them in small groups. Such a "block" is cut out of a textured area: around its
// marks, the picture goes on with more strokes, shading and stipple. Type is set where it can be
// read — on paper, a wash, a sky, or (in picture books) over a drawing whose flat colour fields
// and outlines leave most of the ground smooth. So the verifier measures the texture of the
// block's ground and holds blocks on textured ground to a higher standard.
//
// Measured (Documentation/PageAnalysis.md, "Engraved plates"): structural features of the ink
// alone — edge-orientation dominance, stroke-width variation, the share of ink in aligned runs of
// equal-height components, ink saturation — overlap between the plates' false blocks and real
// text over art on the benchmark pages; the texture of the ground separates them.

import Geometry

struct BlockVerifier {
    let work: WorkingImage

    func filter(_ blocks: [BlockCandidate]) -> [BlockCandidate] {
        guard work.parameters.verifyBlocks else { return blocks }
        return blocks.filter(accepts)
    }

    /// Whether `b` stands: on textured ground, a horizontal block needs the confidence the
    /// deep-ink reading needs, and a vertical one is never accepted (vertical chains are what
    /// hatching, bark and shading make most often; vertical text is set on plain ground).
    func accepts(_ b: BlockCandidate) -> Bool {
        let p = work.parameters
        let horizontal = b.orientation == .horizontal
        // Only a block that could fail is measured. A colour reading's block always is: its
        // low contrast lets a painted plate's coloured detail in at any confidence.
        if horizontal && b.confidence >= p.texturedGroundConfidence && b.level != 128 { return true }
        let busy = texture(around: b)
        return horizontal ? busy < p.texturedGround : busy < p.texturedGroundVertical
    }

    /// Share of the ground around `b` that is textured: over the block's box grown by its
    /// smaller side (8…24 working pixels), the pixels farther than two pixels (city-block) from
    /// anything its polarity's masks call ink, counting those where the grey changes by at least
    /// `texturedGradient` levels across two pixels (|dx| + |dy|). Paper, skies, washes and flat
    /// colour fields are near 0; hatching, stipple and painted texture are 0.4–1.
    func texture(around b: BlockCandidate) -> Double {
        textures(around: [b.rect], polarity: b.polarity)[0]
    }

    /// `texture(around:)` of several boxes at once (a block's lines): the ground is read once
    /// over the area they span and summed per box.
    func textures(around rects: [Rect], polarity: DetectedPolarity) -> [Double] {
        guard let m = work.masks[polarity], !rects.isEmpty else { return rects.map { _ in 0 } }
        let W = work.width, H = work.height
        // Each box grown by its smaller side, at least a line's worth of ground: a small
        // caption's own halo is no sample of it.
        let windows = rects.map { r in
            let margin = Int(min(24, max(8, min(r.width, r.height))))
            return (x0: max(1, Int(r.minX) - margin), y0: max(1, Int(r.minY) - margin),
                    x1: min(W - 1, Int(r.maxX.rounded(.up)) + margin), y1: min(H - 1, Int(r.maxY.rounded(.up)) + margin))
        }
        let x0 = windows.map(\.x0).min() ?? 1, y0 = windows.map(\.y0).min() ?? 1
        let x1 = windows.map(\.x1).max() ?? 1, y1 = windows.map(\.y1).max() ?? 1
        let w = x1 - x0, h = y1 - y0
        guard w > 0, h > 0 else { return rects.map { _ in 0 } }
        // Distance (city-block, capped at 3) to the nearest ink pixel of any level, by two
        // passes; then ground and textured ground as summed-area tables, so each window is four
        // look-ups.
        let limit = Int(work.parameters.texturedGradient)
        let sw = w + 1
        var ground = [Int32](repeating: 0, count: sw * (h + 1)), textured = ground
        var d = [UInt8](repeating: 3, count: w * h)
        d.withUnsafeMutableBufferPointer { d in
            m.withUnsafeBufferPointer { m in
                for y in 0..<h {
                    let row = (y + y0) * W + x0
                    for x in 0..<w where m[row + x] != 0 { d[y * w + x] = 0 }
                }
            }
            for y in 0..<h {
                for x in 0..<w where d[y * w + x] != 0 {
                    var v = d[y * w + x]
                    if x > 0 { v = min(v, d[y * w + x - 1] + 1) }
                    if y > 0 { v = min(v, d[(y - 1) * w + x] + 1) }
                    d[y * w + x] = v
                }
            }
            for y in stride(from: h - 1, through: 0, by: -1) {
                for x in stride(from: w - 1, through: 0, by: -1) where d[y * w + x] != 0 {
                    var v = d[y * w + x]
                    if x + 1 < w { v = min(v, d[y * w + x + 1] + 1) }
                    if y + 1 < h { v = min(v, d[(y + 1) * w + x] + 1) }
                    d[y * w + x] = v
                }
            }
            work.gray.withUnsafeBufferPointer { g in
                ground.withUnsafeMutableBufferPointer { gs in
                    textured.withUnsafeMutableBufferPointer { ts in
                        for y in 0..<h {
                            let row = (y + y0) * W + x0
                            var gRun: Int32 = 0, tRun: Int32 = 0
                            for x in 0..<w {
                                if d[y * w + x] > 2 {
                                    let i = row + x
                                    gRun += 1
                                    if abs(Int(g[i + 1]) - Int(g[i - 1])) + abs(Int(g[i + W]) - Int(g[i - W])) >= limit { tRun += 1 }
                                }
                                gs[(y + 1) * sw + x + 1] = gs[y * sw + x + 1] + gRun
                                ts[(y + 1) * sw + x + 1] = ts[y * sw + x + 1] + tRun
                            }
                        }
                    }
                }
            }
        }
        return windows.map { v in
            let (a, b, c, e) = (v.x0 - x0, v.y0 - y0, v.x1 - x0, v.y1 - y0)
            guard c > a, e > b else { return 0 }
            func sum(_ t: [Int32]) -> Int32 { t[e * sw + c] - t[b * sw + c] - t[e * sw + a] + t[b * sw + a] }
            let n = sum(ground)
            return n > 0 ? Double(sum(textured)) / Double(n) : 0
        }
    }
}
