// Ground truth: plain Codable values written to truth.json next to the generated pages, so
// benchmarks (text detection F1, in-fill PSNR) can score against known answers.

public import Geometry

/// How hard the generated pages are for page analysis and in-fill.
public enum Difficulty: String, Sendable, Codable, CaseIterable {
    /// Text on plain paper margins, flat skies and panels; light scan wear.
    case easy
    /// A realistic blend of every placement style, some illustration-only pages, spreads.
    case mixed
    /// Mostly text directly over busy art or light text on dark art; heavier scan wear.
    case hard
}

/// Where a text block sits relative to the illustration — the ways real picture books place
/// text, from easiest to find and remove to hardest.
public enum PlacementStyle: String, Sendable, Codable, CaseIterable {
    /// On plain paper outside the artwork.
    case margin
    /// In a flat or gradient sky.
    case sky
    /// In a white or cream panel or speech bubble painted over the art.
    case panel
    /// Directly over busy artwork.
    case overArt
    /// Light text over dark art (night scenes).
    case lightOnDark
}

/// What a text block is; the names match book.json's text box roles.
public enum BlockRole: String, Sendable, Codable, CaseIterable {
    case body, title, caption, pageNumber
}

/// One text block's ground truth.
public struct TruthBox: Sendable, Codable, Equatable {
    /// Unique within its page ("p003-b1").
    public var id: String
    /// The tight box around the block's ink, in page pixels, before scan blur.
    public var rect: PixelRect
    /// BCP 47 tag of the text drawn ("en", "ar", "mn-Mong", "zh-Hans", "ja").
    public var language: String
    /// The text drawn, lines joined by spaces (no spaces between CJK lines).
    public var text: String
    /// Translations carried to book.json; the drawn language is always present too.
    public var translations: [String: String]
    public var role: BlockRole
    public var placement: PlacementStyle
    public var orientation: BlockOrientation
    /// Font size in pixels (em height).
    public var fontSize: Double
    /// The lines as broken, top to bottom (columns left to right for Mongolian, right to left
    /// for CJK vertical).
    public var lines: [String]
    /// Ink colour, `#rrggbb`.
    public var inkColor: String
}

/// Which half of a two-page spread a page is.
public struct SpreadTruth: Sendable, Codable, Equatable {
    public var side: String  // "left" or "right"
    /// Page number of the other half.
    public var partner: Int
}

public struct PageTruth: Sendable, Codable, Equatable {
    /// 1-based page number.
    public var number: Int
    /// Page image file name relative to the output directory ("page-001.jpg").
    public var image: String
    /// Clean background (same page and scan wear, no text), lossless ("clean/page-001.png").
    public var clean: String
    public var width: Int
    public var height: Int
    public var theme: SceneTheme
    public var illustrationOnly: Bool
    public var monochrome: Bool
    public var spread: SpreadTruth?
    /// book.json page role when the book gives one ("cover", "plate").
    public var role: String?
    public var degradation: ScanDegradation
    public var textBoxes: [TruthBox]
}

/// Everything about one generated set of pages: truth.json.
public struct CorpusTruth: Sendable, Codable, Equatable {
    public static let formatName = "picturebook-truth/1"
    public var format: String = CorpusTruth.formatName
    /// The seed, as a decimal string (JSON numbers lose precision past 2⁵³).
    public var seed: String
    public var difficulty: Difficulty
    public var title: String
    public var pages: [PageTruth]
    /// Page-number pairs that form two-page spreads.
    public var spreads: [[Int]]
}
