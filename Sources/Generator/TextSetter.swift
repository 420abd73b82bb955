// Text for generated pages: shaped with HarfBuzz, drawn from FreeType glyph outlines as vector
// paths, and filled with the Raster path rasterizer.
//
// The generator needs only a narrow slice of typesetting — one script per block, greedy line
// breaking, three orientations — but it needs the *exact ink* of every block (ground truth is
// the tight box around it) and glyphs it can rotate for vertical Mongolian. Outlines give both:
// a block is one `Path`, transformed per line or column, rasterized once.
//
// FreeType and HarfBuzz objects are not thread-safe; all shaping and outline extraction goes
// through one lock. That is cheap next to painting a page, and it keeps pages generated on
// different threads byte-identical to pages generated serially.

import CFreeType
import CHarfBuzz
import Foundation
import Geometry
import Raster

/// The writing direction of a block's lines.
public enum BlockOrientation: String, Sendable, Codable, CaseIterable {
    /// Lines left to right (or right to left for Arabic), stacked top to bottom.
    case horizontal
    /// Columns top to bottom, columns advancing left to right (traditional Mongolian).
    case verticalLR
    /// Columns top to bottom, columns advancing right to left (Chinese, Japanese).
    case verticalRL
}

/// The font families the generator uses, chosen per language.
enum FontStyle: String, Sendable, CaseIterable {
    case serif, serifBold, sans, sansBold
}

/// A block of text set at the origin: `path` holds every glyph outline, in pixels, inside a
/// layout box of `size` whose top-left is (0, 0).
struct SetBlock: Sendable {
    var path: Path
    var size: Size
    var lines: [String]
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
    /// 0 = start, 0.5 = centre, 1 = end (for Arabic "start" is the right edge).
    var align: Double = 0
}

final class TextSetter: @unchecked Sendable {
    static let shared = TextSetter()

    private let lock = NSLock()
    private var library: FT_Library?
    private var faces: [String: LoadedFace] = [:]

    private final class LoadedFace {
        let ftFace: FT_Face
        let hbFont: OpaquePointer
        let unitsPerEm: Double
        let ascender: Double, descender: Double  // font units, descender negative
        var glyphs: [UInt32: Path] = [:]
        init(ftFace: FT_Face, hbFont: OpaquePointer) {
            self.ftFace = ftFace
            self.hbFont = hbFont
            unitsPerEm = Double(ftFace.pointee.units_per_EM)
            ascender = Double(ftFace.pointee.ascender)
            descender = Double(ftFace.pointee.descender)
        }
    }

    private init() {
        var lib: FT_Library?
        if FT_Init_FreeType(&lib) == 0 { library = lib }
    }

    /// Font file and face index per language and style; Noto covers every script we generate.
    static func fontFile(language: String, style: FontStyle) -> (path: String, index: Int) {
        let noto = "/usr/share/fonts/truetype/noto/"
        let cjk = "/usr/share/fonts/opentype/noto/"
        let bold = style == .serifBold || style == .sansBold
        let serif = style == .serif || style == .serifBold
        switch language.split(separator: "-").first.map(String.init) ?? language {
        case "ar":
            return (noto + (serif ? "NotoNaskhArabic" : "NotoSansArabic") + (bold ? "-Bold.ttf" : "-Regular.ttf"), 0)
        case "mn":
            return (noto + "NotoSansMongolian-Regular.ttf", 0)
        case "zh":
            return (cjk + (serif ? "NotoSerifCJK" : "NotoSansCJK") + (bold ? "-Bold.ttc" : "-Regular.ttc"), 2)
        case "ja":
            return (cjk + (serif ? "NotoSerifCJK" : "NotoSansCJK") + (bold ? "-Bold.ttc" : "-Regular.ttc"), 0)
        default:
            return (noto + (serif ? "NotoSerif" : "NotoSans") + (bold ? "-Bold.ttf" : "-Regular.ttf"), 0)
        }
    }

    private func face(language: String, style: FontStyle) throws(GeneratorError) -> LoadedFace {
        let (path, index) = TextSetter.fontFile(language: language, style: style)
        let key = "\(path)#\(index)"
        if let f = faces[key] { return f }
        guard let library else { throw .font(path: path, reason: "FreeType failed to initialize") }
        guard FileManager.default.fileExists(atPath: path) else {
            throw .font(path: path, reason: "font file not found (install fonts-noto-core and fonts-noto-cjk)")
        }
        var ft: FT_Face?
        guard FT_New_Face(library, path, FT_Long(index), &ft) == 0, let ft else {
            throw .font(path: path, reason: "FreeType cannot open face \(index)")
        }
        guard let blob = hb_blob_create_from_file(path) else { throw .font(path: path, reason: "HarfBuzz cannot read the file") }
        let hbFace = hb_face_create(blob, UInt32(index))
        hb_blob_destroy(blob)
        guard let hbFont = hb_font_create(hbFace) else { throw .font(path: path, reason: "HarfBuzz cannot create a font") }
        hb_face_destroy(hbFace)
        let upem = Int32(ft.pointee.units_per_EM)
        hb_font_set_scale(hbFont, upem, upem)
        let loaded = LoadedFace(ftFace: ft, hbFont: hbFont)
        faces[key] = loaded
        return loaded
    }

    /// The outline of glyph `gid` in font units, y up (as fonts store it).
    private func outline(_ face: LoadedFace, _ gid: UInt32) -> Path {
        if let p = face.glyphs[gid] { return p }
        var path = Path()
        if FT_Load_Glyph(face.ftFace, gid, FT_Int32(FT_LOAD_NO_SCALE | FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP)) == 0,
            face.ftFace.pointee.glyph.pointee.format == FT_GLYPH_FORMAT_OUTLINE
        {
            let box = PathBox()
            var funcs = FT_Outline_Funcs(
                move_to: { to, user in
                    let b = Unmanaged<PathBox>.fromOpaque(user!).takeUnretainedValue()
                    if b.open { b.path.close() }
                    b.path.move(to: Point(x: Double(to!.pointee.x), y: Double(to!.pointee.y)))
                    b.open = true
                    return 0
                },
                line_to: { to, user in
                    let b = Unmanaged<PathBox>.fromOpaque(user!).takeUnretainedValue()
                    b.path.line(to: Point(x: Double(to!.pointee.x), y: Double(to!.pointee.y)))
                    return 0
                },
                conic_to: { c, to, user in
                    let b = Unmanaged<PathBox>.fromOpaque(user!).takeUnretainedValue()
                    b.path.quad(to: Point(x: Double(to!.pointee.x), y: Double(to!.pointee.y)),
                                control: Point(x: Double(c!.pointee.x), y: Double(c!.pointee.y)))
                    return 0
                },
                cubic_to: { c1, c2, to, user in
                    let b = Unmanaged<PathBox>.fromOpaque(user!).takeUnretainedValue()
                    b.path.cubic(to: Point(x: Double(to!.pointee.x), y: Double(to!.pointee.y)),
                                 control1: Point(x: Double(c1!.pointee.x), y: Double(c1!.pointee.y)),
                                 control2: Point(x: Double(c2!.pointee.x), y: Double(c2!.pointee.y)))
                    return 0
                },
                shift: 0, delta: 0)
            let user = Unmanaged.passUnretained(box).toOpaque()
            _ = FT_Outline_Decompose(&face.ftFace.pointee.glyph.pointee.outline, &funcs, user)
            if box.open { box.path.close() }
            path = box.path
        }
        face.glyphs[gid] = path
        return path
    }

    private final class PathBox {
        var path = Path()
        var open = false
    }

    /// One shaped run: glyph ids with pen positions, in font units, pen advancing along +x
    /// (horizontal) or +y downwards (vertical).
    private struct Shaped {
        var glyphs: [(gid: UInt32, x: Double, y: Double)]
        var advance: Double
    }

    private func shape(_ text: String, face: LoadedFace, language: String, vertical: Bool) -> Shaped {
        guard let buf = hb_buffer_create() else { return Shaped(glyphs: [], advance: 0) }
        defer { hb_buffer_destroy(buf) }
        let utf8 = Array(text.utf8)
        utf8.withUnsafeBufferPointer { p in
            p.withMemoryRebound(to: CChar.self) { c in
                hb_buffer_add_utf8(buf, c.baseAddress, Int32(c.count), 0, Int32(c.count))
            }
        }
        hb_buffer_guess_segment_properties(buf)
        if vertical { hb_buffer_set_direction(buf, HB_DIRECTION_TTB) }
        let lang = hb_language_from_string(language, -1)
        hb_buffer_set_language(buf, lang)
        hb_shape(face.hbFont, buf, nil, 0)
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buf, &count), let pos = hb_buffer_get_glyph_positions(buf, &count) else {
            return Shaped(glyphs: [], advance: 0)
        }
        var glyphs: [(UInt32, Double, Double)] = []
        var penX = 0.0, penY = 0.0
        for i in 0..<Int(count) {
            let p = pos[i]
            // HarfBuzz's y axis points up; our pen's y grows downwards.
            glyphs.append((infos[i].codepoint, penX + Double(p.x_offset), penY - Double(p.y_offset)))
            penX += Double(p.x_advance)
            penY -= Double(p.y_advance)
        }
        return Shaped(glyphs: glyphs, advance: vertical ? penY : penX)
    }

    /// Splits `text` into break units: words (with their following space) for spaced scripts,
    /// single characters for CJK, keeping closing punctuation with the character before it.
    private static func breakUnits(_ text: String, language: String) -> [String] {
        let cjk = language.hasPrefix("zh") || language.hasPrefix("ja")
        if !cjk {
            var units: [String] = []
            var cur = ""
            for ch in text {
                if ch == " " {
                    cur.append(ch)
                    units.append(cur)
                    cur = ""
                } else {
                    cur.append(ch)
                }
            }
            if !cur.isEmpty { units.append(cur) }
            return units
        }
        let noStart: Set<Character> = ["。", "、", "，", "！", "？", "」", "』", "）", "ー", "ゃ", "ゅ", "ょ", "っ", "：", "；", "…"]
        var units: [String] = []
        for ch in text {
            if noStart.contains(ch), !units.isEmpty { units[units.count - 1].append(ch) } else { units.append(String(ch)) }
        }
        return units
    }

    /// Greedy line breaking by shaped length. Forced breaks at "\n".
    func set(_ req: TextRequest) throws(GeneratorError) -> SetBlock {
        lock.lock()
        defer { lock.unlock() }
        let face = try face(language: req.language, style: req.style)
        let scale = req.fontSize / face.unitsPerEm
        let vertical = req.orientation == .verticalRL
        let limit = req.measure / scale

        var lines: [String] = []
        for paragraph in req.text.split(separator: "\n", omittingEmptySubsequences: false) {
            let units = TextSetter.breakUnits(String(paragraph), language: req.language)
            var line = ""
            for u in units {
                let candidate = line + u
                let length = abs(shape(candidate.trimmingCharacters(in: .whitespaces), face: face, language: req.language, vertical: vertical).advance)
                if length > limit && !line.isEmpty {
                    lines.append(line.trimmingCharacters(in: .whitespaces))
                    line = u
                } else {
                    line = candidate
                }
            }
            lines.append(line.trimmingCharacters(in: .whitespaces))
        }

        let rtl = req.language.hasPrefix("ar")
        let lineAdvance = req.fontSize * req.lineSpacing
        var path = Path()
        var longest = 0.0
        let shapedLines = lines.map { shape($0, face: face, language: req.language, vertical: vertical) }
        for s in shapedLines { longest = max(longest, abs(s.advance) * scale) }
        let ascent = face.ascender * scale, descent = -face.descender * scale
        // Latin and Arabic fonts' ascender/descender include generous accent room; the line box
        // uses them so stacked lines never touch.
        for (i, s) in shapedLines.enumerated() {
            let length = abs(s.advance) * scale
            let slack = longest - length
            let shift = slack * (rtl ? 1 - req.align : req.align)
            for g in s.glyphs {
                let outline = outline(face, g.gid)
                guard !outline.isEmpty else { continue }
                let t: Geometry.AffineTransform
                switch req.orientation {
                case .horizontal:
                    // Font units (y up) → pixels, baseline of line i.
                    t = Geometry.AffineTransform(a: scale, b: 0, c: 0, d: -scale,
                                        tx: shift + g.x * scale, ty: ascent + Double(i) * lineAdvance + g.y * scale)
                case .verticalLR:
                    // Mongolian: the line is shaped horizontally and turned 90° clockwise, so
                    // the top of the glyphs faces right; columns run left to right.
                    let colLeft = Double(i) * lineAdvance
                    t = Geometry.AffineTransform(a: 0, b: scale, c: scale, d: 0,
                                        tx: colLeft + descent - g.y * scale, ty: shift + g.x * scale)
                case .verticalRL:
                    // CJK: upright glyphs, pen moving down; column i counted from the right.
                    let cols = Double(shapedLines.count)
                    let colLeft = (cols - 1 - Double(i)) * lineAdvance + (lineAdvance - req.fontSize) / 2
                    t = Geometry.AffineTransform(a: scale, b: 0, c: 0, d: -scale,
                                        tx: colLeft + g.x * scale + req.fontSize / 2, ty: shift + g.y * scale)
                }
                path.append(outline.applying(t))
            }
        }
        let lineCount = Double(lines.count)
        let across = (lineCount - 1) * lineAdvance + (req.orientation == .verticalRL ? req.fontSize : ascent + descent)
        let size: Size
        switch req.orientation {
        case .horizontal: size = Size(width: longest, height: across)
        case .verticalLR: size = Size(width: across, height: longest)
        case .verticalRL: size = Size(width: across, height: longest)
        }
        return SetBlock(path: path, size: size, lines: lines)
    }
}
