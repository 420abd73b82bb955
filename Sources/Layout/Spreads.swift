// Which pages share a screen. Portrait shows one page at a time; landscape shows facing pages
// the way the printed book opens.

public import BookModel

/// What one screen shows: one page or two facing pages.
public struct Screen: Sendable, Hashable, Codable, CustomStringConvertible {
    /// 1-based page numbers in reading order (the first is read first).
    public var pages: [Int]
    /// Page numbers left to right as they appear on screen: in a right-to-left book the first
    /// page read is on the right.
    public var visualOrder: [Int]
    public var kind: Kind

    public enum Kind: String, Sendable, Hashable, Codable {
        /// One page (portrait, the cover, a page marked single, the last page of an odd count).
        case single
        /// Two facing pages.
        case pair
        /// A scan that is itself a double page.
        case wideScan
    }

    public init(pages: [Int], direction: ReadingDirection, kind: Kind) {
        self.pages = pages
        self.visualOrder = direction == .rightToLeft ? pages.reversed() : pages
        self.kind = kind
    }

    /// A file-name stem: "p001" or "p002-003" (reading order).
    public var name: String {
        "p" + pages.map { n in
            let s = String(n)
            return String(repeating: "0", count: max(0, 3 - s.count)) + s
        }.joined(separator: "-")
    }

    public var description: String { "\(kind.rawValue) \(pages)" }
}

/// Spread composition rules.
public struct SpreadComposer: Sendable, Hashable {
    /// A scan whose aspect (width / height) is at least this multiple of a typical single
    /// page's is taken for a double page scanned whole. A spread of two portrait pages is about
    /// 2× a single page; 1.16 leaves room for trimmed, cropped and slightly skewed scans while
    /// staying above the variation between single pages of one book.
    public var wideScanRatio: Double

    public init(wideScanRatio: Double = 1.16) {
        self.wideScanRatio = wideScanRatio
    }

    /// The aspect of a typical single page: the median of the book's page aspects (wide scans
    /// are the minority in any book that has single pages).
    public func typicalAspect(of book: Book) -> Double {
        let aspects = book.pages.compactMap { p -> Double? in
            p.width > 0 && p.height > 0 ? Double(p.width) / Double(p.height) : nil
        }.sorted()
        guard !aspects.isEmpty else { return 0.75 }
        let n = aspects.count
        return n % 2 == 1 ? aspects[n / 2] : (aspects[n / 2 - 1] + aspects[n / 2]) / 2
    }

    /// Whether page `number` (1-based) is a double page scanned whole.
    public func isWideScan(_ number: Int, in book: Book) -> Bool {
        guard number >= 1, number <= book.pages.count else { return false }
        let p = book.pages[number - 1]
        guard p.width > 0, p.height > 0 else { return false }
        return Double(p.width) / Double(p.height) >= typicalAspect(of: book) * wideScanRatio
    }

    /// The screens of `book` in reading order.
    ///
    /// Landscape: the manifest's `spreads` pair first (they override everything, as a
    /// librarian or the panorama detector put them there); the cover, pages marked single and
    /// wide scans stand alone; every other page pairs with the next one that is free to pair;
    /// a page left without a partner (odd count, or before a forced pair or a lone page) stands
    /// alone.
    public func screens(for book: Book, orientation: ScreenOrientation) -> [Screen] {
        let dir = book.readingDirection
        let n = book.pages.count
        if orientation == .portrait {
            return n == 0 ? [] : (1...n).map { Screen(pages: [$0], direction: dir, kind: isWideScan($0, in: book) ? .wideScan : .single) }
        }
        // Forced pairs: only facing neighbours in reading order can share a screen.
        var forcedSecond: [Int: Int] = [:]
        var forcedMember = Set<Int>()
        for s in book.spreads {
            let a = min(s.first, s.second), b = max(s.first, s.second)
            guard a >= 1, b <= n, b == a + 1, !forcedMember.contains(a), !forcedMember.contains(b) else { continue }
            forcedSecond[a] = b
            forcedMember.formUnion([a, b])
        }
        func standsAlone(_ k: Int) -> Bool {
            let p = book.pages[k - 1]
            // An unlabelled first page is taken for the cover: books open on their cover.
            return p.single || p.role == .cover || p.role == .backCover || (k == 1 && p.role == nil)
                || isWideScan(k, in: book)
        }
        var out: [Screen] = []
        var k = 1
        while k <= n {
            if let b = forcedSecond[k] {
                out.append(Screen(pages: [k, b], direction: dir, kind: .pair))
                k = b + 1
            } else if standsAlone(k) {
                out.append(Screen(pages: [k], direction: dir, kind: isWideScan(k, in: book) ? .wideScan : .single))
                k += 1
            } else if k + 1 <= n, !forcedMember.contains(k + 1), !standsAlone(k + 1) {
                out.append(Screen(pages: [k, k + 1], direction: dir, kind: .pair))
                k += 2
            } else {
                out.append(Screen(pages: [k], direction: dir, kind: .single))
                k += 1
            }
        }
        return out
    }

    /// The index of the screen that shows page `number`.
    public static func screenIndex(of number: Int, in screens: [Screen]) -> Int? {
        screens.firstIndex { $0.pages.contains(number) }
    }
}
