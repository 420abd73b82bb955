// Pixels: page thumbnails from scans, placeholder tiles for pages that cannot be read, labels.

import Codecs
import Foundation
import Geometry
import Raster
import Typesetting

enum PageThumbnailer {
    /// The 1x and 2x thumbnails of one scan, fitted into `boxWidth`×`boxHeight` and twice that.
    ///
    /// A JPEG is decoded straight at the smallest DCT scale (1/2, 1/4, 1/8) that still covers
    /// the 2x size, so a 1600×2000 scan becomes 400×500 inside libjpeg without ever existing at
    /// full size; a PNG is decoded once. Both are then area-averaged down to 2x, and the 1x is
    /// averaged from the 2x (an exact 2:1 box filter, cheaper than going back to the source).
    static func thumbnails(
        _ bytes: [UInt8], name: String, boxWidth: Int, boxHeight: Int, fastDecode: Bool
    ) throws(CodecError) -> (x1: Bitmap<RGBA8>, x2: Bitmap<RGBA8>) {
        let info = try ImageDecoder.info(bytes, name: name)
        let (w2, h2) = Bitmap<RGBA8>.fittedSize(
            width: info.orientedWidth, height: info.orientedHeight, maxWidth: 2 * boxWidth, maxHeight: 2 * boxHeight)
        let scale = JPEGScale.largestReduction(from: info, covering: w2, h2)
        let decoded = try ImageDecoder.decode(bytes, name: name, options: DecodeOptions(jpegScale: scale, fastJPEG: fastDecode))
        // The decoded size can differ from the header's by rounding; fit what we actually got.
        let (fw2, fh2) = Bitmap<RGBA8>.fittedSize(
            width: decoded.width, height: decoded.height, maxWidth: 2 * boxWidth, maxHeight: 2 * boxHeight)
        let x2 = decoded.resized(width: fw2, height: fh2, filter: .area)
        let (w1, h1) = Bitmap<RGBA8>.fittedSize(width: fw2, height: fh2, maxWidth: boxWidth, maxHeight: boxHeight)
        let x1 = halved(x2, to: w1, h1) ?? x2.resized(width: w1, height: h1, filter: .area)
        return (x1, x2)
    }

    /// The exact 2:1 area average (each output pixel the mean of a 2×2 block) when `image` is
    /// opaque and exactly twice `w`×`h` — the usual case, and several times cheaper than the
    /// general resampler's weight tables. nil otherwise.
    static func halved(_ image: Bitmap<RGBA8>, to w: Int, _ h: Int) -> Bitmap<RGBA8>? {
        guard image.width == 2 * w, image.height == 2 * h, w > 0, h > 0 else { return nil }
        let opaque = image.pixels.withUnsafeBufferPointer { p in !p.contains { $0.a != 255 } }
        guard opaque else { return nil }
        let sw = image.width
        return image.pixels.withUnsafeBufferPointer { s in
            Bitmap<RGBA8>(width: w, height: h) { d in
                for y in 0..<h {
                    let r0 = 2 * y * sw, r1 = r0 + sw
                    for x in 0..<w {
                        let a = s[r0 + 2 * x], b = s[r0 + 2 * x + 1], c = s[r1 + 2 * x], e = s[r1 + 2 * x + 1]
                        d[y * w + x] = RGBA8(
                            r: UInt8((UInt16(a.r) + UInt16(b.r) + UInt16(c.r) + UInt16(e.r) + 2) >> 2),
                            g: UInt8((UInt16(a.g) + UInt16(b.g) + UInt16(c.g) + UInt16(e.g) + 2) >> 2),
                            b: UInt8((UInt16(a.b) + UInt16(b.b) + UInt16(c.b) + UInt16(e.b) + 2) >> 2))
                    }
                }
            }
        }
    }

    /// A tile that says "this page could not be read": grey, hatched, framed — unmistakable in a
    /// grid yet quiet. Shaped like the page when the manifest knows its size.
    static func placeholder(pageWidth: Int, pageHeight: Int, boxWidth: Int, boxHeight: Int) -> Bitmap<RGBA8> {
        let (w, h) =
            pageWidth > 0 && pageHeight > 0
            ? Bitmap<RGBA8>.fittedSize(
                width: pageWidth, height: pageHeight, maxWidth: boxWidth, maxHeight: boxHeight, allowEnlarging: true)
            : (boxWidth, boxHeight)
        let light = RGBA8(gray: 0xd8), dark = RGBA8(gray: 0xb8), frame = RGBA8(r: 0xb0, g: 0x30, b: 0x30)
        let border = max(1, min(w, h) / 60)
        return Bitmap<RGBA8>(width: w, height: h) { d in
            for y in 0..<h {
                for x in 0..<w {
                    let edge = x < border || y < border || x >= w - border || y >= h - border
                    d[y * w + x] = edge ? frame : ((x + y) / 6 % 3 == 0 ? dark : light)
                }
            }
        }
    }
}

/// Draws short labels (page numbers, titles) centred in a rect. Typesetting shares glyph
/// caches between threads; the lock keeps label drawing (a few per tile, microseconds each)
/// from racing on them.
final class Labeler: @unchecked Sendable {
    private let typesetter = Typesetter()
    private let lock = NSLock()
    private let size: Double

    init(size: Double) { self.size = size }

    /// Draws `text` centred in `rect` at the label size, or smaller (down to 60 %) to fit
    /// one line. A label that cannot be set (no font for its script) is left out: a missing
    /// page number is not worth failing a page for.
    func draw(_ text: String, in rect: PixelRect, onto canvas: inout Bitmap<RGBA8>, color: RGBA8) {
        guard !text.isEmpty, rect.width > 4, rect.height > 4 else { return }
        let box = Size(width: Double(rect.width), height: Double(rect.height))
        let style = TextStyle(alignment: .center, blockAlignment: .center, lineSpacing: 1.2, minimumSize: size * 0.6, maximumSize: size)
        lock.lock()
        defer { lock.unlock() }
        let layout: TextLayout
        do {
            layout = try typesetter.fit(String(text.prefix(80)), in: box, style: style)
        } catch {
            return
        }
        layout.draw(into: &canvas, at: Point(x: Double(rect.x), y: Double(rect.y)), color: color)
    }
}

extension Bitmap where Pixel == RGBA8 {
    /// Puts a tile down: a plain copy when it is opaque (every JPEG), alpha-blended otherwise.
    mutating func place(_ tile: Bitmap<RGBA8>, atX x: Int, y: Int) {
        let opaque = tile.pixels.withUnsafeBufferPointer { p in !p.contains { $0.a != 255 } }
        if opaque { paste(tile, atX: x, y: y) } else { composite(tile, atX: x, y: y) }
    }
}
