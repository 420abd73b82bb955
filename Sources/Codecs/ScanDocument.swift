import CScanShim
public import FileIO
public import Raster

/// Where a page's pixels came from.
public enum ScanPageSource: Sendable, Hashable, CustomStringConvertible {
    /// A PNG, JPEG, TIFF page or JPEG 2000 image, decoded as stored.
    case image
    /// A PDF page that is a single image, taken at that image's own resolution.
    case embeddedImage
    /// A PDF page that is not a single image, rendered at `dpi`.
    case rendered(dpi: Double)

    public var description: String {
        switch self {
        case .image: return "image"
        case .embeddedImage: return "embedded image"
        case .rendered(let dpi): return "rendered at \(Int(dpi.rounded())) dpi"
        }
    }
}

/// A file of scans read one page at a time: a multi-page TIFF, a PDF of scans, or a single PNG,
/// JPEG, TIFF or JPEG 2000 image (one page). Only the page being decoded is in memory — TIFFs and
/// PDFs are read through their files, never whole — so importing a 300-page document costs one
/// page. Not thread-safe: decode its pages in order from one thread.
public final class ScanDocument {
    /// The file (or name) errors are reported against.
    public let name: String
    public let format: ImageFormat
    public let pageCount: Int

    private enum Backing {
        case single(path: String)
        case tiff(TIFFDecoding)
        case pdf(OpaquePointer)
    }
    private let backing: Backing
    /// The bytes a document opened from memory reads from (freed with it).
    private let owned: UnsafeMutableBufferPointer<UInt8>?

    /// Opens the document at `path`, telling its format by content.
    public init(file path: String, limits: DecodeLimits = .default) throws(CodecError) {
        name = path
        owned = nil
        let head: [UInt8]
        do { head = try FileIO.readPrefix(path, count: 16) } catch { throw .file(error) }
        guard let format = ImageFormat.sniff(head) else { throw .unknownFormat(name: path, signature: Array(head.prefix(8))) }
        self.format = format
        switch format {
        case .png, .jpeg, .jpeg2000:
            backing = .single(path: path)
            pageCount = 1
        case .tiff:
            let t = try TIFFDecoding(file: path, limits: limits)
            backing = .tiff(t)
            pageCount = try t.pageCount()
        case .pdf:
            var sizes = pbs_pdf_sizes()
            guard pbs_pdf_declared_sizes_file(path, &sizes) == Int32(PBS_OK) else {
                throw .file(.readFailed(path: path, reason: "read error"))
            }
            try Self.checkDeclared(sizes, name: path, limits: limits)
            let p = try Self.openPDF(name: path) { p in pbs_pdf_open_file(p, path) }
            backing = .pdf(p)
            pageCount = Int(pbs_pdf_page_count(p))
        }
        guard pageCount > 0 else { throw .corrupt(name: path, format: format, reason: "no pages") }
    }

    /// Opens a TIFF or PDF held in memory (the fuzz harnesses' way in); the bytes are copied.
    public init(bytes: [UInt8], name: String, limits: DecodeLimits = .default) throws(CodecError) {
        self.name = name
        guard let format = ImageFormat.sniff(bytes), format == .tiff || format == .pdf else {
            throw .unsupported(name: name, reason: "documents in memory are TIFF or PDF")
        }
        self.format = format
        let copy = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: max(1, bytes.count))
        _ = copy.initialize(from: bytes)
        owned = copy
        let data = UnsafeBufferPointer(rebasing: copy[0..<bytes.count])
        do {
            if format == .tiff {
                let t = try TIFFDecoding(data, name: name, limits: limits)
                backing = .tiff(t)
                pageCount = try t.pageCount()
            } else {
                var sizes = pbs_pdf_sizes()
                pbs_pdf_declared_sizes_memory(data.baseAddress, data.count, &sizes)
                try Self.checkDeclared(sizes, name: name, limits: limits)
                let p = try Self.openPDF(name: name) { p in pbs_pdf_open_memory(p, data.baseAddress, data.count) }
                backing = .pdf(p)
                pageCount = Int(pbs_pdf_page_count(p))
            }
        } catch {
            copy.deallocate()
            throw error
        }
        guard pageCount > 0 else { throw .corrupt(name: name, format: format, reason: "no pages") }
    }

    /// Refuses a PDF whose image dictionaries declare a size past the limits, before Poppler
    /// decodes (and spends a minute on) a 60000×60000 image from a few bytes.
    private static func checkDeclared(_ sizes: pbs_pdf_sizes, name: String, limits: DecodeLimits) throws(CodecError) {
        let w = Int(clamping: sizes.max_width), h = Int(clamping: sizes.max_height)
        let dimension = limits.maxDimension
        if w > dimension || h > dimension || sizes.max_pixels > UInt64(limits.maxPixels) {
            throw .tooLarge(name: name, width: max(w, 1), height: max(h, 1), limits: limits)
        }
    }

    private static func openPDF(name: String, _ open: (OpaquePointer) -> Int32) throws(CodecError) -> OpaquePointer {
        guard let p = pbs_pdf_new() else { throw .corrupt(name: name, format: .pdf, reason: "out of memory") }
        let status = open(p)
        guard status == Int32(PBS_OK) else {
            let message = String(cString: pbs_pdf_message(p))
            pbs_pdf_free(p)
            throw scanError(status, message: message, name: name, format: .pdf) { .corrupt(name: name, format: .pdf, reason: message) }
        }
        return p
    }

    deinit {
        if case .pdf(let p) = backing { pbs_pdf_free(p) }
        owned?.deallocate()
    }

    /// "scans.pdf page 3" for a document of several pages, the file's name for one.
    public func pageName(_ index: Int) -> String { pageCount > 1 ? "\(name) page \(index + 1)" : name }

    /// Decodes page `index` (0-based) as straight RGBA. A PDF page that is not a single image is
    /// rendered at `renderDPI`; either way its size is checked against `options.limits` (before
    /// rendering; after Poppler decodes an embedded image, which it does before it says its size).
    public func page(_ index: Int, options: DecodeOptions = .init(), renderDPI: Double = 300) throws(CodecError)
        -> (bitmap: Bitmap<RGBA8>, source: ScanPageSource)
    {
        guard index >= 0, index < pageCount else {
            throw .corrupt(name: name, format: format, reason: "no page \(index + 1) (it has \(pageCount))")
        }
        switch backing {
        case .single(let path):
            return (try ImageDecoder.decode(file: path, options: options), .image)
        case .tiff(let t):
            try t.select(index)
            return (try t.decodeRGBA(options: options), .image)
        case .pdf(let p):
            return try pdfPage(p, index: index, options: options, dpi: renderDPI)
        }
    }

    private func pdfPage(_ p: OpaquePointer, index: Int, options: DecodeOptions, dpi: Double) throws(CodecError)
        -> (bitmap: Bitmap<RGBA8>, source: ScanPageSource)
    {
        let pageName = pageName(index)
        func check(_ status: Int32) throws(CodecError) {
            guard status != Int32(PBS_OK) else { return }
            let message = String(cString: pbs_pdf_message(p))
            throw scanError(status, message: message, name: pageName, format: .pdf) {
                .corrupt(name: pageName, format: .pdf, reason: message)
            }
        }
        var facts = pbs_pdf_page()
        try check(pbs_pdf_select(p, Int32(index), &facts))
        var w: UInt32 = 0, h: UInt32 = 0
        let source: ScanPageSource
        if facts.single_image != 0 {
            try check(pbs_pdf_take_image(p, &w, &h))
            source = .embeddedImage
        } else {
            let width = (facts.width_pt * dpi / 72).rounded(), height = (facts.height_pt * dpi / 72).rounded()
            guard width >= 1, height >= 1, width <= Double(options.limits.maxDimension), height <= Double(options.limits.maxDimension),
                options.limits.allows(width: Int(width), height: Int(height))
            else {
                throw .tooLarge(name: pageName, width: Int(min(width, 1e9)), height: Int(min(height, 1e9)), limits: options.limits)
            }
            w = UInt32(width)
            h = UInt32(height)
            try check(pbs_pdf_render(p, w, h))
            source = .rendered(dpi: dpi)
        }
        guard options.limits.allows(width: Int(w), height: Int(h)), w > 0, h > 0 else {
            throw .tooLarge(name: pageName, width: Int(w), height: Int(h), limits: options.limits)
        }
        var status = Int32(PBS_OK)
        let bitmap = Bitmap<RGBA8>(width: Int(w), height: Int(h)) { px in
            status = pbs_pdf_copy_rgba(p, px.bytes, Int(w) * 4)
        }
        try check(status)
        return (bitmap, source)
    }
}
