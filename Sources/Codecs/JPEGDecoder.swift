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
    /// The same bytes, for the band decoder of large progressive files to read again.
    private let bytes: JPEGBytes

    /// `data` must outlive this object (the decoder reads from it in place).
    init(_ data: UnsafeBufferPointer<UInt8>, name: String, strict: Bool) throws(CodecError) {
        guard let d = pb_jpeg_decoder_new(strict ? 1 : 0) else {
            throw .corrupt(name: name, format: .jpeg, reason: "out of memory")
        }
        self.d = d
        self.name = name
        sourceBytes = data.count
        bytes = .memory(data)
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
        bytes = .file(fd: file.fd, size: file.size)
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

    /// The pixels in `space`: a large progressive file a band at a time, anything else by
    /// libjpeg in one pass.
    private func decodePixels<P: PixelFormat>(_ space: J_COLOR_SPACE, components: Int, options: DecodeOptions) throws(CodecError) -> Bitmap<P> {
        let (w, h) = try prepare(space, components: components, options: options)
        if let banded: Bitmap<P> = decodeInBands(space, components: components, width: w, height: h, options: options) {
            return banded
        }
        return try readPixels(width: w, height: h, limits: options.limits)
    }

    func decodeRGBA(options: DecodeOptions) throws(CodecError) -> Bitmap<RGBA8> {
        // CMYK has four 8-bit channels too: decode it into the same buffer, convert in place.
        var bitmap: Bitmap<RGBA8> = try decodePixels(isCMYK ? JCS_CMYK : JCS_EXT_RGBA, components: 4, options: options)
        if isCMYK { PixelConversion.cmykToRGBA(&bitmap, inverted: isAdobeInverted) }
        return options.applyOrientation ? bitmap.applyingOrientation(info.orientation) : bitmap
    }

    func decodeGray(options: DecodeOptions) throws(CodecError) -> Bitmap<UInt8> {
        if isCMYK {  // libjpeg has no CMYK → gray; go through RGB
            return PixelConversion.grayOverWhite(try decodeRGBA(options: options))
        }
        // For YCbCr this is just the Y plane: chroma is never inverse-transformed.
        let bitmap: Bitmap<UInt8> = try decodePixels(JCS_GRAYSCALE, components: 1, options: options)
        return options.applyOrientation ? bitmap.applyingOrientation(info.orientation) : bitmap
    }

    // MARK: - Large progressive files, a band at a time

    /// What libjpeg would hold for every DCT coefficient of the frame its header declares (2 bytes
    /// each; ITU-T T.81 A.1.1 for the components' sizes).
    var declaredCoefficientBytes: Int {
        let c = d.pointee.cinfo
        guard let comps = c.comp_info, c.num_components > 0 else { return 0 }
        let n = Int(c.num_components)
        let hmax = (0..<n).map { Int(comps[$0].h_samp_factor) }.max() ?? 1
        let vmax = (0..<n).map { Int(comps[$0].v_samp_factor) }.max() ?? 1
        guard hmax > 0, vmax > 0 else { return 0 }
        let w = Int(c.image_width), h = Int(c.image_height)
        return (0..<n).reduce(0) { total, i in
            let wide = (w * Int(comps[i].h_samp_factor) + hmax - 1) / hmax, high = (h * Int(comps[i].v_samp_factor) + vmax - 1) / vmax
            return total + ((wide + 7) / 8) * ((high + 7) / 8) * 128
        }
    }

    /// Coefficient bytes one band holds (its blocks, and as much again in libjpeg while the band
    /// is written), unless `DecodeOptions.progressiveBandBytes` says otherwise.
    static let bandBytes = 4 << 20
    /// Bands the last decode was read in (0: libjpeg decoded it whole).
    private(set) var bandsDecoded = 0

    /// A progressive file whose coefficients would cost more than its decoded image allows,
    /// decoded a band of MCU rows at a time (ProgressiveBands.swift) into exactly the pixels
    /// libjpeg would give. Nil when the file is not one, or the band decoder declines it or finds
    /// it damaged: libjpeg then decodes it whole, and names what is wrong.
    private func decodeInBands<P: PixelFormat>(
        _ space: J_COLOR_SPACE, components: Int, width: Int, height: Int, options: DecodeOptions
    ) -> Bitmap<P>? {
        guard info.isInterlaced, info.bitDepth == 8 else { return nil }
        // Held whole, the coefficients come on top of the decoded image; past a tenth of it and
        // 16 MiB, the bands are worth their cost (every scan read again for each band). Judged
        // from the header before the file's scans are looked at.
        let decodedBytes = width * height * MemoryLayout<P>.stride
        let forced = options.progressiveBandBytes != nil
        guard forced || declaredCoefficientBytes > (16 << 20) + decodedBytes / 10,
            let layout = ProgressiveLayout.read(bytes), layout.width == info.width, layout.height == info.height
        else { return nil }
        let bandBudget = max(1, options.progressiveBandBytes ?? Self.bandBytes)
        let decoder = ProgressiveBandDecoder(layout: layout, src: bytes)
        let mcuPixels = 8 * layout.vmax
        let denominator = Int(options.jpegScale.rawValue)
        let bytesPerMCURow = layout.components.reduce(0) { $0 + $1.blocksWide * $1.v * 128 }
        let mcuRowsPerBand = max(1, bandBudget / bytesPerMCURow)
        // Bands of MCU rows k0..<k1 are decoded with one MCU row of context each side (for the
        // upsampling of the rows kept): rows b0..<b1.
        let kept = stride(from: 0, to: layout.mcusHigh, by: mcuRowsPerBand).map { k0 in (k0, min(k0 + mcuRowsPerBand, layout.mcusHigh)) }
        guard (try? decoder.index(bandStarts: kept.map { max(0, $0.0 - 1) })) != nil else { return nil }
        var failed = false
        let bitmap = Bitmap<P>(width: width, height: height) { out in
            for (n, (k0, k1)) in kept.enumerated() where !failed {
                let b0 = max(0, k0 - 1), b1 = min(layout.mcusHigh, k1 + 1)
                guard let band = try? decoder.decode(band: n, end: b1) else { failed = true; break }
                let bandHeight = min(layout.height, b1 * mcuPixels) - b0 * mcuPixels
                let first = k0 * mcuPixels / denominator
                let last = min(height, (min(layout.height, k1 * mcuPixels) + denominator - 1) / denominator)
                let skip = (k0 - b0) * mcuPixels / denominator
                let pointers: [UnsafePointer<Int16>?] = band.coefficients.map { UnsafePointer($0) }
                let result: Result<Void, CodecError> = runEncoder(format: .jpeg, name: name, { out, trap in
                    pointers.withUnsafeBufferPointer { pb_jpeg_band_encode(d, UInt32(bandHeight), $0.baseAddress, out, trap) }
                }) { encoded in
                    do throws(CodecError) {
                        let part = try JPEGDecoding(encoded, name: name, strict: true)
                        let (w, h) = try part.prepare(space, components: components, options: options)
                        guard w == width, h >= skip + last - first else {
                            return .failure(.corrupt(name: name, format: .jpeg, reason: "a band decoded to \(w)×\(h)"))
                        }
                        let pixels: Bitmap<P> = try part.readPixels(width: w, height: h, limits: options.limits)
                        pixels.pixels.withUnsafeBufferPointer { from in
                            (out.baseAddress! + first * width).update(from: from.baseAddress! + skip * width, count: (last - first) * width)
                        }
                        return .success(())
                    } catch { return .failure(error) }
                }
                if case .failure = result { failed = true }
                bandsDecoded += 1
            }
        }
        if failed { bandsDecoded = 0 }
        return failed ? nil : bitmap
    }
}
