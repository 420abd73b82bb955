// The errors of a library run as a whole; what goes wrong inside one book is that book's failure
// (reported in its result), never one of these.

public enum LibraryError: Error, CustomStringConvertible, Sendable {
    case notFound(path: String)
    case noBooks(path: String)
    case lock(path: String, reason: String)
    case record(path: String, reason: String)
    case unprepared(books: [String], stages: [String])
    case merge(reason: String)

    public var description: String {
        switch self {
        case .notFound(let p): return "\(p): no such library folder"
        case .noBooks(let p): return "\(p): no book folders in it (a book is a folder with book.json or with page scans)"
        case .lock(let p, let r): return "\(p): cannot take the book's lock: \(r)"
        case .record(let p, let r): return "\(p): cannot write the stage record: \(r)"
        case .unprepared(let books, let stages):
            let shown = books.prefix(20).joined(separator: ", ") + (books.count > 20 ? ", … (\(books.count) in all)" : "")
            return "\(books.count) book(s) not yet through \(stages.joined(separator: ",")): \(shown); run every shard to the end first"
        case .merge(let r): return "merge: \(r)"
        }
    }
}
