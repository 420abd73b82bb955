// The one error type of the export and import stage. Each case names the file or book it is about
// and says in words what is wrong, so the CLI can print it as it stands.

/// What can go wrong turning a book into a standard format or reading one back.
public enum FormatError: Error, CustomStringConvertible, Equatable, Sendable {
    /// A page's scan is neither PNG nor JPEG by its content (EPUB and CBZ readers show only those).
    case unsupportedImage(file: String)
    /// A page's scan bytes were not supplied to a packaging export.
    case missingImage(page: Int, file: String)
    /// An XML document (ALTO, hOCR) could not be parsed.
    case malformedXML(file: String, line: Int, message: String)
    /// A document parsed but is not what the importer expects (wrong root, missing attribute, …).
    case unsupportedDocument(file: String, reason: String)
    /// A IIIF manifest could not be turned into a book.
    case badManifest(file: String, reason: String)
    /// An input that the zip writer cannot hold (over 4 GiB, more than 65 535 entries).
    case archiveTooLarge(reason: String)
    /// zlib refused to compress (out of memory).
    case compression(file: String, code: Int32)
    /// A folder given to import holds nothing to import.
    case nothingToImport(path: String, reason: String)

    public var description: String {
        switch self {
        case .unsupportedImage(let f):
            return "\(f): not a PNG or JPEG image; only those can go into an EPUB or a CBZ"
        case .missingImage(let n, let f):
            return "page \(n) (\(f)): its scan was not read"
        case .malformedXML(let f, let line, let m):
            return "\(f):\(line): malformed XML: \(m)"
        case .unsupportedDocument(let f, let r):
            return "\(f): \(r)"
        case .badManifest(let f, let r):
            return "\(f): not a IIIF manifest Picturebook can import: \(r)"
        case .archiveTooLarge(let r):
            return "archive too large: \(r)"
        case .compression(let f, let code):
            return "\(f): zlib could not compress it (error \(code))"
        case .nothingToImport(let p, let r):
            return "\(p): nothing to import: \(r)"
        }
    }
}
