import Codecs
import Raster
import Testing

@Suite struct PNGDecodeTests {
    @Test(arguments: PNGCase.all)
    func decodesEveryColourTypeAndDepthExactly(_ c: PNGCase) throws {
        let built = c.build()
        let bitmap = try ImageDecoder.decode(built.bytes, name: "case.png")
        #expect(bitmap.width == c.width && bitmap.height == c.height)
        let wrong = zip(bitmap.pixels, built.rgba).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(wrong.isEmpty, "\(wrong.count) pixels differ; first at \(wrong.first.map { ($0.offset, $0.element.0, $0.element.1) }.map(String.init(describing:)) ?? "")")
    }

    @Test(arguments: PNGCase.all)
    func decodesGrayWithAlphaOverWhite(_ c: PNGCase) throws {
        let built = c.build()
        let gray = try ImageDecoder.decodeGray(built.bytes, name: "case.png")
        #expect(gray.width == c.width && gray.height == c.height)
        let wrong = zip(gray.pixels, built.gray).enumerated().filter { $0.element.0 != $0.element.1 }
        #expect(wrong.isEmpty, "\(wrong.count) pixels differ; first at \(wrong.first.map { ($0.offset, $0.element.0, $0.element.1) }.map(String.init(describing:)) ?? "")")
    }

    @Test(arguments: PNGCase.all)
    func describesTheHeader(_ c: PNGCase) throws {
        let info = try ImageDecoder.info(c.build().bytes, name: "case.png")
        #expect(info.format == .png)
        #expect(info.width == c.width && info.height == c.height)
        #expect(info.bitDepth == c.depth)
        #expect(info.isInterlaced == c.interlaced)
        #expect(info.orientation == 1)
        let kind = [PNGColor.gray: "gray", .rgb: "RGB", .palette: "palette", .grayAlpha: "gray+alpha", .rgba: "RGBA"][c.color]!
        #expect(info.colorDescription == "\(kind)\(c.trns ? "+tRNS" : "") \(c.depth)-bit")
        #expect(info.hasAlpha == (c.trns || c.color == .grayAlpha || c.color == .rgba))
        #expect(info.isGray == (c.color == .gray || c.color == .grayAlpha || c.grayPalette))
    }

    @Test func sixteenBitIsScaledNotTruncated() throws {
        // 0x0A8B = 2699 keeps 10 when the low byte is dropped, but 2699 / 257 = 10.502 → 11.
        var raw = RawPNG(width: 2, height: 1, colorType: PNGColor.gray.rawValue, bitDepth: 16)
        raw.samples = [0x0A, 0x8B, 0xFF, 0xFF]
        let png = try raw.encode(options: .init(), name: "t")
        let gray = try ImageDecoder.decodeGray(png, name: "t.png")
        #expect(gray.pixels == [11, 255])
        let rgba = try ImageDecoder.decode(png, name: "t.png")
        #expect(rgba.pixels == [RGBA8(gray: 11), RGBA8(gray: 255)])
    }

    @Test(arguments: 1...8)
    func appliesEXIFOrientationFromEXIfChunk(_ orientation: Int) throws {
        let picture = Pictures.corners()
        var raw = RawPNG(width: picture.width, height: picture.height, colorType: PNGColor.rgba.rawValue, bitDepth: 8)
        raw.samples = picture.pixels.flatMap { [$0.r, $0.g, $0.b, $0.a] }
        raw.exif = JPEGBytes.tiff(orientation: orientation, bigEndian: orientation % 2 == 0)
        let png = try raw.encode(options: .init(), name: "t")
        let info = try ImageDecoder.info(png, name: "t.png")
        #expect(info.orientation == orientation)
        let upright = try ImageDecoder.decode(png, name: "t.png")
        OrientationExpectation.check(upright, orientation: orientation, stored: picture, tolerance: 0)
        let asStored = try ImageDecoder.decode(png, name: "t.png", options: DecodeOptions(applyOrientation: false))
        #expect(asStored == picture)
    }
}

/// Where the marked corners of ``Pictures/corners`` must land for each EXIF orientation.
enum OrientationExpectation {
    enum Corner { case topLeft, topRight, bottomLeft, bottomRight }

    /// (red, green) corners: red marks stored top-left, green stored top-right.
    static let corners: [Int: (Corner, Corner)] = [
        1: (.topLeft, .topRight), 2: (.topRight, .topLeft), 3: (.bottomRight, .bottomLeft),
        4: (.bottomLeft, .bottomRight), 5: (.topLeft, .bottomLeft), 6: (.topRight, .bottomRight),
        7: (.bottomRight, .topRight), 8: (.bottomLeft, .topLeft),
    ]

    static func sample(_ b: Bitmap<RGBA8>, _ c: Corner, inset: Int = 3) -> RGBA8 {
        switch c {
        case .topLeft: return b[inset, inset]
        case .topRight: return b[b.width - 1 - inset, inset]
        case .bottomLeft: return b[inset, b.height - 1 - inset]
        case .bottomRight: return b[b.width - 1 - inset, b.height - 1 - inset]
        }
    }

    static func close(_ p: RGBA8, _ q: RGBA8, _ tolerance: Int) -> Bool {
        abs(Int(p.r) - Int(q.r)) <= tolerance && abs(Int(p.g) - Int(q.g)) <= tolerance && abs(Int(p.b) - Int(q.b)) <= tolerance
    }

    static func check(
        _ upright: Bitmap<RGBA8>, orientation: Int, stored: Bitmap<RGBA8>, tolerance: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let swapped = orientation >= 5
        #expect(upright.width == (swapped ? stored.height : stored.width), sourceLocation: sourceLocation)
        #expect(upright.height == (swapped ? stored.width : stored.height), sourceLocation: sourceLocation)
        guard let (red, green) = corners[orientation] else { return }
        let all: [Corner] = [.topLeft, .topRight, .bottomLeft, .bottomRight]
        for corner in all {
            let want: RGBA8 = corner == red ? RGBA8(r: 255, g: 0, b: 0) : corner == green ? RGBA8(r: 0, g: 255, b: 0) : RGBA8(gray: 128)
            let got = sample(upright, corner)
            #expect(close(got, want, tolerance), "orientation \(orientation): \(corner) is \(got), expected \(want)", sourceLocation: sourceLocation)
        }
    }
}
