// Panoramas printed across the fold, by extrapolating each page's colour field into the gap.
//
// The crossing test (SeamContinuity) needs clear outlines meeting the edge. Soft watercolour
// washes and small plates give few of them, and there it misses most real panoramas. What those
// pictures do have is a colour field that keeps going: a wash darkening towards the fold, a
// hillside's green changing with height. So this measure looks at the few per cent of the page
// beside the edge as a field, not as outlines:
//
//   1. six thin column profiles at 0.4–5 % of the width from the edge (100 bins of height; luma
//      and two opponent colours), standardised per edge and channel, so each scan's exposure and
//      colour cast drop out;
//   2. per row and channel a straight line fitted against the distance from the edge, which is
//      what lets a trend (a wash, a slanting outline) be carried over the strip lost in the fold;
//   3. each page's line extrapolated to the middle of a gap of 0–4 % of the width, and the two
//      predictions compared in three bands (fine lines, middle shapes, wide washes) by joint
//      correlation, averaged; the best gap and a small vertical shift are kept.
//
// Its weakness is the opposite of the crossing test's: standardisation blows the faint shading of
// blank paper up into a "profile" that can correlate by chance. So it judges no pair unless both
// edges vary by a real amount in raw grey levels (`minimumEdgeDeviation`).
//
// The measure was prototyped in Tools/panorama-seam-lab.py (`extrap`, gate LAB_RAW_SD=10), chosen
// on the generated books and Peter Rabbit plates only; this is a port of it, constant for constant
// (Documentation/PageAnalysis.md, "The colour-field measure in the detector").

import Raster

/// Parameters of the colour-field extrapolation measure, and of its own verdict in
/// `SpreadDetector.findSpreads` (the rivals allowed and the deviation floor are the spread test's).
public struct SeamExtrapolationParameters: Sendable, Hashable {
    /// Off: the detector is the crossing and profile tests alone, as before this measure.
    public var isEnabled = true
    /// Height of the edge profiles.
    public var bins = 100
    /// Where the column profiles lie, as fractions of the page width from the edge. The outermost
    /// one is also the strip whose deviation the gate measures.
    public var distances: [Double] = [0.004, 0.012, 0.02, 0.03, 0.04, 0.05]
    /// Width of each column profile (fraction of the page width, at least 1 px).
    public var stripFraction = 0.006
    /// Floor of the per-edge standard deviation a channel is divided by (grey levels), so a flat
    /// channel is not stretched into noise.
    public var deviationFloor = 4.0
    /// Gaps lost into the fold that are tried, as fractions of the page width; each page's field is
    /// extrapolated half the gap.
    public var gaps: [Double] = [0, 0.01, 0.02, 0.03, 0.04]
    /// Largest vertical misalignment of the two scans, in bins (2 of 100 covers the bench's 1.2 %).
    public var maxShift = 2
    /// Smoothing radii (bins) of the bands compared: each band is the profile smoothed at one
    /// radius minus the next coarser; the last is the coarsest smoothing, centred.
    public var bandRadii: [Int] = [0, 2, 6]
    /// The gate: least luma deviation (grey levels, outermost profile smoothed over ±2 bins) of
    /// both edges for the pair to be judged at all. Set on a corpus of blank-edged pages, where the
    /// nine false pairs' weaker edge was 0–8.1 grey levels.
    public var minimumEdgeDeviation = 10.0
    public var edgeDeviationRadius = 2
    /// The book-relative verdict, as for the crossing test: least score, and deviations above the
    /// two edges' scores against the other pages of the book.
    public var minimumScore = 0.3
    public var minimumMargin = 3.0

    public init() {}
}

/// What the measure keeps of one vertical edge: per bin and channel, the fitted line's value at
/// the edge and its slope (standardised units per page height of distance). Stored as `Float`:
/// 2.4 KB an edge instead of 4.8, and the rounding (about 1e-7 of a standardised value) is far
/// below anything the correlation can notice.
struct FieldEdge: Sendable {
    var intercept: [Float]
    var slope: [Float]
    /// Width over height of the page, so a gap given in page widths is the same distance on both
    /// pages of a pair whatever their proportions.
    var aspect: Double
    /// Luma deviation of the outermost profile (raw grey levels), for the gate.
    var rawDeviation: Double

    static let empty = FieldEdge(intercept: [], slope: [], aspect: 1, rawDeviation: 0)

    var bins: Int { intercept.count / 3 }
    var byteCount: Int { (intercept.count + slope.count) * MemoryLayout<Float>.stride }
}

/// Both vertical edges of one page.
struct FieldEdges: Sendable {
    var left: FieldEdge
    var right: FieldEdge
}

struct SeamExtrapolation: Sendable {
    var parameters: SeamExtrapolationParameters

    typealias RGB = SIMD3<Double>

    func edges(of page: Bitmap<RGBA8>) -> FieldEdges {
        FieldEdges(left: edge(of: page, atRightEdge: false), right: edge(of: page, atRightEdge: true))
    }

    func edge(of page: Bitmap<RGBA8>, atRightEdge: Bool) -> FieldEdge {
        let p = parameters
        let w = page.width, h = page.height
        let bins = p.bins
        // Every bin must hold at least one row; a page this small has nothing to extrapolate.
        guard bins >= 8, h >= bins, w >= 8, !p.distances.isEmpty else { return .empty }
        // Python's round() rounds halves to even; the lab's strip positions are reproduced exactly.
        let strip = max(1, Int((Double(w) * p.stripFraction).rounded(.toNearestOrEven)))
        // Luma and two opponent colours per profile: exposure and cast act mostly per channel, so
        // standardising each of these per edge removes them.
        let profiles: [[RGB]] = p.distances.map { d in
            let x = Int((d * Double(w)).rounded(.toNearestOrEven))
            let x0 = max(0, min(w - strip, atRightEdge ? w - x - strip : x))
            return SpreadDetector.columnProfile(page, x0: x0, width: strip, bins: bins).map { c in
                RGB(0.299 * c.x + 0.587 * c.y + 0.114 * c.z, c.x - c.y, 0.5 * (c.x + c.y) - c.z)
            }
        }
        let k = Double(profiles.count), n = Double(bins)
        // Mean and deviation per channel over the whole band (every profile, every bin).
        var mean = RGB.zero
        for prof in profiles { for v in prof { mean += v } }
        mean /= k * n
        var variance = RGB.zero
        for prof in profiles { for v in prof { variance += (v - mean) * (v - mean) } }
        variance /= k * n
        let floor = p.deviationFloor
        let sd = RGB(max(variance.x.squareRoot(), floor), max(variance.y.squareRoot(), floor), max(variance.z.squareRoot(), floor))

        // Distance of each profile from the edge in page heights, negative inwards, so outward is
        // positive and a gap in page widths converts with the page's aspect.
        let xs = p.distances.map { -$0 * Double(w) / Double(h) }
        let xm = xs.reduce(0, +) / k
        let sxx = xs.reduce(0) { $0 + ($1 - xm) * ($1 - xm) }
        var intercept = [Float](repeating: 0, count: bins * 3)
        var slope = [Float](repeating: 0, count: bins * 3)
        for row in 0..<bins {
            var zm = RGB.zero
            for prof in profiles { zm += (prof[row] - mean) / sd }
            zm /= k
            var sxz = RGB.zero
            for (i, prof) in profiles.enumerated() { sxz += (xs[i] - xm) * ((prof[row] - mean) / sd - zm) }
            // One profile (or all at one distance) gives no trend: the field is taken as flat.
            let b = sxx > 0 ? sxz / sxx : RGB.zero
            let a = zm - b * xm
            for c in 0..<3 {
                intercept[row * 3 + c] = Float(a[c])
                slope[row * 3 + c] = Float(b[c])
            }
        }
        let outerLuma = smoothed(profiles[0].map { $0.x }, radius: p.edgeDeviationRadius)
        return FieldEdge(intercept: intercept, slope: slope, aspect: Double(w) / Double(h), rawDeviation: SpreadDetector.deviation(outerLuma))
    }

    /// Whether an edge varies enough, in raw grey levels, for its standardised field to mean
    /// anything (blank paper with faint shading does not).
    func passesGate(_ edge: FieldEdge) -> Bool {
        edge.bins > 0 && edge.rawDeviation >= parameters.minimumEdgeDeviation
    }

    /// The score of a facing pair (left page's right edge, right page's left edge), -1...1: the best,
    /// over the gaps and vertical shifts tried, of the mean band correlation of the two edges'
    /// fields extrapolated to the middle of the gap. 0 when either edge has no field.
    func score(left: FieldEdge, right: FieldEdge) -> Double {
        let p = parameters
        guard left.bins > 0, left.bins == right.bins, !p.bandRadii.isEmpty, !p.gaps.isEmpty else { return 0 }
        let shift = max(0, p.maxShift)
        var best = -1.0
        for gap in p.gaps {
            let a = bands(of: left, gap: gap), b = bands(of: right, gap: gap)
            for s in -shift...shift {
                var total = 0.0
                for (x, y) in zip(a, b) { total += Self.correlation(x, y, shift: s) }
                best = max(best, total / Double(a.count))
            }
        }
        return best
    }

    /// The edge's field extrapolated outward by half `gap` (page widths), split into bands.
    func bands(of edge: FieldEdge, gap: Double) -> [[RGB]] {
        let reach = gap * edge.aspect / 2
        let n = edge.bins
        var v = [RGB](repeating: .zero, count: n)
        for i in 0..<n {
            let j = i * 3
            v[i] = RGB(Double(edge.intercept[j]) + Double(edge.slope[j]) * reach,
                       Double(edge.intercept[j + 1]) + Double(edge.slope[j + 1]) * reach,
                       Double(edge.intercept[j + 2]) + Double(edge.slope[j + 2]) * reach)
        }
        let radii = parameters.bandRadii
        let smooth = radii.map { smoothed(v, radius: $0) }
        return radii.indices.map { i in
            if i + 1 < radii.count { return zip(smooth[i], smooth[i + 1]).map { $0 - $1 } }
            let m = smooth[i].reduce(RGB.zero, +) / Double(n)
            return smooth[i].map { $0 - m }
        }
    }

    /// Moving average over `radius` bins either side, the ends repeated (as numpy's edge padding).
    func smoothed(_ v: [RGB], radius: Int) -> [RGB] {
        guard radius > 0, !v.isEmpty else { return v }
        let n = v.count
        var prefix = [RGB](repeating: .zero, count: n + 2 * radius + 1)
        for i in 0..<(n + 2 * radius) { prefix[i + 1] = prefix[i] + v[max(0, min(n - 1, i - radius))] }
        let width = Double(2 * radius + 1)
        return (0..<n).map { (prefix[$0 + 2 * radius + 1] - prefix[$0]) / width }
    }

    func smoothed(_ v: [Double], radius: Int) -> [Double] {
        smoothed(v.map { RGB($0, 0, 0) }, radius: radius).map(\.x)
    }

    /// Joint correlation of the three channels of `a[i]` and `b[i + shift]` over the overlap, each
    /// channel centred on its own mean; 0 when either side is flat.
    static func correlation(_ a: [RGB], _ b: [RGB], shift: Int) -> Double {
        let lo = max(0, -shift), hi = min(a.count, b.count - shift)
        guard hi - lo >= 2 else { return 0 }
        var ma = RGB.zero, mb = RGB.zero
        for i in lo..<hi {
            ma += a[i]
            mb += b[i + shift]
        }
        ma /= Double(hi - lo)
        mb /= Double(hi - lo)
        var cov = 0.0, va = 0.0, vb = 0.0
        for i in lo..<hi {
            let da = a[i] - ma, db = b[i + shift] - mb
            cov += (da * db).sum()
            va += (da * da).sum()
            vb += (db * db).sum()
        }
        guard va > 1e-9, vb > 1e-9 else { return 0 }
        return cov / (va * vb).squareRoot()
    }
}
