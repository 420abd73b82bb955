// ClearText: the page's text re-set natively, in the reader's language, at a size a child can
// read on this device, over the page with the printed text removed.

public import BookModel
public import Geometry
public import Typesetting

/// One re-set text block.
public struct ClearTextBlock: Sendable {
    public var boxID: String
    public var language: String
    /// The printed box on screen, in points.
    public var source: Rect
    /// Where the new text goes, in points: the source, or larger when the text needed room.
    public var frame: Rect
    /// The text set for a box of `frame` × the viewport scale, in device pixels.
    public var layout: TextLayout
    /// How far the text scrolls along its block axis, in points (0 when it fits).
    public var scrollExtent: Double
    public var grew: Bool { frame != source }
}

/// Why a box got no ClearText block.
public struct ClearTextSkip: Sendable, Hashable {
    public var boxID: String
    public var reason: String
    /// The box repeats another box's text in this language (bilingual pages): its printed
    /// text is removed and nothing is set in its place.
    public var duplicate: Bool

    public init(boxID: String, reason: String, duplicate: Bool = false) {
        self.boxID = boxID
        self.reason = reason
        self.duplicate = duplicate
    }
}

public struct ClearTextLayout: Sendable {
    public var typesetter: Typesetter
    /// The largest size the text may take, as a multiple of the readable size (titles stay
    /// titles, but a huge printed title does not become a poster).
    public var maximumSizeFactor: Double
    /// Space kept between grown blocks and other blocks or the page edge, in points.
    public var gap: Double
    /// Lines are lengthened to at most this many ems (of the readable size) before a block
    /// grows more lines: about the measure of a children's book line.
    public var maximumLineEms: Double

    public init(typesetter: Typesetter = Typesetter(), maximumSizeFactor: Double = 2.5, gap: Double = 4, maximumLineEms: Double = 22) {
        self.maximumLineEms = maximumLineEms
        self.typesetter = typesetter
        self.maximumSizeFactor = maximumSizeFactor
        self.gap = gap
    }

    /// Lays out every box on `page` that has text in `language`, in reading order. Each block
    /// keeps the printed box when its text fits there at a readable size, grows into free space
    /// on its page (never over another block, never past the page or the safe area) when it
    /// does not, and scrolls what still does not fit.
    public func layout(
        page: PageFrame, boxes: [TextBox], language: String, in viewport: Viewport
    ) throws -> (blocks: [ClearTextBlock], skipped: [ClearTextSkip]) {
        let ordered = Page.readingOrder(boxes)
        let scale = viewport.scale
        let minPx = viewport.readableTextSize * scale
        let bounds = page.frame.intersection(viewport.safeBounds)?.insetBy(dx: gap, dy: gap) ?? page.frame
        var frames = ordered.map { page.toScreen($0.rect) }
        var blocks: [ClearTextBlock] = []
        var skipped: [ClearTextSkip] = []
        // Which boxes get no block, decided first: their printed text is cleared from the page,
        // so their area is free space the other blocks may grow into.
        var skips: [Int: ClearTextSkip] = [:]
        for (i, box) in ordered.enumerated() {
            guard let text = box.text[language], !text.isEmpty else {
                skips[i] = ClearTextSkip(boxID: box.id, reason: "no \(language) text")
                continue
            }
            // Bilingual pages print each line once per language, and every box carries every
            // translation: show the text once, in the box printed in that language.
            if box.language != language, let twin = ordered.first(where: { $0.id != box.id && $0.language == language && $0.text[language] == text }) {
                skips[i] = ClearTextSkip(boxID: box.id, reason: "same text as \(twin.id)", duplicate: true)
                continue
            }
            if frames[i].width <= 0 || frames[i].height <= 0 {
                skips[i] = ClearTextSkip(boxID: box.id, reason: "empty box")
            }
        }
        for (i, box) in ordered.enumerated() {
            if let skip = skips[i] {
                skipped.append(skip)
                continue
            }
            let text = box.text[language] ?? ""
            let source = frames[i]
            let hasVerticalScript = text.unicodeScalars.contains {
                (0x1800...0x18AF).contains($0.value) || (0x3040...0x9FFF).contains($0.value)
            }
            let mode: WritingMode = box.orientation == .vertical && hasVerticalScript ? WritingMode.vertical(for: text) : .horizontal
            let printedPx = TextSizeEstimate.fontSize(of: box) * page.scale * scale
            let maxPx = min(max(minPx, printedPx), minPx * maximumSizeFactor)
            let centred = box.role == .title || box.role == .pageNumber
            let style = TextStyle(
                language: language, alignment: centred ? .center : .start, blockAlignment: .center,
                writingMode: mode, minimumSize: minPx, maximumSize: maxPx)
            let prepared = try typesetter.prepare(text, style: style)
            let others = frames.enumerated().filter { $0.offset != i && skips[$0.offset] == nil }.map(\.element)
            var frame = source.intersection(bounds) ?? source
            if frame.isEmpty { frame = source }
            let vertical = mode != .horizontal

            // Block extent the text needs at the readable size for a given inline extent.
            func needed(_ f: Rect) throws -> Double {
                let inlinePx = (vertical ? f.height : f.width) * scale
                guard inlinePx >= 1 else { return .infinity }
                let box = vertical ? Size(width: 1e6, height: inlinePx) : Size(width: inlinePx, height: 1e6)
                let l = try prepared.layout(size: minPx, in: box)
                let ink = l.inkBounds
                let block = vertical ? l.contentSize.width : l.contentSize.height
                let inkBlock = ink.map { vertical ? $0.width : $0.height } ?? 0
                return max(block, inkBlock) / scale
            }
            var need = try needed(frame)
            if need > (vertical ? frame.width : frame.height) {
                // Lines of one or two words read badly: first lengthen the lines toward what the
                // text needs on one line, at most `maximumLineEms` ems, then add lines.
                let unbroken = try prepared.layout(size: minPx, in: vertical ? Size(width: 1e6, height: 1e6) : Size(width: 1e6, height: 1e6))
                let natural = (unbroken.lines.map { vertical ? $0.frame.height : $0.frame.width }.max() ?? 0) / scale + 2
                let inline = vertical ? frame.height : frame.width
                let target = min(natural, max(inline, maximumLineEms * viewport.readableTextSize))
                if target > inline {
                    frame = widen(frame, vertical: vertical, obstacles: others, bounds: bounds, toward: target)
                    need = try needed(frame)
                }
            }
            if need > (vertical ? frame.width : frame.height) {
                frame = grow(frame, blockNeed: need, vertical: vertical, mongolian: mode == .verticalLeftToRight,
                             obstacles: others, bounds: bounds)
                need = try needed(frame)
                if need > (vertical ? frame.width : frame.height) {
                    // Widen along the inline axis into free space, then grow the block axis again.
                    frame = widen(frame, vertical: vertical, obstacles: others, bounds: bounds)
                    need = try needed(frame)
                    frame = grow(frame, blockNeed: need, vertical: vertical, mongolian: mode == .verticalLeftToRight,
                                 obstacles: others, bounds: bounds)
                    need = try needed(frame)
                }
            }
            let have = vertical ? frame.width : frame.height
            let pxBox = Size(width: frame.width * scale, height: frame.height * scale)
            let laid: TextLayout
            let scroll: Double
            if frame == source && need <= have + 0.5 {
                laid = try prepared.fit(in: pxBox)
                scroll = 0
            } else if need <= have + 0.5 {
                // A block that had to grow is set at the readable size: growing made room for
                // that size, not for a larger one that would crowd the page.
                laid = try prepared.layout(size: minPx, in: pxBox)
                scroll = 0
            } else {
                laid = try prepared.layout(size: minPx, in: pxBox)
                scroll = need - have
            }
            frames[i] = frame
            blocks.append(ClearTextBlock(boxID: box.id, language: language, source: source, frame: frame, layout: laid, scrollExtent: scroll))
        }
        return (blocks, skipped)
    }

    /// Extends `r` along its block axis toward `blockNeed`: after the text first (down;
    /// rightward for Mongolian columns; leftward for CJK columns), then before it.
    func grow(_ r: Rect, blockNeed: Double, vertical: Bool, mongolian: Bool, obstacles: [Rect], bounds: Rect) -> Rect {
        var f = r
        if !vertical {
            let down = FreeSpace.limit(of: f, toward: .down, obstacles: obstacles, bounds: bounds, gap: gap)
            let newMaxY = min(down, f.minY + blockNeed)
            f.size.height = max(f.height, newMaxY - f.minY)
            if f.height < blockNeed {
                let up = FreeSpace.limit(of: f, toward: .up, obstacles: obstacles, bounds: bounds, gap: gap)
                let newMinY = max(up, f.maxY - blockNeed)
                if newMinY < f.minY { f = Rect(x: f.minX, y: newMinY, width: f.width, height: f.maxY - newMinY) }
            }
        } else {
            let first: FreeSpace.Direction = mongolian ? .right : .left
            let second: FreeSpace.Direction = mongolian ? .left : .right
            for d in [first, second] where f.width < blockNeed {
                let lim = FreeSpace.limit(of: f, toward: d, obstacles: obstacles, bounds: bounds, gap: gap)
                if d == .right {
                    f.size.width = max(f.width, min(lim, f.minX + blockNeed) - f.minX)
                } else {
                    let newMinX = max(lim, f.maxX - blockNeed)
                    if newMinX < f.minX { f = Rect(x: newMinX, y: f.minY, width: f.maxX - newMinX, height: f.height) }
                }
            }
        }
        return f
    }

    /// Extends `r` along its inline axis as far as free space allows, both ways equally where
    /// it can (the block stays centred on the printed one), up to an extent of `target`.
    func widen(_ r: Rect, vertical: Bool, obstacles: [Rect], bounds: Rect, toward target: Double = .infinity) -> Rect {
        let lo = FreeSpace.limit(of: r, toward: vertical ? .up : .left, obstacles: obstacles, bounds: bounds, gap: gap)
        let hi = FreeSpace.limit(of: r, toward: vertical ? .down : .right, obstacles: obstacles, bounds: bounds, gap: gap)
        let a0 = vertical ? r.minY : r.minX, a1 = vertical ? r.maxY : r.maxX
        var extra = max(0, target - (a1 - a0))
        var before = min(extra / 2, a0 - lo), after = min(extra / 2, hi - a1)
        extra -= before + after
        // Whatever one side cannot take, the other takes if it can.
        let more = min(extra, hi - a1 - after)
        after += more
        extra -= more
        before += min(extra, a0 - lo - before)
        let n0 = a0 - before, n1 = a1 + after
        return vertical ? Rect(x: r.minX, y: n0, width: r.width, height: n1 - n0) : Rect(x: n0, y: r.minY, width: n1 - n0, height: r.height)
    }
}

/// How far a rect can be extended before it meets an obstacle or leaves its bounds.
public enum FreeSpace {
    public enum Direction: Sendable { case up, down, left, right }

    /// The coordinate the rect's edge on side `d` can move to. Obstacles already overlapping the
    /// rect are ignored (printed boxes sometimes touch); the rect never moves inward.
    public static func limit(of r: Rect, toward d: Direction, obstacles: [Rect], bounds: Rect, gap: Double) -> Double {
        let eps = 1e-9
        switch d {
        case .down:
            var lim = bounds.maxY
            for o in obstacles where o.minX < r.maxX && o.maxX > r.minX && o.minY >= r.maxY - eps { lim = min(lim, o.minY - gap) }
            return max(lim, r.maxY)
        case .up:
            var lim = bounds.minY
            for o in obstacles where o.minX < r.maxX && o.maxX > r.minX && o.maxY <= r.minY + eps { lim = max(lim, o.maxY + gap) }
            return min(lim, r.minY)
        case .right:
            var lim = bounds.maxX
            for o in obstacles where o.minY < r.maxY && o.maxY > r.minY && o.minX >= r.maxX - eps { lim = min(lim, o.minX - gap) }
            return max(lim, r.maxX)
        case .left:
            var lim = bounds.minX
            for o in obstacles where o.minY < r.maxY && o.maxY > r.minY && o.maxX <= r.minX + eps { lim = max(lim, o.maxX + gap) }
            return min(lim, r.minX)
        }
    }
}

extension Page {
    /// `boxes` in reading order (by `order`, unordered ones after, stable).
    static func readingOrder(_ boxes: [TextBox]) -> [TextBox] {
        var p = Page(image: "", width: 1, height: 1)
        p.textBoxes = boxes
        return p.textBoxesInReadingOrder
    }
}
