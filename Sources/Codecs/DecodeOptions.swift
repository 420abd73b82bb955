/// Size ceilings checked right after the header is read and before any pixel memory is
/// allocated, so a 20-byte file claiming to be 60000×60000 costs nothing.
public struct DecodeLimits: Sendable, Equatable, Codable {
    /// Largest width or height accepted, in decoded pixels.
    public var maxDimension: Int
    /// Largest width × height accepted, in decoded pixels.
    public var maxPixels: Int

    public init(maxDimension: Int = 20_000, maxPixels: Int = 200_000_000) {
        precondition(maxDimension > 0 && maxPixels > 0, "DecodeLimits must be positive, got \(maxDimension), \(maxPixels)")
        self.maxDimension = maxDimension
        self.maxPixels = maxPixels
    }

    public static let `default` = DecodeLimits()

    public func allows(width: Int, height: Int) -> Bool {
        let (pixels, overflow) = width.multipliedReportingOverflow(by: height)
        return width <= maxDimension && height <= maxDimension && !overflow && pixels <= maxPixels
    }

    /// Working memory libjpeg may use on top of the output (progressive files keep every DCT
    /// coefficient: 2 bytes × components × stored pixels). Eight bytes per allowed pixel fits any
    /// image the limits allow at full size and stops a reduced decode from exploding.
    var jpegWorkingMemory: Int { maxPixels.multipliedReportingOverflow(by: 8).overflow ? Int.max : maxPixels * 8 }
}

/// JPEG DCT-domain scaling: libjpeg reconstructs the image directly at 1/2, 1/4 or 1/8 size from
/// fewer DCT coefficients, several times faster than decoding fully and shrinking. Output sizes
/// round up: 1/8 of 1601 is 201.
public enum JPEGScale: Int, Sendable, CaseIterable, Codable, Comparable {
    case full = 1
    case half = 2
    case quarter = 4
    case eighth = 8

    /// The scale for 1/`denominator` (1, 2, 4 or 8), or nil.
    public init?(denominator: Int) { self.init(rawValue: denominator) }

    public var denominator: Int { rawValue }

    /// The decoded size of a `width`×`height` image at this scale.
    public func scaled(width: Int, height: Int) -> (width: Int, height: Int) {
        ((width + rawValue - 1) / rawValue, (height + rawValue - 1) / rawValue)
    }

    /// The strongest reduction whose output still covers `targetWidth`×`targetHeight`, so a
    /// thumbnail can be decoded small and then only resampled down a little.
    public static func largestReduction(width: Int, height: Int, covering targetWidth: Int, _ targetHeight: Int) -> JPEGScale {
        for scale in allCases.reversed() {
            let s = scale.scaled(width: width, height: height)
            if s.width >= targetWidth && s.height >= targetHeight { return scale }
        }
        return .full
    }

    /// ``largestReduction(width:height:covering:_:)`` for the image `info` describes, with the
    /// target in displayed (oriented) pixels; always `.full` for PNG, which has no such scaling.
    public static func largestReduction(from info: ImageInfo, covering targetWidth: Int, _ targetHeight: Int) -> JPEGScale {
        guard info.format == .jpeg else { return .full }
        return largestReduction(width: info.orientedWidth, height: info.orientedHeight, covering: targetWidth, targetHeight)
    }

    public static func < (a: JPEGScale, b: JPEGScale) -> Bool { a.rawValue < b.rawValue }
}

/// How to decode.
public struct DecodeOptions: Sendable, Equatable {
    public var limits: DecodeLimits
    /// JPEG only: decode at a fraction of the stored size. PNG ignores it.
    public var jpegScale: JPEGScale
    /// Rotate/flip the pixels upright according to the EXIF orientation (JPEG APP1, PNG eXIf).
    public var applyOrientation: Bool
    /// JPEG only: the integer fast DCT and plain (box) chroma upsampling — about 15–25 % faster,
    /// visibly blockier at low quality. Off by default: scans are judged on detail.
    public var fastJPEG: Bool
    /// Fail on damage the libraries would conceal (corrupt JPEG entropy data shown as grey blocks,
    /// a bad CRC on an ancillary PNG chunk, ...). Off by default, as in image viewers. Running out
    /// of data is always an error.
    public var strict: Bool
    /// Progressive JPEG only: decode in bands of MCU rows holding about this many bytes of DCT
    /// coefficients, whatever the image's size. Nil (the default) lets the decoder choose: bands
    /// only when holding every coefficient would cost more than the decoded image allows. For
    /// tests and the fuzz harness, which check that bands give exactly libjpeg's pixels.
    public var progressiveBandBytes: Int?
    /// JPEG 2000 only: decode in bands of about this many rows, whatever the image's size. Nil
    /// (the default) lets the decoder choose (bands only for a large image). For tests and the
    /// fuzz harness.
    public var jpeg2000BandRows: Int?

    public init(
        limits: DecodeLimits = .default, jpegScale: JPEGScale = .full, applyOrientation: Bool = true,
        fastJPEG: Bool = false, strict: Bool = false
    ) {
        self.limits = limits
        self.jpegScale = jpegScale
        self.applyOrientation = applyOrientation
        self.fastJPEG = fastJPEG
        self.strict = strict
    }
}

/// What the header says about an image; ``ImageDecoder/info(_:name:)`` reads it without decoding
/// pixels.
public struct ImageInfo: Sendable, Equatable, CustomStringConvertible {
    public var format: ImageFormat
    /// Size as stored in the file, before orientation.
    public var width: Int
    public var height: Int
    /// EXIF orientation, 1...8 (1 when there is none or it is unreadable).
    public var orientation: Int
    /// e.g. "RGB 8-bit", "palette+tRNS 4-bit", "gray 16-bit", "YCbCr 4:2:0", "CMYK (Adobe inverted)".
    public var colorDescription: String
    /// Bits per sample as stored (PNG 1...16, JPEG 8).
    public var bitDepth: Int
    /// The file carries transparency (an alpha channel or a tRNS chunk).
    public var hasAlpha: Bool
    /// The pixels are gray (gray PNG, gray-only palette, grayscale JPEG): ``ImageDecoder/decodeGray(_:name:options:)``
    /// reads them without an RGBA detour.
    public var isGray: Bool
    /// Adam7-interlaced PNG or progressive JPEG.
    public var isInterlaced: Bool

    /// Orientations 5–8 swap width and height.
    public var orientedWidth: Int { orientation >= 5 ? height : width }
    public var orientedHeight: Int { orientation >= 5 ? width : height }

    public var description: String {
        var s = "\(format.displayName) \(width)×\(height), \(colorDescription)"
        if isInterlaced { s += format == .png ? ", interlaced" : ", progressive" }
        if orientation != 1 { s += ", orientation \(orientation)" }
        return s
    }
}
