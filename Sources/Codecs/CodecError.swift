public import FileIO

/// Why an image could not be read, decoded or encoded. Every message starts with the file's name
/// ("page3.jpg: truncated JPEG: Premature end of JPEG file") so a batch run's log says which page
/// to look at.
public enum CodecError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The bytes are none of the formats Picturebook reads. `signature` is the first few bytes, for the message.
    case unknownFormat(name: String, signature: [UInt8])
    /// A format Picturebook recognises but does not decode (GIF, 12-bit JPEG, a PDF given as one image, ...).
    case unsupported(name: String, reason: String)
    /// The library rejected the data; `reason` is its message.
    case corrupt(name: String, format: ImageFormat, reason: String)
    /// The file ends before the image does.
    case truncated(name: String, format: ImageFormat, reason: String)
    /// The header declares an image larger than ``DecodeLimits`` allow; nothing was allocated.
    case tooLarge(name: String, width: Int, height: Int, limits: DecodeLimits)
    /// Reading the file failed (missing, unreadable, too big to read).
    case file(FileError)
    /// An encoder failed (out of memory, or an image it cannot represent).
    case encodeFailed(name: String, format: ImageFormat, reason: String)

    /// The file (or image) name the error is about.
    public var name: String {
        switch self {
        case .unknownFormat(let n, _), .unsupported(let n, _), .corrupt(let n, _, _), .truncated(let n, _, _),
            .tooLarge(let n, _, _, _), .encodeFailed(let n, _, _):
            return n
        case .file(let e): return e.path
        }
    }

    public var description: String {
        switch self {
        case .unknownFormat(let n, let sig):
            if sig.isEmpty { return "\(n): empty file, not a PNG, JPEG, TIFF or JPEG 2000 image" }
            let hex = sig.map { b in (b < 16 ? "0" : "") + String(b, radix: 16) }.joined(separator: " ")
            return "\(n): not a PNG, JPEG, TIFF or JPEG 2000 image (starts with \(hex))"
        case .unsupported(let n, let reason):
            return "\(n): unsupported image: \(reason)"
        case .corrupt(let n, let f, let reason):
            return "\(n): corrupt \(f.displayName): \(reason)"
        case .truncated(let n, let f, let reason):
            return "\(n): truncated \(f.displayName): \(reason)"
        case .tooLarge(let n, let w, let h, let l):
            return "\(n): image is \(w)×\(h), larger than the limit of \(l.maxDimension) pixels per side "
                + "and \(l.maxPixels) pixels in all"
        case .file(let e):
            return e.description
        case .encodeFailed(let n, let f, let reason):
            return "\(n): cannot encode \(f.displayName): \(reason)"
        }
    }
}

/// The formats Picturebook reads (all) and writes (PNG and JPEG).
public enum ImageFormat: String, Sendable, CaseIterable, Codable {
    case png
    case jpeg
    /// Baseline and extended TIFF, one page or many (libtiff).
    case tiff
    /// A JP2 file or a raw J2K codestream (OpenJPEG).
    case jpeg2000
    /// A PDF of scans: read page by page through ``ScanDocument`` only (Poppler), never as one image.
    case pdf

    /// "PNG", "JPEG", "TIFF", "JPEG 2000", "PDF", for messages.
    public var displayName: String { self == .jpeg2000 ? "JPEG 2000" : rawValue.uppercased() }

    /// PNG and JPEG: what browsers show and the encoders write. Other scans are converted to JPEG
    /// before they are served or packed into an export.
    public var isWebImage: Bool { self == .png || self == .jpeg }

    /// The format the bytes are in, judged by their signature only — never by a file name.
    public static func sniff(_ bytes: some Collection<UInt8>) -> ImageFormat? {
        var it = bytes.makeIterator()
        var head: [UInt8] = []
        while head.count < 8, let b = it.next() { head.append(b) }
        if head.starts(with: pngSignature) { return .png }
        // SOI followed by the first marker's 0xFF.
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        // Classic TIFF (42) and BigTIFF (43), either byte order.
        if head.starts(with: [0x49, 0x49, 0x2A, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2A])
            || head.starts(with: [0x49, 0x49, 0x2B, 0x00]) || head.starts(with: [0x4D, 0x4D, 0x00, 0x2B])
        {
            return .tiff
        }
        // The JP2 signature box starts "\0\0\0\x0CjP  "; a bare codestream starts SOC SIZ.
        if head.starts(with: [0x00, 0x00, 0x00, 0x0C, 0x6A, 0x50, 0x20, 0x20]) || head.starts(with: [0xFF, 0x4F, 0xFF, 0x51]) {
            return .jpeg2000
        }
        if head.starts(with: Array("%PDF-".utf8)) { return .pdf }
        return nil
    }

    package static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Names formats people commonly hand over by mistake, for a clearer "unsupported" message.
    static func recognizeOther(_ bytes: [UInt8]) -> String? {
        func has(_ sig: [UInt8], at offset: Int = 0) -> Bool {
            bytes.count >= offset + sig.count && Array(bytes[offset..<offset + sig.count]) == sig
        }
        if has(Array("GIF8".utf8)) { return "GIF" }
        if has(Array("RIFF".utf8)) && has(Array("WEBP".utf8), at: 8) { return "WebP" }
        if has(Array("BM".utf8)) && bytes.count > 14 { return "BMP" }
        if has(Array("ftyp".utf8), at: 4) { return "HEIF/AVIF" }
        return nil
    }
}
