// EPUB 3 fixed layout: the book as e-readers (Apple Books, Kobo, Thorium, Readium) show picture
// books. Every page is one XHTML document whose viewport is the scan's size, so a reader lays it
// out like the print; spreads are declared with page-spread-left/right so two-page illustrations
// meet at the fold, and right-to-left books turn the other way. Over each scan lies the
// transcription as real, transparent text positioned on its box — selectable, searchable and read
// aloud — in every language the box has. After the scans come the ClearText editions, one per
// language: the page cleared of its printed text (BOOK/clear/ when `picturebook clear` has run)
// with the text typeset visibly in that language.

public import BookModel
import Layout

public enum EPUB {
    public struct Options: Sendable {
        /// Add a ClearText edition per language after the scanned pages.
        public var clearText: Bool
        /// `dcterms:modified`, required by EPUB: "YYYY-MM-DDThh:mm:ssZ".
        public var modified: String

        public init(clearText: Bool = true, modified: String) {
            self.clearText = clearText
            self.modified = modified
        }
    }

    /// The EPUB of `book`. `scans[k]` are the bytes of page k+1's scan (PNG or JPEG); `cleared[k]`,
    /// when present, its cleared image, which must have the scan's size.
    public static func archive(book: Book, scans: [[UInt8]], cleared: [[UInt8]?], options: Options) throws(FormatError) -> [UInt8] {
        let n = book.pages.count
        var zip = ZipWriter()
        // EPUB's one hard packaging rule: `mimetype` first, stored, no extra field.
        try zip.add("mimetype", Array("application/epub+zip".utf8), method: .store)
        try zip.add("META-INF/container.xml", Array(container.utf8))
        try zip.add("OEBPS/style.css", Array(stylesheet.utf8))

        let main = book.languages.first ?? "und"
        var manifest: [String] = []
        var spine: [String] = []
        let sides = spreadProperties(book)

        var scanNames: [String] = []
        for k in 0..<n {
            guard k < scans.count else { throw .missingImage(page: k + 1, file: book.pages[k].image) }
            guard let ext = MediaType.imageExtension(of: scans[k]), let type = MediaType.image(of: scans[k]) else {
                throw .unsupportedImage(file: book.pages[k].image)
            }
            let name = "images/scan-\(pad(k + 1)).\(ext)"
            scanNames.append(name)
            try zip.add("OEBPS/" + name, scans[k], method: .store)
            manifest.append(item(id: "img-scan-\(k + 1)", href: name, type: type, properties: k == 0 ? "cover-image" : nil))
        }
        for k in 0..<n {
            let href = "pages/scan-\(pad(k + 1)).xhtml"
            try zip.add("OEBPS/" + href, Array(scanPage(book: book, number: k + 1, image: scanNames[k]).utf8))
            manifest.append(item(id: "scan-\(k + 1)", href: href, type: "application/xhtml+xml"))
            spine.append(itemref("scan-\(k + 1)", sides[k]))
        }

        var sections: [(title: String, first: String, language: String)] = [
            (book.title.text(for: main) ?? "", "pages/scan-\(pad(1)).xhtml", main),
        ]
        if options.clearText {
            var clearedNames: [String?] = []
            for k in 0..<n {
                guard k < cleared.count, let bytes = cleared[k] else {
                    clearedNames.append(nil)
                    continue
                }
                guard let ext = MediaType.imageExtension(of: bytes), let type = MediaType.image(of: bytes) else {
                    throw .unsupportedImage(file: "clear/" + BookDirectory.stem(of: book.pages[k].image))
                }
                let name = "images/clear-\(pad(k + 1)).\(ext)"
                try zip.add("OEBPS/" + name, bytes, method: .store)
                manifest.append(item(id: "img-clear-\(k + 1)", href: name, type: type))
                clearedNames.append(name)
            }
            for (li, language) in book.languages.enumerated() {
                for k in 0..<n {
                    let href = "pages/clear-\(li + 1)-\(pad(k + 1)).xhtml"
                    let page = clearPage(book: book, number: k + 1, language: language, image: clearedNames[k] ?? scanNames[k], cleared: clearedNames[k] != nil)
                    try zip.add("OEBPS/" + href, Array(page.utf8))
                    manifest.append(item(id: "clear-\(li + 1)-\(k + 1)", href: href, type: "application/xhtml+xml"))
                    spine.append(itemref("clear-\(li + 1)-\(k + 1)", sides[k]))
                }
                let title = (book.title.text(for: language) ?? "") + " — ClearText"
                sections.append((title, "pages/clear-\(li + 1)-\(pad(1)).xhtml", language))
            }
        }
        try zip.add("OEBPS/nav.xhtml", Array(navigation(book: book, sections: sections).utf8))
        manifest.insert(item(id: "nav", href: "nav.xhtml", type: "application/xhtml+xml", properties: "nav"), at: 0)
        // PopoutText as EPUB Region-Based Navigation: a reading system that supports it zooms from
        // text box to text box of the scans, as the reader's popouts do. A book without boxes has
        // no regions, and an empty region list is not allowed, so it gets no such document.
        if let regions = regionNavigation(book: book) {
            try zip.add("OEBPS/regions.xhtml", Array(regions.utf8))
            manifest.insert(item(id: "regions", href: "regions.xhtml", type: "application/xhtml+xml", properties: "data-nav"), at: 1)
        }
        manifest.insert(item(id: "css", href: "style.css", type: "text/css"), at: 1)
        try zip.add("OEBPS/content.opf", Array(package(book: book, options: options, manifest: manifest, spine: spine).utf8))
        return zip.finish()
    }

    // MARK: - Package document

    static let container = """
        <?xml version="1.0" encoding="UTF-8"?>
        <container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
          <rootfiles>
            <rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/>
          </rootfiles>
        </container>

        """

    static func package(book: Book, options: Options, manifest: [String], spine: [String]) -> String {
        let main = book.languages.first ?? "und"
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<package xmlns=\"http://www.idpf.org/2007/opf\" version=\"3.0\" unique-identifier=\"bookid\"" + XMLText.attribute("xml:lang", main) + ">\n"
        s += "  <metadata xmlns:dc=\"http://purl.org/dc/elements/1.1/\">\n"
        s += "    <dc:identifier id=\"bookid\">urn:picturebook:\(identifier(book))</dc:identifier>\n"
        s += "    <dc:title>" + XMLText.escape(book.title.text(for: main) ?? "Untitled") + "</dc:title>\n"
        for l in book.languages { s += "    <dc:language>" + XMLText.escape(l) + "</dc:language>\n" }
        if let a = book.author?.text(for: main) { s += "    <dc:creator>" + XMLText.escape(a) + "</dc:creator>\n" }
        if let i = book.illustrator?.text(for: main) { s += "    <dc:contributor>" + XMLText.escape(i) + "</dc:contributor>\n" }
        if let p = book.publisher?.text(for: main) { s += "    <dc:publisher>" + XMLText.escape(p) + "</dc:publisher>\n" }
        if let l = book.license { s += "    <dc:rights>" + XMLText.escape(l) + "</dc:rights>\n" }
        if let src = book.source { s += "    <dc:source>" + XMLText.escape(src) + "</dc:source>\n" }
        s += "    <meta property=\"dcterms:modified\">" + XMLText.escape(options.modified) + "</meta>\n"
        s += "    <meta property=\"rendition:layout\">pre-paginated</meta>\n"
        // Spreads on a landscape screen, one page in portrait: how the printed book reads.
        s += "    <meta property=\"rendition:spread\">landscape</meta>\n"
        s += "    <meta property=\"rendition:orientation\">auto</meta>\n"
        s += "  </metadata>\n  <manifest>\n"
        for m in manifest { s += "    " + m + "\n" }
        s += "  </manifest>\n"
        s += "  <spine" + (book.readingDirection == .rightToLeft ? " page-progression-direction=\"rtl\"" : " page-progression-direction=\"ltr\"") + ">\n"
        for r in spine { s += "    " + r + "\n" }
        s += "  </spine>\n</package>\n"
        return s
    }

    static func item(id: String, href: String, type: String, properties: String? = nil) -> String {
        "<item" + XMLText.attribute("id", id) + XMLText.attribute("href", href) + XMLText.attribute("media-type", type)
            + (properties.map { XMLText.attribute("properties", $0) } ?? "") + "/>"
    }

    static func itemref(_ id: String, _ properties: String) -> String {
        "<itemref" + XMLText.attribute("idref", id) + XMLText.attribute("properties", properties) + "/>"
    }

    /// Which side of the opening each page takes, from the same spread rules the reader uses
    /// (Layout's landscape screens): the two pages of a pair left and right in reading
    /// direction, and a page that stands alone (the cover, a page marked single, a double page
    /// scanned whole, a page without a partner) centred, so the next pair starts on a fresh opening.
    static func spreadProperties(_ book: Book) -> [String] {
        var out = Array(repeating: "rendition:page-spread-center", count: book.pages.count)
        let rtl = book.readingDirection == .rightToLeft
        for screen in SpreadComposer().screens(for: book, orientation: .landscape) where screen.pages.count == 2 {
            out[screen.pages[0] - 1] = rtl ? "page-spread-right" : "page-spread-left"
            out[screen.pages[1] - 1] = rtl ? "page-spread-left" : "page-spread-right"
        }
        return out
    }

    /// A stable identifier from the book's title and scans, so re-exporting the same book gives
    /// the same EPUB identity (readers use it to keep the reading position).
    static func identifier(_ book: Book) -> String {
        var h: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ s: String) {
            for b in s.utf8 { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
            h = (h ^ 0xFF) &* 0x100_0000_01b3
        }
        mix(book.title.description)
        for p in book.pages { mix(p.image); mix("\(p.width)x\(p.height)") }
        let hex = String(h, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    static func pad(_ n: Int) -> String {
        let s = String(n)
        return String(repeating: "0", count: max(0, 4 - s.count)) + s
    }
}
