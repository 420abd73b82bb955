// Text chunks (tEXt) in a PNG, for facts that must travel with an image in the same file: the
// reader's cleared pages carry which of their boxes the fill's checks left as scanned, so the
// verdicts can never belong to another version of the image than the one being shown.
import CZlib

public enum PNGText {
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    /// `png` with a tEXt chunk of `keyword` and `text` placed right after IHDR, so a reader finds
    /// it in the file's first bytes. Nil when `png` does not start with a PNG signature and IHDR,
    /// or when the keyword (1–79 printable ASCII characters, no leading, trailing or double
    /// space) or the text (printable ASCII and newlines) is not what tEXt may hold.
    public static func inserting(keyword: String, text: String, into png: [UInt8]) -> [UInt8]? {
        let key = Array(keyword.utf8), value = Array(text.utf8)
        guard (1...79).contains(key.count), key.allSatisfy({ (0x20...0x7E).contains($0) }),
              key.first != 0x20, key.last != 0x20, !keyword.contains("  "),
              value.allSatisfy({ (0x20...0x7E).contains($0) || $0 == 0x0A }),
              png.count >= 33, Array(png[0..<8]) == signature, Array(png[12..<16]) == Array("IHDR".utf8),
              bigEndian(png, at: 8) == 13
        else { return nil }
        let body = key + [0] + value
        var chunk: [UInt8] = []
        chunk.reserveCapacity(body.count + 12)
        PNGWriter.appendBigEndian(UInt32(body.count), to: &chunk)
        let typed = Array("tEXt".utf8) + body
        chunk += typed
        let crc = typed.withUnsafeBufferPointer { crc32_z(0, $0.baseAddress, $0.count) }
        PNGWriter.appendBigEndian(UInt32(truncatingIfNeeded: crc), to: &chunk)
        return Array(png[0..<33]) + chunk + Array(png[33...])
    }

    /// The text of the first tEXt chunk named `keyword` among the chunks before the image data;
    /// nil when there is none, or when `png` (which may be only the file's first bytes) is not a
    /// PNG or the chunk's checksum is wrong.
    public static func read(keyword: String, in png: [UInt8]) -> String? {
        guard png.count >= 8, Array(png[0..<8]) == signature else { return nil }
        let key = Array(keyword.utf8)
        var at = 8
        while at + 12 <= png.count {
            let length = Int(bigEndian(png, at: at))
            let type = String(decoding: png[(at + 4)..<(at + 8)], as: UTF8.self)
            if type == "IDAT" || type == "IEND" { return nil }
            guard length <= png.count - at - 12 else { return nil }
            if type == "tEXt" {
                let body = Array(png[(at + 8)..<(at + 8 + length)])
                if let zero = body.firstIndex(of: 0), Array(body[..<zero]) == key {
                    let typed = Array(png[(at + 4)..<(at + 8 + length)])
                    let crc = typed.withUnsafeBufferPointer { crc32_z(0, $0.baseAddress, $0.count) }
                    guard UInt32(truncatingIfNeeded: crc) == bigEndian(png, at: at + 8 + length) else { return nil }
                    return String(decoding: body[(zero + 1)...], as: UTF8.self)
                }
            }
            at += length + 12
        }
        return nil
    }

    static func bigEndian(_ b: [UInt8], at i: Int) -> UInt32 {
        UInt32(b[i]) << 24 | UInt32(b[i + 1]) << 16 | UInt32(b[i + 2]) << 8 | UInt32(b[i + 3])
    }
}
