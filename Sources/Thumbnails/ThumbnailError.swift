/// Why a thumbnail run could not start or finish (failures of single pages and books are not
/// errors: they are reported in the summary and the run goes on).
public enum ThumbnailError: Error, CustomStringConvertible, Equatable, Sendable {
    case notFound(path: String)
    case noBooks(path: String)
    case invalidParameters([String])
    case output(path: String, reason: String)
    case mergeIncomplete(directory: String, reason: String)

    public var description: String {
        switch self {
        case .notFound(let p): return "\(p): no such file or folder"
        case .noBooks(let p): return "\(p): no books here (a book is a folder with book.json, or a folder of PNG/JPEG scans)"
        case .invalidParameters(let problems): return problems.joined(separator: "; ")
        case .output(let p, let r): return "\(p): cannot write: \(r)"
        case .mergeIncomplete(let d, let r): return "\(d): cannot merge: \(r)"
        }
    }
}
