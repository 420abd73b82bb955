// Panoramic spreads: one illustration painted across two facing pages. The reader must never
// show such a pair apart, so `picturebook analyze` finds them and records them in book.json.
//
// Method. Cut along the gutter, a continuous picture leaves the same structure on both sides of
// the cut: a hill's outline, a horizon, a tree trunk meet the gutter at the same heights on the
// left page's right edge and the right page's left edge. Two unrelated pages, even two skies
// over two meadows, put their outlines at different heights. So each page contributes the
// colour profile of a thin strip beside the gutter, and the pair is a spread when
//   1. the high-pass luminance profiles (outlines and edges) correlate strongly, allowing a small
//      vertical offset for scans that are not perfectly aligned, and
//   2. the colour profiles agree once each page's mean is removed (scans of two pages can differ
//      in colour cast and exposure), and
//   3. there is structure to compare at all: blank paper margins match trivially and prove
//      nothing.
// A panorama that lost a strip into the fold, each half scanned on its own, fails that exact test;
// two measures of continuity across the gap find it instead, the outlines crossing the edge
// (SeamContinuity) and the colour field carried over the gap (SeamExtrapolation), each judged
// against the rest of the book in `findSpreads`.

public import Raster

/// Parameters of the spread test; the defaults are tuned on the generator's spreads and the
/// sample books.
public struct SpreadParameters: Sendable, Hashable {
    /// Height of the profiles the edges are reduced to.
    public var bins = 400
    /// Columns of each edge averaged into the profile (fraction of the page width, at least 3).
    public var stripFraction = 0.006
    /// Columns skipped at the very edge (scanner borders, trimming).
    public var edgeSkipFraction = 0.002
    /// Largest vertical misalignment tried, in bins.
    public var maxShift = 4
    /// Minimum correlation of the high-pass luminance profiles.
    public var minimumCorrelation = 0.45
    /// Largest mean colour difference (0...255 per channel) after removing each page's mean.
    public var maximumColorDifference = 4.5
    /// Minimum standard deviation of a high-pass profile: below it the edge is blank.
    public var minimumStructure = 1.0
    /// The crossing-based test for panoramas that lost a strip into the fold (SeamContinuity).
    public var seam = SeamParameters()
    /// The colour-field test for the same panoramas (SeamExtrapolation): a pair either test takes,
    /// each under the book-relative rule below, is a spread.
    public var extrapolation = SeamExtrapolationParameters()
    /// Least seam score (SeamContinuity.score: outlines paired and profiles correlated) of a pair.
    public var minimumContinuity = 0.3
    /// Other pages allowed to continue one of the pair's edges as well as its partner does.
    public var rivalsAllowed = 1
    /// How far a facing pair's continuity must stand above the book's unrelated pairs, in their
    /// standard deviations; and the floor on that deviation, so a book of blank-edged text pages
    /// (whose unrelated pairs all score 0) does not make any pair look exceptional.
    public var minimumMargin = 3.0
    public var deviationFloor = 0.05
    /// Unrelated pages needed (with outlines at the compared edge) before the book-relative test is
    /// trusted; below it only the exact profile test decides.
    public var minimumComparisons = 4
    /// Unrelated pages compared per side at most, spread evenly over the book (bounds the cost of
    /// a long book at O(pages × this)).
    public var maximumComparisons = 48
    /// How the facing pairs that pass become spreads when two of them share a page (13–14 and
    /// 14–15): true takes the non-overlapping set of the greatest total strength
    /// (`SpreadEvidence.strength`, `choosePairs`); false takes them in page order, the first
    /// winning (the detector before 27 November, late).
    public var pairByStrength = true
    /// A floor for the outline test on how much the pair's weaker edge varies (its raw deviation
    /// in grey levels, `SpreadEvidence.edgeDeviation`, the colour-field measure's reading of the
    /// outer strip): below it the edge is blank paper, and outlines "crossing" it are faint
    /// shading, a printed rule or scanner noise, so there is nothing to continue. The colour-field
    /// measure's own gate is stricter (10: its standardisation stretches faint shading into a
    /// profile); this one is a noise floor. Chosen on the panorama bench's seeds 5 and 7 (the
    /// real plates' false spreads there: 7 of 9 had a weaker edge of 0.8–3.4 levels; every
    /// panorama found, 4.7 levels or more), confirmed on seeds 6, 8 and 9
    /// (Documentation/PageAnalysis.md, "Blank edges refused by the outline test too"). 0: off. The
    /// profile test, which needs the halves to meet exactly, is not gated.
    public var outlineMinimumEdgeDeviation = 4.0
    /// The largest ratio of the two pages' heights for a pair to be one picture across the fold:
    /// the halves of a printed spread are as tall as each other but for trimming and a scan's
    /// crop, and the profiles are compared in bins of each page's own height, so two plates of
    /// different sizes are stretched onto each other (Brooke's *Johnny Crow's Garden*: a plate
    /// 320 px tall taken as the other half of one 185 px tall). 0: off.
    public var maximumHeightRatio = 1.1

    public init() {}

    /// Sets a parameter by name (`--set spread.NAME=VALUE`, for tuning); false for an unknown name.
    public mutating func set(_ name: String, to value: Double) -> Bool {
        switch name {
        case "minimumMargin": minimumMargin = value
        case "minimumContinuity": minimumContinuity = value
        case "rivalsAllowed": rivalsAllowed = Int(value)
        case "fieldMinimumMargin": extrapolation.minimumMargin = value
        case "fieldMinimumScore": extrapolation.minimumScore = value
        case "fieldMinimumEdgeDeviation": extrapolation.minimumEdgeDeviation = value
        case "outlineMinimumEdgeDeviation": outlineMinimumEdgeDeviation = value
        case "fieldEnabled": extrapolation.isEnabled = value != 0
        case "maximumHeightRatio": maximumHeightRatio = value
        default: return false
        }
        return true
    }
}

/// What the spread test needs of one page: the colour profiles beside its two vertical edges.
/// `analyze` keeps one per page until every page is in (each pair is judged against the rest of
/// the book), so this is the part of its memory that grows with the book: it is kept small
/// (`EdgeProfile`, about 6 KB a page; see `byteCount`).
public struct PageEdges: Sendable {
    var left: EdgeProfile
    var right: EdgeProfile
    var seam: SeamEdges
    var field: FieldEdges
    /// The page's height in pixels (0 when not known).
    var height = 0

    /// Bytes held for this page (array storage, not counting allocator rounding).
    public var byteCount: Int {
        left.byteCount + right.byteCount + seam.left.byteCount + seam.right.byteCount + field.left.byteCount + field.right.byteCount
    }
}

/// A colour profile stored at 1/256 of a grey level in 16 bits per channel (6 bytes a bin instead
/// of the 32 of a `SIMD3<Double>`): the profiles are means of 8-bit pixels, so the rounding
/// (at most 1/512 of a level) is far below any threshold of the spread test, and a long book's
/// worth of them stays small. Decoded to doubles when compared.
struct EdgeProfile: Sendable {
    private var channels: [UInt16]

    init(_ profile: [SpreadDetector.RGB]) {
        func fixed(_ x: Double) -> UInt16 { UInt16(max(0, min(65535, (x * 256).rounded()))) }
        var c: [UInt16] = []
        c.reserveCapacity(profile.count * 3)
        for v in profile {
            c.append(fixed(v.x))
            c.append(fixed(v.y))
            c.append(fixed(v.z))
        }
        channels = c
    }

    var count: Int { channels.count / 3 }
    var byteCount: Int { channels.count * MemoryLayout<UInt16>.stride }

    var rgb: [SpreadDetector.RGB] {
        var out: [SpreadDetector.RGB] = []
        out.reserveCapacity(count)
        var i = 0
        while i + 2 < channels.count {
            let r = Double(channels[i]) / 256, g = Double(channels[i + 1]) / 256, b = Double(channels[i + 2]) / 256
            out.append(SpreadDetector.RGB(r, g, b))
            i += 3
        }
        return out
    }
}

/// The evidence for one candidate pair, kept so a librarian (or a test) can see why.
public struct SpreadEvidence: Sendable, Hashable {
    public var correlation: Double
    public var colorDifference: Double
    public var structure: Double
    /// The seam score (SeamContinuity.score), and how far it stands
    /// above the pages' matches with the rest of the book (standard deviations; nil when the pair
    /// was judged alone).
    public var continuity: Double = 0
    public var margin: Double? = nil
    /// Other pages whose edges continue this pair's edges at least as well (nil when not judged
    /// against the book).
    public var rivals: Int? = nil
    /// The colour-field score (SeamExtrapolation.score), its margin over the book and rivals (nil
    /// when not judged against the book), and the smaller raw luma deviation of the two edges,
    /// which the measure's gate asks of both.
    public var extrapolation: Double = 0
    public var extrapolationMargin: Double? = nil
    public var extrapolationRivals: Int? = nil
    public var edgeDeviation: Double = 0
    public var isSpread: Bool
    /// How strongly the tests that took the pair say so, in deviations above the book (see
    /// `findSpreads`); 0 for a pair no test took. Only the pairing reads it.
    public var strength: Double = 0
}

public struct SpreadDetector: Sendable {
    public var parameters: SpreadParameters

    public init(parameters: SpreadParameters = .init()) { self.parameters = parameters }

    /// Compares the right edge of `left` with the left edge of `right` (pages as they lie on the
    /// table, left to right, whatever the reading direction).
    public func evidence(left: Bitmap<RGBA8>, right: Bitmap<RGBA8>) -> SpreadEvidence {
        evidence(left: edges(of: left), right: edges(of: right))
    }

    public func edges(of page: Bitmap<RGBA8>) -> PageEdges {
        PageEdges(
            left: EdgeProfile(profile(of: page, atRightEdge: false)), right: EdgeProfile(profile(of: page, atRightEdge: true)),
            seam: SeamContinuity(parameters: parameters.seam).edges(of: page),
            field: parameters.extrapolation.isEnabled ? SeamExtrapolation(parameters: parameters.extrapolation).edges(of: page)
                : FieldEdges(left: .empty, right: .empty),
            height: page.height)
    }

    /// Compares the right edge of the page on the left with the left edge of the page on the right.
    public func evidence(left: PageEdges, right: PageEdges) -> SpreadEvidence {
        var e = exactTest(left: left, right: right)
        e.continuity = SeamContinuity(parameters: parameters.seam).score(left: left.seam.right, right: right.seam.left)
        if parameters.extrapolation.isEnabled {
            e.extrapolation = SeamExtrapolation(parameters: parameters.extrapolation).score(left: left.field.right, right: right.field.left)
            e.edgeDeviation = min(left.field.right.rawDeviation, right.field.left.rawDeviation)
        }
        return e
    }

    /// The exact profile test alone (what `findSpreads` asks of every other page, to count the
    /// pages sharing this pair's background).
    func exactTest(left: PageEdges, right: PageEdges) -> SpreadEvidence {
        let a = left.right.rgb
        let b = right.left.rgb
        let ha = highPass(a.map(luma)), hb = highPass(b.map(luma))
        let structure = min(Self.deviation(ha), Self.deviation(hb))
        var best = -1.0
        for shift in -max(0, parameters.maxShift)...max(0, parameters.maxShift) {  // a negative setting is no shift, not a trap
            best = max(best, correlation(ha, hb, shift: shift))
        }
        let difference = centredColorDifference(a, b)
        let ok = structure >= parameters.minimumStructure && best >= parameters.minimumCorrelation
            && difference <= parameters.maximumColorDifference
        return SpreadEvidence(correlation: best, colorDifference: difference, structure: structure, isSpread: ok)
    }

    /// Decides every candidate pair of a book at once. `pages` holds each page's edges (nil for a
    /// page that could not be read); a candidate is (page on the left of the table, page on the
    /// right), as indices into `pages`. A pair is a spread when its gutter profiles agree exactly
    /// (`evidence`), or when it continues across the seam well enough by either of two measures
    /// (the outlines of `SeamContinuity`, the colour field of `SeamExtrapolation`): better than
    /// either page continues into all but one other page of the book, and by a margin of
    /// deviations above how well the book's unrelated pairs continue.
    public func findSpreads(pages: [PageEdges?], candidates: [(left: Int, right: Int)]) -> [SpreadEvidence] {
        let seam = SeamContinuity(parameters: parameters.seam)
        let field = SeamExtrapolation(parameters: parameters.extrapolation)
        let useField = parameters.extrapolation.isEnabled
        return candidates.map { candidate in
            guard pages.indices.contains(candidate.left), pages.indices.contains(candidate.right),
                  let left = pages[candidate.left], let right = pages[candidate.right]
            else { return SpreadEvidence(correlation: -1, colorDifference: .infinity, structure: 0, isSpread: false) }
            var e = evidence(left: left, right: right)
            let ratio = Double(max(left.height, right.height)) / Double(max(1, min(left.height, right.height)))
            if parameters.maximumHeightRatio > 0, left.height > 0, right.height > 0, ratio > parameters.maximumHeightRatio {
                e.isSpread = false
                return e
            }
            // Without outlines on both edges there is nothing to continue: blank margins, the
            // soft edge of a vignette and scanner borders correlate by accident. This holds for
            // the colour field too: without it, the field measure took blank-edged vignettes.
            guard left.seam.right.crossings.count >= 2, right.seam.left.crossings.count >= 2 else {
                e.isSpread = false
                return e
            }
            // The null: how well this left edge continues into other pages, and other pages into
            // this right edge. Pages without outlines at that edge say nothing and are skipped,
            // for both measures (the same comparisons, so the two nulls are of one population).
            let others = Self.evenlySpaced(pages.indices.filter { $0 != candidate.left && $0 != candidate.right },
                                           count: parameters.maximumComparisons)
            var scores: [Double] = []
            var fieldScores: [Double] = []
            var profileRivals = 0
            for k in others {
                guard let other = pages[k] else { continue }
                if other.seam.left.crossings.count >= 2 {
                    scores.append(seam.score(left: left.seam.right, right: other.seam.left))
                    if useField { fieldScores.append(field.score(left: left.field.right, right: other.field.left)) }
                    if exactTest(left: left, right: other).isSpread { profileRivals += 1 }
                }
                if other.seam.right.crossings.count >= 2 {
                    scores.append(seam.score(left: other.seam.right, right: right.seam.left))
                    if useField { fieldScores.append(field.score(left: other.field.right, right: right.field.left)) }
                    if exactTest(left: other, right: right).isSpread { profileRivals += 1 }
                }
            }
            let judged = scores.count >= parameters.minimumComparisons
            if e.isSpread {
                // The profile test holds too when every page shares one background (open books
                // photographed on the same table with the same ruler): if other pages pass it as
                // well, it proves nothing about this pair.
                e.isSpread = !judged || profileRivals <= parameters.rivalsAllowed
                if e.isSpread { e.strength = parameters.minimumMargin }
                if e.isSpread && !judged { return e }
            }
            guard judged else { return e }
            // Kept whatever the verdict, so a librarian can see how near a pair came.
            let (margin, rivals) = standing(of: e.continuity, among: scores)
            e.margin = margin
            e.rivals = rivals
            // One other page may compete (the same scene can recur in a book); two may not.
            let blankEdge = useField && e.edgeDeviation < parameters.outlineMinimumEdgeDeviation
            let bySeam = e.continuity >= parameters.minimumContinuity && margin >= parameters.minimumMargin
                && rivals <= parameters.rivalsAllowed && !blankEdge
            var byField = false
            if useField {
                let x = parameters.extrapolation
                let (fieldMargin, fieldRivals) = standing(of: e.extrapolation, among: fieldScores)
                e.extrapolationMargin = fieldMargin
                e.extrapolationRivals = fieldRivals
                // The gate stops the pair being judged by this measure, not the null: a blank edge
                // elsewhere in the book still counts as a page this one does not continue into.
                byField = field.passesGate(left.field.right) && field.passesGate(right.field.left)
                    && e.extrapolation >= x.minimumScore && fieldMargin >= x.minimumMargin && fieldRivals <= parameters.rivalsAllowed
            }
            e.isSpread = e.isSpread || bySeam || byField
            // The pair's strength, for choosing between two passing pairs that share a page
            // (`choosePairs`): the largest margin over the book among the tests that took it. The
            // two continuity margins are of one kind — each is the pair's score in deviations of
            // its own null, and both nulls are the very same comparisons (these two edges against
            // the same other pages) — so they compare across measures and across pairs without
            // a conversion, and "how far out of the book's run of chance matches" is what the
            // decision itself asks. A test that refused the pair lends it nothing (a margin of 5
            // with two rivals is not evidence for this pair). The profile test has no margin of
            // its own: a pair it takes stands at the bar (`minimumMargin`, set above), the least
            // any pair taken by a margin stands at, so it outranks no pair that stands above it
            // and loses to none that stands below.
            if bySeam { e.strength = max(e.strength, margin) }
            if byField, let m = e.extrapolationMargin { e.strength = max(e.strength, m) }
            return e
        }
    }

    /// Which consecutive pairs become spreads: `verdicts[k]` is the pair of the book's pages k and
    /// k + 1 (0-based, book order), `available[k]` false when the pair may not be taken (a page
    /// marked single, or already in a listed spread). Returns the indices k taken, ascending; no
    /// two share a page.
    ///
    /// Two passing pairs can share a page (13–14 and 14–15) and only one can be a spread. Taking
    /// them in page order lets the first win however weak (a false pair at margin 3.0 beside a
    /// panorama at 8). Instead the pairs taken are the non-overlapping set of passing pairs whose
    /// strengths (`SpreadEvidence.strength`) sum highest: weighted interval scheduling along the
    /// page sequence, a dynamic programme linear in pages. A passing pair that overlaps no other
    /// passing pair is always taken, as before. Ties go to the earlier pair, so a run of passing
    /// pairs of equal strength (a short book judged by the profile test alone, where every pair
    /// taken stands at the bar) is paired exactly as in page order.
    public func choosePairs(_ verdicts: [SpreadEvidence], available: [Bool]) -> [Int] {
        let n = verdicts.count
        func eligible(_ k: Int) -> Bool { verdicts[k].isSpread && (k < available.count ? available[k] : false) }
        guard parameters.pairByStrength else {
            var taken: [Int] = []
            for k in 0..<n where eligible(k) && taken.last != k - 1 { taken.append(k) }
            return taken
        }
        // best[k]: the largest total strength of pairs among k..<n (pages k...n), pairs sharing no
        // page. A pair's weight is its strength, never below 0 (a zero-weight pair is still taken
        // when it costs nothing, by the tie rule below).
        func weight(_ k: Int) -> Double { max(0, verdicts[k].strength) }
        var best = [Double](repeating: 0, count: n + 2)
        for k in stride(from: n - 1, through: 0, by: -1) {
            best[k] = eligible(k) ? max(best[k + 1], weight(k) + best[k + 2]) : best[k + 1]
        }
        var taken: [Int] = []
        var k = 0
        while k < n {
            if eligible(k) && weight(k) + best[k + 2] >= best[k + 1] {
                taken.append(k)
                k += 2
            } else {
                k += 1
            }
        }
        return taken
    }

    /// How many of the null's deviations (floored) `score` stands above its mean, and how many of
    /// the null score at least as well.
    private func standing(of score: Double, among null: [Double]) -> (margin: Double, rivals: Int) {
        guard !null.isEmpty else { return (0, 0) }
        let mean = null.reduce(0, +) / Double(null.count)
        return ((score - mean) / max(Self.deviation(null), parameters.deviationFloor), null.count { $0 >= score })
    }

    static func evenlySpaced(_ items: [Int], count: Int) -> [Int] {
        guard items.count > count, count > 0 else { return items }
        return (0..<count).map { items[$0 * items.count / count] }
    }

    public func isSpread(left: Bitmap<RGBA8>, right: Bitmap<RGBA8>) -> Bool {
        evidence(left: left, right: right).isSpread
    }

    typealias RGB = SIMD3<Double>

    private func luma(_ c: RGB) -> Double { 0.299 * c.x + 0.587 * c.y + 0.114 * c.z }

    /// Mean colour of a strip beside one edge, in `bins` rows top to bottom.
    func profile(of page: Bitmap<RGBA8>, atRightEdge: Bool) -> [RGB] {
        let w = page.width, h = page.height
        let bins = max(1, min(parameters.bins, h))
        guard w > 0, h > 0 else { return [] }
        let skip = min(w - 1, Int(Double(w) * parameters.edgeSkipFraction))
        let strip = max(3, Int(Double(w) * parameters.stripFraction))
        let x0 = atRightEdge ? max(0, w - skip - strip) : min(w - 1, skip)
        return Self.columnProfile(page, x0: x0, width: strip, bins: bins)
    }

    /// Mean colour of columns `x0..<x0+width` (clipped to the page) in `bins` rows, top to bottom.
    static func columnProfile(_ page: Bitmap<RGBA8>, x0: Int, width: Int, bins: Int) -> [RGB] {
        let w = page.width, h = page.height
        let x0 = max(0, min(w - 1, x0)), x1 = min(w, x0 + width)
        var out = [RGB](repeating: .zero, count: bins)
        page.pixels.withUnsafeBufferPointer { p in
            for bin in 0..<bins {
                let y0 = bin * h / bins, y1 = max(y0 + 1, (bin + 1) * h / bins)
                var r = 0, g = 0, b = 0
                for y in y0..<y1 {
                    for x in x0..<x1 {
                        let px = p[y * w + x]
                        r += Int(px.r)
                        g += Int(px.g)
                        b += Int(px.b)
                    }
                }
                let n = Double((y1 - y0) * (x1 - x0))
                out[bin] = RGB(Double(r), Double(g), Double(b)) / n
            }
        }
        return out
    }

    /// The profile minus its own moving average: what is left are the edges crossing the gutter.
    func highPass(_ v: [Double]) -> [Double] { Self.highPass(v, radius: 8) }

    /// `v` minus its moving average over `radius` entries either side.
    static func highPass(_ v: [Double], radius: Int) -> [Double] {
        guard !v.isEmpty else { return [] }
        var prefix = [0.0]
        prefix.reserveCapacity(v.count + 1)
        for x in v { prefix.append(prefix[prefix.count - 1] + x) }
        return v.indices.map { i in
            let lo = max(0, i - radius), hi = min(v.count, i + radius + 1)
            return v[i] - (prefix[hi] - prefix[lo]) / Double(hi - lo)
        }
    }

    /// Population standard deviation of `v` (0 when empty).
    static func deviation(_ v: [Double]) -> Double {
        guard !v.isEmpty else { return 0 }
        let m = v.reduce(0, +) / Double(v.count)
        return (v.reduce(0) { $0 + ($1 - m) * ($1 - m) } / Double(v.count)).squareRoot()
    }

    /// Pearson correlation of `a[i]` with `b[i + shift]` over the overlap.
    func correlation(_ a: [Double], _ b: [Double], shift: Int) -> Double {
        let lo = max(0, -shift), hi = min(a.count, b.count - shift)
        guard hi - lo > 8 else { return -1 }
        var sa = 0.0, sb = 0.0
        for i in lo..<hi { sa += a[i]; sb += b[i + shift] }
        let n = Double(hi - lo), ma = sa / n, mb = sb / n
        var cov = 0.0, va = 0.0, vb = 0.0
        for i in lo..<hi {
            let da = a[i] - ma, db = b[i + shift] - mb
            cov += da * db
            va += da * da
            vb += db * db
        }
        guard va > 0, vb > 0 else { return -1 }
        return cov / (va * vb).squareRoot()
    }

    /// Mean per-channel difference of two colour profiles after each has its mean removed.
    func centredColorDifference(_ a: [RGB], _ b: [RGB]) -> Double {
        let n = min(a.count, b.count)
        guard n > 0 else { return .infinity }
        let ma = a.prefix(n).reduce(RGB.zero, +) / Double(n)
        let mb = b.prefix(n).reduce(RGB.zero, +) / Double(n)
        var total = 0.0
        for i in 0..<n {
            let d = (a[i] - ma) - (b[i] - mb)
            total += abs(d.x) + abs(d.y) + abs(d.z)
        }
        return total / Double(3 * n)
    }
}
