// Reading ALTO and hOCR back into text boxes: the page-text half of `picturebook import`. Each
// TextBlock (ALTO) or content area (hOCR) becomes one box; its lines become lines of the box's
// text, its strings or words the words. Box ids written by our own export come back unchanged;
// other producers' ids are kept when they are valid box ids and replaced by b1, b2, … otherwise.

public import BookModel
import Geometry

/// The text found in one page's ALTO or hOCR file.
public struct ImportedPageText: Sendable {
    /// The page size the document declares, when it declares one.
    public var width: Int?
    public var height: Int?
    public var boxes: [TextBox]
}

public enum PageTextImport {
    /// Text boxes from an ALTO document (versions 2–4; positions must be in pixels).
    /// `defaultLanguage` keys the text of blocks that carry no LANG (or one that is no language
    /// tag even after `LanguageTag.normalized`, which turns Tesseract's "eng" into "en").
    public static func alto(_ bytes: [UInt8], file: String, defaultLanguage: String) throws(FormatError) -> ImportedPageText {
        let root = try XMLReader.parse(bytes, file: file)
        guard root.name == "alto" else { throw .unsupportedDocument(file: file, reason: "not ALTO: the root element is <\(root.name)>, not <alto>") }
        if let unit = root.descendants("MeasurementUnit").first?.allText.trimmed, unit != "pixel" {
            throw .unsupportedDocument(file: file, reason: "positions are in \(unit); only pixel positions can be imported (the scan's resolution is not known)")
        }
        var roles: [String: String] = [:]
        for tag in root.descendants("RoleTag") + root.descendants("StructureTag") {
            if let id = tag.attributes["ID"], let label = tag.attributes["LABEL"] { roles[id] = label }
        }
        let page = root.descendants("Page").first
        let width = page.flatMap { number($0.attributes["WIDTH"]) }.map { Int($0.rounded()) }
        let height = page.flatMap { number($0.attributes["HEIGHT"]) }.map { Int($0.rounded()) }
        var ids = IDAssigner()
        var boxes: [TextBox] = []
        for block in root.descendants("TextBlock") {
            guard let rect = rect(x: block.attributes["HPOS"], y: block.attributes["VPOS"], w: block.attributes["WIDTH"], h: block.attributes["HEIGHT"]) else {
                throw .unsupportedDocument(file: file, reason: "TextBlock \(block.attributes["ID"] ?? "#\(boxes.count + 1)") has no valid HPOS/VPOS/WIDTH/HEIGHT")
            }
            let lineElements = block.children.filter { $0.name == "TextLine" }
            let lines = lineElements.map { line in
                line.children.filter { $0.name == "String" }.compactMap { $0.attributes["CONTENT"] }.joined(separator: " ")
            }.filter { !$0.isEmpty }
            let language = (block.attributes["LANG"] ?? block.attributes["language"] ?? lineElements.lazy.compactMap { $0.attributes["LANG"] }.first)
                .flatMap(LanguageTag.normalized)
            var box = TextBox(id: ids.assign(block.attributes["ID"], prefix: "block_"), rect: rect)
            if !lines.isEmpty { box.text[language ?? defaultLanguage] = lines.joined(separator: "\n") }
            box.language = language
            box.order = boxes.count + 1
            if let refs = block.attributes["TAGREFS"] {
                box.role = refs.split(separator: " ").lazy.compactMap { roles[String($0)] }.first.map { TextRole(rawValue: $0) }
            }
            if let pc = number(block.attributes["PC"]), (0...1).contains(pc) { box.confidence = pc }
            if lineElements.contains(where: { $0.attributes["BASEDIRECTION"] == "ttb" }) { box.orientation = .vertical }
            boxes.append(box)
        }
        return ImportedPageText(width: width, height: height, boxes: boxes)
    }

    /// Text boxes from an hOCR document: one per `ocr_carea` (or per `ocr_par` when the producer
    /// wrote no areas), lines from `ocr_line`-like spans, words from `ocrx_word`.
    public static func hocr(_ bytes: [UInt8], file: String, defaultLanguage: String) throws(FormatError) -> ImportedPageText {
        let root = try XMLReader.parse(bytes, file: file)
        guard root.name == "html" else { throw .unsupportedDocument(file: file, reason: "not hOCR: the root element is <\(root.name)>, not <html>") }
        let all = [root] + root.descendants("div") + root.descendants("p") + root.descendants("span")
        func hasClass(_ e: MarkupElement, _ c: String) -> Bool { (e.attributes["class"] ?? "").split(separator: " ").contains { $0 == c } }
        guard let page = all.first(where: { hasClass($0, "ocr_page") }) else {
            throw .unsupportedDocument(file: file, reason: "not hOCR: no element of class ocr_page")
        }
        let pageBox = bbox(page.attributes["title"])
        var areas = all.filter { hasClass($0, "ocr_carea") }
        if areas.isEmpty { areas = all.filter { hasClass($0, "ocr_par") } }
        let lineClasses = ["ocr_line", "ocrx_line", "ocr_header", "ocr_caption", "ocr_textfloat"]
        var ids = IDAssigner()
        var boxes: [TextBox] = []
        for area in areas {
            guard let rect = bbox(area.attributes["title"]) else {
                throw .unsupportedDocument(file: file, reason: "\(area.attributes["class"] ?? "area") \(area.attributes["id"] ?? "#\(boxes.count + 1)") has no bbox")
            }
            let inner = [area] + area.descendants("p") + area.descendants("span")
            let language = inner.lazy.compactMap { $0.attributes["lang"] ?? $0.attributes["xml:lang"] }.first.flatMap(LanguageTag.normalized)
            let lineElements = inner.filter { e in lineClasses.contains { hasClass(e, $0) } }
            var lines: [String]
            if lineElements.isEmpty {
                lines = [area.allText.collapsedWhitespace]
            } else {
                lines = lineElements.map { line in
                    let words = line.descendants("span").filter { hasClass($0, "ocrx_word") }
                    return words.isEmpty ? line.allText.collapsedWhitespace : words.map { $0.allText.collapsedWhitespace }.filter { !$0.isEmpty }.joined(separator: " ")
                }
            }
            lines = lines.filter { !$0.isEmpty }
            var box = TextBox(id: ids.assign(area.attributes["id"], prefix: "block_"), rect: rect)
            if !lines.isEmpty { box.text[language ?? defaultLanguage] = lines.joined(separator: "\n") }
            box.language = language
            box.order = boxes.count + 1
            boxes.append(box)
        }
        return ImportedPageText(width: pageBox.map { $0.x + $0.width }, height: pageBox.map { $0.y + $0.height }, boxes: boxes)
    }

    static func number(_ s: String?) -> Double? {
        guard let s, let v = Double(s.trimmed), v.isFinite else { return nil }
        return v
    }

    /// A pixel rect from float attributes: the smallest whole-pixel rect that covers them.
    static func rect(x: String?, y: String?, w: String?, h: String?) -> PixelRect? {
        guard let x = number(x), let y = number(y), let w = number(w), let h = number(h), w > 0, h > 0, x > -1e9, y > -1e9, w < 1e9, h < 1e9 else { return nil }
        let x0 = Int(x.rounded(.down)), y0 = Int(y.rounded(.down))
        let x1 = Int((x + w).rounded(.up)), y1 = Int((y + h).rounded(.up))
        return PixelRect(x: x0, y: y0, width: max(x1 - x0, 1), height: max(y1 - y0, 1))
    }

    /// The `bbox x0 y0 x1 y1` property of an hOCR title.
    static func bbox(_ title: String?) -> PixelRect? {
        guard let title else { return nil }
        for property in title.split(separator: ";") {
            let parts = property.split(separator: " ").map(String.init)
            guard parts.first == "bbox", parts.count == 5 else { continue }
            let v = parts.dropFirst().compactMap { Int($0) }
            guard v.count == 4, v[2] > v[0], v[3] > v[1], v.allSatisfy({ abs($0) < 1_000_000_000 }) else { return nil }
            return PixelRect(x: v[0], y: v[1], width: v[2] - v[0], height: v[3] - v[1])
        }
        return nil
    }
}

/// Box ids for imported blocks: the document's own id (without our export's prefix) when it is a
/// valid, unused box id; b1, b2, … otherwise.
struct IDAssigner {
    private var used: Set<String> = []
    private var counter = 0

    mutating func assign(_ proposed: String?, prefix: String) -> String {
        if var id = proposed {
            if id.hasPrefix(prefix), id.count > prefix.count { id = String(id.dropFirst(prefix.count)) }
            if TextBox.isSafeID(id), used.insert(id).inserted { return id }
        }
        while true {
            counter += 1
            let id = "b\(counter)"
            if used.insert(id).inserted { return id }
        }
    }
}

extension String {
    var trimmed: String {
        let scalars = unicodeScalars.drop { $0.properties.isWhitespace }.reversed().drop { $0.properties.isWhitespace }.reversed()
        return String(String.UnicodeScalarView(scalars))
    }

    /// Runs of whitespace (hOCR's indentation and line breaks) as one space, trimmed.
    var collapsedWhitespace: String {
        split(whereSeparator: { $0.isWhitespace }).joined(separator: " ")
    }
}
