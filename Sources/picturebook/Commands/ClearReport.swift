// What `clear --report` prints and `clear --json` writes: every box of the book left as scanned,
// with the reason `clear` gave (this run's, or the one recorded in book.json for pages up to date).

import ArgumentParser
import BookModel
import Geometry

struct ClearReport: Encodable {
    struct Entry: Encodable {
        /// 1-based, in the book's order.
        var page: Int
        var image: String
        var box: String
        var rect: PixelRect
        /// The reason's name (book.json `reviewReason`); null when not known (a book cleared before
        /// reasons were recorded).
        var reason: String?
        var description: String

        /// The line `--report` prints.
        var line: String {
            "page \(page) (\(image)) box \(box) at \(rect): left as scanned; "
                + description
        }
    }

    var book: String
    var out: String
    var cleared: Int
    var upToDate: Int
    var failed: Int
    var review: [Entry]

    /// Every flagged box of the book in `directory`: this run's reason where the page was cleared
    /// now, else the one book.json records.
    static func entries(directory: String, reasons: [String: [ReviewReason?]]) throws -> [Entry] {
        let model: Book
        do { model = try Book.load(directory: directory).book } catch {
            Console.error("clear: \(error)")
            throw ExitCode.failure
        }
        var out: [Entry] = []
        for (n, page) in model.pages.enumerated() {
            let why = reasons[page.image] ?? []
            for (j, box) in page.textBoxes.enumerated() where box.needsReview {
                let reason = (j < why.count ? why[j] : nil) ?? box.reviewReason
                out.append(Entry(
                    page: n + 1, image: page.image, box: box.id, rect: box.rect,
                    reason: reason?.rawValue,
                    description: reason?.description
                        ?? "its ink could not be shown to be type alone, or its fill was not clean (run with --force for the reason)"))
            }
        }
        return out
    }
}
