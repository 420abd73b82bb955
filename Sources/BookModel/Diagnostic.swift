public import FileIO

/// One problem found in a manifest, located by JSON path (and by line and column when the book
/// was read from a file).
public struct Diagnostic: Hashable, Sendable, CustomStringConvertible {
    public enum Severity: String, Hashable, Sendable, Comparable {
        /// The book cannot be used as it is.
        case error
        /// Probably a mistake, but the book works.
        case warning

        public static func < (a: Severity, b: Severity) -> Bool { a == .error && b == .warning }
    }

    public var severity: Severity
    public var path: JSONPath
    public var message: String
    public var location: SourceLocation?

    public init(_ severity: Severity, _ path: JSONPath, _ message: String, location: SourceLocation? = nil) {
        self.severity = severity
        self.path = path
        self.message = message
        self.location = location
    }

    public static func error(_ path: JSONPath, _ message: String) -> Diagnostic { Diagnostic(.error, path, message) }
    public static func warning(_ path: JSONPath, _ message: String) -> Diagnostic { Diagnostic(.warning, path, message) }

    public var isError: Bool { severity == .error }

    /// `pages[3].textBoxes[1].rect: message`, or just the message for the document itself.
    public var description: String { path.isRoot ? message : "\(path): \(message)" }

    /// `FILE:LINE:COL: error: PATH: MESSAGE`, the form compilers use, so editors can jump to it.
    public func formatted(file: String) -> String {
        var s = file
        if let location { s += ":\(location.line):\(location.column)" }
        s += ": \(severity.rawValue): "
        return s + description
    }
}

extension [Diagnostic] {
    public var errors: [Diagnostic] { filter { $0.severity == .error } }
    public var warnings: [Diagnostic] { filter { $0.severity == .warning } }
    public var hasErrors: Bool { contains { $0.severity == .error } }
}

/// Everything that can go wrong loading, saving or creating a book. Each message names the file.
public enum BookError: Error, CustomStringConvertible, Equatable, Sendable {
    /// The folder or manifest does not exist, or the folder holds no book.json.
    case notFound(path: String, reason: String)
    /// The manifest (or an image) exists but could not be read or written.
    case file(FileError)
    /// The manifest is not well-formed JSON.
    case malformedJSON(file: String, error: JSONSyntaxError)
    /// The manifest is JSON but not a valid book; `diagnostics` holds every problem found,
    /// warnings included, in file order.
    case invalid(file: String, diagnostics: [Diagnostic])
    /// A folder meant to become a book holds no PNG, JPEG, TIFF or JPEG 2000 scans.
    case noImages(directory: String)
    /// A scan's pixel size could not be read.
    case unreadableImage(path: String)

    public var description: String {
        switch self {
        case .notFound(let path, let reason): return "\(path): \(reason)"
        case .file(let e): return e.description
        case .malformedJSON(let file, let e):
            var s = "\(file):\(e.location.line):\(e.location.column): "
            if let p = e.path, !p.isRoot { s += "\(p): " }
            return s + e.message
        case .invalid(let file, let diagnostics):
            let errors = diagnostics.errors
            var lines = ["\(file): not a valid book (\(plural(errors.count, "error")))"]
            for d in errors.prefix(20) { lines.append("  " + d.formatted(file: file)) }
            if errors.count > 20 { lines.append("  … and \(errors.count - 20) more") }
            return lines.joined(separator: "\n")
        case .noImages(let dir): return "\(dir): no PNG, JPEG, TIFF or JPEG 2000 images found"
        case .unreadableImage(let path): return "\(path): cannot read the image's size"
        }
    }

    /// Every problem as diagnostics, for reports that list them one per line: syntax errors
    /// become one located error.
    public var diagnostics: [Diagnostic] {
        switch self {
        case .invalid(_, let d): return d
        case .malformedJSON(_, let e): return [Diagnostic(.error, e.path ?? .root, e.message, location: e.location)]
        default: return [Diagnostic(.error, .root, description)]
        }
    }
}

func plural(_ n: Int, _ noun: String) -> String { "\(n) \(noun)\(n == 1 ? "" : "s")" }
