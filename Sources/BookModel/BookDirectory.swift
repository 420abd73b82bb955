// A book on disk is a folder holding book.json and the page scans it names. This file loads,
// saves and creates such folders.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import FileIO

/// Paths and listings for book folders.
public enum BookDirectory {
    public static let manifestName = "book.json"
    /// Manifests larger than this are refused: a 1000-page book with every box filled is ~5 MB.
    public static let manifestSizeLimit = 64 << 20
    /// Extensions of the scans a folder can contribute, compared case-insensitively (Codecs tells
    /// the formats apart by content; the extension only picks which files are scans).
    public static let imageExtensions: Set<String> = ["jpg", "jpeg", "png", "tif", "tiff", "jp2", "j2k", "j2c"]

    /// `directory/book.json`.
    public static func manifestPath(in directory: String) -> String { join(directory, manifestName) }

    /// Where `picturebook analyze` keeps each page's ink mask and `picturebook clear` looks for it.
    public static func maskFolder(in directory: String) -> String { join(directory, "masks") }

    /// A page image's name without folders or extension ("scans/p12.jpg" → "p12"): the name every
    /// per-page output (masks, cleared pages, popouts) is given.
    public static func stem(of image: String) -> String {
        let name = lastComponent(of: image)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return name }
        return String(name[..<dot])
    }

    /// True when `directory` holds a book.json.
    public static func containsBook(_ directory: String) -> Bool {
        FileIO.exists(manifestPath(in: directory)) && !FileIO.isDirectory(manifestPath(in: directory))
    }

    /// The full path of a page's scan.
    public static func imagePath(of page: Page, in directory: String) -> String { join(directory, page.image) }

    /// Splits a command-line operand into (book folder, manifest path): a folder means its
    /// book.json, a file is taken as the manifest itself.
    public static func resolve(_ operand: String) -> (directory: String, manifest: String) {
        if FileIO.isDirectory(operand) { return (operand, manifestPath(in: operand)) }
        return (parent(of: operand), operand)
    }

    /// The scans (PNG, JPEG, TIFF, JPEG 2000) directly inside `directory`, in natural order. Hidden files
    /// (including macOS "._" resource forks) are skipped.
    public static func imageFiles(in directory: String) throws(BookError) -> [String] {
        try DirectoryListing.names(in: directory).filter { name in
            guard !name.hasPrefix("."), let dot = name.lastIndex(of: "."), dot != name.startIndex else { return false }
            return imageExtensions.contains(name[name.index(after: dot)...].lowercased())
                && !FileIO.isDirectory(join(directory, name))
        }.sortedNaturally()
    }

    static func join(_ directory: String, _ relative: String) -> String {
        if directory.isEmpty || directory == "." { return relative }
        return directory.hasSuffix("/") ? directory + relative : directory + "/" + relative
    }

    static func parent(of path: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "." }
        if slash == path.startIndex { return "/" }
        return String(path[..<slash])
    }

    static func lastComponent(of path: String) -> String {
        let trimmed = path.hasSuffix("/") && path.count > 1 ? String(path.dropLast()) : path
        return trimmed.split(separator: "/").last.map(String.init) ?? trimmed
    }
}

enum DirectoryListing {
    /// Entry names of a directory (without "." and ".."), unsorted.
    static func names(in directory: String) throws(BookError) -> [String] {
        guard FileIO.isDirectory(directory) else {
            if FileIO.exists(directory) { throw .notFound(path: directory, reason: "not a folder") }
            throw .notFound(path: directory, reason: "no such folder")
        }
        guard let d = opendir(directory) else {
            throw .file(.readFailed(path: directory, reason: String(cString: strerror(errno))))
        }
        defer { closedir(d) }
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }
}

extension Book {
    /// Reads and validates `directory/book.json`; page images are looked for in `directory`.
    /// Throws `.invalid` with every problem when there is any error; otherwise returns the book
    /// and its warnings.
    public static func load(
        directory: String, imageSize: ((String) -> (Int, Int)?)? = nil
    ) throws(BookError) -> (book: Book, warnings: [Diagnostic]) {
        guard FileIO.isDirectory(directory) else {
            throw .notFound(path: directory, reason: FileIO.exists(directory) ? "not a folder" : "no such folder")
        }
        let manifest = BookDirectory.manifestPath(in: directory)
        guard FileIO.exists(manifest) else {
            throw .notFound(path: directory, reason: "not a book folder: there is no \(BookDirectory.manifestName) in it")
        }
        return try load(file: manifest, imageSize: imageSize)
    }

    /// Reads and validates a manifest file; page images are looked for beside it.
    public static func load(
        file: String, imageSize: ((String) -> (Int, Int)?)? = nil
    ) throws(BookError) -> (book: Book, warnings: [Diagnostic]) {
        let bytes: [UInt8]
        do {
            bytes = try FileIO.read(file, limit: BookDirectory.manifestSizeLimit)
        } catch {
            if case .notFound(let p) = error { throw .notFound(path: p, reason: "no such file") }
            throw .file(error)
        }
        return try decode(bytes, file: file, baseDirectory: BookDirectory.parent(of: file), imageSize: imageSize)
    }

    /// Parses and validates manifest bytes. `file` names the manifest in messages;
    /// `baseDirectory`, when given, is where page images must exist.
    public static func decode(
        _ bytes: [UInt8], file: String = BookDirectory.manifestName, baseDirectory: String? = nil,
        imageSize: ((String) -> (Int, Int)?)? = nil
    ) throws(BookError) -> (book: Book, warnings: [Diagnostic]) {
        let root: JSONValue
        do {
            root = try JSONParser.parseValue(bytes)
        } catch {
            throw .malformedJSON(file: file, error: error)
        }
        var decoder = ManifestDecoder()
        let book = decoder.decodeBook(root)
        var diagnostics = decoder.diagnostics
        if !decoder.stop {
            diagnostics += book.validate(skipping: decoder.poisoned, baseDirectory: baseDirectory, imageSize: imageSize)
        }
        // Locations are found by a second parse, only when there is something to report.
        if !diagnostics.isEmpty {
            let parsed = JSONParser.locations(of: diagnostics.map(\.path), in: bytes)
            for k in diagnostics.indices { diagnostics[k].location = parsed.location(of: diagnostics[k].path) }
        }
        // File order reads best: top to bottom, as the librarian will fix them.
        diagnostics = diagnostics.enumerated().sorted { a, b in
            let la = a.element.location, lb = b.element.location
            if let la, let lb, la != lb { return (la.line, la.column) < (lb.line, lb.column) }
            return a.offset < b.offset
        }.map(\.element)
        if diagnostics.hasErrors { throw .invalid(file: file, diagnostics: diagnostics) }
        return (book, diagnostics)
    }

    /// Writes the manifest atomically (the old file stays intact until the new one is complete).
    public func save(to file: String) throws(BookError) {
        do {
            try AtomicFile.write(encoded(), to: file)
        } catch {
            throw .file(error)
        }
    }

    /// Writes `directory/book.json`.
    public func save(directory: String) throws(BookError) {
        try save(to: BookDirectory.manifestPath(in: directory))
    }

    /// A skeleton book for a folder of scans: one page per PNG/JPEG file in natural order, no
    /// text boxes yet. Files named like "cover" become single cover pages ("back-cover" goes
    /// last); everything else is left for the librarian or the analysis stage to fill in.
    ///
    /// - Parameters:
    ///   - imageSize: reads a scan's pixel size from its full path.
    ///   - title: defaults to the folder's name.
    ///   - skipping: when given, a scan whose size cannot be read is handed to it and left out,
    ///     so one bad file does not stop a whole folder (the caller names it and fails at the end);
    ///     without it the first such file is an error.
    public static func make(
        fromImagesIn directory: String, title: String? = nil, languages: [String],
        readingDirection: ReadingDirection = .leftToRight, imageSize: (String) -> (Int, Int)?,
        skipping: ((String) -> Void)? = nil
    ) throws(BookError) -> Book {
        var names = try BookDirectory.imageFiles(in: directory)
        guard !names.isEmpty else { throw .noImages(directory: directory) }
        func isBackCover(_ n: String) -> Bool {
            let l = n.lowercased()
            return l.contains("back-cover") || l.contains("back_cover") || l.contains("backcover")
        }
        names = names.filter { !isBackCover($0) } + names.filter(isBackCover)
        var pages: [Page] = []
        var firstSkipped: String?
        for name in names {
            let path = BookDirectory.join(directory, name)
            guard let (w, h) = imageSize(path), w > 0, h > 0 else {
                guard let skipping else { throw .unreadableImage(path: path) }
                skipping(path)
                firstSkipped = firstSkipped ?? path
                continue
            }
            var page = Page(image: name, width: w, height: h)
            if isBackCover(name) {
                page.role = .backCover
                page.single = true
            } else if name.lowercased().contains("cover") {
                page.role = .cover
                page.single = true
            }
            pages.append(page)
        }
        if pages.isEmpty, let firstSkipped { throw .unreadableImage(path: firstSkipped) }
        let bookTitle = title ?? BookDirectory.lastComponent(of: directory)
        return Book(title: .plain(bookTitle), languages: languages, readingDirection: readingDirection, pages: pages)
    }
}
