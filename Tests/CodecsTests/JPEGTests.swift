import Codecs
import Raster
import Testing
import TestSupport

@Suite struct JPEGDecodeTests {
    static let picture = Pictures.photo(width: 67, height: 45)

    struct Variant: Sendable, CustomTestStringConvertible {
        var progressive: Bool
        var chroma: JPEGEncodeOptions.Chroma
        var testDescription: String { "\(progressive ? "progressive" : "baseline") \(chroma)" }
    }

    static let variants = [false, true].flatMap { p in JPEGEncodeOptions.Chroma.allCases.map { Variant(progressive: p, chroma: $0) } }

    @Test(arguments: variants)
    func roundTripsColour(_ v: Variant) throws {
        let options = JPEGEncodeOptions(quality: 95, progressive: v.progressive, chroma: v.chroma)
        let jpeg = try JPEGEncoder.encode(Self.picture, options: options)
        let info = try ImageDecoder.info(jpeg, name: "p.jpg")
        #expect(info.format == .jpeg)
        #expect(info.width == 67 && info.height == 45)
        #expect(info.isInterlaced == v.progressive)
        #expect(info.colorDescription == (v.chroma == .full444 ? "YCbCr 4:4:4" : "YCbCr 4:2:0"))
        #expect(!info.isGray && !info.hasAlpha && info.bitDepth == 8)
        let decoded = try ImageDecoder.decode(jpeg, name: "p.jpg")
        #expect(decoded.width == 67 && decoded.height == 45)
        #expect(decoded.pixels.allSatisfy { $0.a == 255 })
        let error = Pictures.meanAbsoluteError(decoded, Self.picture)
        #expect(error < (v.chroma == .full444 ? 1.5 : 4), "mean error \(error)")
        // The gray path reads only Y: it must match the luma of the colour decode closely.
        let gray = try ImageDecoder.decodeGray(jpeg, name: "p.jpg")
        #expect(Pictures.meanAbsoluteError(gray, decoded.map(\.luma)) < 1.0)
    }

    @Test(arguments: [false, true])
    func decodesGrayscaleJPEG(progressive: Bool) throws {
        let gray = Self.picture.map(\.luma)
        let jpeg = try JPEGEncoder.encode(gray, options: JPEGEncodeOptions(quality: 95, progressive: progressive))
        let info = try ImageDecoder.info(jpeg, name: "g.jpg")
        #expect(info.isGray && info.colorDescription == "gray")
        let decodedGray = try ImageDecoder.decodeGray(jpeg, name: "g.jpg")
        #expect(Pictures.meanAbsoluteError(decodedGray, gray) < 1.5)
        let rgba = try ImageDecoder.decode(jpeg, name: "g.jpg")
        #expect(rgba.pixels.allSatisfy { $0.r == $0.g && $0.g == $0.b && $0.a == 255 })
        #expect(rgba.map(\.r) == decodedGray)
    }

    /// Inverted CMYK as Adobe software writes it, derived from the RGB picture.
    static func adobeCMYK(_ b: Bitmap<RGBA8>) -> [UInt8] {
        b.pixels.flatMap { p -> [UInt8] in
            let r = Double(p.r) / 255, g = Double(p.g) / 255, bl = Double(p.b) / 255
            let k = 1 - max(r, g, bl)
            let c = k < 1 ? (1 - r - k) / (1 - k) : 0
            let m = k < 1 ? (1 - g - k) / (1 - k) : 0
            let y = k < 1 ? (1 - bl - k) / (1 - k) : 0
            return [c, m, y, k].map { UInt8(((1 - $0) * 255).rounded()) }  // inverted: 255 = no ink
        }
    }

    @Test(arguments: [false, true])
    func decodesAdobeCMYKAndYCCK(ycck: Bool) throws {
        let jpeg = try JPEGEncoder.encodeCMYK(
            Self.adobeCMYK(Self.picture), width: Self.picture.width, height: Self.picture.height, ycck: ycck,
            options: JPEGEncodeOptions(quality: 95, chroma: .full444))
        let info = try ImageDecoder.info(jpeg, name: "c.jpg")
        #expect(info.colorDescription == (ycck ? "YCCK (Adobe inverted)" : "CMYK (Adobe inverted)"))
        let decoded = try ImageDecoder.decode(jpeg, name: "c.jpg")
        let error = Pictures.meanAbsoluteError(decoded, Self.picture)
        #expect(error < 3, "mean error \(error)")
        let gray = try ImageDecoder.decodeGray(jpeg, name: "c.jpg")
        #expect(Pictures.meanAbsoluteError(gray, Self.picture.map(\.luma)) < 3)
    }

    @Test func plainCMYKWithoutAdobeMarkerIsNotInverted() throws {
        // Same picture, ink values stored as is (0 = no ink), and no APP14.
        let inks = Self.adobeCMYK(Self.picture).map { 255 - $0 }
        let adobe = try JPEGEncoder.encodeCMYK(
            inks, width: Self.picture.width, height: Self.picture.height, ycck: false,
            options: JPEGEncodeOptions(quality: 95, chroma: .full444))
        let plain = JPEGBytes.removingSegment(0xEE, from: adobe)
        #expect(plain.count < adobe.count)
        let info = try ImageDecoder.info(plain, name: "c.jpg")
        #expect(info.colorDescription == "CMYK")
        let error = Pictures.meanAbsoluteError(try ImageDecoder.decode(plain, name: "c.jpg"), Self.picture)
        #expect(error < 3, "mean error \(error)")
    }

    struct OrientationCase: Sendable, CustomTestStringConvertible {
        var orientation: Int
        var bigEndian: Bool
        var testDescription: String { "orientation \(orientation) \(bigEndian ? "MM" : "II")" }
    }

    static let orientationCases = (1...8).flatMap { o in [false, true].map { OrientationCase(orientation: o, bigEndian: $0) } }

    @Test(arguments: orientationCases)
    func appliesEXIFOrientation(_ c: OrientationCase) throws {
        let stored = Pictures.corners()
        let plain = try JPEGEncoder.encode(stored, options: JPEGEncodeOptions(quality: 95, chroma: .full444))
        let jpeg = JPEGBytes.insertingAPP1(JPEGBytes.exifPayload(orientation: c.orientation, bigEndian: c.bigEndian), into: plain)
        let info = try ImageDecoder.info(jpeg, name: "o.jpg")
        #expect(info.orientation == c.orientation)
        #expect(info.orientedWidth == (c.orientation >= 5 ? 32 : 48))
        let upright = try ImageDecoder.decode(jpeg, name: "o.jpg")
        OrientationExpectation.check(upright, orientation: c.orientation, stored: stored, tolerance: 24)

        let asStored = try ImageDecoder.decode(jpeg, name: "o.jpg", options: DecodeOptions(applyOrientation: false))
        OrientationExpectation.check(asStored, orientation: 1, stored: stored, tolerance: 24)

        // Gray follows the same geometry.
        let gray = try ImageDecoder.decodeGray(jpeg, name: "o.jpg")
        #expect(gray.width == upright.width && gray.height == upright.height)
        #expect(Pictures.meanAbsoluteError(gray, upright.map(\.luma)) < 1.5)

        // Orientation and DCT scaling combine: 1/8 of 48×32 is 6×4, then turned.
        let small = try ImageDecoder.decode(jpeg, name: "o.jpg", options: DecodeOptions(jpegScale: .eighth))
        #expect(small.width == (c.orientation >= 5 ? 4 : 6) && small.height == (c.orientation >= 5 ? 6 : 4))
    }

    @Test func orientationSurvivesGarbageEXIF() throws {
        let plain = try JPEGEncoder.encode(Pictures.corners(), options: JPEGEncodeOptions(quality: 90))
        var rng = SplitMix64(seed: 7)
        let good = JPEGBytes.exifPayload(orientation: 6, bigEndian: true)
        var payloads: [[UInt8]] = [
            Array("Exif".utf8) + [0, 0],                                  // nothing after the header
            Array("Exif".utf8) + [0, 0, 0x4D, 0x4D, 0, 42, 0xFF, 0xFF, 0xFF, 0xF0],  // IFD far outside
            Array("Exif".utf8) + [0, 0, 0x49, 0x49, 42, 0, 8, 0, 0, 0, 0xFF, 0xFF],  // 65535 entries, none there
            Array("Exif".utf8) + [0, 0, 0x49, 0x49, 43, 0, 8, 0, 0, 0],           // wrong magic
            Array(good.prefix(good.count - 7)),                            // cut inside the entry
            Array("http://ns.adobe.com/xap/1.0/".utf8) + [0],                // XMP, not EXIF
        ]
        var wrongType = good
        wrongType[6 + 8 + 2 + 12 + 3] = 4  // orientation as LONG
        payloads.append(wrongType)
        var outOfRange = good
        outOfRange[6 + 8 + 2 + 12 + 9] = 9
        payloads.append(outOfRange)
        for _ in 0..<300 {
            var p = good
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                p[Int.random(in: 6..<p.count, using: &rng)] = UInt8.random(in: 0...255, using: &rng)
            }
            if Bool.random(using: &rng) { p = Array(p.prefix(Int.random(in: 6...p.count, using: &rng))) }
            payloads.append(p)
        }
        for (i, payload) in payloads.enumerated() {
            let jpeg = JPEGBytes.insertingAPP1(payload, into: plain)
            let info = try ImageDecoder.info(jpeg, name: "g.jpg")
            #expect((1...8).contains(info.orientation))
            if i < 8 { #expect(info.orientation == 1, "payload \(i)") }
            let bitmap = try ImageDecoder.decode(jpeg, name: "g.jpg")
            #expect(bitmap.width == info.orientedWidth && bitmap.height == info.orientedHeight)
        }
    }

    struct ScaleCase: Sendable, CustomTestStringConvertible {
        var scale: JPEGScale
        var width: Int
        var height: Int
        var testDescription: String { "1/\(scale.denominator) → \(width)×\(height)" }
    }

    static let big: [UInt8] = {
        (try? JPEGEncoder.encode(Pictures.photo(width: 1601, height: 2001), options: JPEGEncodeOptions(quality: 75))) ?? []
    }()

    @Test(arguments: [
        ScaleCase(scale: .full, width: 1601, height: 2001), ScaleCase(scale: .half, width: 801, height: 1001),
        ScaleCase(scale: .quarter, width: 401, height: 501), ScaleCase(scale: .eighth, width: 201, height: 251),
    ])
    func dctScalingRoundsSizesUp(_ c: ScaleCase) throws {
        let options = DecodeOptions(jpegScale: c.scale)
        let rgba = try ImageDecoder.decode(Self.big, name: "big.jpg", options: options)
        #expect(rgba.width == c.width && rgba.height == c.height)
        let gray = try ImageDecoder.decodeGray(Self.big, name: "big.jpg", options: options)
        #expect(gray.width == c.width && gray.height == c.height)
        #expect(c.scale.scaled(width: 1601, height: 2001) == (c.width, c.height))
        // A reduced decode is a faithful small picture, not noise.
        let reference = Pictures.photo(width: 1601, height: 2001)
        let x = rgba.width / 3, y = rgba.height / 2
        let expected = reference[min(1600, x * c.scale.denominator), min(2000, y * c.scale.denominator)]
        #expect(abs(Int(rgba[x, y].r) - Int(expected.r)) < 12 && abs(Int(rgba[x, y].g) - Int(expected.g)) < 12)
    }

    @Test func largestReductionCoversTheTarget() throws {
        #expect(JPEGScale.largestReduction(width: 1601, height: 2001, covering: 200, 250) == .eighth)
        #expect(JPEGScale.largestReduction(width: 1601, height: 2001, covering: 201, 251) == .eighth)
        #expect(JPEGScale.largestReduction(width: 1601, height: 2001, covering: 202, 250) == .quarter)
        #expect(JPEGScale.largestReduction(width: 1601, height: 2001, covering: 401, 501) == .quarter)
        #expect(JPEGScale.largestReduction(width: 1601, height: 2001, covering: 402, 10) == .half)
        #expect(JPEGScale.largestReduction(width: 1601, height: 2001, covering: 801, 1002) == .full)
        #expect(JPEGScale.largestReduction(width: 1601, height: 2001, covering: 5000, 5000) == .full)
        #expect(JPEGScale(denominator: 4) == .quarter && JPEGScale(denominator: 3) == nil)

        // Through ImageInfo the target is in upright pixels: a rotated 48×32 shows as 32×48.
        let plain = try JPEGEncoder.encode(Pictures.corners(), options: .init())
        let rotated = JPEGBytes.insertingAPP1(JPEGBytes.exifPayload(orientation: 6, bigEndian: false), into: plain)
        let info = try ImageDecoder.info(rotated, name: "r.jpg")
        #expect(JPEGScale.largestReduction(from: info, covering: 8, 12) == .quarter)
        #expect(JPEGScale.largestReduction(from: info, covering: 12, 8) == .half)  // stored 48×32 would say 1/4
        #expect(JPEGScale.largestReduction(from: info, covering: 9, 13) == .half)
        let png = try PNGEncoder.encode(Pictures.corners())
        #expect(JPEGScale.largestReduction(from: try ImageDecoder.info(png, name: "p.png"), covering: 1, 1) == .full)
    }

    @Test func fastModeStillDecodesFaithfully() throws {
        let jpeg = try JPEGEncoder.encode(Self.picture, options: JPEGEncodeOptions(quality: 95))
        let fast = try ImageDecoder.decode(jpeg, name: "f.jpg", options: DecodeOptions(fastJPEG: true))
        #expect(Pictures.meanAbsoluteError(fast, Self.picture) < 4)
    }

    @Test func twelveBitJPEGIsUnsupportedNotCorrupt() throws {
        var jpeg = try JPEGEncoder.encode(Self.picture, options: .init())
        let sof = try #require(JPEGBytes.markerOffset(0xC0, in: jpeg))
        jpeg[sof + 4] = 12
        #expect {
            _ = try ImageDecoder.decode(jpeg, name: "deep.jpg")
        } throws: { e in
            guard case .unsupported(let name, let reason) = e as? CodecError else { return false }
            return name == "deep.jpg" && reason.contains("12")
        }
    }
}
