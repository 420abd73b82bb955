import Codecs
import Raster
import Testing
import TestSupport

@Suite struct PNGEncodeTests {
    static func random(width: Int, height: Int, seed: UInt64, opaque: Bool = false, gray: Bool = false) -> Bitmap<RGBA8> {
        var rng = SplitMix64(seed: seed)
        return Bitmap(width: width, height: height) { p in
            for i in 0..<p.count {
                let r = UInt8.random(in: 0...255, using: &rng)
                p[i] = RGBA8(
                    r: r, g: gray ? r : UInt8.random(in: 0...255, using: &rng), b: gray ? r : UInt8.random(in: 0...255, using: &rng),
                    a: opaque ? 255 : UInt8.random(in: 0...255, using: &rng))
            }
        }
    }

    struct OptionCase: Sendable, CustomTestStringConvertible {
        var options: PNGEncodeOptions
        var testDescription: String { "level \(options.compressionLevel) \(options.filter)\(options.interlaced ? " Adam7" : "")" }
    }

    static let optionCases: [OptionCase] =
        (0...9).map { OptionCase(options: PNGEncodeOptions(compressionLevel: $0)) }
        + PNGFilter.allCases.map { OptionCase(options: PNGEncodeOptions(filter: $0)) }
        + [OptionCase(options: PNGEncodeOptions(interlaced: true)), OptionCase(options: .fast), OptionCase(options: .smallest)]

    @Test(arguments: optionCases)
    func everySettingRoundTripsExactly(_ c: OptionCase) throws {
        let picture = Self.random(width: 37, height: 23, seed: 1)
        let png = try PNGEncoder.encode(picture, options: c.options)
        #expect(try ImageDecoder.decode(png, name: "x.png") == picture)
        #expect(try ImageDecoder.info(png, name: "x.png").isInterlaced == c.options.interlaced)
        let gray = picture.map(\.luma)
        #expect(try ImageDecoder.decodeGray(PNGEncoder.encode(gray, options: c.options), name: "g.png") == gray)
    }

    struct ReductionCase: Sendable, CustomTestStringConvertible {
        var opaque: Bool
        var gray: Bool
        var expected: String
        var testDescription: String { expected }
    }

    @Test(arguments: [
        ReductionCase(opaque: true, gray: true, expected: "gray 8-bit"),
        ReductionCase(opaque: false, gray: true, expected: "gray+alpha 8-bit"),
        ReductionCase(opaque: true, gray: false, expected: "RGB 8-bit"),
        ReductionCase(opaque: false, gray: false, expected: "RGBA 8-bit"),
    ])
    func dropsChannelsThePixelsDoNotNeed(_ c: ReductionCase) throws {
        let picture = Self.random(width: 64, height: 40, seed: 2, opaque: c.opaque, gray: c.gray)
        let reduced = try PNGEncoder.encode(picture)
        let full = try PNGEncoder.encode(picture, options: PNGEncodeOptions(reduceChannels: false))
        #expect(try ImageDecoder.info(reduced, name: "r.png").colorDescription == c.expected)
        #expect(try ImageDecoder.info(full, name: "f.png").colorDescription == "RGBA 8-bit")
        #expect(try ImageDecoder.decode(reduced, name: "r.png") == picture)
        #expect(try ImageDecoder.decode(full, name: "f.png") == picture)
        if c.expected != "RGBA 8-bit" { #expect(reduced.count < full.count) }
    }

    @Test func grayBitmapsWriteGrayPNGs() throws {
        let gray = Pictures.photo(width: 50, height: 30).map(\.luma)
        let png = try PNGEncoder.encode(gray)
        let info = try ImageDecoder.info(png, name: "g.png")
        #expect(info.colorDescription == "gray 8-bit" && info.isGray)
        #expect(try ImageDecoder.decodeGray(png, name: "g.png") == gray)
        #expect(try ImageDecoder.decode(png, name: "g.png") == gray.map { RGBA8(gray: $0) })
    }

    @Test func compressionKnobTradesSizeForSpeed() throws {
        let photo = Pictures.photo(width: 300, height: 200)
        let stored = try PNGEncoder.encode(photo, options: PNGEncodeOptions(compressionLevel: 0, filter: .none)).count
        let fast = try PNGEncoder.encode(photo, options: .fast).count
        let smallest = try PNGEncoder.encode(photo, options: .smallest).count
        #expect(stored > 300 * 200 * 3)  // level 0 stores
        #expect(fast < stored)
        #expect(smallest <= fast)
    }

    @Test func emptyBitmapsAreRefused() throws {
        #expect(throws: CodecError.encodeFailed(name: "e.png", format: .png, reason: "image is empty (0×5)")) {
            _ = try PNGEncoder.encode(Bitmap<RGBA8>(width: 0, height: 5, fill: .white), name: "e.png")
        }
        #expect(throws: CodecError.self) { _ = try JPEGEncoder.encode(Bitmap<UInt8>(width: 3, height: 0, fill: 0)) }
    }
}

@Suite struct JPEGEncodeTests {
    static let photo = Pictures.photo(width: 120, height: 80)

    @Test func qualityKnobOrdersSizeAndError() throws {
        var sizes: [Int] = []
        var errors: [Double] = []
        for q in [20, 50, 80, 95] {
            let jpeg = try JPEGEncoder.encode(Self.photo, options: JPEGEncodeOptions(quality: q))
            sizes.append(jpeg.count)
            errors.append(Pictures.meanAbsoluteError(try ImageDecoder.decode(jpeg, name: "q.jpg"), Self.photo))
        }
        #expect(sizes == sizes.sorted() && Set(sizes).count == 4, "sizes \(sizes)")
        #expect(errors == errors.sorted(by: >), "errors \(errors)")
    }

    @Test(arguments: JPEGEncodeOptions.Chroma.allCases)
    func chromaOptionSetsSubsampling(_ chroma: JPEGEncodeOptions.Chroma) throws {
        let jpeg = try JPEGEncoder.encode(Self.photo, options: JPEGEncodeOptions(chroma: chroma))
        #expect(try ImageDecoder.info(jpeg, name: "c.jpg").colorDescription == (chroma == .full444 ? "YCbCr 4:4:4" : "YCbCr 4:2:0"))
    }

    @Test func progressiveAndOptimizedAreSmallerOrEqual() throws {
        let plain = try JPEGEncoder.encode(Self.photo, options: JPEGEncodeOptions())
        let optimized = try JPEGEncoder.encode(Self.photo, options: JPEGEncodeOptions(optimizeCoding: true))
        let progressive = try JPEGEncoder.encode(Self.photo, options: JPEGEncodeOptions(progressive: true))
        #expect(optimized.count < plain.count)
        #expect(try ImageDecoder.info(progressive, name: "p.jpg").isInterlaced)
        #expect(try !ImageDecoder.info(plain, name: "p.jpg").isInterlaced)
        // Same coefficients, different entropy coding: the pixels agree.
        let a = try ImageDecoder.decode(plain, name: "a.jpg"), b = try ImageDecoder.decode(optimized, name: "b.jpg")
        #expect(a == b)
    }

    @Test func transparencyIsFlattenedOntoTheMatte() throws {
        var picture = Bitmap(width: 32, height: 16, fill: RGBA8(r: 255, g: 0, b: 0, a: 0))  // invisible red
        picture.fill(.init(x: 16, y: 0, width: 16, height: 16), with: RGBA8(r: 0, g: 0, b: 0, a: 128))
        let onWhite = try ImageDecoder.decode(JPEGEncoder.encode(picture), name: "m.jpg")
        #expect(OrientationExpectation.close(onWhite[4, 8], .white, 3))
        #expect(OrientationExpectation.close(onWhite[28, 8], RGBA8(gray: 127), 3))
        let onBlue = try ImageDecoder.decode(JPEGEncoder.encode(picture, options: JPEGEncodeOptions(matte: RGBA8(r: 0, g: 0, b: 255))), name: "m.jpg")
        #expect(OrientationExpectation.close(onBlue[4, 8], RGBA8(r: 0, g: 0, b: 255), 6))
    }

    @Test func grayEncodeIsOneComponent() throws {
        let gray = Self.photo.map(\.luma)
        let jpeg = try JPEGEncoder.encode(gray, options: JPEGEncodeOptions(quality: 90))
        let colour = try JPEGEncoder.encode(Self.photo.map { RGBA8(gray: $0.luma) }, options: JPEGEncodeOptions(quality: 90))
        #expect(jpeg.count < colour.count)
        #expect(try ImageDecoder.info(jpeg, name: "g.jpg").colorDescription == "gray")
        #expect(Pictures.meanAbsoluteError(try ImageDecoder.decodeGray(jpeg, name: "g.jpg"), gray) < 1.5)
    }
}
