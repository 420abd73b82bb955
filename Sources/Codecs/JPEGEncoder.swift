import CJPEG
import CShim
public import Raster

/// How to write a JPEG.
public struct JPEGEncodeOptions: Sendable, Equatable {
    /// Chroma resolution. Photos and scans lose nothing visible at 4:2:0; sharp coloured text and
    /// line art keep cleaner edges at 4:4:4 (larger files).
    public enum Chroma: Sendable, Equatable, CaseIterable {
        case subsampled420
        case full444
    }

    /// libjpeg quality, 1...100.
    public var quality: Int
    /// Progressive scans (coarse-to-fine on the web; usually a few percent smaller).
    public var progressive: Bool
    public var chroma: Chroma
    /// Optimal Huffman tables: a few percent smaller, a little slower. Progressive files always
    /// get them.
    public var optimizeCoding: Bool
    /// JPEG has no alpha: pixels that are not opaque are composited over this colour.
    public var matte: RGBA8

    public init(
        quality: Int = 90, progressive: Bool = false, chroma: Chroma = .subsampled420, optimizeCoding: Bool = false,
        matte: RGBA8 = .white
    ) {
        self.quality = quality
        self.progressive = progressive
        self.chroma = chroma
        self.optimizeCoding = optimizeCoding
        self.matte = matte
    }
}

/// Writes JPEG files with libjpeg-turbo.
public enum JPEGEncoder {
    /// Encodes RGBA as YCbCr; transparency is flattened onto `options.matte`.
    public static func encode(_ bitmap: Bitmap<RGBA8>, options: JPEGEncodeOptions = .init(), name: String = "image")
        throws(CodecError) -> [UInt8]
    {
        try encode(bitmap, options: options, name: name) { .success(Array($0)) }
    }

    /// Encodes gray as a one-component JPEG.
    public static func encode(_ bitmap: Bitmap<UInt8>, options: JPEGEncodeOptions = .init(), name: String = "image")
        throws(CodecError) -> [UInt8]
    {
        try encode(bitmap, options: options, name: name) { .success(Array($0)) }
    }

    /// Encodes and writes atomically to `path`, straight from the encoder's buffer (no copy of
    /// the compressed file beside it).
    public static func write(_ bitmap: Bitmap<RGBA8>, to path: String, options: JPEGEncodeOptions = .init()) throws(CodecError) {
        try encode(bitmap, options: options, name: path) { written($0, to: path) }
    }

    public static func write(_ bitmap: Bitmap<UInt8>, to path: String, options: JPEGEncodeOptions = .init()) throws(CodecError) {
        try encode(bitmap, options: options, name: path) { written($0, to: path) }
    }

    private static func written(_ bytes: UnsafeBufferPointer<UInt8>, to path: String) -> Result<Void, CodecError> {
        do throws(CodecError) {
            try writeStreamed(to: path) { (sink) throws(CodecError) in try sink(UnsafeRawBufferPointer(bytes)) }
        } catch {
            return .failure(error)
        }
        return .success(())
    }

    private static func encode<T>(
        _ bitmap: Bitmap<RGBA8>, options: JPEGEncodeOptions, name: String, use: (UnsafeBufferPointer<UInt8>) -> Result<T, CodecError>
    ) throws(CodecError) -> T {
        let opaque = bitmap.pixels.withUnsafeBufferPointer { p in !p.contains { $0.a != 255 } }
        let pixels = opaque ? bitmap.pixels : flattened(bitmap.pixels, over: options.matte)
        return try pixels.withUnsafeBufferPointer { (p) throws(CodecError) -> T in
            try encode(
                UnsafeRawBufferPointer(p), width: bitmap.width, height: bitmap.height, stride: bitmap.width * 4,
                input: (JCS_EXT_RGBX, 4), jpeg: JCS_YCbCr, options: options, name: name, use: use)
        }
    }

    private static func encode<T>(
        _ bitmap: Bitmap<UInt8>, options: JPEGEncodeOptions, name: String, use: (UnsafeBufferPointer<UInt8>) -> Result<T, CodecError>
    ) throws(CodecError) -> T {
        try bitmap.pixels.withUnsafeBufferPointer { (p) throws(CodecError) -> T in
            try encode(
                UnsafeRawBufferPointer(p), width: bitmap.width, height: bitmap.height, stride: bitmap.width,
                input: (JCS_GRAYSCALE, 1), jpeg: JCS_GRAYSCALE, options: options, name: name, use: use)
        }
    }

    /// Writes CMYK samples (4 bytes a pixel, already in the convention wanted — Adobe software
    /// stores them inverted) as CMYK or YCCK with an Adobe marker. Picturebook never writes CMYK;
    /// the tests use this to build the files scanners and Photoshop produce.
    package static func encodeCMYK(
        _ samples: [UInt8], width: Int, height: Int, ycck: Bool, options: JPEGEncodeOptions = .init()
    ) throws(CodecError) -> [UInt8] {
        precondition(samples.count == width * height * 4, "CMYK needs \(width * height * 4) bytes, got \(samples.count)")
        return try samples.withUnsafeBufferPointer { (p) throws(CodecError) -> [UInt8] in
            try encode(
                UnsafeRawBufferPointer(p), width: width, height: height, stride: width * 4, input: (JCS_CMYK, 4),
                jpeg: ycck ? JCS_YCCK : JCS_CMYK, options: options, name: "image") { .success(Array($0)) }
        }
    }

    private static func encode<T>(
        _ pixels: UnsafeRawBufferPointer, width: Int, height: Int, stride: Int, input: (J_COLOR_SPACE, Int),
        jpeg: J_COLOR_SPACE, options: JPEGEncodeOptions, name: String, use: (UnsafeBufferPointer<UInt8>) -> Result<T, CodecError>
    ) throws(CodecError) -> T {
        precondition((1...100).contains(options.quality), "JPEG quality must be 1...100, got \(options.quality)")
        guard width > 0, height > 0 else { throw .encodeFailed(name: name, format: .jpeg, reason: "image is empty (\(width)×\(height))") }
        // libjpeg's own ceiling; checked here so the numbers fit its 32-bit fields.
        guard width <= 65_500, height <= 65_500 else {
            throw .encodeFailed(name: name, format: .jpeg, reason: "\(width)×\(height) is over JPEG's 65500-pixel side limit")
        }
        var params = pb_jpeg_encode_params()
        params.width = UInt32(width)
        params.height = UInt32(height)
        params.stride = stride
        params.input_space = input.0
        params.input_components = Int32(input.1)
        params.jpeg_space = jpeg
        params.quality = Int32(options.quality)
        params.progressive = options.progressive ? 1 : 0
        params.subsample = options.chroma == .subsampled420 ? 2 : 1
        params.optimize = options.optimizeCoding ? 1 : 0
        return try runEncoder(format: .jpeg, name: name, { out, trap in
            pb_jpeg_encode(&params, pixels.baseAddress?.assumingMemoryBound(to: UInt8.self), out, trap)
        }, use: use).get()
    }

    private static func flattened(_ pixels: [RGBA8], over matte: RGBA8) -> [RGBA8] {
        let mr = UInt32(matte.r), mg = UInt32(matte.g), mb = UInt32(matte.b)
        return pixels.map { p in
            let a = UInt32(p.a), ia = 255 - a
            return RGBA8(
                r: PixelConversion.mul255(UInt32(p.r), a) &+ PixelConversion.mul255(mr, ia),
                g: PixelConversion.mul255(UInt32(p.g), a) &+ PixelConversion.mul255(mg, ia),
                b: PixelConversion.mul255(UInt32(p.b), a) &+ PixelConversion.mul255(mb, ia))
        }
    }
}
