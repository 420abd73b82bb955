// Animated PNG from ordinary PNG frames: the first frame's IDAT stays as it is (viewers without
// APNG support show it), later frames' image data moves into fdAT chunks, and acTL/fcTL say how
// many frames there are and how long each shows. No pixels are re-encoded.

/// Errors assembling an animated PNG.
public enum APNGError: Error, CustomStringConvertible, Equatable {
    case noFrames
    case notPNG(frame: Int)
    case mismatchedHeader(frame: Int)

    public var description: String {
        switch self {
        case .noFrames: return "animated PNG: no frames"
        case .notPNG(let i): return "animated PNG: frame \(i) is not a well-formed PNG"
        case .mismatchedHeader(let i): return "animated PNG: frame \(i) differs from frame 0 in size or pixel format"
        }
    }
}

public enum APNG {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// Joins `frames` (complete PNG files of equal size and format — encode them without
    /// channel reduction so every frame has the same colour type) into one animated PNG that
    /// shows each for `delayMilliseconds` and loops `loops` times (0 = forever).
    public static func assemble(frames: [[UInt8]], delayMilliseconds: Int, loops: Int = 0) throws(APNGError) -> [UInt8] {
        guard !frames.isEmpty else { throw .noFrames }
        var parsed: [(ihdr: [UInt8], idat: [[UInt8]])] = []
        for (i, f) in frames.enumerated() {
            guard let c = chunks(f) else { throw .notPNG(frame: i) }
            guard let ihdr = c.first(where: { $0.type == "IHDR" })?.data, ihdr.count == 13 else { throw .notPNG(frame: i) }
            let idat = c.filter { $0.type == "IDAT" }.map(\.data)
            guard !idat.isEmpty else { throw .notPNG(frame: i) }
            if let first = parsed.first, first.ihdr != ihdr { throw .mismatchedHeader(frame: i) }
            parsed.append((ihdr, idat))
        }
        var out = signature
        appendChunk(&out, "IHDR", parsed[0].ihdr)
        appendChunk(&out, "acTL", be32(UInt32(frames.count)) + be32(UInt32(max(0, loops))))
        let width = Array(parsed[0].ihdr[0..<4]), height = Array(parsed[0].ihdr[4..<8])
        // Delay as a fraction: milliseconds / 1000.
        let delay = be16(UInt16(clamping: max(0, delayMilliseconds))) + be16(1000)
        var sequence: UInt32 = 0
        for (i, frame) in parsed.enumerated() {
            // fcTL: sequence, width, height, x offset, y offset, delay, dispose (none), blend (source).
            appendChunk(&out, "fcTL", be32(sequence) + width + height + be32(0) + be32(0) + delay + [0, 0])
            sequence += 1
            for data in frame.idat {
                if i == 0 {
                    appendChunk(&out, "IDAT", data)
                } else {
                    appendChunk(&out, "fdAT", be32(sequence) + data)
                    sequence += 1
                }
            }
        }
        appendChunk(&out, "IEND", [])
        return out
    }

    struct Chunk {
        var type: String
        var data: [UInt8]
    }

    /// The chunks of a PNG file, or nil when it is not one (bad signature, truncated chunk).
    static func chunks(_ bytes: [UInt8]) -> [Chunk]? {
        guard bytes.count >= 8, Array(bytes[0..<8]) == signature else { return nil }
        var out: [Chunk] = []
        var i = 8
        while i + 12 <= bytes.count {
            let length = Int(bytes[i]) << 24 | Int(bytes[i + 1]) << 16 | Int(bytes[i + 2]) << 8 | Int(bytes[i + 3])
            guard length >= 0, i + 12 + length <= bytes.count else { return nil }
            let type = String(decoding: bytes[(i + 4)..<(i + 8)], as: UTF8.self)
            out.append(Chunk(type: type, data: Array(bytes[(i + 8)..<(i + 8 + length)])))
            i += 12 + length
            if type == "IEND" { return out }
        }
        return nil
    }

    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func be16(_ v: UInt16) -> [UInt8] { [UInt8(v >> 8), UInt8(v & 0xFF)] }

    static func appendChunk(_ out: inout [UInt8], _ type: String, _ data: [UInt8]) {
        let typeBytes = Array(type.utf8)
        out += be32(UInt32(data.count))
        out += typeBytes
        out += data
        out += be32(crc32(typeBytes + data))
    }

    static let crcTable: [UInt32] = (0..<256).map { n -> UInt32 in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 == 1 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }

    /// The CRC-32 PNG chunks carry (ISO 3309, as in zlib).
    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
}
