// Conversions between pixel formats. All of them are per-pixel and split big bitmaps across the
// cores by rows; the arithmetic is integer with round-to-nearest so round trips are exact where
// the maths allows.

extension Bitmap {
    /// `map` for hot conversions: runs over raw buffers, across cores for big bitmaps.
    @inline(__always)
    func convertedInParallel<Q: PixelFormat>(_ transform: (Pixel) -> Q) -> Bitmap<Q> {
        let w = width
        return pixels.withUnsafeBufferPointer { src in
            guard let s = src.baseAddress else { return Bitmap<Q>(width: width, height: height, pixels: []) }
            return Bitmap<Q>(width: width, height: height) { dst in
                guard let base = dst.baseAddress else { return }
                let d = base
                Parallel.forEachChunk(of: height, workPerItem: w * MemoryLayout<Pixel>.stride) { rows in
                    for i in rows.lowerBound * w..<rows.upperBound * w {
                        (d + i).initialize(to: transform(s[i]))
                    }
                }
            }
        }
    }

    /// In-place counterpart of ``convertedInParallel(_:)``.
    @inline(__always)
    mutating func updateInParallel(_ transform: (inout Pixel) -> Void) {
        let w = width, h = height
        pixels.withUnsafeMutableBufferPointer { buf in
            guard let base = buf.baseAddress else { return }
            let d = base
            Parallel.forEachChunk(of: h, workPerItem: w * MemoryLayout<Pixel>.stride) { rows in
                for i in rows.lowerBound * w..<rows.upperBound * w { transform(&d[i]) }
            }
        }
    }
}

extension Bitmap where Pixel == RGBA8 {
    /// Rec. 601 luma of each pixel's colour (alpha ignored; flatten first if it matters), for
    /// analysis stages and gray output.
    public func grayscale() -> Bitmap<UInt8> {
        convertedInParallel { $0.luma }
    }

    /// The alpha channel as its own plane, e.g. to use as a mask.
    public func alphaChannel() -> Bitmap<UInt8> {
        convertedInParallel { $0.a }
    }

    /// A copy whose alpha channel is replaced by `alpha` (same size), keeping the colours.
    public func replacingAlpha(with alpha: Bitmap<UInt8>) -> Bitmap<RGBA8> {
        precondition(
            alpha.width == width && alpha.height == height,
            "alpha plane \(alpha.width)×\(alpha.height) does not match the \(width)×\(height) bitmap")
        var out = self
        let w = width
        alpha.pixels.withUnsafeBufferPointer { a in
            out.pixels.withUnsafeMutableBufferPointer { buf in
                guard let base = buf.baseAddress, let s = a.baseAddress else { return }
                let d = base
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
        let br = UInt32(background.r), bg = UInt32(background.g), bb = UInt32(background.b)
        return convertedInParallel { p in
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

    /// The same image with premultiplied alpha, the form compositing and filtering work in.
    public func premultiplied() -> Bitmap<PremultipliedRGBA8> {
        convertedInParallel { $0.premultiplied }
    }

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
            let factors = f
            return convertedInParallel { p in
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
    }
}

extension Bitmap where Pixel == UInt8 {
    /// Opaque RGBA with r = g = b = the gray value.
    public func rgba() -> Bitmap<RGBA8> {
        convertedInParallel { RGBA8(r: $0, g: $0, b: $0, a: 255) }
    }

    /// A solid `color` whose alpha is scaled by this plane (coverage 0 → clear, 255 → `color`),
    /// e.g. to turn a text mask into a coloured overlay.
    public func colorized(_ color: RGBA8) -> Bitmap<RGBA8> {
        let ca = UInt32(color.a)
        return convertedInParallel { m in
            RGBA8(r: color.r, g: color.g, b: color.b, a: UInt8(truncatingIfNeeded: div255(UInt32(m) &* ca)))
        }
    }

    /// The plane as floats, each value multiplied by `scale` (by default 0...255 → 0...1).
    public func floats(scale: Float = 1 / 255) -> Bitmap<Float> {
        convertedInParallel { Float($0) * scale }
    }
}

extension Bitmap where Pixel == Float {
    /// The plane as bytes: each value times `scale`, rounded, clamped to 0...255 (NaN → 0).
    public func bytes(scale: Float = 255) -> Bitmap<UInt8> {
        convertedInParallel { v in
            let x = v * scale
            // `!(x > 0)` also catches NaN.
            if !(x > 0) { return 0 }
            if x >= 255 { return 255 }
            return UInt8(x + 0.5)
        }
    }
}
