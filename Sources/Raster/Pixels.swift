/// 8-bit-per-channel colour with *premultiplied* alpha (each of r, g, b already scaled by a/255),
/// the form blending and filtering need. A separate type from ``RGBA8`` so straight and
/// premultiplied pixels cannot be mixed up by accident; convert with ``RGBA8/premultiplied`` and
/// ``unpremultiplied``.
///
/// Invariant: `r, g, b <= a`. Values built with the public initializer are checked.
@frozen
public struct PremultipliedRGBA8: PixelFormat, Hashable, CustomStringConvertible {
    /// Red, already multiplied by a/255.
    public let r: UInt8
    /// Green, already multiplied by a/255.
    public let g: UInt8
    /// Blue, already multiplied by a/255.
    public let b: UInt8
    /// Opacity, 0 (clear) to 255 (opaque).
    public let a: UInt8

    /// A premultiplied pixel from channels that already satisfy `r, g, b <= a`.
    @inlinable
    public init(r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        precondition(r <= a && g <= a && b <= a, "premultiplied colour channels must not exceed alpha, got r\(r) g\(g) b\(b) a\(a)")
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    /// For converters that establish the invariant themselves.
    @inlinable
    init(uncheckedR r: UInt8, g: UInt8, b: UInt8, a: UInt8) {
        self.r = r
        self.g = g
        self.b = b
        self.a = a
    }

    /// Four interleaved channels, like ``RGBA8``.
    public static var channelCount: Int { 4 }
    /// Name used in messages.
    public static var formatName: String { "rgba8-premultiplied" }

    /// Fully transparent.
    public static let clear = PremultipliedRGBA8(uncheckedR: 0, g: 0, b: 0, a: 0)

    /// The straight-alpha colour, each channel rounded to nearest (exact for every input).
    @inlinable
    public var unpremultiplied: RGBA8 {
        switch a {
        case 255: return RGBA8(r: r, g: g, b: b, a: 255)
        case 0: return .clear
        default:
            let k = UInt64(unpremultiplyFactors[Int(a)])
            @inline(__always) func u(_ c: UInt8) -> UInt8 { UInt8(truncatingIfNeeded: (UInt64(c) &* k &+ (1 << 23)) >> 24) }
            return RGBA8(r: u(r), g: u(g), b: u(b), a: a)
        }
    }

    /// The premultiplied channels as `premultiplied #rrggbbaa`, for messages and test failures.
    public var description: String { "premultiplied " + RGBA8(r: r, g: g, b: b, a: a).description }
}

/// `ceil(255 · 2²⁴ / a)`: with it, `(c · f + 2²³) >> 24` is exactly `round(c · 255 / a)` for every
/// `c <= a` (the error of the ceiling is far below the smallest distance to a rounding boundary,
/// and it breaks exact halves upward like `round` does).
@usableFromInline
let unpremultiplyFactors: [UInt32] = (0...255).map { (a: Int) -> UInt32 in
    if a == 0 { return 0 }
    let numerator: UInt64 = (255 << 24) + UInt64(a) - 1
    return UInt32(numerator / UInt64(a))
}

extension RGBA8 {
    /// This colour with alpha premultiplied into r, g, b (each rounded to nearest).
    @inlinable
    public var premultiplied: PremultipliedRGBA8 {
        if a == 255 { return PremultipliedRGBA8(uncheckedR: r, g: g, b: b, a: 255) }
        let a32 = UInt32(a)
        return PremultipliedRGBA8(
            uncheckedR: UInt8(truncatingIfNeeded: div255(UInt32(r) &* a32)),
            g: UInt8(truncatingIfNeeded: div255(UInt32(g) &* a32)),
            b: UInt8(truncatingIfNeeded: div255(UInt32(b) &* a32)),
            a: a)
    }
}

/// How a pixel type's channels are stored, for the algorithms (resampling, blurring,
/// comparison) that treat pixels as a few plain numbers. Only Raster can make one, so every
/// ``NumericPixel`` describes a layout those algorithms really handle.
public struct ChannelLayout: Sendable, Hashable {
    enum Scalar: Sendable, Hashable { case uint8, float32 }
    enum Alpha: Sendable, Hashable { case none, straight, premultiplied }
    let channels: Int
    let scalar: Scalar
    let alpha: Alpha

    /// Number of interleaved channels (1 or 4).
    public var channelCount: Int { channels }
    /// The largest channel value: 255 for 8-bit formats, 1 for float planes.
    public var peakValue: Double { scalar == .uint8 ? 255 : 1 }
}

/// A pixel format whose channels are plain numbers, so it can be resampled, blurred and
/// compared: `UInt8`, `Float`, ``RGBA8`` and ``PremultipliedRGBA8``.
public protocol NumericPixel: PixelFormat {
    /// Describes the channels to the generic algorithms.
    static var channelLayout: ChannelLayout { get }
}

extension UInt8: NumericPixel {
    /// How the generic algorithms see this format.
    public static var channelLayout: ChannelLayout { ChannelLayout(channels: 1, scalar: .uint8, alpha: .none) }
}

extension Float: NumericPixel {
    /// How the generic algorithms see this format.
    public static var channelLayout: ChannelLayout { ChannelLayout(channels: 1, scalar: .float32, alpha: .none) }
}

extension RGBA8: NumericPixel {
    /// How the generic algorithms see this format.
    public static var channelLayout: ChannelLayout { ChannelLayout(channels: 4, scalar: .uint8, alpha: .straight) }
}

extension PremultipliedRGBA8: NumericPixel {
    /// How the generic algorithms see this format.
    public static var channelLayout: ChannelLayout { ChannelLayout(channels: 4, scalar: .uint8, alpha: .premultiplied) }
}

extension NumericPixel {
    /// Checks that the type really is laid out as its ``channelLayout`` claims — a conformance
    /// outside Raster could borrow another type's layout.
    @inline(__always)
    static func checkLayout() {
        let l = channelLayout
        let scalarSize = l.scalar == .uint8 ? 1 : 4
        precondition(
            MemoryLayout<Self>.stride == l.channels * scalarSize,
            "\(Self.self) claims \(l.channels) channel(s) of \(scalarSize) byte(s) but is \(MemoryLayout<Self>.stride) bytes")
    }
}
