// Conversions between pixel formats. All of them are per-pixel and split big bitmaps across the
// cores by rows; the arithmetic is integer with round-to-nearest so round trips are exact where
// the maths allows.
//
// Each conversion is a small struct rather than a closure: the shared loop is specialised per
// struct type, so the per-pixel work is inlined instead of being an indirect call per pixel.

/// One pixel-to-pixel conversion, run by ``Bitmap/converted(with:)``.
protocol PixelConverter {
    associatedtype Input: PixelFormat
    associatedtype Output: PixelFormat
    func callAsFunction(_ p: Input) -> Output
}

extension Bitmap {
    /// `map` for hot conversions: runs over raw buffers, across cores for big bitmaps.
    func converted<C: PixelConverter>(with convert: C) -> Bitmap<C.Output> where C.Input == Pixel {
        let w = width, h = height
        if isEmpty { return Bitmap<C.Output>(width: w, height: h, pixels: []) }
        return pixels.withUnsafeBufferPointer { src in
            let s = src.baseAddress!
            return Bitmap<C.Output>(width: w, height: h) { dst in
                let d = dst.baseAddress!
                Parallel.forEachChunk(of: h, workPerItem: w * MemoryLayout<Pixel>.stride) { rows in
                    for i in rows.lowerBound * w..<rows.upperBound * w {
                        (d + i).initialize(to: convert(s[i]))
                    }
                }
            }
        }
    }
}

struct LumaConverter: PixelConverter {
    @inline(__always) func callAsFunction(_ p: RGBA8) -> UInt8 { p.luma }
}

struct AlphaConverter: PixelConverter {
    @inline(__always) func callAsFunction(_ p: RGBA8) -> UInt8 { p.a }
}

struct PremultiplyConverter: PixelConverter {
    @inline(__always) func callAsFunction(_ p: RGBA8) -> PremultipliedRGBA8 { p.premultiplied }
}

struct UnpremultiplyConverter: PixelConverter {
    let factors: UnsafePointer<UInt32>
    @inline(__always) func callAsFunction(_ p: PremultipliedRGBA8) -> RGBA8 {
        switch p.a {
        case 255: return RGBA8(r: p.r, g: p.g, b: p.b, a: 255)
        case 0: return .clear
        default:
            let k = UInt64(factors[Int(p.a)])
            @inline(__always) func u(_ c: UInt8) -> UInt8 {
                UInt8(truncatingIfNeeded: (UInt64(c) &* k &+ (1 << 23)) >> 24)
            }
            return RGBA8(r: u(p.r), g: u(p.g), b: u(p.b), a: p.a)
        }
    }
}

struct FlattenConverter: PixelConverter {
    let br: UInt32, bg: UInt32, bb: UInt32
    @inline(__always) func callAsFunction(_ p: RGBA8) -> RGBA8 {
        let a = UInt32(p.a)
        if a == 255 { return p }
        let ia = 255 &- a
        return RGBA8(
            r: UInt8(truncatingIfNeeded: div255(UInt32(p.r) &* a &+ br &* ia)),
            g: UInt8(truncatingIfNeeded: div255(UInt32(p.g) &* a &+ bg &* ia)),
            b: UInt8(truncatingIfNeeded: div255(UInt32(p.b) &* a &+ bb &* ia)),
            a: 255)
    }
}

struct GrayToRGBAConverter: PixelConverter {
    @inline(__always) func callAsFunction(_ v: UInt8) -> RGBA8 { RGBA8(r: v, g: v, b: v, a: 255) }
}

struct ColorizeConverter: PixelConverter {
    let color: RGBA8
    @inline(__always) func callAsFunction(_ m: UInt8) -> RGBA8 {
        RGBA8(r: color.r, g: color.g, b: color.b, a: UInt8(truncatingIfNeeded: div255(UInt32(m) &* UInt32(color.a))))
    }
}

struct ToFloatConverter: PixelConverter {
    let scale: Float
    @inline(__always) func callAsFunction(_ v: UInt8) -> Float { Float(v) * scale }
}

struct ToByteConverter: PixelConverter {
    let scale: Float
    @inline(__always) func callAsFunction(_ v: Float) -> UInt8 { UInt8.store(v * scale) }
}

extension Bitmap where Pixel == RGBA8 {
    /// Rec. 601 luma of each pixel's colour (alpha ignored; flatten first if it matters), for
    /// analysis stages and gray output.
    public func grayscale() -> Bitmap<UInt8> { converted(with: LumaConverter()) }

    /// The alpha channel as its own plane, e.g. to use as a mask.
    public func alphaChannel() -> Bitmap<UInt8> { converted(with: AlphaConverter()) }

    /// A copy whose alpha channel is replaced by `alpha` (same size), keeping the colours.
    public func replacingAlpha(with alpha: Bitmap<UInt8>) -> Bitmap<RGBA8> {
        precondition(
            alpha.width == width && alpha.height == height,
            "alpha plane \(alpha.width)×\(alpha.height) does not match the \(width)×\(height) bitmap")
        var out = self
        let w = width
        alpha.pixels.withUnsafeBufferPointer { a in
            out.pixels.withUnsafeMutableBufferPointer { buf in
                guard let d = buf.baseAddress, let s = a.baseAddress else { return }
                Parallel.forEachChunk(of: height, workPerItem: w * 4) { rows in
                    for i in rows.lowerBound * w..<rows.upperBound * w { d[i].a = s[i] }
                }
            }
        }
        return out
    }

    /// The image composited over an opaque `background` (its alpha is ignored), so it can be
    /// written to formats without alpha such as JPEG. The result is opaque.
    public func flattened(over background: RGBA8 = .white) -> Bitmap<RGBA8> {
        converted(with: FlattenConverter(br: UInt32(background.r), bg: UInt32(background.g), bb: UInt32(background.b)))
    }

    /// The same image with premultiplied alpha, the form compositing and filtering work in.
    public func premultiplied() -> Bitmap<PremultipliedRGBA8> { converted(with: PremultiplyConverter()) }

    /// Whether every pixel is fully opaque, which lets blending and filtering skip alpha work.
    public var isOpaque: Bool {
        pixels.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: UInt32.self) { words in
                // Alpha is the byte at offset 3; on a little-endian machine that is the top byte.
                let alphaMask: UInt32 = UInt32(littleEndian: 0xff00_0000)
                var all: UInt32 = alphaMask
                var i = 0
                let n = words.count
                while i < n {
                    // Check in blocks so a transparent image stops early without a branch per pixel.
                    let end = min(i + 4096, n)
                    while i < end {
                        all &= words[i]
                        i += 1
                    }
                    if all & alphaMask != alphaMask { return false }
                }
                return true
            }
        }
    }
}

extension Bitmap where Pixel == PremultipliedRGBA8 {
    /// Back to straight alpha, each channel rounded to nearest.
    public func unpremultiplied() -> Bitmap<RGBA8> {
        unpremultiplyFactors.withUnsafeBufferPointer { f in
            converted(with: UnpremultiplyConverter(factors: f.baseAddress!))
        }
    }
}

extension Bitmap where Pixel == UInt8 {
    /// Opaque RGBA with r = g = b = the gray value.
    public func rgba() -> Bitmap<RGBA8> { converted(with: GrayToRGBAConverter()) }

    /// A solid `color` whose alpha is scaled by this plane (coverage 0 → clear, 255 → `color`),
    /// e.g. to turn a text mask into a coloured overlay.
    public func colorized(_ color: RGBA8) -> Bitmap<RGBA8> { converted(with: ColorizeConverter(color: color)) }

    /// The plane as floats, each value multiplied by `scale` (by default 0...255 → 0...1).
    public func floats(scale: Float = 1 / 255) -> Bitmap<Float> { converted(with: ToFloatConverter(scale: scale)) }
}

extension Bitmap where Pixel == Float {
    /// The plane as bytes: each value times `scale`, rounded to nearest, clamped to 0...255
    /// (NaN → 0).
    public func bytes(scale: Float = 255) -> Bitmap<UInt8> { converted(with: ToByteConverter(scale: scale)) }
}
