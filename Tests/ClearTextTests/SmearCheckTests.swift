import Geometry
import Raster
import Testing
@testable import ClearText

/// The smear check: did the fill shade the box's ground towards its ink?
@Suite struct SmearCheckTests {
    typealias Page = FillCheckTests
    static let grey = RGBA8(r: 150, g: 150, b: 150)
    static let white = RGBA8(r: 246, g: 246, b: 244)

    /// `scan` with every pixel of `fill` set by `value`.
    static func filled(_ scan: Bitmap<RGBA8>, _ fill: Bitmap<UInt8>, _ value: (Int, Int) -> RGBA8) -> Bitmap<RGBA8> {
        var out = scan
        for i in fill.pixels.indices where fill.pixels[i] != 0 { out.pixels[i] = value(i % scan.width, i / scan.width) }
        return out
    }

    @Test func aFillThatGivesBackThePaperLeavesNoSmear() throws {
        let (scan, letters) = Page.page { _, _ in Page.paper }
        let fill = Page.grown(letters, by: 2)
        let cleared = Self.filled(scan, fill) { _, _ in Page.paper }
        let share = try #require(SmearCheck.share(scan: scan, cleared: cleared, filled: fill, box: Page.box, ink: letters))
        #expect(share == 0)
    }

    /// NDL's label strips: white between two grey bands just outside the box. A fill that bridges
    /// the bands takes their grey into the strip (seen with an edges reading of 0.32: soft, so the
    /// edges reading passed it).
    @Test func greyBridgedFromTheBandsBesideTheBoxIsASmear() throws {
        let (scan, letters) = Page.page { _, y in (y < Page.box.minY || y >= Page.box.maxY) ? Self.grey : Self.white }
        let fill = Page.grown(letters, by: 2)
        // Grey at the strip's edges, paler towards its middle.
        let cleared = Self.filled(scan, fill) { _, y in
            let t = Double(y - Page.box.minY) / Double(Page.box.height), edge = 1 - 2 * min(t, 1 - t)
            let v = UInt8(Double(Self.white.r) - (0.3 + 0.7 * edge) * Double(Self.white.r - Self.grey.r))
            return RGBA8(r: v, g: v, b: v)
        }
        let share = try #require(SmearCheck.share(scan: scan, cleared: cleared, filled: fill, box: Page.box, ink: letters))
        #expect(share >= FillCheckParameters().smears, "\(share)")
        // The same fill with the paper's own grain is no smear.
        let grain = Self.filled(scan, fill) { x, y in (x * 7 + y * 3) % 5 == 0 ? RGBA8(r: 236, g: 236, b: 234) : Self.white }
        let grained = try #require(SmearCheck.share(scan: scan, cleared: grain, filled: fill, box: Page.box, ink: letters))
        #expect(grained < FillCheckParameters().smears, "\(grained)")
    }

    /// Over a ground whose own shades reach far towards the ink (stripes of the art), a fill that
    /// copies those shades is the ground given back.
    @Test func theGroundsOwnShadesAreNoSmear() throws {
        let striped: (Int, Int) -> RGBA8 = { x, _ in (x / 3) % 4 == 0 ? RGBA8(r: 120, g: 126, b: 150) : Page.paper }
        let (scan, letters) = Page.page(ground: striped)
        let fill = Page.grown(letters, by: 2)
        let cleared = Self.filled(scan, fill, striped)
        let share = try #require(SmearCheck.share(scan: scan, cleared: cleared, filled: fill, box: Page.box, ink: letters))
        #expect(share < FillCheckParameters().smears, "\(share)")
    }

    /// Light type on a dark ground (the orange badge of a ruler's number): a smear is lighter.
    @Test func aSmearOfLightTypeIsLighter() throws {
        let orange = RGBA8(r: 200, g: 90, b: 40)
        let (dark, letters) = Page.page { _, _ in orange }
        var scan = dark
        for i in letters.pixels.indices where letters.pixels[i] != 0 { scan.pixels[i] = Self.white }
        let fill = Page.grown(letters, by: 2)
        let clean = Self.filled(scan, fill) { _, _ in orange }
        let smeared = Self.filled(scan, fill) { x, _ in x % 12 < 6 ? RGBA8(r: 232, g: 180, b: 150) : orange }
        let none = try #require(SmearCheck.share(scan: scan, cleared: clean, filled: fill, box: Page.box, ink: letters))
        let some = try #require(SmearCheck.share(scan: scan, cleared: smeared, filled: fill, box: Page.box, ink: letters))
        #expect(none == 0)
        #expect(some >= FillCheckParameters().smears, "\(some)")
    }

    /// Small type on a coarse scan: the detector's mask is mostly the strokes' rim, and its
    /// median is nearly the paper. The ink is read from the mask's darkest quarter, so such a box
    /// is read too (eight boxes of *Under the Window* and *The Real Mother Goose* gave no reading).
    @Test func hairlineTypeUnderAWideMaskIsRead() throws {
        let (scan, letters) = Page.page { _, _ in Page.paper }
        // One-pixel strokes in the middle of each 4-pixel letter; the mask stays 4 px wide.
        var thin = scan
        for i in letters.pixels.indices where letters.pixels[i] != 0 && (i % scan.width) % 4 != 1 { thin.pixels[i] = Page.paper }
        let fill = Page.grown(letters, by: 2)
        let smeared = Self.filled(thin, fill) { x, _ in x % 12 < 5 ? RGBA8(r: 120, g: 122, b: 130) : Page.paper }
        let share = try #require(SmearCheck.share(scan: thin, cleared: smeared, filled: fill, box: Page.box, ink: Page.grown(letters, by: 1)))
        #expect(share >= FillCheckParameters().smears, "\(share)")
    }

    @Test func noReadingWithoutFillInkOrContrast() {
        let (scan, letters) = Page.page { _, _ in Page.paper }
        let nothing = Bitmap<UInt8>(width: scan.width, height: scan.height, fill: 0)
        #expect(SmearCheck.share(scan: scan, cleared: scan, filled: nothing, box: Page.box, ink: letters) == nil)
        let fill = Page.grown(letters, by: 2)
        #expect(SmearCheck.share(scan: scan, cleared: scan, filled: fill, box: Page.box, ink: nothing) == nil)
        let (flat, sameInk) = Page.page { _, _ in Page.navy }
        #expect(SmearCheck.share(scan: flat, cleared: flat, filled: fill, box: Page.box, ink: sameInk) == nil)
    }

    @Test func theBarAndTheShadeAreSetByName() throws {
        var p = FillCheckParameters()
        let bar = p.set("smears", to: 0.1), shade = p.set("smearShade", to: 0.3)
        #expect(bar && p.smears == 0.1)
        #expect(shade && p.smearShade == 0.3)
        #expect(p.description.contains("smears=0.1/0.3"))
        p.smears = -1
        let bad = p
        #expect(throws: ClearTextError.self) { try bad.validate() }
    }
}
