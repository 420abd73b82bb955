// CBZ, the comic-book archive: the page images in a zip, in reading order by name, with a
// ComicInfo.xml (the ComicRack schema every comic reader reads) saying the title, creators, the
// reading direction (Manga=YesAndRightToLeft turns pages right to left) and which images are
// double pages. Comic readers pair pages on their own parity, so a book's spreads — two scans that
// must be seen together — are joined into one wide image by the caller and flagged DoublePage.

public import BookModel
import Layout

public enum CBZ {
    /// One image of the archive: a page's scan, or two pages of a spread joined side by side.
    public struct Image: Sendable {
        public var bytes: [UInt8]
        public var width: Int
        public var height: Int
        /// 1-based page numbers in reading order: one, or the two pages of a spread.
        public var pages: [Int]

        public init(bytes: [UInt8], width: Int, height: Int, pages: [Int]) {
            self.bytes = bytes
            self.width = width
            self.height = height
            self.pages = pages
        }
    }

    /// Which pages go into each image, in order: the book's spreads joined, every other page alone.
    public static func plan(_ book: Book) -> [[Int]] {
        var groups: [[Int]] = []
        var k = 1
        while k <= book.pages.count {
            if let s = book.spread(containing: k), s.first == k, s.second == k + 1 {
                groups.append([k, k + 1])
                k += 2
            } else {
                groups.append([k])
                k += 1
            }
        }
        return groups
    }

    public static func archive(book: Book, images: [Image], timestamp: ZipWriter.Timestamp = .init(year: 1980, month: 1, day: 1)) throws(FormatError) -> [UInt8] {
        var zip = ZipWriter(timestamp: timestamp)
        let digits = max(4, String(images.count).count)
        let composer = SpreadComposer()
        var pageEntries = ""
        for (k, image) in images.enumerated() {
            guard let ext = MediaType.imageExtension(of: image.bytes) else {
                throw .unsupportedImage(file: image.pages.map { book.pages[$0 - 1].image }.joined(separator: " + "))
            }
            let number = String(k + 1)
            let name = String(repeating: "0", count: digits - number.count) + number + "." + ext
            try zip.add(name, image.bytes, method: .store)
            let first = book.pages[image.pages[0] - 1]
            let type = first.role == .cover ? "FrontCover" : first.role == .backCover ? "BackCover" : "Story"
            let double = image.pages.count == 2 || composer.isWideScan(image.pages[0], in: book)
            pageEntries += "    <Page" + XMLText.attribute("Image", k) + XMLText.attribute("Type", type)
            if double { pageEntries += " DoublePage=\"true\"" }
            pageEntries += XMLText.attribute("ImageSize", image.bytes.count) + XMLText.attribute("ImageWidth", image.width)
            pageEntries += XMLText.attribute("ImageHeight", image.height) + "/>\n"
        }
        try zip.add("ComicInfo.xml", comicInfo(book: book, imageCount: images.count, pages: pageEntries))
        return zip.finish()
    }

    /// ComicInfo.xml (schema v2.0; its elements are a sequence, so the order here is the schema's).
    static func comicInfo(book: Book, imageCount: Int, pages: String) -> [UInt8] {
        let main = book.languages.first ?? "und"
        func element(_ name: String, _ value: String?) -> String {
            guard let value, !value.isEmpty else { return "" }
            return "  <\(name)>\(XMLText.escape(value))</\(name)>\n"
        }
        var s = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        s += "<ComicInfo xmlns:xsi=\"http://www.w3.org/2001/XMLSchema-instance\" xmlns:xsd=\"http://www.w3.org/2001/XMLSchema\">\n"
        s += element("Title", book.title.text(for: main))
        s += element("Summary", book.subtitle?.text(for: main))
        s += element("Year", book.year.map(String.init))
        s += element("Writer", book.author?.text(for: main))
        s += element("Penciller", book.illustrator?.text(for: main))
        s += element("Publisher", book.publisher?.text(for: main))
        s += element("PageCount", String(imageCount))
        // LanguageISO takes one code; the main language is the one the scans are printed in.
        s += element("LanguageISO", main)
        s += element("Manga", book.readingDirection == .rightToLeft ? "YesAndRightToLeft" : "No")
        s += element("ScanInformation", book.source)
        s += "  <Pages>\n" + pages + "  </Pages>\n"
        s += "</ComicInfo>\n"
        return Array(s.utf8)
    }
}

/// Image types by content (the first bytes), not by file name.
enum MediaType {
    static func isJPEG(_ b: [UInt8]) -> Bool { b.count >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF }
    static func isPNG(_ b: [UInt8]) -> Bool { b.count >= 8 && b[0..<8].elementsEqual([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) }

    static func imageExtension(of b: [UInt8]) -> String? { isJPEG(b) ? "jpg" : isPNG(b) ? "png" : nil }
    static func image(of b: [UInt8]) -> String? { isJPEG(b) ? "image/jpeg" : isPNG(b) ? "image/png" : nil }
}
