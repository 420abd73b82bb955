// JSON → Book. The decoder checks what the model cannot hold (types, required fields, the format
// version, closed vocabularies) and keeps going after each problem, filling in a placeholder and
// marking its path "poisoned" so validation does not pile consequential errors on top of it
// (a page whose width is "abc" gets one error, not one per text box outside a 0-wide page).

import Geometry

struct ManifestDecoder {
    var diagnostics: [Diagnostic] = []
    var poisoned: Set<JSONPath> = []
    /// Set when the file is a newer major format: nothing else is worth saying about it.
    var stop = false

    static let bookKeys = [
        "format", "title", "subtitle", "author", "illustrator", "translator", "publisher", "year", "source", "license",
        "languages", "readingDirection", "spreads", "pages", "glossary",
    ]
    static let pageKeys = ["image", "width", "height", "label", "role", "single", "textBoxes"]
    static let boxKeys = [
        "id", "role", "rect", "text", "textSources", "language", "order", "orientation", "polarity", "inkColor", "backgroundColor",
        "confidence", "source", "needsReview", "reviewReason",
    ]
    static let rectKeys = ["x", "y", "width", "height"]

    mutating func error(_ path: JSONPath, _ message: String) {
        diagnostics.append(.error(path, message))
        poisoned.insert(path)
    }

    mutating func warning(_ path: JSONPath, _ message: String) {
        diagnostics.append(.warning(path, message))
    }

    mutating func expected(_ what: String, _ found: JSONValue, at path: JSONPath) {
        error(path, "expected \(what), found \(found.briefDescription)")
    }

    // MARK: field access

    /// A required field's value; reports it missing (or null) otherwise.
    mutating func required(_ o: JSONObject, _ key: String, at path: JSONPath, hint: String = "") -> JSONValue? {
        guard let v = o[key] else {
            error(path / key, "required field is missing" + hint)
            return nil
        }
        if v.isNull {
            error(path / key, "required field is null" + hint)
            return nil
        }
        return v
    }

    /// An optional field's value; nil when absent or null (nulls are remembered for saving).
    func optional(_ o: JSONObject, _ key: String) -> JSONValue? {
        guard let v = o[key], !v.isNull else { return nil }
        return v
    }

    mutating func string(_ v: JSONValue, at path: JSONPath) -> String? {
        if let s = v.stringValue { return s }
        if case .number(let n) = v {
            error(path, "expected a string, found \(n.literal) (write it in quotes: \"\(n.literal)\")")
        } else {
            expected("a string", v, at: path)
        }
        return nil
    }

    mutating func integer(_ v: JSONValue, at path: JSONPath, expected what: String = "an integer") -> Int? {
        if let n = v.numberValue, let i = n.intValue { return i }
        if let s = v.stringValue, let n = JSONNumber(literal: s), n.intValue != nil {
            error(path, "expected \(what), found \(v.briefDescription) (remove the quotes)")
        } else {
            expected(what, v, at: path)
        }
        return nil
    }

    mutating func positiveInteger(_ v: JSONValue, at path: JSONPath) -> Int? {
        integer(v, at: path, expected: "a positive integer")
    }

    mutating func number(_ v: JSONValue, at path: JSONPath) -> Double? {
        if let n = v.numberValue { return n.value }
        expected("a number", v, at: path)
        return nil
    }

    mutating func bool(_ v: JSONValue, at path: JSONPath) -> Bool? {
        if let b = v.boolValue { return b }
        if let s = v.stringValue, s == "true" || s == "false" {
            error(path, "expected true or false, found \(v.briefDescription) (remove the quotes)")
        } else {
            expected("true or false", v, at: path)
        }
        return nil
    }

    mutating func closed<E: RawRepresentable & CaseIterable>(
        _ type: E.Type, _ v: JSONValue, at path: JSONPath
    ) -> E? where E.RawValue == String {
        let choices = E.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: " or ")
        guard let s = v.stringValue else {
            expected(choices, v, at: path)
            return nil
        }
        if let e = E(rawValue: s) { return e }
        if let e = E.allCases.first(where: { $0.rawValue.lowercased() == s.lowercased() }) {
            error(path, "expected \(choices), found \(v.briefDescription) (values are case-sensitive: \"\(e.rawValue)\")")
        } else {
            error(path, "expected \(choices), found \(v.briefDescription)")
        }
        return nil
    }

    /// Fields outside `known`, in file order, plus the object's layout. Unknown keys that look
    /// like a misspelt known field that is absent get a warning: a librarian's "widht" should not
    /// pass silently as an extension field.
    mutating func extras(_ o: JSONObject, known: [String], at path: JSONPath) -> (JSONObject, FieldLayout) {
        var extra = JSONObject()
        var layout = FieldLayout(order: o.keys)
        for m in o {
            if known.contains(m.key) {
                if m.value.isNull { layout.nullKeys.insert(m.key) }
                continue
            }
            extra.appendUnchecked(m.key, m.value)
            if let near = known.first(where: { !o.contains(key: $0) && isNearMiss(m.key, $0) }) {
                warning(path / m.key, "unknown field, kept as is; did you mean \"\(near)\"?")
            }
        }
        return (extra, layout)
    }

    // MARK: book

    mutating func decodeBook(_ root: JSONValue) -> Book {
        var book = Book(title: "", languages: [], readingDirection: .leftToRight)
        guard let o = root.objectValue else {
            expected("an object (a book manifest starts with '{')", root, at: .root)
            stop = true
            return book
        }
        let path = JSONPath.root
        checkFormat(o)
        if stop { return book }
        (book.extraFields, book.layout) = extras(o, known: Self.bookKeys, at: path)

        if let v = required(o, "title", at: path) { book.title = localizedText(v, at: path / "title") ?? "" }
        for (key, kp) in [("subtitle", \Book.subtitle), ("author", \.author), ("illustrator", \.illustrator),
                          ("translator", \.translator), ("publisher", \.publisher)] as [(String, WritableKeyPath<Book, LocalizedText?>)] {
            if let v = optional(o, key) { book[keyPath: kp] = localizedText(v, at: path / key) }
        }
        if let v = optional(o, "year") { book.year = integer(v, at: path / "year") }
        if let v = optional(o, "source") { book.source = string(v, at: path / "source") }
        if let v = optional(o, "license") { book.license = string(v, at: path / "license") }

        if let v = required(o, "languages", at: path, hint: "; list the book's languages, e.g. \"languages\": [\"en\"]") {
            if let a = v.arrayValue {
                for (i, e) in a.enumerated() {
                    // Placeholders keep indices aligned with the file for later checks.
                    book.languages.append(string(e, at: path / "languages" / i) ?? "")
                }
            } else {
                expected("an array of language tags, like [\"en\", \"ar\"]", v, at: path / "languages")
            }
        }
        if let v = required(o, "readingDirection", at: path, hint: "; write \"ltr\" or \"rtl\"") {
            book.readingDirection = closed(ReadingDirection.self, v, at: path / "readingDirection") ?? .leftToRight
        }
        if let v = required(o, "pages", at: path) {
            if let a = v.arrayValue {
                for (i, e) in a.enumerated() { book.pages.append(decodePage(e, at: path / "pages" / i)) }
            } else {
                expected("an array of pages", v, at: path / "pages")
            }
        }
        if let v = optional(o, "spreads") {
            if let a = v.arrayValue {
                for (i, e) in a.enumerated() {
                    let sp = path / "spreads" / i
                    guard let pair = e.arrayValue, pair.count == 2 else {
                        expected("a pair of facing page numbers like [2, 3]", e, at: sp)
                        book.spreads.append(Spread(0, 0))
                        continue
                    }
                    let a0 = positiveInteger(pair[0], at: sp / 0)
                    let a1 = positiveInteger(pair[1], at: sp / 1)
                    if a0 == nil || a1 == nil { poisoned.insert(sp) }
                    book.spreads.append(Spread(a0 ?? 0, a1 ?? 0))
                }
            } else {
                expected("an array of page pairs like [[2, 3], [4, 5]]", v, at: path / "spreads")
            }
        }
        if let v = optional(o, "glossary") { book.glossary = decodeGlossary(v, at: path / "glossary") }
        return book
    }

    mutating func checkFormat(_ o: JSONObject) {
        let path = JSONPath.root / "format"
        let example = "\"format\": \"\(Book.format)\""
        guard let v = o["format"] else {
            error(path, "required field is missing; a book manifest starts with \(example)")
            return
        }
        guard let s = v.stringValue else {
            expected("a string like \"\(Book.format)\"", v, at: path)
            return
        }
        let prefix = "picturebook-book/"
        guard s.hasPrefix(prefix) else {
            error(path, "\(v.briefDescription) is not a Picturebook book format; expected \"\(Book.format)\"")
            return
        }
        // Only the major version is written: additions within a major version keep its name.
        let version = s.dropFirst(prefix.count)
        guard !version.isEmpty, version.allSatisfy({ $0.isASCII && $0.isNumber }), let major = Int(version), major >= 1 else {
            error(path, "unknown format version \(v.briefDescription); expected \"\(Book.format)\"")
            return
        }
        if major > Book.formatVersion {
            error(
                path,
                "this book was written by a newer Picturebook (format \(s)); this version reads \(Book.format) — update Picturebook to open it"
            )
            stop = true
        }
    }

    mutating func localizedText(_ v: JSONValue, at path: JSONPath) -> LocalizedText? {
        if let s = v.stringValue { return .plain(s) }
        if let o = v.objectValue {
            guard !o.isEmpty else {
                error(path, "expected text or a map from language to text, found an empty object")
                return nil
            }
            return .localized(languageMap(o, at: path))
        }
        expected("a string or an object mapping languages to text, like {\"en\": \"…\"}", v, at: path)
        return nil
    }

    mutating func languageMap(_ o: JSONObject, at path: JSONPath) -> LanguageMap {
        var m = LanguageMap()
        for member in o {
            if let s = member.value.stringValue {
                m[member.key] = s
            } else if member.value.isNull {
                error(path / member.key, "expected text, found null (remove the entry or write \"\")")
            } else {
                expected("text in quotes", member.value, at: path / member.key)
            }
        }
        return m
    }

    // MARK: page

    mutating func decodePage(_ v: JSONValue, at path: JSONPath) -> Page {
        var page = Page(image: "", width: 0, height: 0)
        guard let o = v.objectValue else {
            expected("a page object like {\"image\": \"p1.jpg\", \"width\": …, \"height\": …}", v, at: path)
            return page
        }
        (page.extraFields, page.layout) = extras(o, known: Self.pageKeys, at: path)
        if let v = required(o, "image", at: path) { page.image = string(v, at: path / "image") ?? "" }
        if let v = required(o, "width", at: path) { page.width = positiveInteger(v, at: path / "width") ?? 0 }
        if let v = required(o, "height", at: path) { page.height = positiveInteger(v, at: path / "height") ?? 0 }
        if let v = optional(o, "label") { page.label = string(v, at: path / "label") }
        if let v = optional(o, "role") { page.role = string(v, at: path / "role").map(PageRole.init(rawValue:)) }
        if let v = optional(o, "single") { page.single = bool(v, at: path / "single") ?? false }
        if let v = optional(o, "textBoxes") {
            if let a = v.arrayValue {
                for (i, e) in a.enumerated() { page.textBoxes.append(decodeBox(e, at: path / "textBoxes" / i)) }
            } else {
                expected("an array of text boxes", v, at: path / "textBoxes")
            }
        }
        return page
    }

    // MARK: text box

    mutating func decodeBox(_ v: JSONValue, at path: JSONPath) -> TextBox {
        var box = TextBox(id: "", rect: PixelRect(x: 0, y: 0, width: 0, height: 0))
        guard let o = v.objectValue else {
            expected("a text box object like {\"id\": \"t1\", \"rect\": {…}}", v, at: path)
            return box
        }
        (box.extraFields, box.layout) = extras(o, known: Self.boxKeys, at: path)
        if let v = required(o, "id", at: path) { box.id = string(v, at: path / "id") ?? "" }
        if let v = required(o, "rect", at: path) { decodeRect(v, into: &box, at: path / "rect") }
        if let v = optional(o, "text") {
            if let t = v.objectValue {
                box.text = languageMap(t, at: path / "text")
            } else if v.stringValue != nil {
                error(path / "text", "expected a map from language to text like {\"en\": \"…\"}, found a string")
            } else {
                expected("a map from language to text like {\"en\": \"…\"}", v, at: path / "text")
            }
        }
        if let v = optional(o, "textSources") { box.textSources = textOrigins(v, at: path / "textSources") }
        if let v = optional(o, "role") { box.role = string(v, at: path / "role").map(TextRole.init(rawValue:)) }
        if let v = optional(o, "language") { box.language = string(v, at: path / "language") }
        if let v = optional(o, "order") { box.order = integer(v, at: path / "order") }
        if let v = optional(o, "orientation") { box.orientation = closed(TextOrientation.self, v, at: path / "orientation") }
        if let v = optional(o, "polarity") { box.polarity = closed(TextPolarity.self, v, at: path / "polarity") }
        if let v = optional(o, "inkColor") { box.inkColor = color(v, at: path / "inkColor") }
        if let v = optional(o, "backgroundColor") { box.backgroundColor = color(v, at: path / "backgroundColor") }
        if let v = optional(o, "confidence") { box.confidence = number(v, at: path / "confidence") }
        if let v = optional(o, "source") { box.source = closed(BoxSource.self, v, at: path / "source") }
        if let v = optional(o, "needsReview") { box.needsReview = bool(v, at: path / "needsReview") ?? false }
        if let v = optional(o, "reviewReason") {
            box.reviewReason = closed(ReviewReason.self, v, at: path / "reviewReason")
            if box.reviewReason != nil, !box.needsReview {
                warning(path / "reviewReason", "a reason without \"needsReview\": true; it is ignored, and dropped when the book is saved")
                box.reviewReason = nil
            }
        }
        return box
    }

    mutating func decodeRect(_ v: JSONValue, into box: inout TextBox, at path: JSONPath) {
        guard let o = v.objectValue else {
            if let a = v.arrayValue, a.count == 4 {
                error(path, "expected an object {\"x\": …, \"y\": …, \"width\": …, \"height\": …}, found an array")
            } else {
                expected("an object {\"x\": …, \"y\": …, \"width\": …, \"height\": …}", v, at: path)
            }
            return
        }
        (box.rectExtraFields, box.rectLayout) = extras(o, known: Self.rectKeys, at: path)
        var r = PixelRect(x: 0, y: 0, width: 0, height: 0)
        if let v = required(o, "x", at: path) { r.x = integer(v, at: path / "x", expected: "an integer number of pixels") ?? 0 }
        if let v = required(o, "y", at: path) { r.y = integer(v, at: path / "y", expected: "an integer number of pixels") ?? 0 }
        if let v = required(o, "width", at: path) { r.width = positiveInteger(v, at: path / "width") ?? 0 }
        if let v = required(o, "height", at: path) { r.height = positiveInteger(v, at: path / "height") ?? 0 }
        box.rect = r
    }

    mutating func color(_ v: JSONValue, at path: JSONPath) -> RGBColor? {
        guard let s = v.stringValue else {
            expected("a colour like \"#1a2b3c\"", v, at: path)
            return nil
        }
        guard let c = RGBColor(hex: s) else {
            error(path, "expected a colour like \"#1a2b3c\" (# and six hex digits), found \(v.briefDescription)")
            return nil
        }
        return c
    }
}

/// Edit distance ≤ 2 (and small relative to the word), ignoring case: "widht", "Width", "heigth".
func isNearMiss(_ a: String, _ b: String) -> Bool {
    let x = Array(a.lowercased()), y = Array(b.lowercased())
    if x == y { return true }
    guard abs(x.count - y.count) <= 2, min(x.count, y.count) >= 3 else { return false }
    // Damerau–Levenshtein (optimal string alignment), so a swapped pair counts once.
    var d = [[Int]](repeating: [Int](repeating: 0, count: y.count + 1), count: x.count + 1)
    for i in 0...x.count { d[i][0] = i }
    for j in 0...y.count { d[0][j] = j }
    for i in 1...max(1, x.count) where i <= x.count {
        for j in 1...max(1, y.count) where j <= y.count {
            let cost = x[i - 1] == y[j - 1] ? 0 : 1
            d[i][j] = min(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost)
            if i > 1, j > 1, x[i - 1] == y[j - 2], x[i - 2] == y[j - 1] { d[i][j] = min(d[i][j], d[i - 2][j - 2] + 1) }
        }
    }
    let limit = max(x.count, y.count) <= 4 ? 1 : 2
    return d[x.count][y.count] <= limit
}
