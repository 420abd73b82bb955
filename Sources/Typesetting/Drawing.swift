// Drawing a layout: glyph coverage from the per-face cache, accumulated into one mask per layer
// (halo, then text) and blended onto straight-alpha RGBA once per layer with Raster's `drawMask`,
// so overlapping glyphs (joined Arabic, Devanagari conjuncts) never double-darken their overlap.

public import Geometry
public import Raster

/// An outline drawn behind the text, `radius` pixels wide, to keep it readable on busy art.
public struct Halo: Sendable, Hashable {
    public var color: RGBA8
    public var radius: Double

    public init(color: RGBA8, radius: Double) {
        self.color = color
        self.radius = radius
    }
}

extension TextLayout {
    /// A glyph image and where its top-left pixel lands.
    private struct Placed {
        let bitmap: GlyphBitmap
        let x: Int
        let y: Int
    }

    private func placedGlyphs(at origin: Point, haloRadius: Int) -> [Placed] {
        let size26 = Int32((fontSize * 64).rounded())
        var out: [Placed] = []
        out.reserveCapacity(glyphCount)
        for line in lines {
            for run in line.runs {
                for g in run.glyphs {
                    let x = origin.x + g.origin.x, y = origin.y + g.origin.y
                    // Quarter-pixel buckets: a quarter pixel is below what anti-aliasing shows,
                    // and it keeps the cache to four images per glyph and axis.
                    var ix = Int(x.rounded(.down)), iy = Int(y.rounded(.down))
                    var sx = Int(((x - Double(ix)) * 4).rounded()), sy = Int(((y - Double(iy)) * 4).rounded())
                    if sx == 4 { sx = 0; ix += 1 }
                    if sy == 4 { sy = 0; iy += 1 }
                    let key = GlyphKey(glyph: g.id, size26_6: size26, subX: UInt8(sx), subY: UInt8(sy), rotated: run.sideways)
                    let bm = haloRadius > 0 ? run.face.halo(key, radius: haloRadius) : run.face.glyph(key)
                    if bm.width == 0 { continue }
                    out.append(Placed(bitmap: bm, x: ix + bm.left, y: iy - bm.top))
                }
            }
        }
        return out
    }

    /// The text's coverage as a gray mask of `width`×`height` with the box's top-left at
    /// `origin`; `haloRadius` > 0 gives the halo's coverage instead.
    public func coverageMask(width: Int, height: Int, origin: Point = .zero, haloRadius: Int = 0) -> Bitmap<UInt8> {
        var mask = Bitmap<UInt8>(width: width, height: height, fill: 0)
        accumulate(placedGlyphs(at: origin, haloRadius: haloRadius), into: &mask, offsetX: 0, offsetY: 0)
        return mask
    }

    /// Draws the text (and its halo) onto `bitmap` with the box's top-left at `origin`.
    public func draw(into bitmap: inout Bitmap<RGBA8>, at origin: Point = .zero, color: RGBA8, halo: Halo? = nil) {
        if let halo, halo.radius > 0 {
            layer(into: &bitmap, glyphs: placedGlyphs(at: origin, haloRadius: Int(halo.radius.rounded(.up))), color: halo.color)
        }
        layer(into: &bitmap, glyphs: placedGlyphs(at: origin, haloRadius: 0), color: color)
    }

    /// Rasterizes the layout on its own: a `boxSize` image (or the content size when that is
    /// larger, for overflowing text) filled with `background`.
    public func render(background: RGBA8, color: RGBA8, halo: Halo? = nil) -> Bitmap<RGBA8> {
        let w = Int(max(boxSize.width, contentSize.width).rounded(.up))
        let h = Int(max(boxSize.height, contentSize.height).rounded(.up))
        var image = Bitmap<RGBA8>(width: max(w, 1), height: max(h, 1), fill: background)
        draw(into: &image, color: color, halo: halo)
        return image
    }

    private func layer(into bitmap: inout Bitmap<RGBA8>, glyphs: [Placed], color: RGBA8) {
        guard var bounds = glyphs.first.map({ PixelRect(x: $0.x, y: $0.y, width: $0.bitmap.width, height: $0.bitmap.height) }) else { return }
        for g in glyphs.dropFirst() {
            bounds = bounds.union(PixelRect(x: g.x, y: g.y, width: g.bitmap.width, height: g.bitmap.height))
        }
        guard let clip = bounds.intersection(bitmap.bounds) else { return }
        var mask = Bitmap<UInt8>(width: clip.width, height: clip.height, fill: 0)
        accumulate(glyphs, into: &mask, offsetX: clip.x, offsetY: clip.y)
        bitmap.drawMask(mask, color: color, atX: clip.x, y: clip.y)
    }

    /// Unions glyph coverage into `mask` (whose pixel 0,0 is at offsetX, offsetY) with
    /// a + b − a·b, the coverage of two independent shapes.
    private func accumulate(_ glyphs: [Placed], into mask: inout Bitmap<UInt8>, offsetX: Int, offsetY: Int) {
        let mw = mask.width, mh = mask.height
        mask.pixels.withUnsafeMutableBufferPointer { dst in
            for g in glyphs {
                let gx = g.x - offsetX, gy = g.y - offsetY
                let x0 = max(0, gx), y0 = max(0, gy)
                let x1 = min(mw, gx + g.bitmap.width), y1 = min(mh, gy + g.bitmap.height)
                guard x1 > x0, y1 > y0 else { continue }
                let gw = g.bitmap.width
                g.bitmap.pixels.withUnsafeBufferPointer { src in
                    for y in y0..<y1 {
                        let so = (y - gy) * gw - gx, d0 = y * mw
                        for x in x0..<x1 {
                            let s = UInt32(src[so + x])
                            if s == 0 { continue }
                            let d = UInt32(dst[d0 + x])
                            dst[d0 + x] = UInt8(truncatingIfNeeded: d + s - (d * s + 127) / 255)
                        }
                    }
                }
            }
        }
    }
}
