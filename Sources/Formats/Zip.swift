// A small zip writer for the two packaging formats (CBZ, EPUB). Both need only what every zip
// reader understands: entries stored or deflated, UTF-8 names, no zip64, no encryption. EPUB adds
// one rule of its own — `mimetype` first and stored — which the caller gets by adding it first
// with `.store`. Deflate comes from zlib (CZlib), the CRC-32 too.

internal import CZlib

/// Builds a zip archive in memory, entry by entry.
public struct ZipWriter: Sendable {
    public enum Method: Sendable {
        /// Kept as is: already-compressed images, and EPUB's `mimetype`.
        case store
        /// Deflated, or stored when deflate would not make it smaller.
        case deflate
    }

    /// A date and time as zip stores it (MS-DOS format: local time, two-second steps, 1980–2107).
    public struct Timestamp: Sendable {
        public var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int
        public init(year: Int, month: Int, day: Int, hour: Int = 0, minute: Int = 0, second: Int = 0) {
            self.year = year
            self.month = month
            self.day = day
            self.hour = hour
            self.minute = minute
            self.second = second
        }

        var dosDate: UInt16 {
            UInt16(clamping: (min(max(year, 1980), 2107) - 1980) << 9 | min(max(month, 1), 12) << 5 | min(max(day, 1), 31))
        }
        var dosTime: UInt16 {
            UInt16(clamping: min(max(hour, 0), 23) << 11 | min(max(minute, 0), 59) << 5 | min(max(second, 0), 59) / 2)
        }
    }

    private struct Central {
        var name: [UInt8]
        var crc: UInt32
        var method: UInt16
        var compressed: Int
        var size: Int
        var offset: Int
    }

    private var bytes: [UInt8] = []
    private var entries: [Central] = []
    private var names: Set<String> = []
    private let timestamp: Timestamp

    public init(timestamp: Timestamp = Timestamp(year: 1980, month: 1, day: 1)) {
        self.timestamp = timestamp
    }

    /// Appends one file. `name` uses '/' between folders. A repeated name is a programmer error
    /// (every caller builds its names from page numbers), so it is refused loudly.
    public mutating func add(_ name: String, _ data: [UInt8], method: Method = .deflate) throws(FormatError) {
        precondition(!names.contains(name), "zip entry \(name) added twice")
        names.insert(name)
        guard entries.count < 0xFFFF else { throw .archiveTooLarge(reason: "more than 65 534 files") }
        guard data.count < 0xFFFF_FFFF else { throw .archiveTooLarge(reason: "\(name) is over 4 GiB") }
        let crc = data.withUnsafeBufferPointer { b -> UInt32 in
            UInt32(crc32(0, b.baseAddress, uInt(b.count)))
        }
        var stored = data
        var methodCode: UInt16 = 0
        if method == .deflate, !data.isEmpty {
            let packed = try Self.deflate(data, name: name)
            if packed.count < data.count {
                stored = packed
                methodCode = 8
            }
        }
        let offset = bytes.count
        guard offset + stored.count + 30 + name.utf8.count < 0xFFFF_FFFF else {
            throw .archiveTooLarge(reason: "the archive would pass 4 GiB")
        }
        let nameBytes = Array(name.utf8)
        put32(0x0403_4b50)
        put16(20)  // version needed: 2.0 (deflate)
        put16(0x0800)  // general purpose: names are UTF-8
        put16(methodCode)
        put16(timestamp.dosTime)
        put16(timestamp.dosDate)
        put32(crc)
        put32(UInt32(stored.count))
        put32(UInt32(data.count))
        put16(UInt16(nameBytes.count))
        put16(0)  // no extra field: EPUB readers want `mimetype` at byte 38 exactly
        bytes += nameBytes
        bytes += stored
        entries.append(Central(name: nameBytes, crc: crc, method: methodCode, compressed: stored.count, size: data.count, offset: offset))
    }

    /// The finished archive: the entries, then the central directory and its end record.
    public mutating func finish() -> [UInt8] {
        let start = bytes.count
        for e in entries {
            put32(0x0201_4b50)
            put16(0x031E)  // made by: Unix, spec 3.0
            put16(20)
            put16(0x0800)
            put16(e.method)
            put16(timestamp.dosTime)
            put16(timestamp.dosDate)
            put32(e.crc)
            put32(UInt32(e.compressed))
            put32(UInt32(e.size))
            put16(UInt16(e.name.count))
            put16(0)  // extra
            put16(0)  // comment
            put16(0)  // disk
            put16(0)  // internal attributes
            put32(0o100644 << 16)  // external: a regular file, rw-r--r--
            put32(UInt32(e.offset))
            bytes += e.name
        }
        let size = bytes.count - start
        put32(0x0605_4b50)
        put16(0)
        put16(0)
        put16(UInt16(entries.count))
        put16(UInt16(entries.count))
        put32(UInt32(size))
        put32(UInt32(start))
        put16(0)
        return bytes
    }

    private mutating func put16(_ v: UInt16) {
        bytes.append(UInt8(v & 0xFF))
        bytes.append(UInt8(v >> 8))
    }

    private mutating func put32(_ v: UInt32) {
        for k in 0..<4 { bytes.append(UInt8((v >> (8 * UInt32(k))) & 0xFF)) }
    }

    /// Raw deflate (zip carries no zlib header) of the whole input in one call.
    static func deflate(_ data: [UInt8], name: String) throws(FormatError) -> [UInt8] {
        var stream = z_stream()
        var rc = pb_deflate_init_raw(&stream, 6, 8, Z_DEFAULT_STRATEGY)
        guard rc == Z_OK else { throw .compression(file: name, code: rc) }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(data.count)))
        var out = [UInt8](repeating: 0, count: bound)
        var input = data
        rc = input.withUnsafeMutableBufferPointer { inp in
            out.withUnsafeMutableBufferPointer { o in
                stream.next_in = inp.baseAddress
                stream.avail_in = uInt(inp.count)
                stream.next_out = o.baseAddress
                stream.avail_out = uInt(o.count)
                return CZlib.deflate(&stream, Z_FINISH)
            }
        }
        guard rc == Z_STREAM_END else { throw .compression(file: name, code: rc) }
        out.removeSubrange(Int(stream.total_out)...)
        return out
    }
}
