// IIIF Presentation API 3.0 manifests: how libraries and viewers (Mirador, Universal Viewer)
// exchange a digitized book. One Canvas per page in reading order, the scan painted on it, the
// text boxes as supplementing W3C Web Annotations with one TextualBody per language, spreads as
// navigation-less Ranges, and the page facts IIIF has no property for (printed label, role,
// single) as canvas metadata, so `picturebook import` can rebuild the book from the manifest.

public import BookModel
import Layout

public enum IIIF {
    public static let context = "http://iiif.io/api/presentation/3/context.json"

    /// Where things live under a base URL (the book's folder as published, no trailing slash).
    public struct URLs: Sendable {
        public var base: String
        public init(base: String) {
            var b = base
            while b.hasSuffix("/") { b.removeLast() }
            self.base = b
        }
        public var manifest: String { base + "/manifest.json" }
        public func canvas(_ n: Int) -> String { base + "/canvas/\(n)" }
        public func annotationPage(_ n: Int) -> String { base + "/canvas/\(n)/annotations" }
        public func annotation(_ n: Int, box: String) -> String { base + "/canvas/\(n)/annotation/" + percentEncode(box) }
        public func painting(_ n: Int) -> String { base + "/canvas/\(n)/painting" }
        public func paintingPage(_ n: Int) -> String { base + "/canvas/\(n)/page" }
        public func image(_ page: Page) -> String { base + "/" + page.image.split(separator: "/").map { percentEncode(String($0)) }.joined(separator: "/") }
        public func imageService(_ n: Int) -> String { base + "/image/\(n)" }
        public func spreadRange(_ s: Spread) -> String { base + "/range/spread-\(s.first)-\(s.second)" }
    }

    /// The manifest of `book` published under `baseURL`. `imageService` adds a level-1 IIIF Image
    /// API 3 service to each scan (served by `picturebook serve` under the same base).
    public static func manifest(book: Book, baseURL: String, imageService: Bool = false) -> [UInt8] {
        JSONWriter.serialize(manifestJSON(book: book, baseURL: baseURL, imageService: imageService))
    }

    public static func manifestJSON(book: Book, baseURL: String, imageService: Bool = false) -> JSONValue {
        let urls = URLs(base: baseURL)
        var m = JSONObject()
        m["@context"] = .string(context)
        m["id"] = .string(urls.manifest)
        m["type"] = "Manifest"
        m["label"] = languageMap(book.title)
        if let subtitle = book.subtitle { m["summary"] = languageMap(subtitle) }
        var metadata: [JSONValue] = []
        func entry(_ label: String, _ value: JSONValue) {
            metadata.append(.object(["label": .object(["en": [.string(label)]]), "value": value]))
        }
        for (label, value) in [("Author", book.author), ("Illustrator", book.illustrator), ("Translator", book.translator), ("Publisher", book.publisher)] {
            if let value { entry(label, languageMap(value)) }
        }
        if let year = book.year { entry("Year", .object(["none": [.string(String(year))]])) }
        if let source = book.source { entry("Source", .object(["none": [.string(source)]])) }
        if let license = book.license { entry("License", .object(["none": [.string(license)]])) }
        // IIIF has no property for the languages a work is offered in; this entry is what the
        // importer reads them back from, main language first.
        entry("Languages", .object(["none": [.string(book.languages.joined(separator: ", "))]]))
        m["metadata"] = .array(metadata)
        if let license = book.license, let uri = rightsURI(license) { m["rights"] = .string(uri) }
        m["behavior"] = ["paged"]
        m["viewingDirection"] = .string(book.readingDirection == .rightToLeft ? "right-to-left" : "left-to-right")
        let composer = SpreadComposer()
        var canvases: [JSONValue] = []
        for (k, page) in book.pages.enumerated() {
            canvases.append(canvas(page, number: k + 1, book: book, urls: urls, wideScan: composer.isWideScan(k + 1, in: book), imageService: imageService))
        }
        m["items"] = .array(canvases)
        if !book.spreads.isEmpty {
            // A spread is two canvases a paged viewer must show together. IIIF expresses
            // "these canvases belong together" with a Range; `no-nav` keeps them out of the
            // table of contents, where a list of spreads would only be noise.
            m["structures"] = .array(book.spreads.map { s in
                .object([
                    "id": .string(urls.spreadRange(s)), "type": "Range",
                    "label": .object(["en": [.string("Spread \(s.first)–\(s.second)")]]),
                    "behavior": ["no-nav"],
                    "items": [
                        .object(["id": .string(urls.canvas(s.first)), "type": "Canvas"]),
                        .object(["id": .string(urls.canvas(s.second)), "type": "Canvas"]),
                    ],
                ])
            })
        }
        return .object(m)
    }

    static func canvas(_ page: Page, number n: Int, book: Book, urls: URLs, wideScan: Bool, imageService: Bool) -> JSONValue {
        var c = JSONObject()
        c["id"] = .string(urls.canvas(n))
        c["type"] = "Canvas"
        c["label"] = .object(["none": [.string(page.label ?? (page.role == .cover ? "Cover" : "[\(n)]"))]])
        c["width"] = .number(JSONNumber(page.width))
        c["height"] = .number(JSONNumber(page.height))
        // A single scan of both halves of an opening is what the spec calls facing-pages: a paged
        // viewer shows it alone, across the whole opening.
        if wideScan { c["behavior"] = ["facing-pages"] }
        var metadata: [JSONValue] = []
        func entry(_ label: String, _ value: String) {
            metadata.append(.object(["label": .object(["en": [.string(label)]]), "value": .object(["none": [.string(value)]])]))
        }
        if let label = page.label { entry("Page label", label) }
        if let role = page.role { entry("Page role", role.rawValue) }
        if page.single { entry("Single page", "yes") }
        if !metadata.isEmpty { c["metadata"] = .array(metadata) }
        // With an image service the painted image is the service's full-size JPEG (what every
        // service level must serve); without one it is the scan file under the base URL.
        var image: JSONObject = [
            "id": .string(imageService ? urls.imageService(n) + "/full/max/0/default.jpg" : urls.image(page)), "type": "Image",
            "format": .string(imageService ? "image/jpeg" : mediaType(ofPath: page.image)),
            "width": .number(JSONNumber(page.width)), "height": .number(JSONNumber(page.height)),
        ]
        if imageService {
            image["service"] = [.object(["id": .string(urls.imageService(n)), "type": "ImageService3", "profile": "level1"])]
        }
        let painting: JSONValue = .object([
            "id": .string(urls.painting(n)), "type": "Annotation", "motivation": "painting",
            "body": .object(image), "target": .string(urls.canvas(n)),
        ])
        c["items"] = [.object(["id": .string(urls.paintingPage(n)), "type": "AnnotationPage", "items": [painting]])]
        let boxes = page.textBoxesInReadingOrder
        if !boxes.isEmpty {
            let annotations: [JSONValue] = boxes.map { box in
                let printed = box.language ?? book.languages.first ?? "und"
                // The printed language's text first: the importer takes the first body's language
                // as the language printed on the page.
                var entries = box.text.entries.filter { $0.language == printed }
                entries += box.text.entries.filter { $0.language != printed }
                var bodies: [JSONValue] = entries.map { e in
                    .object(["type": "TextualBody", "value": .string(e.text), "format": "text/plain", "language": .string(e.language)])
                }
                if let role = box.role {
                    bodies.append(.object(["type": "TextualBody", "value": .string(role.rawValue), "purpose": "tagging", "format": "text/plain"]))
                }
                let r = box.rect
                return .object([
                    "id": .string(urls.annotation(n, box: box.id)), "type": "Annotation", "motivation": "supplementing",
                    "body": .array(bodies),
                    "target": .string(urls.canvas(n) + "#xywh=\(r.x),\(r.y),\(r.width),\(r.height)"),
                ])
            }
            c["annotations"] = [.object(["id": .string(urls.annotationPage(n)), "type": "AnnotationPage", "items": .array(annotations)])]
        }
        return .object(c)
    }

    /// A IIIF language map: `{"en": ["…"], "ar": ["…"]}`, or `{"none": ["…"]}` for text given
    /// once for every language.
    static func languageMap(_ t: LocalizedText) -> JSONValue {
        switch t {
        case .plain(let s): return .object(["none": [.string(s)]])
        case .localized(let m):
            var o = JSONObject()
            for e in m.entries { o[e.language] = [.string(e.text)] }
            return .object(o)
        }
    }

    /// `rights` must be a Creative Commons or RightsStatements.org URI; SPDX identifiers of the
    /// CC licences map onto one. Anything else stays in the metadata only.
    static func rightsURI(_ license: String) -> String? {
        let l = license.lowercased()
        if l == "cc0-1.0" { return "http://creativecommons.org/publicdomain/zero/1.0/" }
        if l == "public domain" || l == "pdm" || l == "pdm-1.0" { return "http://creativecommons.org/publicdomain/mark/1.0/" }
        guard l.hasPrefix("cc-") else { return nil }
        let parts = l.dropFirst(3).split(separator: "-").map(String.init)
        guard parts.count >= 2, let version = parts.last, ["1.0", "2.0", "2.5", "3.0", "4.0"].contains(version) else { return nil }
        let kinds = parts.dropLast()
        guard kinds.allSatisfy({ ["by", "sa", "nc", "nd"].contains($0) }), kinds.first == "by" else { return nil }
        return "http://creativecommons.org/licenses/\(kinds.joined(separator: "-"))/\(version)/"
    }

    /// Media type from the file name, which is what a static web server would send for it.
    static func mediaType(ofPath path: String) -> String {
        let l = path.lowercased()
        if l.hasSuffix(".png") { return "image/png" }
        if l.hasSuffix(".tif") || l.hasSuffix(".tiff") { return "image/tiff" }
        if l.hasSuffix(".jp2") { return "image/jp2" }
        return "image/jpeg"
    }
}

/// Percent-encodes everything outside RFC 3986's unreserved set, so a box id or file name is one
/// URL path segment whatever it holds.
func percentEncode(_ s: String) -> String {
    var out = ""
    for b in s.utf8 {
        switch b {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
             UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
            out.unicodeScalars.append(Unicode.Scalar(b))
        default:
            let hex = Array("0123456789ABCDEF".unicodeScalars)
            out.unicodeScalars.append("%")
            out.unicodeScalars.append(hex[Int(b >> 4)])
            out.unicodeScalars.append(hex[Int(b & 15)])
        }
    }
    return out
}

/// The inverse of `percentEncode` (any %XX, invalid UTF-8 replaced); nil for a malformed escape.
func percentDecode(_ s: String) -> String? {
    var bytes: [UInt8] = []
    var it = Array(s.utf8)[...]
    while let b = it.popFirst() {
        if b == UInt8(ascii: "%") {
            guard it.count >= 2, let v = UInt8(String(decoding: it.prefix(2), as: UTF8.self), radix: 16) else { return nil }
            bytes.append(v)
            it = it.dropFirst(2)
        } else {
            bytes.append(b)
        }
    }
    return String(decoding: bytes, as: UTF8.self)
}
