// The painting surface of the generator: a floating-point RGB canvas with the handful of
// operations illustrations need — flat and shaded fills through path coverage, watercolour
// washes, inked outlines — all deterministic functions of their inputs.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Geometry
import Raster

/// A colour with float channels in 0...1 (sRGB-encoded values; painting mixes them directly,
/// as watercolour on paper roughly does).
struct RGB: Sendable, Equatable {
    var r: Float, g: Float, b: Float

    init(_ r: Float, _ g: Float, _ b: Float) {
        self.r = r
        self.g = g
        self.b = b
    }

    init(hex: UInt32) {
        self.init(Float(hex >> 16 & 0xff) / 255, Float(hex >> 8 & 0xff) / 255, Float(hex & 0xff) / 255)
    }

    static let white = RGB(1, 1, 1)
    static let black = RGB(0, 0, 0)

    func mix(_ o: RGB, _ t: Float) -> RGB { RGB(r + (o.r - r) * t, g + (o.g - g) * t, b + (o.b - b) * t) }
    func scaled(_ s: Float) -> RGB { RGB(r * s, g * s, b * s) }
    var luma: Float { 0.299 * r + 0.587 * g + 0.114 * b }
    func darker(_ t: Float) -> RGB { mix(.black, t) }
    func lighter(_ t: Float) -> RGB { mix(.white, t) }
    /// Pulls the colour towards its gray (t = 1: fully gray).
    func desaturated(_ t: Float) -> RGB { let l = luma; return mix(RGB(l, l, l), t) }

    /// A random nearby colour: brightness and hue jitter for hand-mixed paint.
    func jittered(_ rng: inout SeededRandom, _ amount: Double) -> RGB {
        let a = Float(amount)
        func c(_ v: Float, _ rng: inout SeededRandom) -> Float { min(1, max(0, v + Float(rng.uniform(-1, 1)) * a)) }
        let k = Float(rng.uniform(-1, 1)) * a
        return RGB(c(r + k, &rng), c(g + k, &rng), c(b + k, &rng))
    }
}

/// Smooth value noise: random values on a lattice, blended with a smoothstep; several octaves
/// summed for the soft blotches of watercolour and the mottling of paper.
struct NoiseField: Sendable {
    let seed: UInt64
    /// Lattice spacing of the first octave, in pixels.
    let cell: Double
    let octaves: Int

    init(seed: UInt64, cell: Double, octaves: Int = 3) {
        self.seed = seed
        self.cell = max(cell, 0.5)
        self.octaves = octaves
    }

    @inline(__always)
    private func lattice(_ s: UInt64, _ x: Double, _ y: Double) -> Float {
        let fx = x.rounded(.down), fy = y.rounded(.down)
        let ix = Int(fx), iy = Int(fy)
        var tx = Float(x - fx), ty = Float(y - fy)
        tx = tx * tx * (3 - 2 * tx)
        ty = ty * ty * (3 - 2 * ty)
        let v00 = hashUnit(s, ix, iy), v10 = hashUnit(s, ix + 1, iy)
        let v01 = hashUnit(s, ix, iy + 1), v11 = hashUnit(s, ix + 1, iy + 1)
        let top = v00 + (v10 - v00) * tx, bottom = v01 + (v11 - v01) * tx
        return top + (bottom - top) * ty
    }

    /// Noise in 0...1 (mean 0.5) at pixel (x, y).
    @inline(__always)
    func value(_ x: Double, _ y: Double) -> Float {
        var sum: Float = 0, amp: Float = 1, norm: Float = 0
        var f = 1 / cell
        for o in 0..<octaves {
            sum += amp * lattice(seed &+ UInt64(o) &* 0x51_7CC1, x * f, y * f)
            norm += amp
            amp *= 0.5
            f *= 2
        }
        return sum / norm
    }
}

struct Canvas: Sendable {
    let width: Int
    let height: Int
    /// Interleaved R, G, B floats, row-major like `Bitmap`.
    var data: [Float]

    init(width: Int, height: Int, fill: RGB) {
        self.width = width
        self.height = height
        var d = [Float](repeating: 0, count: width * height * 3)
        for i in 0..<(width * height) {
            d[3 * i] = fill.r
            d[3 * i + 1] = fill.g
            d[3 * i + 2] = fill.b
        }
        data = d
    }

    private init(width: Int, height: Int, data: [Float]) {
        self.width = width
        self.height = height
        self.data = data
    }

    var bounds: PixelRect { PixelRect(width: width, height: height) }

    /// The columns `x0..<x0+w` as a canvas of their own (splitting a spread into pages).
    func columns(_ x0: Int, _ w: Int) -> Canvas {
        var d = [Float](repeating: 0, count: w * height * 3)
        for y in 0..<height {
            let src = (y * width + x0) * 3, dst = y * w * 3
            for i in 0..<(w * 3) { d[dst + i] = data[src + i] }
        }
        return Canvas(width: w, height: height, data: d)
    }

    func pixel(_ x: Int, _ y: Int) -> RGB {
        let i = (y * width + x) * 3
        return RGB(data[i], data[i + 1], data[i + 2])
    }

    /// Blends `shade(x, y)` over the canvas through `coverage` × `opacity`; `alpha(x, y)` can
    /// modulate the opacity per pixel (granulation, fading).
    mutating func composite(
        _ coverage: CoverageMask, opacity: Float = 1,
        alpha: ((Int, Int) -> Float)? = nil,
        _ shade: (Int, Int) -> RGB
    ) {
        guard !coverage.isEmpty else { return }
        let r = coverage.rect, w = width
        coverage.mask.pixels.withUnsafeBufferPointer { m in
            data.withUnsafeMutableBufferPointer { d in
                for y in 0..<r.height {
                    let py = r.y + y
                    for x in 0..<r.width {
                        let c = m[y * r.width + x]
                        if c == 0 { continue }
                        let px = r.x + x
                        var a = Float(c) * (1 / 255) * opacity
                        if let alpha { a *= alpha(px, py) }
                        if a <= 0 { continue }
                        let col = shade(px, py)
                        let i = (py * w + px) * 3
                        d[i] += (col.r - d[i]) * a
                        d[i + 1] += (col.g - d[i + 1]) * a
                        d[i + 2] += (col.b - d[i + 2]) * a
                    }
                }
            }
        }
    }

    /// Flat fill.
    mutating func fill(_ path: Path, _ colour: RGB, opacity: Float = 1, clip: PixelRect? = nil, rule: FillRule = .nonZero) {
        let cov = PathRasterizer.rasterize(path, clip: clip ?? bounds, rule: rule)
        composite(cov, opacity: opacity) { _, _ in colour }
    }

    /// Fill with a per-pixel colour (gradients, textures).
    mutating func fill(_ path: Path, clip: PixelRect? = nil, opacity: Float = 1, _ shade: (Int, Int) -> RGB) {
        let cov = PathRasterizer.rasterize(path, clip: clip ?? bounds)
        composite(cov, opacity: opacity, shade)
    }

    /// A watercolour wash: the colour wanders with low-frequency noise, pigment pools along the
    /// edges (darker rim), edges are softened, and the paint granulates slightly.
    mutating func wash(
        _ path: Path, _ colour: RGB, rng: inout SeededRandom, scale: Double,
        clip: PixelRect? = nil, opacity: Float = 0.97, pooling: Float = 0.35
    ) {
        let clipRect = clip ?? bounds
        // Wobble the outline a little so no edge is ruler-straight.
        let wobbled = Canvas.wobble(path, amplitude: 1.2 * scale, cell: 40 * scale, seed: rng.next())
        var cov = PathRasterizer.rasterize(wobbled, clip: clipRect)
        guard !cov.isEmpty else { return }
        let soft = Canvas.boxBlur(cov.mask, radius: max(1, Int(0.8 * scale)))
        let rim = Canvas.boxBlur(cov.mask, radius: max(2, Int(7 * scale)))
        let n = NoiseField(seed: rng.next(), cell: 90 * scale, octaves: 3)
        let grain = NoiseField(seed: rng.next(), cell: 2.5 * scale, octaves: 1)
        let w = cov.rect.width, ox = cov.rect.x, oy = cov.rect.y
        // The softened mask replaces the hard one; the rim term is how much of a pixel's
        // neighbourhood lies outside the shape.
        cov.mask = Bitmap(width: w, height: cov.rect.height, pixels: soft.map { UInt8(min(255, max(0, $0 * 255 + 0.5))) })
        let strength = Float(rng.uniform(0.08, 0.16))
        composite(cov, opacity: opacity, alpha: { x, y in 0.94 + 0.06 * grain.value(Double(x), Double(y)) }) { x, y in
            let i = (y - oy) * w + (x - ox)
            let edge = max(0, soft[i] - rim[i])
            let v = n.value(Double(x), Double(y)) - 0.5
            var c = colour.scaled(1 + strength * 2 * v)
            c = c.darker(min(0.5, edge * pooling * 2.2))
            return c
        }
    }

    /// Inked outline: a dark stroke with a slightly wobbling line.
    mutating func ink(_ path: Path, width: Double, colour: RGB, rng: inout SeededRandom, scale: Double, opacity: Float = 0.9, clip: PixelRect? = nil) {
        let wobbled = Canvas.wobble(path, amplitude: 0.8 * scale, cell: 25 * scale, seed: rng.next())
        let stroke = wobbled.stroked(StrokeStyle(width: width, cap: .round, join: .round), tolerance: 0.1)
        fill(stroke, colour, opacity: opacity, clip: clip)
    }

    /// A path whose flattened points are displaced by smooth noise (a hand-drawn line).
    static func wobble(_ path: Path, amplitude: Double, cell: Double, seed: UInt64) -> Path {
        let nx = NoiseField(seed: seed, cell: cell, octaves: 2), ny = NoiseField(seed: seed ^ 0xABCD, cell: cell, octaves: 2)
        var out = Path()
        for line in path.flattened(tolerance: 0.1) {
            let pts = line.points.map { p in
                Point(x: p.x + amplitude * 2 * Double(nx.value(p.x, p.y) - 0.5),
                      y: p.y + amplitude * 2 * Double(ny.value(p.x, p.y) - 0.5))
            }
            if line.isClosed { out.append(.polygon(pts)) } else { out.append(.polyline(pts)) }
        }
        return out
    }

    /// Separable box blur of a mask to floats in 0...1, with edge pixels repeated (a shape cut
    /// by the clip must not grow a rim along the cut).
    static func boxBlur(_ m: Bitmap<UInt8>, radius: Int) -> [Float] {
        let w = m.width, h = m.height
        var a = m.pixels.map { Float($0) * (1 / 255) }
        guard w > 0, h > 0, radius > 0 else { return a }
        var tmp = [Float](repeating: 0, count: w * h)
        let norm = 1 / Float(2 * radius + 1)
        a.withUnsafeMutableBufferPointer { src in
            tmp.withUnsafeMutableBufferPointer { dst in
                for y in 0..<h {
                    let row = y * w
                    var s: Float = 0
                    for k in -radius...radius { s += src[row + min(w - 1, max(0, k))] }
                    for x in 0..<w {
                        dst[row + x] = s * norm
                        s += src[row + min(w - 1, x + radius + 1)] - src[row + max(0, x - radius)]
                    }
                }
                for x in 0..<w {
                    var s: Float = 0
                    for k in -radius...radius { s += dst[min(h - 1, max(0, k)) * w + x] }
                    for y in 0..<h {
                        src[y * w + x] = s * norm
                        s += dst[min(h - 1, y + radius + 1) * w + x] - dst[max(0, y - radius) * w + x]
                    }
                }
            }
        }
        return a
    }

    /// Quantizes to an opaque 8-bit bitmap.
    func rgba() -> Bitmap<RGBA8> {
        Bitmap(width: width, height: height) { out in
            data.withUnsafeBufferPointer { d in
                for i in 0..<(width * height) {
                    @inline(__always) func q(_ v: Float) -> UInt8 { UInt8(min(255, max(0, v * 255 + 0.5))) }
                    out[i] = RGBA8(r: q(d[3 * i]), g: q(d[3 * i + 1]), b: q(d[3 * i + 2]))
                }
            }
        }
    }
}
