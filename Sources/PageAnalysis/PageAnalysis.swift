// What page analysis finds on a scan: text blocks with their geometry, polarity, colours, role
// and reading order, plus the text-ink mask the in-fill stage removes (so it never re-detects).

public import Geometry
public import Raster

/// Which way a block's lines run.
public enum DetectedOrientation: String, Sendable, Hashable, CaseIterable, Codable {
    /// Lines run left to right or right to left, stacked top to bottom.
    case horizontal
    /// Lines run top to bottom (Mongolian, vertical CJK), stacked side by side.
    case vertical
}

/// Whether the ink is darker or lighter than what it is printed on.
public enum DetectedPolarity: String, Sendable, Hashable, CaseIterable, Codable {
    case darkOnLight
    case lightOnDark
}

/// What a block is for the reader.
public enum DetectedRole: String, Sendable, Hashable, CaseIterable, Codable {
    case body
    case pageNumber
}

/// One detected text block.
public struct DetectedBlock: Sendable, Hashable {
    /// Tight box around the block's ink, in scan pixels.
    public var rect: PixelRect
    public var orientation: DetectedOrientation
    public var polarity: DetectedPolarity
    /// Typical colour of the ink (mean over the ink mask inside the block).
    public var inkColor: RGBA8
    /// Typical colour of what the ink sits on (mean of the block's non-ink pixels).
    public var backgroundColor: RGBA8
    /// 0…1: how text-like the block's components are (count, alignment, stroke regularity).
    public var confidence: Double
    public var role: DetectedRole
    /// Reading order on the page, 0 first.
    public var order: Int

    public init(
        rect: PixelRect, orientation: DetectedOrientation, polarity: DetectedPolarity, inkColor: RGBA8,
        backgroundColor: RGBA8, confidence: Double, role: DetectedRole, order: Int
    ) {
        self.rect = rect
        self.orientation = orientation
        self.polarity = polarity
        self.inkColor = inkColor
        self.backgroundColor = backgroundColor
        self.confidence = confidence
        self.role = role
        self.order = order
    }
}

/// The result of analysing one page.
public struct PageAnalysis: Sendable {
    /// Blocks in reading order (`blocks[i].order == i`).
    public var blocks: [DetectedBlock]
    /// Page-sized; 255 where a pixel is text ink (anti-aliased edge included, not dilated),
    /// 0 elsewhere. Only pixels inside detected blocks are ever set.
    public var inkMask: Bitmap<UInt8>
    /// The text lines of the blocks, boxed as the blocks are (round their ink where it was
    /// measured); only from blocks another detector proposed, empty for the classical detector.
    public var lines: [PixelRect]

    public init(blocks: [DetectedBlock], inkMask: Bitmap<UInt8>, lines: [PixelRect] = []) {
        self.blocks = blocks
        self.inkMask = inkMask
        self.lines = lines
    }
}

/// The detector's tunable constants. Lengths are in working-resolution pixels unless named
/// as fractions; the defaults are what the benchmark figures in Documentation/PageAnalysis.md
/// were measured with.
public struct AnalysisParameters: Sendable, Hashable {
    /// Pages taller than this are reduced by an integer factor to about this height before
    /// component analysis; boxes are refined at full resolution afterwards.
    public var workingHeight: Int = 1000
    /// Half-size of the square window whose mean is the local background for binarization.
    public var windowRadius: Int = 20
    /// A pixel is ink when it differs from the local mean by at least this many grey levels.
    /// Each reading of the page (this contrast, `strongContrast`, deep ink) is grouped on its
    /// own and the readings' blocks compete: a low level keeps thin type whole, a high one
    /// keeps busy art out.
    public var minimumContrast: Int = 64
    /// The second reading's contrast.
    public var strongContrast: Int = 64
    /// A second, "deep" reading keeps only ink at most this fraction of the local mean's
    /// distance from black (from white for light ink). Printed text is solid ink; art outlines
    /// are thinner and come out lighter at working resolution, so this cuts glyphs loose from
    /// the outlines they touch. Both readings' blocks compete.
    public var deepInkRatio: Double = 0.6
    /// The least contrast (grey levels from the local mean) deep ink must still have.
    public var deepInkContrast: Int = 32
    /// Smallest character height (or width, for vertical text) considered, working pixels.
    public var minimumCharacterSize: Int = 5
    /// Largest character size as a fraction of the working page height.
    public var maximumCharacterFraction: Double = 0.2
    /// A component no wider than this many stroke widths (+1 px) either way is a bar, not a
    /// glyph (grass blades, hatching, pickets, rays).
    public var barFactor: Double = 2.2
    /// A line of four or more glyphs whose sizes vary less than this (coefficient of variation,
    /// both directions) is a row of repeated shapes, not text.
    public var regularityLimit: Double = 0.12
    /// Characters in a line may be at most this many character sizes apart.
    public var characterGap: Double = 0.9
    /// Also group the mask eroded by one pixel (glyph cores grown back), which frees bold
    /// type from outlines it touches; off by default (it costs a third more time).
    public var erodedReading: Bool = false
    /// Also group both readings with long thin drawn lines removed (see `removeLineArt`).
    public var lineArtReading: Bool = true
    /// Only for dark ink: light type set over a drawing is rare in picture books (light text
    /// sits on dark flats — night skies, dark panels — which the other readings find), and the
    /// two readings cost as much as all the others.
    public var lineArtDarkOnly: Bool = true
    /// A run of ink at least this fraction of the working page height along a row or column…
    public var lineArtLength: Double = 0.06
    /// …while at most this many working pixels wide the other way, is a drawn line.
    public var lineArtWidth: Int = 3
    /// Also grow dark lines through their band read by ink colour, pixels within this much
    /// per channel of the line's ink (see `inkColourBand`; 0 turns it off).
    public var inkColourDistance: Int = 30
    /// A further dark-ink reading of the page's *inkiest* ink (bit 64): pixels of the contrast or
    /// deep-ink reading whose grey lies within this fraction of the way from the darkest grey of
    /// their neighbourhood to its mean (see `binarize`). Type printed over a drawing is solid
    /// ink, while the outlines it touches are thinner and come out paler at working resolution,
    /// and grass is a mid-tone: in this reading the letters come loose. 0 turns it off.
    public var coreInkFraction: Double = 0.15
    /// Grow the inkiest-ink reading's components back by a pixel into the contrast reading, so
    /// its glyphs regain their stroke width and fill.
    public var coreGrowBack: Bool = true
    /// How the inkiest-ink reading's lines grow through their band (`extendLine`): 0 not at
    /// all, 1 through that reading, 2 by the line's ink colour too.
    public var coreGrowth: Int = 2
    /// …and only by pieces at most this many grey levels paler than the line's own glyphs.
    public var coreGrowthGrayMargin: Double = 0
    /// The ink mask takes only ink within this many glyph sizes of one of the block's lines
    /// (see `refine`); negative takes all ink in the block's box.
    public var lineBandPad: Double = 0.8
    /// …and along the line, through ink with gaps up to this many glyph sizes (word spaces, not
    /// the gutter beside a drawing); 0 keeps the band to the line's own extent.
    public var lineBandGap: Double = 2.0
    /// Pieces of a block's ink further than this (per channel) from its type's colour are
    /// drawing and stay out of the ink mask (see `textColoured`); 0 keeps them.
    public var inkColourSpread: Int = 20
    /// …where a type colour is one shared by at least this share of the block's glyph-sized
    /// pieces (a title may be set in several).
    public var inkClusterShare: Double = 0.25
    /// Read the page by ink colour too, for up to this many of its saturated inks (0 turns it
    /// off): coloured type over a drawing (see `WorkingImage.readColours`; the inks' layers are
    /// labelled in one pass, about 5 ms of CPU a page).
    public var colourReadings: Int = 6
    /// …pixels at least this many grey levels darker than their neighbourhood's mean…
    public var colourReadingContrast: Int = 24
    /// …within this much per channel of the candidate ink…
    public var colourReadingDistance: Int = 30
    /// …where candidate inks are colours (max − min channel at least this) of such pixels…
    public var colourReadingChroma: Int = 30
    /// …held by at least this many working pixels.
    public var colourReadingMinimumPixels: Int = 150
    /// Inks are colours at least this saturated (max − min channel of the ink).
    public var colourInkChroma: Int = 55
    /// In a colour reading's ink mask, a piece of the layer crossing a line's band whose part in
    /// the band is no wider than this on average (working pixels) is a stroke of the drawing
    /// (see `WorkingImage.colourLetters`).
    public var colourStrokeWidth: Double = 2
    /// Glyphs of a colour reading are at most this many times as long as they are wide.
    public var colourGlyphAspect: Double = 3
    /// The floor for blocks found in a colour reading (which must also pass the block verifier's
    /// texture test whatever their confidence, see `BlockVerifier.accepts`)…
    public var minimumColourConfidence: Double = 0.8
    /// …and at least this share of glyphs with counters (the gaps between pickets of a fence
    /// read in the ground's own colour line up like letters, but enclose nothing).
    public var minimumColourHoles: Double = 0.1
    /// A block whose ground is at most this textured (`BlockVerifier.texture(around:)`: sky,
    /// paper, a flat panel) takes its ink mask from every reading of its polarity, not just the
    /// one it was found in (see `refine`); 0 turns this off.
    public var maskAllReadingsTexture: Double = 0.04
    /// The floor for blocks found in the inkiest-ink reading…
    public var minimumCoreConfidence: Double = 0.9
    /// …and the least characters they need.
    public var minimumCoreGlyphs: Double = 0
    /// …a median glyph stroke of at least this many working pixels (0 turns it off)…
    public var minimumCoreStroke: Double = 2.25
    /// …and a mean glyph grey of at most this (255 turns it off): the reading is for near-black type.
    public var maximumCoreGray: Double = 55
    /// Leave short hole-free lines out of a block that has a clear line of text (see `score`).
    public var pruneWeakLines: Bool = false
    /// Keep the lines of a weaker overlapping block that lie outside the stronger one.
    public var salvageLines: Bool = true
    /// Split a paragraph that wraps around a drawing into rectangles (see `splitAtMargins`).
    public var splitAtMargins: Bool = true
    /// A margin moves when rows start or end this many glyph sizes away from the block's so far.
    public var marginShift: Double = 3
    /// Accept a vertical column of two glyphs when both are long joined words (Mongolian),
    /// at least 2.2 times as tall as wide (see `Grouper.score`).
    public var longWordColumns: Bool = true
    /// How far (in glyph sizes) a vertical column grows across a gap to the next word
    /// (`WorkingImage.extendLine`; lines along a row take 1.2).
    public var columnGrowthGap: Double = 1.6
    /// Let fragments that are no text on their own extend a line they continue (see `attach`).
    public var attachFragments: Bool = true
    /// How far along the line (in glyph sizes) such a fragment may start from the line's end.
    public var fragmentGap: Double = 3.0
    /// Grow one-line blocks sideways through their own band (see `extendLine`).
    public var growLines: Bool = true
    /// Grow lines through the reading of their contrast without line art (rails fused with
    /// the words otherwise stop the growth).
    public var growWithoutLineArt: Bool = true
    /// Let bars that lie inside the band (l, i, t) extend a growing line.
    public var growThroughBars: Bool = true
    /// …and stems two working pixels wide among them, when they stand on the line's baseline
    /// and reach its x-height or ascender line (an l, an i at working resolution).
    public var growThroughThinStems: Bool = true
    /// Also grow each line of a block of several (see `extendEachLine`).
    public var growEachLine: Bool = true
    /// Grow one-column vertical blocks the same way, down and up their column.
    public var growColumns: Bool = true
    /// Vertical blocks need glyphs at least this fraction of the working page height wide.
    public var minimumVerticalCharacterFraction: Double = 0.01
    /// Add the short last columns beside vertical blocks (see `addShortColumns`).
    public var shortColumns: Bool = true
    /// Take the small marks beyond a line's ends — full stops, commas, 。、, the dots of
    /// Mongolian ᠃, quotes — into the line (see `addLineEndMarks`): the first within this many
    /// glyph sizes of the line's end (0 turns it off)…
    public var lineEndMarkGap: Double = 0.6
    /// …each further one within this many of the one before…
    public var lineEndMarkFollowGap: Double = 0.4
    /// …none larger than this many glyph sizes either way…
    public var lineEndMarkSize: Double = 0.5
    /// …and with a mean working grey within this many levels of the line's glyphs.
    public var lineEndMarkGrayDifference: Double = 60
    /// A line's box reaches at most this many times its median glyph extent beyond the glyphs'
    /// median top and bottom (ascenders, descenders); 0 leaves it the union of its glyphs.
    public var glyphOvershoot: Double = 0.6
    /// A line of a horizontal block whose glyphs' median stroke width is below this fraction of
    /// their median size, on a ground that is not flat (`flatBackgroundSpread`), is outline
    /// drawing, not type (0 turns the test off).
    public var minimumStrokeToSize: Double = 0.075
    /// Shrink each block to the lines that match its reference line (see `trimToText`).
    public var trimBlocks: Bool = true
    /// Lines kept by trimming have glyph sizes within this ratio of the reference line's…
    public var trimSizeRatio: Double = 1.6
    /// …mean grey within this many levels…
    public var trimGrayDifference: Double = 15
    /// …and stroke widths within this ratio (+0.2 px).
    public var trimStrokeRatio: Double = 1.25
    /// A line whose glyphs have enclosed counters (at least a third of them, two or more) may
    /// differ in grey from the reference by this much: lighter or thinner lettering of a title
    /// set over its main line is paler at working resolution, while the picture's "lines"
    /// (picket tips, bunting, grass) have no counters. Equal to `trimGrayDifference`: off.
    public var trimHoledGrayDifference: Double = 40
    /// In trimming, a reference line on textured ground (`texturedGround`: hatched shading,
    /// which reads darker than small type) gives way to the inkiest lines on smooth ground when
    /// those hold most of the block's glyphs (see `PageAnalyzer.trimToText`).
    public var trimOnSmoothGround: Bool = true
    /// In a line of four or more, a glyph taller (across the line) than this many times the
    /// line's median glyph size is dropped from it.
    public var tallGlyphLimit: Double = 1.5
    /// Lines join a block when the gap between them is at most this many character sizes.
    public var lineGap: Double = 1.35
    /// Blocks with a confidence below this are dropped.
    public var minimumConfidence: Double = 0.62
    /// The floor for blocks found only in the deep-ink reading, whose contrast floor is lower.
    public var minimumDeepConfidence: Double = 0.9
    /// The floor for blocks found only once line art is removed: taking the outlines out of a
    /// drawing also leaves pieces of it loose.
    public var minimumLineArtConfidence: Double = 0.8
    /// …and at least this many characters: loose pieces of a drawing rarely line up in long runs.
    public var minimumLineArtGlyphs: Double = 16
    /// A horizontal deep-ink block whose surroundings (non-ink working pixels) vary by at most
    /// this many grey levels (standard deviation) lies on a flat ground and needs only
    /// `minimumConfidence`; 0 turns this off.
    public var flatBackgroundSpread: Double = 11
    /// A third, "faint" reading at this contrast, whose blocks count only on a flat ground
    /// (`flatBackgroundSpread`): pale or coloured type on a sky, whose grey differs from the sky's
    /// by less than `minimumContrast`. 0 turns it off.
    public var faintContrast: Int = 40
    /// The same for vertical blocks.
    public var minimumVerticalConfidence: Double = 0.62
    /// Give every block a second look at the ground it lies on (`BlockVerifier.swift`).
    public var verifyBlocks: Bool = true
    /// A block's ground is textured when at least this share of it (away from ink) changes by
    /// `texturedGradient` grey levels across two pixels: hatching, stipple, painted texture.
    public var texturedGround: Double = 0.35
    /// The same share for vertical blocks, which are rejected on textured ground.
    public var texturedGroundVertical: Double = 0.15
    /// The grey change (|dx| + |dy| over two pixels) that counts as texture.
    public var texturedGradient: Double = 16
    /// The confidence a horizontal block on textured ground needs.
    public var texturedGroundConfidence: Double = 0.9
    /// Page numbers (`PageNumbers.swift`): the top and bottom bands searched, as a fraction of
    /// the page height; 0 turns the pass off.
    public var pageNumberBand: Double = 0.1
    /// A folio's digit height as a fraction of the page height: at least…
    public var pageNumberMinimumHeight: Double = 0.006
    /// …and at most.
    public var pageNumberMaximumHeight: Double = 0.022
    /// The most digits (glyphs) a page number has.
    public var pageNumberMaximumDigits: Int = 4
    /// The most colour (max − min of the ink's mean R, G, B) a page number's ink may have.
    public var pageNumberMaximumChroma: Double = 60
    /// A proposed block's box is drawn round the glyph ink of its lines, this share of a line's
    /// thickness (at least a pixel) outside the ink, never outside the line's own box; negative
    /// keeps the proposing detector's line boxes (see `PageAnalyzer.analyze(_:proposals:)`).
    public var inkBoxMargin: Double = 0.05
    /// …but only where the ink explains the line: it spans at least this share of the line box's
    /// length (a line detector's box ends close to the first and last glyph, so ink that stops
    /// short of it was misread: a line across two grounds, lettering of two colours)…
    public var inkBoxMinimumShare: Double = 0.8
    /// …and of its thickness (the detector pads a line across it: capitals fill about two thirds
    /// of its box, so less than half means the ink found is not the line's letters). Else the
    /// detector's box is kept.
    public var inkBoxMinimumShareAcross: Double = 0.5

    public init() {}
}

extension AnalysisParameters {
    /// Sets the parameter called `name` (for tuning from the command line); false when there is
    /// no such parameter.
    public mutating func set(_ name: String, to value: Double) -> Bool {
        switch name {
        case "workingHeight": workingHeight = Int(value)
        case "windowRadius": windowRadius = Int(value)
        case "minimumContrast": minimumContrast = Int(value)
        case "deepInkRatio": deepInkRatio = value
        case "deepInkContrast": deepInkContrast = Int(value)
        case "strongContrast": strongContrast = Int(value)
        case "erodedReading": erodedReading = value != 0
        case "growLines": growLines = value != 0
        case "growColumns": growColumns = value != 0
        case "growEachLine": growEachLine = value != 0
        case "growThroughBars": growThroughBars = value != 0
        case "growThroughThinStems": growThroughThinStems = value != 0
        case "growWithoutLineArt": growWithoutLineArt = value != 0
        case "trimBlocks": trimBlocks = value != 0
        case "minimumStrokeToSize": minimumStrokeToSize = value
        case "glyphOvershoot": glyphOvershoot = value
        case "shortColumns": shortColumns = value != 0
        case "lineEndMarkGap": lineEndMarkGap = value
        case "lineEndMarkFollowGap": lineEndMarkFollowGap = value
        case "lineEndMarkSize": lineEndMarkSize = value
        case "lineEndMarkGrayDifference": lineEndMarkGrayDifference = value
        case "minimumVerticalCharacterFraction": minimumVerticalCharacterFraction = value
        case "trimSizeRatio": trimSizeRatio = value
        case "trimGrayDifference": trimGrayDifference = value
        case "trimStrokeRatio": trimStrokeRatio = value
        case "trimHoledGrayDifference": trimHoledGrayDifference = value
        case "trimOnSmoothGround": trimOnSmoothGround = value != 0
        case "lineArtReading": lineArtReading = value != 0
        case "lineArtDarkOnly": lineArtDarkOnly = value != 0
        case "coreInkFraction": coreInkFraction = value
        case "minimumCoreConfidence": minimumCoreConfidence = value
        case "minimumCoreGlyphs": minimumCoreGlyphs = value
        case "coreGrowBack": coreGrowBack = value != 0
        case "minimumCoreStroke": minimumCoreStroke = value
        case "maximumCoreGray": maximumCoreGray = value
        case "coreGrowth": coreGrowth = Int(value)
        case "coreGrowthGrayMargin": coreGrowthGrayMargin = value
        case "lineBandPad": lineBandPad = value
        case "lineBandGap": lineBandGap = value
        case "inkColourSpread": inkColourSpread = Int(value)
        case "inkClusterShare": inkClusterShare = value
        case "maskAllReadingsTexture": maskAllReadingsTexture = value
        case "colourReadings": colourReadings = Int(value)
        case "colourReadingContrast": colourReadingContrast = Int(value)
        case "colourReadingDistance": colourReadingDistance = Int(value)
        case "colourReadingChroma": colourReadingChroma = Int(value)
        case "colourReadingMinimumPixels": colourReadingMinimumPixels = Int(value)
        case "colourInkChroma": colourInkChroma = Int(value)
        case "colourStrokeWidth": colourStrokeWidth = value
        case "inkBoxMargin": inkBoxMargin = value
        case "inkBoxMinimumShare": inkBoxMinimumShare = value
        case "inkBoxMinimumShareAcross": inkBoxMinimumShareAcross = value
        case "colourGlyphAspect": colourGlyphAspect = value
        case "minimumColourConfidence": minimumColourConfidence = value
        case "minimumColourHoles": minimumColourHoles = value
        case "pruneWeakLines": pruneWeakLines = value != 0
        case "salvageLines": salvageLines = value != 0
        case "attachFragments": attachFragments = value != 0
        case "longWordColumns": longWordColumns = value != 0
        case "columnGrowthGap": columnGrowthGap = value
        case "splitAtMargins": splitAtMargins = value != 0
        case "marginShift": marginShift = value
        case "fragmentGap": fragmentGap = value
        case "lineArtLength": lineArtLength = value
        case "lineArtWidth": lineArtWidth = Int(value)
        case "inkColourDistance": inkColourDistance = Int(value)
        case "tallGlyphLimit": tallGlyphLimit = value
        case "minimumCharacterSize": minimumCharacterSize = Int(value)
        case "maximumCharacterFraction": maximumCharacterFraction = value
        case "characterGap": characterGap = value
        case "barFactor": barFactor = value
        case "regularityLimit": regularityLimit = value
        case "lineGap": lineGap = value
        case "minimumConfidence": minimumConfidence = value
        case "minimumVerticalConfidence": minimumVerticalConfidence = value
        case "verifyBlocks": verifyBlocks = value != 0
        case "texturedGround": texturedGround = value
        case "texturedGroundVertical": texturedGroundVertical = value
        case "texturedGradient": texturedGradient = value
        case "texturedGroundConfidence": texturedGroundConfidence = value
        case "pageNumberBand": pageNumberBand = value
        case "pageNumberMinimumHeight": pageNumberMinimumHeight = value
        case "pageNumberMaximumHeight": pageNumberMaximumHeight = value
        case "pageNumberMaximumDigits": pageNumberMaximumDigits = Int(value)
        case "pageNumberMaximumChroma": pageNumberMaximumChroma = value
        case "minimumDeepConfidence": minimumDeepConfidence = value
        case "minimumLineArtConfidence": minimumLineArtConfidence = value
        case "minimumLineArtGlyphs": minimumLineArtGlyphs = value
        case "flatBackgroundSpread": flatBackgroundSpread = value
        case "faintContrast": faintContrast = Int(value)
        default: return false
        }
        return true
    }
}
