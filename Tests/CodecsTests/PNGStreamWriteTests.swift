// Writing a PNG to a file a batch of strips at a time (PNGWriter.write, used by PNGEncoder.write
// and so by `convert`) must give the very bytes of the one-shot encoder, wherever the batch,
// strip and chunk boundaries fall, and must never leave a partial file.
@testable import Codecs
import FileIO
import Foundation
import Raster
import Testing
import TestSupport

@Suite struct PNGStreamWriteTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var width: Int
        var height: Int
        var strips: Int?
        var batch: Int?
        var chunkSize: Int
        var testDescription: String {
            "\(width)×\(height), \(strips.map { "\($0) strips" } ?? "automatic strips"), \(batch.map { "\($0) a batch" } ?? "automatic batches"), \(chunkSize)-byte IDATs"
        }
    }

    /// Batches of one strip (every strip's dictionary from the batch's own rows), batches that
    /// split the strips unevenly, more strips than bytes, chunks smaller than a strip and larger
    /// than the file, and the automatic choices on an image of several megabytes.
    static let cases: [Case] = [
        Case(width: 1, height: 1, strips: 4, batch: 1, chunkSize: 1),
        Case(width: 1, height: 57, strips: 5, batch: 2, chunkSize: 3),
        Case(width: 113, height: 1, strips: 6, batch: 4, chunkSize: 17),
        Case(width: 333, height: 17, strips: 7, batch: 3, chunkSize: 1000),
        Case(width: 250, height: 190, strips: 11, batch: 1, chunkSize: 8192),
        Case(width: 250, height: 190, strips: 11, batch: 5, chunkSize: 256 * 1024),
        Case(width: 250, height: 190, strips: 3, batch: 9, chunkSize: 500),
        Case(width: 1600, height: 1200, strips: nil, batch: nil, chunkSize: 256 * 1024),
        Case(width: 1600, height: 1200, strips: nil, batch: 1, chunkSize: 65_536),
    ]

    @Test(arguments: cases)
    func theFileHoldsTheOneShotEncodersBytes(_ c: Case) throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let tuning = PNGWriterTuning(strips: c.strips, chunkSize: c.chunkSize, batchStrips: c.batch)
        for (opaque, gray) in [(false, false), (true, false), (true, true), (false, true)] {
            let picture = PNGWriterTests.picture(width: c.width, height: c.height, seed: 21, opaque: opaque, gray: gray)
            for options in [PNGEncodeOptions.fast, .default, PNGEncodeOptions(compressionLevel: 0, filter: .paeth), .smallest] {
                let path = dir + "/p.png"
                try PNGEncoder.write(picture, to: path, options: options, tuning: tuning)
                let written = try FileIO.read(path)
                #expect(written == (try PNGEncoder.encode(picture, options: options, name: "p.png", tuning: tuning)))
                #expect(try ImageDecoder.decode(written, name: "p.png", options: PNGWriterTests.strict) == picture)
            }
        }
        let gray = PNGWriterTests.picture(width: c.width, height: c.height, seed: 22, opaque: true, gray: false).map(\.luma)
        try PNGEncoder.write(gray, to: dir + "/g.png", options: .default, tuning: tuning)
        #expect(try FileIO.read(dir + "/g.png") == (try PNGEncoder.encode(gray, options: .default, name: "g.png", tuning: tuning)))
        #expect(try Self.leftovers(dir).sorted() == ["g.png", "p.png"])
    }

    /// Interlaced files still go through libpng whole; the file is what `encode` makes.
    @Test func interlacedFilesAreWrittenWhole() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let picture = PNGWriterTests.picture(width: 97, height: 41, seed: 23, opaque: false, gray: false)
        let options = PNGEncodeOptions(interlaced: true)
        try PNGEncoder.write(picture, to: dir + "/i.png", options: options)
        #expect(try FileIO.read(dir + "/i.png") == (try PNGEncoder.encode(picture, options: options, name: "i.png")))
        #expect(try ImageDecoder.decode(file: dir + "/i.png") == picture)
    }

    /// An empty image fails before a byte is written, and a write that cannot finish leaves
    /// neither the file nor its temporary file; a file already there is untouched.
    @Test func aFailedWriteLeavesNothingBehind() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/keep.png"
        try AtomicFile.write(Array("not yet replaced".utf8), to: path)
        #expect(throws: CodecError.self) {
            try PNGEncoder.write(Bitmap<RGBA8>(width: 0, height: 0, fill: .white), to: path)
        }
        #expect(try FileIO.read(path) == Array("not yet replaced".utf8))
        #expect(try Self.leftovers(dir) == ["keep.png"])
        // A directory where the file should go.
        try FileManager.default.createDirectory(atPath: dir + "/taken.png", withIntermediateDirectories: false)
        #expect(throws: CodecError.self) {
            try PNGEncoder.write(PNGWriterTests.picture(width: 30, height: 20, seed: 1, opaque: true, gray: false), to: dir + "/taken.png")
        }
        #expect(try Self.leftovers(dir).sorted() == ["keep.png", "taken.png"])
    }

    /// JPEG files are written from the encoder's own buffer: the same bytes as `encode`.
    @Test func jpegFilesHoldTheEncodersBytes() throws {
        let dir = try Self.directory()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let picture = Pictures.photo(width: 300, height: 200)
        for options in [JPEGEncodeOptions(), JPEGEncodeOptions(quality: 95, progressive: true)] {
            try JPEGEncoder.write(picture, to: dir + "/c.jpg", options: options)
            #expect(try FileIO.read(dir + "/c.jpg") == (try JPEGEncoder.encode(picture, options: options, name: "c.jpg")))
            try JPEGEncoder.write(picture.map(\.luma), to: dir + "/g.jpg", options: options)
            #expect(try FileIO.read(dir + "/g.jpg") == (try JPEGEncoder.encode(picture.map(\.luma), options: options, name: "g.jpg")))
        }
        #expect(try Self.leftovers(dir).sorted() == ["c.jpg", "g.jpg"])
    }

    static func directory() throws -> String {
        var template = Array((NSTemporaryDirectory() + "/png-stream-XXXXXX").utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CodecError.file(.writeFailed(path: NSTemporaryDirectory(), reason: "mkdtemp failed"))
        }
        return String(cString: made)
    }

    static func leftovers(_ dir: String) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: dir)
    }
}
