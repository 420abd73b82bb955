// The one error type of the generator stage.

/// What can stop the generator, each message naming the file or option at fault.
public enum GeneratorError: Error, CustomStringConvertible, Equatable {
    /// A text block could not be set (no font for its script, a bad size).
    case typesetting(language: String, reason: String)
    /// An option is out of range (`--size 10x10`, zero pages, ...).
    case invalidOption(name: String, reason: String)
    /// A story file cannot be read or does not describe a book.
    case story(path: String, reason: String)
    /// Writing an output failed.
    case output(path: String, reason: String)
    /// The illustrations folder (`generate --illustrations`) is missing, empty, or holds a file
    /// that is not an image.
    case illustrations(path: String, reason: String)

    public var description: String {
        switch self {
        case .typesetting(let l, let r): return "text in '\(l)': \(r)"
        case .invalidOption(let n, let r): return "\(n): \(r)"
        case .story(let p, let r): return "\(p): \(r)"
        case .output(let p, let r): return "\(p): \(r)"
        case .illustrations(let p, let r): return "illustrations \(p): \(r)"
        }
    }
}
