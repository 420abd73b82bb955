import Geometry
import Raster
import Testing
@testable import Typesetting

@Suite struct FitTests {
    let text = SampleCase.english.text
    let style = TextStyle(language: "en", minimumSize: 10, maximumSize: 120)

    @Test func textGrowsToFillALargeBox() throws {
        let small = try Typesetter().fit(text, in: Size(width: 300, height: 200), style: style)
        let large = try Typesetter().fit(text, in: Size(width: 900, height: 600), style: style)
        #expect(large.fontSize > small.fontSize * 2)
        #expect(!large.overflows)
        // The block fills most of the box on at least one axis.
        #expect(large.contentSize.height > 0.75 * 600 || large.contentSize.width > 0.9 * 900)
    }

    @Test func shortTextStopsAtTheMaximum() throws {
        let layout = try Typesetter().fit("Hi!", in: Size(width: 900, height: 600), style: style)
        #expect(layout.fontSize == 120)
    }

    @Test(arguments: [Size(width: 300, height: 200), Size(width: 200, height: 300), Size(width: 600, height: 120)])
    func fittedSizeIsTheLargestThatFits(_ box: Size) throws {
        let prepared = try Typesetter().prepare(text, style: style)
        let layout = try prepared.fit(in: box)
        #expect(!layout.overflows)
        #expect(layout.contentSize.height <= box.height + 0.01)
        #expect(layout.contentSize.width <= box.width + 0.01)
        #expect(prepared.fits(size: layout.fontSize, in: box))
        #expect(!prepared.fits(size: layout.fontSize + 0.5, in: box), "size \(layout.fontSize) is not the largest")
    }

    @Test func textShrinksInASmallBox() throws {
        let roomy = try Typesetter().fit(text, in: Size(width: 400, height: 300), style: style)
        let tight = try Typesetter().fit(text, in: Size(width: 200, height: 120), style: style)
        #expect(tight.fontSize < roomy.fontSize)
        #expect(tight.fontSize >= style.minimumSize)
        #expect(!tight.overflows)
    }

    @Test func overflowBelowTheMinimumReportsContentHeight() throws {
        let tiny = Size(width: 120, height: 40)
        let layout = try Typesetter().fit(text, in: tiny, style: style)
        #expect(layout.overflows)
        #expect(layout.fontSize == style.minimumSize)
        #expect(layout.contentSize.height > tiny.height)
        // The content height is what the lines really take: a reader can scroll through it.
        let last = try #require(layout.lines.last)
        #expect(abs(last.frame.maxY - layout.contentSize.height) < 0.01)
        #expect(layout.lines.allSatisfy { $0.frame.maxX <= tiny.width + 0.01 })
    }

    @Test func verticalTextFitsOnTheColumnAxis() throws {
        let c = SampleCase.chineseVertical
        var s = c.style
        s.maximumSize = 200
        let wide = try Typesetter().fit(c.text, in: Size(width: 500, height: 500), style: s)
        let narrow = try Typesetter().fit(c.text, in: Size(width: 150, height: 500), style: s)
        #expect(narrow.fontSize < wide.fontSize)
        #expect(narrow.contentSize.width <= 150.01)
        #expect(!narrow.overflows)
    }
}

@Suite struct ContrastTests {
    @Test func wcagRatios() {
        #expect(abs(Contrast.ratio(.black, .white) - 21) < 1e-9)
        #expect(abs(Contrast.ratio(.white, .white) - 1) < 1e-9)
        // #777777 on white is the classic just-below-AA gray (4.48:1).
        #expect(abs(Contrast.ratio(RGBA8(gray: 0x77), .white) - 4.48) < 0.01)
        #expect(abs(Contrast.relativeLuminance(RGBA8(r: 255, g: 0, b: 0)) - 0.2126) < 1e-9)
    }

    @Test(arguments: [
        (RGBA8(r: 20, g: 30, b: 60), RGBA8.white),
        (RGBA8(r: 250, g: 240, b: 200), RGBA8.black),
        (RGBA8(r: 200, g: 60, b: 40), RGBA8.white),  // brick red: 5.1:1 with white, 4.1:1 with black
        (RGBA8(r: 120, g: 200, b: 230), RGBA8.black),
    ])
    func picksTheContrastingColour(_ background: RGBA8, _ expected: RGBA8) {
        let bg = Bitmap<RGBA8>(width: 50, height: 30, fill: background)
        let choice = Contrast.chooseTextColor(over: bg)
        #expect(choice.color == expected)
        #expect(choice.ratio >= 4.5)
        #expect(choice.halo == nil)
    }

    @Test func keepsAPreferredColourThatReads() {
        let bg = Bitmap<RGBA8>(width: 20, height: 20, fill: RGBA8(r: 255, g: 252, b: 240))
        let navy = RGBA8(r: 20, g: 30, b: 90)
        let choice = Contrast.chooseTextColor(over: bg, preferred: navy)
        #expect(choice.color == navy)
        #expect(choice.ratio >= 7)
    }

    @Test func darkensAPreferredColourThatDoesNotRead() {
        let bg = Bitmap<RGBA8>(width: 20, height: 20, fill: RGBA8(r: 255, g: 252, b: 240))
        let yellow = RGBA8(r: 230, g: 200, b: 40)
        let choice = Contrast.chooseTextColor(over: bg, preferred: yellow)
        #expect(choice.color != yellow)
        #expect(choice.ratio >= 7)
        // Still a yellowish hue (red and green above blue), only darker.
        #expect(choice.color.r > choice.color.b && choice.color.g > choice.color.b)
    }

    @Test func busyBackgroundGetsAHalo() {
        // Half black, half white: no single colour reaches 4.5:1 against both.
        let bg = Bitmap<RGBA8>(width: 40, height: 40) { p in
            for i in 0..<p.count { p[i] = (i % 40) < 20 ? .black : .white }
        }
        let choice = Contrast.chooseTextColor(over: bg)
        #expect(choice.ratio < 4.5)
        #expect(choice.halo.map { Contrast.ratio($0, choice.color) >= 7 } == true)
    }

    @Test func worstCaseRatioUsesTheRegionsExtremes() {
        var bg = Bitmap<RGBA8>(width: 100, height: 100, fill: .white)
        #expect(abs(Contrast.worstCaseRatio(of: .black, over: bg.view) - 21) < 1e-6)
        // A dark patch on a fifth of the region drags black text's worst case down to about 1:1.
        bg.fill(PixelRect(x: 0, y: 0, width: 100, height: 20), with: RGBA8(gray: 20))
        #expect(Contrast.worstCaseRatio(of: .black, over: bg.view) < 1.5)
    }

    @Test func measuresOnlyTheRegionGiven() {
        var bg = Bitmap<RGBA8>(width: 100, height: 50, fill: .white)
        bg.fill(PixelRect(x: 50, y: 0, width: 50, height: 50), with: RGBA8(gray: 10))
        let left = Contrast.chooseTextColor(over: bg.view(PixelRect(x: 0, y: 0, width: 50, height: 50)))
        let right = Contrast.chooseTextColor(over: bg.view(PixelRect(x: 50, y: 0, width: 50, height: 50)))
        #expect(left.color == .black)
        #expect(right.color == .white)
    }
}

@Suite struct DrawingTests {
    @Test func drawsAntialiasedTextInTheColourGiven() throws {
        let layout = try Typesetter().layout("Fox", size: 40, in: Size(width: 200, height: 80), style: TextStyle())
        let red = RGBA8(r: 200, g: 0, b: 0)
        let image = layout.render(background: .white, color: red)
        let inked = image.pixels.filter { $0 != .white }
        #expect(inked.count > 200)
        // Full-coverage pixels are exactly the colour; edge pixels lie between it and white.
        #expect(inked.contains(red))
        #expect(inked.contains { $0.r > 200 && $0.g > 0 && $0.g < 255 })
        #expect(inked.allSatisfy { $0.g == $0.b && $0.r >= 200 })
    }

    @Test func haloWidensTheInk() throws {
        let layout = try Typesetter().layout("Fox", size: 40, in: Size(width: 200, height: 80), style: TextStyle())
        let plain = layout.render(background: RGBA8(gray: 128), color: .black)
        let haloed = layout.render(background: RGBA8(gray: 128), color: .black, halo: Halo(color: .white, radius: 3))
        let whiteish = haloed.pixels.filter { $0.r > 200 }.count
        #expect(whiteish > 300)
        #expect(plain.pixels.filter { $0.r > 200 }.isEmpty)
        // The text itself is still drawn over the halo (its near-solid pixels stay dark).
        #expect(haloed.pixels.filter { $0.r < 60 }.count >= plain.pixels.filter { $0.r < 20 }.count)
    }

    @Test func blendsOntoTransparencyWithStraightAlpha() throws {
        let layout = try Typesetter().layout("I", size: 60, in: Size(width: 60, height: 90), style: TextStyle())
        var image = Bitmap<RGBA8>(width: 60, height: 90, fill: .clear)
        layout.draw(into: &image, color: RGBA8(r: 0, g: 0, b: 255, a: 255))
        let mask = layout.coverageMask(width: 60, height: 90)
        for (p, m) in zip(image.pixels, mask.pixels) {
            #expect(p.a == m)
            if m > 0 { #expect(p.b == 255 && p.r == 0) }
        }
        // Translucent colour: alpha scales coverage.
        var half = Bitmap<RGBA8>(width: 60, height: 90, fill: .clear)
        layout.draw(into: &half, color: RGBA8(r: 0, g: 0, b: 0, a: 128))
        #expect(half.pixels.map(\.a).max() == 128)
    }

    @Test func drawsAtAnOffsetAndClipsToTheBitmap() throws {
        let layout = try Typesetter().layout("Fox", size: 40, in: Size(width: 200, height: 80), style: TextStyle())
        var image = Bitmap<RGBA8>(width: 120, height: 60, fill: .white)
        layout.draw(into: &image, at: Point(x: 50, y: -10), color: .black)
        // Nothing left of the offset; ink somewhere right of it.
        for y in 0..<60 { for x in 0..<50 { #expect(image[x, y] == .white) } }
        #expect(image.pixels.contains { $0.r < 50 })
    }
}
