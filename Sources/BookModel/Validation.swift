// Checks on a Book value: everything a manifest can get wrong that its JSON types cannot show.
// Runs on books built in code as well as loaded ones, so the analysis stage can check what it is
// about to save.

import FileIO
import Geometry

extension Book {
    /// Every problem with the book, errors and warnings. (`Book.load` reports the same checks,
    /// sorted by their position in the file.)
    ///
    /// - Parameters:
    ///   - baseDirectory: the book folder; when given, each page's image must exist there.
    ///   - imageSize: reads a scan's pixel size (it is passed the image's full path); when given,
    ///     each page's width and height must match its image. Nil skips that check, so this
    ///     module needs no image codecs.
    public func validate(baseDirectory: String? = nil, imageSize: ((String) -> (Int, Int)?)? = nil) -> [Diagnostic] {
        var v = Validator(book: self, skip: [], baseDirectory: baseDirectory, imageSize: imageSize)
        v.run()
        return v.diagnostics
    }

    func validate(skipping poisoned: Set<JSONPath>, baseDirectory: String?, imageSize: ((String) -> (Int, Int)?)?) -> [Diagnostic] {
        var v = Validator(book: self, skip: poisoned, baseDirectory: baseDirectory, imageSize: imageSize)
        v.run()
        return v.diagnostics
    }
}

struct Validator {
    let book: Book
    let skip: Set<JSONPath>
    let baseDirectory: String?
    let imageSize: ((String) -> (Int, Int)?)?
    var diagnostics: [Diagnostic] = []
    var listings: [String: [String]?] = [:]
    /// Canonical spellings of the book's valid languages, for matching text keys against.
    let bookLanguages: Set<String>
    /// Tag verdicts, since the same few tags recur on every text box.
    var verdicts: [String: LanguageTag.Verdict] = [:]

    init(book: Book, skip: Set<JSONPath>, baseDirectory: String?, imageSize: ((String) -> (Int, Int)?)?) {
        self.book = book
        self.skip = skip
        self.baseDirectory = baseDirectory
        self.imageSize = imageSize
        bookLanguages = Set(book.languages.compactMap { LanguageTag.canonical($0) })
    }

    /// A check on `path` is skipped when the decoder already reported it (or the value holding it).
    func ok(_ path: JSONPath) -> Bool {
        if skip.isEmpty { return true }
        var p: JSONPath? = path
        while let q = p {
            if skip.contains(q) { return false }
            p = q.parent
        }
        return true
    }

    mutating func error(_ path: JSONPath, _ message: String) { diagnostics.append(.error(path, message)) }
    mutating func warning(_ path: JSONPath, _ message: String) { diagnostics.append(.warning(path, message)) }

    mutating func run() {
        let root = JSONPath.root
        checkLocalized(book.title, at: root / "title", emptyIsWarning: true)
        for (key, value) in [("subtitle", book.subtitle), ("author", book.author), ("illustrator", book.illustrator),
                             ("translator", book.translator), ("publisher", book.publisher)] {
            if let value { checkLocalized(value, at: root / key, emptyIsWarning: false) }
        }
        if let year = book.year, ok(root / "year"), year < 1 || year > 9999 {
            error(root / "year", "expected a year like 1904, found \(year)")
        }
        checkLanguages()
        if book.pages.isEmpty, ok(root / "pages") {
            error(root / "pages", "a book needs at least one page")
        }
        var firstPageForImage: [String: Int] = [:]
        for (i, page) in book.pages.enumerated() {
            checkPage(page, index: i, firstPageForImage: &firstPageForImage)
        }
        checkSpreads()
        checkUnusedImages(firstPageForImage)
        checkGlossary()
    }

    /// Scans in the folders the pages use that no page names: usually a page left out by mistake.
    mutating func checkUnusedImages(_ used: [String: Int]) {
        guard let base = baseDirectory, ok(JSONPath.root / "pages"), !book.pages.isEmpty else { return }
        var folders: Set<String> = []
        for image in used.keys {
            let parts = image.split(separator: "/")
            folders.insert(parts.dropLast().joined(separator: "/"))
        }
        // A name differing only in case is already reported with the missing image it matches.
        let usedLowercased = Set(used.keys.map { $0.lowercased() })
        var unused: [String] = []
        for folder in folders.sorted() {
            let dir = folder.isEmpty ? base : BookDirectory.join(base, folder)
            guard let names = try? BookDirectory.imageFiles(in: dir) else { continue }
            for name in names {
                let relative = folder.isEmpty ? name : folder + "/" + name
                if used[relative] == nil, !usedLowercased.contains(relative.lowercased()) { unused.append(relative) }
            }
        }
        guard !unused.isEmpty else { return }
        let shown = unused.prefix(5).joined(separator: ", ") + (unused.count > 5 ? " and \(unused.count - 5) more" : "")
        warning(
            JSONPath.root / "pages",
            "\(plural(unused.count, "image")) in the book folder \(unused.count == 1 ? "is" : "are") not used by any page: \(shown)")
    }

    // MARK: languages

    mutating func checkLanguages() {
        let path = JSONPath.root / "languages"
        guard ok(path) else { return }
        if book.languages.isEmpty {
            error(path, "list at least one language, e.g. [\"en\"]")
            return
        }
        var first: [String: Int] = [:]
        for (i, tag) in book.languages.enumerated() {
            let p = path / i
            guard ok(p) else { continue }
            guard checkTag(tag, at: p) else { continue }
            let key = LanguageTag.canonical(tag) ?? tag
            if let j = first[key] {
                error(p, "\(quote(tag)) is listed twice (first at languages[\(j)])")
            } else {
                first[key] = i
            }
        }
    }

    /// Reports an invalid or oddly spelled tag; true when the tag is usable.
    @discardableResult
    mutating func checkTag(_ tag: String, at path: JSONPath) -> Bool {
        let verdict: LanguageTag.Verdict
        if let v = verdicts[tag] {
            verdict = v
        } else {
            verdict = LanguageTag.check(tag)
            verdicts[tag] = verdict
        }
        switch verdict {
        case .valid: return true
        case .nonCanonical(let c):
            warning(path, "language tag \(quote(tag)) is conventionally written \(quote(c))")
            return true
        case .invalid(let reason):
            error(path, "unknown language: \(reason)")
            return false
        }
    }

    /// Checks a language used for text (a key of "text", "title", …, or a box's "language"):
    /// valid, and one of the book's languages.
    mutating func checkTextLanguage(_ tag: String, at path: JSONPath, what: String) {
        guard checkTag(tag, at: path), ok(JSONPath.root / "languages") else { return }
        let known = bookLanguages
        guard !known.isEmpty else { return }
        let canonical: String? = switch verdicts[tag] {
        case .nonCanonical(let c): c
        case .valid: tag
        default: nil
        }
        if let c = canonical, !known.contains(c) {
            warning(path, "\(what) \(quote(tag)) is not one of the book's languages \(book.languages.map(quote).joined(separator: ", "))")
        }
    }

    mutating func checkLocalized(_ text: LocalizedText, at path: JSONPath, emptyIsWarning: Bool) {
        guard ok(path) else { return }
        switch text {
        case .plain(let s):
            if emptyIsWarning, s.trimmingSpaces.isEmpty { warning(path, "the title is empty") }
        case .localized(let map):
            if emptyIsWarning, map.entries.allSatisfy({ $0.text.trimmingSpaces.isEmpty }) { warning(path, "the title is empty") }
            for e in map {
                checkTextLanguage(e.language, at: path / e.language, what: "language")
            }
        }
    }

    // MARK: pages

    mutating func checkPage(_ page: Page, index i: Int, firstPageForImage: inout [String: Int]) {
        let path = JSONPath.root / "pages" / i
        guard ok(path) else { return }
        var sizeKnown = true
        for (key, value) in [("width", page.width), ("height", page.height)] {
            guard ok(path / key) else {
                sizeKnown = false
                continue
            }
            if value <= 0 {
                error(path / key, "expected a positive integer, found \(value)")
                sizeKnown = false
            } else if value > Book.maximumPageSide {
                error(path / key, "\(value) pixels is larger than the \(Book.maximumPageSide)-pixel limit")
                sizeKnown = false
            }
        }
        checkImage(page, at: path / "image", sizeKnown: sizeKnown, firstPageForImage: &firstPageForImage, index: i)
        if let role = page.role, !role.isKnown, ok(path / "role") {
            warning(path / "role", "unknown page role \(quote(role.rawValue)), kept as is; known roles: \(PageRole.known.map(\.rawValue).joined(separator: ", "))")
        }
        if let label = page.label, label.trimmingSpaces.isEmpty, ok(path / "label") {
            warning(path / "label", "the label is empty; leave \"label\" out when the page has no printed number")
        }

        var firstBoxForID: [String: Int] = [:]
        var firstBoxForOrder: [Int: Int] = [:]
        for (j, box) in page.textBoxes.enumerated() {
            let bp = path / "textBoxes" / j
            guard ok(bp) else { continue }
            if ok(bp / "id") {
                if box.id.trimmingSpaces.isEmpty {
                    error(bp / "id", "the id must not be empty")
                } else if !TextBox.isSafeID(box.id) {
                    error(bp / "id", "the id \(quote(box.id)) may use only letters A–Z a–z, digits, '-', '_' and '.' (not first), at most \(TextBox.maximumIDLength) characters: it names files")
                } else if let k = firstBoxForID[box.id] {
                    error(bp / "id", "duplicate id \(quote(box.id)) (first used by pages[\(i)].textBoxes[\(k)])")
                } else {
                    firstBoxForID[box.id] = j
                }
            }
            checkRect(box.rect, at: bp / "rect", page: page, pageSizeKnown: sizeKnown)
            for e in box.text {
                checkTextLanguage(e.language, at: bp / "text" / e.language, what: "text language")
            }
            checkTextSources(box, at: bp / "textSources")
            if let lang = box.language, ok(bp / "language") {
                checkTextLanguage(lang, at: bp / "language", what: "printed language")
            }
            if let role = box.role, !role.isKnown, ok(bp / "role") {
                warning(bp / "role", "unknown text role \(quote(role.rawValue)), kept as is; known roles: \(TextRole.known.map(\.rawValue).joined(separator: ", "))")
            }
            if let c = box.confidence, ok(bp / "confidence"), !(c >= 0 && c <= 1) {
                error(bp / "confidence", "expected a number from 0 to 1, found \(c.isFinite ? JSONNumber(c).literal : "\(c)")")
            }
            if let order = box.order, ok(bp / "order") {
                if order < 0 {
                    error(bp / "order", "expected a non-negative integer, found \(order)")
                } else if let k = firstBoxForOrder[order] {
                    warning(bp / "order", "order \(order) is also used by pages[\(i)].textBoxes[\(k)]; reading order is ambiguous")
                } else {
                    firstBoxForOrder[order] = j
                }
            }
        }
    }

    /// Each record names a language the box has text in, a known writer, and a confidence in 0…1.
    mutating func checkTextSources(_ box: TextBox, at path: JSONPath) {
        for e in box.textSources where ok(path / e.language) {
            let p = path / e.language
            if box.text[e.language] == nil {
                warning(p, "there is no text in \(quote(e.language)) for this record to describe; remove it or add the text")
            }
            if !e.origin.source.isKnown, ok(p / "source") {
                warning(p / "source", "unknown text source \(quote(e.origin.source.rawValue)), kept as is and treated as a person's; known sources: \(TextSourceKind.known.map(\.rawValue).joined(separator: ", "))")
            }
            if let c = e.origin.confidence, ok(p / "confidence"), !(c >= 0 && c <= 1) {
                error(p / "confidence", "expected a number from 0 to 1, found \(c.isFinite ? JSONNumber(c).literal : "\(c)")")
            }
        }
    }

    mutating func checkRect(_ r: PixelRect, at path: JSONPath, page: Page, pageSizeKnown: Bool) {
        guard ok(path) else { return }
        var sizeOK = true
        for (key, value) in [("width", r.width), ("height", r.height)] where ok(path / key) {
            if value <= 0 {
                error(path / key, "expected a positive integer, found \(value)")
                sizeOK = false
            }
        }
        guard sizeOK, pageSizeKnown, ok(path / "x"), ok(path / "y"), ok(path / "width"), ok(path / "height") else { return }
        let (maxX, o1) = r.x.addingReportingOverflow(r.width)
        let (maxY, o2) = r.y.addingReportingOverflow(r.height)
        if r.x < 0 || r.y < 0 || o1 || o2 || maxX > page.width || maxY > page.height {
            error(path, "rect \(r.x),\(r.y) \(r.width)×\(r.height) extends outside the \(page.width)×\(page.height) page")
        }
    }

    mutating func checkImage(_ page: Page, at path: JSONPath, sizeKnown: Bool, firstPageForImage: inout [String: Int], index: Int) {
        guard ok(path) else { return }
        let image = page.image
        if image.trimmingSpaces.isEmpty {
            error(path, "the image path is empty")
            return
        }
        if image.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            error(path, "the image path contains a control character (NUL, newline …); file names cannot")
            return
        }
        if image.hasPrefix("/") || (image.count >= 2 && image.dropFirst().first == ":") {
            error(path, "\(quote(image)) is an absolute path; give the path relative to the book folder, like \"images/p1.jpg\"")
            return
        }
        if image.contains("\\") {
            error(path, "\(quote(image)) contains '\\'; separate folders with '/'")
            return
        }
        let parts = image.split(separator: "/", omittingEmptySubsequences: false)
        if parts.contains("..") {
            error(path, "\(quote(image)) leaves the book folder; images must be inside it")
            return
        }
        if parts.contains(where: \.isEmpty) {
            error(path, "\(quote(image)) has an empty folder name (a doubled or trailing '/')")
            return
        }
        let ext = image.split(separator: ".").last.map { $0.lowercased() } ?? ""
        if !BookDirectory.imageExtensions.contains(ext) || !image.contains(".") {
            warning(path, "\(quote(image)) is not a .png, .jpg, .tif or .jp2 file; Picturebook reads PNG, JPEG, TIFF and JPEG 2000 scans")
        }
        if let k = firstPageForImage[image] {
            warning(path, "pages[\(k)] uses the same image \(quote(image))")
        } else {
            firstPageForImage[image] = index
        }
        guard let base = baseDirectory else { return }
        let full = BookDirectory.join(base, image)
        if !FileIO.exists(full) {
            var message = "file \(image) not found"
            if let alternative = caseInsensitiveMatch(base: base, image: image) {
                message += "; there is \(alternative) (names are case-sensitive)"
            }
            error(path, message)
            return
        }
        if FileIO.isDirectory(full) {
            error(path, "\(image) is a folder, not an image file")
            return
        }
        guard let imageSize, sizeKnown else { return }
        guard let (w, h) = imageSize(full) else {
            error(path, "cannot read \(image) as a PNG, JPEG, TIFF or JPEG 2000 image")
            return
        }
        if w != page.width || h != page.height {
            var message = "\(image) is \(w)×\(h) pixels, but the page says \(page.width)×\(page.height)"
            if w == page.height && h == page.width { message += " (rotated?)" }
            error(path, message)
        }
    }

    /// "P3.JPG" when "p3.jpg" was asked for and only differs in case.
    mutating func caseInsensitiveMatch(base: String, image: String) -> String? {
        let parts = image.split(separator: "/").map(String.init)
        guard let name = parts.last else { return nil }
        let dir = parts.count > 1 ? BookDirectory.join(base, parts.dropLast().joined(separator: "/")) : base
        if listings[dir] == nil { listings[dir] = .some(try? DirectoryListing.names(in: dir)) }
        guard let names = listings[dir] ?? nil else { return nil }
        let lower = name.lowercased()
        guard let match = names.first(where: { $0.lowercased() == lower }) else { return nil }
        return (parts.dropLast() + [match]).joined(separator: "/")
    }

    // MARK: spreads

    mutating func checkSpreads() {
        let path = JSONPath.root / "spreads"
        guard ok(path) else { return }
        let n = book.pages.count
        var spreadForPage: [Int: Int] = [:]
        for (s, spread) in book.spreads.enumerated() {
            let sp = path / s
            guard ok(sp) else { continue }
            var exists = true
            for (k, number) in [spread.first, spread.second].enumerated() where number < 1 || number > n {
                if number < 1 {
                    error(sp / k, "page numbers start at 1, found \(number)")
                } else {
                    error(sp / k, "page \(number) does not exist (the book has \(plural(n, "page")))")
                }
                exists = false
            }
            guard exists, ok(JSONPath.root / "pages") else { continue }
            if spread.second == spread.first - 1 {
                error(sp, "list the pages in reading order: [\(spread.second), \(spread.first)]")
                continue
            }
            if spread.second != spread.first + 1 {
                error(sp, "pages \(spread.first) and \(spread.second) are not facing pages; a spread joins two consecutive pages, like [\(spread.first), \(spread.first + 1)]")
                continue
            }
            for number in [spread.first, spread.second] {
                if let other = spreadForPage[number] {
                    error(sp, "page \(number) is already in spreads[\(other)]")
                } else {
                    spreadForPage[number] = s
                }
                if book.pages[number - 1].single {
                    error(sp, "page \(number) is marked \"single\" and cannot be part of a spread")
                }
            }
            let a = book.pages[spread.first - 1], b = book.pages[spread.second - 1]
            if a.height > 0, b.height > 0 {
                let ratio = Double(max(a.height, b.height)) / Double(min(a.height, b.height))
                if ratio > 1.05 {
                    warning(sp, "facing pages differ in height (\(a.height) and \(b.height) pixels); the shared illustration will not line up")
                }
            }
        }
    }
}

func quote(_ s: String) -> String { String(decoding: JSONWriter.quoted(s), as: UTF8.self) }

extension String {
    var trimmingSpaces: Substring {
        var s = self[...]
        while let f = s.first, f.isWhitespace { s = s.dropFirst() }
        while let l = s.last, l.isWhitespace { s = s.dropLast() }
        return s
    }
}
