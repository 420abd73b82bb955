// The streaming PNG writer: bands appended one after another decode to the same pixels as the
// whole image, at the fast and the filtered levels, and nothing appears at the path before the
// last row (or at all, when the writer is dropped half-way).

import Codecs
import Foundation
import Raster
import Testing

@Suite struct PNGRowWriterTests {
    static func picture(width: Int, height: Int) -> Bitmap<RGBA8> {
        var b = Bitmap(width: width, height: height, fill: RGBA8(r: 0, g: 0, b: 0))
        for y in 0..<height {
            for x in 0..<width {
                b[x, y] = RGBA8(r: UInt8((x * 7 + y) & 255), g: UInt8((x ^ y) & 255), b: UInt8((y * 13) & 255))
            }
        }
        return b
    }

    static func band(_ b: Bitmap<RGBA8>, rows: Range<Int>) -> Bitmap<RGBA8> {
        Bitmap(width: b.width, height: rows.count, pixels: Array(b.pixels[(rows.lowerBound * b.width)..<(rows.upperBound * b.width)]))
    }

    static func folder() -> String {
        let dir = NSTemporaryDirectory() + "pb-rowwriter-" + UUID().uuidString
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }

    @Test("Bands of uneven heights decode to the whole picture", arguments: [1, 6])
    func bandsDecodeToTheWholePicture(level: Int) throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        // Tall enough that the stream spans several 64 KB IDAT chunks.
        let whole = Self.picture(width: 301, height: 257)
        let path = dir + "/sheet.png"
        let writer = try PNGRowWriter(path: path, width: whole.width, height: whole.height, compressionLevel: level)
        var y = 0
        for h in [1, 40, 100, 16, 100] {
            try writer.append(Self.band(whole, rows: y..<(y + h)))
            y += h
            #expect(!FileManager.default.fileExists(atPath: path), "nothing at the path before the last row")
        }
        try writer.finish()
        let decoded = try ImageDecoder.decode(file: path)
        #expect(decoded.width == whole.width && decoded.height == whole.height)
        #expect(decoded.pixels == whole.pixels)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: dir).filter { $0.contains(".tmp-") }
        #expect(leftovers.isEmpty)
    }

    @Test("Too many rows, a wrong width or too few rows are errors naming the file; a dropped writer leaves nothing")
    func misuseIsAnError() throws {
        let dir = Self.folder()
        defer { try? FileManager.default.removeItem(atPath: dir) }
        let path = dir + "/sheet.png"
        let whole = Self.picture(width: 20, height: 10)
        do {
            let writer = try PNGRowWriter(path: path, width: 20, height: 10, compressionLevel: 1)
            #expect(throws: CodecError.self) { try writer.append(Self.picture(width: 21, height: 2)) }
            try writer.append(Self.band(whole, rows: 0..<8))
            #expect(throws: CodecError.self) { try writer.append(Self.band(whole, rows: 0..<3)) }
            do {
                try writer.finish()
                Issue.record("finish with 8 of 10 rows should fail")
            } catch {
                #expect("\(error)".contains(path))
            }
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(try FileManager.default.contentsOfDirectory(atPath: dir).isEmpty, "the temporary file goes with the writer")
    }
}
