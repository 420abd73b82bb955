// Which of a page's boxes its cleared image left as scanned. The fill's checks put a box back to
// the scan when they cannot show its fill is clean; the reader must then show the page as the scan
// with PopoutText, or it would draw the native text over the printed one. `picturebook clear`
// records its verdicts in book.json; an image this server makes itself (a book never cleared, or
// a page edited since) carries its own, in a tEXt chunk of the PNG, written with the image in one
// file so the verdicts can only ever be those of the image being shown.

import BookModel
import Codecs
import FileIO
import Preparation

struct Clearance: Sendable, Equatable {
    struct Kept: Sendable, Equatable {
        /// The box's index in the page's `textBoxes`.
        let index: Int
        let reason: ReviewReason?
    }

    /// True for the book's own image from `picturebook clear` (judged by it: book.json's flags),
    /// false for one made by this server.
    let byClear: Bool
    let kept: [Kept]

    /// Whether the page of `boxes` is read as ClearText with these verdicts.
    func showsClearText(_ boxes: [TextBox]) -> Bool {
        !boxes.isEmpty && !kept.contains { boxes[$0.index].keptPrintTakesClearTextAway }
    }

    static let keyword = "picturebook-clearance"
    /// The chunk sits right after IHDR; its text is a line a box, so this holds hundreds of boxes.
    static let prefixBytes = 64 * 1024

    /// `png` with the verdicts of its boxes: the index and reason of each box left as scanned, a
    /// line each ("3 runsOn"; "-" for a reason not known), nothing when every box was cleared.
    static func stamp(_ png: [UInt8], flagged: [Bool], reasons: [ReviewReason?]) throws -> [UInt8] {
        let lines = flagged.indices.filter { flagged[$0] }.map { i in
            "\(i) \((i < reasons.count ? reasons[i] : nil)?.rawValue ?? "-")"
        }
        guard let stamped = PNGText.inserting(keyword: keyword, text: lines.joined(separator: "\n"), into: png) else {
            throw AssetError.failed("cannot record the boxes left as scanned in the cleared image")
        }
        return stamped
    }

    /// The verdicts a cleared image made here carries; nil when it carries none (not one of ours).
    static func read(_ prefix: [UInt8], boxCount: Int) -> [Kept]? {
        guard let text = PNGText.read(keyword: keyword, in: prefix) else { return nil }
        var kept: [Kept] = []
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: " ")
            guard parts.count == 2, let i = Int(parts[0]), i >= 0, i < boxCount else { return nil }
            kept.append(Kept(index: i, reason: ReviewReason(rawValue: String(parts[1]))))
        }
        return kept
    }
}

extension AssetStore {
    /// The verdicts on page `n`'s boxes of the cleared image the reader is sent for it (made here
    /// first if need be). A box book.json flags counts as kept whoever made the image: the reader
    /// shows its page as the scan whatever a newer fill made of it, until `clear` judges it again.
    func clearance(page n: Int, of book: LoadedBook) async throws -> Clearance {
        let (page, source, folder, label) = try located(page: n, of: book)
        let flagged = page.textBoxes.indices.filter { page.textBoxes[$0].needsReview }.map {
            Clearance.Kept(index: $0, reason: page.textBoxes[$0].reviewReason)
        }
        guard !page.textBoxes.isEmpty else { return Clearance(byClear: false, kept: []) }
        var prefix: [UInt8]?
        // Twice: the cache bound may remove the image between its making and this read.
        for _ in 0..<2 where prefix == nil {
            let full = try await clearedFile(book: book, page: page, source: source, sourceKey: SourceKey.of(source), folder: folder, label: label)
            guard full.madeHere else { return Clearance(byClear: true, kept: flagged) }
            let path = full.path
            prefix = try? await pool.run { try FileIO.readPrefix(path, count: Clearance.prefixBytes) }
        }
        guard let prefix else { throw AssetError.failed("cannot read the cleared image of \(label)") }
        guard let made = Clearance.read(prefix, boxCount: page.textBoxes.count) else {
            throw AssetError.failed("the cleared image of \(label) does not say which boxes it left as scanned")
        }
        var kept = flagged
        for k in made where !kept.contains(where: { $0.index == k.index }) { kept.append(k) }
        return Clearance(byClear: false, kept: kept.sorted { $0.index < $1.index })
    }
}
