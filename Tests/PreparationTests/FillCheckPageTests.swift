// `clear` checks each box after the fill against the detector's mask (FillCheck): a well-cleared
// box is reported with its text gone and stays cleared, a box whose letters the mask missed goes
// back to the scan and is flagged; without a mask file, and for the in-fill scored alone
// (`fileOnly`), there is no check.

import ClearText
import Codecs
import Foundation
import Geometry
import Preparation
import Raster
import TestSupport
import Testing

@Suite struct FillCheckPageTests {
    static let paper = RGBA8(r: 240, g: 232, b: 210)
    static let navy = RGBA8(r: 20, g: 26, b: 60)
    static let box = PixelRect(x: 60, y: 40, width: 122, height: 34)

    static func page() -> (image: Bitmap<RGBA8>, letters: Bitmap<UInt8>) {
        let w = 240, h = 120
        var image = Bitmap(width: w, height: h, fill: paper)
        var letters = Bitmap<UInt8>(width: w, height: h, fill: 0)
        var x = box.minX + 4
        while x + 4 <= box.maxX - 4 {
            letters.fill(PixelRect(x: x, y: box.minY + 4, width: 4, height: box.height - 8), with: 255)
            x += 11
        }
        for i in letters.pixels.indices where letters.pixels[i] != 0 { image.pixels[i] = navy }
        return (image, letters)
    }

    @Test func aWellClearedBoxPassesTheCheck() throws {
        let (image, letters) = Self.page()
        let dir = makeTemporaryDirectory("fill-check")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/mask.png"
        try Data(PNGEncoder.encode(letters, name: file)).write(to: URL(fileURLWithPath: file))
        let cleared = try PageClearing.clear(page: image, boxes: [Self.box], maskFile: file, source: "p.png", infill: InFill())
        #expect(cleared.textLeft.count == 1)
        let left = try #require(cleared.textLeft[0])
        #expect(left < 0.05, "\(left)")
        #expect(cleared.glyphs.map(\.needsReview) == [false])
        for i in letters.pixels.indices where letters.pixels[i] != 0 {
            #expect(cleared.image.pixels[i] != Self.navy)
        }
    }

    /// The detector's mask holds every other letter (it missed the rest), on plain paper where the
    /// file is trusted: the fill takes half the letters and leaves half, a box worse to read than
    /// the scan once the text is drawn over it. The check sees half the ink left, puts the scan
    /// back and flags the box.
    @Test func aBoxWhoseLettersTheMaskMissedGoesBackToTheScanAndIsFlagged() throws {
        let (image, letters) = Self.page()
        var half = letters
        let w = image.width
        for x in 0..<w where ((x - Self.box.minX - 4) / 11) % 2 == 1 {
            for y in 0..<image.height { half.pixels[y * w + x] = 0 }
        }
        let dir = makeTemporaryDirectory("fill-check")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/mask.png"
        try Data(PNGEncoder.encode(half, name: file)).write(to: URL(fileURLWithPath: file))

        var off = FillCheckParameters()
        off.textLeft = 0
        let unchecked = try PageClearing.clear(page: image, boxes: [Self.box], maskFile: file, source: "p.png", infill: InFill(), checkParameters: off)
        let missed = letters.pixels.indices.filter { letters.pixels[$0] != 0 && half.pixels[$0] == 0 }
        #expect(!missed.isEmpty && missed.allSatisfy { unchecked.image.pixels[$0] == Self.navy }, "without the check the missed letters stay")
        #expect(unchecked.fill.pixels.contains { $0 != 0 }, "and the others are filled")

        let checked = try PageClearing.clear(page: image, boxes: [Self.box], maskFile: file, source: "p.png", infill: InFill())
        let left = try #require(checked.textLeft.first ?? nil)
        #expect(left > 0.4 && left < 0.6, "\(left)")
        #expect(checked.glyphs.map(\.needsReview) == [true])
        #expect(checked.image.pixels == image.pixels, "the page is the scan again")
        #expect(!checked.fill.pixels.contains { $0 != 0 }, "and the fill mask says nothing changed")
    }

    @Test func theCheckCanBeTurnedOffAndDoesNotRunOnTheInFillAlone() throws {
        let (image, letters) = Self.page()
        let dir = makeTemporaryDirectory("fill-check")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let file = dir + "/mask.png"
        try Data(PNGEncoder.encode(letters, name: file)).write(to: URL(fileURLWithPath: file))
        let fileOnly = try PageClearing.clear(page: image, boxes: [Self.box], maskFile: file, source: "p.png", infill: InFill(), fileOnly: true)
        #expect(fileOnly.textLeft.isEmpty)
        var off = FillCheckParameters()
        off.textLeft = 0
        let unchecked = try PageClearing.clear(page: image, boxes: [Self.box], maskFile: file, source: "p.png", infill: InFill(), checkParameters: off)
        #expect(unchecked.textLeft.isEmpty)
        // Without a mask file there is no reading of the ink independent of the fill's own.
        let estimated = try PageClearing.clear(page: image, boxes: [Self.box], maskFile: nil, source: "p.png", infill: InFill())
        #expect(estimated.textLeft.isEmpty)
    }
}
