// Story files: a sample book written by hand — its text, translations and page layout — that
// the generator illustrates. Tools/books/*.json are stories; Tools/make-books.sh renders them.

import Foundation
import FileIO

/// A hand-written book for the generator to illustrate (the JSON of a Tools/books/*.json file).
public struct Story: Sendable, Codable {
    public var title: [String: String]
    public var languages: [String]
    public var readingDirection: String
    public var seed: UInt64
    public var width: Int
    public var height: Int
    /// Body type size as a fraction of the page height.
    public var fontSize: Double
    /// Scan wear: easy (clean modern scan) ... hard (old, worn).
    public var difficulty: Difficulty
    /// "serif", "sans", "serifBold" or "sansBold".
    public var font: String?
    public var units: [StoryUnit]
}

/// One page, or a two-page spread, of a story.
public struct StoryUnit: Sendable, Codable {
    public var spread: Bool?
    public var theme: SceneTheme?
    /// "fullBleed", "bandTop", "bandBottom", "plate", "vignetteTop" or "vignetteBottom".
    public var layout: String?
    /// Default placement of the blocks on this page.
    public var placement: PlacementStyle?
    public var horizon: Double?
    /// A seashore with boats and a lighthouse instead of hills.
    public var coast: Bool?
    public var detail: Double?
    /// Black-and-white ink drawing rather than a colour plate.
    public var monochrome: Bool?
    /// Print page numbers (default true except on the cover).
    public var pageNumbers: Bool?
    /// book.json page roles ("cover", "titlePage", "plate", ...), one per page.
    public var roles: [String]?
    public var blocks: [StoryBlock]?
}

public struct StoryBlock: Sendable, Codable {
    /// The language printed on the page.
    public var show: String
    /// The text in every language (the printed one and its translations).
    public var text: [String: String]
    /// Override of the unit's placement.
    public var placement: PlacementStyle?
    /// 0 = left page, 1 = right page of a spread.
    public var half: Int?
    /// Multiplies the book's type size.
    public var size: Double?
    public var role: BlockRole?
    /// CJK only: set in vertical columns.
    public var vertical: Bool?
    public var measure: Double?
    public var align: Double?
    /// "dark", "light" or "coloured".
    public var ink: String?
}

extension Story {
    public static func load(_ path: String) throws(GeneratorError) -> Story {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(path, limit: 4 << 20)
        } catch {
            // FileError messages start with the path; the story error adds it once.
            let message = error.description
            throw .story(path: path, reason: message.hasPrefix(path + ": ") ? String(message.dropFirst(path.count + 2)) : message)
        }
        func location(_ path: [any CodingKey]) -> String {
            guard !path.isEmpty else { return "at the top level" }
            var out = ""
            for key in path {
                if let i = key.intValue { out += "[\(i)]" } else { out += (out.isEmpty ? "" : ".") + key.stringValue }
            }
            return "at " + out
        }
        do {
            return try JSONDecoder().decode(Story.self, from: Data(bytes))
        } catch let DecodingError.keyNotFound(key, ctx) {
            throw .story(path: path, reason: "missing field '\(key.stringValue)' \(location(ctx.codingPath))")
        } catch let DecodingError.typeMismatch(_, ctx), let DecodingError.valueNotFound(_, ctx), let DecodingError.dataCorrupted(ctx) {
            throw .story(path: path, reason: "\(ctx.debugDescription) \(location(ctx.codingPath))")
        } catch {
            throw .story(path: path, reason: "not a story file: \(error)")
        }
    }

    /// The book the generator renders for this story.
    public func plan(path: String = "story") throws(GeneratorError) -> BookPlan {
        try GeneratorOptions(seed: seed, pageCount: 1, width: width, height: height, difficulty: difficulty).validate()
        guard !units.isEmpty else { throw .story(path: path, reason: "has no pages") }
        guard fontSize > 0.002, fontSize <= 0.2 else {
            throw .story(path: path, reason: "fontSize is a fraction of the page height (0.002...0.2), got \(fontSize)")
        }
        let root = SeededRandom(seed: seed)
        var units: [UnitPlan] = []
        var page = 1
        let H = Double(height)
        let defaultStyle = FontStyle(rawValue: font ?? "serif") ?? .serif
        // In a book with Arabic and a left-to-right language each block hangs from its own
        // start edge; single-direction books centre their text.
        let bidiBook = languages.contains { $0.hasPrefix("ar") } && languages.contains { !$0.hasPrefix("ar") }
        for (i, su) in self.units.enumerated() {
            var rng = root.child("unit", i)
            let spread = su.spread ?? false
            let placement = su.placement ?? .margin
            let theme = su.theme ?? (placement == .lightOnDark ? .night : .day)
            let layout: ArtLayout
            switch su.layout ?? (placement == .margin ? "bandBottom" : "fullBleed") {
            case "fullBleed": layout = .fullBleed
            case "bandTop": layout = .band(textAtTop: true, fraction: 0.26)
            case "bandBottom": layout = .band(textAtTop: false, fraction: 0.26)
            case "plate": layout = .plate
            case "vignetteTop": layout = .vignette(atTop: true)
            case "vignetteBottom": layout = .vignette(atTop: false)
            case let other: throw .story(path: path, reason: "unit \(i + 1): unknown layout '\(other)'")
            }
            var blocks: [BlockPlan] = []
            for (j, sb) in (su.blocks ?? []).enumerated() {
                guard let shown = sb.text[sb.show] else {
                    throw .story(path: path, reason: "unit \(i + 1) block \(j + 1): no text for the shown language '\(sb.show)'")
                }
                let half = sb.half ?? 0
                guard half == 0 || (spread && half == 1) else {
                    throw .story(path: path, reason: "unit \(i + 1) block \(j + 1): half \(half) on a single page")
                }
                let mode: BlockOrientation
                if sb.show.hasPrefix("mn") { mode = .verticalLR } else if sb.vertical == true { mode = .verticalRL } else { mode = .horizontal }
                let blockPlacement = sb.placement ?? placement
                let ink: InkKind
                switch sb.ink ?? (blockPlacement == .lightOnDark ? "light" : "dark") {
                case "light": ink = .light
                case "coloured": ink = .coloured
                default: ink = .dark
                }
                let role = sb.role ?? .body
                let scale = (sb.size ?? (role == .title ? 1.6 : 1)) * (sb.show.hasPrefix("ar") ? 1.1 : 1) * (sb.show.hasPrefix("mn") ? 1.15 : 1)
                blocks.append(BlockPlan(
                    text: shown, language: sb.show, translations: sb.text, placement: blockPlacement, orientation: mode,
                    fontSize: H * fontSize * scale, style: role == .title ? (defaultStyle == .sans ? .sansBold : .serifBold) : defaultStyle,
                    half: half, role: role, measure: sb.measure ?? (mode == .horizontal ? 0.9 : 0.85),
                    align: sb.align ?? (role == .title || !bidiBook ? 0.5 : 0), ink: ink))
            }
            if su.pageNumbers ?? !(su.roles?.first == "cover") {
                for half in 0..<(spread ? 2 : 1) {
                    let number = page + half
                    let paperBelow: Bool
                    switch layout {
                    case .band(let top, _): paperBelow = !top
                    case .plate, .vignette: paperBelow = true
                    case .fullBleed: paperBelow = false
                    }
                    let p: PlacementStyle = paperBelow ? .margin : (theme == .night ? .lightOnDark : .overArt)
                    blocks.append(BlockPlan(
                        text: String(number), language: "en", translations: ["en": String(number)], placement: p,
                        orientation: .horizontal, fontSize: H * 0.02, style: defaultStyle == .sans ? .sans : .serif, half: half,
                        role: .pageNumber, measure: 1, align: spread ? (half == 0 ? 0 : 1) : 0.5, ink: theme == .night && !paperBelow ? .light : .dark))
                }
            }
            let unitSeed = rng.next() >> 1
            var degr: [ScanDegradation] = []
            for half in 0..<(spread ? 2 : 1) {
                // Every page of a bound book has a gutter: on the right of left-hand pages.
                let number = page + half
                let gutter = number % 2 == 0 ? "right" : "left"
                var d = ScanDegradation.random(&rng, difficulty: difficulty, gutter: gutter)
                d.jpegQuality = 80
                if !spread { d.gutterShadow *= 0.6 }
                degr.append(d)
            }
            units.append(UnitPlan(
                firstPage: page, isSpread: spread, theme: theme, layout: layout,
                horizon: su.horizon ?? (placement == .sky ? rng.uniform(0.55, 0.62) : rng.uniform(0.38, 0.48)),
                coast: su.coast ?? false,
                detail: su.detail ?? rng.uniform(0.3, 0.7), monochrome: su.monochrome ?? false, blocks: blocks,
                seed: unitSeed, degradations: degr, roles: su.roles))
            page += spread ? 2 : 1
        }
        return BookPlan(title: title, languages: languages, readingDirection: readingDirection, width: width, height: height,
                        seed: seed, difficulty: difficulty, units: units)
    }
}
