import Codecs
import Raster
@testable import Render
import Testing

@Suite struct APNGTests {
    static let options = PNGEncodeOptions(compressionLevel: 1, filter: .up, reduceChannels: false)

    static func frame(_ v: UInt8, width: Int = 16, height: Int = 8) throws -> [UInt8] {
        try PNGEncoder.encode(Bitmap(width: width, height: height, fill: RGBA8(r: v, g: 255 - v, b: 40)), options: options)
    }

    @Test func framesBecomeOneAnimationWithValidChunks() throws {
        let frames = try [0, 100, 200].map { try Self.frame(UInt8($0)) }
        let apng = try APNG.assemble(frames: frames, delayMilliseconds: 40)
        let chunks = try #require(APNG.chunks(apng))
        #expect(chunks.first?.type == "IHDR" && chunks.last?.type == "IEND")
        #expect(chunks.filter { $0.type == "fcTL" }.count == 3)
        let actl = try #require(chunks.first { $0.type == "acTL" })
        #expect(actl.data == [0, 0, 0, 3, 0, 0, 0, 0])
        // fcTL and fdAT sequence numbers run 0, 1, 2, … without gaps.
        let seq = chunks.filter { $0.type == "fcTL" || $0.type == "fdAT" }.map {
            Int($0.data[0]) << 24 | Int($0.data[1]) << 16 | Int($0.data[2]) << 8 | Int($0.data[3])
        }
        #expect(seq == Array(0..<seq.count))
        // A decoder without APNG support sees the first frame.
        let first = try ImageDecoder.decode(apng, name: "a.png")
        #expect(first[3, 3] == RGBA8(r: 0, g: 255, b: 40))
    }

    @Test func crcMatchesTheKnownValue() {
        #expect(APNG.crc32(Array("IEND".utf8)) == 0xAE42_6082)
    }

    @Test func refusesMismatchedOrMissingFrames() throws {
        #expect(throws: APNGError.noFrames) { try APNG.assemble(frames: [], delayMilliseconds: 40) }
        #expect(throws: APNGError.mismatchedHeader(frame: 1)) {
            try APNG.assemble(frames: [try Self.frame(0), try Self.frame(0, width: 17)], delayMilliseconds: 40)
        }
        #expect(throws: APNGError.notPNG(frame: 0)) { try APNG.assemble(frames: [[1, 2, 3]], delayMilliseconds: 40) }
    }
}
