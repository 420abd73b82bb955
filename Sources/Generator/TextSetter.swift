// Text for generated pages, set with the project's own Typesetting module — the same shaping
// (HarfBuzz), bidi (FriBidi), line breaking and glyph rendering the reader uses — so the
// corpus's text looks like what Picturebook itself draws, and its ground truth is the exact
// coverage of the glyphs drawn.
//
// The generator varies the type (serif, sans, bold) by giving each style its own font registry
// with the chosen Latin and Arabic faces registered first; CJK and Mongolian come from the
// system chain, which picks the right regional CJK face for the language.

import Geometry
import Raster
import Typesetting

/// The direction a block's lines run (the name `WritingMode` belongs to Typesetting).
public enum BlockOrientation: String, Sendable, Codable, CaseIterable {
    /// Lines left to right (or right to left for Arabic), stacked top to bottom.
    case horizontal
    /// Columns top to bottom, columns advancing left to right (traditional Mongolian).
    case verticalLR
    /// Columns top to bottom, columns advancing right to left (Chinese, Japanese).
    case verticalRL
}

/// The type styles the generator uses. The first four are Noto (every script); the rest are
/// Latin faces from other Debian font packages, used by the corpus from real illustrations so a
/// detector meets type it was not tuned on: italics, display faces and hand-lettered-looking ones.
enum FontStyle: String, Sendable, CaseIterable {
    case serif, serifBold, sans, sansBold
    case serifItalic, liberationSerif, liberationSansBold, dejavuSans, dejavuSerifBoldItalic
    case bookman, gothic, palatinoItalic, schoolbook, chancery, comic, comicBold, displaySerif

    /// Faces a reader would call display or hand-lettered: set large, in titles and bubbles.
    static let display: [FontStyle] = [.bookman, .gothic, .chancery, .comicBold, .displaySerif, .dejavuSerifBoldItalic]
    /// Faces for running text.
    static let text: [FontStyle] = [.serif, .sans, .serifItalic, .liberationSerif, .dejavuSans, .palatinoItalic,
                                    .schoolbook, .comic, .serifBold, .liberationSansBold, .sansBold]
}

struct TextRequest: Sendable {
    var text: String
    var language: String
    var fontSize: Double
    /// Line length limit: width for horizontal text, height for vertical text.
    var measure: Double
    var orientation: BlockOrientation
    var style: FontStyle
    var lineSpacing: Double = 1.3
    /// 0 = start, 0.5 = centre, 1 = end (for Arabic the start is the right edge).
    var align: Double = 0
}

/// A block of text set and measured, not yet placed.
struct SetBlock: Sendable {
    /// The union of the line boxes: what the block occupies when placed at an origin.
    var size: Size
    var lines: [String]
    fileprivate var layout: TextLayout
    /// Where the block's top-left lies in the layout's own box coordinates.
    fileprivate var offset: Point

    /// The block's ink coverage with its top-left at `origin`, clipped to `clip`.
    func coverage(at origin: Point, clip: PixelRect) -> CoverageMask {
        let shift = Point(x: origin.x - offset.x, y: origin.y - offset.y)
        var area = layout.textBounds
        if let ink = layout.inkBounds { area = area.union(ink) }
        let r = area.offsetBy(dx: shift.x, dy: shift.y).insetBy(dx: -3, dy: -3).enclosingPixelRect
        guard let rect = r.intersection(clip) else {
            return CoverageMask(rect: PixelRect(x: clip.x, y: clip.y, width: 0, height: 0), mask: Bitmap(width: 0, height: 0, fill: 0))
        }
        let mask = layout.coverageMask(
            width: rect.width, height: rect.height,
            origin: Point(x: shift.x - Double(rect.x), y: shift.y - Double(rect.y)))
        return CoverageMask(rect: rect, mask: mask)
    }
}

enum TextSetter {
    /// One registry per style; each loads its faces once, on first use, and is thread-safe.
    private static let registries: [FontStyle: FontRegistry] = {
        var out: [FontStyle: FontRegistry] = [:]
        let noto = "/usr/share/fonts/truetype/noto/", urw = "/usr/share/fonts/opentype/urw-base35/"
        let lib = "/usr/share/fonts/truetype/liberation/", dejavu = "/usr/share/fonts/truetype/dejavu/"
        let comic = "/usr/share/fonts/opentype/comic-neue/"
        let faces: [FontStyle: [String]] = [
            .serif: [noto + "NotoSerif-Regular.ttf", noto + "NotoNaskhArabic-Regular.ttf"],
            .serifBold: [noto + "NotoSerif-Bold.ttf", noto + "NotoNaskhArabic-Bold.ttf"],
            .sans: [noto + "NotoSans-Regular.ttf", noto + "NotoSansArabic-Regular.ttf"],
            .sansBold: [noto + "NotoSans-Bold.ttf", noto + "NotoSansArabic-Bold.ttf"],
            .serifItalic: [noto + "NotoSerif-Italic.ttf"],
            .displaySerif: [noto + "NotoSerifDisplay-Bold.ttf"],
            .liberationSerif: [lib + "LiberationSerif-Regular.ttf"],
            .liberationSansBold: [lib + "LiberationSans-Bold.ttf"],
            .dejavuSans: [dejavu + "DejaVuSans.ttf"],
            .dejavuSerifBoldItalic: [dejavu + "DejaVuSerif-BoldItalic.ttf"],
            .bookman: [urw + "URWBookman-Demi.otf"],
            .gothic: [urw + "URWGothic-Demi.otf"],
            .palatinoItalic: [urw + "P052-Italic.otf"],
            .schoolbook: [urw + "C059-Roman.otf"],
            .chancery: [urw + "Z003-MediumItalic.otf"],
            .comic: [comic + "ComicNeue-Regular.otf"],
            .comicBold: [comic + "ComicNeue-Bold.otf"],
        ]
        for style in FontStyle.allCases {
            let registry = FontRegistry()
            // A missing face only narrows the variety: the system chain still covers the script.
            for file in faces[style] ?? [] { _ = try? registry.register(fileAt: file) }
            out[style] = registry
        }
        return out
    }()

    static func set(_ req: TextRequest) throws(GeneratorError) -> SetBlock {
        let mode: WritingMode
        switch req.orientation {
        case .horizontal: mode = .horizontal
        case .verticalLR: mode = .verticalLeftToRight
        case .verticalRL: mode = .verticalRightToLeft
        }
        let alignment: TextAlignment = req.align < 0.25 ? .start : (req.align > 0.75 ? .end : .center)
        let style = TextStyle(
            language: req.language, alignment: alignment, blockAlignment: .start, lineSpacing: req.lineSpacing,
            writingMode: mode, minimumSize: req.fontSize, maximumSize: req.fontSize)
        // The block axis is left unbounded; the inline axis is the measure.
        let box = req.orientation == .horizontal
            ? Size(width: req.measure, height: 100_000) : Size(width: 100_000, height: req.measure)
        let typesetter = Typesetter(fonts: registries[req.style] ?? .system)
        let layout: TextLayout
        do {
            layout = try typesetter.layout(req.text, size: req.fontSize, in: box, style: style)
        } catch {
            throw .typesetting(language: req.language, reason: "cannot set '\(req.text.prefix(30))': \(error)")
        }
        let bounds = layout.textBounds
        let scalars = Array(req.text.unicodeScalars)
        let lines = layout.lines.map { line -> String in
            let r = line.textRange.clamped(to: 0..<scalars.count)
            var s = String.UnicodeScalarView()
            s.append(contentsOf: scalars[r])
            return String(s)
        }
        return SetBlock(size: bounds.size, lines: lines, layout: layout, offset: bounds.origin)
    }
}
