// JSON text in the one layout Picturebook writes, chosen so hand-edited files diff cleanly:
// 2-space indentation, one object member per line, keys in the order the object holds them,
// UTF-8 kept as is (no \u escapes for Arabic or Mongolian), no escaped slashes, a final newline.
// Short arrays of plain values stay on one line (`"languages": ["en", "ar"]`, `[2, 3]`), which
// keeps spreads and language lists readable without making diffs noisier.

public enum JSONWriter {
    /// Arrays of scalars whose one-line form is at most this many characters stay on one line.
    static let inlineArrayLimit = 72

    /// The document as UTF-8 bytes, ending with a newline.
    public static func serialize(_ value: JSONValue) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(value, indent: 0, into: &out)
        out.append(0x0A)
        return out
    }

    public static func string(_ value: JSONValue) -> String {
        String(decoding: serialize(value), as: UTF8.self)
    }

    /// The value on one line with single spaces after ':' and ',' (for JSON Lines output).
    public static func compact(_ value: JSONValue) -> String {
        var out: [UInt8] = []
        writeInline(value, into: &out)
        return String(decoding: out, as: UTF8.self)
    }

    /// A JSON string literal, quotes included.
    public static func quoted(_ s: String) -> [UInt8] {
        var out: [UInt8] = []
        appendQuoted(s, into: &out)
        return out
    }

    private static func write(_ value: JSONValue, indent: Int, into out: inout [UInt8]) {
        switch value {
        case .object(let o):
            if o.isEmpty {
                out += Array("{}".utf8)
                return
            }
            out.append(UInt8(ascii: "{"))
            var first = true
            for m in o {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(0x0A)
                pad(indent + 1, &out)
                appendQuoted(m.key, into: &out)
                out += [UInt8(ascii: ":"), 0x20]
                write(m.value, indent: indent + 1, into: &out)
            }
            out.append(0x0A)
            pad(indent, &out)
            out.append(UInt8(ascii: "}"))
        case .array(let a):
            if a.isEmpty {
                out += Array("[]".utf8)
                return
            }
            if a.allSatisfy(isScalar) {
                var line: [UInt8] = []
                writeInline(value, into: &line)
                if line.count <= inlineArrayLimit {
                    out += line
                    return
                }
            }
            out.append(UInt8(ascii: "["))
            var first = true
            for v in a {
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.append(0x0A)
                pad(indent + 1, &out)
                write(v, indent: indent + 1, into: &out)
            }
            out.append(0x0A)
            pad(indent, &out)
            out.append(UInt8(ascii: "]"))
        default:
            writeInline(value, into: &out)
        }
    }

    private static func isScalar(_ v: JSONValue) -> Bool {
        switch v {
        case .object, .array: return false
        default: return true
        }
    }

    private static func writeInline(_ value: JSONValue, into out: inout [UInt8]) {
        switch value {
        case .null: out += Array("null".utf8)
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .number(let n): out += Array(n.literal.utf8)
        case .string(let s): appendQuoted(s, into: &out)
        case .array(let a):
            out.append(UInt8(ascii: "["))
            for (k, v) in a.enumerated() {
                if k > 0 { out += [UInt8(ascii: ","), 0x20] }
                writeInline(v, into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let o):
            out.append(UInt8(ascii: "{"))
            for (k, m) in o.enumerated() {
                if k > 0 { out += [UInt8(ascii: ","), 0x20] }
                appendQuoted(m.key, into: &out)
                out += [UInt8(ascii: ":"), 0x20]
                writeInline(m.value, into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }

    private static func pad(_ level: Int, _ out: inout [UInt8]) {
        out += repeatElement(0x20, count: level * 2)
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private static func appendQuoted(_ s: String, into out: inout [UInt8]) {
        out.append(0x22)
        for c in s.utf8 {
            switch c {
            case 0x22: out += [0x5C, 0x22]
            case 0x5C: out += [0x5C, 0x5C]
            case 0x0A: out += [0x5C, UInt8(ascii: "n")]
            case 0x0D: out += [0x5C, UInt8(ascii: "r")]
            case 0x09: out += [0x5C, UInt8(ascii: "t")]
            case 0x08: out += [0x5C, UInt8(ascii: "b")]
            case 0x0C: out += [0x5C, UInt8(ascii: "f")]
            case 0x00..<0x20:
                out += [0x5C, UInt8(ascii: "u"), 0x30, 0x30, hexDigits[Int(c >> 4)], hexDigits[Int(c & 0xF)]]
            default: out.append(c)
            }
        }
        out.append(0x22)
    }
}
