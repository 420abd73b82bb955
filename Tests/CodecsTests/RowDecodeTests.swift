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
