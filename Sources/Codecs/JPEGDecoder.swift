import CJPEG
import CShim
import Raster

/// One libjpeg decompression of a byte buffer; the C decoder is freed with this object.
final class JPEGDecoding {
    private let d: UnsafeMutablePointer<pb_jpeg_decoder>
    private let name: String
    /// The encoded file's size (how much memory it can plausibly fill; see `prefault`).
    private let sourceBytes: Int
    private(set) var info = ImageInfo(
        format: .jpeg, width: 0, height: 0, orientation: 1, colorDescription: "", bitDepth: 8, hasAlpha: false,
        isGray: false, isInterlaced: false)
    /// CMYK or YCCK: libjpeg delivers CMYK, converted to RGB here.
    private var isCMYK = false
    /// An Adobe APP14 marker was present: Adobe software stores CMYK inverted (255 = no ink).
    private var isAdobeInverted = false
    /// The file libjpeg reads, when not reading memory.
    private var file: SourceFile?

    /// `data` must outlive this object (the decoder reads from it in place).
    init(_ data: UnsafeBufferPointer<UInt8>, name: String, strict: Bool) throws(CodecError) {
        guard let d = pb_jpeg_decoder_new(strict ? 1 : 0) else {
            throw .corrupt(name: name, format: .jpeg, reason: "out of memory")
        }
        self.d = d
        self.name = name
        sourceBytes = data.count
        try check(pb_jpeg_read_header(d, data.baseAddress, data.count))
        readInfo()
    }

    /// Reads the open file in pieces (see ``SourceFile``), kept open as long as this object.
    init(file: SourceFile, strict: Bool) throws(CodecError) {
        guard let d = pb_jpeg_decoder_new(strict ? 1 : 0) else {
            throw .corrupt(name: file.path, format: .jpeg, reason: "out of memory")
        }
        self.d = d
        self.name = file.path
        self.file = file
        sourceBytes = file.size
        try check(pb_jpeg_read_header_fd(d, file.fd))
        readInfo()
    }

    deinit { pb_jpeg_decoder_free(d) }

    private func check(_ status: Int32, limits: DecodeLimits = .default) throws(CodecError) {
        guard status != pbOK else { return }
        throw codecError(status: status, trap: UnsafePointer(d.pointer(to: \.trap)!), name: name, format: .jpeg) {
            .tooLarge(name: name, width: info.width, height: info.height, limits: limits)
        }
    }

    private func readInfo() {
        let c = d.pointee.cinfo
        info.width = Int(c.image_width)
        info.height = Int(c.image_height)
        info.bitDepth = Int(c.data_precision)
        info.isInterlaced = c.progressive_mode != 0
        isAdobeInverted = c.saw_Adobe_marker != 0
        let space = c.jpeg_color_space
        isCMYK = space == JCS_CMYK || space == JCS_YCCK
        info.isGray = space == JCS_GRAYSCALE
        switch space {
        case JCS_GRAYSCALE: info.colorDescription = "gray"
        case JCS_YCbCr: info.colorDescription = "YCbCr" + subsampling(c)
        case JCS_RGB: info.colorDescription = "RGB"
        case JCS_CMYK: info.colorDescription = isAdobeInverted ? "CMYK (Adobe inverted)" : "CMYK"
        case JCS_YCCK: info.colorDescription = "YCCK (Adobe inverted)"
        default: info.colorDescription = "\(c.num_components) components"
        }
        var marker = c.marker_list
        while let m = marker {
            if m.pointee.marker == JPEG_APP0 + 1, let bytes = m.pointee.data,
                let o = Exif.orientation(app1: UnsafeBufferPointer(start: bytes, count: Int(m.pointee.data_length)))
            {
                info.orientation = o
                break
            }
            marker = m.pointee.next
        }
    }

    private func subsampling(_ c: jpeg_decompress_struct) -> String {
        guard c.num_components == 3, let comps = c.comp_info else { return "" }
        let h = Int(comps[0].h_samp_factor), v = Int(comps[0].v_samp_factor)
        guard comps[1].h_samp_factor == comps[2].h_samp_factor, comps[1].v_samp_factor == comps[2].v_samp_factor,
            comps[1].h_samp_factor > 0, comps[1].v_samp_factor > 0
        else { return "" }
        let rh = h / Int(comps[1].h_samp_factor), rv = v / Int(comps[1].v_samp_factor)
        switch (rh, rv) {
        case (1, 1): return " 4:4:4"
        case (2, 1): return " 4:2:2"
        case (2, 2): return " 4:2:0"
        case (1, 2): return " 4:4:0"
        case (4, 1): return " 4:1:1"
        default: return ""
        }
    }

    /// Sets up the output and checks its size against the limits; returns it.
    private func prepare(_ space: J_COLOR_SPACE, components: Int, options: DecodeOptions) throws(CodecError) -> (Int, Int) {
        try check(
            pb_jpeg_prepare(
                d, space, UInt32(options.jpegScale.rawValue), options.fastJPEG ? 1 : 0,
                options.limits.jpegWorkingMemory), limits: options.limits)
        let c = d.pointee.cinfo
        // The limits are on the image the file declares, whatever the scale it is read at: a
        // scaled read of a 65000² declaration still sets up buffers for the frame, and a file
        // that no full decode would accept is not a scan either way.
        let declaredWidth = Int(c.image_width), declaredHeight = Int(c.image_height)
        guard options.limits.allows(width: declaredWidth, height: declaredHeight) else {
            throw .tooLarge(name: name, width: declaredWidth, height: declaredHeight, limits: options.limits)
        }
        let w = Int(c.output_width), h = Int(c.output_height)
        guard options.limits.allows(width: w, height: h) else {
            throw .tooLarge(name: name, width: w, height: h, limits: options.limits)
        }
        guard Int(c.output_components) == components, w > 0, h > 0 else {
            throw .corrupt(name: name, format: .jpeg, reason: "unexpected output layout \(w)×\(h)×\(c.output_components)")
        }
        return (w, h)
    }

    /// Decodes into a freshly allocated bitmap, straight from libjpeg into its storage.
    private func readPixels<P: PixelFormat>(width: Int, height: Int, limits: DecodeLimits) throws(CodecError) -> Bitmap<P> {
        var status: Int32 = pbOK
        let bitmap = Bitmap<P>(width: width, height: height) { p in
            prefault(UnsafeMutableRawBufferPointer(p), sourceBytes: sourceBytes)
            status = pb_jpeg_read_image(d, p.bytes, width * MemoryLayout<P>.stride)
        }
        try check(status, limits: limits)
        return bitmap
    }

    func decodeRGBA(options: DecodeOptions) throws(CodecError) -> Bitmap<RGBA8> {
        // CMYK has four 8-bit channels too: decode it into the same buffer, convert in place.
        let (w, h) = try prepare(isCMYK ? JCS_CMYK : JCS_EXT_RGBA, components: 4, options: options)
        var bitmap: Bitmap<RGBA8> = try readPixels(width: w, height: h, limits: options.limits)
        if isCMYK { PixelConversion.cmykToRGBA(&bitmap, inverted: isAdobeInverted) }
        return options.applyOrientation ? bitmap.applyingOrientation(info.orientation) : bitmap
    }

    func decodeGray(options: DecodeOptions) throws(CodecError) -> Bitmap<UInt8> {
        if isCMYK {  // libjpeg has no CMYK → gray; go through RGB
            return PixelConversion.grayOverWhite(try decodeRGBA(options: options))
        }
        // For YCbCr this is just the Y plane: chroma is never inverse-transformed.
        let (w, h) = try prepare(JCS_GRAYSCALE, components: 1, options: options)
        let bitmap: Bitmap<UInt8> = try readPixels(width: w, height: h, limits: options.limits)
        return options.applyOrientation ? bitmap.applyingOrientation(info.orientation) : bitmap
    }
}
