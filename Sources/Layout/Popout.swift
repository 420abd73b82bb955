// PopoutText: a tapped text block grows in place until its text reads comfortably.

public import BookModel
public import Geometry

/// Estimates of how big printed text is, from a box and the text in it.
public enum TextSizeEstimate {
    /// Average advance of a character as a fraction of the em, for the scripts in picture books
    /// (Latin ≈ 0.5, Arabic a little less, CJK a full em is handled by `emPerCharacter`).
    static func emPerCharacter(_ text: String) -> Double {
        var wide = 0, total = 0
        for s in text.unicodeScalars where !s.properties.isWhitespace {
            total += 1
            if (0x2E80...0x9FFF).contains(s.value) || (0xAC00...0xD7AF).contains(s.value) || (0xF900...0xFAFF).contains(s.value) {
                wide += 1
            }
        }
        guard total > 0 else { return 0.5 }
        return (Double(wide) * 1.0 + Double(total - wide) * 0.5) / Double(total)
    }

    /// The font size (pixels per em, in the box's units) of `text` printed to fill a box of
    /// `size`, with lines `lineSpacing` ems apart. Lines run along the width, or down the
    /// height when `vertical`. Solves lines × characters-per-line = characters for the size,
    /// and never exceeds one line filling the box.
    public static func fontSize(of text: String, in size: Size, vertical: Bool = false, lineSpacing: Double = 1.3) -> Double {
        let inline = vertical ? size.height : size.width
        let block = vertical ? size.width : size.height
        guard inline > 0, block > 0 else { return 0 }
        let chars = Double(max(1, text.unicodeScalars.filter { !$0.properties.isWhitespace }.count + text.split(separator: " ").count - 1))
        let advance = emPerCharacter(text)
        // lines = block / (lineSpacing·s), per line = inline / (advance·s): s² = inline·block / (lineSpacing·advance·chars)
        let s = (inline * block / (lineSpacing * advance * chars)).squareRoot()
        let oneLine = block / lineSpacing * 1.2
        return min(s, oneLine, inline / advance)
    }

    /// The size of a text box's printed text in scan pixels, from its text in its own language
    /// (or whichever it has).
    public static func fontSize(of box: TextBox) -> Double {
        let text = box.language.flatMap { box.text[$0] } ?? box.text.entries.first?.text ?? ""
        let size = Size(width: Double(box.rect.width), height: Double(box.rect.height))
        guard !text.isEmpty else { return size.height / 1.3 }
        return fontSize(of: text, in: size, vertical: box.orientation == .vertical)
    }
}

/// Where a popped-out text block goes.
public struct PopoutGeometry: Sendable, Hashable, Codable {
    /// The box as it sits on the page, in points.
    public var source: Rect
    /// The magnified block's visible frame, in points: inside the safe area less the margin.
    public var frame: Rect
    /// The size of the whole magnified block; larger than `frame` along an axis that scrolls.
    public var contentSize: Size
    /// How far the content scrolls horizontally and vertically (0 when it fits).
    public var scrollExtent: Size
    /// Content size ÷ source size.
    public var magnification: Double
    /// The text size reached, points per em.
    public var textSize: Double

    public var needsScroll: Bool { scrollExtent.width > 0 || scrollExtent.height > 0 }
}

public struct PopoutLayout: Sendable, Hashable {
    /// Space kept clear between the block and the safe area's edges, in points.
    public var margin: Double
    /// Even text that is already readable grows this much, so the tap visibly does something.
    public var minimumMagnification: Double
    /// Padding around the magnified text inside its card, in points (part of the frame).
    public var padding: Double

    /// Text may end up this fraction of the readable size when that saves panning along lines.
    public var widthFitTolerance: Double

    public init(margin: Double = 12, minimumMagnification: Double = 1.25, padding: Double = 8, widthFitTolerance: Double = 0.8) {
        self.widthFitTolerance = widthFitTolerance
        self.margin = margin
        self.minimumMagnification = minimumMagnification
        self.padding = padding
    }

    /// Grows `source` (points) whose text is `textSize` points per em to where the text reaches
    /// the viewport's readable size, centred on the source where possible and clamped inside
    /// the safe area less the margin. What still does not fit scrolls.
    public func popout(source: Rect, textSize: Double, in viewport: Viewport, lineAxisIsVertical: Bool = false) -> PopoutGeometry {
        let target = viewport.readableTextSize
        var m = textSize > 0 ? target / textSize : minimumMagnification
        m = max(m, minimumMagnification)
        let area = viewport.safeBounds.insetBy(dx: margin, dy: margin)
        // Panning along a line is worse than text a little under the target size: when fitting
        // the lines' length costs at most `widthFitTolerance` of the size, fit them.
        let along = lineAxisIsVertical ? source.height : source.width
        let room = (lineAxisIsVertical ? area.height : area.width) - 2 * padding
        if along * m > room, along > 0 {
            let fitted = room / along
            if fitted >= m * widthFitTolerance { m = max(fitted, min(m, minimumMagnification)) }
        }
        let content = Size(width: source.width * m + 2 * padding, height: source.height * m + 2 * padding)
        let visible = Size(width: min(content.width, area.width), height: min(content.height, area.height))
        let frame = Rect(center: source.center, size: visible).clamped(into: area)
        return PopoutGeometry(
            source: source, frame: frame, contentSize: content,
            scrollExtent: Size(width: max(0, content.width - visible.width), height: max(0, content.height - visible.height)),
            magnification: m, textSize: textSize * m)
    }

    /// The popout of `box` on `page` of a laid-out screen.
    public func popout(box: TextBox, on page: PageFrame, in viewport: Viewport) -> PopoutGeometry {
        let source = page.toScreen(box.rect)
        return popout(source: source, textSize: TextSizeEstimate.fontSize(of: box) * page.scale, in: viewport,
                      lineAxisIsVertical: box.orientation == .vertical)
    }
}

/// The first-open hint: a dashed outline around every text block and one label saying they can
/// be tapped.
public struct TapHint: Sendable, Hashable, Codable {
    /// Dashed outlines, in points.
    public var outlines: [Rect]
    /// The label's box, in points.
    public var label: Rect
    /// The outline the label points at.
    public var anchor: Rect

    public static let text = "Tap to enlarge text"

    /// Outlines `boxes` (points) `outset` points larger, and places a label of `labelSize`
    /// under the first box when there is room, otherwise above it, otherwise over it; always
    /// inside the safe area less `margin`.
    public static func layout(boxes: [Rect], labelSize: Size, in viewport: Viewport, outset: Double = 4, gap: Double = 6, margin: Double = 8) -> TapHint? {
        guard !boxes.isEmpty else { return nil }
        let outlines = boxes.map { $0.insetBy(dx: -outset, dy: -outset) }
        let area = viewport.safeBounds.insetBy(dx: margin, dy: margin)
        // Under the first block, else above it, else beside the next blocks in turn: the first
        // place that covers no outline. Failing all, under the first block regardless.
        var candidates: [(label: Rect, anchor: Rect)] = []
        for o in outlines {
            for y in [o.maxY + gap, o.minY - gap - labelSize.height] {
                let r = Rect(x: o.midX - labelSize.width / 2, y: y, width: labelSize.width, height: labelSize.height)
                candidates.append((r.clamped(into: area), o))
            }
        }
        let free = candidates.first { c in
            area.contains(c.label) && !outlines.contains { $0.intersects(c.label) }
        } ?? candidates[0]
        return TapHint(outlines: outlines, label: free.label, anchor: free.anchor)
    }
}
