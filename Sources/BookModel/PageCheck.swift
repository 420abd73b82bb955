// Checking a book after one page of it changed, without decoding and validating every other page
// again: the editor's saves do this, and on a long book the whole-book check was most of a save.

extension Book {
    /// Page `index` (0-based) replaced by `value`, checked as `Book.decode` would check it: the
    /// page's own decoding and checks, and the book-level checks a page can break (a page marked
    /// "single" inside a spread). The other pages must already have passed a whole-book check;
    /// their checks cannot change, since ids and reading order are unique per page only and the
    /// page's image and size (which spreads and glossary regions use) stay as they were.
    /// Diagnostics carry no file location; decode the whole book when an error is to be shown.
    public func replacingPage(_ value: JSONValue, at index: Int, baseDirectory: String?) -> (book: Book, diagnostics: [Diagnostic]) {
        let path = JSONPath.root / "pages" / index
        var decoder = ManifestDecoder()
        let page = decoder.decodePage(value, at: path)
        var book = self
        guard book.pages.indices.contains(index) else {
            return (book, [.error(JSONPath.root / "pages", "the book has no page \(index + 1)")])
        }
        book.pages[index] = page
        var v = Validator(book: book, skip: decoder.poisoned, baseDirectory: baseDirectory, imageSize: nil)
        // Another page using the same image is only a warning, and the image cannot change.
        var images: [String: Int] = [:]
        v.checkPage(page, index: index, firstPageForImage: &images)
        v.checkSpreads()
        return (book, decoder.diagnostics + v.diagnostics)
    }
}
