// Text analysis and shaping: paragraphs → bidi levels (FriBidi) → script runs → font runs →
// HarfBuzz glyphs. Everything here is independent of the font size: HarfBuzz shapes at one em =
// the face's design units, and positions are kept per em so any size is a multiplication.

import CFreeType
import CFriBidi
import CHarfBuzz

/// A shaped glyph, per-em units, in the visual order HarfBuzz returns for its run.
struct ShapedGlyph: Sendable {
    var id: UInt32
    /// Scalar index inside the paragraph of the first character of the glyph's cluster.
    var cluster: Int
    var xAdvance: Double
    var yAdvance: Double  // y up, as HarfBuzz reports (negative when going down)
    var xOffset: Double
    var yOffset: Double
    /// Ink box per em relative to the glyph origin, y up (HarfBuzz's extents): the glyph's
    /// outline may reach past its advance (Arabic swashes, marks, side bearings below zero).
    var ink: InkExtents
}

struct InkExtents: Sendable {
    var minX: Float, maxX: Float, minY: Float, maxY: Float
    static let empty = InkExtents(minX: 0, maxX: 0, minY: 0, maxY: 0)
    var isEmpty: Bool { maxX <= minX || maxY <= minY }
}

/// A maximal piece of a paragraph with one bidi level, script and face, shaped.
struct ShapedRun: Sendable {
    var range: Range<Int>  // scalar indices inside the paragraph
    var level: UInt8
    var script: Script
    var face: FontFace
    var glyphs: [ShapedGlyph]
}

/// A place a line may end. A hyphenation point carries the hyphen drawn there.
struct BreakCandidate: Sendable {
    var index: Int
    var hyphen: HyphenMark?
}

struct HyphenMark: Sendable {
    var face: FontFace
    var glyph: UInt32
    var advance: Double  // per em
}

/// One paragraph, analysed and shaped once; line breaking and fitting reuse it at every size.
struct ShapedParagraph: Sendable {
    /// Scalar offset of the paragraph inside the whole text.
    var textOffset: Int
    var scalars: [UInt32]
    var isRightToLeft: Bool
    var runs: [ShapedRun]
    /// Advance along the line, per em, credited to the first scalar of each cluster.
    var advance: [Double]
    /// prefix[i] = sum of advance[0..<i].
    var prefix: [Double]
    /// `count + 1` break opportunities (UAX #14).
    var breaks: [LineBreakOpportunity]
    /// Where a line may end, in order: UAX #14 opportunities (always including `count`) and,
    /// when hyphenating, the hyphenation points of words.
    var candidates: [BreakCandidate]
    /// Whether each scalar is a space that hangs at the end of a line.
    var isSpace: [Bool]
    /// Whether a scalar starts a cluster (a place an over-long word may be cut).
    var clusterStart: [Bool]
    /// Largest ascender and descender (per em) among the faces used.
    var ascender: Double
    var descender: Double
}

enum Shaper {
    /// How a paragraph is shaped: horizontally, or top-to-bottom for upright vertical CJK.
    enum Orientation { case horizontal, vertical }

    static func shape(
        paragraph scalars: [UInt32], textOffset: Int, style: TextStyle, orientation: Orientation,
        fonts: FontRegistry
    ) throws -> ShapedParagraph {
        let n = scalars.count
        // Bidi. Vertical CJK columns are not reordered (upright text has no visual direction).
        var levels = [UInt8](repeating: 0, count: n)
        var rtl = false
        if orientation == .horizontal && n > 0 {
            (levels, rtl) = bidiLevels(scalars, direction: style.direction)
        }
        let scripts = resolvedScripts(scalars)

        // Face per scalar: the first face in the script's chain that has the glyph. Spaces and
        // controls go with their neighbours so they never split a run.
        var faces = [FontFace?](repeating: nil, count: n)
        var chainCache: [Script: [FontFace]] = [:]
        for i in 0..<n {
            let cp = scalars[i]
            let script = scripts[i]
            let chain: [FontFace]
            if let c = chainCache[script] {
                chain = c
            } else {
                chain = fonts.chain(script: script, language: style.language)
                chainCache[script] = chain
            }
            if isSpaceOrControl(cp) {
                continue
            }
            var chosen = chain.first { $0.covers(cp) }
            if chosen == nil { chosen = fonts.face(for: cp, script: script, language: style.language) }
            faces[i] = chosen
        }
        // Spaces and controls take the face of the previous character (or the next).
        var last: FontFace? = nil
        for i in 0..<n {
            if let f = faces[i] { last = f } else { faces[i] = last }
        }
        last = nil
        for i in stride(from: n - 1, through: 0, by: -1) {
            if let f = faces[i] { last = f } else { faces[i] = last }
        }
        if n > 0 && faces[0] == nil {
            // Nothing but spaces: any face of the text's script chain.
            let f = fonts.chain(script: scripts[0], language: style.language).first
            for i in 0..<n { faces[i] = f }
        }
        guard n == 0 || faces.allSatisfy({ $0 != nil }) else {
            throw TypesettingError.noFont(script: scripts.first?.code ?? "?")
        }

        // Runs: maximal spans of equal level, script and face.
        var runs: [ShapedRun] = []
        var start = 0
        for i in 1...max(n, 1) where n > 0 {
            if i == n || levels[i] != levels[start] || scripts[i] != scripts[start] || faces[i] !== faces[start] {
                let face = faces[start]!
                let glyphs = shapeRun(
                    scalars, range: start..<i, level: levels[start], script: scripts[start], face: face,
                    language: style.language, orientation: orientation)
                runs.append(ShapedRun(range: start..<i, level: levels[start], script: scripts[start], face: face, glyphs: glyphs))
                start = i
            }
        }

        var advance = [Double](repeating: 0, count: n)
        var clusterStart = [Bool](repeating: false, count: n)
        for run in runs {
            for g in run.glyphs {
                advance[g.cluster] += orientation == .horizontal ? g.xAdvance : -g.yAdvance
                clusterStart[g.cluster] = true
            }
        }
        var prefix = [Double](repeating: 0, count: n + 1)
        for i in 0..<n { prefix[i + 1] = prefix[i] + advance[i] }
        var breaks = LineBreaker.opportunities(codePoints: scalars)
        ThaiBreaks.addBreaks(scalars, &breaks)
        var hyphenPoints: [Int: HyphenMark] = [:]
        if style.hyphenate && orientation == .horizontal && !rtl, let dict = HyphenDictionary.forLanguage(style.language) {
            hyphenPoints = hyphenation(scalars, levels: levels, faces: faces, breaks: breaks, clusterStart: clusterStart, dictionary: dict)
        }
        var candidates: [BreakCandidate] = []
        for i in 1...max(n, 1) where n > 0 {
            if breaks[i] != .prohibited {
                candidates.append(BreakCandidate(index: i, hyphen: nil))
            } else if let h = hyphenPoints[i] {
                candidates.append(BreakCandidate(index: i, hyphen: h))
            }
        }
        let isSpace = scalars.map { isSpaceOrControl($0) }
        var asc = 0.0, desc = 0.0
        for run in runs {
            asc = max(asc, run.face.ascender)
            desc = max(desc, run.face.descender)
        }
        if runs.isEmpty { asc = 0.8; desc = 0.2 }
        return ShapedParagraph(
            textOffset: textOffset, scalars: scalars, isRightToLeft: rtl, runs: runs, advance: advance,
            prefix: prefix, breaks: breaks, candidates: candidates, isSpace: isSpace,
            clusterStart: clusterStart, ascender: asc, descender: desc)
    }

    /// Hyphenation points of the paragraph's left-to-right alphabetic words (UAX #14 class AL,
    /// at least five letters), kept only where a cluster starts so a hyphen never splits one.
    static func hyphenation(
        _ scalars: [UInt32], levels: [UInt8], faces: [FontFace?], breaks: [LineBreakOpportunity],
        clusterStart: [Bool], dictionary: HyphenDictionary
    ) -> [Int: HyphenMark] {
        var out: [Int: HyphenMark] = [:]
        let n = scalars.count
        var i = 0
        while i < n {
            guard isWordLetter(scalars[i]), levels[i] & 1 == 0 else {
                i += 1
                continue
            }
            var j = i
            while j < n && isWordLetter(scalars[j]) && levels[j] & 1 == 0 { j += 1 }
            if j - i >= 5 {
                let word = scalars[i..<j].compactMap { Unicode.Scalar($0) }
                for p in dictionary.points(word) {
                    let at = i + p
                    guard breaks[at] == .prohibited, clusterStart[at], let face = faces[at - 1], let h = face.hyphen else { continue }
                    out[at] = HyphenMark(face: face, glyph: h.glyph, advance: h.advance)
                }
            }
            i = j
        }
        return out
    }

    private static func isWordLetter(_ cp: UInt32) -> Bool {
        let c = UnicodeProperties.lineBreakClass(cp)
        return c == .AL && (Unicode.Scalar(cp)?.properties.isAlphabetic ?? false)
    }

    static func isSpaceOrControl(_ cp: UInt32) -> Bool {
        cp == 0x20 || cp == 0x09 || cp == 0x0A || cp == 0x0D || cp == 0x3000 || cp == 0xA0 || cp == 0x202F
            || cp == 0x2028 || cp == 0x2029 || (cp >= 0x2000 && cp <= 0x200B)
    }

    /// UAX #9 embedding levels and the resolved paragraph direction.
    static func bidiLevels(_ scalars: [UInt32], direction: BaseDirection) -> ([UInt8], Bool) {
        let n = scalars.count
        var types = [FriBidiCharType](repeating: FriBidiCharType(0), count: n)
        var brackets = [FriBidiBracketType](repeating: 0, count: n)
        var levels = [FriBidiLevel](repeating: 0, count: n)
        var base: FriBidiParType
        switch direction {
        case .auto: base = FRIBIDI_PAR_ON
        case .leftToRight: base = FRIBIDI_PAR_LTR
        case .rightToLeft: base = FRIBIDI_PAR_RTL
        }
        let ok: Bool = scalars.withUnsafeBufferPointer { s in
            fribidi_get_bidi_types(s.baseAddress, Int32(n), &types)
            fribidi_get_bracket_types(s.baseAddress, Int32(n), types, &brackets)
            return fribidi_get_par_embedding_levels_ex(types, brackets, Int32(n), &base, &levels) != 0
        }
        guard ok else { return ([UInt8](repeating: 0, count: n), false) }
        return (levels.map { UInt8(clamping: Int($0)) }, base.rawValue & 1 == 1)
    }

    /// Script per scalar, with Common and Inherited resolved to a neighbour's script (the
    /// preceding one; leading ones take the first real script that follows), and a closing
    /// bracket taking its opening bracket's (UAX #24), so "(مرحبا)" in English text keeps both
    /// parentheses in one font.
    static func resolvedScripts(_ scalars: [UInt32]) -> [Script] {
        let n = scalars.count
        var idx = scalars.map { UnicodeProperties.scriptIndex($0) }
        var last: UInt8? = nil
        var open: [(id: UInt32, script: UInt8?)] = []
        for i in 0..<n {
            if idx[i] > 2 {
                last = idx[i]
                continue
            }
            let bracket = idx[i] == 1 ? fribidi_get_bracket(scalars[i]) : 0
            if bracket != 0 {
                let id = bracket & 0x7fff_ffff
                if bracket & 0x8000_0000 != 0 {
                    if open.count < 64 { open.append((id, last)) }
                } else if let k = open.lastIndex(where: { $0.id == id }) {
                    if let s = open[k].script { idx[i] = s }
                    open.removeSubrange(k...)
                    continue
                }
            }
            if let l = last { idx[i] = l }
        }
        var next: UInt8? = nil
        for i in stride(from: n - 1, through: 0, by: -1) {
            if idx[i] > 2 { next = idx[i] } else if let nx = next { idx[i] = nx }
        }
        // Han, Hiragana and Katakana share fonts: treating kana as Han keeps Japanese in one run.
        return idx.map { i in
            let code = UnicodeTables.scriptCodes[Int(i)]
            return Script(code == "Zzzz" || code == "Zinh" ? "Zyyy" : code)
        }
    }

    static func shapeRun(
        _ scalars: [UInt32], range: Range<Int>, level: UInt8, script: Script, face: FontFace,
        language: String?, orientation: Orientation
    ) -> [ShapedGlyph] {
        guard let buf = hb_buffer_create() else { return [] }
        defer { hb_buffer_destroy(buf) }
        scalars.withUnsafeBufferPointer { s in
            // The whole paragraph goes in as context so joining (Arabic, Mongolian) sees
            // the neighbours of the run.
            hb_buffer_add_utf32(buf, s.baseAddress, Int32(s.count), UInt32(range.lowerBound), Int32(range.count))
        }
        let direction: hb_direction_t =
            orientation == .vertical ? HB_DIRECTION_TTB : (level & 1 == 1 ? HB_DIRECTION_RTL : HB_DIRECTION_LTR)
        hb_buffer_set_direction(buf, direction)
        hb_buffer_set_script(buf, hb_script_from_string(script.code, -1))
        if let language, !language.isEmpty {
            hb_buffer_set_language(buf, hb_language_from_string(language, -1))
        }
        let k = 1 / face.unitsPerEm
        return face.withHarfBuzzFont { font in
            hb_shape(font, buf, nil, 0)
            var count: UInt32 = 0
            guard let infos = hb_buffer_get_glyph_infos(buf, &count),
                  let positions = hb_buffer_get_glyph_positions(buf, &count)
            else { return [] }
            var out: [ShapedGlyph] = []
            out.reserveCapacity(Int(count))
            for i in 0..<Int(count) {
                let p = positions[i]
                var e = hb_glyph_extents_t()
                var ink = InkExtents.empty
                if hb_font_get_glyph_extents(font, infos[i].codepoint, &e) != 0 {
                    let kf = Float(k)
                    ink = InkExtents(
                        minX: Float(e.x_bearing) * kf, maxX: Float(e.x_bearing + e.width) * kf,
                        minY: Float(e.y_bearing + e.height) * kf, maxY: Float(e.y_bearing) * kf)
                }
                out.append(ShapedGlyph(
                    id: infos[i].codepoint, cluster: Int(infos[i].cluster),
                    xAdvance: Double(p.x_advance) * k, yAdvance: Double(p.y_advance) * k,
                    xOffset: Double(p.x_offset) * k, yOffset: Double(p.y_offset) * k, ink: ink))
            }
            return out
        }
    }
}
