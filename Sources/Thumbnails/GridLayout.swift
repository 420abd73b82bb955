// Where every tile of a grid goes, computed from the book alone before any pixel is decoded, so
// tiles can be pasted into their sheet in whatever order the workers finish them.

import BookModel
import Geometry

/// Where one page's tile and its label go.
struct TilePlacement: Sendable, Hashable {
    enum Alignment: Sendable, Hashable { case center, trailing, leading }
    var sheet: Int
    /// The grid row on its sheet: the sheet is drawn and written one row band at a time.
    var row: Int = 0
    /// The area the tile is placed in; it is fitted inside `thumbnailBox`, which is no larger.
    var area: PixelRect
    /// How the tile sits horizontally in `area`: the two pages of a spread meet at the spine.
    var alignment: Alignment
    var label: String
    var labelRect: PixelRect
    /// The 1x box the page's thumbnail is fitted into (twice as wide for a double-page scan).
    var boxWidth: Int
    var boxHeight: Int

    /// The tile's top-left for a `width`×`height` tile.
    func origin(width: Int, height: Int) -> (x: Int, y: Int) {
        let x: Int
        switch alignment {
        case .center: x = area.x + (area.width - width) / 2
        case .trailing: x = area.x + area.width - width
        case .leading: x = area.x
        }
        return (x, area.y + (area.height - height) / 2)
    }
}

struct SheetSize: Sendable, Hashable {
    var width: Int
    var height: Int
    /// Tiles that land on the sheet.
    var tileCount: Int
    /// Per grid row, the band of the sheet it is drawn in (top to bottom, covering the sheet;
    /// the first takes the top margin) and the tiles it holds: a band is drawn and written as
    /// soon as its tiles have arrived.
    var bands: [Range<Int>] = []
    var bandTiles: [Int] = []
}

/// Cells of `cellWidth` (one slot) laid out in rows of `columns` slots, `rowsPerSheet` rows to a
/// sheet, with the gutter between cells and around the edge.
struct GridGeometry: Sendable {
    var columns: Int
    var slotWidth: Int
    var slotHeight: Int
    var labelHeight: Int
    var gutter: Int
    var rowsPerSheet: Int

    var sheetWidth: Int { gutter + columns * (slotWidth + gutter) }
    func sheetHeight(rows: Int) -> Int { gutter + rows * (slotHeight + labelHeight + gutter) }
    func cellOrigin(row: Int, column: Int) -> (x: Int, y: Int) {
        (gutter + column * (slotWidth + gutter), gutter + row * (slotHeight + labelHeight + gutter))
    }
    /// Width of `span` slots side by side (the gutter between them included).
    func spanWidth(_ span: Int) -> Int { span * slotWidth + (span - 1) * gutter }
}

/// The overview of one book: its pages in reading order, spreads side by side and touching at
/// the spine, page numbers underneath.
struct OverviewLayout: Sendable {
    var sheets: [SheetSize]
    /// Indexed by page number − 1.
    var placements: [TilePlacement]

    init(book: Book, parameters p: ThumbnailParameters) {
        let g = GridGeometry(
            columns: p.columns, slotWidth: p.boxWidth, slotHeight: p.boxHeight, labelHeight: p.labelHeight,
            gutter: p.gutter, rowsPerSheet: p.overviewRowsPerSheet)
        var placements = [TilePlacement?](repeating: nil, count: book.pages.count)
        var sheets: [SheetSize] = []
        var sheet = 0, row = 0, column = 0, rowsOnSheet = 0, tilesOnSheet = 0
        var rowTiles: [Int] = []
        func closeSheet() {
            let pitch = g.slotHeight + g.labelHeight + g.gutter
            let bands = (0..<rowsOnSheet).map { r in (r == 0 ? 0 : g.gutter + r * pitch)..<(g.gutter + (r + 1) * pitch) }
            sheets.append(SheetSize(
                width: g.sheetWidth, height: g.sheetHeight(rows: rowsOnSheet), tileCount: tilesOnSheet, bands: bands,
                bandTiles: rowTiles))
            rowTiles = []
        }
        func label(_ k: Int) -> String { book.pages[k - 1].label ?? String(k) }
        for group in Pairing.pageGroups(for: book) {
            if column + group.span > g.columns {
                column = 0
                row += 1
                if row == g.rowsPerSheet {
                    closeSheet()
                    sheet += 1
                    row = 0
                    rowsOnSheet = 0
                    tilesOnSheet = 0
                }
            }
            rowsOnSheet = row + 1
            while rowTiles.count < rowsOnSheet { rowTiles.append(0) }
            rowTiles[row] += group.pages.count
            let (x, y) = g.cellOrigin(row: row, column: column)
            let h = g.slotHeight
            switch group.kind {
            case .single:
                let area = PixelRect(x: x, y: y, width: g.slotWidth, height: h)
                placements[group.pages[0] - 1] = TilePlacement(
                    sheet: sheet, row: row, area: area, alignment: .center, label: label(group.pages[0]),
                    labelRect: PixelRect(x: x, y: y + h, width: area.width, height: g.labelHeight),
                    boxWidth: p.boxWidth, boxHeight: p.boxHeight)
            case .wideScan:
                let area = PixelRect(x: x, y: y, width: g.spanWidth(2), height: h)
                placements[group.pages[0] - 1] = TilePlacement(
                    sheet: sheet, row: row, area: area, alignment: .center, label: label(group.pages[0]),
                    labelRect: PixelRect(x: x, y: y + h, width: area.width, height: g.labelHeight),
                    boxWidth: 2 * p.boxWidth, boxHeight: p.boxHeight)
            case .pair:
                let spine = x + g.spanWidth(2) / 2
                let left = PixelRect(x: x, y: y, width: spine - x, height: h)
                let right = PixelRect(x: spine, y: y, width: x + g.spanWidth(2) - spine, height: h)
                for (k, area, alignment) in [(group.visualOrder[0], left, TilePlacement.Alignment.trailing), (group.visualOrder[1], right, .leading)] {
                    placements[k - 1] = TilePlacement(
                        sheet: sheet, row: row, area: area, alignment: alignment, label: label(k),
                        labelRect: PixelRect(x: area.x, y: y + h, width: area.width, height: g.labelHeight),
                        boxWidth: p.boxWidth, boxHeight: p.boxHeight)
                }
            }
            tilesOnSheet += group.pages.count
            column += group.span
        }
        if tilesOnSheet > 0 { closeSheet() }
        self.sheets = sheets
        let placed = placements.compactMap { $0 }
        precondition(
            placed.count == book.pages.count,
            "pairing placed \(placed.count) of \(book.pages.count) pages: \(Pairing.pageGroups(for: book).map(\.pages))")
        self.placements = placed
    }

    /// overview.png, overview-2.png, …
    static func sheetName(_ index: Int) -> String { index == 0 ? "overview.png" : "overview-\(index + 1).png" }
}

/// The library: one cover per book, its title underneath, `libraryPerSheet` to a sheet.
struct LibraryLayout: Sendable {
    var geometry: GridGeometry
    var perSheet: Int

    init(parameters p: ThumbnailParameters) {
        geometry = GridGeometry(
            columns: p.libraryColumns, slotWidth: p.boxWidth, slotHeight: p.boxHeight, labelHeight: p.labelHeight,
            gutter: p.gutter, rowsPerSheet: (p.libraryPerSheet + p.libraryColumns - 1) / p.libraryColumns)
        perSheet = p.libraryPerSheet
    }

    func sheetSize(covers: Int) -> (width: Int, height: Int) {
        let rows = (covers + geometry.columns - 1) / geometry.columns
        let columns = min(covers, geometry.columns)
        return (geometry.gutter + columns * (geometry.slotWidth + geometry.gutter), geometry.sheetHeight(rows: rows))
    }

    /// Placement of the `slot`-th cover on its sheet.
    func placement(slot: Int, title: String) -> TilePlacement {
        let (x, y) = geometry.cellOrigin(row: slot / geometry.columns, column: slot % geometry.columns)
        let area = PixelRect(x: x, y: y, width: geometry.slotWidth, height: geometry.slotHeight)
        return TilePlacement(
            sheet: 0, area: area, alignment: .center, label: title,
            labelRect: PixelRect(x: x, y: y + geometry.slotHeight, width: area.width, height: geometry.labelHeight),
            boxWidth: geometry.slotWidth, boxHeight: geometry.slotHeight)
    }

    static func sheetName(_ index: Int) -> String { index == 0 ? "library.png" : "library-\(index + 1).png" }
}
