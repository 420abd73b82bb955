// The `.fast` preset's own deflate (FastDeflate), checked two ways: raw byte streams through zlib's
// inflate (with its Adler-32 check), and whole PNGs through libpng's strict decoding, for every
// colour type the writer produces and sizes down to one pixel.
@testable import Codecs
import Raster
import Testing
import TestSupport

@Suite struct FastDeflateTests {
    enum Kind: String, CaseIterable, Sendable { case random, zeros, runs, periodic, smallNoise, mixed }

    static func bytes(_ kind: Kind, count: Int, seed: UInt64) -> [UInt8] {
        var rng = SplitMix64(seed: seed)
        switch kind {
        case .random: return (0..<count).map { _ in UInt8.random(in: 0...255, using: &rng) }
        case .zeros: return [UInt8](repeating: 0, count: count)
        case .runs:
            // Runs of every length around the 4-byte minimum and the 258-byte maximum.
            var out: [UInt8] = []
            var k = 0
            while out.count < count {
                out += [UInt8](repeating: UInt8(truncatingIfNeeded: k), count: [1, 2, 3, 4, 5, 257, 258, 259, 600][k % 9])
                k += 1
            }
            return Array(out.prefix(count))
        case .periodic: return (0..<count).map { UInt8(truncatingIfNeeded: ($0 % 3) * 40 + ($0 / 500)) }
        case .smallNoise: return (0..<count).map { _ in UInt8(truncatingIfNeeded: Int.random(in: -3...3, using: &rng)) }
        case .mixed:
            return (0..<count).map { i in
                (i / 97) % 2 == 0 ? 0 : UInt8.random(in: 0...255, using: &rng)
            }
        }
    }

    struct Stream: Sendable, CustomTestStringConvertible {
        var kind: Kind
        var count: Int
        var testDescription: String { "\(kind) × \(count)" }
    }

    static let streams: [Stream] = Kind.allCases.flatMap { kind in
        [1, 2, 3, 4, 5, 9, 300, 70_000].map { Stream(kind: kind, count: $0) }
    }

    @Test(arguments: streams)
    func zlibInflatesEveryStripingAndDistance(_ s: Stream) throws {
        let input = Self.bytes(s.kind, count: s.count, seed: UInt64(s.count))
        for distance in 1...4 {
            for strips in [1, 2, 3, 7] where strips <= s.count {
                let stream = FastDeflate.zlib(input, strips: strips, distance: distance)
                let back = try #require(
                    FastDeflate.inflate(stream, expectedCount: input.count),
                    "zlib rejected \(s.kind) × \(s.count), distance \(distance), \(strips) strips")
                #expect(back == input)
            }
        }
    }

    @Test func runsCompressToAlmostNothing() throws {
        let input = [UInt8](repeating: 0, count: 1 << 20)
        let stream = FastDeflate.zlib(input, strips: 2, distance: 3)
        // 4064 maximal matches at a few bits each, plus headers.
        #expect(stream.count < 4096, "\(stream.count) bytes for 1 MB of zeros")
        #expect(FastDeflate.inflate(stream, expectedCount: input.count) == input)
    }

    @Test func randomBytesBarelyGrow() throws {
        let input = Self.bytes(.random, count: 100_000, seed: 1)
        let stream = FastDeflate.zlib(input, strips: 1, distance: 1)
        #expect(stream.count < input.count + input.count / 50, "\(stream.count) bytes for \(input.count) random")
    }

    /// Skewed weights (Fibonacci) make an unlimited Huffman tree 30 deep; the limited code must
    /// stay within 15 bits and still be complete (Kraft sum exactly 1).
    @Test(arguments: [15, 7])
    func huffmanLengthsAreLimitedAndComplete(limit: Int) {
        var weights = [1, 1]
        while weights.count < 40 { weights.append(weights[weights.count - 1] + weights[weights.count - 2]) }
        let frequency = Array(weights.prefix(limit == 7 ? 19 : 40)) + [0, 0, 5]
        let lengths = Huffman.lengths(frequency, limit: limit)
        #expect(lengths.max()! <= UInt8(limit))
        #expect(zip(frequency, lengths).allSatisfy { ($0 == 0) == ($1 == 0) })
        let kraft = lengths.filter { $0 > 0 }.reduce(0.0) { $0 + 1.0 / Double(1 << Int($1)) }
        #expect(kraft == 1.0)
    }

    // MARK: Whole PNGs

    struct Shape: Sendable, CustomTestStringConvertible {
        var width: Int
        var height: Int
        var strips: Int
        var testDescription: String { "\(width)×\(height) in \(strips) strips" }
    }

    static let shapes: [Shape] = [
        Shape(width: 1, height: 1, strips: 1), Shape(width: 1, height: 1, strips: 3),
        Shape(width: 2, height: 1, strips: 2), Shape(width: 1, height: 2, strips: 2),
        Shape(width: 3, height: 5, strips: 4), Shape(width: 1, height: 300, strips: 5),
        Shape(width: 300, height: 1, strips: 5), Shape(width: 61, height: 29, strips: 3),
        Shape(width: 257, height: 131, strips: 7),
    ]

    enum Content: CaseIterable, Sendable { case mixed, flat, gradient, noise }

    static func picture(_ content: Content, width: Int, height: Int, opaque: Bool, gray: Bool) -> Bitmap<RGBA8> {
        switch content {
        case .mixed: return PNGWriterTests.picture(width: width, height: height, seed: 21, opaque: opaque, gray: gray)
        case .flat: return Bitmap(width: width, height: height, fill: RGBA8(r: 30, g: gray ? 30 : 140, b: gray ? 30 : 200, a: opaque ? 255 : 90))
        case .gradient, .noise:
            var rng = SplitMix64(seed: 5)
            return Bitmap(width: width, height: height) { p in
                for y in 0..<height {
                    for x in 0..<width {
                        let jitter = content == .noise ? Int.random(in: -4...4, using: &rng) : 0
                        let v = UInt8(clamping: (x * 3 + y) % 200 + 20 + jitter)
                        let g = gray ? v : UInt8(truncatingIfNeeded: y * 2)
                        let b = gray ? v : UInt8(truncatingIfNeeded: x + y)
                        p[y * width + x] = RGBA8(r: v, g: g, b: b, a: opaque ? 255 : UInt8(truncatingIfNeeded: x * 5))
                    }
                }
            }
        }
    }

    @Test(arguments: shapes)
    func everyColourTypeRoundTripsThroughLibpng(_ s: Shape) throws {
        let tuning = PNGWriterTuning(strips: s.strips, chunkSize: 97, fastDeflate: true)
        for content in Content.allCases {
            for (opaque, gray) in [(true, true), (false, true), (true, false), (false, false)] {
                let picture = Self.picture(content, width: s.width, height: s.height, opaque: opaque, gray: gray)
                for filter in [PNGFilter.up, .none, .sub, .paeth] {
                    let options = PNGEncodeOptions(compressionLevel: 1, filter: filter)
                    let png = try PNGEncoder.encode(picture, options: options, name: "f.png", tuning: tuning)
                    #expect(try ImageDecoder.decode(png, name: "f.png", options: PNGWriterTests.strict) == picture,
                            "\(content) opaque \(opaque) gray \(gray) \(filter)")
                    try PNGWriterTests.checkChunks(png, chunkSize: 97)
                }
            }
            let gray = Self.picture(content, width: s.width, height: s.height, opaque: true, gray: false).map(\.luma)
            let png = try PNGEncoder.encode(gray, options: .fast, name: "g.png", tuning: tuning)
            #expect(try ImageDecoder.decodeGray(png, name: "g.png", options: PNGWriterTests.strict) == gray)
        }
    }

    /// The `.fast` preset takes this path by default, and only it.
    @Test func onlyTheFastPresetUsesIt() {
        func writer(_ level: Int, _ filter: PNGFilter) -> PNGWriter {
            PNGWriter(width: 4, height: 4, colorType: 2, layout: .rgbFromRGBA, level: level, filter: filter)
        }
        #expect(writer(1, .up).usesFastDeflate)
        #expect(!writer(1, .adaptive).usesFastDeflate)
        #expect(!writer(6, .up).usesFastDeflate)
        #expect(!writer(0, .up).usesFastDeflate)
    }

    /// Scan-like content (smooth ramps with sensor noise, flat margins) at screen size: within
    /// 25 % of zlib level 1 with the same filter, and the pixels come back.
    @Test func ratioStaysNearZlibLevelOne() throws {
        var rng = SplitMix64(seed: 9)
        let width = 1278, height = 1179
        let picture = Bitmap<RGBA8>(width: width, height: height) { p in
            for y in 0..<height {
                for x in 0..<width {
                    if x < 60 || y < 40 {
                        p[y * width + x] = RGBA8(gray: 250)
                        continue
                    }
                    // Sensor noise, independent per channel as in a scan.
                    func n() -> Int { Int.random(in: -3...3, using: &rng) }
                    p[y * width + x] = RGBA8(
                        r: UInt8(clamping: 200 - x / 20 + n()), g: UInt8(clamping: 180 - y / 16 + n()),
                        b: UInt8(clamping: 150 + (x + y) / 40 + n()))
                }
            }
        }
        let fast = try PNGEncoder.encode(picture, options: .fast, name: "r.png", tuning: PNGWriterTuning(fastDeflate: true))
        let zlib = try PNGEncoder.encode(picture, options: .fast, name: "r.png", tuning: PNGWriterTuning(fastDeflate: false))
        #expect(Double(fast.count) <= Double(zlib.count) * 1.25, "fast \(fast.count) bytes, zlib level 1 \(zlib.count)")
        #expect(try ImageDecoder.decode(fast, name: "r.png", options: PNGWriterTests.strict) == picture)
    }
}
