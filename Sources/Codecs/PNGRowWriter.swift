// A PNG written a band of rows at a time, for images whose whole canvas should never be in
// memory: a thumbnail overview sheet of 16 rows of tiles is 22 MB as RGBA, and the one-shot
// encoder needs it whole plus its filtered copy. Here each band is filtered, fed to one deflate
// stream and flushed to the file as IDAT chunks, so memory is one band, one row of history and
// zlib's window, whatever the image's height.
//
// The output is always 8-bit RGB (the caller promises opaque pixels): the one-shot encoder picks
// gray or RGB after seeing every pixel, which a streaming writer cannot. One stream, so the file
// is deflated on one core; the bands it is used for are small.

import CZlib
public import FileIO
public import Raster

public final class PNGRowWriter {
    public let width: Int
    public let height: Int
    public private(set) var rowsWritten = 0
    private let name: String
    private let level: Int32
    private let filter: UInt8
    private let file: AtomicStream
    private var z = z_stream()
    private var zOpen = false
    private var adler: UInt = 1
    /// The last unfiltered row (zeros before the first), for the up/Paeth filters.
    private var previous: [UInt8]
    /// Deflated bytes not yet written as an IDAT chunk.
    private var pending: [UInt8] = []
    private static let chunkSize = 64 * 1024

    /// Starts `path` (written atomically: nothing appears there before `finish`). Levels 0–1 use
    /// the "up" filter, as the one-shot encoder's fast preset does; higher levels use Paeth.
    public init(path: String, width: Int, height: Int, compressionLevel: Int) throws(CodecError) {
        guard width > 0, height > 0, width <= 0x7FFF_FFFF / 4, height <= 0x7FFF_FFFF else {
            throw .encodeFailed(name: path, format: .png, reason: "bad image size \(width)×\(height)")
        }
        guard (0...9).contains(compressionLevel) else {
            throw .encodeFailed(name: path, format: .png, reason: "compression level must be 0...9, got \(compressionLevel)")
        }
        self.width = width
        self.height = height
        name = path
        level = Int32(compressionLevel)
        filter = compressionLevel <= 1 ? 2 : 4
        previous = [UInt8](repeating: 0, count: width * 3)
        do { file = try AtomicStream(path: path) } catch { throw .file(error) }
        guard pb_deflate_init_raw(&z, level, 8, compressionLevel <= 1 ? Z_DEFAULT_STRATEGY : Z_FILTERED) == Z_OK else {
            throw .encodeFailed(name: path, format: .png, reason: "zlib: out of memory")
        }
        zOpen = true
        var head: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var ihdr: [UInt8] = []
        Self.appendBigEndian(UInt32(width), to: &ihdr)
        Self.appendBigEndian(UInt32(height), to: &ihdr)
        ihdr += [8, 2, 0, 0, 0]
        Self.appendChunk("IHDR", ihdr, to: &head)
        try write(head)
        // The zlib header of a deflate stream with a 32 KB window, FLEVEL from the level.
        let flevel: UInt16 = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3
        var cmfflg: UInt16 = 0x78 << 8 | flevel << 6
        if cmfflg % 31 != 0 { cmfflg += 31 - cmfflg % 31 }
        pending = [UInt8(cmfflg >> 8), UInt8(cmfflg & 0xFF)]
    }

    deinit {
        if zOpen { deflateEnd(&z) }
    }

    /// Appends the rows of `band` (as wide as the image) below those already written.
    public func append(_ band: Bitmap<RGBA8>) throws(CodecError) {
        guard band.width == width else {
            throw .encodeFailed(name: name, format: .png, reason: "band is \(band.width) px wide, the image \(width)")
        }
        guard rowsWritten + band.height <= height else {
            throw .encodeFailed(name: name, format: .png, reason: "\(rowsWritten + band.height) rows for an image of \(height)")
        }
        let n = width * 3
        var filtered = [UInt8](repeating: 0, count: (n + 1) * band.height)
        var current = [UInt8](repeating: 0, count: n)
        band.pixels.withUnsafeBufferPointer { px in
            filtered.withUnsafeMutableBufferPointer { out in
                current.withUnsafeMutableBufferPointer { cur in
                    previous.withUnsafeMutableBufferPointer { prev in
                        for y in 0..<band.height {
                            let row = y * width
                            for x in 0..<width {
                                let p = px[row + x]
                                cur[3 * x] = p.r
                                cur[3 * x + 1] = p.g
                                cur[3 * x + 2] = p.b
                            }
                            let dst = out.baseAddress! + y * (n + 1)
                            dst[0] = filter
                            PNGWriter.apply(filter, UnsafePointer(cur.baseAddress!), UnsafePointer(prev.baseAddress!), dst + 1, n, 3)
                            prev.baseAddress!.update(from: cur.baseAddress!, count: n)
                        }
                    }
                }
            }
        }
        try deflate(filtered, flush: Z_NO_FLUSH)
        rowsWritten += band.height
    }

    /// Ends the stream and puts the file in place; every row must have been appended.
    public func finish() throws(CodecError) {
        guard rowsWritten == height else {
            throw .encodeFailed(name: name, format: .png, reason: "only \(rowsWritten) of \(height) rows were drawn")
        }
        try deflate([], flush: Z_FINISH)
        deflateEnd(&z)
        zOpen = false
        let a = UInt32(truncatingIfNeeded: adler)
        pending += [UInt8(a >> 24), UInt8(a >> 16 & 0xFF), UInt8(a >> 8 & 0xFF), UInt8(a & 0xFF)]
        var tail: [UInt8] = []
        Self.appendChunk("IDAT", pending, to: &tail)
        pending = []
        Self.appendChunk("IEND", [], to: &tail)
        try write(tail)
        do { try file.commit() } catch { throw .file(error) }
    }

    private func deflate(_ input: [UInt8], flush: Int32) throws(CodecError) {
        var out = [UInt8](repeating: 0, count: 64 * 1024)
        var failed = false
        input.withUnsafeBufferPointer { inp in
            if let base = inp.baseAddress { adler = adler32_z(adler, base, inp.count) }
            z.next_in = UnsafeMutablePointer(mutating: inp.baseAddress)
            z.avail_in = UInt32(inp.count)
            while true {
                let status: Int32 = out.withUnsafeMutableBufferPointer { o in
                    z.next_out = o.baseAddress
                    z.avail_out = UInt32(o.count)
                    return CZlib.deflate(&z, flush)
                }
                if status == Z_STREAM_ERROR {
                    failed = true
                    return
                }
                pending += out[0..<(out.count - Int(z.avail_out))]
                if flush == Z_FINISH ? status == Z_STREAM_END : (z.avail_in == 0 && z.avail_out > 0) { break }
            }
            z.next_in = nil
        }
        if failed { throw .encodeFailed(name: name, format: .png, reason: "zlib: deflate failed") }
        // Full chunks go out now; the rest waits for more data (or for `finish`).
        var chunks: [UInt8] = []
        var start = 0
        while pending.count - start >= Self.chunkSize {
            Self.appendChunk("IDAT", Array(pending[start..<(start + Self.chunkSize)]), to: &chunks)
            start += Self.chunkSize
        }
        if start > 0 {
            pending.removeFirst(start)
            try write(chunks)
        }
    }

    private func write(_ bytes: [UInt8]) throws(CodecError) {
        do { try file.write(bytes) } catch { throw .file(error) }
    }

    private static func appendChunk(_ type: String, _ data: [UInt8], to out: inout [UInt8]) {
        let start = out.count
        appendBigEndian(UInt32(data.count), to: &out)
        out += Array(type.utf8)
        out += data
        let crc = out.withUnsafeBufferPointer { crc32_z(0, $0.baseAddress! + start + 4, 4 + data.count) }
        appendBigEndian(UInt32(truncatingIfNeeded: crc), to: &out)
    }

    private static func appendBigEndian(_ v: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
}
