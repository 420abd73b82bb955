import Testing
import Geometry
import Raster

@Suite struct BitmapTests {
    func numbered(_ w: Int, _ h: Int) -> Bitmap<UInt8> {
        Bitmap(width: w, height: h, pixels: (0..<w * h).map { UInt8($0 & 0xff) })
    }

    @Test func layoutIsRowMajorTopLeft() {
        let b = numbered(4, 3)
        #expect(b[0, 0] == 0)
        #expect(b[3, 0] == 3)
        #expect(b[0, 1] == 4)
        #expect(b[3, 2] == 11)
        #expect(Array(b.row(1)) == [4, 5, 6, 7])
    }

    @Test func viewsShareAndCropCopies() {
        let b = numbered(5, 5)
        let v = b.view(PixelRect(x: 1, y: 2, width: 3, height: 2))
        #expect(v[0, 0] == 11)
        #expect(v.view(PixelRect(x: 1, y: 1, width: 1, height: 1))[0, 0] == 17)
        let c = v.copy()
        #expect(c.width == 3 && c.height == 2)
        #expect(c.pixels == [11, 12, 13, 16, 17, 18])
        #expect(b.cropped(to: b.bounds) == b)
    }

    @Test func pasteClipsAtEdges() {
        var dst = Bitmap<UInt8>(width: 4, height: 4, fill: 0)
        dst.paste(Bitmap(width: 3, height: 3, fill: 9), atX: 2, y: -1)
        #expect(dst.pixels == [0, 0, 9, 9, 0, 0, 9, 9, 0, 0, 0, 0, 0, 0, 0, 0])
        dst.fill(PixelRect(x: -5, y: 3, width: 100, height: 100), with: 1)
        #expect(Array(dst.row(3)) == [1, 1, 1, 1])
    }

    @Test func hexColours() {
        #expect(RGBA8(hex: "#f80")! == RGBA8(r: 255, g: 136, b: 0))
        #expect(RGBA8(hex: "00000080")! == RGBA8(r: 0, g: 0, b: 0, a: 128))
        #expect(RGBA8(hex: "#12345") == nil)
        #expect(RGBA8(r: 1, g: 2, b: 255).description == "#0102ff")
    }
}
