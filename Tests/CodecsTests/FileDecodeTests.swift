// Decoding a file in pieces (PNG and JPEG through a descriptor and a 64 KiB buffer, JPEG 2000
// through OpenJPEG's stream over pread) must give
// exactly what decoding the same bytes from memory gives: the same pixels, the same header, and
// for damaged files the same error case and message.
import Codecs
import FileIO
import Foundation
import Glibc
import Raster
import Testing
import TestSupport

@Suite struct FileDecodeTests {
    struct Sample: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var testDescription: String { name }
    }

    static let fuzzCorpus: String = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fuzz/Corpus").path

    /// The fuzz corpus's PNG, JPEG and JPEG 2000 seeds (hostile ones included: huge dimensions,
    /// a chunk longer than the file, a chunk without its CRC, tens of thousands of tiles, cut
    /// files), and its PDFs (refused as images, from the file as from memory).
    static let onDisk: [Sample] = ["png", "jpeg", "jp2", "pdf"].flatMap { kind -> [Sample] in
        let folder = fuzzCorpus + "/" + kind
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).sorted()
        return names.compactMap { n in (try? FileIO.read(folder + "/" + n)).map { Sample(name: kind + "/" + n, bytes: $0) } }
    }

    /// Files bigger than the read buffer, so the decoders refill it many times (noise barely
    /// compresses: a 300×260 RGBA PNG is ~300 KB, the JPEG ~100 KB).
    static let large: [Sample] = {
        var rng = SplitMix64(seed: 8)
        let pixels = (0..<(300 * 260)).map { _ in RGBA8(r: rng.byte(), g: rng.byte(), b: rng.byte(), a: rng.byte()) }
        let noise = Bitmap(width: 300, height: 260, pixels: pixels)
        let opaque = noise.map { RGBA8(r: $0.r, g: $0.g, b: $0.b) }
        var out: [Sample] = []
        if let png = try? PNGEncoder.encode(noise) { out.append(Sample(name: "noise-rgba.png", bytes: png)) }
        if let jpg = try? JPEGEncoder.encode(opaque, options: .init(quality: 95)) { out.append(Sample(name: "noise.jpg", bytes: jpg)) }
        if let jpg = try? JPEGEncoder.encode(opaque, options: .init(quality: 95, progressive: true)) {
            out.append(Sample(name: "noise-progressive.jpg", bytes: jpg))
        }
        return out
    }()

    static let generated: [Sample] = Corpus.all.map { Sample(name: $0.name, bytes: $0.bytes) }

    static let all = onDisk + large + generated

    /// The sample whole and cut at the robustness suite's points (inside the header, inside
    /// IDAT or the scan data, just before the end).
    static func versions(_ s: Sample) -> [(String, [UInt8])] {
        [("whole", s.bytes)] + RobustnessTests.truncationPoints(s.bytes.count).map { ("cut at \($0)", Array(s.bytes.prefix($0))) }
    }

    struct Rows: Equatable {
        var pixels: [RGBA8]
        var width: Int
        var height: Int
    }

    static func outcome<T: Equatable>(_ body: () throws(CodecError) -> T) -> Result<T, CodecError> {
        do throws(CodecError) { return .success(try body()) } catch { return .failure(error) }
    }

    static func expectSame<T: Equatable>(
        _ what: String, _ memory: Result<T, CodecError>, _ file: Result<T, CodecError>, _ label: String
    ) {
        switch (memory, file) {
        case (.success(let a), .success(let b)):
            #expect(a == b, "\(label) \(what): the file decode differs from the memory decode")
        case (.failure(let a), .failure(let b)):
            #expect(a == b, "\(label) \(what): memory said \(a.description), file said \(b.description)")
        default:
            Issue.record("\(label) \(what): memory gave \(memory), file gave \(file)")
        }
    }

    @Test(arguments: all)
    func fileDecodeEqualsMemoryDecode(_ sample: Sample) throws {
        #expect(!sample.bytes.isEmpty)
        let dir = makeTemporaryDirectory("filedecode")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/" + sample.name.replacingOccurrences("/", "-")
        for (label, bytes) in Self.versions(sample) {
            try AtomicFile.write(bytes, to: path)
            let tag = "\(sample.name) \(label)"
            Self.expectSame(
                "info", Self.outcome { () throws(CodecError) in try ImageDecoder.info(bytes, name: path) },
                Self.outcome { () throws(CodecError) in try ImageDecoder.info(file: path) }, tag)
            for strict in [false, true] {
                let options = DecodeOptions(strict: strict)
                Self.expectSame(
                    "decode strict=\(strict)",
                    Self.outcome { () throws(CodecError) in try ImageDecoder.decode(bytes, name: path, options: options) },
                    Self.outcome { () throws(CodecError) in try ImageDecoder.decode(file: path, options: options) }, tag)
            }
            Self.expectSame(
                "decodeGray", Self.outcome { () throws(CodecError) in try ImageDecoder.decodeGray(bytes, name: path) },
                Self.outcome { () throws(CodecError) in try ImageDecoder.decodeGray(file: path) }, tag)
            // Strips of rows (the render path's cleared pages): the same rows, in order, and the
            // same verdict.
            func rows(_ decode: (_ body: (UnsafeBufferPointer<RGBA8>, Int, Int) -> Void) throws(CodecError) -> ImageInfo)
                -> Result<Rows, CodecError>
            {
                // The strip buffer is reused whole; its first `count` rows are this strip's.
                var strips: [(first: Int, count: Int, pixels: [RGBA8])] = []
                return Self.outcome { () throws(CodecError) in
                    let info = try decode { strip, first, count in strips.append((first, count, Array(strip))) }
                    var pixels: [RGBA8] = []
                    for s in strips {
                        #expect(s.first * info.width == pixels.count)
                        pixels += s.pixels.prefix(s.count * info.width)
                    }
                    return Rows(pixels: pixels, width: info.width, height: info.height)
                }
            }
            Self.expectSame(
                "decodeRows",
                rows { (body) throws(CodecError) in try ImageDecoder.decodeRows(bytes, name: path, stripRows: 7, body) },
                rows { (body) throws(CodecError) in try ImageDecoder.decodeRows(file: path, stripRows: 7, body) }, tag)
            let eighth = DecodeOptions(jpegScale: .eighth, applyOrientation: false)
            Self.expectSame(
                "decode 1/8 unrotated",
                Self.outcome { () throws(CodecError) in try ImageDecoder.decode(bytes, name: path, options: eighth) },
                Self.outcome { () throws(CodecError) in try ImageDecoder.decode(file: path, options: eighth) }, tag)
        }
    }

    /// The cuts the brief names, checked for their verdict (not only equality): a PNG cut inside
    /// IDAT and a JPEG cut mid-scan are truncated files, named, from the file as from memory.
    @Test func cutsInsideImageDataAreTruncated() throws {
        let dir = makeTemporaryDirectory("filedecode-cut")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        for sample in Self.large {
            let path = dir + "/" + sample.name
            try AtomicFile.write(Array(sample.bytes.prefix(sample.bytes.count / 2)), to: path)
            do {
                _ = try ImageDecoder.decode(file: path)
                Issue.record("\(sample.name) cut in half decoded")
            } catch {
                guard case .truncated(let name, _, _) = error else { Issue.record("\(sample.name): \(error)"); continue }
                #expect(name == path)
            }
        }
    }

    /// A named pipe is refused at once (no writer is ever attached: a wait would hang the test).
    @Test func fifoIsRefusedWithoutWaiting() throws {
        let dir = makeTemporaryDirectory("filedecode-fifo")
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/scan.png"
        #expect(mkfifo(path, 0o600) == 0)
        #expect(throws: CodecError.file(.readFailed(path: path, reason: "not a regular file (a pipe, socket or device)"))) {
            _ = try ImageDecoder.decode(file: path)
        }
        #expect(throws: CodecError.self) { _ = try ImageDecoder.info(file: path) }
        #expect(throws: CodecError.file(.isDirectory(path: dir))) { _ = try ImageDecoder.decodeGray(file: dir) }
        #expect(throws: CodecError.file(.notFound(path: dir + "/none.jpg"))) { _ = try ImageDecoder.info(file: dir + "/none.jpg") }
    }
}
