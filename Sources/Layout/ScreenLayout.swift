// Where the pages of a screen go: aspect kept, centred in the safe area.

public import BookModel
public import Geometry

/// One page placed on screen.
public struct PageFrame: Sendable, Hashable, Codable {
    /// 1-based page number.
    public var page: Int
    /// Where the whole scan lands, in points.
    public var frame: Rect
    /// Size of the scan in pixels.
    public var scanSize: Size

    public init(page: Int, frame: Rect, scanSize: Size) {
        self.page = page
        self.frame = frame
        self.scanSize = scanSize
    }

    /// Points per scan pixel.
    public var scale: Double { scanSize.width > 0 ? frame.width / scanSize.width : 0 }

    /// A rect in scan pixels mapped to screen points.
    public func toScreen(_ r: Rect) -> Rect {
        let sx = scanSize.width > 0 ? frame.width / scanSize.width : 0
        let sy = scanSize.height > 0 ? frame.height / scanSize.height : 0
        return Rect(x: frame.minX + r.minX * sx, y: frame.minY + r.minY * sy, width: r.width * sx, height: r.height * sy)
    }

    public func toScreen(_ r: PixelRect) -> Rect { toScreen(Rect(r)) }
}

/// A laid-out screen.
public struct ScreenLayout: Sendable, Hashable, Codable {
    public var screen: Screen
    public var viewport: Viewport
    /// The pages left to right.
    public var pages: [PageFrame]
    /// The union of the page frames.
    public var contentFrame: Rect

    public func frame(of page: Int) -> PageFrame? { pages.first { $0.page == page } }
}

public enum Fit {
    /// `content` scaled (up or down), aspect kept, to the largest size inside `bounds`, centred.
    public static func aspectFit(_ content: Size, in bounds: Rect) -> Rect {
        guard content.width > 0, content.height > 0, bounds.width > 0, bounds.height > 0 else {
            return Rect(center: bounds.center, size: .zero)
        }
        // The limiting side is set exactly (no rounding drift), the other scaled.
        let size: Size
        if bounds.width * content.height <= bounds.height * content.width {
            size = Size(width: bounds.width, height: content.height * bounds.width / content.width)
        } else {
            size = Size(width: content.width * bounds.height / content.height, height: bounds.height)
        }
        return Rect(x: bounds.minX + (bounds.width - size.width) / 2, y: bounds.minY + (bounds.height - size.height) / 2,
                    width: size.width, height: size.height)
    }

    /// Lays `screen` out in `viewport`: facing pages scaled to a common height and put side by
    /// side with no gap (the gutter is where they meet), the whole fitted into the safe area
    /// less `margin` points and centred.
    public static func layout(_ screen: Screen, of book: Book, in viewport: Viewport, margin: Double = 0) -> ScreenLayout {
        let sizes = screen.visualOrder.map { n -> Size in
            guard n >= 1, n <= book.pages.count else { return Size(width: 1, height: 1) }
            let p = book.pages[n - 1]
            return Size(width: Double(max(1, p.width)), height: Double(max(1, p.height)))
        }
        return layout(screen, pageSizes: sizes, in: viewport, margin: margin)
    }

    /// As above with the scan sizes given in visual order.
    public static func layout(_ screen: Screen, pageSizes: [Size], in viewport: Viewport, margin: Double = 0) -> ScreenLayout {
        precondition(pageSizes.count == screen.visualOrder.count, "need one size per page, got \(pageSizes.count) for \(screen)")
        let commonHeight = pageSizes.map(\.height).max() ?? 1
        let widths = pageSizes.map { $0.width * commonHeight / $0.height }
        let total = Size(width: widths.reduce(0, +), height: commonHeight)
        let area = viewport.safeBounds.insetBy(dx: margin, dy: margin)
        let fitted = aspectFit(total, in: area)
        let s = total.width > 0 ? fitted.width / total.width : 0
        var x = fitted.minX
        var frames: [PageFrame] = []
        for (i, n) in screen.visualOrder.enumerated() {
            // The last page ends exactly at the fitted edge, whatever the rounding on the way.
            let w = i == pageSizes.count - 1 ? fitted.maxX - x : widths[i] * s
            frames.append(PageFrame(page: n, frame: Rect(x: x, y: fitted.minY, width: w, height: fitted.height), scanSize: pageSizes[i]))
            x += w
        }
        return ScreenLayout(screen: screen, viewport: viewport, pages: frames, contentFrame: fitted)
    }
}
