// JPEG 2000 read a band of rows at a time (how a large image is decoded, so OpenJPEG's 32-bit
// buffers never hold all of it) must give exactly what one whole decode gives: every fixture
// (one tile, tiles whose grid starts off the image, subsampled components on an offset image,
// the 9/7 wavelet, a palette applied by OpenJPEG) and every hostile seed of the fuzz corpus,
// from memory and from the file, cut into bands of 1 to 8 rows.
import CScanShim
@testable import Codecs
import FileIO
import Foundation
import Raster
import Testing
import TestSupport

@Suite struct JP2BandTests {
    static let fixtures: [FileDecodeTests.Sample] = {
        let folder = ScanFixtures.folder
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [])
            .filter { $0.hasSuffix(".jp2") || $0.hasSuffix(".j2k") }.sorted()
        return names.compactMap { n in (try? FileIO.read(folder + "/" + n)).map { .init(name: n, bytes: $0) } }
    }()

    static let all = fixtures + FileDecodeTests.onDisk.filter { $0.name.hasPrefix("jp2/") }

    /// Bands of `rows` rows; 0: the shim's own choice.
    static func options(_ rows: Int) -> DecodeOptions {
        var o = DecodeOptions()
        o.jpeg2000BandRows = rows == 0 ? nil : rows
        return o
    }

    static func decode(_ bytes: [UInt8], rows: Int) -> Result<FileDecodeTests.Rows, CodecError> {
        FileDecodeTests.outcome { () throws(CodecError) in
            try bytes.withUnsafeBufferPointer { (data) throws(CodecError) in
                let decoding = try JP2Decoding(data, name: "band.jp2", limits: .default)
                let b = try decoding.decodeRGBA(options: options(rows))
                return .init(pixels: b.pixels, width: b.width, height: b.height)
            }
        }
    }

    static func decode(file path: String, rows: Int) -> Result<FileDecodeTests.Rows, CodecError> {
        FileDecodeTests.outcome { () throws(CodecError) in
            let file = try SourceFile(path)
            let decoding = try JP2Decoding(file: file, limits: .default)
            let b = try decoding.decodeRGBA(options: options(rows))
            return .init(pixels: b.pixels, width: b.width, height: b.height)
        }
    }

    @Test func theFixturesAreHere() {
        #expect(Self.fixtures.count >= 8, "Fixtures/Scans: \(Self.fixtures.map(\.name))")
    }

    @Test(arguments: all)
    func bandsGiveTheWholeDecode(_ sample: FileDecodeTests.Sample) throws {
        let dir = makeTemporaryDirectory("jp2bands")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/" + sample.name.replacingOccurrences("/", "-")
        try AtomicFile.write(sample.bytes, to: path)
        let whole = Self.decode(sample.bytes, rows: 0)
        for rows in [1, 2, 3, 5, 8] {
            for (source, banded) in [("memory", Self.decode(sample.bytes, rows: rows)), ("file", Self.decode(file: path, rows: rows))] {
                switch (whole, banded) {
                case (.success(let a), .success(let b)):
                    #expect(a.width == b.width && a.height == b.height, "\(sample.name), \(rows)-row bands from \(source)")
                    let differing = zip(a.pixels, b.pixels).filter { $0 != $1 }.count
                    #expect(differing == 0, "\(sample.name), \(rows)-row bands from \(source): \(differing) pixels differ")
                case (.failure, .failure):
                    break  // refused or damaged either way (the message may name another stage)
                default:
                    Issue.record("\(sample.name), \(rows)-row bands from \(source): whole gave \(whole), bands gave \(banded)")
                }
            }
        }
    }

    /// The palette fixture really is one (so the path that opens the file afresh for each band
    /// is the one tested), and decodes to the palette's colours.
    @Test func paletteFixtureDecodesThroughItsPalette() throws {
        let bytes = try FileIO.read(ScanFixtures.folder + "/palette8.jp2")
        guard case .success(let rows) = Self.decode(bytes, rows: 2) else { Issue.record("palette8.jp2 did not decode"); return }
        #expect(rows.width == 24 && rows.height == 16)
        #expect(rows.pixels[0] == RGBA8(r: 250, g: 10, b: 10))
        #expect(rows.pixels[6] == RGBA8(r: 10, g: 200, b: 30))
        #expect(rows.pixels[4 * 24] == RGBA8(r: 10, g: 200, b: 30))
    }

    /// An image larger than the shim's whole-decode budget (32 MiB of 32-bit samples) is banded
    /// by the shim's own choice — 64-row bands of one tile, and rows of 512-pixel tiles — and
    /// gives the same pixels as one whole decode. Made with opj_compress (libopenjp2-tools, which
    /// Tools/setup.sh installs).
    @Test func largeImagesAreBandedByTheShimsOwnChoice() throws {
        let dir = makeTemporaryDirectory("jp2bands-large")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let w = 2400, h = 1500  // 3.6 MP × 3 components × 4 bytes = 41 MiB
        var ppm = Array("P6\n\(w) \(h)\n255\n".utf8)
        let header = ppm.count
        ppm.reserveCapacity(ppm.count + w * h * 3)
        var rng = SplitMix64(seed: 18)
        for y in 0..<h {
            for x in 0..<w {
                // Smooth ramps with a little noise: compresses fast, and every row differs.
                let n = rng.byte() & 15
                ppm += [UInt8((x / 10 + y / 7) & 255) ^ n, UInt8((y / 6) & 255), UInt8((x * y / 4000) & 255) ^ n]
            }
        }
        try AtomicFile.write(ppm, to: dir + "/in.ppm")
        for (name, extra) in [("one-tile.jp2", [String]()), ("tiled.jp2", ["-t", "512,512"])] {
            let out = dir + "/" + name
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/usr/bin/opj_compress")
            p.arguments = ["-i", dir + "/in.ppm", "-o", out, "-n", "4"] + extra
            p.standardOutput = FileHandle.nullDevice
            p.standardError = FileHandle.nullDevice
            do { try p.run() } catch {
                Issue.record("opj_compress not found (Tools/setup.sh installs libopenjp2-tools): \(error)")
                return
            }
            p.waitUntilExit()
            try #require(p.terminationStatus == 0, "opj_compress failed on \(name)")
            let chosen = Self.decode(file: out, rows: 0)
            let whole = Self.decode(file: out, rows: h)
            guard case .success(let a) = whole, case .success(let b) = chosen else {
                Issue.record("\(name): whole \(whole), banded \(chosen)")
                continue
            }
            #expect(a == b, "\(name): the banded decode differs from the whole decode")
            let at = header + 3 * (w + 10)  // lossless: the second row's eleventh pixel as written
            #expect(a.pixels[w + 10] == RGBA8(r: ppm[at], g: ppm[at + 1], b: ppm[at + 2]))
        }
    }
}
