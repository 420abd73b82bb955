// Drawing helpers the screens share: images into fractional rects (clipped before resampling,
// so a thumbnail zoomed to ten screens wide costs one screen), rotation, rounding to pixels.

import Foundation
public import Geometry
import Raster

extension Rect {
    /// The pixel rect whose edges are this rect's (in points) × `scale`, each rounded: rects
    /// that touch in points touch in pixels, with no gap and no overlap.
    public func pixelRect(scale: Double) -> PixelRect {
        let x0 = Int((minX * scale).rounded()), y0 = Int((minY * scale).rounded())
        let x1 = Int((maxX * scale).rounded()), y1 = Int((maxY * scale).rounded())
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }
}

extension Bitmap where Pixel == RGBA8 {
    /// Draws `image` stretched over `rect` (pixels, fractional), only resampling the part that
    /// lands on the canvas.
    mutating func draw(_ image: Bitmap<RGBA8>, in rect: Rect, opacity: Double = 1, filter: ResamplingFilter = .bilinear) {
        guard opacity > 0, rect.width >= 0.5, rect.height >= 0.5, !image.isEmpty else { return }
        let dst = PixelRect(
            x: Int(rect.minX.rounded()), y: Int(rect.minY.rounded()),
            width: Int(rect.maxX.rounded()) - Int(rect.minX.rounded()), height: Int(rect.maxY.rounded()) - Int(rect.minY.rounded()))
        guard let visible = dst.intersection(bounds), !visible.isEmpty else { return }
        let sx = Double(image.width) / Double(dst.width), sy = Double(image.height) / Double(dst.height)
        let src: Bitmap<RGBA8>
        var target = visible
        if visible == dst {
            src = image
        } else {
            let x0 = Double(visible.minX - dst.minX) * sx, y0 = Double(visible.minY - dst.minY) * sy
            let x1 = Double(visible.maxX - dst.minX) * sx, y1 = Double(visible.maxY - dst.minY) * sy
            let crop = PixelRect(
                x: Int(x0.rounded(.down)), y: Int(y0.rounded(.down)),
                width: Int(x1.rounded(.up)) - Int(x0.rounded(.down)), height: Int(y1.rounded(.up)) - Int(y0.rounded(.down)))
                .intersection(image.bounds) ?? image.bounds
            src = image.cropped(to: crop)
            // The cropped pixels cover a little more than the visible part; place them where they fall.
            target = PixelRect(
                x: dst.minX + Int((Double(crop.minX) / sx).rounded()), y: dst.minY + Int((Double(crop.minY) / sy).rounded()),
                width: max(1, Int((Double(crop.width) / sx).rounded())), height: max(1, Int((Double(crop.height) / sy).rounded())))
        }
        let scaled = src.resized(width: max(1, target.width), height: max(1, target.height), filter: filter)
        if opacity >= 1 && !scaled.pixels.contains(where: { $0.a != 255 }) {
            paste(scaled, atX: target.minX, y: target.minY)
        } else {
            composite(scaled, atX: target.minX, y: target.minY, opacity: opacity)
        }
    }

    /// Draws `image` stretched over `rect` (pixels) and turned by `angle` radians (clockwise)
    /// about the rect's centre; bilinear sampling.
    mutating func draw(_ image: Bitmap<RGBA8>, in rect: Rect, rotation angle: Double, opacity: Double = 1) {
        if abs(angle) < 1e-9 { return draw(image, in: rect, opacity: opacity) }
        let w = max(1, Int(rect.width.rounded())), h = max(1, Int(rect.height.rounded()))
        let src = image.resized(width: w, height: h, filter: .bilinear)
        let c = rect.center
        let box = rect.applying(AffineTransform.translation(x: -c.x, y: -c.y).concatenating(.rotation(angle))
            .concatenating(.translation(x: c.x, y: c.y)))
        guard let area = box.enclosingPixelRect.intersection(bounds) else { return }
        let cs = cos(angle), sn = sin(angle)
        let o = max(0, min(1, opacity))
        let W = width
        src.pixels.withUnsafeBufferPointer { sp in
            pixels.withUnsafeMutableBufferPointer { dp in
                for y in area.minY..<area.maxY {
                    for x in area.minX..<area.maxX {
                        let vx = Double(x) + 0.5 - c.x, vy = Double(y) + 0.5 - c.y
                        let ux = vx * cs + vy * sn + Double(w) / 2 - 0.5
                        let uy = -vx * sn + vy * cs + Double(h) / 2 - 0.5
                        guard ux > -0.5, uy > -0.5, ux < Double(w) - 0.5, uy < Double(h) - 0.5 else { continue }
                        let x0 = max(0, min(w - 1, Int(ux.rounded(.down)))), y0 = max(0, min(h - 1, Int(uy.rounded(.down))))
                        let x1 = min(w - 1, x0 + 1), y1 = min(h - 1, y0 + 1)
                        let fx = max(0, min(1, ux - Double(x0))), fy = max(0, min(1, uy - Double(y0)))
                        let p00 = sp[y0 * w + x0], p10 = sp[y0 * w + x1], p01 = sp[y1 * w + x0], p11 = sp[y1 * w + x1]
                        func mix(_ a: UInt8, _ b: UInt8, _ c: UInt8, _ d: UInt8) -> Double {
                            (Double(a) * (1 - fx) + Double(b) * fx) * (1 - fy) + (Double(c) * (1 - fx) + Double(d) * fx) * fy
                        }
                        let i = y * W + x
                        let d = dp[i]
                        func blend(_ s: Double, _ t: UInt8) -> UInt8 { UInt8(max(0, min(255, (s * o + Double(t) * (1 - o)).rounded()))) }
                        dp[i] = RGBA8(r: blend(mix(p00.r, p10.r, p01.r, p11.r), d.r), g: blend(mix(p00.g, p10.g, p01.g, p11.g), d.g),
                                      b: blend(mix(p00.b, p10.b, p01.b, p11.b), d.b), a: 255)
                    }
                }
            }
        }
    }

    /// A soft drop shadow under `rect`: a few widening translucent bands.
    mutating func shadow(under rect: PixelRect, radius: Int, offset: Int) {
        guard radius > 0 else { return }
        for k in stride(from: radius, through: 1, by: -max(1, radius / 4)) {
            let r = PixelRect(x: rect.minX - k, y: rect.minY - k + offset, width: rect.width + 2 * k, height: rect.height + 2 * k)
            fill(r, blending: RGBA8(r: 0, g: 0, b: 0, a: UInt8(max(4, 40 / max(1, radius / 4)))))
        }
    }

    /// The mean colour of the one-pixel ring just outside `rect` (inside the canvas): what the
    /// paper around a text block looks like.
    func ringColor(around rect: PixelRect) -> RGBA8 {
        var r = 0, g = 0, b = 0, n = 0
        func add(_ x: Int, _ y: Int) {
            guard x >= 0, y >= 0, x < width, y < height else { return }
            let p = pixels[y * width + x]
            r += Int(p.r); g += Int(p.g); b += Int(p.b); n += 1
        }
        let step = max(1, (rect.width + rect.height) / 200)
        for x in stride(from: rect.minX - 1, through: rect.maxX, by: step) { add(x, rect.minY - 2); add(x, rect.maxY + 1) }
        for y in stride(from: rect.minY - 1, through: rect.maxY, by: step) { add(rect.minX - 2, y); add(rect.maxX + 1, y) }
        guard n > 0 else { return .white }
        return RGBA8(r: UInt8(r / n), g: UInt8(g / n), b: UInt8(b / n))
    }
}
