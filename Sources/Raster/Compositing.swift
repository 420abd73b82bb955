public import Geometry

// Porter–Duff "source over" on straight-alpha RGBA8 canvases.
//
// The maths is premultiplied source-over — out = src·αs + dst·αd·(1−αs), αout = αs + αd·(1−αs) —
// evaluated in integers with a single rounding per channel and then expressed back in straight
// alpha. Over an opaque canvas that is one `div255` per channel (the fast path every glyph and
// photo takes); over a transparent or translucent canvas it costs one division per channel but
// is still exact, so nothing drifts when layers stack.

/// On/off lengths, in pixels, of a dashed outline; the pattern runs clockwise from the top-left
/// corner so dashes continue round the corners.
public struct DashPattern: Sendable, Hashable {
    /// Pixels drawn per dash.
    public var on: Int
    /// Pixels skipped between dashes.
    public var off: Int

    /// A pattern of `on` drawn and `off` skipped pixels; both must be positive.
    public init(on: Int, off: Int) {
        precondition(on > 0 && off >= 0, "dash pattern needs on > 0 and off >= 0, got on \(on) off \(off)")
        self.on = on
        self.off = off
    }
}

/// Blends straight colour (r, g, b) with effective alpha `ea` (0...255) over `d`.
@inline(__always)
func blendOver(_ d: UnsafeMutablePointer<RGBA8>, _ r: UInt32, _ g: UInt32, _ b: UInt32, _ ea: UInt32) {
    if ea == 0 { return }
    if ea == 255 {
        d.pointee = RGBA8(r: UInt8(truncatingIfNeeded: r), g: UInt8(truncatingIfNeeded: g), b: UInt8(truncatingIfNeeded: b), a: 255)
        return
    }
    let dst = d.pointee
    let ia = 255 &- ea
    if dst.a == 255 {
        d.pointee = RGBA8(
            r: UInt8(truncatingIfNeeded: div255(r &* ea &+ UInt32(dst.r) &* ia)),
            g: UInt8(truncatingIfNeeded: div255(g &* ea &+ UInt32(dst.g) &* ia)),
            b: UInt8(truncatingIfNeeded: div255(b &* ea &+ UInt32(dst.b) &* ia)),
            a: 255)
    } else if dst.a == 0 {
        d.pointee = RGBA8(r: UInt8(truncatingIfNeeded: r), g: UInt8(truncatingIfNeeded: g), b: UInt8(truncatingIfNeeded: b), a: UInt8(truncatingIfNeeded: ea))
    } else {
        // Everything scaled by 255 so both weights are integers: the source weighs αs·255, the
        // canvas αd·(255−αs); their sum is the output alpha ×255.
        let sw = ea &* 255
        let dw = UInt32(dst.a) &* ia
        let den = sw &+ dw
        let half = den >> 1
        d.pointee = RGBA8(
            r: UInt8(truncatingIfNeeded: (r &* sw &+ UInt32(dst.r) &* dw &+ half) / den),
            g: UInt8(truncatingIfNeeded: (g &* sw &+ UInt32(dst.g) &* dw &+ half) / den),
            b: UInt8(truncatingIfNeeded: (b &* sw &+ UInt32(dst.b) &* dw &+ half) / den),
            a: UInt8(truncatingIfNeeded: div255(den)))
    }
}

/// `opacity` (0...1, clamped; NaN counts as 0) as an 8-bit weight.
@inline(__always)
func opacityWeight(_ opacity: Double) -> UInt32 {
    guard opacity > 0 else { return 0 }
    return opacity >= 1 ? 255 : UInt32((opacity * 255).rounded())
}

/// The part of a `w`×`h` source placed at (`x`, `y`) that lands inside `bounds`:
/// the destination rect and the source offset of its top-left pixel.
@inline(__always)
func clipPlacement(width w: Int, height h: Int, atX x: Int, y: Int, in bounds: PixelRect) -> (dst: PixelRect, sx: Int, sy: Int)? {
    guard let r = PixelRect(x: x, y: y, width: w, height: h).intersection(bounds) else { return nil }
    return (r, r.minX - x, r.minY - y)
}

extension Bitmap where Pixel == RGBA8 {
    /// Draws `source` (straight alpha) over this canvas with its top-left at (`x`, `y`), scaled
    /// by `opacity` (0...1), clipping at the edges.
    public mutating func composite(_ source: BitmapView<RGBA8>, atX x: Int, y: Int, opacity: Double = 1) {
        let o = opacityWeight(opacity)
        guard o > 0, let (r, sx0, sy0) = clipPlacement(width: source.width, height: source.height, atX: x, y: y, in: bounds)
        else { return }
        let dw = width, sw = source.base.width
        let sx = source.rect.minX + sx0, sy = source.rect.minY + sy0
        source.base.pixels.withUnsafeBufferPointer { sbuf in
            pixels.withUnsafeMutableBufferPointer { dbuf in
                guard let s = sbuf.baseAddress, let d = dbuf.baseAddress else { return }
                Parallel.forEachChunk(of: r.height, workPerItem: r.width * 8) { rows in
                    for row in rows {
                        let sp = s + (sy + row) * sw + sx
                        let dp = d + (r.minY + row) * dw + r.minX
                        for i in 0..<r.width {
                            let p = sp[i]
                            let ea = o == 255 ? UInt32(p.a) : div255(UInt32(p.a) &* o)
                            blendOver(dp + i, UInt32(p.r), UInt32(p.g), UInt32(p.b), ea)
                        }
                    }
                }
            }
        }
    }

    /// Draws all of `source` over this canvas; see the `BitmapView` overload.
    public mutating func composite(_ source: Bitmap<RGBA8>, atX x: Int, y: Int, opacity: Double = 1) {
        composite(source.view, atX: x, y: y, opacity: opacity)
    }

    /// Paints `color` through a coverage mask (0 = untouched, 255 = full colour; e.g. an
    /// anti-aliased glyph) whose top-left lands at (`x`, `y`), clipping at the edges.
    public mutating func drawMask(_ mask: BitmapView<UInt8>, color: RGBA8, atX x: Int, y: Int) {
        guard color.a > 0, let (r, sx0, sy0) = clipPlacement(width: mask.width, height: mask.height, atX: x, y: y, in: bounds)
        else { return }
        let dw = width, mw = mask.base.width
        let mx = mask.rect.minX + sx0, my = mask.rect.minY + sy0
        let cr = UInt32(color.r), cg = UInt32(color.g), cb = UInt32(color.b), ca = UInt32(color.a)
        let solid = color
        mask.base.pixels.withUnsafeBufferPointer { mbuf in
            pixels.withUnsafeMutableBufferPointer { dbuf in
                guard let m = mbuf.baseAddress, let d = dbuf.baseAddress else { return }
                Parallel.forEachChunk(of: r.height, workPerItem: r.width * 5) { rows in
                    for row in rows {
                        let mp = m + (my + row) * mw + mx
                        let dp = d + (r.minY + row) * dw + r.minX
                        if ca == 255 {
                            for i in 0..<r.width {
                                let c = UInt32(mp[i])
                                if c == 0 { continue }
                                if c == 255 { dp[i] = solid; continue }
                                blendOver(dp + i, cr, cg, cb, c)
                            }
                        } else {
                            for i in 0..<r.width {
                                let c = UInt32(mp[i])
                                if c == 0 { continue }
                                blendOver(dp + i, cr, cg, cb, div255(c &* ca))
                            }
                        }
                    }
                }
            }
        }
    }

    /// Paints `color` through all of `mask`; see the `BitmapView` overload.
    public mutating func drawMask(_ mask: Bitmap<UInt8>, color: RGBA8, atX x: Int, y: Int) {
        drawMask(mask.view, color: color, atX: x, y: y)
    }

    /// Paints `color` over `rect` (clipped), blending when the colour is translucent — for
    /// highlight boxes and scrims. (`fill(_:with:)` replaces pixels instead.)
    public mutating func fill(_ rect: PixelRect, blending color: RGBA8) {
        if color.a == 255 {
            fill(rect, with: color)
            return
        }
        guard color.a > 0, let r = rect.intersection(bounds) else { return }
        let w = width
        let cr = UInt32(color.r), cg = UInt32(color.g), cb = UInt32(color.b), ca = UInt32(color.a)
        pixels.withUnsafeMutableBufferPointer { dbuf in
            guard let d = dbuf.baseAddress else { return }
            Parallel.forEachChunk(of: r.height, workPerItem: r.width * 4) { rows in
                for row in rows {
                    let dp = d + (r.minY + row) * w + r.minX
                    for i in 0..<r.width { blendOver(dp + i, cr, cg, cb, ca) }
                }
            }
        }
    }

    /// Outlines `rect` with `lineWidth`-pixel lines drawn inside it (blended, clipped), solid or
    /// dashed — for debug overlays and the "Tap to enlarge text" hint.
    public mutating func strokeRect(_ rect: PixelRect, color: RGBA8, lineWidth: Int = 1, dash: DashPattern? = nil) {
        precondition(lineWidth > 0, "stroke line width must be positive, got \(lineWidth)")
        guard !rect.isEmpty, color.a > 0 else { return }
        let W = rect.width, H = rect.height
        // Thick lines on a small rect would overlap; trim the later bands instead.
        let topH = min(lineWidth, H), bottomH = min(lineWidth, H - topH)
        let rightW = min(lineWidth, W), leftW = min(lineWidth, W - rightW)
        let cr = UInt32(color.r), cg = UInt32(color.g), cb = UInt32(color.b), ca = UInt32(color.a)
        let period = dash.map { $0.on + $0.off } ?? 0, on = dash?.on ?? 0
        let bounds = self.bounds
        let w = width
        pixels.withUnsafeMutableBufferPointer { dbuf in
            guard let d = dbuf.baseAddress else { return }
            // Each band is a rect plus the perimeter position of a pixel in it; bands do not
            // overlap, so every pixel is blended once.
            func band(_ b: PixelRect, _ position: (Int, Int) -> Int) {
                guard let c = b.intersection(bounds) else { return }
                for y in c.minY..<c.maxY {
                    for x in c.minX..<c.maxX {
                        if period > 0 && position(x, y) % period >= on { continue }
                        blendOver(d + y * w + x, cr, cg, cb, ca)
                    }
                }
            }
            let x0 = rect.minX, y0 = rect.minY, x1 = rect.maxX, y1 = rect.maxY
            let sideH = H - topH - bottomH
            band(PixelRect(x: x0, y: y0, width: W, height: topH)) { x, _ in x - x0 }
            band(PixelRect(x: x1 - rightW, y: y0 + topH, width: rightW, height: sideH)) { _, y in W + (y - y0) }
            band(PixelRect(x: x0, y: y1 - bottomH, width: W, height: bottomH)) { x, _ in W + H + (x1 - 1 - x) }
            band(PixelRect(x: x0, y: y0 + topH, width: leftW, height: sideH)) { _, y in 2 * W + H + (y1 - 1 - y) }
        }
    }
}

extension Bitmap where Pixel == UInt8 {
    /// Blends `value` through a coverage mask onto this gray plane (coverage 255 writes `value`,
    /// 0 leaves the pixel), clipping at the edges — e.g. to build a text mask from glyphs.
    public mutating func drawMask(_ mask: BitmapView<UInt8>, value: UInt8 = 255, atX x: Int, y: Int) {
        guard let (r, sx0, sy0) = clipPlacement(width: mask.width, height: mask.height, atX: x, y: y, in: bounds)
        else { return }
        let dw = width, mw = mask.base.width
        let mx = mask.rect.minX + sx0, my = mask.rect.minY + sy0
        let v = UInt32(value)
        mask.base.pixels.withUnsafeBufferPointer { mbuf in
            pixels.withUnsafeMutableBufferPointer { dbuf in
                guard let m = mbuf.baseAddress, let d = dbuf.baseAddress else { return }
                Parallel.forEachChunk(of: r.height, workPerItem: r.width * 2) { rows in
                    for row in rows {
                        let mp = m + (my + row) * mw + mx
                        let dp = d + (r.minY + row) * dw + r.minX
                        for i in 0..<r.width {
                            let c = UInt32(mp[i])
                            dp[i] = UInt8(truncatingIfNeeded: div255(v &* c &+ UInt32(dp[i]) &* (255 &- c)))
                        }
                    }
                }
            }
        }
    }

    /// Blends `value` through all of `mask`; see the `BitmapView` overload.
    public mutating func drawMask(_ mask: Bitmap<UInt8>, value: UInt8 = 255, atX x: Int, y: Int) {
        drawMask(mask.view, value: value, atX: x, y: y)
    }
}
