import Codecs
import Raster
import Testing

@Suite struct RowDecodeTests {
    /// Rows delivered strip by strip reassemble to exactly what the whole-image decode gives,
    /// whatever the strip height (1, one that does not divide the height, taller than the image).
    @Test(arguments: PNGCase.all.filter { !$0.interlaced }, [1, 7, 64])
    func rowsMatchWholeImageDecode(_ c: PNGCase, stripRows: Int) throws {
        let bytes = c.build().bytes
        let whole = try ImageDecoder.decode(bytes, name: "case.png")
        var rows = [RGBA8]()
        var nextRow = 0
        let info = try ImageDecoder.decodeRows(bytes, name: "case.png", stripRows: stripRows) { strip, first, count in
            #expect(first == nextRow)
            rows += strip.prefix(count * whole.width)
            nextRow += count
        }
        #expect(info.width == whole.width && info.height == whole.height)
        #expect(nextRow == whole.height)
        #expect(rows == whole.pixels)
    }

    @Test func rejectsWhatItCannotStream() throws {
        let jpeg = try JPEGEncoder.encode(Pictures.photo(width: 32, height: 24))
        #expect(throws: CodecError.self) { try ImageDecoder.decodeRows(jpeg, name: "x.jpg") { _, _, _ in } }
        let info = try ImageDecoder.info(jpeg, name: "x.jpg")
        #expect(!ImageDecoder.canDecodeRows(info))
        if let interlaced = PNGCase.all.first(where: \.interlaced) {
            #expect(throws: CodecError.self) { try ImageDecoder.decodeRows(interlaced.build().bytes, name: "i.png") { _, _, _ in } }
        }
    }

    @Test func truncatedFileThrows() throws {
        let png = try PNGEncoder.encode(Pictures.photo(width: 64, height: 48))
        #expect(throws: CodecError.self) {
            try ImageDecoder.decodeRows(Array(png.prefix(png.count / 2)), name: "cut.png") { _, _, _ in }
        }
    }
}

@Suite struct AdlerTests {
    /// A 1×1 black RGB PNG whose zlib stream ends in the given Adler-32 (chunk CRCs all valid).
    static func blackPixel(adler: [UInt8]) -> [UInt8] {
        let ihdr = PNGBytes.be32(1) + PNGBytes.be32(1) + [8, 2, 0, 0, 0]
        let idat: [UInt8] = [0x78, 0x9C, 0x63, 0x60, 0x60, 0x60, 0x00, 0x00] + adler
        return ImageFormat.pngSignature + PNGBytes.chunk("IHDR", ihdr) + PNGBytes.chunk("IDAT", idat) + PNGBytes.chunk("IEND", [])
    }

    @Test func rightChecksumDecodesEitherWay() throws {
        let png = Self.blackPixel(adler: [0x00, 0x04, 0x00, 0x01])
        #expect(try ImageDecoder.decode(png, name: "ok.png").pixels == [RGBA8(r: 0, g: 0, b: 0)])
        #expect(try ImageDecoder.decode(png, name: "ok.png", options: DecodeOptions(strict: true)).pixels == [RGBA8(r: 0, g: 0, b: 0)])
    }

    /// The chunk CRC already vouches for the bytes, so only strict decoding insists on the
    /// stream's own checksum.
    @Test func wrongAdlerUnderAGoodCRCFailsOnlyWhenStrict() throws {
        let png = Self.blackPixel(adler: [0x00, 0x04, 0x00, 0x02])
        #expect(try ImageDecoder.decode(png, name: "adler.png").pixels == [RGBA8(r: 0, g: 0, b: 0)])
        #expect(throws: CodecError.self) { try ImageDecoder.decode(png, name: "adler.png", options: DecodeOptions(strict: true)) }
    }
}
