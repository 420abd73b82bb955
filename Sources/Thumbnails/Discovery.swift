// Turning command-line operands into the list of books, and splitting that list into shards.

import BookModel
import FileIO
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One book to process.
public struct BookSource: Sendable, Hashable, CustomStringConvertible {
    /// The book folder (holding book.json, or just scans).
    public var directory: String
    /// The output folder name under `--out`: the book folder's name, made unique with "-2",
    /// "-3", … in list order when two books share a name.
    public var key: String
    /// Position in the full list (0-based); shards and the library order follow it.
    public var index: Int

    public init(directory: String, key: String, index: Int) {
        self.directory = directory
        self.key = key
        self.index = index
    }

    public var description: String { directory }
}

/// `--shard K/N`: shard K (1-based) of N takes every book whose index is K−1 modulo N —
/// round-robin over the same sorted list on every machine, so the shards are disjoint, cover
/// everything, and stay within one book of each other in size.
public struct Shard: Sendable, Hashable, CustomStringConvertible {
    public var index: Int
    public var count: Int

    public init?(index: Int, count: Int) {
        guard count >= 1, (1...count).contains(index) else { return nil }
        self.index = index
        self.count = count
    }

    /// Parses "K/N".
    public init?(parsing text: String) {
        let parts = text.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, let k = Int(parts[0]), let n = Int(parts[1]) else { return nil }
        self.init(index: k, count: n)
    }

    public func contains(_ book: BookSource) -> Bool { book.index % count == index - 1 }

    public var description: String { "\(index)/\(count)" }
}

public enum BookDiscovery {
    /// The books named by `operands`, in order: a book folder (with book.json) is one book, a
    /// book.json file names its folder, and any other folder contributes the book folders inside
    /// it (searched recursively, natural order) — or, when there are none but it holds scans,
    /// is itself a book of those scans in natural order.
    public static func books(in operands: [String]) throws(ThumbnailError) -> [BookSource] {
        var dirs: [String] = []
        for operand in operands {
            let found = try expand(operand, depth: 0)
            if found.isEmpty { throw .noBooks(path: operand) }
            dirs += found
        }
        var seen = Set<String>(), taken = Set<String>()
        var out: [BookSource] = []
        for dir in dirs where seen.insert(dir).inserted {
            let base = sanitize(BookDirectory.lastComponentForThumbnails(dir))
            var key = base, n = 2
            while taken.contains(key) {
                key = "\(base)-\(n)"
                n += 1
            }
            taken.insert(key)
            out.append(BookSource(directory: dir, key: key, index: out.count))
        }
        return out
    }

    private static func expand(_ operand: String, depth: Int) throws(ThumbnailError) -> [String] {
        let path = operand.count > 1 && operand.hasSuffix("/") ? String(operand.dropLast()) : operand
        if !FileIO.isDirectory(path) {
            guard FileIO.exists(path) else { throw .notFound(path: path) }
            if path.hasSuffix(BookDirectory.manifestName) { return [BookDirectory.resolve(path).directory] }
            throw .noBooks(path: path)
        }
        if BookDirectory.containsBook(path) { return [path] }
        guard depth < 8 else { return [] }
        let names: [String]
        do { names = try ThumbnailsListing.subdirectories(of: path) } catch { throw .notFound(path: path) }
        var books: [String] = []
        for name in names {
            books += (try? expand(join(path, name), depth: depth + 1)) ?? []
        }
        if books.isEmpty, let images = try? BookDirectory.imageFiles(in: path), !images.isEmpty { return [path] }
        return books
    }

    static func join(_ a: String, _ b: String) -> String { a.hasSuffix("/") ? a + b : a + "/" + b }

    /// Output folder names stay plain: no separators, no leading dot.
    static func sanitize(_ name: String) -> String {
        var s = String(name.map { $0 == "/" || $0 == "\\" || $0 == ":" ? "_" : $0 })
        while s.hasPrefix(".") { s.removeFirst() }
        return s.isEmpty ? "book" : s
    }
}

extension BookDirectory {
    /// The folder's own name, looked up for "." and ".." so they name something.
    static func lastComponentForThumbnails(_ path: String) -> String {
        var p = path
        // Resolve only when the name says nothing: a symlinked book keeps the link's name.
        let last = path.split(separator: "/").last.map(String.init) ?? ""
        if last == "." || last == "..", let resolved = realpath(path, nil) {
            p = String(cString: resolved)
            free(resolved)
        }
        return p.split(separator: "/").last.map(String.init) ?? "book"
    }
}

enum ThumbnailsListing {
    struct Failed: Error {}

    /// Names of the regular files directly in `directory`, sorted.
    static func files(in directory: String) throws(Failed) -> [String] {
        guard let d = opendir(directory) else { throw Failed() }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            let path = BookDiscovery.join(directory, name)
            if !name.hasPrefix(".") && FileIO.exists(path) && !FileIO.isDirectory(path) { names.append(name) }
        }
        return names.sorted()
    }

    /// Names of the visible subfolders of `directory`, in natural order.
    static func subdirectories(of directory: String) throws(Failed) -> [String] {
        guard let d = opendir(directory) else { throw Failed() }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if !name.hasPrefix(".") && FileIO.isDirectory(BookDiscovery.join(directory, name)) { names.append(name) }
        }
        return names.sortedNaturally()
    }
}
