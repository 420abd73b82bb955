// Panoramas printed across the fold, by continuity across the seam.
//
// The profile test in SpreadDetector compares the two columns that touch the gutter. It holds
// when the two halves meet exactly, but a real panorama printed full-bleed across the fold loses
// a few millimetres into the binding, and each page is scanned on its own: its own exposure,
// colour cast, a slight shift or tilt. Over a gap of 1–2 % of the page width, fine detail no
// longer lines up column for column, and the profiles decorrelate.
//
// What does survive the gap is the picture's larger structure: the outlines that cross the seam
// (a hill, a horizon, a sleeve) and the colour bands between them. So each page edge is reduced
// to its *crossings*: where an outline meets the edge, which way it runs (its slope, measured
// between two columns of a band beside the edge), and the colours on either side of it,
// standardised per edge so that exposure and cast drop out. Two facing edges continue each other
// when most of their outline strength pairs up: crossing heights agree once each outline is
// extended over a plausible gap along its own slope, allowing one vertical shift for the whole
// edge, and the colours either side agree.
//
// An absolute score alone cannot separate panoramas from chance: picture books put sky above
// ground on many pages. The decision is therefore relative to the book itself (see
// `SpreadDetector.findSpreads`): a facing pair must match each other better than either matches
// any other page of the book, by a clear margin over how well unrelated pages of that book match.

import Raster

/// One outline crossing the band beside a page's vertical edge.
struct SeamCrossing: Sendable {
    /// Height where the outline meets the edge, in profile bins (0 at the top).
    var y: Double
    /// Bins of height gained per bin of width moving outward, towards the page edge.
    var slope: Double
    /// Standardised colours just above and just below the outline.
    var above: SIMD3<Double>
    var below: SIMD3<Double>
    /// Colour gradient across the outline (0...441 per bin).
    var strength: Double
}

/// Parameters of the crossing-based continuity test. Profiles are in bins of the page height, so
/// every distance here is a fraction of the page, whatever the scan's resolution.
public struct SeamParameters: Sendable, Hashable {
    /// Height of the edge profiles.
    public var bins = 200
    /// Width of the band beside each edge whose two outer columns measure an outline's slope
    /// (fraction of the page width; at least 6 px).
    public var bandFraction = 0.03
    /// Largest gap lost into the binding, as a fraction of the page *height* in bins (10 of 200 is
    /// about 3.5 % of a portrait page's width): outlines are extended along their slopes up to it.
    public var maxGapBins = 10.0
    /// Largest vertical misalignment between the two scans, in bins.
    public var maxShift = 5
    /// Tolerance on a crossing's predicted height, in bins.
    public var heightTolerance = 2.5
    /// Largest mean difference of standardised colours either side of a paired outline.
    public var colourTolerance = 0.5
    /// Smallest colour gradient that counts as an outline (grey levels per two bins); the floor
    /// keeps JPEG noise on blank paper from becoming crossings.
    public var minimumGradient = 12.0
    /// The correlation half: profile height, strip width (fraction of the page width), high-pass
    /// radius and vertical shifts tried, all in bins.
    public var profileBins = 100
    public var profileFraction = 0.01
    public var profileHighPassRadius = 4
    public var profileShift = 3

    public init() {}
}

/// What the seam test keeps of one vertical edge: its crossings, and a coarse colour profile of
/// the outermost columns for the correlation half of the score.
struct SeamEdge: Sendable {
    var crossings: [SeamCrossing]
    var profile: EdgeProfile

    var byteCount: Int { crossings.count * MemoryLayout<SeamCrossing>.stride + profile.byteCount }
}

/// Both vertical edges of one page.
struct SeamEdges: Sendable {
    var left: SeamEdge
    var right: SeamEdge
}

struct SeamContinuity: Sendable {
    var parameters: SeamParameters

    typealias RGB = SIMD3<Double>

    func edges(of page: Bitmap<RGBA8>) -> SeamEdges {
        SeamEdges(left: edge(of: page, atRightEdge: false), right: edge(of: page, atRightEdge: true))
    }

    func edge(of page: Bitmap<RGBA8>, atRightEdge: Bool) -> SeamEdge {
        let w = page.width, h = page.height
        guard w >= 12, h >= 16 else { return SeamEdge(crossings: [], profile: EdgeProfile([])) }
        let strip = max(2, Int(Double(w) * parameters.profileFraction))
        return SeamEdge(
            crossings: crossings(of: page, atRightEdge: atRightEdge),
            profile: EdgeProfile(SpreadDetector.columnProfile(page, x0: atRightEdge ? w - strip : 0, width: strip, bins: min(parameters.profileBins, h))))
    }

    /// The score of a facing pair, 0...1: the mean of the share of outline strength that pairs up
    /// (`continuity`) and the correlation of the edges' high-passed colour profiles (`correlation`).
    /// The two fail differently — pairing needs clear outlines, correlation needs no gap — so their
    /// mean holds over more pictures than either.
    func score(left: SeamEdge, right: SeamEdge) -> Double {
        0.5 * (continuity(left: left.crossings, right: right.crossings).fraction + max(0, correlation(left.profile.rgb, right.profile.rgb)))
    }

    /// Largest joint correlation of the luma and two opponent-colour channels of two edge profiles,
    /// each high-passed (outlines and bands, not shading), over small vertical shifts.
    func correlation(_ a: [RGB], _ b: [RGB]) -> Double {
        guard a.count >= 16, b.count >= 16 else { return 0 }
        func channels(_ p: [RGB]) -> [[Double]] {
            [p.map { 0.299 * $0.x + 0.587 * $0.y + 0.114 * $0.z }, p.map { $0.x - $0.y }, p.map { 0.5 * ($0.x + $0.y) - $0.z }]
                .map { SpreadDetector.highPass($0, radius: parameters.profileHighPassRadius) }
        }
        let ca = channels(a), cb = channels(b)
        var best = -1.0
        for shift in -parameters.profileShift...parameters.profileShift {
            let lo = max(0, -shift), hi = min(a.count, b.count - shift)
            guard hi - lo > 8 else { continue }
            var cov = 0.0, va = 0.0, vb = 0.0
            for c in 0..<3 {
                let x = ca[c], y = cb[c]
                var mx = 0.0, my = 0.0
                for i in lo..<hi { mx += x[i]; my += y[i + shift] }
                mx /= Double(hi - lo)
                my /= Double(hi - lo)
                for i in lo..<hi {
                    let dx = x[i] - mx, dy = y[i + shift] - my
                    cov += dx * dy
                    va += dx * dx
                    vb += dy * dy
                }
            }
            if va > 0, vb > 0 { best = max(best, cov / (va * vb).squareRoot()) }
        }
        return best
    }

    /// Outlines crossing the band beside one edge.
    func crossings(of page: Bitmap<RGBA8>, atRightEdge: Bool) -> [SeamCrossing] {
        let w = page.width, h = page.height
        guard w >= 12, h >= 16 else { return [] }
        let bins = min(parameters.bins, h)
        let band = min(w / 2, max(6, Int(Double(w) * parameters.bandFraction)))
        let strip = max(2, band / 4)
        let outerX = atRightEdge ? w - strip : 0
        let innerX = atRightEdge ? w - band : band - strip
        let outer = SpreadDetector.columnProfile(page, x0: outerX, width: strip, bins: bins)
        let inner = SpreadDetector.columnProfile(page, x0: innerX, width: strip, bins: bins)
        // Distance between the two columns in bin units, so a slope is bins per bin.
        let distance = Double(band - strip) / Double(h) * Double(bins)
        let go = gradient(outer), gi = gradient(inner)
        let threshold = max(parameters.minimumGradient, 0.5 * percentile(go, 0.9))

        // Standardise colours per edge: exposure and colour cast differ between two scans.
        let n = Double(outer.count)
        let centre = outer.reduce(RGB.zero, +) / n
        var variance = RGB.zero
        for c in outer { variance += (c - centre) * (c - centre) }
        let v = variance / n
        let sd = RGB(max(v.x.squareRoot(), 8), max(v.y.squareRoot(), 8), max(v.z.squareRoot(), 8))

        var out: [SeamCrossing] = []
        guard outer.count >= 8 else { return [] }
        for y in 2..<(outer.count - 2) where go[y] >= threshold && go[y] >= go[y - 1] && go[y] > go[y + 1] {
            let lo = max(2, y - 6), hi = min(gi.count - 2, y + 7)
            var yi = lo
            for k in lo..<hi where gi[k] > gi[yi] { yi = k }
            let slope = gi[yi] >= 0.5 * threshold ? Double(y - yi) / max(distance, 1) : 0
            let above = average(of: outer, max(0, y - 4)..<max(max(0, y - 4) + 1, y - 1))
            let below = average(of: outer, min(outer.count - 1, y + 2)..<min(outer.count, y + 5))
            out.append(SeamCrossing(y: Double(y), slope: slope, above: (above - centre) / sd, below: (below - centre) / sd, strength: go[y]))
        }
        return out
    }

    /// How much of the outline strength of the left page's right edge and the right page's left
    /// edge pairs up across the seam (0...1), and how many outlines paired.
    func continuity(left: [SeamCrossing], right: [SeamCrossing]) -> (fraction: Double, pairs: Int) {
        guard left.count >= 2, right.count >= 2 else { return (0, 0) }
        let total = min(left.reduce(0) { $0 + $1.strength }, right.reduce(0) { $0 + $1.strength })
        guard total > 0 else { return (0, 0) }
        let p = parameters
        var best = (fraction: 0.0, pairs: 0)
        for shift in -max(0, p.maxShift)...max(0, p.maxShift) {  // a negative setting is no shift, not a trap
            var used = [Bool](repeating: false, count: right.count)
            var matched = 0.0, pairs = 0
            for a in left {
                for (j, b) in right.enumerated() where !used[j] {
                    // The right page's slope is measured moving left; continuing the left page's
                    // outline rightwards, it is negated.
                    let slope = 0.5 * (a.slope - b.slope)
                    let reach = slope * p.maxGapBins
                    let y = a.y + Double(shift)
                    guard b.y >= y + min(0, reach) - p.heightTolerance, b.y <= y + max(0, reach) + p.heightTolerance
                    else { continue }
                    guard meanAbs(a.above - b.above) < p.colourTolerance, meanAbs(a.below - b.below) < p.colourTolerance
                    else { continue }
                    used[j] = true
                    matched += min(a.strength, b.strength)
                    pairs += 1
                    break
                }
            }
            let fraction = matched / total
            if fraction > best.fraction { best = (fraction, pairs) }
        }
        return best
    }

    private func meanAbs(_ v: RGB) -> Double { (abs(v.x) + abs(v.y) + abs(v.z)) / 3 }

    private func average(of profile: [RGB], _ range: Range<Int>) -> RGB {
        guard !range.isEmpty else { return profile[max(0, min(profile.count - 1, range.lowerBound))] }
        return profile[range].reduce(RGB.zero, +) / Double(range.count)
    }

    /// Central-difference colour gradient along the profile (Euclidean over RGB).
    private func gradient(_ p: [RGB]) -> [Double] {
        var g = [Double](repeating: 0, count: p.count)
        guard p.count >= 3 else { return g }
        for i in 1..<(p.count - 1) {
            let d = p[i + 1] - p[i - 1]
            g[i] = (d * d).sum().squareRoot()
        }
        return g
    }

    private func percentile(_ v: [Double], _ q: Double) -> Double {
        guard !v.isEmpty else { return 0 }
        let s = v.sorted()
        return s[min(s.count - 1, Int(q * Double(s.count - 1)))]
    }
}
