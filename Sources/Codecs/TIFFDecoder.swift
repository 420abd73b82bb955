import CScanShim
import Raster

/// Decodes a scan's libtiff status into a CodecError for `name`.
func scanError(_ status: Int32, message: String, name: String, format: ImageFormat, tooLarge: () -> CodecError) -> CodecError {
    let reason = message.isEmpty ? "unknown error" : message
    switch Int(status) {
    case Int(PBS_TRUNCATED): return .truncated(name: name, format: format, reason: reason)
    case Int(PBS_TOO_BIG): return tooLarge()
    case Int(PBS_UNSUPPORTED): return .unsupported(name: name, reason: "\(format.displayName): \(reason)")
    default: return .corrupt(name: name, format: format, reason: reason)
    }
}

/// One libtiff reader over a TIFF in memory or on disk; the C handle is freed with this object.
/// Pages are selected one at a time, so a 300-page file costs one page's pixels.
final class TIFFDecoding {
    /// More directories than this is not a book (and walking them costs time).
    static let maxPages = 10_000

    private let t: OpaquePointer
    private let name: String
    private let limits: DecodeLimits
    private(set) var page = pbs_tiff_page()

    /// Opens `data`, which must outlive this object, and selects its first page.
    init(_ data: UnsafeBufferPointer<UInt8>, name: String, limits: DecodeLimits) throws(CodecError) {
        (t, self.name, self.limits) = try Self.handle(name: name, limits: limits)
        try check(pbs_tiff_open_memory(t, data.baseAddress, data.count))
        try select(0)
    }

    /// Opens the file at `path`, read through as pages are decoded (never read whole).
    init(file path: String, limits: DecodeLimits) throws(CodecError) {
        (t, self.name, self.limits) = try Self.handle(name: path, limits: limits)
        try check(pbs_tiff_open_file(t, path))
        try select(0)
    }

    private static func handle(name: String, limits: DecodeLimits) throws(CodecError) -> (OpaquePointer, String, DecodeLimits) {
        // Strip and tile buffers: a single strip can be the whole image at 16 bits × 4 samples.
        let cap = limits.maxPixels.multipliedReportingOverflow(by: 8)
        guard let t = pbs_tiff_new(cap.overflow ? Int.max : cap.partialValue) else {
            throw .corrupt(name: name, format: .tiff, reason: "out of memory")
        }
        return (t, name, limits)
    }

    deinit { pbs_tiff_free(t) }

    private func check(_ status: Int32) throws(CodecError) {
        guard status != Int32(PBS_OK) else { return }
        throw scanError(status, message: String(cString: pbs_tiff_message(t)), name: name, format: .tiff) {
            .corrupt(name: name, format: .tiff, reason: "libtiff was refused memory: \(String(cString: pbs_tiff_message(t)))")
        }
    }

    /// The number of pages (image file directories).
    func pageCount() throws(CodecError) -> Int {
        var n: Int32 = 0
        try check(pbs_tiff_page_count(t, Int32(Self.maxPages), &n))
        return Int(n)
    }

    /// Makes page `index` current.
    func select(_ index: Int) throws(CodecError) {
        var p = pbs_tiff_page()
        try check(pbs_tiff_select(t, Int32(clamping: index), &p))
        page = p
    }

    /// The current page's header facts.
    var info: ImageInfo {
        let p = page
        let color: String
        switch p.photometric {
        case 0, 1: color = "gray"
        case 2: color = "RGB"
        case 3: color = "palette"
        case 5: color = "CMYK"
        case 6: color = "YCbCr"
        default: color = "photometric \(p.photometric)"
        }
        let compression: String
        switch p.compression {
        case 1: compression = "uncompressed"
        case 3: compression = "CCITT G3"
        case 4: compression = "CCITT G4"
        case 5: compression = "LZW"
        case 6, 7: compression = "JPEG"
        case 8, 32946: compression = "Deflate"
        case 32773: compression = "PackBits"
        default: compression = "compression \(p.compression)"
        }
        return ImageInfo(
            format: .tiff, width: Int(p.width), height: Int(p.height), orientation: Int(p.orientation),
            colorDescription: "\(color)\(p.has_alpha != 0 ? "+alpha" : "") \(p.bits_per_sample)-bit, \(compression)",
            bitDepth: Int(p.bits_per_sample), hasAlpha: p.has_alpha != 0, isGray: p.is_gray != 0, isInterlaced: false)
    }

    /// The current page as straight RGBA, limits checked before the pixels are allocated.
    func decodeRGBA(options: DecodeOptions) throws(CodecError) -> Bitmap<RGBA8> {
        let w = Int(page.width), h = Int(page.height)
        guard options.limits.allows(width: w, height: h), w > 0, h > 0 else {
            if w <= 0 || h <= 0 { throw .corrupt(name: name, format: .tiff, reason: "the page is \(w)×\(h)") }
            throw .tooLarge(name: name, width: w, height: h, limits: options.limits)
        }
        var status = Int32(PBS_OK)
        let bitmap = Bitmap<RGBA8>(width: w, height: h) { p in
            status = pbs_tiff_read_rgba(t, p.bytes)
        }
        try check(status)
        return options.applyOrientation ? bitmap.applyingOrientation(Int(page.orientation)) : bitmap
    }

    func decodeGray(options: DecodeOptions) throws(CodecError) -> Bitmap<UInt8> {
        PixelConversion.grayOverWhite(try decodeRGBA(options: options))
    }
}

/// One OpenJPEG decode of a JP2 file or J2K codestream in memory.
final class JP2Decoding {
    private let j: OpaquePointer
    private let name: String
    private var header = pbs_jp2_info()

    /// Reads the main header of `data`, which must outlive this object. What the SIZ marker
    /// declares is judged first, from the bytes, because OpenJPEG's own header reading already
    /// allocates by it (found by fuzzing: a 73-byte codestream of 60,076 tiles cost 624 MB).
    init(_ data: UnsafeBufferPointer<UInt8>, name: String, limits: DecodeLimits) throws(CodecError) {
        var declared = pbs_jp2_declared()
        if pbs_jp2_declared_size(data.baseAddress, data.count, &declared) == Int32(PBS_OK) {
            try Self.judge(declared, name: name, limits: limits)
        }
        guard let j = pbs_jp2_new() else { throw .corrupt(name: name, format: .jpeg2000, reason: "out of memory") }
        self.j = j
        self.name = name
        try check(pbs_jp2_read_header(j, data.baseAddress, data.count, &header))
    }

    /// The file, when reading one: kept open as long as OpenJPEG may read it.
    private var file: SourceFile?

    /// Reads the main header of the open file in pieces (OpenJPEG's stream over pread), judging
    /// what its SIZ marker declares first, as ``init(_:name:limits:)`` does from memory.
    init(file: SourceFile, limits: DecodeLimits) throws(CodecError) {
        var declared = pbs_jp2_declared()
        if pbs_jp2_declared_size_fd(file.fd, file.size, &declared) == Int32(PBS_OK) {
            try Self.judge(declared, name: file.path, limits: limits)
        }
        guard let j = pbs_jp2_new() else { throw .corrupt(name: file.path, format: .jpeg2000, reason: "out of memory") }
        self.j = j
        self.name = file.path
        self.file = file
        try check(pbs_jp2_read_header_fd(j, file.fd, file.size, &header))
    }

    /// OpenJPEG keeps about 10 KB for every tile and 1 KB for every tile-component while it reads
    /// the main header (measured with OpenJPEG 2.5: 6,000 one-component tiles cost 57 MB). That
    /// bookkeeping may cost as much as the decoded image itself, or 16 MiB for a small one, and no
    /// more: ordinary tilings (one tile, or 1024- down to 128-pixel tiles) stay far below it.
    static let headerBytesPerTile = 10 * 1024
    static let headerBytesPerTileComponent = 1024
    static let headerFloor = 16 << 20

    static func judge(_ d: pbs_jp2_declared, name: String, limits: DecodeLimits) throws(CodecError) {
        let w = Int(d.width), h = Int(d.height)
        guard limits.allows(width: w, height: h) else {
            throw .tooLarge(name: name, width: w, height: h, limits: limits)
        }
        let tiles = Int(d.tiles), components = Int(d.components)
        let bookkeeping = tiles * (headerBytesPerTile + components * headerBytesPerTileComponent)
        if bookkeeping > max(4 * w * h, headerFloor) {
            throw .unsupported(
                name: name,
                reason: "JPEG 2000: a \(w)×\(h) image cut into \(tiles) tile\(tiles == 1 ? "" : "s") of \(components) component\(components == 1 ? "" : "s"); "
                    + "reading its header alone would take about \(bookkeeping >> 20) MB")
        }
        // Picturebook reads at most four components (gray or colour, and alpha); OpenJPEG decodes
        // them all, so more samples than four full-size channels would cost more than any image
        // of this size should.
        if d.samples > UInt64(4 * w * h) {
            throw .unsupported(
                name: name, reason: "JPEG 2000: \(components) components, more samples than four full-size channels")
        }
    }

    deinit { pbs_jp2_free(j) }

    private func check(_ status: Int32) throws(CodecError) {
        guard status != Int32(PBS_OK) else { return }
        throw scanError(status, message: String(cString: pbs_jp2_message(j)), name: name, format: .jpeg2000) {
            .corrupt(name: name, format: .jpeg2000, reason: String(cString: pbs_jp2_message(j)))
        }
    }

    var info: ImageInfo {
        let h = header
        let color = h.is_gray != 0 ? "gray" : h.components >= 3 ? "RGB" : "gray+alpha"
        return ImageInfo(
            format: .jpeg2000, width: Int(h.width), height: Int(h.height), orientation: 1,
            colorDescription: "\(color)\(h.has_alpha != 0 && h.components != 2 ? "+alpha" : "") \(h.precision)-bit\(h.is_codestream != 0 ? ", J2K codestream" : "")",
            bitDepth: Int(h.precision), hasAlpha: h.has_alpha != 0, isGray: h.is_gray != 0, isInterlaced: false)
    }

    /// Decodes the whole image, a band of rows at a time when it is large; the limits are checked
    /// before OpenJPEG allocates its components. One decode per instance.
    func decodeRGBA(options: DecodeOptions) throws(CodecError) -> Bitmap<RGBA8> {
        let w = Int(header.width), h = Int(header.height)
        guard options.limits.allows(width: w, height: h) else {
            throw .tooLarge(name: name, width: w, height: h, limits: options.limits)
        }
        var status = Int32(PBS_OK)
        let bitmap = Bitmap<RGBA8>(width: w, height: h) { p in
            status = pbs_jp2_decode_rgba(j, p.bytes, w * 4, UInt32(clamping: options.jpeg2000BandRows ?? 0))
        }
        try check(status)
        return bitmap
    }

    func decodeGray(options: DecodeOptions) throws(CodecError) -> Bitmap<UInt8> {
        PixelConversion.grayOverWhite(try decodeRGBA(options: options))
    }
}
