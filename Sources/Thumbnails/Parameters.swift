// What a thumbnail run produces, as one value: every output is a function of the sources and of
// these parameters, so their fingerprint is part of each book's up-to-date check.

public import Raster
import Codecs

/// Sizes, grid geometry and encoding choices for `picturebook thumbs`.
public struct ThumbnailParameters: Sendable, Hashable {
    /// The 1x thumbnail box; every page is fitted inside it (aspect kept). The 2x thumbnail is
    /// fitted inside twice this box. A double-page scan gets a box twice as wide.
    public var boxWidth: Int
    public var boxHeight: Int
    /// Page slots per row of the overview grid; a spread or a double-page scan takes two.
    public var columns: Int
    /// Space between grid cells and around the grid, in pixels.
    public var gutter: Int
    public var background: RGBA8
    public var labelColor: RGBA8
    /// Pixel size of the page numbers under the overview tiles and the titles under covers.
    public var labelSize: Double
    /// Rows per overview sheet: a longer book gets overview.png, overview-2.png, … so no grid
    /// image (and no buffer) grows without bound.
    public var overviewRowsPerSheet: Int
    /// Covers per row of the library grid.
    public var libraryColumns: Int
    /// Covers per library sheet (library.png, library-2.png, …): memory stays flat whatever
    /// the number of books.
    public var libraryPerSheet: Int
    /// Quality of the page thumbnails (JPEG; the grids are PNG).
    public var jpegQuality: Int
    /// libjpeg's fast integer DCT and box chroma upsampling: invisible once the page is shrunk
    /// 5–10×, and about a fifth faster.
    public var fastDecode: Bool
    /// zlib level for the grid PNGs: 1 (the default) with the cheap "up" filter, since grids
    /// of photographic tiles barely compress anyway and encoding dominated the run at level 3+;
    /// 2…9 use per-row adaptive filtering for smaller files.
    public var pngCompression: Int

    public init(
        boxWidth: Int = 160, boxHeight: Int = 200, columns: Int = 8, gutter: Int = 16,
        background: RGBA8 = RGBA8(r: 0xf4, g: 0xf1, b: 0xea), labelColor: RGBA8 = RGBA8(r: 0x44, g: 0x44, b: 0x44),
        labelSize: Double = 14, overviewRowsPerSheet: Int = 16, libraryColumns: Int = 10, libraryPerSheet: Int = 100,
        jpegQuality: Int = 85, fastDecode: Bool = true, pngCompression: Int = 1
    ) {
        self.boxWidth = boxWidth
        self.boxHeight = boxHeight
        self.columns = columns
        self.gutter = gutter
        self.background = background
        self.labelColor = labelColor
        self.labelSize = labelSize
        self.overviewRowsPerSheet = overviewRowsPerSheet
        self.libraryColumns = libraryColumns
        self.libraryPerSheet = libraryPerSheet
        self.jpegQuality = jpegQuality
        self.fastDecode = fastDecode
        self.pngCompression = pngCompression
    }

    /// Every problem with the values, as messages naming the option; empty when valid.
    public var problems: [String] {
        var p: [String] = []
        if !(8...4096).contains(boxWidth) || !(8...4096).contains(boxHeight) {
            p.append("--box must be between 8x8 and 4096x4096, got \(boxWidth)x\(boxHeight)")
        }
        if !(2...64).contains(columns) { p.append("--columns must be 2...64 (a spread takes two), got \(columns)") }
        if !(0...512).contains(gutter) { p.append("--gutter must be 0...512, got \(gutter)") }
        if !(4...200).contains(labelSize) { p.append("--label-size must be 4...200, got \(labelSize)") }
        if !(1...1000).contains(overviewRowsPerSheet) { p.append("--rows-per-sheet must be 1...1000, got \(overviewRowsPerSheet)") }
        if !(1...64).contains(libraryColumns) { p.append("--library-columns must be 1...64, got \(libraryColumns)") }
        if !(1...10_000).contains(libraryPerSheet) { p.append("--library-per-sheet must be 1...10000, got \(libraryPerSheet)") }
        if !(1...100).contains(jpegQuality) { p.append("--quality must be 1...100, got \(jpegQuality)") }
        if !(0...9).contains(pngCompression) { p.append("--png-level must be 0...9, got \(pngCompression)") }
        return p
    }

    /// Bumped whenever the drawing changes, so old outputs are redone rather than trusted.
    static let outputVersion = 1

    /// A canonical text of everything that shapes the outputs.
    public var fingerprint: String {
        "v\(Self.outputVersion) box=\(boxWidth)x\(boxHeight) cols=\(columns) gutter=\(gutter) bg=\(background) "
            + "ink=\(labelColor) label=\(labelSize) rows=\(overviewRowsPerSheet) lib=\(libraryColumns)/\(libraryPerSheet) "
            + "q=\(jpegQuality) fast=\(fastDecode) png=\(pngCompression)"
    }

    var pngOptions: PNGEncodeOptions {
        PNGEncodeOptions(compressionLevel: pngCompression, filter: pngCompression <= 1 ? .up : .adaptive)
    }

    /// Height of the strip under each tile that holds its page number or title.
    var labelHeight: Int { Int((labelSize * 1.7).rounded(.up)) }
}
