// ALTO 4.4 (Analyzed Layout and Text Object), the Library of Congress format libraries use for
// the text of a scanned page: one document per page, one TextBlock per text box, lines and strings
// below it, positions in pixels of the scan. Only the printed text goes in — ALTO describes what
// is on the page, so a box's translations stay in book.json (and in the IIIF and EPUB exports).

public import BookModel

public enum ALTO {
    public static let namespace = "http://www.loc.gov/standards/alto/ns-v4#"
    static let schemaLocation = "http://www.loc.gov/standards/alto/v4/alto-4-4.xsd"

    /// The file name a page's ALTO gets: the scan's stem plus `.alto.xml` (p01.jpg → p01.alto.xml),
    /// so it sorts beside the scan and `picturebook import` finds it there.
    public static func fileName(for page: Page) -> String { BookDirectory.stem(of: page.image) + ".alto.xml" }

    /// The ALTO document of page `number` (1-based) of `book`.
    public static func document(book: Book, pageNumber number: Int) -> [UInt8] {
        let page = book.pages[number - 1]
        let boxes = page.textBoxesInReadingOrder
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<alto xmlns=\"\(namespace)\" xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\""
        s += " xsi:schemaLocation=\"\(namespace) \(schemaLocation)\" SCHEMAVERSION=\"4.4\">\n"
        s += "  <Description>\n    <MeasurementUnit>pixel</MeasurementUnit>\n"
        s += "    <sourceImageInformation>\n      <fileName>\(XMLText.escape(page.image))</fileName>\n    </sourceImageInformation>\n"
        s += "    <Processing ID=\"picturebook\">\n      <processingStepDescription>Text boxes and transcriptions from the book's book.json; line and word positions are estimated within each box</processingStepDescription>\n"
        s += "      <processingSoftware>\n        <softwareName>Picturebook</softwareName>\n      </processingSoftware>\n    </Processing>\n"
        s += "  </Description>\n"
        // Box roles (title, body, speech, …) have no attribute of their own in ALTO; RoleTags
        // referenced from each block carry them, which is what the Tags section is for.
        let roles = uniqueRoles(boxes)
        if !roles.isEmpty {
            s += "  <Tags>\n"
            for r in roles { s += "    <RoleTag" + XMLText.attribute("ID", roleTagID(r)) + XMLText.attribute("LABEL", r) + "/>\n" }
            s += "  </Tags>\n"
        }
        s += "  <Layout>\n"
        s += "    <Page" + XMLText.attribute("ID", "page\(number)") + XMLText.attribute("PHYSICAL_IMG_NR", number)
        if let label = page.label { s += XMLText.attribute("PRINTED_IMG_NR", label) }
        s += XMLText.attribute("WIDTH", page.width) + XMLText.attribute("HEIGHT", page.height) + ">\n"
        s += "      <PrintSpace" + XMLText.attribute("HPOS", 0) + XMLText.attribute("VPOS", 0)
        s += XMLText.attribute("WIDTH", page.width) + XMLText.attribute("HEIGHT", page.height) + ">\n"
        var lineCounter = 0, stringCounter = 0
        for box in boxes {
            let language = box.language ?? book.languages.first ?? "und"
            let text = box.text[language] ?? box.text.entries.first?.text ?? ""
            let r = box.rect
            s += "        <TextBlock" + XMLText.attribute("ID", blockID(box.id))
            s += XMLText.attribute("HPOS", r.x) + XMLText.attribute("VPOS", r.y)
            s += XMLText.attribute("WIDTH", r.width) + XMLText.attribute("HEIGHT", r.height)
            if let role = box.role { s += XMLText.attribute("TAGREFS", roleTagID(role.rawValue)) }
            if let c = box.confidence, c.isFinite, (0...1).contains(c) { s += " PC=\"\(c)\"" }
            s += XMLText.attribute("LANG", language)
            let layout = TextLayout(text: text, x: r.x, y: r.y, width: r.width, height: r.height, vertical: box.orientation == .vertical, rightToLeft: Script.isRightToLeft(language))
            if layout.lines.isEmpty {
                s += "/>\n"
                continue
            }
            s += ">\n"
            let direction = box.orientation == .vertical ? "ttb" : (Script.isRightToLeft(language) ? "rtl" : "ltr")
            for line in layout.lines {
                lineCounter += 1
                s += "          <TextLine" + XMLText.attribute("ID", "line\(lineCounter)")
                s += XMLText.attribute("HPOS", line.x) + XMLText.attribute("VPOS", line.y)
                s += XMLText.attribute("WIDTH", line.width) + XMLText.attribute("HEIGHT", line.height)
                s += XMLText.attribute("BASEDIRECTION", direction) + ">\n"
                for (k, w) in line.words.enumerated() {
                    if k > 0 { s += "            <SP/>\n" }
                    stringCounter += 1
                    s += "            <String" + XMLText.attribute("ID", "string\(stringCounter)")
                    s += XMLText.attribute("HPOS", w.x) + XMLText.attribute("VPOS", w.y)
                    s += XMLText.attribute("WIDTH", w.width) + XMLText.attribute("HEIGHT", w.height)
                    s += XMLText.attribute("CONTENT", w.text) + "/>\n"
                }
                s += "          </TextLine>\n"
            }
            s += "        </TextBlock>\n"
        }
        s += "      </PrintSpace>\n    </Page>\n  </Layout>\n</alto>\n"
        return Array(s.utf8)
    }

    /// Block IDs are XML IDs (NCNames: no leading digit), and box ids may start with one; the
    /// prefix makes every safe box id a valid ID, and the importer takes it off again. Line and
    /// string IDs use other prefixes, so no box id can collide with them.
    static func blockID(_ boxID: String) -> String { "block_" + boxID }
    static func roleTagID(_ role: String) -> String { "role_" + String(role.unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) }) }

    static func uniqueRoles(_ boxes: [TextBox]) -> [String] {
        var seen: [String] = []
        for b in boxes { if let r = b.role?.rawValue, !seen.contains(r) { seen.append(r) } }
        // Two roles differing only in characters the ID drops would share a tag ID; keep the first.
        var ids: Set<String> = []
        return seen.filter { ids.insert(roleTagID($0)).inserted }
    }
}

/// Which languages are written right to left, from the tag's script subtag or, without one, its
/// language's usual script — what ALTO's BASEDIRECTION, hOCR's dir and EPUB's dir attributes need.
enum Script {
    static let rightToLeftScripts: Set<String> = ["Arab", "Hebr", "Syrc", "Thaa", "Nkoo", "Adlm", "Rohg", "Samr", "Mand"]
    static let rightToLeftLanguages: Set<String> = ["ar", "he", "fa", "ur", "yi", "ps", "sd", "ug", "ckb", "dv", "arz", "ary", "apc", "prs"]

    static func isRightToLeft(_ tag: String) -> Bool {
        let parts = tag.split(separator: "-").map(String.init)
        if let script = parts.dropFirst().first(where: { $0.count == 4 }) { return rightToLeftScripts.contains(script) }
        return rightToLeftLanguages.contains(parts.first?.lowercased() ?? "")
    }

    static func direction(_ tag: String) -> String { isRightToLeft(tag) ? "rtl" : "ltr" }
}
