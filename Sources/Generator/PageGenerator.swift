// Rendering one planned page or spread: set the text, place it, paint the scene around it,
// composite the text, split spreads, and degrade page and clean background identically.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry
public import Raster

/// One finished page: the scanned-looking image (before JPEG), its clean background, and truth.
public struct GeneratedPage: Sendable {
    public var truth: PageTruth
    /// The page as scanned, with text; encode as JPEG.
    public var image: Bitmap<RGBA8>
    /// The same page and scan wear without any text; store losslessly.
    public var clean: Bitmap<RGBA8>
    /// The text ink coverage (255 = full ink) in page pixels, before scan blur.
    public var ink: Bitmap<UInt8>
}

public enum PageGenerator {
    /// Decides every page of a random corpus book from `options.seed`.
    public static func plan(_ options: GeneratorOptions) throws(GeneratorError) -> BookPlan {
        try options.validate()
        return Planner.plan(options)
    }

    /// Renders unit `index` of `plan` (one page, or both pages of a spread). Pure: the result
    /// depends only on the plan, never on the thread or on other units.
    public static func render(_ plan: BookPlan, unit index: Int) throws(GeneratorError) -> [GeneratedPage] {
        precondition(index >= 0 && index < plan.units.count, "unit \(index) outside 0..<\(plan.units.count)")
        let unit = plan.units[index]
        if let spec = unit.illustrated { return try IllustratedRenderer(plan: plan, unit: unit, spec: spec).render() }
        return try UnitRenderer(plan: plan, unit: unit).render()
    }
}

/// A block set and placed on the unit's canvas.
private struct PlacedBlock {
    var plan: BlockPlan
    var set: SetBlock
    var origin: Point
    /// Blocks stacked together (a paragraph and its translation) share a group and a panel.
    var group = 0
    var box: Rect { Rect(origin: origin, size: set.size) }
}

struct UnitRenderer {
    let plan: BookPlan
    let unit: UnitPlan
    let W: Int, H: Int
    var canvasWidth: Int { unit.isSpread ? 2 * W : W }
    var scale: Double { Double(H) / 1000 }

    init(plan: BookPlan, unit: UnitPlan) {
        self.plan = plan
        self.unit = unit
        W = plan.width
        H = plan.height
    }

    /// The art rect on the unit canvas, by layout.
    func artRect() -> PixelRect {
        let cw = canvasWidth
        switch unit.layout {
        case .fullBleed:
            return PixelRect(width: cw, height: H)
        case .band(let top, let f):
            let band = Int(Double(H) * f)
            return top ? PixelRect(x: 0, y: band, width: cw, height: H - band) : PixelRect(x: 0, y: 0, width: cw, height: H - band)
        case .plate:
            let m = Int(Double(W) * 0.09)
            return PixelRect(x: m, y: m, width: cw - 2 * m, height: Int(Double(H) * 0.74))
        case .vignette(let top):
            let w = Int(Double(W) * 0.56), h = Int(Double(H) * 0.26)
            let y = top ? Int(Double(H) * 0.07) : H - h - Int(Double(H) * 0.1)
            return PixelRect(x: (cw - w) / 2, y: y, width: w, height: h)
        }
    }

    /// Where text in `placement` may go on page `half`.
    func region(for block: BlockPlan, art: PixelRect) -> Rect {
        let ox = Double(block.half * W), w = Double(W), h = Double(H)
        let mx = w * 0.08
        let horizonY = Double(art.minY) + Double(art.height) * unit.horizon
        if block.role == .pageNumber {
            return Rect(x: ox + mx, y: h * 0.935, width: w - 2 * mx, height: h * 0.04)
        }
        switch (block.placement, unit.layout) {
        case (.margin, .band(let top, _)):
            return top ? Rect(x: ox + mx, y: h * 0.05, width: w - 2 * mx, height: Double(art.minY) - h * 0.07)
                : Rect(x: ox + mx, y: Double(art.maxY) + h * 0.025, width: w - 2 * mx, height: h - Double(art.maxY) - h * 0.085)
        case (.margin, .plate):
            return Rect(x: ox + mx, y: Double(art.maxY) + h * 0.03, width: w - 2 * mx, height: h - Double(art.maxY) - h * 0.1)
        case (.margin, .vignette(let top)):
            return top ? Rect(x: ox + mx, y: Double(art.maxY) + h * 0.04, width: w - 2 * mx, height: h * 0.9 - Double(art.maxY))
                : Rect(x: ox + mx, y: h * 0.07, width: w - 2 * mx, height: Double(art.minY) - h * 0.1)
        case (.sky, _):
            return Rect(x: ox + mx, y: h * 0.06, width: w - 2 * mx, height: max(h * 0.1, horizonY - h * 0.16))
        case (.overArt, _):
            let top = horizonY + h * 0.04
            return Rect(x: ox + mx, y: top, width: w - 2 * mx, height: h * 0.9 - top)
        case (.panel, _), (.lightOnDark, _), (.margin, .fullBleed):
            return Rect(x: ox + mx, y: h * 0.07, width: w - 2 * mx, height: h * 0.84)
        }
    }

    func render() throws(GeneratorError) -> [GeneratedPage] {
        let rng = SeededRandom(seed: unit.seed)
        var layoutRng = rng.child("layout")
        let art = artRect()

        // 1. Set and place text, grouped by (page half, region).
        var placed: [PlacedBlock] = []
        var groups: [(key: String, blocks: [BlockPlan])] = []
        for b in unit.blocks {
            let key = "\(b.half)-\(b.role == .pageNumber)-\(b.placement)-\(b.orientation == .horizontal ? "h" : "v")"
            if let i = groups.firstIndex(where: { $0.key == key }) { groups[i].blocks.append(b) } else { groups.append((key, [b])) }
        }
        var taken: [Rect] = []
        for (gi, g) in groups.enumerated() {
            let region = region(for: g.blocks[0], art: art)
            var group = try placeGroup(g.blocks, in: region, avoiding: taken, rng: &layoutRng)
            for i in group.indices { group[i].group = gi }
            placed += group
            taken += placed.map(\.box)
        }

        // 2. Paint the scene around the text.
        let paper = RGB(0.97, 0.95, 0.90)
        var canvas = Canvas(width: canvasWidth, height: H, fill: paper)
        let pad = 0.6 * (placed.map(\.plan.fontSize).max() ?? 0)
        let keepClear = placed.filter { $0.plan.placement == .sky || $0.plan.placement == .panel || $0.plan.placement == .lightOnDark }
            .map { $0.box.insetBy(dx: -pad * 2, dy: -pad * 2) }
        let busy = placed.filter { $0.plan.placement == .overArt && $0.plan.role != .pageNumber }.map(\.box)
        let spec = SceneSpec(
            art: art, theme: unit.theme, horizon: unit.horizon, keepClear: keepClear, busyUnder: busy,
            detail: unit.detail, monochrome: unit.monochrome, scale: scale,
            gutterX: unit.isSpread ? Double(W) : nil, coast: unit.coast)
        var painter = ScenePainter(spec: spec, rng: rng.child("scene"), canvas: canvas)
        canvas = painter.paint()
        if case .plate = unit.layout {
            var r = rng.child("frame")
            let frame = Rect(art).insetBy(dx: -6 * scale, dy: -6 * scale)
            canvas.ink(.rect(frame), width: 1.5 * scale, colour: RGB(0.2, 0.16, 0.12), rng: &r, scale: scale)
            canvas.ink(.rect(Rect(art)), width: 2.5 * scale, colour: RGB(0.2, 0.16, 0.12), rng: &r, scale: scale)
        }
        var panelRng = rng.child("panels")
        for gi in groups.indices {
            let members = placed.filter { $0.group == gi && $0.plan.placement == .panel && $0.plan.role != .pageNumber }
            guard let first = members.first else { continue }
            let box = members.dropFirst().reduce(first.box) { $0.union($1.box) }
            let size = members.map(\.plan.fontSize).max() ?? first.plan.fontSize
            let page = Rect(x: Double(first.plan.half * W), y: 0, width: Double(W), height: Double(H))
            paintPanel(around: box, fontSize: size, within: page, on: &canvas, rng: &panelRng)
        }

        // 3. Text: one coverage mask over the whole unit, composited with each block's ink.
        let clean = canvas
        var inkRng = rng.child("ink")
        var ink = Bitmap<UInt8>(width: canvasWidth, height: H, fill: 0)
        var boxes: [(half: Int, box: TruthBox)] = []
        for (i, b) in placed.enumerated() {
            let cov = b.set.coverage(at: b.origin, clip: PixelRect(width: canvasWidth, height: H))
            guard let inkRect = inkBounds(cov) else { continue }
            let colour = inkColour(b.plan.ink, rng: &inkRng)
            canvas.composite(cov, opacity: 0.97) { _, _ in colour }
            accumulate(cov, into: &ink)
            let page = unit.firstPage + b.plan.half
            var local = inkRect
            local.x -= b.plan.half * W
            let joiner = b.plan.language.hasPrefix("zh") || b.plan.language.hasPrefix("ja") ? "" : " "
            boxes.append((b.plan.half, TruthBox(
                id: String(format3(page), prefix: "p") + "-b\(i + 1)", rect: local, language: b.plan.language,
                text: b.set.lines.joined(separator: joiner), translations: b.plan.translations.merging([b.plan.language: b.plan.text]) { a, _ in a },
                role: b.plan.role, placement: b.plan.placement, orientation: b.plan.orientation,
                fontSize: (b.plan.fontSize * 100).rounded() / 100, lines: b.set.lines, inkColor: hex(colour))))
        }

        // 4. Split and degrade each page; page and clean share every parameter.
        return unit.pages(canvas: canvas, clean: clean, ink: ink, width: W, height: H) { half, number, name in
            PageTruth(
                number: number, image: name + ".jpg", clean: "clean/" + name + ".png", width: W, height: H,
                theme: unit.theme, illustrationOnly: !unit.blocks.contains { $0.role != .pageNumber },
                monochrome: unit.monochrome,
                spread: unit.isSpread ? SpreadTruth(side: half == 0 ? "left" : "right", partner: half == 0 ? number + 1 : number - 1) : nil,
                role: unit.roles.flatMap { half < $0.count ? $0[half] : nil },
                degradation: unit.degradations[half], textBoxes: boxes.filter { $0.half == half }.map(\.box))
        }
    }

    /// Sets a group of blocks and stacks them in `region` (rows for horizontal text, columns for
    /// vertical), shrinking the type until the group fits.
    fileprivate func placeGroup(_ blocks: [BlockPlan], in region: Rect, avoiding taken: [Rect], rng: inout SeededRandom) throws(GeneratorError) -> [PlacedBlock] {
        let vertical = blocks[0].orientation != .horizontal
        var shrink = 1.0
        var sets: [SetBlock] = []
        for attempt in 0..<10 {
            sets = []
            for b in blocks {
                let measure = (vertical ? region.height : region.width) * b.measure
                sets.append(try TextSetter.set(TextRequest(
                    text: b.text, language: b.language, fontSize: b.fontSize * shrink, measure: measure,
                    orientation: b.orientation, style: b.style, lineSpacing: vertical ? 1.5 : 1.3, align: b.align)))
            }
            let gap = blocks[0].fontSize * shrink * (vertical ? 1.2 : 0.9)
            let along = sets.map { vertical ? $0.size.width : $0.size.height }.reduce(0, +) + gap * Double(sets.count - 1)
            let fits = vertical ? along <= region.width && sets.allSatisfy { $0.size.height <= region.height }
                : along <= region.height && sets.allSatisfy { $0.size.width <= region.width }
            if fits || attempt == 9 { break }
            shrink *= 0.88
        }
        let gap = blocks[0].fontSize * shrink * (vertical ? 1.2 : 0.9)
        var out: [PlacedBlock] = []
        var shrunk = blocks
        for i in shrunk.indices { shrunk[i].fontSize *= shrink }
        if vertical {
            let total = sets.map(\.size.width).reduce(0, +) + gap * Double(sets.count - 1)
            let slack = max(0, region.width - total)
            // Mongolian columns run left to right, CJK columns right to left.
            var x = region.minX + slack * blocks[0].align
            let order = blocks[0].orientation == .verticalRL ? Array(sets.indices.reversed()) : Array(sets.indices)
            let ySlack = max(0, region.height - (sets.map(\.size.height).max() ?? 0))
            let y = region.minY + ySlack * rng.uniform(0, 0.4)
            for i in order {
                out.append(PlacedBlock(plan: shrunk[i], set: sets[i], origin: Point(x: x, y: y)))
                x += sets[i].size.width + gap
            }
        } else {
            let total = sets.map(\.size.height).reduce(0, +) + gap * Double(sets.count - 1)
            let slack = max(0, region.height - total)
            var anchor = blocks[0].role == .pageNumber ? 0.5 : rng.pick([0.0, 0.15, 0.5, 0.85, 1.0])
            // Text under a vignette starts right below it, as typeset pages do.
            if case .vignette(let top) = unit.layout, blocks[0].placement == .margin { anchor = top ? 0 : 0.1 }
            var y = region.minY + slack * anchor
            for (i, s) in sets.enumerated() {
                let xs = max(0, region.width - s.size.width)
                // `align` is measured from the start of the line: the right edge for Arabic.
                let start = blocks[i].language.hasPrefix("ar") ? 1 - blocks[i].align : blocks[i].align
                let x = region.minX + xs * start
                out.append(PlacedBlock(plan: shrunk[i], set: s, origin: Point(x: x, y: y)))
                y += s.size.height + gap
            }
        }
        return out
    }

    func paintPanel(around textBox: Rect, fontSize: Double, within page: Rect, on canvas: inout Canvas, rng: inout SeededRandom) {
        let pad = fontSize * 0.8
        let box = textBox.insetBy(dx: -pad, dy: -pad)
        let cream = rng.pick([RGB(0.99, 0.98, 0.94), RGB(0.98, 0.95, 0.86), RGB(1, 1, 1)])
        let outline = RGB(0.18, 0.14, 0.12)
        let e = box.insetBy(dx: -box.width * 0.12, dy: -box.height * 0.25)
        // A speech bubble only where its ellipse (and tail) fits on the page.
        if rng.chance(0.35), page.insetBy(dx: fontSize * 0.5, dy: fontSize * 0.5).contains(e.insetBy(dx: 0, dy: -e.height * 0.2)) {
            var bubble = Path.ellipse(in: e)
            let side: Double = rng.chance(0.5) ? 1 : -1
            let tailBase = Point(x: e.midX + side * e.width * 0.2, y: e.maxY - e.height * 0.08)
            bubble.append(.polygon([tailBase + Point(x: -e.width * 0.06, y: 0), tailBase + Point(x: e.width * 0.06, y: 0),
                                    tailBase + Point(x: side * e.width * 0.16, y: e.height * 0.35)]))
            canvas.fill(bubble, cream, opacity: 0.98)
            canvas.ink(bubble, width: 2.5 * scale, colour: outline, rng: &rng, scale: scale)
        } else {
            let p = Path.roundedRect(box, radius: pad * rng.uniform(0.3, 1.2))
            canvas.wash(p, cream, rng: &rng, scale: scale, opacity: 0.97, pooling: 0.08)
            canvas.ink(p, width: 2.2 * scale, colour: outline, rng: &rng, scale: scale, opacity: 0.8)
        }
    }

    func inkColour(_ kind: InkKind, rng: inout SeededRandom) -> RGB {
        switch kind {
        case .dark: return rng.pick([RGB(0.08, 0.07, 0.07), RGB(0.12, 0.09, 0.07), RGB(0.08, 0.10, 0.20)]).jittered(&rng, 0.02)
        case .light: return rng.pick([RGB(0.99, 0.97, 0.90), RGB(0.98, 0.92, 0.62), RGB(1, 1, 1)]).jittered(&rng, 0.01)
        case .coloured: return rng.pick([RGB(0.55, 0.10, 0.10), RGB(0.10, 0.30, 0.55), RGB(0.15, 0.38, 0.15)])
        }
    }

    func inkBounds(_ cov: CoverageMask) -> PixelRect? {
        var x0 = Int.max, y0 = Int.max, x1 = -1, y1 = -1
        let w = cov.rect.width
        cov.mask.pixels.withUnsafeBufferPointer { p in
            for y in 0..<cov.rect.height {
                for x in 0..<w where p[y * w + x] > 0 {
                    x0 = min(x0, x); x1 = max(x1, x)
                    y0 = min(y0, y); y1 = max(y1, y)
                }
            }
        }
        guard x1 >= 0 else { return nil }
        return PixelRect(x: cov.rect.x + x0, y: cov.rect.y + y0, width: x1 - x0 + 1, height: y1 - y0 + 1)
    }

    func accumulate(_ cov: CoverageMask, into ink: inout Bitmap<UInt8>) {
        let r = cov.rect
        for y in 0..<r.height {
            for x in 0..<r.width {
                let v = cov.mask.pixels[y * r.width + x]
                if v == 0 { continue }
                let i = (r.y + y) * ink.width + r.x + x
                ink.pixels[i] = max(ink.pixels[i], v)
            }
        }
    }

    func hex(_ c: RGB) -> String {
        RGBA8(r: UInt8(min(255, max(0, c.r * 255 + 0.5))), g: UInt8(min(255, max(0, c.g * 255 + 0.5))), b: UInt8(min(255, max(0, c.b * 255 + 0.5)))).description
    }
}

func format3(_ n: Int) -> String {
    let s = String(n)
    return s.count >= 3 ? s : String(repeating: "0", count: 3 - s.count) + s
}

extension String {
    fileprivate init(_ s: String, prefix: String) { self = prefix + s }
}

extension UnitPlan {
    /// The unit's canvases cut into its page (or the two pages of a spread), each with its own
    /// scan wear; a page and its clean background share every parameter, so they differ only in
    /// the text. `truth(half, number, name)` gives each page's truth.
    func pages(canvas: Canvas, clean: Canvas, ink: Bitmap<UInt8>, width W: Int, height H: Int,
               truth: (Int, Int, String) -> PageTruth) -> [GeneratedPage] {
        (0..<(isSpread ? 2 : 1)).map { half in
            let pageCanvas = isSpread ? canvas.columns(half * W, W) : canvas
            let cleanCanvas = isSpread ? clean.columns(half * W, W) : clean
            let inkPage = isSpread ? ink.cropped(to: PixelRect(x: half * W, y: 0, width: W, height: H)) : ink
            let number = firstPage + half
            let degraded = degradations[half].apply(to: [pageCanvas, cleanCanvas])
            return GeneratedPage(truth: truth(half, number, "page-\(format3(number))"), image: degraded[0], clean: degraded[1], ink: inkPage)
        }
    }
}
