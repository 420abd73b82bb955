// Which pages share a cell of the overview grid.
//
// TEMPORARY: the Layout module (branch `layout`, `SpreadComposer.screens(for:orientation:)`) owns
// spread pairing for the reader. Until it is merged, this file applies the same rules so the
// overview shows what the reader will. When Layout lands, replace the body of `pageGroups(for:)`
// with a call to it (landscape screens map one-to-one onto `PageGroup`) and delete the rest.

import BookModel

/// One cell of the overview: a page alone, two facing pages, or a double page scanned whole.
struct PageGroup: Sendable, Hashable {
    enum Kind: Sendable, Hashable { case single, pair, wideScan }
    /// 1-based page numbers in reading order.
    var pages: [Int]
    /// The same pages left to right as printed: in a right-to-left book the first page read is
    /// the right-hand one.
    var visualOrder: [Int]
    var kind: Kind

    init(pages: [Int], direction: ReadingDirection, kind: Kind) {
        self.pages = pages
        self.visualOrder = direction == .rightToLeft ? pages.reversed() : pages
        self.kind = kind
    }

    /// Page slots the group takes in a grid row.
    var span: Int { kind == .single ? 1 : 2 }
}

enum Pairing {
    /// A scan this much wider (relative to the book's median page aspect) is a double page.
    static let wideScanRatio = 1.16

    /// The book's pages as overview cells, in reading order. The manifest's `spreads` pair first;
    /// the cover (an unlabelled first page), pages marked single or with a cover role, and
    /// double-page scans stand alone; every other page pairs with the next page free to pair;
    /// a page left without a partner (odd count, or before a lone page or a forced pair) stands
    /// alone.
    static func pageGroups(for book: Book) -> [PageGroup] {
        let n = book.pages.count
        let dir = book.readingDirection
        let aspects = book.pages.compactMap { p -> Double? in
            p.width > 0 && p.height > 0 ? Double(p.width) / Double(p.height) : nil
        }.sorted()
        let typical: Double
        if aspects.isEmpty {
            typical = 0.75
        } else {
            let m = aspects.count
            typical = m % 2 == 1 ? aspects[m / 2] : (aspects[m / 2 - 1] + aspects[m / 2]) / 2
        }
        func isWide(_ k: Int) -> Bool {
            let p = book.pages[k - 1]
            guard p.width > 0, p.height > 0 else { return false }
            return Double(p.width) / Double(p.height) >= typical * wideScanRatio
        }
        var forcedPartner: [Int: Int] = [:]
        var forced = Set<Int>()
        for s in book.spreads {
            let a = min(s.first, s.second), b = max(s.first, s.second)
            guard a >= 1, b <= n, b == a + 1, !forced.contains(a), !forced.contains(b) else { continue }
            forcedPartner[a] = b
            forced.formUnion([a, b])
        }
        func alone(_ k: Int) -> Bool {
            let p = book.pages[k - 1]
            return p.single || p.role == .cover || p.role == .backCover || (k == 1 && p.role == nil) || isWide(k)
        }
        var groups: [PageGroup] = []
        var k = 1
        while k <= n {
            if let b = forcedPartner[k] {
                groups.append(PageGroup(pages: [k, b], direction: dir, kind: .pair))
                k = b + 1
            } else if alone(k) {
                groups.append(PageGroup(pages: [k], direction: dir, kind: isWide(k) ? .wideScan : .single))
                k += 1
            } else if k + 1 <= n, !forced.contains(k + 1), !alone(k + 1) {
                groups.append(PageGroup(pages: [k, k + 1], direction: dir, kind: .pair))
                k += 2
            } else {
                groups.append(PageGroup(pages: [k], direction: dir, kind: .single))
                k += 1
            }
        }
        return groups
    }
}
