// Codecs: PNG and JPEG in and out; TIFF, JPEG 2000 and PDF scans in.
//
//   ImageDecoder   sniff → header (ImageInfo) → limits → decode into a Bitmap → EXIF orientation
//   ScanDocument   page by page through multi-page TIFFs and PDFs of scans (import)
//   PNGEncoder     libpng, fewest channels that hold the pixels, zlib level and filter knobs
//   JPEGEncoder    libjpeg-turbo, quality / progressive / chroma subsampling
//
// libpng and libjpeg run behind CShim's setjmp traps (Sources/CShim/shim.c), libtiff, OpenJPEG
// and Poppler behind CScanShim's handlers (Sources/CScanShim): every library error comes back as a
// status and a message, which become a CodecError naming the file here.

import FileIO
public import Raster

/// Decodes PNG, JPEG, TIFF (the first page) and JPEG 2000 images, telling them apart by content.
///
/// Every failure is a ``CodecError`` naming the file; libpng and libjpeg never print anything.
/// Sizes are checked against ``DecodeLimits`` before pixel memory is allocated.
public enum ImageDecoder {
    /// The header facts (size, colour type, orientation, ...) without decoding pixels.
    public static func info(_ bytes: [UInt8], name: String) throws(CodecError) -> ImageInfo {
        try bytes.withUnsafeBufferPointer { (data) throws(CodecError) -> ImageInfo in
            switch try format(of: data, name: name) {
            case .png: return try PNGDecoding(data, name: name, strict: false).info
            case .jpeg: return try JPEGDecoding(data, name: name, strict: false).info
            case .tiff: return try TIFFDecoding(data, name: name, limits: .default).info
            case .jpeg2000: return try JP2Decoding(data, name: name, limits: .default).info
            case .pdf: throw pdfIsNotAnImage(name)
            }
        }
    }

    /// The image as straight-alpha RGBA, upright unless `options.applyOrientation` is off.
    public static func decode(_ bytes: [UInt8], name: String, options: DecodeOptions = .init()) throws(CodecError)
        -> Bitmap<RGBA8>
    {
        try bytes.withUnsafeBufferPointer { (data) throws(CodecError) -> Bitmap<RGBA8> in
            switch try format(of: data, name: name) {
            case .png: return try PNGDecoding(data, name: name, strict: options.strict).decodeRGBA(options: options)
            case .jpeg: return try JPEGDecoding(data, name: name, strict: options.strict).decodeRGBA(options: options)
            case .tiff: return try TIFFDecoding(data, name: name, limits: options.limits).decodeRGBA(options: options)
            case .jpeg2000: return try JP2Decoding(data, name: name, limits: options.limits).decodeRGBA(options: options)
            case .pdf: throw pdfIsNotAnImage(name)
            }
        }
    }

    /// The image as 8-bit gray, for analysis: Rec. 601 luma (the Y of JPEG's YCbCr), with any
    /// transparency composited over white. Gray PNGs, gray-palette PNGs and grayscale or YCbCr
    /// JPEGs are decoded straight to gray, never through RGBA.
    public static func decodeGray(_ bytes: [UInt8], name: String, options: DecodeOptions = .init()) throws(CodecError)
        -> Bitmap<UInt8>
    {
        try bytes.withUnsafeBufferPointer { (data) throws(CodecError) -> Bitmap<UInt8> in
            switch try format(of: data, name: name) {
            case .png: return try PNGDecoding(data, name: name, strict: options.strict).decodeGray(options: options)
            case .jpeg: return try JPEGDecoding(data, name: name, strict: options.strict).decodeGray(options: options)
            case .tiff: return try TIFFDecoding(data, name: name, limits: options.limits).decodeGray(options: options)
            case .jpeg2000: return try JP2Decoding(data, name: name, limits: options.limits).decodeGray(options: options)
            case .pdf: throw pdfIsNotAnImage(name)
            }
        }
    }

    /// Whether ``decodeRows(_:name:options:stripRows:_:)`` can deliver this image: a
    /// non-interlaced PNG whose stored rows are its displayed rows (no EXIF rotation to apply).
    public static func canDecodeRows(_ info: ImageInfo, options: DecodeOptions = .init()) -> Bool {
        info.format == .png && !info.isInterlaced && (info.orientation == 1 || !options.applyOrientation)
    }

    /// Decodes the image as straight-alpha RGBA a strip of rows at a time, top to bottom:
    /// `body(rows, firstRow, count)` gets `count` consecutive rows of `info.width` pixels, valid
    /// only during the call. For consumers that never need the whole image at once (streaming
    /// resampling): no full-size buffer is allocated. Throws ``CodecError/unsupported(name:reason:)``
    /// for images ``canDecodeRows(_:options:)`` rejects; on a decoding error some rows may
    /// already have been delivered.
    @discardableResult
    public static func decodeRows(
        _ bytes: [UInt8], name: String, options: DecodeOptions = .init(), stripRows: Int = 16,
        _ body: (_ rows: UnsafeBufferPointer<RGBA8>, _ firstRow: Int, _ count: Int) -> Void
    ) throws(CodecError) -> ImageInfo {
        try bytes.withUnsafeBufferPointer { (data) throws(CodecError) -> ImageInfo in
            guard try format(of: data, name: name) == .png else {
                throw .unsupported(name: name, reason: "row-by-row decoding reads PNG only")
            }
            let png = try PNGDecoding(data, name: name, strict: options.strict)
            guard canDecodeRows(png.info, options: options) else {
                throw .unsupported(name: name, reason: "row-by-row decoding needs a non-interlaced, unrotated PNG")
            }
            try png.decodeRowsRGBA(options: options, stripRows: stripRows, body)
            return png.info
        }
    }

    // The file entry points read PNG and JPEG in pieces through a descriptor (SourceFile), so
    // the encoded file is never held beside the decoded image; the verdicts and messages are those
    // of decoding the same bytes from memory. TIFF is read by libtiff over the file, JPEG 2000 by
    // OpenJPEG through a stream over pread; a PDF is refused from its first bytes (it was read
    // whole only to be told it is not an image).

    /// ``info(_:name:)`` of the file at `path`.
    public static func info(file path: String) throws(CodecError) -> ImageInfo {
        let file = try SourceFile(path)
        switch try format(of: file) {
        case .png: return try PNGDecoding(file: file, strict: false).info
        case .jpeg: return try JPEGDecoding(file: file, strict: false).info
        case .tiff: return try TIFFDecoding(file: path, limits: .default).info
        case .jpeg2000: return try JP2Decoding(file: file, limits: .default).info
        case .pdf: throw pdfIsNotAnImage(path)
        }
    }

    /// ``decode(_:name:options:)`` of the file at `path`.
    public static func decode(file path: String, options: DecodeOptions = .init()) throws(CodecError) -> Bitmap<RGBA8> {
        let file = try SourceFile(path)
        switch try format(of: file) {
        case .png: return try PNGDecoding(file: file, strict: options.strict).decodeRGBA(options: options)
        case .jpeg: return try JPEGDecoding(file: file, strict: options.strict).decodeRGBA(options: options)
        case .tiff: return try TIFFDecoding(file: path, limits: options.limits).decodeRGBA(options: options)
        case .jpeg2000: return try JP2Decoding(file: file, limits: options.limits).decodeRGBA(options: options)
        case .pdf: throw pdfIsNotAnImage(path)
        }
    }

    /// ``decodeRows(_:name:options:stripRows:_:)`` of the file at `path`, read in pieces: neither
    /// the encoded file nor the decoded image is ever held whole.
    @discardableResult
    public static func decodeRows(
        file path: String, options: DecodeOptions = .init(), stripRows: Int = 16,
        _ body: (_ rows: UnsafeBufferPointer<RGBA8>, _ firstRow: Int, _ count: Int) -> Void
    ) throws(CodecError) -> ImageInfo {
        let file = try SourceFile(path)
        guard try format(of: file) == .png else {
            throw .unsupported(name: path, reason: "row-by-row decoding reads PNG only")
        }
        let png = try PNGDecoding(file: file, strict: options.strict)
        guard canDecodeRows(png.info, options: options) else {
            throw .unsupported(name: path, reason: "row-by-row decoding needs a non-interlaced, unrotated PNG")
        }
        try png.decodeRowsRGBA(options: options, stripRows: stripRows, body)
        return png.info
    }

    /// ``decodeGray(_:name:options:)`` of the file at `path`.
    public static func decodeGray(file path: String, options: DecodeOptions = .init()) throws(CodecError) -> Bitmap<UInt8> {
        let file = try SourceFile(path)
        switch try format(of: file) {
        case .png: return try PNGDecoding(file: file, strict: options.strict).decodeGray(options: options)
        case .jpeg: return try JPEGDecoding(file: file, strict: options.strict).decodeGray(options: options)
        case .tiff: return try TIFFDecoding(file: path, limits: options.limits).decodeGray(options: options)
        case .jpeg2000: return try JP2Decoding(file: file, limits: options.limits).decodeGray(options: options)
        case .pdf: throw pdfIsNotAnImage(path)
        }
    }

    /// The format from the file's first 16 bytes, with the same errors as from memory.
    private static func format(of file: SourceFile) throws(CodecError) -> ImageFormat {
        let head = try file.prefix(16)
        return try head.withUnsafeBufferPointer { (data) throws(CodecError) -> ImageFormat in
            try format(of: data, name: file.path)
        }
    }

    /// A PDF holds pages, not an image: it becomes a book through `picturebook import`.
    private static func pdfIsNotAnImage(_ name: String) -> CodecError {
        .unsupported(name: name, reason: "a PDF is a document of pages, not one image; make a book of it with `picturebook import`")
    }

    private static func format(of data: UnsafeBufferPointer<UInt8>, name: String) throws(CodecError) -> ImageFormat {
        if let f = ImageFormat.sniff(data) { return f }
        let head = Array(data.prefix(16))
        if let other = ImageFormat.recognizeOther(head) {
            throw .unsupported(name: name, reason: "\(other) (Picturebook reads PNG, JPEG, TIFF and JPEG 2000)")
        }
        throw .unknownFormat(name: name, signature: Array(head.prefix(8)))
    }
}
