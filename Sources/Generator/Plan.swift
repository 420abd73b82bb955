// Planning: the whole book is decided up front, serially, from the seed — which pages are
// spreads, which are illustration-only, what text goes where in which style — and each page
// (or spread) gets its own seed. Rendering then only reads its plan, so pages can be painted in
// any order on any thread and still come out byte-identical.

/// What to generate.
public struct GeneratorOptions: Sendable, Equatable {
    public var seed: UInt64
    public var pageCount: Int
    public var width: Int
    public var height: Int
    public var difficulty: Difficulty

    public init(seed: UInt64, pageCount: Int, width: Int = 1600, height: Int = 2000, difficulty: Difficulty = .mixed) {
        self.seed = seed
        self.pageCount = pageCount
        self.width = width
        self.height = height
        self.difficulty = difficulty
    }

    public func validate() throws(GeneratorError) {
        guard pageCount >= 1, pageCount <= 10_000 else {
            throw .invalidOption(name: "--pages", reason: "must be between 1 and 10000, got \(pageCount)")
        }
        guard width >= 200, height >= 200, width <= 8000, height <= 8000 else {
            throw .invalidOption(name: "--size", reason: "each side must be 200...8000 pixels, got \(width)x\(height)")
        }
    }

    /// Parses `WxH` ("1600x2000").
    public static func parseSize(_ s: String) throws(GeneratorError) -> (width: Int, height: Int) {
        let parts = s.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]) else {
            throw .invalidOption(name: "--size", reason: "expected WIDTHxHEIGHT such as 1600x2000, got '\(s)'")
        }
        return (w, h)
    }
}

/// How the art and the paper share a page.
enum ArtLayout: Sendable, Equatable {
    /// Art to every edge.
    case fullBleed
    /// Art with a band of plain paper for text at the top or bottom (`fraction` of the height).
    case band(textAtTop: Bool, fraction: Double)
    /// A framed colour plate with a caption strip below (historic books).
    case plate
    /// A mostly-text page with a small ink drawing at the top or bottom.
    case vignette(atTop: Bool)
}

struct BlockPlan: Sendable {
    var text: String
    var language: String
    var translations: [String: String]
    var placement: PlacementStyle
    var orientation: BlockOrientation
    /// Em size in pixels.
    var fontSize: Double
    var style: FontStyle
    /// 0 = left page of a spread (or the only page), 1 = right page.
    var half: Int = 0
    var role: BlockRole = .body
    /// Line length as a fraction of the text region's width (height for vertical text).
    var measure: Double = 0.85
    /// 0 start, 0.5 centre, 1 end; also where the block sits in its region.
    var align: Double = 0.5
    /// Light ink (for `lightOnDark`) or a coloured title ink.
    var ink: InkKind = .dark
}

enum InkKind: Sendable { case dark, light, coloured }

struct UnitPlan: Sendable {
    /// Page number of the (left) page.
    var firstPage: Int
    var isSpread: Bool
    var theme: SceneTheme
    var layout: ArtLayout
    var horizon: Double
    var coast: Bool = false
    var detail: Double
    var monochrome: Bool
    var blocks: [BlockPlan]
    var seed: UInt64
    var degradations: [ScanDegradation]
    /// book.json page roles, one per page ("cover", "plate", ...), when a story gives them.
    var roles: [String]? = nil
    /// Set for units composed from real illustrations (`IllustratedRenderer` draws them).
    var illustrated: IllustratedUnit? = nil

    var pageNumbers: [Int] { isSpread ? [firstPage, firstPage + 1] : [firstPage] }
}

/// A whole book, decided: what `PageGenerator` renders and `BookWriter` writes.
public struct BookPlan: Sendable {
    public var title: [String: String]
    public var languages: [String]
    public var readingDirection: String
    public var width: Int
    public var height: Int
    public var seed: UInt64
    public var difficulty: Difficulty
    var units: [UnitPlan]
    /// The decoded plates, for a corpus composed from real illustrations.
    var illustrations: [Illustration]? = nil

    public var pageCount: Int { units.reduce(0) { $0 + ($1.isSpread ? 2 : 1) } }
    public var spreads: [[Int]] { units.filter(\.isSpread).map { [$0.firstPage, $0.firstPage + 1] } }
    public var unitCount: Int { units.count }
}

enum Planner {
    static func placementWeights(_ d: Difficulty) -> [(PlacementStyle, Double)] {
        switch d {
        case .easy: return [(.margin, 0.4), (.sky, 0.35), (.panel, 0.25), (.overArt, 0), (.lightOnDark, 0)]
        case .mixed: return [(.margin, 0.24), (.sky, 0.2), (.panel, 0.2), (.overArt, 0.2), (.lightOnDark, 0.16)]
        case .hard: return [(.margin, 0.0), (.sky, 0.08), (.panel, 0.07), (.overArt, 0.47), (.lightOnDark, 0.38)]
        }
    }

    /// A random corpus book.
    static func plan(_ o: GeneratorOptions) -> BookPlan {
        var rng = SeededRandom(seed: o.seed).child("plan")
        var units: [UnitPlan] = []
        var page = 1
        let weights = placementWeights(o.difficulty)
        // Every placement style shows up early in any corpus of five or more pages, so even a
        // short run exercises them all; the rest are drawn by weight.
        var forced = weights.filter { $0.1 > 0 }.map(\.0)
        rng.shuffle(&forced)
        var unitIndex = 0
        while page <= o.pageCount {
            var u = rng.child("unit", unitIndex)
            let remaining = o.pageCount - page + 1
            let spread = remaining >= 2 && u.chance(o.difficulty == .easy ? 0.12 : 0.2) && unitIndex > 0
            let illustrationOnly = o.difficulty == .mixed && unitIndex > 0 && u.chance(0.1)
            let placement: PlacementStyle = forced.isEmpty ? weights[u.weightedIndex(weights.map(\.1))].0 : forced.removeFirst()
            units.append(unitPlan(page: page, spread: spread, placement: placement, illustrationOnly: illustrationOnly,
                                  options: o, rng: &u))
            page += spread ? 2 : 1
            unitIndex += 1
        }
        return BookPlan(title: ["en": "Generated corpus \(o.seed)"], languages: ["en", "ar", "mn-Mong", "zh-Hans", "ja"],
                        readingDirection: "ltr", width: o.width, height: o.height, seed: o.seed,
                        difficulty: o.difficulty, units: units)
    }

    static func unitPlan(
        page: Int, spread: Bool, placement: PlacementStyle, illustrationOnly: Bool,
        options o: GeneratorOptions, rng: inout SeededRandom
    ) -> UnitPlan {
        let H = Double(o.height)
        let theme: SceneTheme = placement == .lightOnDark ? .night : rng.pick([.day, .day, .dusk, .autumn])
        let layout: ArtLayout
        switch placement {
        case .margin:
            layout = .band(textAtTop: rng.chance(0.3), fraction: rng.uniform(0.22, 0.32))
        default:
            layout = .fullBleed
        }
        let horizon = placement == .sky ? rng.uniform(0.52, 0.62) : rng.uniform(0.34, 0.5)
        let detail: Double
        switch o.difficulty {
        case .easy: detail = rng.uniform(0.1, 0.4)
        case .mixed: detail = rng.uniform(0.3, 0.8)
        case .hard: detail = rng.uniform(0.7, 1.0)
        }
        var blocks: [BlockPlan] = []
        if !illustrationOnly {
            let halves = spread ? [0, 1] : [0]
            for half in halves {
                // On a spread, one page sometimes carries all the text.
                if spread && half == 1 && rng.chance(0.35) { continue }
                let kind = rng.weightedIndex([0.62, 0.14, 0.08, 0.08, 0.08])  // en, en+ar, mn, zh, ja
                let sizeBase = H * (o.difficulty == .hard ? rng.uniform(0.016, 0.026) : rng.uniform(0.02, 0.034))
                let style = rng.pick([FontStyle.serif, .serif, .sans, .serifBold, .sansBold])
                let align = rng.pick([0.0, 0.5, 0.5, 1.0])
                let ink: InkKind = placement == .lightOnDark ? .light : (rng.chance(0.1) ? .coloured : .dark)
                // Distinct sentences within a block.
                var order = Array(Phrases.all.indices)
                rng.shuffle(&order)
                var next = 0
                func phrase(_ rng: inout SeededRandom) -> Phrase {
                    defer { next = (next + 1) % order.count }
                    return Phrases.all[order[next]]
                }
                switch kind {
                case 1:
                    let count = rng.int(1...2)
                    let ps = (0..<count).map { _ in phrase(&rng) }
                    let en = ps.map(\.en).joined(separator: " "), ar = ps.map(\.ar).joined(separator: " ")
                    blocks.append(BlockPlan(text: en, language: "en", translations: ["en": en, "ar": ar], placement: placement,
                                            orientation: .horizontal, fontSize: sizeBase, style: style, half: half, align: align, ink: ink))
                    blocks.append(BlockPlan(text: ar, language: "ar", translations: ["en": en, "ar": ar], placement: placement,
                                            orientation: .horizontal, fontSize: sizeBase * 1.1, style: style, half: half, align: align, ink: ink))
                case 2:
                    let n = Phrases.mongolian.count
                    let pi = rng.int(0...(n - 1)), qi = (pi + rng.int(1...(n - 1))) % n
                    let p = Phrases.mongolian[pi], q = Phrases.mongolian[qi]
                    let text = p.mn + " " + q.mn
                    blocks.append(BlockPlan(text: text, language: "mn-Mong", translations: ["mn-Mong": text, "en": p.en + " " + q.en],
                                            placement: placement, orientation: .verticalLR, fontSize: sizeBase * 1.2, style: .sans,
                                            half: half, measure: 0.8, align: rng.pick([0.0, 1.0]), ink: ink))
                case 3, 4:
                    let p = phrase(&rng)
                    let zh = kind == 3
                    let vertical = rng.chance(0.5)
                    let text = zh ? p.zh : p.ja
                    blocks.append(BlockPlan(text: text, language: zh ? "zh-Hans" : "ja", translations: [zh ? "zh-Hans" : "ja": text, "en": p.en],
                                            placement: placement, orientation: vertical ? .verticalRL : .horizontal,
                                            fontSize: sizeBase * 1.05, style: rng.chance(0.5) ? .serif : .sans, half: half,
                                            measure: vertical ? 0.75 : 0.8, align: vertical ? rng.pick([0.0, 1.0]) : align, ink: ink))
                default:
                    let count = rng.int(1...3)
                    let sentences = (0..<count).map { _ in phrase(&rng).en }
                    // Often two paragraphs: separate boxes a detector must not merge.
                    let paragraphs = count >= 2 && rng.chance(0.5)
                        ? [sentences[0], sentences.dropFirst().joined(separator: " ")] : [sentences.joined(separator: " ")]
                    let measure = rng.uniform(0.6, 0.9)
                    for text in paragraphs {
                        blocks.append(BlockPlan(text: text, language: "en", translations: ["en": text], placement: placement,
                                                orientation: .horizontal, fontSize: sizeBase, style: style, half: half,
                                                measure: measure, align: align, ink: ink))
                    }
                }
            }
            // Page numbers on most text pages.
            if rng.chance(0.7) {
                for (half, number) in Array((spread ? [page, page + 1] : [page]).enumerated()) {
                    let numberPlacement: PlacementStyle
                    if case .band(let top, _) = layout, !top { numberPlacement = .margin } else { numberPlacement = theme == .night ? .lightOnDark : .overArt }
                    blocks.append(BlockPlan(text: String(number), language: "en", translations: ["en": String(number)],
                                            placement: numberPlacement, orientation: .horizontal, fontSize: H * 0.018,
                                            style: .serif, half: half, role: .pageNumber, measure: 1,
                                            align: rng.pick([0.5, half == 0 ? 0.0 : 1.0]), ink: theme == .night ? .light : .dark))
                }
            }
        }
        let seed = rng.next() >> 1
        var degr: [ScanDegradation] = []
        for half in 0..<(spread ? 2 : 1) {
            let gutter = spread ? (half == 0 ? "right" : "left") : "none"
            degr.append(ScanDegradation.random(&rng, difficulty: o.difficulty, gutter: gutter))
        }
        let coast = rng.chance(0.25)
        return UnitPlan(firstPage: page, isSpread: spread, theme: theme, layout: layout, horizon: horizon, coast: coast,
                        detail: detail, monochrome: false, blocks: blocks, seed: seed, degradations: degr)
    }
}
