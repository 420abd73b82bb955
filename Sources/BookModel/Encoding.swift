// Book → JSON. Known fields are written where they stood in the file they came from (new ones in
// the documented order after them), unknown fields go back in their original places, and
// defaulted fields are written only if they differ from the default or were in the file — so a
// load and save of an unchanged book reproduces a hand-formatted file's content exactly.

extension Book {
    /// The manifest as a JSON value.
    public var json: JSONValue {
        var known: [(String, JSONValue)] = [("format", .string(Book.format)), ("title", title.json)]
        for (key, value) in [("subtitle", subtitle), ("author", author), ("illustrator", illustrator),
                             ("translator", translator), ("publisher", publisher)] {
            if let value { known.append((key, value.json)) }
        }
        if let year { known.append(("year", .number(JSONNumber(year)))) }
        if let source { known.append(("source", .string(source))) }
        if let license { known.append(("license", .string(license))) }
        known.append(("languages", .array(languages.map(JSONValue.string))))
        known.append(("readingDirection", .string(readingDirection.rawValue)))
        if !spreads.isEmpty || layout.keeps("spreads") {
            known.append(("spreads", .array(spreads.map { [.number(JSONNumber($0.first)), .number(JSONNumber($0.second))] })))
        }
        known.append(("pages", .array(pages.map(\.json))))
        if !glossary.isEmpty || layout.keeps("glossary") { known.append(("glossary", .array(glossary.map(\.json)))) }
        return .object(assemble(known, extras: extraFields, layout: layout))
    }

    /// The manifest as UTF-8 JSON text in Picturebook's layout (see `JSONWriter`).
    public func encoded() -> [UInt8] { JSONWriter.serialize(json) }
}

extension Page {
    public var json: JSONValue {
        var known: [(String, JSONValue)] = [
            ("image", .string(image)), ("width", .number(JSONNumber(width))), ("height", .number(JSONNumber(height))),
        ]
        if let label { known.append(("label", .string(label))) }
        if let role { known.append(("role", .string(role.rawValue))) }
        if single || layout.keeps("single") { known.append(("single", .bool(single))) }
        if !textBoxes.isEmpty || layout.keeps("textBoxes") { known.append(("textBoxes", .array(textBoxes.map(\.json)))) }
        return .object(assemble(known, extras: extraFields, layout: layout))
    }
}

extension TextBox {
    public var json: JSONValue {
        let r: [(String, JSONValue)] = [
            ("x", .number(JSONNumber(rect.x))), ("y", .number(JSONNumber(rect.y))),
            ("width", .number(JSONNumber(rect.width))), ("height", .number(JSONNumber(rect.height))),
        ]
        var known: [(String, JSONValue)] = [("id", .string(id))]
        if let role { known.append(("role", .string(role.rawValue))) }
        known.append(("rect", .object(assemble(r, extras: rectExtraFields, layout: rectLayout))))
        if !text.isEmpty || layout.keeps("text") { known.append(("text", text.json)) }
        if !textSources.isEmpty || layout.keeps("textSources") { known.append(("textSources", textSources.json)) }
        if let language { known.append(("language", .string(language))) }
        if let order { known.append(("order", .number(JSONNumber(order)))) }
        if let orientation { known.append(("orientation", .string(orientation.rawValue))) }
        if let polarity { known.append(("polarity", .string(polarity.rawValue))) }
        if let inkColor { known.append(("inkColor", .string(inkColor.hex))) }
        if let backgroundColor { known.append(("backgroundColor", .string(backgroundColor.hex))) }
        // A non-finite confidence cannot be written as JSON; validation reports it, saving omits it.
        if let confidence, confidence.isFinite { known.append(("confidence", .number(JSONNumber(confidence)))) }
        if let source { known.append(("source", .string(source.rawValue))) }
        if needsReview || layout.keeps("needsReview") { known.append(("needsReview", .bool(needsReview))) }
        if let reviewReason { known.append(("reviewReason", .string(reviewReason.rawValue))) }
        return .object(assemble(known, extras: extraFields, layout: layout))
    }
}

extension LocalizedText {
    public var json: JSONValue {
        switch self {
        case .plain(let s): return .string(s)
        case .localized(let m): return m.json
        }
    }
}

extension LanguageMap {
    public var json: JSONValue {
        var o = JSONObject()
        for e in entries { o[e.language] = .string(e.text) }
        return .object(o)
    }
}

/// Merges known fields (in canonical order) with unknown ones, following the file's key order
/// where there was a file. A known field the file did not have goes after the last field that
/// precedes it in canonical order (a new "label" lands after "height", not after a long
/// "textBoxes"). Optional known fields that were `null` in the file and are still unset are
/// written as `null` again.
func assemble(_ known: [(String, JSONValue)], extras: JSONObject, layout: FieldLayout) -> JSONObject {
    var rank: [String: Int] = [:]
    var knownValues: [String: JSONValue] = [:]
    for (i, (k, v)) in known.enumerated() {
        knownValues[k] = v
        rank[k] = i
    }
    var out: [JSONObject.Member] = []
    var written: Set<String> = []
    for key in layout.order where !written.contains(key) {
        if let v = knownValues[key] {
            out.append(.init(key: key, value: v))
        } else if let v = extras[key] {
            out.append(.init(key: key, value: v))
        } else if layout.nullKeys.contains(key) {
            out.append(.init(key: key, value: .null))
        } else {
            continue
        }
        written.insert(key)
    }
    for (k, v) in known where !written.contains(k) {
        let r = rank[k]!
        var at: Int? = nil
        for (i, m) in out.enumerated() {
            guard let mr = rank[m.key] else { continue }
            if mr < r {
                at = i + 1
            } else if at == nil {
                at = i
                break
            }
        }
        out.insert(.init(key: k, value: v), at: at ?? out.count)
        written.insert(k)
    }
    for m in extras where !written.contains(m.key) {
        out.append(m)
        written.insert(m.key)
    }
    var o = JSONObject()
    for m in out { o.appendUnchecked(m.key, m.value) }
    return o
}
