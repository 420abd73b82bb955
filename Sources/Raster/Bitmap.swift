public import Geometry

/// A pixel type a ``Bitmap`` can hold: plain bits, no references, so buffers can be handed to C
/// and copied with `memcpy`.
public protocol PixelFormat: BitwiseCopyable, Sendable, Equatable {
    /// Interleaved channels per pixel (1 for gray, 4 for RGBA).
    static var channelCount: Int { get }
    /// Short name used in messages and `picturebook info` ("gray8", "rgba8").
    static var formatName: String { get }
}

/// 8-bit gray (or any single 8-bit plane: a mask, an alpha channel, a binarized page).
extension UInt8: PixelFormat {
    public static var channelCount: Int { 1 }
    public static var formatName: String { "gray8" }
}

/// 32-bit float plane, for analysis stages that need signed or fractional values.
extension Float: PixelFormat {
    public static var channelCount: Int { 1 }
    public static var formatName: String { "grayf" }
}

/// 8-bit-per-channel colour with *straight* (not premultiplied) alpha, sRGB-encoded, laid out
/// R, G, B, A in memory — the layout libpng and libjpeg-turbo write directly.
/// Compositing converts to ``PremultipliedRGBA8`` internally; see `Compositing.swift`.
@frozen
public struct RGBA8: PixelFormat, Hashable, CustomStringConvertible {
    public var r: UInt8
    public var g: UInt8
    public var b: UInt8
    public var a: UInt8

    @inlinable
    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8 = 255) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    /// Opaque gray.
    @inlinable
    public init(gray v: UInt8) { self.init(r: v, g: v, b: v, a: 255) }

    public static var channelCount: Int { 4 }
    public static var formatName: String { "rgba8" }

    public static let black = RGBA8(r: 0, g: 0, b: 0)
    public static let white = RGBA8(r: 255, g: 255, b: 255)
    public static let clear = RGBA8(r: 0, g: 0, b: 0, a: 0)

    /// Rec. 601 luma, the weights JPEG's YCbCr uses, so gray conversions match a gray decode.
    @inlinable
    public var luma: UInt8 {
        let sum: UInt32 = 19595 &* UInt32(r) &+ 38470 &* UInt32(g) &+ 7471 &* UInt32(b) &+ 32768
        return UInt8(truncatingIfNeeded: sum >> 16)
    }

    /// `#rrggbb` or `#rrggbbaa` when not opaque.
    public var description: String {
        func hex(_ v: UInt8) -> String { String(v, radix: 16).count == 1 ? "0" + String(v, radix: 16) : String(v, radix: 16) }
        return "#" + hex(r) + hex(g) + hex(b) + (a == 255 ? "" : hex(a))
    }

    /// Parses `#rgb`, `#rrggbb` or `#rrggbbaa` (the `#` is optional).
    public init?(hex: String) {
        var s = Substring(hex)
        if s.hasPrefix("#") { s = s.dropFirst() }
        if s.count == 3 { s = Substring(s.flatMap { [$0, $0] }) }
        guard s.count == 6 || s.count == 8, let v = UInt32(s, radix: 16) else { return nil }
        if s.count == 6 {
            self.init(r: UInt8(v >> 16 & 0xff), g: UInt8(v >> 8 & 0xff), b: UInt8(v & 0xff))
        } else {
            self.init(r: UInt8(v >> 24), g: UInt8(v >> 16 & 0xff), b: UInt8(v >> 8 & 0xff), a: UInt8(v & 0xff))
        }
    }
}

/// A two-dimensional buffer of pixels.
///
/// **Layout** (the only one in Picturebook): row-major, origin at the top-left, no row padding —
/// pixel (x, y) is `pixels[y * width + x]`, and row `y` starts at `y * width`. Bitmaps are value
/// types with copy-on-write storage, so passing one around or taking a ``BitmapView`` of it never
/// copies pixels until somebody writes.
///
/// Programmer errors (a negative size, a pixel count that does not match, an out-of-bounds
/// access) stop with a precondition naming the bad value; user input never reaches those checks
/// unvalidated (the codecs refuse bad sizes with a typed error first).
public struct Bitmap<Pixel: PixelFormat>: Sendable, Equatable {
    public let width: Int
    public let height: Int
    /// The pixels, `width * height` of them, in the layout above.
    public var pixels: [Pixel]

    /// A bitmap filled with `fill`.
    @inlinable
    public init(width: Int, height: Int, fill: Pixel) {
        precondition(width >= 0 && height >= 0, "Bitmap size must not be negative, got \(width)×\(height)")
        self.width = width
        self.height = height
        self.pixels = [Pixel](repeating: fill, count: width * height)
    }

    /// A bitmap adopting `pixels`, which must hold exactly `width * height` values.
    @inlinable
    public init(width: Int, height: Int, pixels: [Pixel]) {
        precondition(width >= 0 && height >= 0, "Bitmap size must not be negative, got \(width)×\(height)")
        precondition(
            pixels.count == width * height,
            "Bitmap \(width)×\(height) needs \(width * height) pixels, got \(pixels.count)")
        self.width = width
        self.height = height
        self.pixels = pixels
    }

    /// A bitmap whose pixels `initializer` writes in place — every one of them — which spares
    /// decoders and resamplers a useless zero fill of the whole buffer.
    @inlinable
    public init(
        width: Int, height: Int,
        initializingWith initializer: (UnsafeMutableBufferPointer<Pixel>) throws -> Void
    ) rethrows {
        precondition(width >= 0 && height >= 0, "Bitmap size must not be negative, got \(width)×\(height)")
        self.width = width
        self.height = height
        let count = width * height
        self.pixels = try [Pixel](unsafeUninitializedCapacity: count) { buffer, initialized in
            try initializer(UnsafeMutableBufferPointer(rebasing: buffer[0..<count]))
            initialized = count
        }
    }

    public var size: Size { Size(width: Double(width), height: Double(height)) }
    public var bounds: PixelRect { PixelRect(x: 0, y: 0, width: width, height: height) }
    public var pixelCount: Int { width * height }
    public var isEmpty: Bool { width == 0 || height == 0 }

    @inlinable
    public subscript(x: Int, y: Int) -> Pixel {
        get {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height) bitmap")
            return pixels[y * width + x]
        }
        set {
            precondition(x >= 0 && x < width && y >= 0 && y < height, "pixel (\(x), \(y)) outside \(width)×\(height) bitmap")
            pixels[y * width + x] = newValue
        }
    }

    /// Row `y` as a slice of ``pixels``.
    @inlinable
    public func row(_ y: Int) -> ArraySlice<Pixel> {
        precondition(y >= 0 && y < height, "row \(y) outside \(width)×\(height) bitmap")
        return pixels[y * width..<(y + 1) * width]
    }

    /// A view of `rect`, which must lie inside the bitmap; no pixels are copied.
    @inlinable
    public func view(_ rect: PixelRect) -> BitmapView<Pixel> {
        BitmapView(base: self, rect: rect)
    }

    /// A view of the whole bitmap.
    public var view: BitmapView<Pixel> { BitmapView(base: self, rect: bounds) }

    /// A copy of `rect` (which must lie inside the bitmap) as a bitmap of its own.
    @inlinable
    public func cropped(to rect: PixelRect) -> Bitmap { view(rect).copy() }

    /// Applies `transform` to every pixel, producing a bitmap of another (or the same) format.
    @inlinable
    public func map<Q: PixelFormat>(_ transform: (Pixel) -> Q) -> Bitmap<Q> {
        Bitmap<Q>(width: width, height: height, pixels: pixels.map(transform))
    }

    /// Fills `rect` (clipped to the bitmap) with `value`.
    @inlinable
    public mutating func fill(_ rect: PixelRect, with value: Pixel) {
        guard let r = rect.intersection(bounds) else { return }
        let w = width
        pixels.withUnsafeMutableBufferPointer { p in
            for y in r.minY..<r.maxY {
                let start = y * w + r.minX
                p[start..<start + r.width].update(repeating: value)
            }
        }
    }

    /// Copies `source` into this bitmap with its top-left at (`x`, `y`), clipping at the edges.
    /// A plain copy, no blending; see `composite` for alpha.
    @inlinable
    public mutating func paste(_ source: BitmapView<Pixel>, atX x: Int, y: Int) {
        let target = PixelRect(x: x, y: y, width: source.rect.width, height: source.rect.height)
        guard let r = target.intersection(bounds) else { return }
        let dw = width, sw = source.base.width
        let sx0 = source.rect.minX + (r.minX - x), sy0 = source.rect.minY + (r.minY - y)
        source.base.pixels.withUnsafeBufferPointer { s in
            pixels.withUnsafeMutableBufferPointer { d in
                for row in 0..<r.height {
                    let si = (sy0 + row) * sw + sx0
                    let di = (r.minY + row) * dw + r.minX
                    _ = UnsafeMutableBufferPointer(rebasing: d[di..<di + r.width])
                        .update(fromContentsOf: s[si..<si + r.width])
                }
            }
        }
    }

    @inlinable
    public mutating func paste(_ source: Bitmap<Pixel>, atX x: Int, y: Int) {
        paste(source.view, atX: x, y: y)
    }
}

/// A rectangular window onto a ``Bitmap`` — a crop that shares the bitmap's storage.
/// Coordinates passed to the subscript are relative to the view's top-left.
public struct BitmapView<Pixel: PixelFormat>: Sendable {
    public let base: Bitmap<Pixel>
    /// The viewed region, in `base` pixel coordinates.
    public let rect: PixelRect

    @inlinable
    public init(base: Bitmap<Pixel>, rect: PixelRect) {
        precondition(
            rect.width >= 0 && rect.height >= 0 && base.bounds.contains(rect),
            "crop \(rect) is not inside the \(base.width)×\(base.height) bitmap")
        self.base = base
        self.rect = rect
    }

    public var width: Int { rect.width }
    public var height: Int { rect.height }

    @inlinable
    public subscript(x: Int, y: Int) -> Pixel {
        precondition(x >= 0 && x < rect.width && y >= 0 && y < rect.height, "pixel (\(x), \(y)) outside \(rect.width)×\(rect.height) view")
        return base.pixels[(rect.minY + y) * base.width + rect.minX + x]
    }

    /// A narrower view; `sub` is relative to this view.
    @inlinable
    public func view(_ sub: PixelRect) -> BitmapView<Pixel> {
        precondition(
            PixelRect(width: rect.width, height: rect.height).contains(sub),
            "crop \(sub) is not inside the \(rect.width)×\(rect.height) view")
        return BitmapView(base: base, rect: PixelRect(x: rect.minX + sub.x, y: rect.minY + sub.y, width: sub.width, height: sub.height))
    }

    /// The viewed pixels as a bitmap of their own (no copy when the view is the whole bitmap).
    @inlinable
    public func copy() -> Bitmap<Pixel> {
        if rect == base.bounds { return base }
        let w = rect.width, bw = base.width, x0 = rect.minX, y0 = rect.minY
        return base.pixels.withUnsafeBufferPointer { s in
            Bitmap(width: rect.width, height: rect.height) { d in
                for y in 0..<rect.height {
                    let si = (y0 + y) * bw + x0
                    _ = UnsafeMutableBufferPointer(rebasing: d[y * w..<(y + 1) * w])
                        .initialize(fromContentsOf: s[si..<si + w])
                }
            }
        }
    }
}
