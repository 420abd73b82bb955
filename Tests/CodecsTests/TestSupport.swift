// Builds the test corpus in memory: every PNG colour type and depth through libpng (RawPNG),
// JPEG variants through the module's encoder, EXIF segments by hand.
import Codecs
import Glibc
import Raster
import Testing
import TestSupport


enum PNGColor: Int32, Sendable, CaseIterable {
    case gray = 0, rgb = 2, palette = 3, grayAlpha = 4, rgba = 6

    var depths: [Int] {
        switch self {
        case .gray: return [1, 2, 4, 8, 16]
        case .palette: return [1, 2, 4, 8]
        default: return [8, 16]
        }
    }
    var channels: Int {
        switch self {
        case .gray, .palette: return 1
        case .grayAlpha: return 2
        case .rgb: return 3
        case .rgba: return 4
        }
    }
    var canHaveTRNS: Bool { self == .gray || self == .rgb || self == .palette }
}

/// One PNG of the matrix, with the RGBA and gray pixels a decoder must produce.
struct PNGCase: Sendable, CustomTestStringConvertible {
    var color: PNGColor
    var depth: Int
    var trns: Bool
    var interlaced: Bool
    var grayPalette = false
    var width = 13
    var height = 11

    var testDescription: String {
        "\(color) \(depth)-bit\(trns ? " tRNS" : "")\(grayPalette ? " gray-palette" : "")\(interlaced ? " Adam7" : "") \(width)×\(height)"
    }

    /// Every colour type × legal depth × tRNS × interlace (and gray palettes), at a size whose
    /// Adam7 passes are all partial, plus tiny sizes where some passes are empty.
    static let all: [PNGCase] = {
        var out: [PNGCase] = []
        for color in PNGColor.allCases {
            for depth in color.depths {
                for trns in color.canHaveTRNS ? [false, true] : [false] {
                    for interlaced in [false, true] {
                        out.append(PNGCase(color: color, depth: depth, trns: trns, interlaced: interlaced))
                        if color == .palette {
                            out.append(PNGCase(color: color, depth: depth, trns: trns, interlaced: interlaced, grayPalette: true))
                        }
                    }
                }
            }
        }
        for (w, h) in [(1, 1), (2, 5), (9, 1)] {
            out.append(PNGCase(color: .rgba, depth: 8, trns: false, interlaced: true, width: w, height: h))
            out.append(PNGCase(color: .gray, depth: 1, trns: false, interlaced: true, width: w, height: h))
        }
        return out
    }()

    struct Built {
        var bytes: [UInt8]
        var rgba: [RGBA8]
        var gray: [UInt8]
    }

    /// The file and the pixels expected from it.
    func build() -> Built {
        var rng = SplitMix64(seed: UInt64(color.rawValue) &* 1000 &+ UInt64(depth) &* 10 &+ (trns ? 1 : 0) &+ UInt64(width * 7 + height))
        let maxSample = (1 << depth) - 1
        let n = width * height
        // Raw samples, channels per pixel.
        var samples = [Int](repeating: 0, count: n * color.channels)
        var palette: [UInt8] = []
        var paletteAlpha: [UInt8] = []
        if color == .palette {
            let entries = Swift.min(1 << depth, 200)
            for _ in 0..<entries {
                if grayPalette {
                    let v = UInt8.random(in: 0...255, using: &rng)
                    palette += [v, v, v]
                } else {
                    palette += (0..<3).map { _ in UInt8.random(in: 0...255, using: &rng) }
                }
            }
            if trns { paletteAlpha = (0..<(entries + 1) / 2).map { _ in UInt8.random(in: 0...255, using: &rng) } }
            for i in 0..<n { samples[i] = Int.random(in: 0..<entries, using: &rng) }
        } else {
            for i in samples.indices { samples[i] = Int.random(in: 0...maxSample, using: &rng) }
            // Extremes must survive scaling exactly.
            if n >= 2 {
                for c in 0..<color.channels {
                    samples[c] = 0
                    samples[color.channels + c] = maxSample
                }
            }
        }

        var raw = RawPNG(width: width, height: height, colorType: color.rawValue, bitDepth: depth)
        raw.interlaced = interlaced
        raw.palette = palette
        raw.paletteAlpha = paletteAlpha
        var transparent: [Int]?
        if trns && color != .palette {
            // The colour of the last pixel, so at least one pixel is transparent.
            transparent = Array(samples[(n - 1) * color.channels..<n * color.channels])
            let t = transparent!.map { UInt16($0) }
            raw.transparentColor = color == .gray ? (t[0], 0, 0, 0) : (0, t[0], t[1], t[2])
        }
        raw.samples = Self.pack(samples, depth: depth, rowSamples: width * color.channels, rows: height)

        func scale(_ v: Int) -> UInt8 {
            switch depth {
            case 16: return UInt8((Double(v) * 255 / 65535).rounded())
            case 8: return UInt8(v)
            default: return UInt8(v * 255 / maxSample)
            }
        }
        var rgba: [RGBA8] = []
        for i in 0..<n {
            let s = Array(samples[i * color.channels..<(i + 1) * color.channels])
            var px: RGBA8
            switch color {
            case .gray: px = RGBA8(gray: scale(s[0]))
            case .grayAlpha: px = RGBA8(r: scale(s[0]), g: scale(s[0]), b: scale(s[0]), a: scale(s[1]))
            case .rgb: px = RGBA8(r: scale(s[0]), g: scale(s[1]), b: scale(s[2]))
            case .rgba: px = RGBA8(r: scale(s[0]), g: scale(s[1]), b: scale(s[2]), a: scale(s[3]))
            case .palette:
                let k = s[0]
                px = RGBA8(r: palette[3 * k], g: palette[3 * k + 1], b: palette[3 * k + 2], a: k < paletteAlpha.count ? paletteAlpha[k] : 255)
            }
            if let t = transparent, s == t { px.a = 0 }
            rgba.append(px)
        }
        let gray = rgba.map(Self.expectedGray)
        let bytes: [UInt8]
        do {
            bytes = try raw.encode(options: PNGEncodeOptions(), name: "fixture")
        } catch {
            Issue.record("cannot build \(testDescription): \(error)")
            bytes = []
        }
        return Built(bytes: bytes, rgba: rgba, gray: gray)
    }

    /// Luma composited over white, computed independently of the module.
    static func expectedGray(_ p: RGBA8) -> UInt8 {
        let l = Int(p.luma), a = Int(p.a)
        return UInt8(Int((Double(l * a) / 255).rounded()) + 255 - a)
    }

    /// PNG row layout: samples packed MSB-first below 8 bits, big-endian at 16.
    static func pack(_ samples: [Int], depth: Int, rowSamples: Int, rows: Int) -> [UInt8] {
        var out: [UInt8] = []
        for y in 0..<rows {
            let row = samples[y * rowSamples..<(y + 1) * rowSamples]
            switch depth {
            case 16: for v in row { out += [UInt8(v >> 8), UInt8(v & 0xff)] }
            case 8: for v in row { out.append(UInt8(v)) }
            default:
                var byte = 0, bits = 0
                for v in row {
                    byte = byte << depth | v
                    bits += depth
                    if bits == 8 {
                        out.append(UInt8(byte))
                        byte = 0
                        bits = 0
                    }
                }
                if bits > 0 { out.append(UInt8(byte << (8 - bits))) }
            }
        }
        return out
    }
}

// MARK: - Pictures

enum Pictures {
    /// Smooth colour ramps with a few hard edges: something JPEG compresses like a photo.
    static func photo(width: Int, height: Int) -> Bitmap<RGBA8> {
        Bitmap(width: width, height: height) { p in
            for y in 0..<height {
                for x in 0..<width {
                    let r = UInt8((x * 255) / Swift.max(1, width - 1))
                    let g = UInt8((y * 255) / Swift.max(1, height - 1))
                    let b: UInt8 = (x / 16 + y / 16) % 2 == 0 ? 60 : 190
                    p[y * width + x] = RGBA8(r: r, g: g, b: b)
                }
            }
        }
    }

    /// Mid-gray with a red block at the stored top-left and a green one at the top-right, to see
    /// where orientation moves them.
    static func corners(width: Int = 48, height: Int = 32, block: Int = 8) -> Bitmap<RGBA8> {
        var b = Bitmap(width: width, height: height, fill: RGBA8(gray: 128))
        b.fill(.init(x: 0, y: 0, width: block, height: block), with: RGBA8(r: 255, g: 0, b: 0))
        b.fill(.init(x: width - block, y: 0, width: block, height: block), with: RGBA8(r: 0, g: 255, b: 0))
        return b
    }

    static func meanAbsoluteError(_ a: Bitmap<RGBA8>, _ b: Bitmap<RGBA8>) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        var sum = 0
        for (p, q) in zip(a.pixels, b.pixels) {
            sum += abs(Int(p.r) - Int(q.r)) + abs(Int(p.g) - Int(q.g)) + abs(Int(p.b) - Int(q.b))
        }
        return Double(sum) / Double(a.pixelCount * 3)
    }

    static func meanAbsoluteError(_ a: Bitmap<UInt8>, _ b: Bitmap<UInt8>) -> Double {
        precondition(a.width == b.width && a.height == b.height)
        var sum = 0
        for (p, q) in zip(a.pixels, b.pixels) { sum += abs(Int(p) - Int(q)) }
        return Double(sum) / Double(a.pixelCount)
    }
}

// MARK: - JPEG surgery

enum JPEGBytes {
    /// A TIFF structure with IFD0 holding an unrelated tag and the orientation tag.
    static func tiff(orientation: Int, bigEndian: Bool) -> [UInt8] {
        func u16(_ v: Int) -> [UInt8] { bigEndian ? [UInt8(v >> 8), UInt8(v & 0xff)] : [UInt8(v & 0xff), UInt8(v >> 8)] }
        func u32(_ v: Int) -> [UInt8] { bigEndian ? u16(v >> 16) + u16(v & 0xffff) : u16(v & 0xffff) + u16(v >> 16) }
        var t: [UInt8] = bigEndian ? [0x4D, 0x4D] : [0x49, 0x49]
        t += u16(42) + u32(8)
        t += u16(2)  // two entries, so the search has to walk
        t += u16(0x010F) + u16(2) + u32(4) + [0x41, 0x42, 0x43, 0]  // Make = "ABC"
        t += u16(0x0112) + u16(3) + u32(1) + u16(orientation) + u16(0)
        t += u32(0)
        return t
    }

    static func exifPayload(orientation: Int, bigEndian: Bool) -> [UInt8] {
        Array("Exif".utf8) + [0, 0] + tiff(orientation: orientation, bigEndian: bigEndian)
    }

    /// `jpeg` with an APP1 segment carrying `payload` inserted right after SOI.
    static func insertingAPP1(_ payload: [UInt8], into jpeg: [UInt8]) -> [UInt8] {
        let length = payload.count + 2
        return Array(jpeg[0..<2]) + [0xFF, 0xE1, UInt8(length >> 8), UInt8(length & 0xff)] + payload + Array(jpeg[2...])
    }

    /// Offset of the first marker `code` (its 0xFF byte) before the entropy data.
    static func markerOffset(_ code: UInt8, in jpeg: [UInt8]) -> Int? {
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF {
            if jpeg[i + 1] == code { return i }
            if jpeg[i + 1] == 0xDA { return nil }
            i += 2 + (Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3]))
        }
        return nil
    }

    /// `jpeg` without its segment `code` (e.g. 0xEE, the Adobe APP14 marker).
    static func removingSegment(_ code: UInt8, from jpeg: [UInt8]) -> [UInt8] {
        guard let at = markerOffset(code, in: jpeg) else { return jpeg }
        let length = Int(jpeg[at + 2]) << 8 | Int(jpeg[at + 3])
        return Array(jpeg[..<at]) + Array(jpeg[(at + 2 + length)...])
    }

    /// Rewrites the frame header's size (baseline or progressive SOF).
    static func settingFrameSize(width: Int, height: Int, in jpeg: [UInt8]) -> [UInt8] {
        var j = jpeg
        guard let at = markerOffset(0xC0, in: jpeg) ?? markerOffset(0xC2, in: jpeg) else { return jpeg }
        j[at + 5] = UInt8(height >> 8)
        j[at + 6] = UInt8(height & 0xff)
        j[at + 7] = UInt8(width >> 8)
        j[at + 8] = UInt8(width & 0xff)
        return j
    }

    /// Offset of the first byte of entropy-coded data (after the first SOS header).
    static func scanDataOffset(_ jpeg: [UInt8]) -> Int? {
        var i = 2
        while i + 4 <= jpeg.count, jpeg[i] == 0xFF {
            let length = Int(jpeg[i + 2]) << 8 | Int(jpeg[i + 3])
            if jpeg[i + 1] == 0xDA { return i + 2 + length }
            i += 2 + length
        }
        return nil
    }
}

// MARK: - PNG surgery

enum PNGBytes {
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            crc ^= UInt32(b)
            for _ in 0..<8 { crc = crc & 1 != 0 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xff), UInt8(v >> 8 & 0xff), UInt8(v & 0xff)] }

    static func chunk(_ type: String, _ data: [UInt8]) -> [UInt8] {
        let td = Array(type.utf8) + data
        return be32(UInt32(data.count)) + td + be32(crc32(td))
    }

    /// A well-formed PNG whose header claims `width`×`height` RGB, with a token IDAT.
    static func claiming(width: Int, height: Int) -> [UInt8] {
        let ihdr = be32(UInt32(width)) + be32(UInt32(height)) + [8, 2, 0, 0, 0]
        // A zlib stream of a few zero bytes.
        let idat: [UInt8] = [0x78, 0x9C, 0x63, 0x60, 0x60, 0x60, 0x00, 0x00, 0x00, 0x04, 0x00, 0x01]
        return ImageFormat.pngSignature + chunk("IHDR", ihdr) + chunk("IDAT", idat) + chunk("IEND", [])
    }

    /// `png` with a chunk inserted after IHDR.
    static func inserting(_ extra: [UInt8], into png: [UInt8]) -> [UInt8] {
        let afterIHDR = 8 + 8 + 13 + 4
        return Array(png[..<afterIHDR]) + extra + Array(png[afterIHDR...])
    }
}

// MARK: - stderr

/// Runs `body` with file descriptor 2 pointed at a temporary file and returns what was written.
func capturingStandardError(_ body: () throws -> Void) rethrows -> String {
    fflush(nil)
    var template = Array("/tmp/codecs-stderr-XXXXXX".utf8CString)
    let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
    precondition(fd >= 0, "mkstemp failed: \(errno)")
    let path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    let saved = dup(2)
    dup2(fd, 2)
    defer {
        fflush(nil)
        dup2(saved, 2)
        close(saved)
        close(fd)
        unlink(path)
    }
    try body()
    fflush(nil)
    var text: [UInt8] = []
    lseek(fd, 0, SEEK_SET)
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress!, 4096) }
        if n <= 0 { break }
        text += buffer[0..<n]
    }
    return String(decoding: text, as: UTF8.self)
}
