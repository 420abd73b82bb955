// Reading a IIIF Presentation 3 manifest back into a book: the inverse of IIIF.swift. Canvases
// become pages in order, each canvas's painted image names the scan, supplementing annotations
// with a `#xywh=` target become text boxes (one text per language from the TextualBodies),
// `no-nav` Ranges of two consecutive canvases become spreads. What IIIF cannot say — where the
// scan is on this disk — is left to the caller: `imageURLs[k]` is the image URL of page k+1.

public import BookModel
import Geometry

public struct ImportedManifest: Sendable {
    /// The book, with each page's `image` still the scan's URL as the manifest gave it.
    public var book: Book
    public var imageURLs: [String]
}

public enum IIIFImport {
    public static func manifest(_ bytes: [UInt8], file: String) throws(FormatError) -> ImportedManifest {
        let root: JSONValue
        do { root = try JSONParser.parse(bytes).value } catch { throw .badManifest(file: file, reason: "not JSON: \(error)") }
        guard let m = root.objectValue else { throw .badManifest(file: file, reason: "the top level is \(root.kindDescription), not an object") }
        guard m["type"]?.stringValue == "Manifest" else {
            throw .badManifest(file: file, reason: "its type is \(m["type"]?.briefDescription ?? "missing"), not \"Manifest\" (only Presentation 3 manifests are read)")
        }
        guard let items = m["items"]?.arrayValue, !items.isEmpty else { throw .badManifest(file: file, reason: "it has no canvases (items)") }

        var languages: [String] = []
        // Our export names every printed label in the canvas metadata; its canvas labels for
        // unlabelled pages ("Cover", "[3]") are for viewers and must not become printed labels.
        let fromPicturebook = metadataValue(m, "Languages") != nil
        if let list = metadataValue(m, "Languages") {
            languages = list.split(separator: ",").compactMap { LanguageTag.normalized(String($0).trimmed) }
        }
        func note(_ l: String) { if l != "none", !languages.contains(l) { languages.append(l) } }
        let title = localized(m["label"]) ?? .plain(BookDirectory.stem(of: file))
        if case .localized(let map) = title { map.languages.forEach(note) }

        var pages: [Page] = []
        var urls: [String] = []
        var canvasNumber: [String: Int] = [:]
        for (k, item) in items.enumerated() {
            let where_ = "items[\(k)]"
            guard let c = item.objectValue, c["type"]?.stringValue == "Canvas" else { throw .badManifest(file: file, reason: "\(where_) is not a Canvas") }
            guard let id = c["id"]?.stringValue else { throw .badManifest(file: file, reason: "\(where_) has no id") }
            guard let w = c["width"]?.numberValue?.intValue, let h = c["height"]?.numberValue?.intValue, w > 0, h > 0,
                  w <= Book.maximumPageSide, h <= Book.maximumPageSide
            else { throw .badManifest(file: file, reason: "canvas \(id) has no valid width and height") }
            guard let url = paintedImage(c) else { throw .badManifest(file: file, reason: "canvas \(id) paints no image") }
            canvasNumber[id] = k + 1
            var page = Page(image: url, width: w, height: h)
            if let label = metadataValue(c, "Page label") {
                page.label = label
            } else if !fromPicturebook, let label = localized(c["label"])?.description, !label.isEmpty {
                page.label = label
            }
            if let role = metadataValue(c, "Page role") { page.role = PageRole(rawValue: role) }
            page.single = metadataValue(c, "Single page") == "yes"
            page.textBoxes = try boxes(c, canvas: id, size: (w, h), file: file, note: note)
            pages.append(page)
            urls.append(url)
        }
        if languages.isEmpty { languages = ["und"] }
        // Text in the manifest's language order, whatever order the bodies came in.
        for p in pages.indices {
            for b in pages[p].textBoxes.indices {
                let old = pages[p].textBoxes[b].text
                var ordered = LanguageMap()
                for l in languages { if let t = old[l] { ordered[l] = t } }
                for e in old.entries where ordered[e.language] == nil { ordered[e.language] = e.text }
                pages[p].textBoxes[b].text = ordered
            }
        }

        var spreads: [Spread] = []
        for range in m["structures"]?.arrayValue ?? [] {
            guard let r = range.objectValue, r["type"]?.stringValue == "Range",
                  (r["behavior"]?.arrayValue ?? []).contains(.string("no-nav")),
                  let members = r["items"]?.arrayValue, members.count == 2,
                  let a = members[0].objectValue?["id"]?.stringValue.flatMap({ canvasNumber[$0] }),
                  let b = members[1].objectValue?["id"]?.stringValue.flatMap({ canvasNumber[$0] }),
                  b == a + 1
            else { continue }
            spreads.append(Spread(a, b))
        }

        var book = Book(title: title, languages: languages, pages: pages, spreads: spreads)
        book.readingDirection = m["viewingDirection"]?.stringValue == "right-to-left" ? .rightToLeft : .leftToRight
        book.subtitle = localized(m["summary"])
        book.author = metadataText(m, "Author")
        book.illustrator = metadataText(m, "Illustrator")
        book.translator = metadataText(m, "Translator")
        book.publisher = metadataText(m, "Publisher")
        book.year = metadataValue(m, "Year").flatMap { Int($0) }
        book.source = metadataValue(m, "Source")
        book.license = metadataValue(m, "License")
        return ImportedManifest(book: book, imageURLs: urls)
    }

    /// The image a canvas's first painting annotation paints (the first choice of a Choice).
    static func paintedImage(_ c: JSONObject) -> String? {
        for page in c["items"]?.arrayValue ?? [] {
            for a in page.objectValue?["items"]?.arrayValue ?? [] {
                guard let a = a.objectValue, a["motivation"]?.stringValue == "painting" else { continue }
                var body = a["body"]
                if let list = body?.arrayValue { body = list.first }
                if body?.objectValue?["type"]?.stringValue == "Choice" { body = body?.objectValue?["items"]?.arrayValue?.first }
                if let id = body?.objectValue?["id"]?.stringValue { return id }
            }
        }
        return nil
    }

    static func boxes(_ c: JSONObject, canvas: String, size: (Int, Int), file: String, note: (String) -> Void) throws(FormatError) -> [TextBox] {
        var ids = IDAssigner()
        var out: [TextBox] = []
        for page in c["annotations"]?.arrayValue ?? [] {
            for a in page.objectValue?["items"]?.arrayValue ?? [] {
                guard let a = a.objectValue, a["motivation"]?.stringValue == "supplementing" || (a["motivation"]?.arrayValue ?? []).contains(.string("supplementing")) else { continue }
                let target = a["target"]?.stringValue ?? a["target"]?.objectValue?["source"]?.stringValue ?? ""
                guard let rect = fragmentRect(target), rect.x >= 0, rect.y >= 0, rect.x + rect.width <= size.0, rect.y + rect.height <= size.1 else {
                    throw .badManifest(file: file, reason: "annotation \(a["id"]?.stringValue ?? "#\(out.count + 1)") on canvas \(canvas) has no #xywh= region inside the canvas")
                }
                let lastSegment = (a["id"]?.stringValue).flatMap { $0.split(separator: "/").last.map(String.init) }.flatMap(percentDecode)
                var box = TextBox(id: ids.assign(lastSegment, prefix: ""), rect: rect)
                var bodies = a["body"]?.arrayValue ?? (a["body"].map { [$0] } ?? [])
                if bodies.count == 1, bodies[0].objectValue?["type"]?.stringValue == "Choice" { bodies = bodies[0].objectValue?["items"]?.arrayValue ?? [] }
                for body in bodies {
                    guard let o = body.objectValue, o["type"]?.stringValue == "TextualBody", let value = o["value"]?.stringValue else { continue }
                    if o["purpose"]?.stringValue == "tagging" {
                        box.role = TextRole(rawValue: value)
                        continue
                    }
                    let language = o["language"]?.stringValue.flatMap(LanguageTag.normalized) ?? "und"
                    if box.language == nil { box.language = language }
                    note(language)
                    box.text[language] = value
                }
                box.order = out.count + 1
                out.append(box)
            }
        }
        return out
    }

    /// `…#xywh=x,y,w,h` (pixels; the `pixel:` unit prefix allowed) as a rect.
    static func fragmentRect(_ target: String) -> PixelRect? {
        guard let hash = target.lastIndex(of: "#") else { return nil }
        for part in target[target.index(after: hash)...].split(separator: "&") where part.hasPrefix("xywh=") {
            var v = part.dropFirst(5)
            if v.hasPrefix("pixel:") { v = v.dropFirst(6) }
            let n = v.split(separator: ",").compactMap { Int($0) }
            guard n.count == 4, n[2] > 0, n[3] > 0 else { return nil }
            return PixelRect(x: n[0], y: n[1], width: n[2], height: n[3])
        }
        return nil
    }

    /// A IIIF language map as text: one value for "none" (or a single language) is plain text.
    static func localized(_ v: JSONValue?) -> LocalizedText? {
        guard let o = v?.objectValue, !o.isEmpty else { return v?.stringValue.map { LocalizedText.plain($0) } }
        var map = LanguageMap()
        for member in o {
            let text = (member.value.arrayValue ?? [member.value]).compactMap(\.stringValue).joined(separator: "\n")
            map[member.key] = text
        }
        if map.count == 1, map.languages == ["none"] { return .plain(map.entries[0].text) }
        map["none"] = nil
        return map.isEmpty ? nil : .localized(map)
    }

    /// The value of the metadata entry whose English label is `label`, as plain text.
    static func metadataValue(_ o: JSONObject, _ label: String) -> String? {
        metadataText(o, label)?.description
    }

    static func metadataText(_ o: JSONObject, _ label: String) -> LocalizedText? {
        for entry in o["metadata"]?.arrayValue ?? [] {
            guard let e = entry.objectValue, e["label"]?.objectValue?["en"]?.arrayValue?.first?.stringValue == label else { continue }
            return localized(e["value"])
        }
        return nil
    }
}
