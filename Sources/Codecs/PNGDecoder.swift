import CPNG
import CShim
import Raster

/// One libpng read of a byte buffer; the C decoder is freed with this object.
final class PNGDecoding {
    private let d: UnsafeMutablePointer<pb_png_decoder>
    private let name: String
    /// The encoded file's size (how much memory it can plausibly fill; see `prefault`).
    private let sourceBytes: Int
    private var header = pb_png_header()
    private(set) var info = ImageInfo(
        format: .png, width: 0, height: 0, orientation: 1, colorDescription: "", bitDepth: 8, hasAlpha: false,
        isGray: false, isInterlaced: false)
    /// The palette as gray levels, when every entry is gray.
    private var grayPalette: [UInt8]?
    /// The file libpng reads, when not reading memory.
    private var file: SourceFile?

    /// `data` must outlive this object (libpng reads from it in place).
    init(_ data: UnsafeBufferPointer<UInt8>, name: String, strict: Bool) throws(CodecError) {
        guard let d = pb_png_decoder_new(strict ? 1 : 0) else {
            throw .corrupt(name: name, format: .png, reason: "out of memory")
        }
        self.d = d
        self.name = name
        sourceBytes = data.count
        try check(pb_png_read_header(d, data.baseAddress, data.count, &header))
        if !strict {
            // Every IDAT byte is already guarded by its chunk's CRC-32, which libpng checks; the
            // zlib stream's Adler-32 on top of it would only catch an encoder that wrote a wrong
            // checksum over right data, at some 5 % of a decode. Strict decoding keeps it.
            _ = png_set_option(d.pointee.png, PNG_IGNORE_ADLER32, PNG_OPTION_ON)
        }
        readInfo()
    }

    /// Reads the open file in pieces (see ``SourceFile``), kept open as long as this object.
    init(file: SourceFile, strict: Bool) throws(CodecError) {
        guard let d = pb_png_decoder_new(strict ? 1 : 0) else {
            throw .corrupt(name: file.path, format: .png, reason: "out of memory")
        }
        self.d = d
        self.name = file.path
        self.file = file
        sourceBytes = file.size
        try check(pb_png_read_header_fd(d, file.fd, file.size, &header))
        if !strict { _ = png_set_option(d.pointee.png, PNG_IGNORE_ADLER32, PNG_OPTION_ON) }  // as above
        readInfo()
    }

    deinit { pb_png_decoder_free(d) }

    private func check(_ status: Int32) throws(CodecError) {
        guard status != pbOK else { return }
        throw codecError(status: status, trap: UnsafePointer(d.pointer(to: \.trap)!), name: name, format: .png) {
            .corrupt(name: name, format: .png, reason: "out of memory")
        }
    }

    private func readInfo() {
        let h = header
        info.width = Int(h.width)
        info.height = Int(h.height)
        info.bitDepth = Int(h.bit_depth)
        info.isInterlaced = h.interlaced != 0
        let type = h.color_type
        let trns = h.has_trns != 0
        info.hasAlpha = trns || type == PNG_COLOR_TYPE_GRAY_ALPHA || type == PNG_COLOR_TYPE_RGB_ALPHA
        var kind: String
        switch type {
        case PNG_COLOR_TYPE_GRAY: kind = "gray"
        case PNG_COLOR_TYPE_GRAY_ALPHA: kind = "gray+alpha"
        case PNG_COLOR_TYPE_PALETTE: kind = "palette"
        case PNG_COLOR_TYPE_RGB: kind = "RGB"
        default: kind = "RGBA"
        }
        if trns { kind += "+tRNS" }
        info.colorDescription = "\(kind) \(h.bit_depth)-bit"
        if type == PNG_COLOR_TYPE_PALETTE {
            let count = Int(h.num_palette)
            let gray: [UInt8]? = withUnsafeBytes(of: header.palette) { p in
                var levels = [UInt8](repeating: 0, count: 256)  // indices past the palette: black, as libpng
                for i in 0..<count {
                    guard p[3 * i] == p[3 * i + 1], p[3 * i] == p[3 * i + 2] else { return nil }
                    levels[i] = p[3 * i]
                }
                return levels
            }
            grayPalette = gray
        }
        info.isGray = type == PNG_COLOR_TYPE_GRAY || type == PNG_COLOR_TYPE_GRAY_ALPHA || grayPalette != nil
        if let exif = h.exif, h.exif_length > 0,
            let o = Exif.orientation(tiff: UnsafeBufferPointer(start: exif, count: Int(h.exif_length)))
        {
            info.orientation = o
        }
    }

    private func checkLimits(_ limits: DecodeLimits) throws(CodecError) {
        guard limits.allows(width: info.width, height: info.height) else {
            throw .tooLarge(name: name, width: info.width, height: info.height, limits: limits)
        }
    }

    /// Reads every pass into a new bitmap of `mode`'s layout, then the chunks after the image.
    private func readImage<P: PixelFormat>(mode: Int32) throws(CodecError) -> Bitmap<P> {
        try check(pb_png_start(d, mode, Int32(MemoryLayout<P>.stride)))
        var status: Int32 = pbOK
        let bitmap = Bitmap<P>(width: info.width, height: info.height) { p in
            prefault(UnsafeMutableRawBufferPointer(p), sourceBytes: sourceBytes)
            status = pb_png_read_image(d, p.bytes, info.width * MemoryLayout<P>.stride)
        }
        try check(status)
        try check(pb_png_finish(d))
        return bitmap
    }

    func decodeRGBA(options: DecodeOptions) throws(CodecError) -> Bitmap<RGBA8> {
        try checkLimits(options.limits)
        let bitmap: Bitmap<RGBA8> = try readImage(mode: Int32(PB_PNG_RGBA))
        return options.applyOrientation ? bitmap.applyingOrientation(info.orientation) : bitmap
    }

    /// RGBA rows top to bottom, `stripRows` at a time through one small reused buffer, so the
    /// caller can consume the image without it ever being held whole. Non-interlaced files only.
    func decodeRowsRGBA(
        options: DecodeOptions, stripRows: Int, _ body: (UnsafeBufferPointer<RGBA8>, Int, Int) -> Void
    ) throws(CodecError) {
        try checkLimits(options.limits)
        try check(pb_png_start(d, Int32(PB_PNG_RGBA), 4))
        let w = info.width, h = info.height
        let rows = Swift.max(1, Swift.min(stripRows, h))
        let strip = UnsafeMutableBufferPointer<RGBA8>.allocate(capacity: w * rows)
        defer { strip.deallocate() }
        var y = 0
        while y < h {
            let n = Swift.min(rows, h - y)
            try check(pb_png_read_rows(d, strip.bytes, w * 4, UInt32(n)))
            body(UnsafeBufferPointer(strip), y, n)
            y += n
        }
        try check(pb_png_finish(d))
    }

    func decodeGray(options: DecodeOptions) throws(CodecError) -> Bitmap<UInt8> {
        try checkLimits(options.limits)
        let type = header.color_type
        let bitmap: Bitmap<UInt8>
        if type == PNG_COLOR_TYPE_GRAY && header.has_trns == 0 {
            bitmap = try readImage(mode: Int32(PB_PNG_GRAY))
        } else if let levels = grayPalette, header.has_trns == 0 {
            var indices: Bitmap<UInt8> = try readImage(mode: Int32(PB_PNG_INDEX))
            levels.withUnsafeBufferPointer { lut in
                indices.pixels.withUnsafeMutableBufferPointer { p in
                    for i in p.indices { p[i] = lut[Int(p[i])] }
                }
            }
            bitmap = indices
        } else if !info.isInterlaced {
            bitmap = try readGrayInStrips()
        } else {
            // Adam7 fills each row in seven passes, so the whole colour image must be held.
            bitmap = PixelConversion.grayOverWhite(try readImage(mode: Int32(PB_PNG_RGBA)) as Bitmap<RGBA8>)
        }
        return options.applyOrientation ? bitmap.applyingOrientation(info.orientation) : bitmap
    }

    /// Colour → gray a strip of rows at a time, so only the gray image is held in full.
    private func readGrayInStrips() throws(CodecError) -> Bitmap<UInt8> {
        try check(pb_png_start(d, Int32(PB_PNG_RGBA), 4))
        let w = info.width, h = info.height
        let stripRows = Swift.max(1, Swift.min(h, (1 << 20) / Swift.max(1, w * 4)))
        var strip = [RGBA8](repeating: .clear, count: w * stripRows)
        var status: Int32 = pbOK
        let bitmap = Bitmap<UInt8>(width: w, height: h) { gray in
            strip.withUnsafeMutableBufferPointer { s in
                var y = 0
                while y < h && status == pbOK {
                    let n = Swift.min(stripRows, h - y)
                    status = pb_png_read_rows(d, s.bytes, w * 4, UInt32(n))
                    if status != pbOK { break }
                    PixelConversion.grayOverWhite(
                        UnsafeBufferPointer(s), into: UnsafeMutableBufferPointer(rebasing: gray[y * w..<(y + n) * w]))
                    y += n
                }
            }
        }
        try check(status)
        try check(pb_png_finish(d))
        return bitmap
    }
}
