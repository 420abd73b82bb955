// The XHTML documents of the EPUB export: scan pages with their invisible text layer, ClearText
// pages with visible text, and the navigation document.

import BookModel

extension EPUB {
    static let stylesheet = """
        html, body { margin: 0; padding: 0; }
        body { position: relative; overflow: hidden; }
        img.page { position: absolute; left: 0; top: 0; width: 100%; height: 100%; }
        div.box { position: absolute; overflow: hidden; margin: 0; }
        /* The text layer over a scan: there to be found, selected and read aloud, never seen. */
        div.box.layer p { color: transparent; position: absolute; left: 0; top: 0; width: 100%; height: 100%; margin: 0; line-height: 1.15; font-family: serif; }
        div.box.clear { display: flex; flex-direction: column; justify-content: center; }
        div.box.clear p { margin: 0; line-height: 1.2; font-family: serif; text-align: center; }
        .vertical { writing-mode: vertical-lr; }

        """

    static func head(title: String, language: String, width: Int, height: Int) -> String {
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n"
        s += "<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\""
        s += XMLText.attribute("xml:lang", language) + XMLText.attribute("lang", language) + ">\n<head>\n"
        s += "<meta charset=\"utf-8\"/>\n<title>" + XMLText.escape(title) + "</title>\n"
        s += "<meta name=\"viewport\" content=\"width=\(width), height=\(height)\"/>\n"
        s += "<link rel=\"stylesheet\" type=\"text/css\" href=\"../style.css\"/>\n</head>\n"
        s += "<body style=\"width: \(width)px; height: \(height)px;\">\n"
        return s
    }

    static func pageTitle(book: Book, number: Int, language: String) -> String {
        let page = book.pages[number - 1]
        return (book.title.text(for: language) ?? "") + " — " + (page.label.map { "page \($0)" } ?? "page \(number)")
    }

    static func boxStyle(_ r: (x: Int, y: Int, width: Int, height: Int)) -> String {
        "left: \(r.x)px; top: \(r.y)px; width: \(r.width)px; height: \(r.height)px;"
    }

    /// A font size that fits `text` in a box of `width`×`height` pixels: the size at which its
    /// characters (at about half an em wide, 1.2 em a line) fill most of the area, capped by the
    /// height of one line per printed line. An estimate — EPUB cannot measure text — that errs small.
    static func fontSize(text: String, width: Int, height: Int, vertical: Bool) -> Int {
        let chars = max(text.unicodeScalars.filter { !$0.properties.isWhitespace }.count, 1)
        let lines = max(text.split(separator: "\n").count, 1)
        let across = Double(vertical ? width : height)
        let area = Double(width) * Double(height) * 0.7
        let byArea = (area / (Double(chars) * 0.6 * 1.2)).squareRoot()
        let byLines = across / (Double(lines) * 1.25)
        return max(Int(min(byArea, byLines)), 4)
    }

    /// A scan page: the scan filling the viewport, and over each text box its text in every
    /// language, transparent.
    static func scanPage(book: Book, number: Int, image: String) -> String {
        let page = book.pages[number - 1]
        let main = book.languages.first ?? "und"
        var s = head(title: pageTitle(book: book, number: number, language: main), language: main, width: page.width, height: page.height)
        s += "<img class=\"page\"" + XMLText.attribute("src", "../" + image)
        s += XMLText.attribute("alt", page.textBoxes.isEmpty ? "Page \(page.label ?? String(number))" : "") + "/>\n"
        for box in page.textBoxesInReadingOrder where !box.text.isEmpty {
            let r = box.rect
            let vertical = box.orientation == .vertical
            s += "<div" + XMLText.attribute("class", "box layer") + XMLText.attribute("id", "box-" + box.id)
            s += XMLText.attribute("style", boxStyle((r.x, r.y, r.width, r.height))) + ">\n"
            let printed = box.language ?? main
            // The printed language first: it is what the scan shows, so it is what a screen
            // reader should say first and what a search hit should select.
            let entries = box.text.entries.filter { $0.language == printed } + box.text.entries.filter { $0.language != printed }
            for e in entries {
                let size = fontSize(text: e.text, width: r.width, height: r.height, vertical: vertical)
                s += "<p" + XMLText.attribute("lang", e.language) + XMLText.attribute("xml:lang", e.language)
                s += XMLText.attribute("dir", Script.direction(e.language))
                if vertical { s += XMLText.attribute("class", "vertical") }
                s += XMLText.attribute("style", "font-size: \(size)px;") + ">" + lines(e.text) + "</p>\n"
            }
            s += "</div>\n"
        }
        s += "</body>\n</html>\n"
        return s
    }

    /// A ClearText page in `language`: the cleared scan (or, before `clear` has run, the scan
    /// with each box painted over in its background colour) and the text typeset visibly.
    static func clearPage(book: Book, number: Int, language: String, image: String, cleared: Bool) -> String {
        let page = book.pages[number - 1]
        var s = head(title: pageTitle(book: book, number: number, language: language) + " (ClearText)", language: language, width: page.width, height: page.height)
        s += "<img class=\"page\"" + XMLText.attribute("src", "../" + image) + XMLText.attribute("alt", "") + "/>\n"
        // On a cleared picture a box left as scanned (a page number: any other sends the page to
        // its scan) keeps its print, and is not drawn again.
        for box in page.textBoxesInReadingOrder where !(cleared && box.needsReview) {
            guard let text = box.text[language] ?? (box.text.isEmpty ? nil : box.text.entries.first?.text) else { continue }
            let textLanguage = box.text[language] != nil ? language : (box.text.entries.first?.language ?? language)
            let r = box.rect
            let vertical = box.orientation == .vertical
            var style = boxStyle((r.x, r.y, r.width, r.height))
            let ink = box.inkColor?.hex ?? (box.polarity == .lightOnDark ? "#ffffff" : "#1a1a1a")
            style += " color: \(ink);"
            if !cleared {
                let paper = box.backgroundColor?.hex ?? (box.polarity == .lightOnDark ? "#1a1a1a" : "#ffffff")
                style += " background-color: \(paper);"
            }
            let size = fontSize(text: text, width: r.width, height: r.height, vertical: vertical)
            s += "<div" + XMLText.attribute("class", "box clear") + XMLText.attribute("id", "box-" + box.id) + XMLText.attribute("style", style) + ">\n"
            s += "<p" + XMLText.attribute("lang", textLanguage) + XMLText.attribute("xml:lang", textLanguage)
            s += XMLText.attribute("dir", Script.direction(textLanguage))
            if vertical { s += XMLText.attribute("class", "vertical") }
            s += XMLText.attribute("style", "font-size: \(size)px;") + ">" + lines(text) + "</p>\n</div>\n"
        }
        s += "</body>\n</html>\n"
        return s
    }

    /// The Data Navigation Document of EPUB Region-Based Navigation 1.0: one `text-area` region
    /// per text box, in page and reading order, each a link to its scan page with the box as a
    /// Media Fragment (`#xywh=x,y,w,h`, in the page's CSS pixels, which are the scan's pixels).
    /// Nil when no page has a box.
    static func regionNavigation(book: Book) -> String? {
        let main = book.languages.first ?? "und"
        var items = ""
        for (k, page) in book.pages.enumerated() {
            for box in page.textBoxesInReadingOrder {
                let r = box.rect
                // The links carry no label: the spec's regions are places, not headings, and
                // epubcheck warns on text in them. The text itself is in the page's text layer.
                items += "<li epub:type=\"text-area\"><a" + XMLText.attribute("href", "pages/scan-\(pad(k + 1)).xhtml#xywh=\(r.x),\(r.y),\(r.width),\(r.height)") + "></a></li>\n"
            }
        }
        guard !items.isEmpty else { return nil }
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n"
        s += "<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\""
        s += XMLText.attribute("xml:lang", main) + XMLText.attribute("lang", main) + ">\n<head>\n<meta charset=\"utf-8\"/>\n"
        s += "<title>" + XMLText.escape((book.title.text(for: main) ?? "") + " — text regions") + "</title>\n</head>\n<body>\n"
        s += "<nav epub:type=\"region-based\" id=\"regions\">\n<ol>\n" + items + "</ol>\n</nav>\n</body>\n</html>\n"
        return s
    }

    /// Text with its line breaks kept as <br/>.
    static func lines(_ text: String) -> String {
        text.split(separator: "\n", omittingEmptySubsequences: false).map { XMLText.escape(String($0)) }.joined(separator: "<br/>")
    }

    /// The navigation document: a table of contents (the scanned book and each ClearText
    /// edition) and a page list with the printed page labels.
    static func navigation(book: Book, sections: [(title: String, first: String, language: String)]) -> String {
        let main = book.languages.first ?? "und"
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE html>\n"
        s += "<html xmlns=\"http://www.w3.org/1999/xhtml\" xmlns:epub=\"http://www.idpf.org/2007/ops\""
        s += XMLText.attribute("xml:lang", main) + XMLText.attribute("lang", main) + ">\n<head>\n<meta charset=\"utf-8\"/>\n"
        s += "<title>" + XMLText.escape(book.title.text(for: main) ?? "") + "</title>\n</head>\n<body>\n"
        s += "<nav epub:type=\"toc\" id=\"toc\">\n<h1>Contents</h1>\n<ol>\n"
        for sec in sections {
            s += "<li><a" + XMLText.attribute("href", sec.first) + XMLText.attribute("lang", sec.language) + XMLText.attribute("xml:lang", sec.language)
            s += ">" + XMLText.escape(sec.title) + "</a></li>\n"
        }
        s += "</ol>\n</nav>\n"
        s += "<nav epub:type=\"page-list\" id=\"page-list\" hidden=\"hidden\">\n<h1>Pages</h1>\n<ol>\n"
        for (k, page) in book.pages.enumerated() {
            s += "<li><a" + XMLText.attribute("href", "pages/scan-\(pad(k + 1)).xhtml") + ">" + XMLText.escape(page.label ?? String(k + 1)) + "</a></li>\n"
        }
        s += "</ol>\n</nav>\n</body>\n</html>\n"
        return s
    }
}
