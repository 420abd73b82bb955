import ClearText
import Geometry
import Raster
import Testing

@Suite struct PopoutTests {
    private let page = Bitmap<RGBA8>(width: 300, height: 200, pixels: (0..<60_000).map { RGBA8(r: UInt8($0 % 300 % 256), g: UInt8($0 / 300), b: 7) })

    @Test func cropHasTheMarginAtFullResolution() throws {
        var p = PopoutParameters()
        p.marginFraction = 0
        p.minimumMargin = 10
        let box = PixelRect(x: 100, y: 50, width: 80, height: 40)
        let (image, rect, scale) = try Popout.crop(page: page, box: box, parameters: p)
        #expect(rect == PixelRect(x: 90, y: 40, width: 100, height: 60))
        #expect(scale == 1)
        #expect(image.width == 100 && image.height == 60)
        #expect(image[0, 0] == page[90, 40])
        #expect(image[99, 59] == page[189, 99])
    }

    @Test(arguments: [
        (PixelRect(x: 0, y: 0, width: 50, height: 30), PixelRect(x: 0, y: 0, width: 62, height: 42)),
        (PixelRect(x: 260, y: 180, width: 40, height: 20), PixelRect(x: 248, y: 168, width: 52, height: 32)),
        (PixelRect(x: -20, y: 190, width: 60, height: 30), PixelRect(x: 0, y: 178, width: 52, height: 22)),
    ])
    func cropIsClampedAtPageEdges(box: PixelRect, expected: PixelRect) throws {
        var p = PopoutParameters()
        p.marginFraction = 0
        p.minimumMargin = 12
        let (image, rect, _) = try Popout.crop(page: page, box: box, parameters: p)
        #expect(rect == expected)
        #expect(image.width == expected.width && image.height == expected.height)
    }

    @Test func marginFollowsTheBoxUnlessTooSmall() {
        var p = PopoutParameters()
        p.marginFraction = 0.1
        p.minimumMargin = 8
        #expect(Popout.margin(for: PixelRect(x: 0, y: 0, width: 400, height: 200), parameters: p) == 20)
        #expect(Popout.margin(for: PixelRect(x: 0, y: 0, width: 400, height: 30), parameters: p) == 8)
    }

    @Test(arguments: [2.0, 0.5, 3.0])
    func scaleMagnifiesTheCrop(scale: Double) throws {
        var p = PopoutParameters()
        p.marginFraction = 0
        p.minimumMargin = 0
        p.scale = scale
        let box = PixelRect(x: 100, y: 50, width: 80, height: 40)
        let (image, _, s) = try Popout.crop(page: page, box: box, parameters: p)
        #expect(s == scale)
        #expect(image.width == Int((80 * scale).rounded()) && image.height == Int((40 * scale).rounded()))
    }

    @Test func targetTextHeightUsesTheMeasuredLineHeight() throws {
        var mask = Bitmap<UInt8>(width: 300, height: 200, fill: 0)
        // Three lines of "ink", 12 px tall.
        for y in [52, 72, 92] { mask.fill(PixelRect(x: 100, y: y, width: 70, height: 12), with: 255) }
        let box = PixelRect(x: 100, y: 50, width: 80, height: 60)
        #expect(Popout.lineHeight(mask: mask, in: box) == 12)
        var p = PopoutParameters()
        p.targetTextHeight = 36
        let (_, _, s) = try Popout.crop(page: page, box: box, mask: mask, parameters: p)
        #expect(abs(s - 3) < 1e-9)
        p.maximumScale = 2
        #expect(Popout.scale(lineHeight: 12, parameters: p) == 2)
    }

    @Test func boxOffThePageIsAnError() {
        #expect(throws: ClearTextError.self) {
            try Popout.crop(page: page, box: PixelRect(x: 500, y: 500, width: 10, height: 10), name: "p.png", boxID: "b1")
        }
    }
}
