import Codecs
import Glibc
import Raster
import Testing
import TestSupport

/// Every file of the corpus, by name: the PNG matrix and the JPEG variants.
enum Corpus {
    struct File: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var format: ImageFormat
        /// Holds ancillary chunks whose damage libpng skips when not strict.
        var hasAncillary: Bool
        var testDescription: String { name }
    }

    static let png: [File] = PNGCase.all.map { c in
        File(name: c.testDescription.replacingOccurrences(" ", "_") + ".png", bytes: c.build().bytes, format: .png, hasAncillary: c.trns)
    }

    static let jpeg: [File] = {
        let picture = Pictures.photo(width: 40, height: 24)
        func make(_ name: String, _ body: () throws -> [UInt8]) -> File {
            let bytes = (try? body()) ?? []
            if bytes.isEmpty { Issue.record("cannot build \(name)") }
            return File(name: name, bytes: bytes, format: .jpeg, hasAncillary: false)
        }
        return [
            make("baseline420.jpg") { try JPEGEncoder.encode(picture, options: .init(quality: 85)) },
            make("baseline444.jpg") { try JPEGEncoder.encode(picture, options: .init(quality: 85, chroma: .full444)) },
            make("progressive.jpg") { try JPEGEncoder.encode(picture, options: .init(quality: 85, progressive: true)) },
            make("optimized.jpg") { try JPEGEncoder.encode(picture, options: .init(quality: 85, optimizeCoding: true)) },
            make("gray.jpg") { try JPEGEncoder.encode(picture.map(\.luma), options: .init(quality: 85)) },
            make("gray-progressive.jpg") { try JPEGEncoder.encode(picture.map(\.luma), options: .init(progressive: true)) },
            make("cmyk.jpg") {
                try JPEGEncoder.encodeCMYK(JPEGDecodeTests.adobeCMYK(picture), width: 40, height: 24, ycck: false)
            },
            make("ycck.jpg") {
                try JPEGEncoder.encodeCMYK(JPEGDecodeTests.adobeCMYK(picture), width: 40, height: 24, ycck: true)
            },
            make("exif6.jpg") {
                JPEGBytes.insertingAPP1(
                    JPEGBytes.exifPayload(orientation: 6, bigEndian: true), into: try JPEGEncoder.encode(picture))
            },
        ]
    }()

    static let all = png + jpeg
}

extension String {
    func replacingOccurrences(_ a: Character, _ b: Character) -> String { String(map { $0 == a ? b : $0 }) }
}

@Suite struct RobustnessTests {
    static func truncationPoints(_ n: Int) -> [Int] {
        let points = [0, 1, 2, 3, 4, 7, 8, 12, 16, 24, 33, 41, 60, n / 4, n / 3, n / 2, 2 * n / 3, 3 * n / 4, n - 20, n - 13, n - 12, n - 5, n - 2, n - 1]
        return Array(Set(points.filter { $0 >= 0 && $0 < n })).sorted()
    }

    @Test(arguments: Corpus.all)
    func truncatedFilesGiveTypedErrors(_ file: Corpus.File) throws {
        let signatureLength = file.format == .png ? 8 : 3
        for cut in Self.truncationPoints(file.bytes.count) {
            let bytes = Array(file.bytes.prefix(cut))
            for gray in [false, true] {
                do {
                    if gray {
                        _ = try ImageDecoder.decodeGray(bytes, name: file.name)
                    } else {
                        _ = try ImageDecoder.decode(bytes, name: file.name)
                    }
                    Issue.record("\(file.name) cut at \(cut) of \(file.bytes.count) decoded without error")
                } catch {
                    #expect(error.name == file.name)
                    #expect(error.description.hasPrefix("\(file.name): "))
                    if cut < signatureLength {
                        guard case .unknownFormat = error else {
                            Issue.record("cut at \(cut): expected unknownFormat, got \(error)")
                            continue
                        }
                    } else {
                        guard case .truncated(_, let format, _) = error, format == file.format else {
                            Issue.record("cut at \(cut): expected truncated \(file.format), got \(error)")
                            continue
                        }
                    }
                }
            }
        }
    }

    @Test(arguments: Corpus.png)
    func everyFlippedPNGByteIsCaught(_ file: Corpus.File) throws {
        // CRCs cover every chunk, so each single-byte change is detected: always when strict,
        // and also by default unless it lands in an ancillary chunk (tRNS) libpng may skip.
        for i in 0..<file.bytes.count {
            var bytes = file.bytes
            bytes[i] ^= 0x5A
            #expect(throws: CodecError.self, "\(file.name) byte \(i) strict") {
                _ = try ImageDecoder.decode(bytes, name: file.name, options: DecodeOptions(strict: true))
            }
            do {
                let b = try ImageDecoder.decode(bytes, name: file.name)
                if !file.hasAncillary { Issue.record("\(file.name): flipped byte \(i) went unnoticed") }
                #expect(b.pixelCount > 0)
            } catch {
                #expect(error.name == file.name)
            }
        }
    }

    @Test(arguments: Corpus.jpeg)
    func flippedJPEGBytesNeverCrash(_ file: Corpus.File) throws {
        var rng = SplitMix64(seed: UInt64(file.bytes.count))
        let info = try ImageDecoder.info(file.bytes, name: file.name)
        let scan = try #require(JPEGBytes.scanDataOffset(file.bytes))
        // Every header byte, then random single and multiple hits in the entropy data.
        var mutations: [[Int]] = (2..<scan).map { [$0] }
        for _ in 0..<150 { mutations.append([Int.random(in: scan..<file.bytes.count, using: &rng)]) }
        for _ in 0..<50 { mutations.append((0..<5).map { _ in Int.random(in: 2..<file.bytes.count, using: &rng) }) }
        var decoded = 0
        for positions in mutations {
            var bytes = file.bytes
            for p in positions { bytes[p] ^= UInt8.random(in: 1...255, using: &rng) }
            for strict in [false, true] {
                do {
                    let b = try ImageDecoder.decode(bytes, name: file.name, options: DecodeOptions(strict: strict))
                    // Header damage can change the size; anything returned must be a whole image.
                    #expect(b.pixels.count == b.width * b.height && b.pixelCount > 0)
                    decoded += 1
                } catch {
                    #expect(error.name == file.name)
                }
            }
        }
        _ = info
        #expect(decoded > 0, "libjpeg conceals most entropy damage; some decodes must succeed")
    }

    @Test func hugeScanCountsAreRefused() throws {
        // A progressive file whose first scan (the DC scan) is repeated 600 times. Each repeat
        // decodes cleanly (libjpeg only warns about the odd progression), so without a limit
        // it would run them all.
        let jpeg = try JPEGEncoder.encode(Pictures.photo(width: 16, height: 16), options: .init(progressive: true))
        var sos = 2
        while !(jpeg[sos] == 0xFF && jpeg[sos + 1] == 0xDA) { sos += 2 + (Int(jpeg[sos + 2]) << 8 | Int(jpeg[sos + 3])) }
        var end = sos + 2 + (Int(jpeg[sos + 2]) << 8 | Int(jpeg[sos + 3]))
        while !(jpeg[end] == 0xFF && jpeg[end + 1] != 0 && !(0xD0...0xD7).contains(jpeg[end + 1])) { end += 1 }
        let scan = Array(jpeg[sos..<end])
        let bomb = Array(jpeg[..<end]) + Array(repeating: scan, count: 600).flatMap { $0 } + Array(jpeg[end...])
        // The scan limit's own error shows the decoder stopped counting rather than running them
        // all (how long that takes is a benchmark's business, not a test's: see HostileInputMemoryTests).
        #expect {
            _ = try ImageDecoder.decode(bomb, name: "bomb.jpg")
        } throws: { e in
            guard case .corrupt(_, _, let reason) = e as? CodecError else { return false }
            return reason.contains("scans")
        }
    }

    // MARK: Limits

    @Test func oversizedPNGHeaderIsRefusedBeforeAllocation() throws {
        let png = PNGBytes.claiming(width: 30000, height: 30000)
        #expect(try ImageDecoder.info(png, name: "huge.png").width == 30000)
        // 30000² RGBA would be 3.6 GB; that nothing of it is allocated is measured on the built
        // CLI's peak memory (HostileInputMemoryTests), never by timing on a shared machine.
        for gray in [false, true] {
            #expect(throws: CodecError.tooLarge(name: "huge.png", width: 30000, height: 30000, limits: .default)) {
                if gray { _ = try ImageDecoder.decodeGray(png, name: "huge.png") } else { _ = try ImageDecoder.decode(png, name: "huge.png") }
            }
        }
        // Per-side and total limits each apply.
        #expect(throws: CodecError.self) { _ = try ImageDecoder.decode(PNGBytes.claiming(width: 20001, height: 1), name: "w.png") }
        #expect(throws: CodecError.self) { _ = try ImageDecoder.decode(PNGBytes.claiming(width: 15000, height: 15000), name: "p.png") }
        // Inside the limits the same token file is simply truncated image data.
        #expect {
            _ = try ImageDecoder.decode(PNGBytes.claiming(width: 4000, height: 4000), name: "t.png")
        } throws: { e in
            if case .tooLarge = e as? CodecError { return false }
            return true
        }
    }

    @Test func oversizedJPEGHeaderIsRefusedBeforeAllocation() throws {
        let small = try JPEGEncoder.encode(Pictures.photo(width: 16, height: 16), options: .init())
        let huge = JPEGBytes.settingFrameSize(width: 30000, height: 30000, in: small)
        #expect(try ImageDecoder.info(huge, name: "huge.jpg").width == 30000)
        #expect(throws: CodecError.tooLarge(name: "huge.jpg", width: 30000, height: 30000, limits: .default)) {
            _ = try ImageDecoder.decode(huge, name: "huge.jpg")
        }
        #expect(throws: CodecError.tooLarge(name: "huge.jpg", width: 30000, height: 30000, limits: .default)) {
            _ = try ImageDecoder.decodeGray(huge, name: "huge.jpg")
        }
        // A reduced read is held to the declared size too: 1/8 of it (3750²) would fit, but the
        // file is not a scan any full decode would take (issue 18: it used to cost 290 MB and
        // be called truncated).
        for scale in [JPEGScale.half, .quarter, .eighth] {
            #expect(throws: CodecError.tooLarge(name: "huge.jpg", width: 30000, height: 30000, limits: .default)) {
                _ = try ImageDecoder.decode(huge, name: "huge.jpg", options: DecodeOptions(jpegScale: scale))
            }
        }
    }

    @Test func progressiveCoefficientMemoryIsCapped() throws {
        // 60000² progressive at 1/8 is a 7500² output, but libjpeg would hold every coefficient
        // of the full frame (gigabytes) before producing a row.
        let small = try JPEGEncoder.encode(Pictures.photo(width: 16, height: 16), options: .init(progressive: true))
        let huge = JPEGBytes.settingFrameSize(width: 60000, height: 60000, in: small)
        #expect(throws: CodecError.tooLarge(name: "p.jpg", width: 60000, height: 60000, limits: .default)) {
            _ = try ImageDecoder.decode(huge, name: "p.jpg", options: DecodeOptions(jpegScale: .eighth))
        }
    }

    @Test func limitsAreConfigurable() throws {
        let jpeg = try JPEGEncoder.encode(Pictures.corners(), options: .init())  // 48×32
        let png = try PNGEncoder.encode(Pictures.corners())
        for (bytes, name) in [(jpeg, "c.jpg"), (png, "c.png")] {
            let side = DecodeLimits(maxDimension: 40)
            #expect(throws: CodecError.tooLarge(name: name, width: 48, height: 32, limits: side)) {
                _ = try ImageDecoder.decode(bytes, name: name, options: DecodeOptions(limits: side))
            }
            let area = DecodeLimits(maxPixels: 1000)
            #expect(throws: CodecError.tooLarge(name: name, width: 48, height: 32, limits: area)) {
                _ = try ImageDecoder.decodeGray(bytes, name: name, options: DecodeOptions(limits: area))
            }
        }
        // For JPEG the limit applies to the image the file declares, even when read at 1/2 (24×16
        // would fit); inside the limits the reduced read works.
        let tight = DecodeLimits(maxDimension: 40, maxPixels: 1000)
        #expect(throws: CodecError.tooLarge(name: "c.jpg", width: 48, height: 32, limits: tight)) {
            _ = try ImageDecoder.decode(jpeg, name: "c.jpg", options: DecodeOptions(limits: tight, jpegScale: .half))
        }
        let half = try ImageDecoder.decode(jpeg, name: "c.jpg", options: DecodeOptions(limits: DecodeLimits(maxDimension: 48, maxPixels: 1536), jpegScale: .half))
        #expect(half.width == 24 && half.height == 16)
        let message = CodecError.tooLarge(name: "x.png", width: 30000, height: 30000, limits: .default).description
        #expect(message == "x.png: image is 30000×30000, larger than the limit of 20000 pixels per side and 200000000 pixels in all")
    }

    // MARK: Sniffing and messages

    @Test func formatComesFromContentNotName() throws {
        let png = try PNGEncoder.encode(Pictures.corners())
        let jpeg = try JPEGEncoder.encode(Pictures.corners())
        #expect(try ImageDecoder.info(png, name: "page.jpg").format == .png)
        #expect(try ImageDecoder.decode(png, name: "page.jpg") == Pictures.corners())
        #expect(try ImageDecoder.info(jpeg, name: "page.png").format == .jpeg)
        #expect(ImageFormat.sniff(png) == .png && ImageFormat.sniff(jpeg) == .jpeg)
        #expect(ImageFormat.sniff(png.prefix(7)) == nil && ImageFormat.sniff([UInt8]()) == nil)
        #expect(ImageFormat.sniff([0xFF, 0xD8, 0xFF]) == .jpeg)
    }

    @Test func unknownAndUnsupportedFormatsNameTheFile() throws {
        #expect(throws: CodecError.unknownFormat(name: "notes.txt", signature: Array("hello wo".utf8))) {
            _ = try ImageDecoder.decode(Array("hello world".utf8), name: "notes.txt")
        }
        let unknown = CodecError.unknownFormat(name: "notes.txt", signature: Array("hello".utf8))
        #expect(unknown.description == "notes.txt: not a PNG, JPEG, TIFF or JPEG 2000 image (starts with 68 65 6c 6c 6f)")
        #expect(CodecError.unknownFormat(name: "e.png", signature: []).description == "e.png: empty file, not a PNG, JPEG, TIFF or JPEG 2000 image")
        #expect(throws: CodecError.unknownFormat(name: "e.png", signature: [])) { _ = try ImageDecoder.info([], name: "e.png") }
        let gif = Array("GIF89a".utf8) + [1, 0, 1, 0, 0, 0, 0]
        #expect {
            _ = try ImageDecoder.decodeGray(gif, name: "anim.gif")
        } throws: { e in
            (e as? CodecError)?.description == "anim.gif: unsupported image: GIF (Picturebook reads PNG, JPEG, TIFF and JPEG 2000)"
        }
        let tiff: [UInt8] = [0x49, 0x49, 0x2A, 0x00, 8, 0, 0, 0]
        #expect { _ = try ImageDecoder.info(tiff, name: "scan.tif") } throws: { e in
            (e as? CodecError)?.description.contains("TIFF") == true
        }
    }

    @Test func truncationMessagesReadWell() throws {
        let jpeg = try JPEGEncoder.encode(Pictures.photo(width: 64, height: 64), options: .init())
        #expect {
            _ = try ImageDecoder.decode(Array(jpeg.prefix(jpeg.count / 2)), name: "page3.jpg")
        } throws: { e in
            (e as? CodecError)?.description == "page3.jpg: truncated JPEG: Premature end of JPEG file"
        }
        let png = try PNGEncoder.encode(Pictures.photo(width: 64, height: 64))
        #expect {
            _ = try ImageDecoder.decode(Array(png.prefix(png.count / 2)), name: "page4.png")
        } throws: { e in
            (e as? CodecError)?.description == "page4.png: truncated PNG: file ends before the image does"
        }
        var crc = png
        crc[png.count / 2] ^= 1
        #expect {
            _ = try ImageDecoder.decode(crc, name: "page5.png")
        } throws: { e in
            (e as? CodecError)?.description.hasPrefix("page5.png: corrupt PNG: IDAT: ") == true
        }
    }

    // MARK: Silence

    @Test func librariesPrintNothing() throws {
        let jpeg = try JPEGEncoder.encode(Pictures.photo(width: 64, height: 64), options: .init())
        let scan = try #require(JPEGBytes.scanDataOffset(jpeg))
        // Stray bytes between the entropy data and EOI: libjpeg warns and carries on.
        let damaged = Array(jpeg[..<(jpeg.count - 2)]) + Array(repeating: 0x55, count: 32) + [0xFF, 0xD9]
        _ = scan
        var badHeader = jpeg
        let sof = try #require(JPEGBytes.markerOffset(0xC0, in: jpeg))
        badHeader[sof + 9] = 2  // component count that does not match the segment length
        let png = try PNGEncoder.encode(Pictures.photo(width: 64, height: 64))
        var badAncillary = PNGBytes.inserting(PNGBytes.chunk("tEXt", Array("Title\0x".utf8)), into: png)
        badAncillary[8 + 25 + 8 + 2] ^= 0x20  // damage the text, keep the CRC: a warning, skipped
        var badIDAT = png
        badIDAT[png.count / 2] ^= 1

        // The capture itself works: what goes to fd 2 is seen.
        let probe = capturingStandardError { _ = write(2, "probe\n", 6) }
        #expect(probe.split(separator: "\n").contains("probe"))

        var outcomes: [String] = []
        let printed = capturingStandardError {
            func attempt(_ name: String, _ bytes: [UInt8], strict: Bool = false) {
                do {
                    _ = try ImageDecoder.decode(bytes, name: name, options: DecodeOptions(strict: strict))
                    _ = try ImageDecoder.decodeGray(bytes, name: name, options: DecodeOptions(strict: strict))
                    outcomes.append("\(name): ok")
                } catch {
                    outcomes.append(error.description)
                }
            }
            attempt("damaged.jpg", damaged)
            attempt("damaged-strict.jpg", damaged, strict: true)
            attempt("truncated.jpg", Array(jpeg.prefix(jpeg.count - 100)))
            attempt("header.jpg", badHeader)
            attempt("ancillary.png", badAncillary)
            attempt("ancillary-strict.png", badAncillary, strict: true)
            attempt("idat.png", badIDAT)
            attempt("truncated.png", Array(png.prefix(100)))
        }
        // Swift Testing reports on fd 2 too, and other tests run meanwhile: their event lines are
        // not the libraries' and are set aside.
        let foreign = printed.split(separator: "\n").filter { !isTestRunnerLine($0) }
        #expect(foreign.isEmpty, "libraries wrote to stderr: \(foreign)")
        // Each case really went down the path it is meant to exercise.
        #expect(outcomes[0] == "damaged.jpg: ok")
        #expect(outcomes[1].hasPrefix("damaged-strict.jpg: corrupt JPEG: Corrupt JPEG data: "))
        #expect(outcomes[1].hasSuffix("extraneous bytes before marker 0xd9"))
        #expect(outcomes[2].hasPrefix("truncated.jpg: truncated JPEG"))
        #expect(outcomes[3] == "header.jpg: corrupt JPEG: Bogus marker length")
        #expect(outcomes[4] == "ancillary.png: ok")
        #expect(outcomes[5].hasPrefix("ancillary-strict.png: corrupt PNG: tEXt: CRC error"))
        #expect(outcomes[6].hasPrefix("idat.png: corrupt PNG"))
        #expect(outcomes[7].hasPrefix("truncated.png: truncated PNG"))
    }

    // MARK: Files

    @Test func fileConveniencesRoundTripAndNameThePath() throws {
        var template = Array("/tmp/codecs-test-XXXXXX".utf8CString)
        let dir = template.withUnsafeMutableBufferPointer { String(cString: mkdtemp($0.baseAddress!)!) }
        defer {
            for f in ["a.png", "b.jpg", "g.png"] { unlink("\(dir)/\(f)") }
            rmdir(dir)
        }
        let picture = Pictures.corners()
        try PNGEncoder.write(picture, to: "\(dir)/a.png")
        try JPEGEncoder.write(picture, to: "\(dir)/b.jpg", options: .init(quality: 95))
        try PNGEncoder.write(picture.map(\.luma), to: "\(dir)/g.png")
        #expect(try ImageDecoder.decode(file: "\(dir)/a.png") == picture)
        #expect(try ImageDecoder.info(file: "\(dir)/b.jpg").format == .jpeg)
        #expect(Pictures.meanAbsoluteError(try ImageDecoder.decode(file: "\(dir)/b.jpg"), picture) < 3)
        #expect(try ImageDecoder.decodeGray(file: "\(dir)/g.png") == picture.map(\.luma))
        #expect(throws: CodecError.file(.notFound(path: "\(dir)/missing.png"))) {
            _ = try ImageDecoder.decode(file: "\(dir)/missing.png")
        }
        #expect {
            _ = try PNGEncoder.write(picture, to: "\(dir)/no/such/dir/x.png")
        } throws: { e in
            guard case .file(let f) = e as? CodecError, case .writeFailed(let path, _) = f else { return false }
            return path == "\(dir)/no/such/dir/x.png"
        }
    }
}

/// An event line of the Swift Testing console reporter ("◇ Test x started.", "✔ …", "✘ …", "↳ …").
func isTestRunnerLine(_ line: Substring) -> Bool {
    guard let first = line.first else { return true }
    return ["◇", "✔", "✘", "↳", "⚠", "􀟈", "􀢄", "􀄵", "􀇿", "􁁛"].contains(first)
}
