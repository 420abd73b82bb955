// tEXt chunks put into and read out of our own PNGs: the file stays a PNG every decoder reads
// with the same pixels (libpng strictly, which checks every chunk's CRC), and a damaged or
// foreign chunk is not taken for ours.
import Codecs
import Raster
import Testing

@Suite struct PNGTextTests {
    static let picture = PNGWriterTests.picture(width: 37, height: 23, seed: 7, opaque: true, gray: false)

    @Test func aChunkIsReadBackAndThePixelsAreUnchanged() throws {
        let png = try PNGEncoder.encode(Self.picture)
        let text = "0 runsOn\n3 -"
        let stamped = try #require(PNGText.inserting(keyword: "picturebook-clearance", text: text, into: png))
        #expect(stamped.count == png.count + 12 + "picturebook-clearance".utf8.count + 1 + text.utf8.count)
        #expect(PNGText.read(keyword: "picturebook-clearance", in: stamped) == text)
        // The first kilobyte is enough: the chunk sits right behind IHDR.
        #expect(PNGText.read(keyword: "picturebook-clearance", in: Array(stamped.prefix(1024))) == text)
        #expect(PNGText.read(keyword: "other", in: stamped) == nil)
        #expect(PNGText.read(keyword: "picturebook-clearance", in: png) == nil, "a PNG without the chunk")
        let decoded = try ImageDecoder.decode(stamped, name: "stamped.png", options: PNGWriterTests.strict)
        #expect(decoded.pixels == Self.picture.pixels)
    }

    @Test func anEmptyTextIsAText() throws {
        let stamped = try #require(PNGText.inserting(keyword: "k", text: "", into: try PNGEncoder.encode(Self.picture)))
        #expect(PNGText.read(keyword: "k", in: stamped) == "")
    }

    @Test func aDamagedChunkIsNotRead() throws {
        var stamped = try #require(PNGText.inserting(keyword: "k", text: "0 textLeft", into: try PNGEncoder.encode(Self.picture)))
        stamped[33 + 8 + 3] ^= 0x01  // a byte of the text; its CRC no longer matches
        #expect(PNGText.read(keyword: "k", in: stamped) == nil)
    }

    @Test(arguments: ["", " lead", "trail ", "two  spaces", String(repeating: "k", count: 80), "tab\there", "é"])
    func aKeywordTEXtCannotHoldIsRefused(_ keyword: String) throws {
        #expect(PNGText.inserting(keyword: keyword, text: "x", into: try PNGEncoder.encode(Self.picture)) == nil)
    }

    @Test func textOutsidePrintableASCIIAndNotAPNGAreRefused() throws {
        let png = try PNGEncoder.encode(Self.picture)
        #expect(PNGText.inserting(keyword: "k", text: "naïve", into: png) == nil)
        #expect(PNGText.inserting(keyword: "k", text: "x", into: Array("not a png at all, not at all.....".utf8)) == nil)
        #expect(PNGText.read(keyword: "k", in: []) == nil)
        #expect(PNGText.read(keyword: "k", in: Array(png.prefix(20))) == nil, "a truncated header")
    }
}
