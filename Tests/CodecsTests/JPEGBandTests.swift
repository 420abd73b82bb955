// A progressive JPEG decoded a band of MCU rows at a time (how a large one is read, so its
// coefficients are never all held) must give exactly the pixels of one libjpeg decode: every
// chroma subsampling, gray, CMYK, restart intervals, every output scale, RGBA and gray, from
// memory and from the file, cut into bands of one MCU row up to the whole image.
@testable import Codecs
import FileIO
import Foundation
import Raster
import Testing
import TestSupport

@Suite struct JPEGBandTests {
    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/Progressive").path

    /// Pillow's progressive files (Tools/make-progressive-fixtures.py), ours (JPEGEncoder's
    /// progressive option) and the fuzz corpus's.
    static let samples: [FileDecodeTests.Sample] = {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { $0.hasSuffix(".jpg") }.sorted()
        var out = names.compactMap { n in (try? FileIO.read(folder + "/" + n)).map { FileDecodeTests.Sample(name: n, bytes: $0) } }
        var rng = SplitMix64(seed: 21)
        var pixels: [RGBA8] = []
        for y in 0..<53 {
            for x in 0..<77 {
                let r = UInt8(x * 3), b = UInt8(y * 4)
                pixels.append(RGBA8(r: r, g: rng.byte(), b: b))
            }
        }
        let image = Bitmap(width: 77, height: 53, pixels: pixels)
        for chroma in JPEGEncodeOptions.Chroma.allCases {
            if let b = try? JPEGEncoder.encode(image, options: .init(quality: 92, progressive: true, chroma: chroma)) {
                out.append(.init(name: "ours-\(chroma).jpg", bytes: b))
            }
        }
        return out + FileDecodeTests.onDisk.filter { $0.name.hasPrefix("jpeg/") }
    }()

    /// The decoded bytes, and how many bands they were read in.
    static func decode(_ bytes: [UInt8], bands: Int?, gray: Bool, options: DecodeOptions) -> Result<[UInt8], CodecError> {
        FileDecodeTests.outcome { () throws(CodecError) in try decodeOnce(bytes, bands: bands, gray: gray, options: options).0 }
    }

    static func decodeCounting(_ bytes: [UInt8], bands: Int?, gray: Bool, options: DecodeOptions) -> Result<([UInt8], Int), CodecError> {
        do throws(CodecError) {
            return .success(try decodeOnce(bytes, bands: bands, gray: gray, options: options))
        } catch { return .failure(error) }
    }

    static func decodeOnce(_ bytes: [UInt8], bands: Int?, gray: Bool, options: DecodeOptions) throws(CodecError) -> ([UInt8], Int) {
        var options = options
        options.progressiveBandBytes = bands
        return try bytes.withUnsafeBufferPointer { (data) throws(CodecError) in
                let d = try JPEGDecoding(data, name: "band.jpg", strict: options.strict)
                if gray { return (try d.decodeGray(options: options).pixels, d.bandsDecoded) }
                let pixels = try d.decodeRGBA(options: options).pixels.flatMap { [$0.r, $0.g, $0.b, $0.a] }
                return (pixels, d.bandsDecoded)
        }
    }

    /// Every progressive sample that decodes really is read in bands (one per MCU row at the
    /// smallest budget), so the comparison below is not libjpeg against itself.
    @Test func progressiveSamplesAreReadInBands() throws {
        var banded = 0
        for sample in Self.samples where !sample.name.hasPrefix("jpeg/") || sample.name.contains("progressive") {
            let result = Self.decodeCounting(sample.bytes, bands: 1, gray: false, options: DecodeOptions())
            guard case .success(let (_, bands)) = result else { Issue.record("\(sample.name): \(result)"); continue }
            // The fuzz seed is 24 × 16: one MCU row.
            #expect(bands > 3 || sample.name == "jpeg/progressive.jpg" && bands == 1, "\(sample.name): \(bands) bands")
            banded += 1
        }
        #expect(banded >= 10)
    }

    @Test func theFixturesAreHere() {
        #expect(Self.samples.filter { !$0.name.hasPrefix("jpeg/") }.count >= 9, "\(Self.samples.map(\.name))")
    }

    /// Band budgets from one MCU row (1 byte) to most of the image.
    @Test(arguments: samples)
    func bandsGiveLibjpegsPixels(_ sample: FileDecodeTests.Sample) {
        for scale in [JPEGScale.full, .half, .eighth] {
            for gray in [false, true] {
                let options = DecodeOptions(jpegScale: scale, applyOrientation: false)
                let whole = Self.decode(sample.bytes, bands: nil, gray: gray, options: options)
                for budget in [1, 20_000, 200_000] {
                    let banded = Self.decode(sample.bytes, bands: budget, gray: gray, options: options)
                    switch (whole, banded) {
                    case (.success(let a), .success(let b)):
                        let differing = zip(a, b).filter { $0 != $1 }.count
                        #expect(a.count == b.count && differing == 0,
                                "\(sample.name) scale \(scale) gray \(gray) budget \(budget): \(differing) of \(a.count) bytes differ")
                    case (.failure(let a), .failure(let b)):
                        #expect(a == b, "\(sample.name): whole said \(a), bands said \(b)")
                    default:
                        Issue.record("\(sample.name) scale \(scale) gray \(gray) budget \(budget): whole \(whole), bands \(banded)")
                    }
                }
            }
        }
    }

    /// From the file (read again through pread for each band's stretch of every scan) as from
    /// memory.
    @Test func bandsFromTheFile() throws {
        let dir = makeTemporaryDirectory("jpegbands")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for sample in Self.samples where !sample.name.hasPrefix("jpeg/") {
            let path = dir + "/" + sample.name
            try AtomicFile.write(sample.bytes, to: path)
            let whole = Self.decode(sample.bytes, bands: nil, gray: false, options: DecodeOptions())
            let fromFile = FileDecodeTests.outcome { () throws(CodecError) -> [UInt8] in
                let d = try JPEGDecoding(file: try SourceFile(path), strict: false)
                var banded = DecodeOptions()
                banded.progressiveBandBytes = 1
                let pixels = try d.decodeRGBA(options: banded).pixels.flatMap { [$0.r, $0.g, $0.b, $0.a] }
                #expect(d.bandsDecoded > 3, "\(sample.name) from the file: \(d.bandsDecoded) bands")
                return pixels
            }
            #expect(whole == fromFile, "\(sample.name): the file read in bands differs")
        }
    }

    /// Damaged files: a byte changed at points through the scans. Whatever libjpeg makes of
    /// the file whole (pixels, or an error in strict mode), the band path gives the same — it
    /// hands anything it cannot read exactly back to libjpeg.
    @Test(arguments: samples.filter { !$0.name.hasPrefix("jpeg/") })
    func damagedFilesDecodeAsLibjpegDecodesThem(_ sample: FileDecodeTests.Sample) {
        let n = sample.bytes.count
        for point in stride(from: n / 5, to: n - 4, by: max(1, n / 9)) {
            for value: UInt8 in [0x00, 0xFF, sample.bytes[point] ^ 0x10] {
                var bytes = sample.bytes
                bytes[point] = value
                for strict in [false, true] {
                    let options = DecodeOptions(strict: strict)
                    let whole = Self.decode(bytes, bands: nil, gray: false, options: options)
                    let banded = Self.decode(bytes, bands: 1, gray: false, options: options)
                    #expect(whole == banded, "\(sample.name) byte \(point) = \(value) strict \(strict): whole \(whole.map(\.count)), bands \(banded.map(\.count))")
                }
            }
        }
    }

    /// Whether to read in bands is judged from libjpeg's header before the scans are looked at:
    /// its count of the coefficients is the layout's.
    @Test func theHeadersCoefficientCountIsTheLayouts() throws {
        for sample in Self.samples where !sample.name.hasPrefix("jpeg/") {
            try sample.bytes.withUnsafeBufferPointer { data in
                let d = try JPEGDecoding(data, name: sample.name, strict: false)
                let layout = try #require(ProgressiveLayout.read(.memory(data)), "\(sample.name)")
                #expect(d.declaredCoefficientBytes == layout.coefficientBytes, "\(sample.name)")
            }
        }
    }
}
