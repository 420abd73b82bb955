// Which text an illustrated unit carries and where it may go, placing set blocks without
// overlaps, and painting speech bubbles (oval, rounded, cloud, shout, caption box) around them.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry
import Raster

/// Short lines for bubbles and titles, in the voice of the books the plates come from.
private let exclamations = [
    "Oh dear!", "Look out!", "Hello!", "Come along, quickly!", "Where are you going?", "What a fine day!",
    "I am not afraid of cats!", "Run, run!", "Good morning, Madam!", "Shh! Listen!", "Mind the gate!",
    "Who is there?", "I shall find a nest.", "Wait for me!", "Thank you kindly!", "Hurry home!",
    "What have we here?", "Dinner is ready!", "Quack quack!", "Not so fast!",
]
private let titles = [
    "A Walk in the Wood", "The Garden Gate", "Home Again", "The Long Journey", "Chapter Two",
    "A Visit", "The Picnic", "In the Meadow", "Early Morning", "The Secret Nest", "Mischief", "The End",
]

extension IllustratedRenderer {
    func decideBlocks(artRect: Rect?, rng: inout SeededRandom) -> [IllustratedBlock] {
        let w = Double(W), h = Double(H), mx = w * 0.07
        var sentences = Phrases.all.map(\.en)
        rng.shuffle(&sentences)
        var nextSentence = 0
        func prose(_ n: Int) -> String {
            (0..<n).map { _ in
                defer { nextSentence = (nextSentence + 1) % sentences.count }
                return sentences[nextSentence]
            }.joined(separator: " ")
        }
        func page(_ half: Int) -> Rect { Rect(x: Double(half) * w + mx, y: h * 0.04, width: w - 2 * mx, height: h * 0.92) }
        func band(_ half: Int, _ y0: Double, _ y1: Double) -> Rect {
            Rect(x: Double(half) * w + mx, y: h * y0, width: w - 2 * mx, height: h * (y1 - y0))
        }
        func size(_ lo: Double, _ hi: Double, _ rng: inout SeededRandom) -> Double { rng.uniform(lo, hi) * k }
        var out: [IllustratedBlock] = []
        func body(_ half: Int, in region: Rect, size fs: Double, sentences n: Int, _ rng: inout SeededRandom) {
            out.append(IllustratedBlock(
                kind: .body, text: prose(n), style: rng.pick(FontStyle.text), fontSize: fs, half: half, region: region,
                measure: region.width * rng.uniform(0.5, 0.95), align: rng.pick([0.0, 0.5, 0.5, 1.0])))
        }
        func bubble(_ half: Int, in region: Rect, _ rng: inout SeededRandom) {
            let fs = size(36, 90, &rng)
            out.append(IllustratedBlock(
                kind: .bubble, text: rng.pick(exclamations), style: rng.pick(FontStyle.display + [.comic, .sansBold]),
                fontSize: fs, half: half, region: region, measure: max(fs * 5, w * rng.uniform(0.28, 0.45)), align: 0.5))
        }
        func title(_ half: Int, in region: Rect, _ rng: inout SeededRandom) {
            out.append(IllustratedBlock(
                kind: .title, text: rng.pick(titles), style: rng.pick(FontStyle.display), fontSize: size(56, 120, &rng),
                half: half, region: region, measure: region.width, align: 0.5))
        }
        func pageNumber(_ half: Int, _ rng: inout SeededRandom) {
            out.append(IllustratedBlock(
                kind: .pageNumber, text: String(unit.firstPage + half), style: rng.pick([.serif, .schoolbook, .liberationSerif]),
                fontSize: size(14, 22, &rng), half: half, region: band(half, 0.935, 0.985), measure: w, align: 0.5))
        }
        /// Plain paper above and below the art on page `half`, tallest first.
        func paper(_ art: Rect, _ half: Int) -> [Rect] {
            let gap = h * 0.025
            let above = Rect(x: Double(half) * w + mx, y: h * 0.05, width: w - 2 * mx, height: art.minY - gap - h * 0.05)
            let below = Rect(x: Double(half) * w + mx, y: art.maxY + gap, width: w - 2 * mx, height: h * 0.93 - art.maxY - gap)
            return [above, below].filter { $0.height > 40 * k }.sorted { $0.height > $1.height }
        }

        switch spec.layout {
        case .fullPage:
            if rng.chance(0.4) { title(0, in: band(0, 0.04, 0.3), &rng) }
            let top = rng.chance(0.5)
            body(0, in: top ? band(0, 0.05, 0.42) : band(0, 0.6, 0.92), size: size(22, 46, &rng), sentences: rng.int(1...3), &rng)
            if rng.chance(0.35) { body(0, in: top ? band(0, 0.6, 0.92) : band(0, 0.05, 0.42), size: size(20, 40, &rng), sentences: 1, &rng) }
            for _ in 0..<rng.int(0...2) { bubble(0, in: page(0), &rng) }
            if rng.chance(0.5) { pageNumber(0, &rng) }
        case .panorama:
            if rng.chance(0.3) { title(0, in: band(0, 0.04, 0.28), &rng) }
            for half in 0...1 where half == 0 || rng.chance(0.7) {
                let top = rng.chance(0.5)
                body(half, in: top ? band(half, 0.05, 0.38) : band(half, 0.64, 0.92), size: size(22, 44, &rng),
                     sentences: rng.int(1...2), &rng)
                if rng.chance(0.5) { bubble(half, in: page(half), &rng) }
            }
            if rng.chance(0.4) { pageNumber(0, &rng); pageNumber(1, &rng) }
        case .plate, .vignette:
            guard let art = artRect else { break }
            let regions = paper(art, 0)
            let fs = spec.layout == .vignette ? size(14, 30, &rng) : size(18, 36, &rng)
            if let main = regions.first {
                if spec.layout == .vignette && rng.chance(0.5) {
                    title(0, in: Rect(x: main.minX, y: main.minY, width: main.width, height: min(main.height, h * 0.2)), &rng)
                }
                let paragraphs = spec.layout == .vignette ? rng.int(2...3) : rng.int(1...2)
                for _ in 0..<paragraphs { body(0, in: main, size: fs, sentences: rng.int(1...3), &rng) }
            }
            if regions.count > 1, rng.chance(0.5) {
                out.append(IllustratedBlock(
                    kind: .caption, text: prose(1), style: rng.pick([.serifItalic, .palatinoItalic, .chancery]),
                    fontSize: size(16, 26, &rng), half: 0, region: regions[1], measure: regions[1].width * 0.8, align: 0.5))
            }
            // A block across the art's edge: half on paper, half on the picture.
            if rng.chance(spec.layout == .plate ? 0.6 : 0.35) {
                let edge = rng.chance(0.5) ? art.maxY : art.minY
                out.append(IllustratedBlock(
                    kind: .spanning, text: rng.chance(0.5) ? prose(1) : rng.pick(exclamations),
                    style: rng.pick(FontStyle.text + FontStyle.display), fontSize: size(26, 64, &rng), half: 0,
                    region: page(0), measure: w * rng.uniform(0.4, 0.75), align: 0.5, straddleY: edge))
            }
            if spec.layout == .plate {
                if rng.chance(0.45) { bubble(0, in: art.insetBy(dx: 10 * k, dy: 10 * k), &rng) }
                if rng.chance(0.3) {
                    body(0, in: art.insetBy(dx: 20 * k, dy: 20 * k), size: size(22, 40, &rng), sentences: 1, &rng)
                }
            }
            if rng.chance(0.6) { pageNumber(0, &rng) }
        }
        return out
    }

    /// Where a set block of `size` (plus bubble padding `pad`) may sit in its region without
    /// touching `taken`; nil when no spot is found.
    func position(_ size: Size, pad: Size, block: IllustratedBlock, avoiding taken: [Rect], rng: inout SeededRandom) -> Point? {
        let fw = size.width + 2 * pad.width, fh = size.height + 2 * pad.height
        let r = block.region
        guard fw <= r.width, fh <= r.height else { return nil }
        for _ in 0..<30 {
            let x = r.minX + (r.width - fw) * rng.unit()
            var y = r.minY + (r.height - fh) * rng.unit()
            if let edge = block.straddleY {
                y = edge - fh * rng.uniform(0.35, 0.65)
                guard y >= r.minY, y + fh <= r.maxY else { return nil }
            }
            let frame = Rect(x: x, y: y, width: fw, height: fh)
            if !taken.contains(where: { $0.intersects(frame) }) {
                return Point(x: (x + pad.width).rounded(), y: (y + pad.height).rounded())
            }
        }
        return nil
    }
}

/// Speech bubbles and caption boxes painted on the page before the text goes on.
enum BubblePainter {
    /// Room around the text so that every shape's inside holds the whole text box.
    static func padding(for text: Size, fontSize: Double) -> Size {
        Size(width: text.width * 0.22 + fontSize * 0.5, height: text.height * 0.36 + fontSize * 0.5)
    }

    static func paint(around frame: Rect, within page: Rect, scale: Double, on canvas: inout Canvas, rng: inout SeededRandom) {
        let fills = [RGB(1, 1, 1), RGB(0.99, 0.98, 0.93), RGB(0.98, 0.96, 0.84)]
        let fill = rng.pick(fills)
        let outline = RGB(0.12, 0.10, 0.09)
        let lw = rng.uniform(1.5, 3.5) * scale
        let clip = page.enclosingPixelRect
        let cx = frame.midX, cy = frame.midY, rx = frame.width / 2, ry = frame.height / 2
        let side: Double = rng.chance(0.5) ? 1 : -1
        let down = cy < page.midY  // tails point toward the middle of the page
        let dirY: Double = down ? 1 : -1
        let tailBase = Point(x: cx + side * rx * 0.3, y: cy + dirY * ry * 0.8)
        let tail = Path.polygon([
            tailBase + Point(x: -rx * 0.1, y: 0), tailBase + Point(x: rx * 0.1, y: 0),
            tailBase + Point(x: side * rx * 0.45, y: dirY * ry * 0.75),
        ])
        switch rng.int(0...4) {
        case 0:  // oval with a tail
            var p = Path.ellipse(in: frame)
            p.append(tail)
            canvas.ink(p, width: lw, colour: outline, rng: &rng, scale: scale, opacity: 0.95, clip: clip)
            canvas.fill(p, fill, clip: clip)
            canvas.ink(Path.ellipse(in: frame), width: lw, colour: outline, rng: &rng, scale: scale, opacity: 0.95, clip: clip)
            canvas.fill(Path.ellipse(in: frame.insetBy(dx: lw, dy: lw)), fill, clip: clip)
            canvas.fill(tail, fill, clip: clip)
        case 1:  // rounded box with a tail
            let box = Path.roundedRect(frame, radius: min(rx, ry) * rng.uniform(0.2, 0.6))
            var p = box
            p.append(tail)
            canvas.ink(box, width: lw, colour: outline, rng: &rng, scale: scale, opacity: 0.95, clip: clip)
            canvas.ink(tail, width: lw, colour: outline, rng: &rng, scale: scale, opacity: 0.95, clip: clip)
            canvas.fill(p, fill, opacity: 0.999, clip: clip, rule: .nonZero)
            canvas.ink(box, width: lw * 0.6, colour: outline, rng: &rng, scale: scale, opacity: 0.6, clip: clip)
        case 2:  // thought cloud: scallops round an oval, trailing puffs
            let n = rng.int(10...16)
            let r = min(rx, ry) * rng.uniform(0.22, 0.32)
            var circles: [Path] = []
            for i in 0..<n {
                let a = Double(i) / Double(n) * 2 * Double.pi
                let c = Point(x: cx + (rx - r * 0.6) * cos(a), y: cy + (ry - r * 0.6) * sin(a))
                circles.append(Path.ellipse(in: Rect(x: c.x - r, y: c.y - r, width: 2 * r, height: 2 * r)))
            }
            for c in circles { canvas.ink(c, width: lw, colour: outline, rng: &rng, scale: scale, opacity: 0.95, clip: clip) }
            for c in circles { canvas.fill(c, fill, clip: clip) }
            canvas.fill(Path.ellipse(in: frame.insetBy(dx: r * 0.5, dy: r * 0.5)), fill, clip: clip)
            for j in 1...3 {
                let rr = r * (0.5 - 0.12 * Double(j))
                let c = Point(x: cx + side * rx * (0.5 + 0.15 * Double(j)), y: cy + dirY * (ry + r * 0.5 + rr * 2.6 * Double(j)))
                let puff = Path.ellipse(in: Rect(x: c.x - rr, y: c.y - rr, width: 2 * rr, height: 2 * rr))
                canvas.ink(puff, width: lw, colour: outline, rng: &rng, scale: scale, opacity: 0.95, clip: clip)
                canvas.fill(puff, fill, clip: clip)
            }
        case 3:  // shout: a jagged burst
            let n = rng.int(14...24)
            var pts: [Point] = []
            for i in 0..<(2 * n) {
                let a = Double(i) / Double(2 * n) * 2 * Double.pi
                let f = i % 2 == 0 ? rng.uniform(1.08, 1.22) : 0.98
                pts.append(Point(x: cx + rx * f * cos(a), y: cy + ry * f * sin(a)))
            }
            let burst = Path.polygon(pts)
            canvas.ink(burst, width: lw, colour: outline, rng: &rng, scale: scale, opacity: 0.95, clip: clip)
            canvas.fill(burst, rng.pick([fill, RGB(1, 0.95, 0.55)]), clip: clip)
        default:  // caption box, square corners, no tail
            let box = Rect(x: frame.minX + rx * 0.12, y: frame.minY + ry * 0.2, width: frame.width - rx * 0.24, height: frame.height - ry * 0.4)
            canvas.fill(Path.rect(box), rng.pick([RGB(0.99, 0.95, 0.72), fill]), clip: clip)
            canvas.ink(Path.rect(box), width: lw, colour: outline, rng: &rng, scale: scale, opacity: 0.9, clip: clip)
        }
    }
}
