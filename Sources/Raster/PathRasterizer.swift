// Exact-area anti-aliased filling of vector paths into coverage masks.
//
// The method is the signed-area accumulation that modern font rasterizers use: every edge
// deposits, into the cells of each scanline it crosses, the signed area it sweeps to the right
// of itself; a running sum along each row then gives, for every pixel, the winding-weighted
// fraction of the pixel that lies inside. No supersampling, no sorting of edges, and the
// coverage of a pixel cut by a straight edge is its exact area.
//
// Coverage is the accumulated winding clamped to 1 (non-zero rule) or folded modulo 2
// (even-odd rule). Where several edges share a pixel the fold is an approximation — the same
// one FreeType makes — and exact everywhere else.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import Geometry

/// A coverage mask placed on a larger canvas: `mask` covers `rect` of that canvas.
public struct CoverageMask: Sendable, Equatable {
    public var rect: PixelRect
    /// 0 = outside, 255 = fully inside; same size as `rect`.
    public var mask: Bitmap<UInt8>

    public init(rect: PixelRect, mask: Bitmap<UInt8>) {
        precondition(mask.width == rect.width && mask.height == rect.height, "mask \(mask.width)×\(mask.height) does not match rect \(rect)")
        self.rect = rect
        self.mask = mask
    }

    public var isEmpty: Bool { rect.isEmpty }

    /// The sum of coverage in pixels (255 = one pixel), e.g. to measure a shape's area.
    public var area: Double {
        mask.pixels.withUnsafeBufferPointer { p in
            var s = 0
            for v in p { s += Int(v) }
            return Double(s) / 255
        }
    }
}

public enum PathRasterizer {
    /// The coverage of `path` over the whole of `clip` (a mask exactly `clip`'s size).
    public static func coverage(
        of path: Path, in clip: PixelRect, rule: FillRule = .nonZero, tolerance: Double = 0.02
    ) -> Bitmap<UInt8> {
        let local = rasterize(path, clip: clip, rule: rule, tolerance: tolerance)
        if local.rect == clip { return local.mask }
        var full = Bitmap<UInt8>(width: Swift.max(0, clip.width), height: Swift.max(0, clip.height), fill: 0)
        if !local.isEmpty { full.paste(local.mask, atX: local.rect.x - clip.x, y: local.rect.y - clip.y) }
        return full
    }

    /// The coverage of `path` over just the part of `clip` its bounds touch — what a painter
    /// wants for a small shape on a big page.
    public static func rasterize(
        _ path: Path, clip: PixelRect, rule: FillRule = .nonZero, tolerance: Double = 0.02
    ) -> CoverageMask {
        let empty = CoverageMask(rect: PixelRect(x: clip.x, y: clip.y, width: 0, height: 0), mask: Bitmap(width: 0, height: 0, fill: 0))
        let polylines = path.flattened(tolerance: tolerance)
        guard !polylines.isEmpty, !clip.isEmpty else { return empty }
        var bounds = path.controlBounds
        if bounds.width == 0 && bounds.height == 0 { return empty }
        bounds = bounds.insetBy(dx: -1, dy: -1)
        guard bounds.minX.isFinite, bounds.maxY.isFinite,
            let rect = bounds.enclosingPixelRect.intersection(clip)
        else { return empty }

        let w = rect.width, h = rect.height
        // Two spare cells per row: an edge at the right border deposits into x = w and w + 1.
        let stride = w + 2
        var acc = [Float](repeating: 0, count: stride * h)
        let ox = Double(rect.x), oy = Double(rect.y)
        acc.withUnsafeMutableBufferPointer { a in
            for line in polylines {
                let pts = line.points
                guard pts.count >= 2 else { continue }
                // Every subpath is filled as if closed, as PostScript and SVG do.
                for i in 0..<pts.count {
                    let p = pts[i], q = pts[(i + 1) % pts.count]
                    depositClipped(a, stride: stride, width: w, height: h,
                                   x0: p.x - ox, y0: p.y - oy, x1: q.x - ox, y1: q.y - oy)
                }
            }
        }
        let mask = Bitmap<UInt8>(width: w, height: h) { out in
            acc.withUnsafeBufferPointer { a in
                for y in 0..<h {
                    var sum: Float = 0
                    let row = y * stride, orow = y * w
                    for x in 0..<w {
                        sum += a[row + x]
                        var c = abs(sum)
                        if rule == .evenOdd {
                            c = c.truncatingRemainder(dividingBy: 2)
                            if c > 1 { c = 2 - c }
                        } else if c > 1 {
                            c = 1
                        }
                        out[orow + x] = UInt8(c * 255 + 0.5)
                    }
                }
            }
        }
        return CoverageMask(rect: rect, mask: mask)
    }

    /// Splits an edge where it crosses the left and right borders and pins the parts outside
    /// to the border: an edge left of the window still covers everything right of it, and one
    /// right of the window covers nothing — exactly what a vertical edge on the border does.
    private static func depositClipped(
        _ a: UnsafeMutableBufferPointer<Float>, stride: Int, width: Int, height: Int,
        x0: Double, y0: Double, x1: Double, y1: Double
    ) {
        guard y0 != y1 else { return }
        let wd = Double(width)
        var cuts: [Double] = [0, 1]
        for border in [0.0, wd] where (x0 - border) * (x1 - border) < 0 {
            cuts.append((border - x0) / (x1 - x0))
        }
        cuts.sort()
        for i in 0..<(cuts.count - 1) {
            let ta = cuts[i], tb = cuts[i + 1]
            guard tb > ta else { continue }
            let ax = x0 + (x1 - x0) * ta, ay = y0 + (y1 - y0) * ta
            let bx = x0 + (x1 - x0) * tb, by = y0 + (y1 - y0) * tb
            deposit(a, stride: stride, width: wd, height: height,
                    x0: Swift.min(Swift.max(ax, 0), wd), y0: ay,
                    x1: Swift.min(Swift.max(bx, 0), wd), y1: by)
        }
    }

    /// Adds one edge's signed area to the accumulation cells of each scanline it crosses.
    /// Within a scanline the edge spans cells x0i…x1i; the cell it enters gets the triangle left
    /// of it, cells it passes over get full strips, and the cell after it gets the remainder, so
    /// that the row's running sum rises from 0 to the edge's full height `d` across the edge.
    private static func deposit(
        _ a: UnsafeMutableBufferPointer<Float>, stride: Int, width: Double, height: Int,
        x0: Double, y0: Double, x1: Double, y1: Double
    ) {
        let dir: Double
        let top: (x: Double, y: Double), bottom: (x: Double, y: Double)
        if y0 < y1 {
            dir = 1; top = (x0, y0); bottom = (x1, y1)
        } else {
            dir = -1; top = (x1, y1); bottom = (x0, y0)
        }
        let hd = Double(height)
        guard bottom.y > 0, top.y < hd else { return }
        let dxdy = (bottom.x - top.x) / (bottom.y - top.y)
        let yStart = Swift.max(top.y, 0), yEnd = Swift.min(bottom.y, hd)
        var x = Swift.min(Swift.max(top.x + (yStart - top.y) * dxdy, 0), width)
        var row = Int(yStart.rounded(.down))
        let lastRow = Swift.min(height - 1, Int(yEnd.rounded(.up)) - 1)
        while row <= lastRow {
            let rowTop = Swift.max(Double(row), yStart), rowBottom = Swift.min(Double(row + 1), yEnd)
            let dy = rowBottom - rowTop
            if dy > 0 {
                // Stepping x row by row can drift a hair past the border it was clipped to.
                let xNext = Swift.min(Swift.max(x + dxdy * dy, 0), width)
                let d = Float(dy * dir)
                let lo = Swift.min(x, xNext), hi = Swift.max(x, xNext)
                let loFloor = lo.rounded(.down), hiCeil = hi.rounded(.up)
                let loI = Int(loFloor), hiI = Int(hiCeil)
                let base = row * stride
                if hiI <= loI + 1 {
                    // The edge stays inside one cell: split by the mean x within it.
                    let frac = Float((x + xNext) / 2 - loFloor)
                    a[base + loI] += d * (1 - frac)
                    a[base + loI + 1] += d * frac
                } else {
                    // Area under the edge grows linearly per cell; s = 1 / horizontal run.
                    let s = 1 / (hi - lo)
                    let loFrac = lo - loFloor
                    let firstArea = 0.5 * s * (1 - loFrac) * (1 - loFrac)
                    let hiFrac = hi - hiCeil + 1
                    let lastArea = 0.5 * s * hiFrac * hiFrac
                    a[base + loI] += d * Float(firstArea)
                    if hiI == loI + 2 {
                        a[base + loI + 1] += d * Float(1 - firstArea - lastArea)
                    } else {
                        let second = s * (1.5 - loFrac)
                        a[base + loI + 1] += d * Float(second - firstArea)
                        let strip = d * Float(s)
                        if loI + 2 <= hiI - 2 {
                            for xi in (loI + 2)...(hiI - 2) { a[base + xi] += strip }
                        }
                        let before = second + Double(hiI - loI - 3) * s
                        a[base + hiI - 1] += d * Float(1 - before - lastArea)
                    }
                    a[base + hiI] += d * Float(lastArea)
                }
                x = xNext
            }
            row += 1
        }
    }
}
