/// Reads the EXIF orientation tag (0x0112 in IFD0) from a TIFF structure. Every offset comes from
/// the file, so every read is bounds-checked; anything odd yields nil rather than a guess.
enum Exif {
    /// From a JPEG APP1 payload, which starts with "Exif\0\0" before the TIFF header.
    static func orientation(app1 payload: UnsafeBufferPointer<UInt8>) -> Int? {
        let prefix: [UInt8] = [0x45, 0x78, 0x69, 0x66, 0, 0]  // "Exif\0\0"
        guard payload.count > prefix.count, payload.prefix(prefix.count).elementsEqual(prefix) else { return nil }
        return orientation(tiff: UnsafeBufferPointer(rebasing: payload[prefix.count...]))
    }

    /// From a TIFF header onwards ("II*\0" or "MM\0*"), as in a PNG eXIf chunk.
    static func orientation(tiff t: UnsafeBufferPointer<UInt8>) -> Int? {
        guard t.count >= 8 else { return nil }
        let little: Bool
        switch (t[0], t[1]) {
        case (0x49, 0x49): little = true
        case (0x4D, 0x4D): little = false
        default: return nil
        }
        func u16(_ at: Int) -> Int? {
            guard at >= 0, at <= t.count - 2 else { return nil }
            return little ? Int(t[at]) | Int(t[at + 1]) << 8 : Int(t[at]) << 8 | Int(t[at + 1])
        }
        func u32(_ at: Int) -> Int? {
            guard let a = u16(at), let b = u16(at + 2) else { return nil }
            return little ? a | b << 16 : a << 16 | b
        }
        guard u16(2) == 42, let ifd = u32(4), let count = u16(ifd) else { return nil }
        for i in 0..<count {
            let entry = ifd + 2 + 12 * i
            guard let tag = u16(entry) else { return nil }
            guard tag == 0x0112 else { continue }
            // SHORT, one value, stored in the first two bytes of the value field.
            guard u16(entry + 2) == 3, let n = u32(entry + 4), n >= 1, let value = u16(entry + 8) else { return nil }
            return (1...8).contains(value) ? value : nil
        }
        return nil
    }
}
