import CPNG
import CShim
import FileIO
public import Raster

/// Which PNG row filter to use. `.adaptive` picks per row with libpng's heuristic (best for
/// photos and scans); `.none` suits flat artwork and is fastest.
public enum PNGFilter: Sendable, Equatable, CaseIterable {
    case none, sub, up, average, paeth, adaptive

    var mask: Int32 {
        switch self {
        case .none: return PNG_FILTER_NONE
        case .sub: return PNG_FILTER_SUB
        case .up: return PNG_FILTER_UP
        case .average: return PNG_FILTER_AVG
        case .paeth: return PNG_FILTER_PAETH
        case .adaptive: return PNG_FILTER_NONE | PNG_FILTER_SUB | PNG_FILTER_UP | PNG_FILTER_AVG | PNG_FILTER_PAETH
        }
    }
}

/// How to write a PNG. All settings are lossless; they trade speed for size.
public struct PNGEncodeOptions: Sendable, Equatable {
    /// zlib level, 0 (store) ... 9 (smallest, slowest).
    public var compressionLevel: Int
    public var filter: PNGFilter
    /// Write gray when every pixel is gray, and drop the alpha channel when every pixel is
    /// opaque: the same pixels in a smaller file.
    public var reduceChannels: Bool
    /// Adam7 interlacing (progressive display on the web; files grow a little).
    public var interlaced: Bool

    public init(compressionLevel: Int = 6, filter: PNGFilter = .adaptive, reduceChannels: Bool = true, interlaced: Bool = false) {
        self.compressionLevel = compressionLevel
        self.filter = filter
        self.reduceChannels = reduceChannels
        self.interlaced = interlaced
    }

    /// For intermediate files, previews and rendered screens: the "up" filter and, instead of
    /// zlib, the writer's own single-pass deflate (left-pixel runs + per-strip Huffman codes,
    /// `FastDeflate`); on a 2556×1179 screen spread about 2.5× less encoding time than zlib
    /// level 1 for a file about 6 % larger.
    public static let fast = PNGEncodeOptions(compressionLevel: 1, filter: .up)
    public static let `default` = PNGEncodeOptions()
    /// For published books: level 9 with per-row filter choice.
    public static let smallest = PNGEncodeOptions(compressionLevel: 9, filter: .adaptive)
}

/// Writes PNG files: non-interlaced ones with ``PNGWriter`` (filters and deflate spread over the
/// cores), Adam7 ones with libpng.
public enum PNGEncoder {
    /// Encodes straight-alpha RGBA. With `reduceChannels` the file is gray, gray+alpha, RGB or
    /// RGBA — whichever holds these pixels exactly in the fewest channels.
    public static func encode(_ bitmap: Bitmap<RGBA8>, options: PNGEncodeOptions = .default, name: String = "image")
        throws(CodecError) -> [UInt8]
    {
        try encode(bitmap, options: options, name: name, tuning: PNGWriterTuning())
    }

    package static func encode(_ bitmap: Bitmap<RGBA8>, options: PNGEncodeOptions, name: String, tuning: PNGWriterTuning)
        throws(CodecError) -> [UInt8]
    {
        let (opaque, gray) = channelsNeeded(bitmap, options: options)
        if !options.interlaced {
            let writer = rgbaWriter(bitmap, gray: gray, opaque: opaque, options: options, tuning: tuning)
            return try bitmap.pixels.withUnsafeBufferPointer { (p) throws(CodecError) -> [UInt8] in
                try writer.encode(source: UnsafeRawBufferPointer(p), sourceStride: bitmap.width * 4, name: name)
            }
        }
        // Adam7 stays with libpng.
        var raw = RawPNG(width: bitmap.width, height: bitmap.height, colorType: PNG_COLOR_TYPE_RGB_ALPHA, bitDepth: 8)
        raw.interlaced = options.interlaced
        if gray {
            // Only gray needs a repacked copy; RGB is RGBA with libpng skipping the 4th byte.
            raw.colorType = opaque ? PNG_COLOR_TYPE_GRAY : PNG_COLOR_TYPE_GRAY_ALPHA
            raw.samples = opaque ? bitmap.pixels.map(\.r) : bitmap.pixels.flatMap { [$0.r, $0.a] }
            return try raw.encode(options: options, name: name)
        }
        if opaque {
            raw.colorType = PNG_COLOR_TYPE_RGB
            raw.stripFiller = true
        }
        return try bitmap.pixels.withUnsafeBufferPointer { (p) throws(CodecError) -> [UInt8] in
            try raw.encode(pixels: UnsafeRawBufferPointer(p), stride: bitmap.width * 4, options: options, name: name)
        }
    }

    /// Whether every pixel is opaque and whether every pixel is gray (both false without
    /// `reduceChannels`).
    static func channelsNeeded(_ bitmap: Bitmap<RGBA8>, options: PNGEncodeOptions) -> (opaque: Bool, gray: Bool) {
        options.reduceChannels ? bitmap.pixels.withUnsafeBufferPointer(channelsNeeded) : (false, false)
    }

    /// The non-interlaced writer of an RGBA bitmap, in the fewest channels that hold it.
    static func rgbaWriter(_ bitmap: Bitmap<RGBA8>, gray: Bool, opaque: Bool, options: PNGEncodeOptions, tuning: PNGWriterTuning)
        -> PNGWriter
    {
        let layout: PNGRowLayout, colorType: UInt8
        switch (gray, opaque) {
        case (true, true): (layout, colorType) = (.grayFromRGBA, 0)
        case (true, false): (layout, colorType) = (.grayAlphaFromRGBA, 4)
        case (false, true): (layout, colorType) = (.rgbFromRGBA, 2)
        case (false, false): (layout, colorType) = (.copy, 6)
        }
        return PNGWriter(
            width: bitmap.width, height: bitmap.height, colorType: colorType, layout: layout,
            level: options.compressionLevel, filter: options.filter, tuning: tuning)
    }

    /// The non-interlaced writer of a gray bitmap.
    static func grayWriter(_ bitmap: Bitmap<UInt8>, options: PNGEncodeOptions, tuning: PNGWriterTuning) -> PNGWriter {
        PNGWriter(
            width: bitmap.width, height: bitmap.height, colorType: 0, layout: .copy,
            level: options.compressionLevel, filter: options.filter, tuning: tuning)
    }

    /// Whether every pixel is opaque and whether every pixel is gray; bands of a big image are
    /// checked in parallel, each stopping as soon as it has seen both answers are no.
    static func channelsNeeded(_ pixels: UnsafeBufferPointer<RGBA8>) -> (opaque: Bool, gray: Bool) {
        func scan(_ range: Range<Int>) -> (Bool, Bool) {
            var opaque = true, gray = true
            for i in range {
                let px = pixels[i]
                opaque = opaque && px.a == 255
                gray = gray && px.r == px.g && px.g == px.b
                if !opaque && !gray { break }
            }
            return (opaque, gray)
        }
        let bands = pixels.count >= 1 << 18 ? PNGWriter.coreCount * 4 : 1
        if bands == 1 { return scan(0..<pixels.count) }
        let answers = UnsafeMutablePointer<(Bool, Bool)>.allocate(capacity: bands)
        answers.initialize(repeating: (true, true), count: bands)
        defer { answers.deallocate() }
        let step = (pixels.count + bands - 1) / bands
        concurrentPerform(iterations: bands) { b in
            answers[b] = scan(min(pixels.count, b * step)..<min(pixels.count, (b + 1) * step))
        }
        var opaque = true, gray = true
        for b in 0..<bands {
            opaque = opaque && answers[b].0
            gray = gray && answers[b].1
        }
        return (opaque, gray)
    }

    /// Encodes an 8-bit gray bitmap as a gray PNG.
    public static func encode(_ bitmap: Bitmap<UInt8>, options: PNGEncodeOptions = .default, name: String = "image")
        throws(CodecError) -> [UInt8]
    {
        try encode(bitmap, options: options, name: name, tuning: PNGWriterTuning())
    }

    package static func encode(_ bitmap: Bitmap<UInt8>, options: PNGEncodeOptions, name: String, tuning: PNGWriterTuning)
        throws(CodecError) -> [UInt8]
    {
        if !options.interlaced {
            let writer = grayWriter(bitmap, options: options, tuning: tuning)
            return try bitmap.pixels.withUnsafeBufferPointer { (p) throws(CodecError) -> [UInt8] in
                try writer.encode(source: UnsafeRawBufferPointer(p), sourceStride: bitmap.width, name: name)
            }
        }
        var raw = RawPNG(width: bitmap.width, height: bitmap.height, colorType: PNG_COLOR_TYPE_GRAY, bitDepth: 8)
        raw.interlaced = options.interlaced
        return try bitmap.pixels.withUnsafeBufferPointer { (p) throws(CodecError) -> [UInt8] in
            try raw.encode(pixels: UnsafeRawBufferPointer(p), stride: bitmap.width, options: options, name: name)
        }
    }

    /// Encodes and writes atomically to `path`: the same bytes as `encode`, written as they are
    /// made (a batch of rows at a time), so neither the filtered image nor the compressed file
    /// is held beside the pixels. Interlaced files are encoded whole by libpng first.
    public static func write(_ bitmap: Bitmap<RGBA8>, to path: String, options: PNGEncodeOptions = .default) throws(CodecError) {
        try write(bitmap, to: path, options: options, tuning: PNGWriterTuning())
    }

    package static func write(_ bitmap: Bitmap<RGBA8>, to path: String, options: PNGEncodeOptions, tuning: PNGWriterTuning)
        throws(CodecError)
    {
        guard !options.interlaced else {
            return try writeFile(encode(bitmap, options: options, name: path, tuning: tuning), to: path)
        }
        let (opaque, gray) = channelsNeeded(bitmap, options: options)
        try write(bitmap, with: rgbaWriter(bitmap, gray: gray, opaque: opaque, options: options, tuning: tuning), to: path)
    }

    public static func write(_ bitmap: Bitmap<UInt8>, to path: String, options: PNGEncodeOptions = .default) throws(CodecError) {
        try write(bitmap, to: path, options: options, tuning: PNGWriterTuning())
    }

    package static func write(_ bitmap: Bitmap<UInt8>, to path: String, options: PNGEncodeOptions, tuning: PNGWriterTuning)
        throws(CodecError)
    {
        guard !options.interlaced else {
            return try writeFile(encode(bitmap, options: options, name: path, tuning: tuning), to: path)
        }
        try write(bitmap, with: grayWriter(bitmap, options: options, tuning: tuning), to: path)
    }

    /// `bitmap`'s pixels through `writer` into the file at `path`, as they are encoded.
    private static func write<Pixel>(_ bitmap: Bitmap<Pixel>, with writer: PNGWriter, to path: String) throws(CodecError) {
        try writeStreamed(to: path) { (sink) throws(CodecError) in
            try bitmap.pixels.withUnsafeBufferPointer { (p) throws(CodecError) in
                try writer.write(
                    source: UnsafeRawBufferPointer(p), sourceStride: bitmap.width * MemoryLayout<Pixel>.stride, name: path, to: sink)
            }
        }
    }
}

/// Runs `body` with a sink that appends to a temporary file, renamed to `path` when `body`
/// returns; if it throws, the temporary file is removed and `path` is untouched.
func writeStreamed(
    to path: String, _ body: (_ sink: (UnsafeRawBufferPointer) throws(CodecError) -> Void) throws(CodecError) -> Void
) throws(CodecError) {
    let file: AtomicStream
    do throws(FileError) { file = try AtomicStream(path: path) } catch { throw .file(error) }
    try body { (bytes) throws(CodecError) in
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        do throws(FileError) { try file.write(base, count: bytes.count) } catch { throw .file(error) }
    }
    do throws(FileError) { try file.commit() } catch { throw .file(error) }
}

func writeFile(_ bytes: [UInt8], to path: String) throws(CodecError) {
    do { try AtomicFile.write(bytes, to: path) } catch { throw .file(error) }
}

/// Any PNG libpng can write, from samples already in PNG layout (packed below 8 bits,
/// big-endian at 16). The public encoder uses the 8-bit cases; tests (hence `package`) use the
/// rest to build every colour type and depth.
package struct RawPNG {
    package var width: Int
    package var height: Int
    /// PNG colour type as in IHDR: 0 gray, 2 RGB, 3 palette, 4 gray+alpha, 6 RGBA.
    package var colorType: Int32
    package var bitDepth: Int
    package var interlaced = false
    /// Rows of `rowBytes` each (when not passed to `encode(pixels:)` directly).
    package var samples: [UInt8] = []
    var stripFiller = false
    /// RGB triples.
    package var palette: [UInt8] = []
    package var paletteAlpha: [UInt8] = []
    /// The single transparent gray level or RGB colour (16-bit scale for 16-bit images).
    package var transparentColor: (gray: UInt16, red: UInt16, green: UInt16, blue: UInt16)?
    /// eXIf chunk payload (a TIFF structure).
    package var exif: [UInt8] = []

    package init(width: Int, height: Int, colorType: Int32, bitDepth: Int) {
        self.width = width
        self.height = height
        self.colorType = colorType
        self.bitDepth = bitDepth
    }

    var channels: Int {
        switch colorType {
        case PNG_COLOR_TYPE_GRAY, PNG_COLOR_TYPE_PALETTE: return 1
        case PNG_COLOR_TYPE_GRAY_ALPHA: return 2
        case PNG_COLOR_TYPE_RGB: return 3
        default: return 4
        }
    }

    var rowBytes: Int { (width * channels * bitDepth + 7) / 8 }

    package func encode(options: PNGEncodeOptions, name: String) throws(CodecError) -> [UInt8] {
        precondition(samples.count == rowBytes * height, "RawPNG needs \(rowBytes * height) bytes, got \(samples.count)")
        return try samples.withUnsafeBufferPointer { (p) throws(CodecError) -> [UInt8] in
            try encode(pixels: UnsafeRawBufferPointer(p), stride: rowBytes, options: options, name: name)
        }
    }

    func encode(pixels: UnsafeRawBufferPointer, stride: Int, options: PNGEncodeOptions, name: String) throws(CodecError)
        -> [UInt8]
    {
        precondition((0...9).contains(options.compressionLevel), "PNG compression level must be 0...9, got \(options.compressionLevel)")
        guard width > 0, height > 0 else { throw .encodeFailed(name: name, format: .png, reason: "image is empty (\(width)×\(height))") }
        guard width <= Int(PNG_UINT_31_MAX), height <= Int(PNG_UINT_31_MAX) else {
            throw .encodeFailed(name: name, format: .png, reason: "image is too large (\(width)×\(height))")
        }
        return try palette.withUnsafeBufferPointer { (pal) -> Result<[UInt8], CodecError> in
            paletteAlpha.withUnsafeBufferPointer { (alpha) -> Result<[UInt8], CodecError> in
                exif.withUnsafeBufferPointer { (ex) -> Result<[UInt8], CodecError> in
                    var params = pb_png_encode_params()
                    params.width = UInt32(width)
                    params.height = UInt32(height)
                    params.stride = stride
                    params.color_type = colorType
                    params.bit_depth = Int32(bitDepth)
                    params.strip_filler = stripFiller ? 1 : 0
                    params.interlaced = interlaced ? 1 : 0
                    params.level = Int32(options.compressionLevel)
                    params.filters = options.filter.mask
                    params.palette = pal.baseAddress
                    params.num_palette = Int32(palette.count / 3)
                    params.trans = alpha.baseAddress
                    params.num_trans = Int32(paletteAlpha.count)
                    if let t = transparentColor {
                        params.has_trans_color = 1
                        params.trans_gray = t.gray
                        params.trans_red = t.red
                        params.trans_green = t.green
                        params.trans_blue = t.blue
                    }
                    params.exif = ex.baseAddress
                    params.exif_length = UInt32(exif.count)
                    return runEncoder(format: .png, name: name) { out, trap in
                        pb_png_encode(&params, pixels.baseAddress?.assumingMemoryBound(to: UInt8.self), out, trap)
                    }
                }
            }
        }.get()
    }
}

/// Runs a shim encoder and copies its buffer out.
func runEncoder(
    format: ImageFormat, name: String,
    _ body: (UnsafeMutablePointer<pb_buffer>, UnsafeMutablePointer<pb_trap>) -> Int32
) -> Result<[UInt8], CodecError> {
    runEncoder(format: format, name: name, body) { .success(Array($0)) }
}

/// Runs a C encoder into a buffer of its own and hands the encoded bytes to `use` before the
/// buffer is freed (`JPEGEncoder.write` writes them to the file without a copy).
func runEncoder<T>(
    format: ImageFormat, name: String,
    _ body: (UnsafeMutablePointer<pb_buffer>, UnsafeMutablePointer<pb_trap>) -> Int32,
    use: (UnsafeBufferPointer<UInt8>) -> Result<T, CodecError>
) -> Result<T, CodecError> {
    var out = pb_buffer()
    let trap = UnsafeMutablePointer<pb_trap>.allocate(capacity: 1)
    trap.initialize(to: pb_trap())
    defer {
        trap.deallocate()
        pb_free(out.data)
    }
    let status = body(&out, trap)
    guard status == pbOK, let data = out.data else {
        return .failure(.encodeFailed(name: name, format: format, reason: trapMessage(trap)))
    }
    return use(UnsafeBufferPointer(start: data, count: out.size))
}
