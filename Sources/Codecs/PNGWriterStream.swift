// The same PNG as `PNGWriter.encode`, byte for byte, handed out in pieces as it is made, so that
// writing a file never holds the filtered image or the compressed file beside the pixels.
//
// `encode` filters the whole image, deflates every strip and copies the strips into one file
// buffer: for a 6000×4000 RGB image that is 72 MB filtered and up to as much again compressed
// (twice, strips and file) on top of the 96 MB decoded image, which is what put `convert` over
// the decode-memory bound of issue 18. Here the strips go in batches: the rows a batch needs (its
// strips and the 32 KB window before the first, its dictionary) are filtered, the batch's strips
// deflated concurrently as `encode` deflates them, and their bytes cut into IDAT chunks at the
// same offsets and passed on. Memory is one batch of filtered rows and its compressed strips.
import CZlib

extension PNGWriter {
    /// Filtered bytes a batch of strips covers, about: at least one strip per core, so the
    /// cores stay as busy as in `encode`.
    static let batchBytes = 8 << 20

    /// Hands the bytes `encode(source:sourceStride:name:)` returns to `sink`, in order, in pieces
    /// of at most one IDAT chunk.
    func write(
        source: UnsafeRawBufferPointer, sourceStride: Int, name: String,
        to sink: (UnsafeRawBufferPointer) throws(CodecError) -> Void
    ) throws(CodecError) {
        let total = try filteredLength(source, name: name)
        let source = source.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let filteredRow = rowBytes + 1
        let count = stripCount(total: total)
        let perBatch = tuning.batchStrips ?? max(Self.coreCount, Self.batchBytes / max(1, total / count))

        var head: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        var ihdr: [UInt8] = []
        Self.appendBigEndian(UInt32(width), to: &ihdr)
        Self.appendBigEndian(UInt32(height), to: &ihdr)
        ihdr += [8, colorType, 0, 0, 0]
        head += Self.chunk("IHDR", ihdr)
        try head.withUnsafeBufferPointer { (b) throws(CodecError) in try sink(UnsafeRawBufferPointer(b)) }

        var idat = IDATChunker(chunkSize: chunkSize)
        defer { idat.deallocate() }
        try idat.append(zlibHeader, to: sink)
        var adler: UInt = 1
        var first = 0
        while first < count {
            let end = min(count, first + perBatch)
            let start = total * first / count, stop = total * end / count
            // The first strip's dictionary is the window before it; later strips' windows lie in
            // the strips before them, inside the batch.
            let from = start - (first == 0 ? 0 : min(Self.window, start))
            let rows = (from / filteredRow)..<((stop + filteredRow - 1) / filteredRow)
            let filtered = UnsafeMutablePointer<UInt8>.allocate(capacity: rows.count * filteredRow)
            defer { filtered.deallocate() }
            filterRows(source: source, sourceStride: sourceStride, rows: rows, into: filtered)
            let strips = try deflate(
                strips: first..<end, of: count, total: total, base: filtered, offset: rows.lowerBound * filteredRow, name: name)
            defer { for s in strips { s.strip.data.deallocate() } }
            for (k, s) in strips.enumerated() {
                let i = first + k
                let length = total * (i + 1) / count - total * i / count
                adler = i == 0 ? s.adler : adler32_combine(adler, s.adler, .init(length))
                try idat.append(UnsafeRawBufferPointer(start: s.strip.data, count: s.strip.count), to: sink)
            }
            first = end
        }
        try idat.append(Self.zlibTrailer(adler: adler), to: sink)
        try idat.flush(to: sink)
        let end = Self.chunk("IEND", [])
        try end.withUnsafeBufferPointer { (b) throws(CodecError) in try sink(UnsafeRawBufferPointer(b)) }
    }

    /// A whole chunk: length, type, data, CRC.
    static func chunk(_ type: StaticString, _ data: [UInt8]) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: data.count + 12) { out, initialized in
            writeChunk(type, at: out.baseAddress!) { p in
                p.update(from: data, count: data.count)
                return data.count
            }
            initialized = data.count + 12
        }
    }
}

/// Cuts a zlib stream into IDAT chunks of `chunkSize` bytes (the last one shorter), the cuts at
/// the same offsets as `PNGWriter.assemble` makes them.
private struct IDATChunker {
    let chunkSize: Int
    /// Length and type, up to `chunkSize` bytes of data, room for the CRC.
    private let buffer: UnsafeMutablePointer<UInt8>
    private var filled = 0

    init(chunkSize: Int) {
        self.chunkSize = chunkSize
        buffer = .allocate(capacity: chunkSize + 12)
    }

    func deallocate() { buffer.deallocate() }

    mutating func append(_ bytes: [UInt8], to sink: (UnsafeRawBufferPointer) throws(CodecError) -> Void) throws(CodecError) {
        try bytes.withUnsafeBufferPointer { (b) throws(CodecError) in try append(UnsafeRawBufferPointer(b), to: sink) }
    }

    mutating func append(_ bytes: UnsafeRawBufferPointer, to sink: (UnsafeRawBufferPointer) throws(CodecError) -> Void)
        throws(CodecError)
    {
        guard var p = bytes.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return }
        var left = bytes.count
        while left > 0 {
            let n = min(left, chunkSize - filled)
            (buffer + 8 + filled).update(from: p, count: n)
            filled += n
            p += n
            left -= n
            if filled == chunkSize { try flush(to: sink) }
        }
    }

    /// Passes on the chunk being filled, if it holds anything.
    mutating func flush(to sink: (UnsafeRawBufferPointer) throws(CodecError) -> Void) throws(CodecError) {
        guard filled > 0 else { return }
        let length = filled
        PNGWriter.writeChunk("IDAT", at: buffer) { _ in length }
        filled = 0
        try sink(UnsafeRawBufferPointer(start: buffer, count: length + 12))
    }
}
