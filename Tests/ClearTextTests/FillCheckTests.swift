import Geometry
import Raster
import Testing
@testable import ClearText

/// The check after the fill: is the box's text still on the page?
@Suite struct FillCheckTests {
    static let paper = RGBA8(r: 238, g: 230, b: 208)
    static let navy = RGBA8(r: 24, g: 30, b: 70)
    static let cream = RGBA8(r: 245, g: 242, b: 230)
    static let green = RGBA8(r: 96, g: 150, b: 70)
    static let box = PixelRect(x: 40, y: 30, width: 160, height: 40)

    /// A page of `ground` with navy bars ("letters", 4 px wide every 12 px) across `box`; the
    /// letters' mask beside it.
    static func page(ground: (Int, Int) -> RGBA8) -> (image: Bitmap<RGBA8>, letters: Bitmap<UInt8>) {
        let w = 240, h = 100
        var image = Bitmap(width: w, height: h, pixels: (0..<(w * h)).map { ground($0 % w, $0 / w) })
        var letters = Bitmap<UInt8>(width: w, height: h, fill: 0)
        var x = box.minX + 4
        while x + 4 <= box.maxX - 4 {
            letters.fill(PixelRect(x: x, y: box.minY + 6, width: 4, height: box.height - 12), with: 255)
            x += 12
        }
        for i in letters.pixels.indices where letters.pixels[i] != 0 { image.pixels[i] = navy }
        return (image, letters)
    }

    /// The letters grown by `by` px: what a fill replaces.
    static func grown(_ m: Bitmap<UInt8>, by r: Int) -> Bitmap<UInt8> {
        var out = m
        for y in 0..<m.height {
            for x in 0..<m.width where m.pixels[y * m.width + x] != 0 {
                for dy in -r...r {
                    for dx in -r...r {
                        let nx = x + dx, ny = y + dy
                        if nx >= 0, ny >= 0, nx < m.width, ny < m.height { out.pixels[ny * m.width + nx] = 255 }
                    }
                }
            }
        }
        return out
    }

    @Test func aCleanFillLeavesNoText() throws {
        let (scan, letters) = Self.page { _, _ in Self.paper }
        let fill = Self.grown(letters, by: 2)
        var cleared = scan
        for i in fill.pixels.indices where fill.pixels[i] != 0 { cleared.pixels[i] = Self.paper }
        let withInk = try #require(FillCheck.textLeft(scan: scan, cleared: cleared, filled: fill, box: Self.box, others: [], ink: letters))
        #expect(withInk < 0.01, "\(withInk)")
    }

    @Test(arguments: [0, 1, 2, 3])
    func lettersTheFillMissedAreTextLeft(keptOf: Int) throws {
        // Of every three letters, `keptOf` stay on the page (the mask missed them); the halo of the
        // missed ones is filled anyway, as a fill from a wrong mask would.
        let (scan, letters) = Self.page { _, _ in Self.paper }
        let fill = Self.grown(letters, by: 2)
        var cleared = scan
        var n = 0, kept = 0
        for x in 0..<scan.width {
            let isLetter = (0..<scan.height).contains { letters.pixels[$0 * scan.width + x] != 0 }
            let starts = isLetter && (x == 0 || !(0..<scan.height).contains { letters.pixels[$0 * scan.width + x - 1] != 0 })
            if starts {
                n += 1
                if (n - 1) % 3 < keptOf { kept += 1 }
            }
            let keep = isLetter && (n - 1) % 3 < keptOf
            for y in 0..<scan.height where fill.pixels[y * scan.width + x] != 0 && !keep {
                cleared.pixels[y * scan.width + x] = Self.paper
            }
        }
        let left = try #require(FillCheck.textLeft(scan: scan, cleared: cleared, filled: fill, box: Self.box, others: [], ink: letters))
        let expected = Double(kept) / Double(n)
        #expect(abs(left - expected) < 0.02, "left \(left), expected \(expected) (\(kept) of \(n) letters)")
        #expect((left >= FillCheckParameters().textLeft) == (keptOf >= 1), "a third or more left is over the bar")
    }

    /// The failure seen on a generated page: words across a white picket fence, and the mask took
    /// the pickets. The fill painted them over with the ground; the words stayed. Read under the
    /// detector's own ink mask, the words are all there.
    @Test func aFillThatTookTheArtInsteadOfTheWordsIsSeenWithTheDetectorsInk() throws {
        let (scan, letters) = Self.page { x, _ in (x / 10) % 3 == 0 ? Self.cream : Self.green }
        var fill = Bitmap<UInt8>(width: scan.width, height: scan.height, fill: 0)
        var cleared = scan
        for y in Self.box.minY..<Self.box.maxY {
            for x in Self.box.minX..<Self.box.maxX where scan.pixels[y * scan.width + x] == Self.cream {
                fill.pixels[y * scan.width + x] = 255
                cleared.pixels[y * scan.width + x] = Self.green
            }
        }
        let fromDetector = try #require(FillCheck.textLeft(scan: scan, cleared: cleared, filled: fill, box: Self.box, others: [], ink: letters))
        #expect(fromDetector > 0.9, "\(fromDetector)")
    }

    /// Seen on Crane's *Baby's Bouquêt* title page: a box's mask went to an overlapping box
    /// that lay in a drawing, so nothing in it was filled. Its words are all still printed, and
    /// ClearText would set them again over the print: the box reads as all its text left.
    @Test func aBoxNothingWasFilledInReadsAllItsTextLeft() throws {
        let (scan, letters) = Self.page { _, _ in Self.paper }
        let nothing = Bitmap<UInt8>(width: scan.width, height: scan.height, fill: 0)
        let left = try #require(FillCheck.textLeft(scan: scan, cleared: scan, filled: nothing, box: Self.box, others: [], ink: letters))
        #expect(left > 0.95, "\(left)")
        #expect(left >= FillCheckParameters().textLeft)
    }

    @Test func inkLikeTheArtAroundIsNotCountedAsText() throws {
        // Navy specks all over the ground at the same rate inside and outside the box: the ring
        // reads the rate and takes it off, so a clean fill of the letters leaves no text.
        let speckled: (Int, Int) -> RGBA8 = { x, y in (x * 7 + y * 13) % 29 == 0 ? Self.navy : Self.paper }
        let (scan, letters) = Self.page(ground: speckled)
        let fill = Self.grown(letters, by: 2)
        var cleared = scan
        for i in fill.pixels.indices where fill.pixels[i] != 0 {
            cleared.pixels[i] = speckled(i % scan.width, i / scan.width)
        }
        let left = try #require(FillCheck.textLeft(scan: scan, cleared: cleared, filled: fill, box: Self.box, others: [], ink: letters))
        #expect(left < 0.15, "\(left)")
    }

    /// An outline in the type's ink crosses the line and runs on across the page; the fill
    /// removed the letters and drew the outline on through them. The outline is drawing, not text
    /// left.
    @Test func anOutlineTheFillDrewOnThroughIsNotTextLeft() throws {
        let (plain, letters) = Self.page { _, _ in Self.paper }
        var scan = plain
        let rows = (Self.box.minY + 18)..<(Self.box.minY + 21)
        for y in rows { for x in 0..<scan.width { scan.pixels[y * scan.width + x] = Self.navy } }
        let fill = Self.grown(letters, by: 2)
        var cleared = scan
        for i in fill.pixels.indices where fill.pixels[i] != 0 && !rows.contains(i / scan.width) { cleared.pixels[i] = Self.paper }
        // The outline joins the letters into one stroke running out of the box: the box gives no
        // reading at all (nothing there is known to be text apart from drawing), or none left.
        let left = FillCheck.textLeft(scan: scan, cleared: cleared, filled: fill, box: Self.box, others: [], ink: letters)
        #expect((left ?? 0) < 0.05, "\(String(describing: left))")
        // Beside the line rather than through it, the letters are judged, and are gone.
        let (plainApart, apartLetters) = Self.page { _, _ in Self.paper }
        var apart = plainApart
        let below = (Self.box.maxY - 3)..<Self.box.maxY
        for y in below { for x in 0..<apart.width { apart.pixels[y * apart.width + x] = Self.navy } }
        let apartFill = Self.grown(apartLetters, by: 1)
        var apartCleared = apart
        for i in apartFill.pixels.indices where apartFill.pixels[i] != 0 && !below.contains(i / apart.width) { apartCleared.pixels[i] = Self.paper }
        let judged = try #require(FillCheck.textLeft(scan: apart, cleared: apartCleared, filled: apartFill, box: Self.box, others: [], ink: apartLetters))
        #expect(judged < 0.05, "\(judged)")
    }

    @Test func noReadingWithoutContrastOrInk() {
        let (scan, letters) = Self.page { _, _ in Self.navy }  // letters as dark as the ground
        let fill = Self.grown(letters, by: 2)
        #expect(FillCheck.textLeft(scan: scan, cleared: scan, filled: fill, box: Self.box, others: [], ink: letters) == nil)
        let (paperScan, _) = Self.page { _, _ in Self.paper }
        let noInk = Bitmap<UInt8>(width: scan.width, height: scan.height, fill: 0)
        #expect(FillCheck.textLeft(scan: paperScan, cleared: paperScan, filled: fill, box: Self.box, others: [], ink: noInk) == nil)
        let outside = PixelRect(x: 500, y: 500, width: 10, height: 10)
        #expect(FillCheck.textLeft(scan: paperScan, cleared: paperScan, filled: fill, box: outside, others: [], ink: letters) == nil)
    }

    @Test func parametersAreSetByName() {
        var p = FillCheckParameters()
        let known = p.set("textLeft", to: 0), levels = p.set("unchangedLevels", to: 4), unknown = p.set("noSuchParameter", to: 1)
        #expect(known && p.textLeft == 0)
        #expect(levels && p.unchangedLevels == 4)
        #expect(!unknown)
        #expect(p.description.contains("textLeft=0.0"))
        #expect(throws: Never.self) { try p.validate() }
        for (name, value) in [("textLeft", -1.0), ("textLeft", .nan), ("minimumInk", 0), ("unchangedLevels", 0), ("minimumContrast", .infinity)] {
            var bad = FillCheckParameters()
            _ = bad.set(name, to: value)
            #expect(throws: ClearTextError.self, "\(name)=\(value)") { try bad.validate() }
        }
    }

    @Test func restorePutsTheScanBackOnlyWhereTheFillChangedInsideTheArea() {
        let (scan, letters) = Self.page { _, _ in Self.paper }
        var fill = Self.grown(letters, by: 2)
        var cleared = scan
        for i in fill.pixels.indices where fill.pixels[i] != 0 { cleared.pixels[i] = Self.paper }
        let area = PixelRect(x: 0, y: 0, width: 100, height: 100)
        FillCheck.restore(&cleared, fill: &fill, from: scan, within: area)
        for y in 0..<scan.height {
            for x in 0..<scan.width {
                let i = y * scan.width + x
                if area.contains(x: x, y: y) {
                    #expect(cleared.pixels[i] == scan.pixels[i] && fill.pixels[i] == 0)
                } else if letters.pixels[i] != 0 {
                    #expect(cleared.pixels[i] == Self.paper && fill.pixels[i] != 0)
                }
            }
        }
    }
}

/// The check's second question: did the fill make edges its ground does not have?
@Suite struct FillEdgeTests {
    static let box = FillCheckTests.box

    /// Paper grain: every pixel a few levels off the paper, deterministically.
    static func grain(_ x: Int, _ y: Int) -> RGBA8 {
        let n = UInt8(truncatingIfNeeded: (x &* 73 &+ y &* 151 &+ (x * y) % 17) % 24)
        return RGBA8(r: 226 &+ n, g: 218 &+ n, b: 196 &+ n)
    }

    @Test(arguments: [false, true])
    func aFillThatGivesBackTheGroundMakesNoEdges(grainy: Bool) throws {
        func ground(_ x: Int, _ y: Int) -> RGBA8 { grainy ? Self.grain(x, y) : FillCheckTests.paper }
        let (scan, letters) = FillCheckTests.page(ground: ground)
        let fill = FillCheckTests.grown(letters, by: 2)
        var cleared = scan
        for i in fill.pixels.indices where fill.pixels[i] != 0 { cleared.pixels[i] = ground(i % scan.width, i / scan.width) }
        let inks: [Bitmap<UInt8>?] = [letters, nil]
        for ink in inks {
            let made = try #require(FillCheck.edgesMade(scan: scan, cleared: cleared, filled: fill, box: Self.box, ink: ink))
            // Under the bar; a copy of a grain this fine is the worst case (the mean of its edges
            // over their median: 0.85), a real fill smooths it and reads lower.
            #expect(made < FillCheckParameters().edgesMade, "\(made)")
        }
    }

    /// Streaks: each letter's hole filled with rows copied from a neighbouring letter's (dark
    /// bands across the hole), as a copy fill fed with text does.
    @Test func streaksOfCopiedInkAreEdges() throws {
        let (scan, letters) = FillCheckTests.page { x, y in Self.grain(x, y) }
        let fill = FillCheckTests.grown(letters, by: 2)
        var cleared = scan
        for i in fill.pixels.indices where fill.pixels[i] != 0 {
            cleared.pixels[i] = (i / scan.width) % 6 < 2 ? FillCheckTests.navy : Self.grain(i % scan.width, i / scan.width)
        }
        let made = try #require(FillCheck.edgesMade(scan: scan, cleared: cleared, filled: fill, box: Self.box, ink: letters))
        #expect(made >= FillCheckParameters().edgesMade, "\(made)")
    }

    /// Half of every letter left (the fill took the lower half only): the cut and the halves'
    /// sides are edges in the fill's border.
    @Test func halfLettersAreEdges() throws {
        let (scan, letters) = FillCheckTests.page { _, _ in FillCheckTests.paper }
        var lower = letters
        for y in 0..<(Self.box.minY + Self.box.height / 2) { for x in 0..<scan.width { lower.pixels[y * scan.width + x] = 0 } }
        let fill = FillCheckTests.grown(lower, by: 2)
        var cleared = scan
        for i in fill.pixels.indices where fill.pixels[i] != 0 { cleared.pixels[i] = FillCheckTests.paper }
        let made = try #require(FillCheck.edgesMade(scan: scan, cleared: cleared, filled: fill, box: Self.box, ink: letters))
        #expect(made >= FillCheckParameters().edgesMade, "\(made)")
    }

    @Test func noReadingWithoutAFill() {
        let (scan, letters) = FillCheckTests.page { _, _ in FillCheckTests.paper }
        let none = Bitmap<UInt8>(width: scan.width, height: scan.height, fill: 0)
        #expect(FillCheck.edgesMade(scan: scan, cleared: scan, filled: none, box: Self.box, ink: letters) == nil)
        #expect(FillCheck.edgesMade(scan: scan, cleared: scan, filled: none, box: PixelRect(x: 900, y: 900, width: 5, height: 5), ink: nil) == nil)
    }

    @Test func parametersAreNamedAndChecked() throws {
        var p = FillCheckParameters()
        #expect(p.set("edgesMade", to: 1.5) && p.edgesMade == 1.5)
        #expect(p.set("edgeFloor", to: 4) && p.edgeFloor == 4)
        p.edgeFloor = 0
        #expect(throws: ClearTextError.self) { try p.validate() }
        p.edgeFloor = 8
        p.edgesMade = -1
        #expect(throws: ClearTextError.self) { try p.validate() }
    }
}
