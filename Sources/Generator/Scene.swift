// Illustrated scenes: sky, sun or moon, clouds, hills, houses, trees, animals — flat watercolour
// washes with dark outlines — plus the fine, regular, text-like detail (fence pickets, grass
// blades, hatching, striped cloth, brick courses, ripples) that a text detector must learn to
// ignore. Every choice comes from the scene's own random stream.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry
import Raster

/// Time of day and palette of a scene.
public enum SceneTheme: String, Sendable, Codable, CaseIterable {
    case day, dusk, night, autumn
}

struct SceneSpec: Sendable {
    /// The painted region (the rest of the canvas stays paper).
    var art: PixelRect
    var theme: SceneTheme
    /// Horizon height as a fraction of the art rect, from its top.
    var horizon: Double
    /// No sun, moon, cloud or tall object may cover these (text sits there).
    var keepClear: [Rect] = []
    /// Busy detail is deliberately placed under these (text over art).
    var busyUnder: [Rect] = []
    /// 0...1: how much fine, regular, text-like detail to paint.
    var detail: Double = 0.5
    /// An ink drawing on paper instead of a colour plate (for historic black-and-white pages).
    var monochrome: Bool = false
    /// Outline width and texture scale, ≈ 1 at 1000 px page height.
    var scale: Double
    /// Where a spread's pages meet (so nothing important straddles the gutter); nil for a page.
    var gutterX: Double? = nil
    /// A seashore (sea, boats, a lighthouse) instead of rolling hills.
    var coast: Bool = false
}

struct ScenePainter {
    var spec: SceneSpec
    var rng: SeededRandom
    var canvas: Canvas

    private var art: Rect { Rect(spec.art) }
    private var horizonY: Double { art.minY + art.height * spec.horizon }
    private var s: Double { spec.scale }
    private var u: Double { art.height / 20 }
    private var outline: RGB {
        switch spec.theme {
        case .night: return RGB(hex: 0x0E0F1E)
        default: return RGB(hex: 0x2A1E18)
        }
    }

    init(spec: SceneSpec, rng: SeededRandom, canvas: Canvas) {
        self.spec = spec
        self.rng = rng
        self.canvas = canvas
    }

    private func clear(_ r: Rect) -> Bool {
        !spec.keepClear.contains { $0.intersects(r) }
    }

    mutating func paint() -> Canvas {
        sky()
        celestial()
        clouds()
        if spec.coast {
            sea()
            shore()
        } else {
            hills()
            ground()
        }
        objects()
        foregroundGrass()
        if spec.monochrome { toInk() }
        return canvas
    }

    // MARK: Sky

    private mutating func sky() {
        let (top, bottom): (RGB, RGB)
        switch spec.theme {
        case .day: (top, bottom) = (RGB(0.42, 0.66, 0.90), RGB(0.82, 0.91, 0.96))
        case .autumn: (top, bottom) = (RGB(0.55, 0.72, 0.88), RGB(0.93, 0.90, 0.80))
        case .dusk: (top, bottom) = (RGB(0.33, 0.32, 0.62), RGB(0.98, 0.70, 0.50))
        case .night: (top, bottom) = (RGB(0.05, 0.07, 0.20), RGB(0.16, 0.20, 0.40))
        }
        let t0 = top.jittered(&rng, 0.04), b0 = bottom.jittered(&rng, 0.04)
        let skyRect = Rect(x: art.minX, y: art.minY, width: art.width, height: horizonY - art.minY + 2 * u)
        let y0 = skyRect.minY, span = max(1, horizonY - y0)
        let blotch = NoiseField(seed: rng.next(), cell: 160 * s, octaves: 3)
        let strength: Float = spec.theme == .night ? 0.10 : 0.16
        canvas.fill(.rect(skyRect), clip: spec.art) { x, y in
            let t = Float(min(1, max(0, (Double(y) - y0) / span)))
            let v = blotch.value(Double(x), Double(y)) - 0.5
            return t0.mix(b0, t * t * (3 - 2 * t)).scaled(1 + strength * v)
        }
    }

    private mutating func celestial() {
        let night = spec.theme == .night
        let r = (night ? 0.9 : 1.2) * u * rng.uniform(0.8, 1.25)
        for _ in 0..<25 {
            let c = Point(x: rng.uniform(art.minX + 2 * r, art.maxX - 2 * r),
                          y: rng.uniform(art.minY + 1.5 * r, max(art.minY + 1.6 * r, horizonY - 3 * r)))
            let reach = night ? r * 1.3 : r * 1.9
            let box = Rect(center: c, size: Size(width: 2 * reach, height: 2 * reach))
            guard clear(box), spec.gutterX.map({ abs($0 - c.x) > reach }) ?? true else { continue }
            if night {
                canvas.wash(.circle(center: c, radius: r), RGB(0.97, 0.94, 0.78), rng: &rng, scale: s, clip: spec.art)
                for _ in 0..<3 {
                    let cc = c + Point(x: rng.uniform(-0.5, 0.5) * r, y: rng.uniform(-0.5, 0.5) * r)
                    canvas.fill(.circle(center: cc, radius: r * rng.uniform(0.1, 0.2)), RGB(0.85, 0.82, 0.66), opacity: 0.6, clip: spec.art)
                }
                canvas.ink(.circle(center: c, radius: r), width: 2 * s, colour: RGB(0.6, 0.55, 0.4), rng: &rng, scale: s, clip: spec.art)
            } else {
                let colour = spec.theme == .dusk ? RGB(0.98, 0.55, 0.30) : RGB(0.99, 0.82, 0.25)
                for k in 0..<12 {
                    let a = Double(k) / 12 * 2 * .pi + rng.uniform(-0.05, 0.05)
                    let p0 = c + Point(x: cos(a), y: sin(a)) * (r * 1.25), p1 = c + Point(x: cos(a), y: sin(a)) * (r * rng.uniform(1.6, 1.85))
                    canvas.ink(.polyline([p0, p1]), width: 4 * s, colour: colour.darker(0.1), rng: &rng, scale: s, clip: spec.art)
                }
                canvas.wash(.circle(center: c, radius: r), colour, rng: &rng, scale: s, clip: spec.art)
                canvas.ink(.circle(center: c, radius: r), width: 2.5 * s, colour: outline, rng: &rng, scale: s, opacity: 0.7, clip: spec.art)
            }
            break
        }
        if night {
            let count = rng.int(12...40)
            for _ in 0..<count {
                let c = Point(x: rng.uniform(art.minX, art.maxX), y: rng.uniform(art.minY, horizonY - u))
                let rr = u * rng.uniform(0.08, 0.2)
                guard clear(Rect(center: c, size: Size(width: 4 * rr, height: 4 * rr))) else { continue }
                canvas.fill(star(c, rr), RGB(0.98, 0.95, 0.75), opacity: 0.95, clip: spec.art)
            }
        }
    }

    private func star(_ c: Point, _ r: Double) -> Path {
        .polygon((0..<10).map { i in
            let a = Double(i) * .pi / 5 - .pi / 2
            let rr = i % 2 == 0 ? r : r * 0.45
            return c + Point(x: cos(a) * rr, y: sin(a) * rr)
        })
    }

    private mutating func clouds() {
        guard spec.theme != .night else { return }
        let count = rng.int(0...3)
        for _ in 0..<count {
            let w = u * rng.uniform(2.5, 5), h = w * rng.uniform(0.35, 0.5)
            for _ in 0..<15 {
                let c = Point(x: rng.uniform(art.minX, art.maxX), y: rng.uniform(art.minY + h, max(art.minY + h + 1, horizonY - 2 * h)))
                let box = Rect(center: c, size: Size(width: w * 1.2, height: h * 1.4))
                guard clear(box), spec.gutterX.map({ abs($0 - c.x) > w * 0.7 }) ?? true else { continue }
                var path = Path()
                let puffs = rng.int(4...6)
                for k in 0..<puffs {
                    let fx = Double(k) / Double(puffs - 1) - 0.5
                    let pr = h * rng.uniform(0.35, 0.55) * (1 - abs(fx) * 0.6)
                    path.append(.circle(center: Point(x: c.x + fx * w * 0.8, y: c.y - pr * 0.3 + rng.uniform(-0.1, 0.1) * h), radius: pr))
                }
                path.append(.roundedRect(Rect(x: c.x - w * 0.45, y: c.y - h * 0.15, width: w * 0.9, height: h * 0.4), radius: h * 0.2))
                let white = spec.theme == .dusk ? RGB(0.98, 0.85, 0.80) : RGB(0.99, 0.99, 0.98)
                canvas.wash(path, white, rng: &rng, scale: s, clip: spec.art, opacity: 0.9, pooling: 0.15)
                break
            }
        }
    }

    // MARK: Land

    private func hillPath(baseY: Double, amplitude: Double, bumps: Int) -> Path {
        var pts: [Point] = []
        var r = rng
        let n = bumps * 2 + 1
        for i in 0...n {
            let x = art.minX - 40 * s + (art.width + 80 * s) * Double(i) / Double(n)
            let y = baseY - amplitude * (i % 2 == 0 ? r.uniform(0.1, 0.4) : r.uniform(0.6, 1.0))
            pts.append(Point(x: x, y: y))
        }
        var p = Path.smoothOpen(pts)
        p.line(to: Point(x: art.maxX + 40 * s, y: art.maxY + 10))
        p.line(to: Point(x: art.minX - 40 * s, y: art.maxY + 10))
        p.close()
        return p
    }

    private var greens: (far: RGB, near: RGB, ground: RGB) {
        switch spec.theme {
        case .day: return (RGB(0.55, 0.70, 0.62), RGB(0.48, 0.70, 0.36), RGB(0.60, 0.78, 0.40))
        case .autumn: return (RGB(0.72, 0.62, 0.48), RGB(0.80, 0.58, 0.26), RGB(0.82, 0.70, 0.38))
        case .dusk: return (RGB(0.50, 0.45, 0.55), RGB(0.40, 0.50, 0.35), RGB(0.50, 0.58, 0.34))
        case .night: return (RGB(0.12, 0.16, 0.26), RGB(0.10, 0.20, 0.18), RGB(0.13, 0.24, 0.20))
        }
    }

    private mutating func hills() {
        let g = greens
        let far = hillPath(baseY: horizonY, amplitude: u * rng.uniform(1.5, 3.5), bumps: rng.int(1...3))
        _ = rng.next()
        canvas.wash(far, g.far.jittered(&rng, 0.04), rng: &rng, scale: s, clip: spec.art)
        canvas.ink(far, width: 2.2 * s, colour: outline, rng: &rng, scale: s, opacity: 0.55, clip: spec.art)
        if rng.chance(0.3 + 0.5 * spec.detail) { hatch(far, angle: rng.uniform(0.5, 1.0), spacing: 7 * s, opacity: 0.35) }
        let near = hillPath(baseY: horizonY + u * 0.9, amplitude: u * rng.uniform(0.8, 2.0), bumps: rng.int(1...2))
        _ = rng.next()
        canvas.wash(near, g.near.jittered(&rng, 0.04), rng: &rng, scale: s, clip: spec.art)
        canvas.ink(near, width: 2.5 * s, colour: outline, rng: &rng, scale: s, opacity: 0.7, clip: spec.art)
    }

    private mutating func ground() {
        let g = greens
        let top = horizonY + u * 2.2
        let field = hillPath(baseY: top, amplitude: u * 0.6, bumps: 2)
        _ = rng.next()
        canvas.wash(field, g.ground.jittered(&rng, 0.03), rng: &rng, scale: s, clip: spec.art)
        canvas.ink(field, width: 2.5 * s, colour: outline, rng: &rng, scale: s, opacity: 0.6, clip: spec.art)
        // A winding path or a pond.
        if rng.chance(0.5) {
            let x0 = rng.uniform(art.minX + art.width * 0.2, art.maxX - art.width * 0.2)
            let xTop = x0 + rng.uniform(-0.2, 0.2) * art.width
            let wBottom = u * rng.uniform(2, 3.5)
            var p = Path()
            p.move(to: Point(x: x0 - wBottom, y: art.maxY + 5))
            p.cubic(to: Point(x: xTop - u * 0.15, y: top + u * 0.3), control1: Point(x: x0 - wBottom * 0.3, y: art.maxY - art.height * 0.2), control2: Point(x: xTop - u, y: top + u * 2))
            p.line(to: Point(x: xTop + u * 0.15, y: top + u * 0.3))
            p.cubic(to: Point(x: x0 + wBottom, y: art.maxY + 5), control1: Point(x: xTop + u, y: top + u * 2), control2: Point(x: x0 + wBottom * 0.3, y: art.maxY - art.height * 0.2))
            p.close()
            let sand = spec.theme == .night ? RGB(0.25, 0.24, 0.30) : RGB(0.90, 0.80, 0.60)
            canvas.wash(p, sand, rng: &rng, scale: s, clip: spec.art)
            canvas.ink(p, width: 2 * s, colour: outline, rng: &rng, scale: s, opacity: 0.5, clip: spec.art)
        } else {
            let c = Point(x: rng.uniform(art.minX + art.width * 0.15, art.maxX - art.width * 0.15), y: rng.uniform(top + 2 * u, art.maxY - 2 * u))
            let pr = Rect(center: c, size: Size(width: u * rng.uniform(4, 7), height: u * rng.uniform(1.2, 2)))
            let water = spec.theme == .night ? RGB(0.15, 0.2, 0.38) : RGB(0.45, 0.65, 0.85)
            canvas.wash(.ellipse(in: pr), water, rng: &rng, scale: s, clip: spec.art)
            canvas.ink(.ellipse(in: pr), width: 2.2 * s, colour: outline, rng: &rng, scale: s, opacity: 0.7, clip: spec.art)
            // Ripples: short horizontal dashes in rows — very text-like.
            let rows = Int(pr.height / (10 * s))
            for rI in 1..<max(2, rows) {
                let y = pr.minY + Double(rI) * pr.height / Double(rows)
                var x = pr.minX + pr.width * 0.2 + rng.uniform(0, 10 * s)
                while x < pr.maxX - pr.width * 0.2 {
                    let len = rng.uniform(8, 22) * s
                    canvas.ink(.polyline([Point(x: x, y: y), Point(x: x + len, y: y)]), width: 1.6 * s, colour: RGB(0.95, 0.97, 1), rng: &rng, scale: s, opacity: 0.8, clip: spec.art)
                    x += len + rng.uniform(6, 16) * s
                }
            }
        }
    }

    // MARK: Objects

    private enum Kind { case house, tree, animal, fence, flowers, bunting, laundry }

    // MARK: Coast

    private mutating func sea() {
        let night = spec.theme == .night
        let water = night ? RGB(0.08, 0.12, 0.28) : (spec.theme == .dusk ? RGB(0.35, 0.40, 0.62) : RGB(0.30, 0.55, 0.78))
        let seaRect = Rect(x: art.minX, y: horizonY, width: art.width, height: art.maxY - horizonY)
        canvas.wash(.rect(seaRect), water.jittered(&rng, 0.03), rng: &rng, scale: s, clip: spec.art, pooling: 0.05)
        canvas.ink(.polyline([Point(x: art.minX, y: horizonY), Point(x: art.maxX, y: horizonY)]), width: 2 * s, colour: outline, rng: &rng, scale: s, opacity: 0.6, clip: spec.art)
        // Wave marks: rows of short curved dashes, thinning towards the horizon.
        var y = horizonY + 8 * s
        var row = 0
        while y < art.maxY {
            let depth = (y - horizonY) / max(1, art.maxY - horizonY)
            var x = art.minX + rng.uniform(0, 30) * s
            while x < art.maxX {
                let len = (10 + 30 * depth) * s * rng.uniform(0.7, 1.3)
                if rng.chance(0.55) {
                    let wave = Path.smoothOpen([Point(x: x, y: y), Point(x: x + len / 2, y: y - len * 0.15), Point(x: x + len, y: y)])
                    canvas.ink(wave, width: (1.2 + depth) * s, colour: RGB(0.92, 0.96, 1), rng: &rng, scale: s, opacity: 0.7, clip: spec.art)
                }
                x += len * rng.uniform(1.5, 2.5)
            }
            y += (9 + 26 * depth) * s
            row += 1
        }
        // Sailing boats on the sea.
        for _ in 0..<rng.int(1...3) {
            let k = rng.uniform(0.7, 1.3)
            let c = Point(x: rng.uniform(art.minX + u, art.maxX - u), y: horizonY + u * rng.uniform(0.5, 2.0))
            let hull = Path.polygon([c + Point(x: -u * 0.9 * k, y: 0), c + Point(x: u * 0.9 * k, y: 0), c + Point(x: u * 0.6 * k, y: u * 0.35 * k), c + Point(x: -u * 0.6 * k, y: u * 0.35 * k)])
            let sail = Path.polygon([c + Point(x: 0, y: -u * 1.5 * k), c + Point(x: 0, y: -u * 0.1), c + Point(x: u * 0.8 * k, y: -u * 0.1)])
            guard fits(Rect(x: c.x - u * k, y: c.y - u * 1.6 * k, width: 2 * u * k, height: 2 * u * k)) else { continue }
            canvas.wash(hull, RGB(0.60, 0.30, 0.18), rng: &rng, scale: s, clip: spec.art)
            canvas.ink(hull, width: 2 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
            canvas.wash(sail, rng.pick([RGB(0.97, 0.95, 0.9), RGB(0.9, 0.3, 0.25)]), rng: &rng, scale: s, clip: spec.art)
            canvas.ink(sail, width: 2 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        }
    }

    /// Sand and rocks in the foreground, and a striped lighthouse on one side.
    private mutating func shore() {
        let top = horizonY + u * rng.uniform(2.5, 4)
        let sand = hillPath(baseY: top, amplitude: u * 0.8, bumps: 2)
        _ = rng.next()
        let colour = spec.theme == .night ? RGB(0.22, 0.22, 0.28) : RGB(0.90, 0.82, 0.62)
        canvas.wash(sand, colour, rng: &rng, scale: s, clip: spec.art)
        canvas.ink(sand, width: 2.5 * s, colour: outline, rng: &rng, scale: s, opacity: 0.7, clip: spec.art)
        let left = rng.chance(0.5)
        let baseX = left ? art.minX + art.width * rng.uniform(0.1, 0.22) : art.maxX - art.width * rng.uniform(0.1, 0.22)
        let h = u * rng.uniform(6, 8), wBottom = u * 1.4, wTop = u * 0.9
        let baseY = top + u * 0.5
        let tower = Rect(x: baseX - wBottom / 2, y: baseY - h, width: wBottom, height: h)
        guard fits(tower.insetBy(dx: -u, dy: -u)) else { return }
        let rock = Path.smoothClosed((0..<9).map { i in
            let a = Double(i) / 9 * 2 * .pi
            return Point(x: baseX + cos(a) * u * 2.2 * rng.uniform(0.8, 1.1), y: baseY + sin(a) * u * 0.7 * rng.uniform(0.8, 1.1))
        })
        canvas.wash(rock, RGB(0.45, 0.42, 0.40), rng: &rng, scale: s, clip: spec.art)
        canvas.ink(rock, width: 2.5 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        // Red and white bands — as regular as a line of text, and not text.
        let bands = 6
        for i in 0..<bands {
            let y0 = baseY - h * Double(i) / Double(bands), y1 = baseY - h * Double(i + 1) / Double(bands)
            let w0 = wBottom + (wTop - wBottom) * Double(i) / Double(bands), w1 = wBottom + (wTop - wBottom) * Double(i + 1) / Double(bands)
            let band = Path.polygon([Point(x: baseX - w0 / 2, y: y0), Point(x: baseX + w0 / 2, y: y0), Point(x: baseX + w1 / 2, y: y1), Point(x: baseX - w1 / 2, y: y1)])
            canvas.fill(band, i % 2 == 0 ? RGB(0.85, 0.2, 0.18) : RGB(0.97, 0.96, 0.92), clip: spec.art)
        }
        let body = Path.polygon([Point(x: baseX - wBottom / 2, y: baseY), Point(x: baseX + wBottom / 2, y: baseY), Point(x: baseX + wTop / 2, y: baseY - h), Point(x: baseX - wTop / 2, y: baseY - h)])
        canvas.ink(body, width: 2.5 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        let lamp = Rect(x: baseX - wTop * 0.4, y: baseY - h - u * 0.8, width: wTop * 0.8, height: u * 0.8)
        let night = spec.theme == .night || spec.theme == .dusk
        if night {
            let dir: Double = left ? 1 : -1
            let beam = Path.polygon([Point(x: lamp.midX, y: lamp.midY), Point(x: lamp.midX + dir * art.width * 0.45, y: lamp.midY - u * 1.5),
                                     Point(x: lamp.midX + dir * art.width * 0.45, y: lamp.midY + u * 1.2)])
            canvas.fill(beam, RGB(1, 0.95, 0.6), opacity: 0.25, clip: spec.art)
        }
        canvas.wash(.rect(lamp), night ? RGB(1, 0.9, 0.4) : RGB(0.8, 0.9, 0.95), rng: &rng, scale: s, clip: spec.art)
        canvas.ink(.rect(lamp), width: 2 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        let roof = Path.polygon([Point(x: lamp.minX - u * 0.2, y: lamp.minY), Point(x: lamp.maxX + u * 0.2, y: lamp.minY), Point(x: lamp.midX, y: lamp.minY - u * 0.7)])
        canvas.wash(roof, RGB(0.2, 0.2, 0.25), rng: &rng, scale: s, clip: spec.art)
        canvas.ink(roof, width: 2 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
    }

    private mutating func objects() {
        let top = horizonY + u * (spec.coast ? 4.2 : 1.2)
        var items: [(kind: Kind, x: Double, y: Double, size: Double)] = []
        let count = rng.int(4...8)
        let kinds: [Kind] = spec.coast ? [.house, .animal, .animal, .fence, .bunting, .laundry]
            : [.house, .tree, .tree, .animal, .animal, .flowers, .fence, .bunting, .laundry]
        for _ in 0..<count {
            let y = rng.uniform(top, art.maxY - u)
            let depth = (y - top) / max(1, art.maxY - top)
            items.append((rng.pick(kinds), rng.uniform(art.minX + u, art.maxX - u), y, 0.8 + 1.2 * depth))
        }
        // Most picture-book pages have a big main character in the foreground.
        if rng.chance(0.65) {
            let y = art.maxY - u * rng.uniform(0.6, 2.5)
            items.append((.animal, rng.uniform(art.minX + art.width * 0.2, art.maxX - art.width * 0.2), y, rng.uniform(1.9, 2.8)))
        }
        // Text over art needs something busy underneath it.
        for r in spec.busyUnder {
            let y = min(art.maxY - u * 0.3, max(top + u, r.maxY + u * 0.5))
            let depth = (y - top) / max(1, art.maxY - top)
            items.append((.fence, r.midX, y, 0.8 + 0.6 * depth))
            items.append((rng.pick([.house, .tree, .bunting, .laundry]), r.midX + rng.uniform(-0.3, 0.3) * r.width, min(art.maxY - u * 0.3, r.maxY + u * 0.2), 1.2))
        }
        if rng.chance(spec.detail) { items.append((.fence, rng.uniform(art.minX, art.maxX), rng.uniform(top + u, art.maxY - u), 1.0)) }
        items.sort { $0.y < $1.y }
        for it in items {
            switch it.kind {
            case .house: house(Point(x: it.x, y: it.y), it.size)
            case .tree: tree(Point(x: it.x, y: it.y), it.size)
            case .animal: animal(Point(x: it.x, y: it.y), it.size)
            case .fence: fence(Point(x: it.x, y: it.y), it.size)
            case .flowers: flowers(Point(x: it.x, y: it.y), it.size)
            case .bunting: bunting(Point(x: it.x, y: it.y), it.size)
            case .laundry: laundry(Point(x: it.x, y: it.y), it.size)
            }
        }
    }

    private func fits(_ r: Rect) -> Bool {
        clear(r) && (spec.gutterX.map { g in !(r.minX < g && r.maxX > g) || r.width < 3 * u } ?? true)
    }

    private mutating func house(_ base: Point, _ k: Double) {
        let w = u * 3.2 * k * rng.uniform(0.85, 1.2), h = w * rng.uniform(0.65, 0.85)
        let roofH = h * rng.uniform(0.5, 0.8)
        let body = Rect(x: base.x - w / 2, y: base.y - h, width: w, height: h)
        guard fits(body.union(Rect(x: body.minX, y: body.minY - roofH, width: w, height: roofH))) else { return }
        let night = spec.theme == .night
        let wall = (night ? RGB(0.35, 0.30, 0.38) : rng.pick([RGB(0.93, 0.85, 0.70), RGB(0.85, 0.45, 0.35), RGB(0.95, 0.92, 0.85)])).jittered(&rng, 0.03)
        canvas.wash(.rect(body), wall, rng: &rng, scale: s, clip: spec.art)
        if rng.chance(0.35 + 0.5 * spec.detail) { bricks(body) }
        var roof = Path()
        roof.move(to: Point(x: body.minX - w * 0.08, y: body.minY))
        roof.line(to: Point(x: body.midX, y: body.minY - roofH))
        roof.line(to: Point(x: body.maxX + w * 0.08, y: body.minY))
        roof.close()
        let roofColour = (night ? RGB(0.25, 0.12, 0.15) : rng.pick([RGB(0.75, 0.25, 0.2), RGB(0.35, 0.40, 0.60), RGB(0.55, 0.35, 0.2)])).jittered(&rng, 0.03)
        canvas.wash(roof, roofColour, rng: &rng, scale: s, clip: spec.art)
        if rng.chance(0.5 * spec.detail + 0.2) { hatch(roof, angle: -0.9, spacing: 6 * s, opacity: 0.4) }
        canvas.ink(roof, width: 2.5 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        canvas.ink(.rect(body), width: 2.5 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        // Door and windows.
        let dw = w * 0.2, dh = h * 0.5
        let door = Rect(x: body.minX + w * rng.uniform(0.15, 0.65), y: body.maxY - dh, width: dw, height: dh)
        canvas.wash(.roundedRect(door, radius: dw / 2), RGB(0.45, 0.28, 0.18), rng: &rng, scale: s, clip: spec.art)
        canvas.ink(.roundedRect(door, radius: dw / 2), width: 2 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        let ws = w * 0.18
        for wx in [body.minX + w * 0.12, body.maxX - w * 0.12 - ws] where !(door.minX < wx + ws && door.maxX > wx) {
            let win = Rect(x: wx, y: body.minY + h * 0.2, width: ws, height: ws)
            let glass = night ? RGB(0.98, 0.85, 0.40) : RGB(0.70, 0.85, 0.95)
            canvas.wash(.rect(win), glass, rng: &rng, scale: s, clip: spec.art, pooling: 0.1)
            canvas.ink(.rect(win), width: 2 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
            canvas.ink(.polyline([Point(x: win.midX, y: win.minY), Point(x: win.midX, y: win.maxY)]), width: 1.6 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
            canvas.ink(.polyline([Point(x: win.minX, y: win.midY), Point(x: win.maxX, y: win.midY)]), width: 1.6 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        }
        if rng.chance(0.3 + 0.4 * spec.detail) {
            // A striped awning over the door.
            let aw = Rect(x: door.minX - dw * 0.5, y: door.minY - dh * 0.25, width: dw * 2, height: dh * 0.2)
            stripes(aw, vertical: true, colours: [RGB(0.85, 0.2, 0.2), RGB(0.97, 0.95, 0.9)], band: 6 * s)
            canvas.ink(.rect(aw), width: 2 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        }
    }

    private mutating func bricks(_ r: Rect) {
        let bh = rng.uniform(7, 11) * s, bw = bh * rng.uniform(2.2, 2.8)
        var y = r.minY + bh
        var row = 0
        let mortar = outline.mix(RGB(0.6, 0.4, 0.3), 0.5)
        while y < r.maxY - 1 {
            canvas.ink(.polyline([Point(x: r.minX, y: y), Point(x: r.maxX, y: y)]), width: 1.2 * s, colour: mortar, rng: &rng, scale: s, opacity: 0.5, clip: spec.art)
            var x = r.minX + (row % 2 == 0 ? bw / 2 : bw)
            while x < r.maxX - 2 {
                canvas.ink(.polyline([Point(x: x, y: y), Point(x: x, y: min(r.maxY, y + bh))]), width: 1.2 * s, colour: mortar, rng: &rng, scale: s, opacity: 0.5, clip: spec.art)
                x += bw
            }
            y += bh
            row += 1
        }
    }

    private mutating func stripes(_ r: Rect, vertical: Bool, colours: [RGB], band: Double) {
        var i = 0
        var p = vertical ? r.minX : r.minY
        let end = vertical ? r.maxX : r.maxY
        while p < end {
            let q = min(end, p + band)
            let sr = vertical ? Rect(x: p, y: r.minY, width: q - p, height: r.height) : Rect(x: r.minX, y: p, width: r.width, height: q - p)
            canvas.fill(.rect(sr), colours[i % colours.count], opacity: 0.95, clip: spec.art)
            p = q
            i += 1
        }
    }

    /// Parallel lines clipped to `shape`: pen-and-ink shading.
    private mutating func hatch(_ shape: Path, angle: Double, spacing: Double, opacity: Float) {
        guard let box = Rect(canvas.bounds).intersection(shape.controlBounds), let clip = box.enclosingPixelRect.intersection(spec.art) else { return }
        let shapeCov = PathRasterizer.rasterize(shape, clip: clip)
        guard !shapeCov.isEmpty else { return }
        var lines = Path()
        let dx = cos(angle), dy = sin(angle)
        let diag = box.width + box.height
        var t = -diag
        while t < diag {
            let c = box.center + Point(x: -dy * t, y: dx * t)
            lines.append(.polyline([c - Point(x: dx, y: dy) * diag, c + Point(x: dx, y: dy) * diag]))
            t += spacing * rng.uniform(0.85, 1.15)
        }
        let lineCov = PathRasterizer.rasterize(lines.stroked(StrokeStyle(width: 1.3 * s, cap: .butt)), clip: shapeCov.rect)
        let rect = shapeCov.rect
        let colour = outline
        canvas.composite(lineCov, opacity: opacity, alpha: { x, y in
            Float(shapeCov.mask.pixels[(y - rect.y) * rect.width + (x - rect.x)]) / 255
        }) { _, _ in colour }
    }

    private mutating func tree(_ base: Point, _ k: Double) {
        let h = u * 4.2 * k * rng.uniform(0.8, 1.25), crownR = h * rng.uniform(0.28, 0.36)
        let crownC = Point(x: base.x, y: base.y - h + crownR)
        guard fits(Rect(x: base.x - crownR * 1.2, y: base.y - h, width: crownR * 2.4, height: h)) else { return }
        let tw = crownR * 0.25
        let trunk = Path.polygon([Point(x: base.x - tw * 0.7, y: base.y), Point(x: base.x - tw * 0.4, y: crownC.y),
                                  Point(x: base.x + tw * 0.4, y: crownC.y), Point(x: base.x + tw * 0.7, y: base.y)])
        let bark = spec.theme == .night ? RGB(0.15, 0.12, 0.12) : RGB(0.50, 0.33, 0.20)
        canvas.wash(trunk, bark, rng: &rng, scale: s, clip: spec.art)
        canvas.ink(trunk, width: 2.2 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        let n = rng.int(8...12)
        let blob = Path.smoothClosed((0..<n).map { i in
            let a = Double(i) / Double(n) * 2 * .pi
            let rr = crownR * rng.uniform(0.8, 1.1)
            return crownC + Point(x: cos(a) * rr * 1.05, y: sin(a) * rr)
        })
        let leaf: RGB
        switch spec.theme {
        case .autumn: leaf = rng.pick([RGB(0.90, 0.50, 0.15), RGB(0.80, 0.25, 0.15), RGB(0.92, 0.72, 0.20)])
        case .night: leaf = RGB(0.08, 0.18, 0.14)
        default: leaf = rng.pick([RGB(0.30, 0.60, 0.28), RGB(0.40, 0.66, 0.30), RGB(0.25, 0.52, 0.35)])
        }
        canvas.wash(blob, leaf.jittered(&rng, 0.04), rng: &rng, scale: s, clip: spec.art)
        if rng.chance(0.3 + 0.6 * spec.detail) { hatch(blob, angle: rng.uniform(0.6, 1.2), spacing: 6 * s, opacity: 0.35) }
        canvas.ink(blob, width: 2.5 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        if rng.chance(0.4) && spec.theme != .night {
            for _ in 0..<rng.int(4...9) {
                let a = rng.uniform(0, 2 * .pi), d = crownR * rng.uniform(0.1, 0.75)
                let c = crownC + Point(x: cos(a) * d, y: sin(a) * d)
                canvas.fill(.circle(center: c, radius: crownR * 0.08), RGB(0.85, 0.15, 0.12), clip: spec.art)
            }
        }
    }

    private mutating func animal(_ base: Point, _ k: Double) {
        let bw = u * 2.2 * k * rng.uniform(0.8, 1.2), bh = bw * rng.uniform(0.5, 0.65)
        let legH = bh * 0.55
        let body = Rect(x: base.x - bw / 2, y: base.y - legH - bh, width: bw, height: bh)
        guard fits(body.insetBy(dx: -bw * 0.4, dy: -bh * 0.6)) else { return }
        let night = spec.theme == .night
        let fur = (night ? RGB(0.3, 0.3, 0.38) : rng.pick([RGB(0.97, 0.96, 0.92), RGB(0.75, 0.50, 0.28), RGB(0.55, 0.55, 0.58), RGB(0.95, 0.70, 0.35)])).jittered(&rng, 0.03)
        let facing: Double = rng.chance(0.5) ? 1 : -1
        for i in 0..<4 {
            let lx = body.minX + bw * (0.15 + 0.22 * Double(i))
            let leg = Rect(x: lx, y: body.midY, width: bw * 0.1, height: bh / 2 + legH)
            canvas.wash(.rect(leg), fur.darker(0.15), rng: &rng, scale: s, clip: spec.art)
            canvas.ink(.rect(leg), width: 2 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        }
        let n = 10
        let bodyPath = Path.smoothClosed((0..<n).map { i in
            let a = Double(i) / Double(n) * 2 * .pi
            return Point(x: body.midX + cos(a) * bw / 2 * rng.uniform(0.92, 1.05), y: body.midY + sin(a) * bh / 2 * rng.uniform(0.9, 1.05))
        })
        canvas.wash(bodyPath, fur, rng: &rng, scale: s, clip: spec.art)
        if rng.chance(0.3 * (1 + spec.detail)) {
            // Spots or stripes on the coat.
            for _ in 0..<rng.int(3...7) {
                let c = Point(x: body.midX + rng.uniform(-0.35, 0.35) * bw, y: body.midY + rng.uniform(-0.25, 0.25) * bh)
                canvas.fill(.ellipse(in: Rect(center: c, size: Size(width: bw * 0.12, height: bh * 0.14))), fur.darker(0.45), opacity: 0.8, clip: spec.art)
            }
        }
        canvas.ink(bodyPath, width: 2.5 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        let hr = bh * 0.42
        let hc = Point(x: body.midX + facing * bw * 0.55, y: body.minY + hr * 0.3)
        canvas.wash(.circle(center: hc, radius: hr), fur, rng: &rng, scale: s, clip: spec.art)
        for side in [-1.0, 1.0] {
            let ear = Path.polygon([hc + Point(x: side * hr * 0.2, y: -hr * 0.7), hc + Point(x: side * hr * 0.75, y: -hr * 1.3), hc + Point(x: side * hr * 0.8, y: -hr * 0.4)])
            canvas.wash(ear, fur.darker(0.1), rng: &rng, scale: s, clip: spec.art)
            canvas.ink(ear, width: 2 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        }
        canvas.ink(.circle(center: hc, radius: hr), width: 2.5 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        canvas.fill(.circle(center: hc + Point(x: facing * hr * 0.35, y: -hr * 0.15), radius: hr * 0.12), outline, clip: spec.art)
        let tailStart = Point(x: body.midX - facing * bw * 0.5, y: body.midY - bh * 0.1)
        canvas.ink(.smoothOpen([tailStart, tailStart + Point(x: -facing * bw * 0.15, y: -bh * 0.3), tailStart + Point(x: -facing * bw * 0.22, y: -bh * 0.1)]),
                   width: 3 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
    }

    /// Pickets and rails: a row of regular, evenly spaced verticals — the classic false positive.
    private mutating func fence(_ base: Point, _ k: Double) {
        let h = u * 1.2 * k, gap = u * 0.42 * k * rng.uniform(0.8, 1.2), pw = gap * 0.45
        let len = u * rng.uniform(5, 10) * k
        let x0 = max(art.minX - pw, base.x - len / 2), x1 = min(art.maxX + pw, base.x + len / 2)
        guard fits(Rect(x: x0, y: base.y - h, width: x1 - x0, height: h)) || !spec.busyUnder.isEmpty else { return }
        let wood = spec.theme == .night ? RGB(0.30, 0.28, 0.32) : rng.pick([RGB(0.96, 0.94, 0.88), RGB(0.75, 0.55, 0.35)])
        for ry in [base.y - h * 0.75, base.y - h * 0.35] {
            let rail = Rect(x: x0, y: ry, width: x1 - x0, height: h * 0.1)
            canvas.wash(.rect(rail), wood.darker(0.1), rng: &rng, scale: s, clip: spec.art, pooling: 0.1)
            canvas.ink(.rect(rail), width: 1.6 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        }
        var x = x0
        while x + pw <= x1 {
            var p = Path()
            p.move(to: Point(x: x, y: base.y))
            p.line(to: Point(x: x, y: base.y - h * 0.85))
            p.line(to: Point(x: x + pw / 2, y: base.y - h))
            p.line(to: Point(x: x + pw, y: base.y - h * 0.85))
            p.line(to: Point(x: x + pw, y: base.y))
            p.close()
            canvas.fill(p, wood, opacity: 0.95, clip: spec.art)
            canvas.ink(p, width: 1.8 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
            x += gap
        }
    }

    private mutating func flowers(_ base: Point, _ k: Double) {
        let count = rng.int(4...10)
        for _ in 0..<count {
            let c = base + Point(x: rng.uniform(-2, 2) * u * k, y: rng.uniform(-0.5, 0.5) * u * k)
            let r = u * 0.16 * k
            guard fits(Rect(center: c, size: Size(width: r * 4, height: r * 4))) else { continue }
            canvas.ink(.polyline([c, c + Point(x: 0, y: r * 3)]), width: 2 * s, colour: RGB(0.2, 0.45, 0.2), rng: &rng, scale: s, clip: spec.art)
            let petal = rng.pick([RGB(0.95, 0.35, 0.45), RGB(0.98, 0.85, 0.25), RGB(0.65, 0.45, 0.85), RGB(1, 1, 1)])
            for p in 0..<5 {
                let a = Double(p) / 5 * 2 * .pi
                canvas.fill(.circle(center: c + Point(x: cos(a) * r, y: sin(a) * r), radius: r * 0.7), petal, clip: spec.art)
            }
            canvas.fill(.circle(center: c, radius: r * 0.5), RGB(0.95, 0.75, 0.2), clip: spec.art)
        }
    }

    /// Triangular flags on a string, alternating colours.
    private mutating func bunting(_ base: Point, _ k: Double) {
        let len = u * rng.uniform(4, 8) * k, y = base.y - u * rng.uniform(1.5, 3) * k
        let a = Point(x: base.x - len / 2, y: y), b = Point(x: base.x + len / 2, y: y + rng.uniform(-0.5, 0.5) * u)
        let sag = u * 0.6 * k
        guard fits(Rect(x: a.x, y: min(a.y, b.y), width: len, height: sag + u)) || !spec.busyUnder.isEmpty else { return }
        let string = Path.smoothOpen([a, Point(x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 + sag), b])
        canvas.ink(string, width: 1.5 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        let flags = Int(len / (u * 0.55 * k))
        let colours = [RGB(0.9, 0.25, 0.25), RGB(0.2, 0.5, 0.85), RGB(0.98, 0.82, 0.2), RGB(0.3, 0.7, 0.35)]
        for i in 0..<max(1, flags) {
            let t = (Double(i) + 0.5) / Double(max(1, flags))
            let p = Point(x: a.x + (b.x - a.x) * t, y: a.y + (b.y - a.y) * t + sag * 4 * t * (1 - t) * 0.75)
            let fw = u * 0.22 * k
            let flag = Path.polygon([p + Point(x: -fw, y: 0), p + Point(x: fw, y: 0), p + Point(x: 0, y: fw * 2.2)])
            canvas.fill(flag, colours[i % colours.count], clip: spec.art)
            canvas.ink(flag, width: 1.4 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        }
    }

    /// A washing line with striped and checked cloths.
    private mutating func laundry(_ base: Point, _ k: Double) {
        let len = u * rng.uniform(4, 7) * k, y = base.y - u * 2.2 * k
        guard fits(Rect(x: base.x - len / 2, y: y - u * 0.3, width: len, height: u * 2.5 * k)) || !spec.busyUnder.isEmpty else { return }
        for px in [base.x - len / 2, base.x + len / 2] {
            canvas.ink(.polyline([Point(x: px, y: base.y), Point(x: px, y: y - u * 0.2)]), width: 3 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        }
        canvas.ink(.polyline([Point(x: base.x - len / 2, y: y), Point(x: base.x + len / 2, y: y)]), width: 1.2 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
        var x = base.x - len / 2 + u * 0.3
        while x < base.x + len / 2 - u * 0.8 * k {
            let cw = u * rng.uniform(0.7, 1.1) * k, ch = u * rng.uniform(0.9, 1.5) * k
            let cloth = Rect(x: x, y: y, width: cw, height: ch)
            let c1 = rng.pick([RGB(0.85, 0.25, 0.3), RGB(0.25, 0.4, 0.8), RGB(0.3, 0.65, 0.4)])
            stripes(cloth, vertical: rng.chance(0.5), colours: [c1, RGB(0.97, 0.96, 0.92)], band: rng.uniform(4, 8) * s)
            canvas.ink(.rect(cloth), width: 1.8 * s, colour: outline, rng: &rng, scale: s, clip: spec.art)
            x += cw + u * rng.uniform(0.15, 0.4)
        }
    }

    /// Grass blades along the bottom of the art: many short, thin, near-vertical strokes.
    private mutating func foregroundGrass() {
        let amount = 0.3 + 0.7 * spec.detail
        guard rng.chance(0.5 + 0.5 * spec.detail) else { return }
        let colour = spec.theme == .night ? RGB(0.05, 0.12, 0.1) : RGB(0.18, 0.42, 0.18)
        var blades = Path()
        let count = Int(art.width / (7 * s) * amount)
        var busyBlades = Path()
        for _ in 0..<count {
            let x = rng.uniform(art.minX, art.maxX)
            let y = art.maxY - rng.uniform(0, u * 1.2)
            let h = u * rng.uniform(0.4, 0.9)
            let lean = rng.uniform(-0.4, 0.4) * h
            let blade = Path.smoothOpen([Point(x: x, y: y), Point(x: x + lean * 0.3, y: y - h * 0.6), Point(x: x + lean, y: y - h)])
            blades.append(blade)
        }
        for r in spec.busyUnder {
            for _ in 0..<Int(r.width / (6 * s)) {
                let x = rng.uniform(r.minX, r.maxX), y = r.maxY + rng.uniform(-0.5, 0.8) * u
                let h = u * rng.uniform(0.3, 0.7)
                busyBlades.append(.smoothOpen([Point(x: x, y: y), Point(x: x + rng.uniform(-0.3, 0.3) * h, y: y - h)]))
            }
        }
        blades.append(busyBlades)
        let cov = PathRasterizer.rasterize(blades.stroked(StrokeStyle(width: 1.8 * s, cap: .round), tolerance: 0.1), clip: spec.art)
        canvas.composite(cov, opacity: 0.85) { _, _ in colour }
    }

    /// Turns the colour plate into a pen-and-ink drawing: gray, with the paper left light.
    private mutating func toInk() {
        let r = spec.art
        canvas.data.withUnsafeMutableBufferPointer { d in
            for y in r.minY..<r.maxY {
                for x in r.minX..<r.maxX {
                    let i = (y * canvas.width + x) * 3
                    let l = 0.299 * d[i] + 0.587 * d[i + 1] + 0.114 * d[i + 2]
                    // Lift mid-tones towards paper so only outlines and hatching read dark.
                    let v = min(1, max(0, 0.35 + 0.75 * l))
                    let inked = l < 0.25 ? l * 1.2 : v
                    d[i] = inked * 0.98
                    d[i + 1] = inked * 0.96
                    d[i + 2] = inked * 0.90
                }
            }
        }
    }
}
