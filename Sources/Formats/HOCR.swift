// hOCR: OCR results as XHTML, the format Tesseract, OCRopus and many archive tools read. One
// document per page: the page, a content area per text box, a paragraph carrying the box's
// language and direction, then lines and words, each with its `bbox` (x0 y0 x1 y1, pixels, x1/y1
// exclusive) in the `title` attribute as the hOCR spec asks.

public import BookModel

public enum HOCR {
    /// p01.jpg → p01.hocr, beside the scan where `picturebook import` looks for it.
    public static func fileName(for page: Page) -> String { BookDirectory.stem(of: page.image) + ".hocr" }

    public static func document(book: Book, pageNumber number: Int) -> [UInt8] {
        let page = book.pages[number - 1]
        let main = book.languages.first ?? "und"
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<!DOCTYPE html PUBLIC \"-//W3C//DTD XHTML 1.0 Transitional//EN\" \"http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd\">\n"
        s += "<html xmlns=\"http://www.w3.org/1999/xhtml\"" + XMLText.attribute("xml:lang", main) + XMLText.attribute("lang", main) + ">\n"
        s += "<head>\n<title>" + XMLText.escape("\(book.title.text(for: main) ?? "") — page \(number)") + "</title>\n"
        s += "<meta http-equiv=\"Content-Type\" content=\"text/html;charset=utf-8\"/>\n"
        s += "<meta name=\"ocr-system\" content=\"Picturebook\"/>\n"
        s += "<meta name=\"ocr-capabilities\" content=\"ocr_page ocr_carea ocr_par ocr_line ocrx_word\"/>\n"
        s += "<meta name=\"ocr-number-of-pages\" content=\"1\"/>\n"
        s += "</head>\n<body>\n"
        s += "<div class=\"ocr_page\" id=\"page_\(number)\""
        s += XMLText.attribute("title", "image \"\(quotedPath(page.image))\"; bbox 0 0 \(page.width) \(page.height); ppageno \(number - 1)") + ">\n"
        var lineCounter = 0, wordCounter = 0
        for box in page.textBoxesInReadingOrder {
            let language = box.language ?? main
            let text = box.text[language] ?? box.text.entries.first?.text ?? ""
            let r = box.rect
            s += "<div class=\"ocr_carea\"" + XMLText.attribute("id", "block_" + box.id) + XMLText.attribute("title", bbox(r.x, r.y, r.width, r.height)) + ">\n"
            s += "<p class=\"ocr_par\"" + XMLText.attribute("id", "par_" + box.id) + XMLText.attribute("lang", language)
            s += XMLText.attribute("xml:lang", language) + XMLText.attribute("dir", Script.direction(language))
            s += XMLText.attribute("title", bbox(r.x, r.y, r.width, r.height)) + ">\n"
            let layout = TextLayout(text: text, x: r.x, y: r.y, width: r.width, height: r.height, vertical: box.orientation == .vertical, rightToLeft: Script.isRightToLeft(language))
            for line in layout.lines {
                lineCounter += 1
                s += "<span class=\"ocr_line\" id=\"line_\(lineCounter)\"" + XMLText.attribute("title", bbox(line.x, line.y, line.width, line.height)) + ">"
                for (k, w) in line.words.enumerated() {
                    wordCounter += 1
                    if k > 0 { s += " " }
                    s += "<span class=\"ocrx_word\" id=\"word_\(wordCounter)\"" + XMLText.attribute("title", bbox(w.x, w.y, w.width, w.height)) + ">"
                    s += XMLText.escape(w.text) + "</span>"
                }
                s += "</span>\n"
            }
            s += "</p>\n</div>\n"
        }
        s += "</div>\n</body>\n</html>\n"
        return Array(s.utf8)
    }

    static func bbox(_ x: Int, _ y: Int, _ w: Int, _ h: Int) -> String { "bbox \(x) \(y) \(x + w) \(y + h)" }

    /// The image property is a quoted string in hOCR; a quote or backslash in a path is escaped.
    static func quotedPath(_ p: String) -> String {
        var out = ""
        for c in p {
            if c == "\\" || c == "\"" { out.append("\\") }
            out.append(c)
        }
        return out
    }
}
