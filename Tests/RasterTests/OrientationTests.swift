import Testing
import Raster

@Suite struct OrientationTests {
    /// 1 2 3
    /// 4 5 6
    static let numbered = Bitmap<UInt8>(width: 3, height: 2, pixels: [1, 2, 3, 4, 5, 6])

    /// What each EXIF orientation must display for ``numbered``, written out by hand.
    static let expected: [(Int, Int, Int, [UInt8])] = [
        (1, 3, 2, [1, 2, 3, 4, 5, 6]),
        (2, 3, 2, [3, 2, 1, 6, 5, 4]),  // mirror horizontal
        (3, 3, 2, [6, 5, 4, 3, 2, 1]),  // rotate 180
        (4, 3, 2, [4, 5, 6, 1, 2, 3]),  // mirror vertical
        (5, 2, 3, [1, 4, 2, 5, 3, 6]),  // transpose
        (6, 2, 3, [4, 1, 5, 2, 6, 3]),  // rotate 90 CW
        (7, 2, 3, [6, 3, 5, 2, 4, 1]),  // transverse
        (8, 2, 3, [3, 6, 2, 5, 1, 4]),  // rotate 270 CW
    ]

    @Test(arguments: expected)
    func exifOrientation(orientation: Int, width: Int, height: Int, pixels: [UInt8]) {
        let out = Self.numbered.oriented(exif: orientation)
        #expect(out.width == width && out.height == height)
        #expect(out.pixels == pixels)
        #expect(Bitmap<UInt8>.orientedSize(width: 3, height: 2, exif: orientation) == (width, height))
        // Same mapping for every pixel type.
        let rgba = Self.numbered.map { RGBA8(r: $0, g: 0, b: 0, a: $0) }.oriented(exif: orientation)
        #expect(rgba.pixels.map(\.r) == pixels)
        let floats = Self.numbered.map { Float($0) }.oriented(exif: orientation)
        #expect(floats.pixels == pixels.map { Float($0) })
    }

    @Test(arguments: [0, 9, -1, 65535])
    func unknownOrientationLeavesImageAlone(orientation: Int) {
        #expect(Self.numbered.oriented(exif: orientation) == Self.numbered)
    }

    @Test func namedOperations() {
        let b = Self.numbered
        #expect(b.rotated(.clockwise) == b.oriented(exif: 6))
        #expect(b.rotated(.halfTurn) == b.oriented(exif: 3))
        #expect(b.rotated(.counterclockwise) == b.oriented(exif: 8))
        #expect(b.flippedHorizontally() == b.oriented(exif: 2))
        #expect(b.flippedVertically() == b.oriented(exif: 4))
        #expect(b.transposed() == b.oriented(exif: 5))
    }

    @Test func largeImagesRoundTripThroughTiles() {
        // Bigger than a tile and split across threads.
        let img = randomRGBA(301, 173, opaque: false, seed: 2)
        #expect(img.rotated(.clockwise).rotated(.counterclockwise) == img)
        #expect(img.rotated(.halfTurn).rotated(.halfTurn) == img)
        #expect(img.transposed().transposed() == img)
        #expect(img.oriented(exif: 7).oriented(exif: 7) == img)
        #expect(img.rotated(.clockwise).rotated(.clockwise) == img.rotated(.halfTurn))
        let r = img.rotated(.clockwise)
        #expect(r.width == 173 && r.height == 301)
        for (x, y) in [(0, 0), (172, 0), (0, 300), (100, 200)] {
            // Rotated 90° clockwise: display (x, y) shows stored (y, H − 1 − x).
            #expect(r[x, y] == img[y, 172 - x])
        }
        let g = randomGray(130, 70, seed: 3)
        #expect(g.oriented(exif: 8) == g.rotated(.counterclockwise))
        #expect(g.oriented(exif: 8)[0, 0] == g[129, 0])
    }

    @Test func emptyImagesSwapSides() {
        let e = Bitmap<UInt8>(width: 0, height: 5, fill: 0)
        let r = e.oriented(exif: 6)
        #expect(r.width == 5 && r.height == 0)
    }
}
