// Fonts: a registry over the system's Noto fonts plus fonts a book ships, per-script fallback,
// and shared FreeType/HarfBuzz faces with a glyph-bitmap cache.
//
// Thread safety: an FT_Face may be used by one thread at a time, and creating or destroying faces
// needs the FT_Library to itself. So the registry's library has its own lock, each face has a lock
// that covers every FreeType call on it (glyph loading, rendering, charmap probes) and HarfBuzz
// shaping (hb-ft reads font tables through the FT_Face), and the glyph cache lives under that same
// lock. Faces are opened once, on first use, and shared by every layout.

import CFreeType
import CHarfBuzz
import Foundation

/// Errors from loading fonts.
public enum FontError: Error, CustomStringConvertible, Equatable {
    case cannotOpen(path: String, code: Int32)
    case notAFontDirectory(path: String)
    case freetypeUnavailable(code: Int32)

    public var description: String {
        switch self {
        case .cannotOpen(let path, let code):
            return "\(path): not a font FreeType can open (FreeType error \(code))"
        case .notAFontDirectory(let path):
            return "\(path): not a readable directory of fonts"
        case .freetypeUnavailable(let code):
            return "FreeType failed to initialise (error \(code))"
        }
    }
}

/// A writing system, by its ISO 15924 code ("Latn", "Arab", "Hani", ...).
public struct Script: Hashable, Sendable, CustomStringConvertible {
    public let code: String
    public init(_ code: String) { self.code = code }

    public static let latin = Script("Latn"), arabic = Script("Arab"), hebrew = Script("Hebr")
    public static let mongolian = Script("Mong"), han = Script("Hani"), hiragana = Script("Hira")
    public static let katakana = Script("Kana"), hangul = Script("Hang"), devanagari = Script("Deva")
    public static let thai = Script("Thai"), common = Script("Zyyy"), inherited = Script("Zinh")
    public static let unknown = Script("Zzzz")

    /// The script of a code point per Unicode's Scripts.txt (Common and Inherited not resolved).
    public static func of(_ scalar: Unicode.Scalar) -> Script {
        Script(UnicodeTables.scriptCodes[Int(UnicodeProperties.scriptIndex(scalar.value))])
    }

    public var description: String { code }
}

/// What a registered face is: file, index inside a collection, names.
public struct FontInfo: Hashable, Sendable, CustomStringConvertible {
    public let path: String
    public let faceIndex: Int
    public let family: String
    public let style: String
    public var description: String { "\(family) \(style) (\(path)#\(faceIndex))" }
}

/// One opened face, shared by all layouts. Opaque outside the module: layouts hold it so they
/// can be drawn later.
public final class FontFace: @unchecked Sendable, Hashable, CustomStringConvertible {
    public let info: FontInfo
    /// Design units per em; glyph positions are shaped in these.
    let unitsPerEm: Double
    let ascender: Double  // per em
    let descender: Double  // per em, positive below the baseline
    let id: Int
    /// Faces in the file this face came from (a .ttc holds several).
    let faceCount: Int
    /// The face's hyphen glyph and its advance per em (U+2010, else U+002D), for hyphenated
    /// line ends; nil when the face has neither.
    let hyphen: (glyph: UInt32, advance: Double)?
    /// Glyph images kept per face before the cache starts over; a book uses a few sizes of a
    /// few hundred glyphs, far below this, but a long-running server must not grow forever.
    static let glyphCacheLimit = 50_000

    // Guarded by `lock`.
    private let lock = NSLock()
    private let ftFace: FT_Face
    private let hbFont: OpaquePointer
    private var glyphCache: [GlyphKey: GlyphBitmap] = [:]
    private var haloCache: [HaloKey: GlyphBitmap] = [:]
    private var coverage: [UInt32: Bool] = [:]

    init(ftFace: FT_Face, info: FontInfo, id: Int) {
        self.ftFace = ftFace
        self.info = info
        self.id = id
        let upem = Double(max(ftFace.pointee.units_per_EM, 1))
        unitsPerEm = upem
        // OS/2 typographic metrics when present; hhea otherwise (what FreeType puts in the face).
        if let os2 = FT_Get_Sfnt_Table(ftFace, FT_SFNT_OS2)?.assumingMemoryBound(to: TT_OS2.self),
           os2.pointee.sTypoAscender > 0 {
            ascender = Double(os2.pointee.sTypoAscender) / upem
            descender = Double(-os2.pointee.sTypoDescender) / upem
        } else {
            ascender = Double(ftFace.pointee.ascender) / upem
            descender = Double(-ftFace.pointee.descender) / upem
        }
        // hb-ft gives HarfBuzz the face's tables; HarfBuzz's own OpenType functions then supply
        // metrics at a scale of one em = upem, so shaping is size independent and positions
        // scale linearly with the font size (no hinting distorts them).
        let hbFace = hb_ft_face_create_referenced(ftFace)
        let font = hb_font_create(hbFace)!
        hb_face_destroy(hbFace)
        hb_ot_font_set_funcs(font)
        hb_font_set_scale(font, Int32(upem), Int32(upem))
        hbFont = font
        faceCount = Int(ftFace.pointee.num_faces)
        var hyphen: (UInt32, Double)? = nil
        for cp: UInt32 in [0x2010, 0x2D] {
            var glyph: hb_codepoint_t = 0
            if hb_font_get_nominal_glyph(font, cp, &glyph) != 0 {
                hyphen = (glyph, Double(hb_font_get_glyph_h_advance(font, glyph)) / upem)
                break
            }
        }
        self.hyphen = hyphen
    }

    deinit {
        hb_font_destroy(hbFont)
        FT_Done_Face(ftFace)
    }

    public static func == (a: FontFace, b: FontFace) -> Bool { a === b }
    public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
    public var description: String { info.description }

    /// Whether the face has a glyph for `cp` (cached).
    func covers(_ cp: UInt32) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        if let c = coverage[cp] { return c }
        let c = FT_Get_Char_Index(ftFace, FT_ULong(cp)) != 0
        coverage[cp] = c
        return c
    }

    /// Runs `body` with the HarfBuzz font while holding the face lock.
    func withHarfBuzzFont<R>(_ body: (OpaquePointer) -> R) -> R {
        lock.lock()
        defer { lock.unlock() }
        return body(hbFont)
    }

    /// The coverage bitmap of a glyph at `size` pixels per em, offset by a fraction of a pixel,
    /// optionally turned 90° clockwise (sideways Mongolian). Cached.
    func glyph(_ key: GlyphKey) -> GlyphBitmap {
        lock.lock()
        defer { lock.unlock() }
        if let g = glyphCache[key] { return g }
        let g = rasterize(key)
        if glyphCache.count >= FontFace.glyphCacheLimit { glyphCache.removeAll(keepingCapacity: true) }
        glyphCache[key] = g
        return g
    }

    /// The glyph's coverage dilated by `radius` pixels (the halo drawn behind it). Cached.
    func halo(_ key: GlyphKey, radius: Int) -> GlyphBitmap {
        let hk = HaloKey(glyph: key, radius: radius)
        lock.lock()
        if let g = haloCache[hk] {
            lock.unlock()
            return g
        }
        lock.unlock()
        let g = glyph(key).dilated(radius: radius)
        lock.lock()
        if haloCache.count >= FontFace.glyphCacheLimit { haloCache.removeAll(keepingCapacity: true) }
        haloCache[hk] = g
        lock.unlock()
        return g
    }

    private func rasterize(_ key: GlyphKey) -> GlyphBitmap {
        guard FT_Set_Char_Size(ftFace, 0, FT_F26Dot6(key.size26_6), 72, 72) == 0,
              FT_Load_Glyph(ftFace, key.glyph, Int32(FT_LOAD_NO_HINTING | FT_LOAD_NO_BITMAP)) == 0,
              let slot = ftFace.pointee.glyph, slot.pointee.format == FT_GLYPH_FORMAT_OUTLINE
        else { return .empty }
        if key.rotated {
            // 90° clockwise in FreeType's y-up space: (x, y) → (y, −x).
            var m = FT_Matrix(xx: 0, xy: 0x10000, yx: -0x10000, yy: 0)
            FT_Outline_Transform(&slot.pointee.outline, &m)
        }
        // Subpixel placement: shift the outline by the quarter-pixel bucket (y is up in FreeType).
        FT_Outline_Translate(&slot.pointee.outline, FT_Pos(key.subX) * 16, -FT_Pos(key.subY) * 16)
        guard FT_Render_Glyph(slot, FT_RENDER_MODE_NORMAL) == 0 else { return .empty }
        let bm = slot.pointee.bitmap
        let w = Int(bm.width), h = Int(bm.rows), pitch = Int(bm.pitch)
        guard w > 0, h > 0, let buf = bm.buffer else { return .empty }
        var pixels = [UInt8](repeating: 0, count: w * h)
        for y in 0..<h {
            let src = pitch >= 0 ? buf + y * pitch : buf + (h - 1 - y) * (-pitch)
            for x in 0..<w { pixels[y * w + x] = src[x] }
        }
        return GlyphBitmap(
            width: w, height: h, left: Int(slot.pointee.bitmap_left), top: Int(slot.pointee.bitmap_top),
            pixels: pixels)
    }
}

/// Cache key of a rendered glyph.
struct GlyphKey: Hashable {
    var glyph: UInt32
    var size26_6: Int32
    var subX: UInt8  // quarter pixels, 0...3
    var subY: UInt8
    var rotated: Bool
}

struct HaloKey: Hashable {
    var glyph: GlyphKey
    var radius: Int
}

/// 8-bit coverage with its placement relative to the glyph origin (FreeType's convention:
/// `left` pixels right of the origin, `top` pixels above the baseline).
struct GlyphBitmap: Sendable {
    let width: Int
    let height: Int
    let left: Int
    let top: Int
    let pixels: [UInt8]

    static let empty = GlyphBitmap(width: 0, height: 0, left: 0, top: 0, pixels: [])

    /// Grey-scale dilation by a disc: each pixel takes the largest coverage within `radius`,
    /// which keeps the anti-aliased edge of the halo.
    func dilated(radius r: Int) -> GlyphBitmap {
        guard r > 0, width > 0 else { return self }
        let w = width + 2 * r, h = height + 2 * r
        var offsets: [(Int, Int)] = []
        for dy in -r...r {
            for dx in -r...r where dx * dx + dy * dy <= r * r + r { offsets.append((dx, dy)) }
        }
        var out = [UInt8](repeating: 0, count: w * h)
        pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                for sy in 0..<height {
                    for sx in 0..<width {
                        let v = src[sy * width + sx]
                        if v == 0 { continue }
                        for (dx, dy) in offsets {
                            let i = (sy + r + dy) * w + sx + r + dx
                            if dst[i] < v { dst[i] = v }
                        }
                    }
                }
            }
        }
        return GlyphBitmap(width: w, height: h, left: left - r, top: top + r, pixels: out)
    }
}

/// The fonts Typesetting may use: the system's Noto faces with a fallback chain per script, plus
/// fonts a book ships (registered ones are tried first for every script they cover).
public final class FontRegistry: @unchecked Sendable {
    /// The system fonts (Noto, from Debian's fonts-noto-core and fonts-noto-cjk).
    public static let system = FontRegistry()

    private let lock = NSLock()  // guards everything below, and FT_New_Face on `library`
    private var library: FT_Library?
    private let libraryError: Int32
    private var opened: [String: FontFace] = [:]  // "path#index"
    private var bookFaces: [FontFace] = []
    private var chains: [String: [FontFace]] = [:]  // "script|language"
    private var nextID = 0

    /// Directories searched for the system faces below, in order.
    public let systemFontDirectories: [String]

    public init(systemFontDirectories: [String] = [
        "/usr/share/fonts/truetype/noto", "/usr/share/fonts/opentype/noto",
        "/usr/share/fonts/truetype", "/usr/share/fonts/opentype",
    ]) {
        self.systemFontDirectories = systemFontDirectories
        var lib: FT_Library?
        libraryError = FT_Init_FreeType(&lib)
        library = lib
    }

    deinit {
        // Faces hold the library; they must go first.
        opened.removeAll()
        bookFaces.removeAll()
        chains.removeAll()
        if let library { FT_Done_FreeType(library) }
    }

    /// Registers every face of a font file (a .ttc holds several) for this book; they are tried
    /// before the system faces for each script they cover.
    @discardableResult
    public func register(fileAt path: String) throws -> [FontInfo] {
        lock.lock()
        defer { lock.unlock() }
        let first = try openLocked(path: path, index: 0)
        var faces = [first]
        if first.faceCount > 1 {
            for i in 1..<first.faceCount { faces.append(try openLocked(path: path, index: i)) }
        }
        for f in faces where !bookFaces.contains(f) { bookFaces.append(f) }
        chains.removeAll()
        return faces.map(\.info)
    }

    /// Registers every .ttf/.otf/.ttc directly inside `directory`.
    @discardableResult
    public func register(directory: String) throws -> [FontInfo] {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else {
            throw FontError.notAFontDirectory(path: directory)
        }
        var infos: [FontInfo] = []
        for name in names.sorted() where [".ttf", ".otf", ".ttc", ".otc"].contains(where: { name.lowercased().hasSuffix($0) }) {
            infos += try register(fileAt: (directory as NSString).appendingPathComponent(name))
        }
        return infos
    }

    /// The faces tried, in order, for text of `script` in `language` (a BCP 47 tag or nil).
    public func fallbackChain(for script: Script, language: String?) -> [FontInfo] {
        chain(script: script, language: language).map(\.info)
    }

    /// The first face in the chain that has a glyph for `cp`; the chain's first face otherwise
    /// (its .notdef box is better than nothing), nil only when no font at all could be opened.
    func face(for cp: UInt32, script: Script, language: String?) -> FontFace? {
        let faces = chain(script: script, language: language)
        for f in faces where f.covers(cp) { return f }
        // Last resort: any book or opened face with the glyph.
        lock.lock()
        let others = bookFaces + Array(opened.values).sorted { $0.id < $1.id }
        lock.unlock()
        for f in others where f.covers(cp) { return f }
        return faces.first
    }

    func chain(script: Script, language: String?) -> [FontFace] {
        let key = script.code + "|" + (language ?? "")
        lock.lock()
        defer { lock.unlock() }
        if let c = chains[key] { return c }
        var c: [FontFace] = []
        let probe = FontRegistry.sampleCharacter[script.code]
        for f in bookFaces where probe.map({ f.covers($0) }) ?? true { c.append(f) }
        for (file, index) in systemFaces(script: script, language: language) {
            for dir in systemFontDirectories {
                let path = (dir as NSString).appendingPathComponent(file)
                if let f = try? openLocked(path: path, index: index) {
                    if !c.contains(f) { c.append(f) }
                    break
                }
            }
        }
        chains[key] = c
        return c
    }

    private func openLocked(path: String, index: Int) throws -> FontFace {
        let key = "\(path)#\(index)"
        guard let library else { throw FontError.freetypeUnavailable(code: libraryError) }
        if let f = opened[key] { return f }
        var ft: FT_Face?
        let err = FT_New_Face(library, path, index, &ft)
        guard err == 0, let ft else { throw FontError.cannotOpen(path: path, code: err) }
        let family = ft.pointee.family_name.map { String(cString: $0) } ?? "?"
        let style = ft.pointee.style_name.map { String(cString: $0) } ?? ""
        nextID += 1
        let face = FontFace(ftFace: ft, info: FontInfo(path: path, faceIndex: index, family: family, style: style), id: nextID)
        opened[key] = face
        return face
    }

    /// A character each script's face must have, used to decide which book fonts cover a script.
    static let sampleCharacter: [String: UInt32] = [
        "Latn": 0x61, "Arab": 0x627, "Hebr": 0x5D0, "Mong": 0x182E, "Hani": 0x6C34, "Hira": 0x3042,
        "Kana": 0x30A2, "Hang": 0xAC00, "Deva": 0x915, "Thai": 0xE01, "Grek": 0x3B1, "Cyrl": 0x430,
        "Beng": 0x995, "Taml": 0xB95, "Ethi": 0x1200, "Geor": 0x10D0, "Armn": 0x561, "Khmr": 0x1780,
    ]

    /// CJK face in NotoSansCJK-Regular.ttc for a language: 0 JP, 1 KR, 2 SC, 3 TC, 4 HK.
    static func cjkIndex(language: String?) -> Int {
        let l = (language ?? "").lowercased()
        if l.hasPrefix("ja") { return 0 }
        if l.hasPrefix("ko") { return 1 }
        if l.hasPrefix("zh-hk") || l.hasPrefix("yue") { return 4 }
        if l.hasPrefix("zh-tw") || l.hasPrefix("zh-hant") || l.hasPrefix("zh-mo") { return 3 }
        return 2
    }

    /// System faces for a script, best first; Latin (which has digits and punctuation) and CJK
    /// close every chain so Common characters always find a glyph.
    private func systemFaces(script: Script, language: String?) -> [(String, Int)] {
        let latin = ("NotoSans-Regular.ttf", 0)
        let cjk = ("NotoSansCJK-Regular.ttc", FontRegistry.cjkIndex(language: language))
        let symbols = [("NotoSansSymbols-Regular.ttf", 0), ("NotoSansSymbols2-Regular.ttf", 0)]
        var own: [(String, Int)]
        switch script.code {
        case "Arab": own = [("NotoNaskhArabic-Regular.ttf", 0), ("NotoSansArabic-Regular.ttf", 0)]
        case "Hebr": own = [("NotoSansHebrew-Regular.ttf", 0)]
        case "Mong": own = [("NotoSansMongolian-Regular.ttf", 0)]
        case "Hani", "Hira", "Kana", "Bopo", "Hang": own = [cjk]
        case "Deva": own = [("NotoSansDevanagari-Regular.ttf", 0)]
        case "Thai": own = [("NotoSansThai-Regular.ttf", 0)]
        case "Beng": own = [("NotoSansBengali-Regular.ttf", 0)]
        case "Taml": own = [("NotoSansTamil-Regular.ttf", 0)]
        case "Telu": own = [("NotoSansTelugu-Regular.ttf", 0)]
        case "Knda": own = [("NotoSansKannada-Regular.ttf", 0)]
        case "Mlym": own = [("NotoSansMalayalam-Regular.ttf", 0)]
        case "Gujr": own = [("NotoSansGujarati-Regular.ttf", 0)]
        case "Guru": own = [("NotoSansGurmukhi-Regular.ttf", 0)]
        case "Orya": own = [("NotoSansOriya-Regular.ttf", 0)]
        case "Sinh": own = [("NotoSansSinhala-Regular.ttf", 0)]
        case "Ethi": own = [("NotoSansEthiopic-Regular.ttf", 0)]
        case "Geor": own = [("NotoSansGeorgian-Regular.ttf", 0)]
        case "Armn": own = [("NotoSansArmenian-Regular.ttf", 0)]
        case "Khmr": own = [("NotoSansKhmer-Regular.ttf", 0)]
        case "Laoo": own = [("NotoSansLao-Regular.ttf", 0)]
        case "Mymr": own = [("NotoSansMyanmar-Regular.ttf", 0)]
        case "Tibt": own = [("NotoSerifTibetan-Regular.ttf", 0)]
        case "Syrc": own = [("NotoSansSyriac-Regular.ttf", 0)]
        case "Thaa": own = [("NotoSansThaana-Regular.ttf", 0)]
        case "Cher": own = [("NotoSansCherokee-Regular.ttf", 0)]
        default: own = []
        }
        // CJK text wants CJK punctuation and Latin from the CJK face; others from Noto Sans.
        if ["Hani", "Hira", "Kana", "Bopo", "Hang"].contains(script.code) {
            return own + [latin] + symbols
        }
        return own + [latin, cjk] + symbols
    }
}
