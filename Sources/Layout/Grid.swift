// The overview: every page as a thumbnail in a grid, in reading order.

public import BookModel
public import Geometry

public struct GridLayout: Sendable, Hashable, Codable {
    public struct Cell: Sendable, Hashable, Codable {
        public var page: Int
        /// The thumbnail, aspect kept, centred in its cell, in points.
        public var frame: Rect
    }

    public var viewport: Viewport
    public var columns: Int
    public var cells: [Cell]
    /// Height of the whole grid in points; more than the viewport's when it scrolls.
    public var contentHeight: Double

    /// Thumbnails about `targetWidth` points wide (at least two columns), `spacing` apart,
    /// rows filled in the reading direction.
    public static func layout(pageSizes: [Size], rightToLeft: Bool, in viewport: Viewport,
                              targetWidth: Double = 110, spacing: Double = 12) -> GridLayout {
        let area = viewport.safeBounds.insetBy(dx: spacing, dy: spacing)
        let columns = max(2, Int(((area.width + spacing) / (targetWidth + spacing)).rounded(.down)))
        let cellW = (area.width - spacing * Double(columns - 1)) / Double(columns)
        let tallest = pageSizes.map { $0.width > 0 ? $0.height / $0.width : 1 }.max() ?? 1.3
        let cellH = cellW * min(tallest, 2)
        var cells: [Cell] = []
        for (i, s) in pageSizes.enumerated() {
            let row = i / columns, col = i % columns
            let visualCol = rightToLeft ? columns - 1 - col : col
            let cell = Rect(x: area.minX + Double(visualCol) * (cellW + spacing), y: area.minY + Double(row) * (cellH + spacing),
                            width: cellW, height: cellH)
            cells.append(Cell(page: i + 1, frame: Fit.aspectFit(s, in: cell)))
        }
        let rows = (pageSizes.count + columns - 1) / columns
        let height = area.minY + Double(rows) * cellH + Double(max(0, rows - 1)) * spacing + spacing + viewport.safeArea.bottom
        return GridLayout(viewport: viewport, columns: columns, cells: cells, contentHeight: height)
    }

    public static func layout(_ book: Book, in viewport: Viewport) -> GridLayout {
        layout(pageSizes: book.pages.map { Size(width: Double(max(1, $0.width)), height: Double(max(1, $0.height))) },
               rightToLeft: book.readingDirection == .rightToLeft, in: viewport)
    }
}
