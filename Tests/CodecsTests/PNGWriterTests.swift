// The PNG encoder's own container and parallel deflate (PNGWriter), checked through libpng with
// strict decoding (which verifies every chunk CRC and the zlib Adler-32) and through a CRC
// computed here, independently of zlib.
import Codecs
import Raster
import Testing
import TestSupport

@Suite struct PNGWriterTests {
    /// Noise next to flat areas and gradients, so every filter and the matcher all have work, in
    /// one of the four channel reductions.
    static func picture(width: Int, height: Int, seed: UInt64, opaque: Bool, gray: Bool) -> Bitmap<RGBA8> {
        var rng = SplitMix64(seed: seed)
        return Bitmap(width: width, height: height) { p in
            for y in 0..<height {
                for x in 0..<width {
                    var v: (UInt8, UInt8, UInt8, UInt8)
                    switch (x / 8 + y / 5) % 3 {
                    case 0: v = (200, 180, 40, 255)
                    case 1: v = (UInt8(truncatingIfNeeded: x * 3 + y), UInt8(truncatingIfNeeded: y * 2), UInt8(truncatingIfNeeded: x), 128)
                    default:
                        v = (
                            UInt8.random(in: 0...255, using: &rng), UInt8.random(in: 0...255, using: &rng),
                            UInt8.random(in: 0...255, using: &rng), UInt8.random(in: 0...255, using: &rng)
                        )
                    }
                    if gray { v.1 = v.0; v.2 = v.0 }
                    if opaque { v.3 = 255 }
                    p[y * width + x] = RGBA8(r: v.0, g: v.1, b: v.2, a: v.3)
                }
            }
        }
    }

    static let strict = DecodeOptions(strict: true)

    struct Case: Sendable, CustomTestStringConvertible {
        var opaque: Bool
        var gray: Bool
        var filter: PNGFilter
        var level: Int
        var expected: String {
            switch (gray, opaque) {
            case (true, true): return "gray 8-bit"
            case (true, false): return "gray+alpha 8-bit"
            case (false, true): return "RGB 8-bit"
            case (false, false): return "RGBA 8-bit"
            }
        }
        var testDescription: String { "\(expected) \(filter) level \(level)" }
    }

    static let cases: [Case] = [(true, true), (false, true), (true, false), (false, false)].flatMap { opaque, gray in
        PNGFilter.allCases.flatMap { filter in [0, 1, 6, 9].map { Case(opaque: opaque, gray: gray, filter: filter, level: $0) } }
    }

    @Test(arguments: cases)
    func everyReductionFilterAndLevelRoundTrips(_ c: Case) throws {
        let picture = Self.picture(width: 61, height: 29, seed: 7, opaque: c.opaque, gray: c.gray)
        let options = PNGEncodeOptions(compressionLevel: c.level, filter: c.filter)
        // One stream, and the same pixels cut into three strips across small IDAT chunks.
        for tuning in [PNGWriterTuning(), PNGWriterTuning(strips: 3, chunkSize: 500)] {
            let png = try PNGEncoder.encode(picture, options: options, name: "x.png", tuning: tuning)
            #expect(try ImageDecoder.info(png, name: "x.png").colorDescription == c.expected)
            #expect(try ImageDecoder.decode(png, name: "x.png", options: Self.strict) == picture)
            try Self.checkChunks(png, chunkSize: tuning.chunkSize)
        }
    }

    struct Shape: Sendable, CustomTestStringConvertible {
        var width: Int
        var height: Int
        var strips: Int
        var chunkSize: Int
        var testDescription: String { "\(width)×\(height) in \(strips) strips, \(chunkSize)-byte IDATs" }
    }

    /// One row, one column, a single pixel (fewer bytes than strips), sizes that split unevenly
    /// and more strips than any machine here has cores.
    static let shapes: [Shape] = [
        Shape(width: 1, height: 1, strips: 8, chunkSize: 1),
        Shape(width: 1, height: 57, strips: 5, chunkSize: 3),
        Shape(width: 113, height: 1, strips: 6, chunkSize: 17),
        Shape(width: 7, height: 13, strips: 3, chunkSize: 64),
        Shape(width: 333, height: 17, strips: 7, chunkSize: 1000),
        Shape(width: 250, height: 190, strips: 5, chunkSize: 8192),
        Shape(width: 250, height: 190, strips: 11, chunkSize: 256 * 1024),
    ]

    @Test(arguments: shapes)
    func stripAndChunkBoundariesAnywhere(_ s: Shape) throws {
        let tuning = PNGWriterTuning(strips: s.strips, chunkSize: s.chunkSize)
        for (opaque, gray) in [(false, false), (true, false), (true, true)] {
            let picture = Self.picture(width: s.width, height: s.height, seed: 3, opaque: opaque, gray: gray)
            for options in [PNGEncodeOptions.fast, .default, PNGEncodeOptions(compressionLevel: 0, filter: .paeth)] {
                let png = try PNGEncoder.encode(picture, options: options, name: "s.png", tuning: tuning)
                #expect(try ImageDecoder.decode(png, name: "s.png", options: Self.strict) == picture)
                try Self.checkChunks(png, chunkSize: s.chunkSize)
            }
        }
        let gray = Self.picture(width: s.width, height: s.height, seed: 4, opaque: true, gray: false).map(\.luma)
        let png = try PNGEncoder.encode(gray, options: .fast, name: "g.png", tuning: tuning)
        #expect(try ImageDecoder.decodeGray(png, name: "g.png", options: Self.strict) == gray)
    }

    /// Screen-sized: a two-page spread of noise and flat colour, through the automatic strip count.
    @Test(arguments: [PNGEncodeOptions.fast, .default])
    func largeScreenRoundTrips(_ options: PNGEncodeOptions) throws {
        let picture = Self.picture(width: 2556, height: 1179, seed: 11, opaque: true, gray: false)
        let png = try PNGEncoder.encode(picture, options: options, name: "screen.png")
        #expect(try ImageDecoder.decode(png, name: "screen.png", options: Self.strict) == picture)
        try Self.checkChunks(png, chunkSize: PNGWriterTuning().chunkSize)
        let idats = try Self.chunks(png).filter { $0.type == "IDAT" }.count
        #expect(idats > 1)
    }

    /// The strips cost next to nothing: each starts with its predecessor's window as dictionary,
    /// so all that is lost is a sync flush and a block header per strip.
    @Test(arguments: [false, true])
    func stripsCostAlmostNoRatio(smooth: Bool) throws {
        let picture = smooth ? Pictures.photo(width: 800, height: 600) : Self.picture(width: 800, height: 600, seed: 8, opaque: true, gray: false)
        for options in [PNGEncodeOptions.fast, .default] {
            let one = try PNGEncoder.encode(picture, options: options, name: "1.png", tuning: PNGWriterTuning(strips: 1))
            let eight = try PNGEncoder.encode(picture, options: options, name: "8.png", tuning: PNGWriterTuning(strips: 8))
            #expect(eight.count <= one.count + one.count / 500 + 7 * 64, "\(eight.count) bytes in 8 strips, \(one.count) in 1")
            #expect(try ImageDecoder.decode(eight, name: "8.png", options: Self.strict) == picture)
        }
    }

    /// Strict decoding really does check what these tests rely on it to check.
    @Test func damagedChecksumsAreCaught() throws {
        let picture = Self.picture(width: 40, height: 30, seed: 5, opaque: false, gray: false)
        let png = try PNGEncoder.encode(picture, options: .fast, name: "d.png", tuning: PNGWriterTuning(strips: 3))
        let idat = try #require(try Self.chunks(png).first { $0.type == "IDAT" })
        // The last four bytes of the only IDAT's data are the Adler-32 of the whole zlib stream.
        var badAdler = png
        badAdler[idat.offset + 8 + idat.length - 1] ^= 0x01
        var badCRC = png
        badCRC[idat.offset + 8 + idat.length] ^= 0x01
        for bad in [badAdler, badCRC] {
            #expect(throws: CodecError.self) { try ImageDecoder.decode(bad, name: "d.png", options: Self.strict) }
        }
    }

    @Test func interlacedStillWritesAdam7() throws {
        let picture = Self.picture(width: 45, height: 33, seed: 9, opaque: false, gray: false)
        let png = try PNGEncoder.encode(picture, options: PNGEncodeOptions(interlaced: true))
        #expect(try ImageDecoder.info(png, name: "i.png").isInterlaced)
        #expect(try ImageDecoder.decode(png, name: "i.png", options: Self.strict) == picture)
    }

    @Test func emptyImagesAreRefusedWithTheName() {
        let empty = Bitmap<RGBA8>(width: 0, height: 5) { _ in }
        #expect(throws: CodecError.self) { try PNGEncoder.encode(empty, name: "empty.png") }
        do {
            _ = try PNGEncoder.encode(Bitmap<UInt8>(width: 3, height: 0) { _ in }, name: "flat.png")
            Issue.record("an empty gray bitmap was encoded")
        } catch {
            #expect(error.description.hasPrefix("flat.png:"))
        }
    }

    // MARK: Container checks, independent of zlib and libpng

    struct Chunk {
        var type: String
        var offset: Int
        var length: Int
    }

    static func chunks(_ png: [UInt8]) throws -> [Chunk] {
        try #require(png.count >= 8 && Array(png[0..<8]) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
        var out: [Chunk] = []
        var at = 8
        while at < png.count {
            try #require(at + 12 <= png.count)
            let length = png[at..<at + 4].reduce(0) { $0 << 8 | Int($1) }
            try #require(at + 12 + length <= png.count)
            let type = String(decoding: png[at + 4..<at + 8], as: UTF8.self)
            let stored = png[at + 8 + length..<at + 12 + length].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            #expect(stored == crc32(png[at + 4..<at + 8 + length]), "CRC of \(type) at \(at)")
            out.append(Chunk(type: type, offset: at, length: length))
            at += 12 + length
        }
        return out
    }

    /// IHDR first, then only IDATs of at most `chunkSize` bytes, then IEND at the very end.
    static func checkChunks(_ png: [UInt8], chunkSize: Int) throws {
        let list = try chunks(png)
        try #require(list.count >= 3)
        #expect(list.first?.type == "IHDR" && list.first?.length == 13)
        #expect(list.last?.type == "IEND" && list.last?.length == 0)
        let middle = list.dropFirst().dropLast()
        #expect(middle.allSatisfy { $0.type == "IDAT" && $0.length <= chunkSize && $0.length > 0 })
        // Zlib header: deflate, 32 KB window, no preset dictionary, check bits right.
        let stream = middle.flatMap { png[$0.offset + 8..<$0.offset + 8 + $0.length] }
        try #require(stream.count >= 6)
        #expect(stream[0] == 0x78 && (Int(stream[0]) << 8 | Int(stream[1])) % 31 == 0 && stream[1] & 0x20 == 0)
    }

    /// Bitwise CRC-32 (ISO-HDLC, as PNG specifies), slow and obviously right.
    static func crc32(_ bytes: ArraySlice<UInt8>) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes {
            c ^= UInt32(b)
            for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        }
        return ~c
    }
}
