// The second synthetic corpus: real public-domain illustrations with text typeset over and beside
// them (`generate --illustrations DIR`). Truth, clean backgrounds, degradation and the writer are
// the generator's own; only the composition differs — real plates placed full-page, as a plate on
// paper, as a vignette or as a panorama split over two facing pages, with type in many faces at
// 14–120 px, speech bubbles of several shapes, and blocks that straddle paper and art.
//
// The plan fixes each unit's layout, illustration and seed; everything else is drawn from the
// unit's seed when it is rendered, so a unit renders the same on any thread.

import Geometry
import Raster

/// How a real illustration sits on a page (or a spread).
enum IllustratedLayout: String, Sendable, CaseIterable {
    /// Cropped to fill the page, text over it.
    case fullPage
    /// Whole, on paper with margins; text on the paper, over the art and across its edge.
    case plate
    /// Small, above or below running text.
    case vignette
    /// One illustration printed full-bleed across both pages of a spread.
    case panorama
}

struct IllustratedUnit: Sendable {
    var layout: IllustratedLayout
    /// Index into the book's illustrations.
    var image: Int
    /// No text at all: pages a detector must leave empty.
    var textFree: Bool
}

extension PageGenerator {
    /// Plans a corpus of `options.pageCount` pages composed from `illustrations` (see
    /// `IllustrationLibrary.load`). `options.difficulty` sets the scan wear only.
    public static func plan(_ options: GeneratorOptions, illustrations: [Illustration]) throws(GeneratorError) -> BookPlan {
        try options.validate()
        guard !illustrations.isEmpty else { throw .illustrations(path: "(none)", reason: "no illustrations to compose pages from") }
        var rng = SeededRandom(seed: options.seed).child("illustrated")
        var order = Array(illustrations.indices)
        rng.shuffle(&order)
        // Panoramas want the widest plates: a portrait plate stretched over a spread is mostly crop.
        let byWidth = illustrations.indices.sorted { illustrations[$0].aspect > illustrations[$1].aspect }
        let landscape = byWidth.filter { illustrations[$0].aspect >= 1.1 }
        let wide = landscape.isEmpty ? Array(byWidth.prefix(max(1, illustrations.count / 4))) : landscape
        var units: [UnitPlan] = []
        var page = 1, next = 0, index = 0
        // Every layout appears early, so a short corpus still has them all.
        var forced: [IllustratedLayout] = [.fullPage, .panorama, .plate, .vignette]
        while page <= options.pageCount {
            var u = rng.child("unit", index)
            let remaining = options.pageCount - page + 1
            var layout = forced.isEmpty ? [.fullPage, .fullPage, .plate, .plate, .vignette, .panorama][u.int(0...5)] : forced.removeFirst()
            if layout == .panorama && remaining < 2 { layout = .fullPage }
            let image: Int
            if layout == .panorama {
                image = wide[u.int(0...(wide.count - 1))]
            } else {
                image = order[next % order.count]
                next += 1
            }
            let spread = layout == .panorama
            let textFree = index > 0 && u.chance(0.1)
            var degradations: [ScanDegradation] = []
            for half in 0..<(spread ? 2 : 1) {
                // Panoramas printed across the fold often show no gutter shade at all (issue 17).
                let gutter = spread && u.chance(0.5) ? (half == 0 ? "right" : "left") : "none"
                degradations.append(ScanDegradation.random(&u, difficulty: options.difficulty, gutter: gutter))
            }
            units.append(UnitPlan(
                firstPage: page, isSpread: spread, theme: .day, layout: .fullBleed, horizon: 0.4, detail: 0,
                monochrome: false, blocks: [], seed: u.next() >> 1, degradations: degradations,
                illustrated: IllustratedUnit(layout: layout, image: image, textFree: textFree)))
            page += spread ? 2 : 1
            index += 1
        }
        return BookPlan(
            title: ["en": "Illustrated corpus \(options.seed)"], languages: ["en"], readingDirection: "ltr",
            width: options.width, height: options.height, seed: options.seed, difficulty: options.difficulty,
            units: units, illustrations: illustrations)
    }
}

/// A block decided for an illustrated unit: what to set, in which face and size, and where it may go.
struct IllustratedBlock {
    enum Kind { case body, title, bubble, caption, spanning, pageNumber }
    var kind: Kind
    var text: String
    var style: FontStyle
    var fontSize: Double
    var half: Int
    /// Where its box may lie, in unit canvas pixels.
    var region: Rect
    var measure: Double
    var align: Double
    /// For spanning blocks: the y (canvas pixels) the box must straddle.
    var straddleY: Double? = nil
}

struct IllustratedRenderer {
    let plan: BookPlan
    let unit: UnitPlan
    let spec: IllustratedUnit
    let W: Int, H: Int
    var canvasWidth: Int { unit.isSpread ? 2 * W : W }
    /// Sizes are given for a 2000 px tall page (where the corpus's 14–120 px range holds).
    var k: Double { Double(H) / 2000 }

    init(plan: BookPlan, unit: UnitPlan, spec: IllustratedUnit) {
        self.plan = plan
        self.unit = unit
        self.spec = spec
        W = plan.width
        H = plan.height
    }

    func render() throws(GeneratorError) -> [GeneratedPage] {
        let root = SeededRandom(seed: unit.seed)
        var rng = root.child("compose")
        guard let illustrations = plan.illustrations, spec.image < illustrations.count else {
            throw .illustrations(path: "(plan)", reason: "unit refers to illustration \(spec.image), which the plan does not hold")
        }
        let art = illustrations[spec.image]

        // 1. Paper and art.
        let paper = RGB(0.97, 0.95, 0.90).jittered(&rng, 0.015)
        var canvas = Canvas(width: canvasWidth, height: H, fill: paper)
        let artRect = placeArt(art, on: &canvas, rng: &rng)

        // 2. Decide the blocks, set them and place them without overlaps.
        var blocks = spec.textFree ? [] : decideBlocks(artRect: artRect, rng: &rng)
        var placed: [(block: IllustratedBlock, set: SetBlock, origin: Point, frame: Rect)] = []
        var taken: [Rect] = []
        for i in blocks.indices {
            for _ in 0..<6 {
                let b = blocks[i]
                let set = try TextSetter.set(TextRequest(
                    text: b.text, language: "en", fontSize: b.fontSize, measure: b.measure, orientation: .horizontal,
                    style: b.style, lineSpacing: b.kind == .bubble ? 1.15 : 1.3, align: b.align))
                let pad = b.kind == .bubble ? BubblePainter.padding(for: set.size, fontSize: b.fontSize) : Size(width: 0, height: 0)
                if let origin = position(set.size, pad: pad, block: b, avoiding: taken, rng: &rng) {
                    let frame = Rect(x: origin.x - pad.width, y: origin.y - pad.height,
                                     width: set.size.width + 2 * pad.width, height: set.size.height + 2 * pad.height)
                    placed.append((b, set, origin, frame))
                    let gap = max(b.fontSize * 0.8, 10 * k)
                    taken.append(frame.insetBy(dx: -gap, dy: -gap))
                    break
                }
                // Does not fit: smaller type, a little wider measure, and try again.
                blocks[i].fontSize = max(14 * k, blocks[i].fontSize * 0.85)
                blocks[i].measure = min(blocks[i].region.width * 0.95, blocks[i].measure * 1.1)
            }
        }

        // 3. Bubbles are part of the page before text: painted, then the clean background kept.
        var bubbleRng = root.child("bubbles")
        for p in placed where p.block.kind == .bubble {
            let pageRect = Rect(x: Double(p.block.half * W), y: 0, width: Double(W), height: Double(H))
            BubblePainter.paint(around: p.frame, within: pageRect, scale: 2 * k, on: &canvas, rng: &bubbleRng)
        }
        let clean = canvas

        // 4. Ink chosen against the ground under each block, composited; truth recorded.
        let helper = UnitRenderer(plan: plan, unit: unit)
        var inkRng = root.child("ink")
        var ink = Bitmap<UInt8>(width: canvasWidth, height: H, fill: 0)
        var boxes: [(half: Int, box: TruthBox)] = []
        for (i, p) in placed.enumerated() {
            let cov = p.set.coverage(at: p.origin, clip: PixelRect(width: canvasWidth, height: H))
            guard let inkRect = helper.inkBounds(cov) else { continue }
            let onArt = artRect.map { Rect(inkRect).intersects($0) } ?? false
            let ground = clean.lumaStats(in: inkRect)
            let (colour, light) = inkColour(for: p.block, ground: ground.mean, rng: &inkRng)
            canvas.composite(cov, opacity: 0.97) { _, _ in colour }
            helper.accumulate(cov, into: &ink)
            let placement: PlacementStyle
            switch p.block.kind {
            case .bubble: placement = .panel
            default: placement = !onArt ? .margin : (light ? .lightOnDark : .overArt)
            }
            let role: BlockRole
            switch p.block.kind {
            case .title: role = .title
            case .caption: role = .caption
            case .pageNumber: role = .pageNumber
            default: role = .body
            }
            let page = unit.firstPage + p.block.half
            var local = inkRect
            local.x -= p.block.half * W
            boxes.append((p.block.half, TruthBox(
                id: "p" + format3(page) + "-b\(i + 1)", rect: local, language: "en", text: p.set.lines.joined(separator: " "),
                translations: ["en": p.block.text], role: role, placement: placement, orientation: .horizontal,
                fontSize: (p.block.fontSize * 100).rounded() / 100, lines: p.set.lines, inkColor: helper.hex(colour))))
        }

        // 5. Split and degrade; page and clean share every parameter.
        return unit.pages(canvas: canvas, clean: clean, ink: ink, width: W, height: H) { half, number, name in
            let own = boxes.filter { $0.half == half }.map(\.box)
            return PageTruth(
                number: number, image: name + ".jpg", clean: "clean/" + name + ".png", width: W, height: H,
                theme: .day, illustrationOnly: !own.contains { $0.role != .pageNumber }, monochrome: false,
                spread: unit.isSpread ? SpreadTruth(side: half == 0 ? "left" : "right", partner: half == 0 ? number + 1 : number - 1) : nil,
                role: nil, degradation: unit.degradations[half], textBoxes: own)
        }
    }

    /// Draws the illustration for the unit's layout; returns where the art lies (nil: nowhere).
    func placeArt(_ art: Illustration, on canvas: inout Canvas, rng: inout SeededRandom) -> Rect? {
        let cw = Double(canvasWidth), h = Double(H), w = Double(W)
        let iw = Double(art.image.width), ih = Double(art.image.height)
        switch spec.layout {
        case .fullPage, .panorama:
            // Cover the page (or spread): crop the image to the canvas's shape at a random offset.
            let target = cw / h
            var crop = Rect(x: 0, y: 0, width: iw, height: ih)
            if art.aspect > target {
                crop.size.width = ih * target
                crop.origin.x = (iw - crop.width) * rng.uniform(0.2, 0.8)
            } else {
                crop.size.height = iw / target
                crop.origin.y = (ih - crop.height) * rng.uniform(0.2, 0.8)
            }
            let dest = Rect(x: 0, y: 0, width: cw, height: h)
            canvas.draw(art.image, crop: crop, into: dest)
            return dest
        case .plate, .vignette:
            let maxW = spec.layout == .plate ? w * rng.uniform(0.72, 0.86) : w * rng.uniform(0.42, 0.6)
            let maxH = spec.layout == .plate ? h * rng.uniform(0.55, 0.68) : h * rng.uniform(0.26, 0.36)
            let s = min(maxW / iw, maxH / ih)
            let size = Size(width: iw * s, height: ih * s)
            let atTop = rng.chance(spec.layout == .plate ? 0.75 : 0.5)
            let y = atTop ? h * rng.uniform(0.06, 0.12) : h - size.height - h * rng.uniform(0.08, 0.14)
            let dest = Rect(x: ((w - size.width) / 2).rounded(), y: y.rounded(), width: size.width.rounded(), height: size.height.rounded())
            canvas.draw(art.image, crop: Rect(x: 0, y: 0, width: iw, height: ih), into: dest)
            if spec.layout == .plate && rng.chance(0.5) {
                var r = rng.child("frame")
                canvas.ink(.rect(dest.insetBy(dx: -5 * k, dy: -5 * k)), width: 2.5 * k, colour: RGB(0.2, 0.16, 0.12), rng: &r, scale: 2 * k)
            }
            return dest
        }
    }

    func inkColour(for block: IllustratedBlock, ground: Float, rng: inout SeededRandom) -> (RGB, light: Bool) {
        let darks = [RGB(0.06, 0.05, 0.05), RGB(0.12, 0.08, 0.06), RGB(0.06, 0.09, 0.22)]
        let colours = [RGB(0.55, 0.08, 0.08), RGB(0.08, 0.25, 0.52), RGB(0.12, 0.34, 0.12)]
        let lights = [RGB(1, 1, 1), RGB(0.99, 0.97, 0.88), RGB(0.99, 0.93, 0.60)]
        if block.kind == .bubble { return (rng.pick(darks), false) }
        // Light grounds take dark (sometimes coloured) ink; dark grounds take light ink; in between,
        // whichever extreme reads better, as a designer would pick.
        if ground > 0.62 {
            let coloured = (block.kind == .title || rng.chance(0.12)) && ground > 0.72
            return (coloured ? rng.pick(colours) : rng.pick(darks).jittered(&rng, 0.02), false)
        }
        if ground < 0.4 { return (rng.pick(lights), true) }
        return ground >= 0.5 ? (RGB(0.02, 0.02, 0.02), false) : (RGB(1, 1, 1), true)
    }
}
