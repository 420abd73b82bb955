// The JPEG 2000 header judgement: real tilings pass, hostile ones are refused before OpenJPEG
// allocates by them (HostileInputMemoryTests measures the memory through the built CLI).
import CScanShim
@testable import Codecs
import Testing

@Suite struct JP2DeclaredSizeTests {
    static func declared(_ w: UInt32, _ h: UInt32, tile: UInt32, components: UInt32, subsampledChroma: Bool = false) -> pbs_jp2_declared {
        let tiles = ((w + tile - 1) / tile) * ((h + tile - 1) / tile)
        let full = UInt64(w) * UInt64(h)
        let quarter = UInt64((w + 1) / 2) * UInt64((h + 1) / 2)
        let samples = subsampledChroma ? full + UInt64(components - 1) * quarter : full * UInt64(components)
        return pbs_jp2_declared(width: w, height: h, tiles: tiles, components: components, samples: samples)
    }

    /// One tile, the 1024-pixel tiles archives write, and the small tiles streaming servers use.
    @Test(arguments: [
        (6000, 4000, 6000, 3, false), (6000, 4000, 1024, 3, false), (6000, 4000, 256, 4, false),
        (6000, 4000, 128, 3, false), (4000, 3000, 512, 3, true), (360, 480, 64, 1, false), (24, 16, 8, 3, false),
    ])
    func realTilingsAreAccepted(w: Int, h: Int, tile: Int, components: Int, subsampled: Bool) throws {
        let d = Self.declared(UInt32(w), UInt32(h), tile: UInt32(tile), components: UInt32(components), subsampledChroma: subsampled)
        try JP2Decoding.judge(d, name: "page.jp2", limits: .default)
    }

    @Test(arguments: [
        (240, 250, 1, 1, "60000 tiles"),  // a 240×250 image of one-pixel tiles: 600 MB of headers
        (6000, 4000, 32, 3, "23500 tiles"),  // tiles a twentieth of a code-block's area
        (100, 100, 100, 16384, "16384 components"), (100, 100, 100, 5, "5 components"),
        (1_441_816, 16, 24, 1, "larger than the limit"),
    ])
    func hostileDeclarationsAreRefused(w: Int, h: Int, tile: Int, components: Int, expected: String) {
        let d = Self.declared(UInt32(w), UInt32(h), tile: UInt32(tile), components: UInt32(components))
        #expect {
            try JP2Decoding.judge(d, name: "page.jp2", limits: .default)
        } throws: { e in
            "\(e)".hasPrefix("page.jp2: ") && "\(e)".contains(expected)
        }
    }
}
