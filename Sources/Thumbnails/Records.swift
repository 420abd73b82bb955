// What a run leaves beside its images, so the next run (or a `--merge` on another machine)
// knows what is already done: DIR/<book>/thumbs.json per book, DIR/shard-K-of-N.json per shard,
// DIR/library.json for the library grid.

import FileIO
import Foundation

/// A page that could not be turned into a thumbnail.
public struct ThumbnailFailure: Sendable, Hashable, Codable, CustomStringConvertible {
    /// The book's output name (its folder under the output directory).
    public var book: String
    /// The file that failed: a scan, or the book's manifest.
    public var file: String
    public var message: String

    public init(book: String, file: String, message: String) {
        self.book = book
        self.file = file
        self.message = message
    }

    public var description: String { message.hasPrefix(file) ? message : "\(file): \(message)" }
}

/// DIR/<book>/thumbs.json.
struct BookRecord: Codable, Sendable, Equatable {
    static let formatName = "picturebook-thumbs/1"
    static let fileName = "thumbs.json"

    struct PageEntry: Codable, Sendable, Equatable {
        /// The scan, relative to the book folder, as book.json names it.
        var image: String
        var size: Int64
        var modified: Int64
        /// FastHash of the scan's bytes, hex.
        var hash: String
        var thumb: String
        var thumb2x: String
        var width: Int
        var height: Int
        var ok: Bool
    }

    var format = formatName
    var source: String
    var title: String
    var parameters: String
    /// FastHash of book.json (or of the image list, for a folder of scans without one).
    var manifestHash: String
    var pages: [PageEntry]
    var overview: [String]
    var failures: [ThumbnailFailure]

    /// Every file the record vouches for, relative to the book's output folder.
    var outputs: [String] { pages.flatMap { [$0.thumb, $0.thumb2x] } + overview }

    /// The cover thumbnail the library grid shows: the first page's.
    var cover: String? { pages.first?.thumb }

    static func load(_ path: String) -> BookRecord? {
        guard let bytes = try? FileIO.read(path, limit: 64 << 20) else { return nil }
        guard let r = try? JSONDecoder().decode(BookRecord.self, from: Data(bytes)), r.format == formatName else { return nil }
        return r
    }

    func save(_ path: String) throws(FileError) {
        try AtomicFile.write(Records.encode(self), to: path)
    }
}

/// DIR/shard-K-of-N.json: the books one shard was given, with their place in the full list, so
/// `--merge` can put the library back in order without seeing the sources.
struct ShardRecord: Codable, Sendable, Equatable {
    static let formatName = "picturebook-thumbs-shard/1"
    struct Entry: Codable, Sendable, Equatable {
        var index: Int
        var key: String
        var source: String
    }
    var format = formatName
    var shard: Int
    var count: Int
    var books: [Entry]

    static func fileName(_ shard: Int, of count: Int) -> String { "shard-\(shard)-of-\(count).json" }
}

/// DIR/library.json: which book records the library sheets were drawn from.
struct LibraryRecord: Codable, Sendable, Equatable {
    static let formatName = "picturebook-thumbs-library/1"
    static let fileName = "library.json"
    struct Entry: Codable, Sendable, Equatable {
        var key: String
        var title: String
        /// FastHash of the book's thumbs.json when the sheet was drawn.
        var record: String
    }
    var format = formatName
    var parameters: String
    var books: [Entry]
    var sheets: [String]
}

enum Records {
    static func encode(_ value: some Encodable) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // Encoding plain structs of strings and integers cannot fail.
        return (try? Array(encoder.encode(value))) ?? Array("{}".utf8)
    }

    static func decode<T: Decodable>(_ type: T.Type, at path: String) -> T? {
        guard let bytes = try? FileIO.read(path, limit: 256 << 20) else { return nil }
        return try? JSONDecoder().decode(type, from: Data(bytes))
    }
}
