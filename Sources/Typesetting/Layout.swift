// Laying text out in a box: line breaking against shaped widths, alignment, and fitting the
// largest size between a minimum and a maximum.

public import Geometry

/// How lines run and stack.
public enum WritingMode: String, Sendable, Hashable, CaseIterable {
    /// Lines left-to-right or right-to-left (by paragraph direction), stacked top to bottom.
    case horizontal
    /// Upright CJK columns top to bottom, stacked right to left (CSS `vertical-rl`), with the
    /// fonts' vertical forms (`vert`).
    case verticalRightToLeft
    /// Text set horizontally and turned 90° clockwise, columns stacked left to right (CSS
    /// `vertical-lr`, sideways): traditional Mongolian.
    case verticalLeftToRight
}

/// Paragraph direction.
public enum BaseDirection: String, Sendable, Hashable, CaseIterable {
    /// From the first strong character (UAX #9 rules P2–P3).
    case auto
    case leftToRight
    case rightToLeft
}

/// Alignment of lines along the inline axis. `start` follows the paragraph direction.
public enum TextAlignment: String, Sendable, Hashable, CaseIterable {
    case start, center, end
}

/// Placement of the block of lines along the block axis when it is shorter than the box.
public enum BlockAlignment: String, Sendable, Hashable, CaseIterable {
    case start, center, end
}

/// Everything about how text is set, apart from the text and the box.
public struct TextStyle: Sendable, Hashable {
    /// BCP 47 language ("en", "ar", "zh-Hans", "ja"): picks CJK faces and HarfBuzz's
    /// language-specific forms.
    public var language: String?
    public var direction: BaseDirection
    public var alignment: TextAlignment
    public var blockAlignment: BlockAlignment
    /// Distance between baselines as a multiple of the font size.
    public var lineSpacing: Double
    public var padding: EdgeInsets
    public var writingMode: WritingMode
    /// Fitting range of font sizes, in pixels per em.
    public var minimumSize: Double
    public var maximumSize: Double
    /// Split long words at hyphenation points (libhyphen patterns for the language, when
    /// installed) if a line would otherwise be left less than three quarters full. Off by
    /// default: early readers read whole words best.
    public var hyphenate: Bool

    public init(
        language: String? = nil, direction: BaseDirection = .auto, alignment: TextAlignment = .start,
        blockAlignment: BlockAlignment = .center, lineSpacing: Double = 1.3, padding: EdgeInsets = .zero,
        writingMode: WritingMode = .horizontal, minimumSize: Double = 12, maximumSize: Double = 96,
        hyphenate: Bool = false
    ) {
        self.hyphenate = hyphenate
        self.language = language
        self.direction = direction
        self.alignment = alignment
        self.blockAlignment = blockAlignment
        self.lineSpacing = lineSpacing
        self.padding = padding
        self.writingMode = writingMode
        self.minimumSize = minimumSize
        self.maximumSize = maximumSize
    }
}

/// Errors from typesetting.
public enum TypesettingError: Error, CustomStringConvertible, Equatable {
    case noFont(script: String)
    case invalidSizeRange(minimum: Double, maximum: Double)
    case invalidBox(Size)
    case invalidLineSpacing(Double)

    public var description: String {
        switch self {
        case .noFont(let script): return "typesetting: no font could be opened for script \(script)"
        case .invalidSizeRange(let lo, let hi): return "typesetting: font size range \(lo)…\(hi) is empty, not positive or above \(Int(PreparedText.largestSize)) px"
        case .invalidBox(let s): return "typesetting: box \(s) has no room inside its padding"
        case .invalidLineSpacing(let v): return "typesetting: line spacing \(v) must be positive"
        }
    }
}

/// A glyph placed in the box: `origin` is where the glyph's (horizontal) origin sits, in box
/// coordinates (top-left origin, y down), baseline included.
public struct PositionedGlyph: Sendable, Hashable {
    public var id: UInt32
    public var origin: Point
    /// Scalar index in the whole text of the first character of the glyph's cluster.
    public var cluster: Int
}

/// Glyphs of one face, script and bidi level, in visual order.
public struct GlyphRun: Sendable {
    public let face: FontFace
    public let script: Script
    public let bidiLevel: UInt8
    /// Glyph images turned 90° clockwise (sideways Mongolian).
    public let sideways: Bool
    public let glyphs: [PositionedGlyph]
    public var isRightToLeft: Bool { bidiLevel & 1 == 1 }
}

/// One line (a column in vertical modes).
public struct TextLine: Sendable {
    /// Scalar range in the whole text, trailing spaces and the line separator excluded.
    public let textRange: Range<Int>
    /// The line box in box coordinates: its inline extent is the laid-out text, its block
    /// extent one line height.
    public let frame: Rect
    public let paragraphIsRightToLeft: Bool
    /// Runs in visual order (left to right; top to bottom in vertical modes).
    public let runs: [GlyphRun]
    /// The box the glyphs' outlines cover (nil for a line without ink), which can reach past
    /// `frame`: swashes, marks, negative side bearings.
    public let inkBounds: Rect?

    func offsetBy(dx: Double, dy: Double) -> TextLine {
        if dx == 0 && dy == 0 { return self }
        let moved = runs.map { run in
            GlyphRun(
                face: run.face, script: run.script, bidiLevel: run.bidiLevel, sideways: run.sideways,
                glyphs: run.glyphs.map { g in
                    PositionedGlyph(id: g.id, origin: Point(x: g.origin.x + dx, y: g.origin.y + dy), cluster: g.cluster)
                })
        }
        return TextLine(
            textRange: textRange, frame: frame.offsetBy(dx: dx, dy: dy), paragraphIsRightToLeft: paragraphIsRightToLeft,
            runs: moved, inkBounds: inkBounds?.offsetBy(dx: dx, dy: dy))
    }
}

/// The result of typesetting: what to draw and where, and how it fits.
public struct TextLayout: Sendable {
    public let boxSize: Size
    public let style: TextStyle
    /// Font size chosen, pixels per em.
    public let fontSize: Double
    public let lineHeight: Double
    public let lines: [TextLine]
    /// Size the content needs, padding included; larger than `boxSize` on the block axis when
    /// it overflows, so a reader can scroll.
    public let contentSize: Size
    /// True when even the minimum size does not fit (lines then wrap at the box width and the
    /// block runs past the box's end).
    public let overflows: Bool

    public var glyphRuns: [GlyphRun] { lines.flatMap(\.runs) }
    /// The box all glyph outlines cover, in box coordinates (nil without ink).
    public var inkBounds: Rect? {
        lines.compactMap(\.inkBounds).reduce(nil) { acc, r in acc.map { $0.union(r) } ?? r }
    }
    /// Whether every glyph outline lies inside the box (half a pixel of anti-aliasing aside).
    public var inkFits: Bool {
        guard let ink = inkBounds else { return true }
        return ink.minX >= -0.5 && ink.minY >= -0.5 && ink.maxX <= boxSize.width + 0.5 && ink.maxY <= boxSize.height + 0.5
    }

    /// The union of the line boxes, in box coordinates (`.zero` without lines).
    public var textBounds: Rect {
        guard let first = lines.first?.frame else { return .zero }
        return lines.dropFirst().reduce(first) { $0.union($1.frame) }
    }
    public var glyphCount: Int { lines.reduce(0) { $0 + $1.runs.reduce(0) { $0 + $1.glyphs.count } } }
}

/// Text analysed and shaped once; lay it out at any size or fit it into any box.
public struct PreparedText: Sendable {
    let paragraphs: [ShapedParagraph]
    public let style: TextStyle
    public let scalarCount: Int
}

/// The typesetting entry point.
public struct Typesetter: Sendable {
    public let fonts: FontRegistry

    public init(fonts: FontRegistry = .system) { self.fonts = fonts }

    /// Splits `text` into paragraphs, runs bidi, itemizes and shapes (size independent).
    public func prepare(_ text: String, style: TextStyle) throws -> PreparedText {
        guard style.lineSpacing > 0, style.lineSpacing.isFinite else {
            throw TypesettingError.invalidLineSpacing(style.lineSpacing)
        }
        let scalars = text.unicodeScalars.map(\.value)
        var paragraphs: [ShapedParagraph] = []
        var start = 0
        var i = 0
        let orientation: Shaper.Orientation = style.writingMode == .verticalRightToLeft ? .vertical : .horizontal
        while i <= scalars.count {
            let atEnd = i == scalars.count
            let cp = atEnd ? 0 : scalars[i]
            if atEnd || cp == 0x0A || cp == 0x0D || cp == 0x2029 || cp == 0x2028 || cp == 0x0B || cp == 0x0C || cp == 0x85 {
                let para = Array(scalars[start..<i])
                paragraphs.append(try Shaper.shape(
                    paragraph: para, textOffset: start, style: style, orientation: orientation, fonts: fonts))
                if !atEnd && cp == 0x0D && i + 1 < scalars.count && scalars[i + 1] == 0x0A { i += 1 }
                start = i + 1
            }
            i += 1
        }
        return PreparedText(paragraphs: paragraphs, style: style, scalarCount: scalars.count)
    }

    /// Sets `text` at a fixed `size` in a box (lines wrap at the box's inline extent).
    public func layout(_ text: String, size: Double, in box: Size, style: TextStyle) throws -> TextLayout {
        try prepare(text, style: style).layout(size: size, in: box)
    }

    /// Sets `text` at the largest size between the style's minimum and maximum that fits `box`.
    public func fit(_ text: String, in box: Size, style: TextStyle) throws -> TextLayout {
        try prepare(text, style: style).fit(in: box)
    }
}

extension PreparedText {
    /// Font sizes above this (pixels per em) are refused: glyph images would be megapixels each.
    public static let largestSize = 2000.0

    /// The inline and block extents available inside the padding.
    private func available(_ box: Size) -> (inline: Double, block: Double) {
        let p = style.padding
        let w = box.width - p.left - p.right, h = box.height - p.top - p.bottom
        return style.writingMode == .horizontal ? (w, h) : (h, w)
    }

    /// One line of a paragraph: its scalars (trailing spaces included) and the hyphen drawn at
    /// its end when it ends inside a word.
    struct LineSpan {
        var range: Range<Int>
        var hyphen: HyphenMark?
    }

    /// Lines per paragraph at `size`, whether every line fits `inline`, and the longest line.
    ///
    /// Greedy: each line takes as much as fits. A hyphenation point is used only when the last
    /// ordinary break would leave the line less than three quarters full.
    private func breakLines(size: Double, inline: Double, emergency: Bool) -> (lines: [[LineSpan]], fits: Bool, longest: Double) {
        var all: [[LineSpan]] = []
        var fits = true
        var longest = 0.0
        let limit = inline / size + 1e-9  // compare in per-em units
        for p in paragraphs {
            var lines: [LineSpan] = []
            let n = p.scalars.count
            let cands = p.candidates
            var start = 0
            var ci = 0  // first candidate after `start`
            while start < n {
                while ci < cands.count && cands[ci].index <= start { ci += 1 }
                var plain: (index: Int, width: Double)? = nil
                var hyphen: (index: Int, mark: HyphenMark)? = nil
                var k = ci
                while k < cands.count {
                    let c = cands[k]
                    let w = p.width(start, p.trimmedEnd(start, c.index)) + (c.hyphen?.advance ?? 0)
                    if let mark = c.hyphen {
                        if w <= limit { hyphen = (c.index, mark) }
                        k += 1
                        continue
                    }
                    if w > limit { break }
                    plain = (c.index, w)
                    if p.breaks[c.index] == .mandatory { break }
                    k += 1
                }
                var span: LineSpan
                if let h = hyphen, h.index > (plain?.index ?? start), (plain?.width ?? 0) < 0.75 * limit {
                    span = LineSpan(range: start..<h.index, hyphen: h.mark)
                } else if let c = plain {
                    span = LineSpan(range: start..<c.index, hyphen: nil)
                } else {
                    // The next piece alone is too long.
                    var e = n
                    for c in cands[ci...] where c.hyphen == nil {
                        e = c.index
                        break
                    }
                    var end = e
                    if emergency {
                        // Cut inside it at the last cluster start that fits (at least one cluster).
                        var cut = start + 1
                        while cut < e && !p.clusterStart[cut] { cut += 1 }
                        var j = cut
                        while j < e {
                            var nx = j + 1
                            while nx < e && !p.clusterStart[nx] { nx += 1 }
                            if p.width(start, nx) > limit { break }
                            j = nx
                            cut = j
                        }
                        end = min(cut, e)
                    }
                    fits = fits && p.width(start, p.trimmedEnd(start, end)) <= limit
                    span = LineSpan(range: start..<end, hyphen: nil)
                }
                let trimmed = p.trimmedEnd(start, span.range.upperBound)
                longest = max(longest, (p.width(start, trimmed) + (span.hyphen?.advance ?? 0)) * size)
                lines.append(span)
                start = span.range.upperBound
            }
            if n == 0 { lines.append(LineSpan(range: 0..<0, hyphen: nil)) }
            all.append(lines)
        }
        return (all, fits, longest)
    }

    private func blockExtent(lineCount: Int, size: Double) -> Double {
        Double(lineCount) * size * style.lineSpacing
    }

    /// Whether the text fits at `size`.
    func fits(size: Double, in box: Size) -> Bool {
        let (inline, block) = available(box)
        let r = breakLines(size: size, inline: inline, emergency: false)
        guard r.fits else { return false }
        let count = r.lines.reduce(0) { $0 + $1.count }
        return blockExtent(lineCount: count, size: size) <= block + 1e-9
    }

    /// Lays out at the largest size in the style's range that fits; at the minimum size with
    /// `overflows` set when even that does not fit.
    public func fit(in box: Size) throws -> TextLayout {
        let lo0 = style.minimumSize, hi0 = style.maximumSize
        guard lo0 > 0, hi0 >= lo0, hi0 <= PreparedText.largestSize else {
            throw TypesettingError.invalidSizeRange(minimum: lo0, maximum: hi0)
        }
        let (inline, block) = available(box)
        guard inline > 0, block > 0 else { throw TypesettingError.invalidBox(box) }
        var size: Double
        if fits(size: hi0, in: box) {
            size = hi0
        } else if !fits(size: lo0, in: box) {
            return try layout(size: lo0, in: box)
        } else {
            // Bisect to a quarter pixel: finer sizes are not visibly different and would only
            // multiply the glyph cache.
            var lo = lo0, hi = hi0
            while hi - lo > 0.25 {
                let mid = (lo + hi) / 2
                if fits(size: mid, in: box) { lo = mid } else { hi = mid }
            }
            size = max(lo0, (lo * 4).rounded(.down) / 4)
        }
        // The line boxes fit; make sure the ink does too (it can overhang them by a fraction of
        // an em), stepping down a quarter pixel at a time — rarely more than a few steps.
        var result = try layout(size: size, in: box)
        var steps = 0
        while !result.inkFits, size > lo0, steps < 40 {
            size = max(lo0, size - 0.25)
            result = try layout(size: size, in: box)
            steps += 1
        }
        return result
    }

    /// Lays out at `size`; lines wrap at the box's inline extent (cutting inside words only
    /// when a word alone is longer than a line).
    public func layout(size: Double, in box: Size) throws -> TextLayout {
        guard size > 0, size <= PreparedText.largestSize else { throw TypesettingError.invalidSizeRange(minimum: size, maximum: size) }
        let (inline, block) = available(box)
        guard inline > 0, block > 0 else { throw TypesettingError.invalidBox(box) }
        let broken = breakLines(size: size, inline: inline, emergency: true)
        let lineHeight = size * style.lineSpacing
        let lineCount = broken.lines.reduce(0) { $0 + $1.count }
        let blockUsed = Double(lineCount) * lineHeight
        let overflows = blockUsed > block + 1e-6 || broken.longest > inline + 1e-6
        let slack = max(0, block - blockUsed)
        let blockShift: Double
        switch style.blockAlignment {
        case .start: blockShift = 0
        case .center: blockShift = slack / 2
        case .end: blockShift = slack
        }
        let pad = style.padding
        var lines: [TextLine] = []
        var lineIndex = 0
        for (p, ranges) in zip(paragraphs, broken.lines) {
            // Baseline inside a line: the content area (ascender + descender of the faces used)
            // centred in the line height.
            let contentArea = (p.ascender + p.descender) * size
            let baselineInLine = (lineHeight - contentArea) / 2 + p.ascender * size
            for span in ranges {
                let range = span.range
                let trimmed = range.lowerBound..<p.trimmedEnd(range.lowerBound, range.upperBound)
                let length = (p.width(trimmed.lowerBound, trimmed.upperBound) + (span.hyphen?.advance ?? 0)) * size
                let inlineStart: Double
                let startAtRight = style.writingMode == .horizontal && p.isRightToLeft
                let free = inline - length
                var lead: Double
                switch style.alignment {
                case .start: lead = 0
                case .center: lead = free / 2
                case .end: lead = free
                }
                if startAtRight { lead = free - lead }
                inlineStart = lead
                let blockPos = blockShift + Double(lineIndex) * lineHeight
                lines.append(placeLine(
                    p, trimmed, hyphen: span.hyphen, size: size, inlineStart: inlineStart, blockPos: blockPos,
                    lineHeight: lineHeight, baselineInLine: baselineInLine, length: length, box: box))
                lineIndex += 1
            }
        }
        // Outlines may reach past the line boxes (a swash at the line's start, marks above the
        // first line, Mongolian tails): move the block inward where the other side has room.
        if let ink = lines.compactMap(\.inkBounds).reduce(nil, { (acc: Rect?, r: Rect) in acc.map { $0.union(r) } ?? r }) {
            func shift(_ lo: Double, _ hi: Double, _ extent: Double) -> Double {
                let before = lo, after = extent - hi
                if before < 0 && after > 0 { return min(-before, after) }
                if after < 0 && before > 0 { return -min(-after, before) }
                return 0
            }
            let dx = shift(ink.minX, ink.maxX, box.width)
            let dy = overflows ? 0 : shift(ink.minY, ink.maxY, box.height)
            if dx != 0 || dy != 0 { lines = lines.map { $0.offsetBy(dx: dx, dy: dy) } }
        }
        let content: Size
        let blockTotal = blockUsed + (style.writingMode == .horizontal ? pad.top + pad.bottom : pad.left + pad.right)
        let inlineTotal = broken.longest + (style.writingMode == .horizontal ? pad.left + pad.right : pad.top + pad.bottom)
        if style.writingMode == .horizontal {
            content = Size(width: inlineTotal, height: blockTotal)
        } else {
            content = Size(width: blockTotal, height: inlineTotal)
        }
        return TextLayout(
            boxSize: box, style: style, fontSize: size, lineHeight: lineHeight, lines: lines,
            contentSize: content, overflows: overflows)
    }

    /// Positions the glyphs of one line. Runs are reordered visually (UAX #9 rule L2) and the
    /// glyphs of each run are already in visual order from HarfBuzz.
    private func placeLine(
        _ p: ShapedParagraph, _ range: Range<Int>, hyphen: HyphenMark?, size: Double, inlineStart: Double, blockPos: Double,
        lineHeight: Double, baselineInLine: Double, length: Double, box: Size
    ) -> TextLine {
        let pad = style.padding
        var pieces: [ShapedRun] = []
        for run in p.runs where run.range.overlaps(range) {
            var r = run
            r.glyphs = run.glyphs.filter { range.contains($0.cluster) }
            if !r.glyphs.isEmpty { pieces.append(r) }
        }
        // L2: from the highest level down to the lowest odd level, reverse every maximal
        // sequence of runs at that level or higher.
        if let maxLevel = pieces.map(\.level).max(), maxLevel > 0 {
            let lowestOdd = (pieces.map(\.level).filter { $0 & 1 == 1 }.min() ?? maxLevel)
            var level = maxLevel
            while level >= lowestOdd && level > 0 {
                var i = 0
                while i < pieces.count {
                    if pieces[i].level >= level {
                        var j = i
                        while j < pieces.count && pieces[j].level >= level { j += 1 }
                        pieces[i..<j].reverse()
                        i = j
                    } else {
                        i += 1
                    }
                }
                level -= 1
            }
        }
        let offset = p.textOffset
        var runs: [GlyphRun] = []
        var pen = inlineStart
        let frame: Rect
        var ink = InkAccumulator()
        let fs = Float(size)
        switch style.writingMode {
        case .horizontal:
            let baselineY = pad.top + blockPos + baselineInLine
            let x0 = pad.left
            for r in pieces {
                var glyphs: [PositionedGlyph] = []
                glyphs.reserveCapacity(r.glyphs.count)
                for g in r.glyphs {
                    let o = Point(x: x0 + pen + g.xOffset * size, y: baselineY - g.yOffset * size)
                    glyphs.append(PositionedGlyph(id: g.id, origin: o, cluster: g.cluster + offset))
                    ink.add(g.ink, at: o, size: fs, sideways: false)
                    pen += g.xAdvance * size
                }
                runs.append(GlyphRun(face: r.face, script: r.script, bidiLevel: r.level, sideways: false, glyphs: glyphs))
            }
            // Hyphenation applies to left-to-right words only, so the hyphen ends the line visually.
            if let h = hyphen {
                let g = PositionedGlyph(id: h.glyph, origin: Point(x: x0 + pen, y: baselineY), cluster: range.upperBound - 1 + offset)
                runs.append(GlyphRun(face: h.face, script: runs.last?.script ?? .common, bidiLevel: 0, sideways: false, glyphs: [g]))
            }
            frame = Rect(x: x0 + inlineStart, y: pad.top + blockPos, width: length, height: lineHeight)
        case .verticalRightToLeft:
            // Columns from the right; HarfBuzz's vertical offsets move the glyph's horizontal
            // origin from the pen, which walks down the column's centre line.
            let columnRight = box.width - pad.right - blockPos
            let centerX = columnRight - lineHeight / 2
            let y0 = pad.top
            for r in pieces {
                var glyphs: [PositionedGlyph] = []
                for g in r.glyphs {
                    let o = Point(x: centerX + g.xOffset * size, y: y0 + pen - g.yOffset * size)
                    glyphs.append(PositionedGlyph(id: g.id, origin: o, cluster: g.cluster + offset))
                    ink.add(g.ink, at: o, size: fs, sideways: false)
                    pen += -g.yAdvance * size
                }
                runs.append(GlyphRun(face: r.face, script: r.script, bidiLevel: 0, sideways: false, glyphs: glyphs))
            }
            frame = Rect(x: columnRight - lineHeight, y: y0 + inlineStart, width: lineHeight, height: length)
        case .verticalLeftToRight:
            // The horizontal line turned 90° clockwise: inline u runs down, the line's top edge
            // (v = 0) lies on the column's right side, so ascenders face right.
            let columnLeft = pad.left + blockPos
            let columnRight = columnLeft + lineHeight
            let y0 = pad.top
            for r in pieces {
                var glyphs: [PositionedGlyph] = []
                for g in r.glyphs {
                    let u = pen + g.xOffset * size
                    let v = baselineInLine - g.yOffset * size
                    let o = Point(x: columnRight - v, y: y0 + u)
                    glyphs.append(PositionedGlyph(id: g.id, origin: o, cluster: g.cluster + offset))
                    ink.add(g.ink, at: o, size: fs, sideways: true)
                    pen += g.xAdvance * size
                }
                runs.append(GlyphRun(face: r.face, script: r.script, bidiLevel: r.level, sideways: true, glyphs: glyphs))
            }
            frame = Rect(x: columnLeft, y: y0 + inlineStart, width: lineHeight, height: length)
        }
        let upper = max(range.lowerBound, range.upperBound)
        return TextLine(
            textRange: (range.lowerBound + offset)..<(upper + offset), frame: frame,
            paragraphIsRightToLeft: p.isRightToLeft && style.writingMode == .horizontal, runs: runs,
            inkBounds: ink.rect)
    }
}

/// Union of glyph ink boxes in box coordinates.
struct InkAccumulator {
    var minX = Double.infinity, minY = Double.infinity, maxX = -Double.infinity, maxY = -Double.infinity

    mutating func add(_ e: InkExtents, at o: Point, size: Float, sideways: Bool) {
        guard !e.isEmpty else { return }
        let x0: Double, x1: Double, y0: Double, y1: Double
        if sideways {
            // Turned 90° clockwise: the glyph's up (y) points right, its x points down.
            x0 = o.x + Double(e.minY * size); x1 = o.x + Double(e.maxY * size)
            y0 = o.y + Double(e.minX * size); y1 = o.y + Double(e.maxX * size)
        } else {
            x0 = o.x + Double(e.minX * size); x1 = o.x + Double(e.maxX * size)
            y0 = o.y - Double(e.maxY * size); y1 = o.y - Double(e.minY * size)
        }
        minX = min(minX, x0); maxX = max(maxX, x1)
        minY = min(minY, y0); maxY = max(maxY, y1)
    }

    var rect: Rect? {
        guard minX <= maxX else { return nil }
        return Rect(x: minX, y: minY, width: maxX - minX, height: maxY - minY)
    }
}

extension ShapedParagraph {
    /// Per-em width of scalars start..<end.
    @inline(__always)
    func width(_ start: Int, _ end: Int) -> Double { prefix[end] - prefix[start] }

    /// `end` moved back over spaces and line separators, which hang past the line's end.
    @inline(__always)
    func trimmedEnd(_ start: Int, _ end: Int) -> Int {
        var e = end
        while e > start && isSpace[e - 1] { e -= 1 }
        return e
    }
}

extension WritingMode {
    /// The vertical mode a text calls for: sideways `verticalLeftToRight` when it contains
    /// Mongolian, upright `verticalRightToLeft` (CJK) otherwise.
    public static func vertical(for text: String) -> WritingMode {
        text.unicodeScalars.contains { Script.of($0) == .mongolian } ? .verticalLeftToRight : .verticalRightToLeft
    }
}
