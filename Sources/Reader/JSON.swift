// A small JSON writer: the API's documents have a fixed key order and explicit nulls
// (`"cleared": null`), which Foundation's Codable encoding does not give.

import BookModel
import Geometry

enum JSON: Sendable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByNilLiteral
{
    case string(String)
    case int(Int)
    case number(Double)
    case bool(Bool)
    case null
    case array([JSON])
    /// Keys in the order given.
    case object([(String, JSON)])

    init(stringLiteral value: String) { self = .string(value) }
    init(integerLiteral value: Int) { self = .int(value) }
    init(floatLiteral value: Double) { self = .number(value) }
    init(booleanLiteral value: Bool) { self = .bool(value) }
    init(nilLiteral: ()) { self = .null }

    static func optional(_ s: String?) -> JSON { s.map(JSON.string) ?? .null }

    static func rect(_ r: Rect) -> JSON {
        .object([("x", .number(r.minX)), ("y", .number(r.minY)), ("width", .number(r.width)), ("height", .number(r.height))])
    }

    static func rect(_ r: PixelRect) -> JSON {
        .object([("x", .int(r.x)), ("y", .int(r.y)), ("width", .int(r.width)), ("height", .int(r.height))])
    }

    static func size(_ s: Size) -> JSON { .object([("width", .number(s.width)), ("height", .number(s.height))]) }

    var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(4096)
        write(into: &out)
        return out
    }

    func write(into out: inout [UInt8]) {
        switch self {
        case .string(let s): out += JSONWriter.quoted(s)
        case .int(let i): out += Array(String(i).utf8)
        case .number(let d):
            guard d.isFinite else { out += Array("null".utf8); return }
            // Geometry to 1/1000 of a pixel is plenty and keeps documents short.
            let r = (d * 1000).rounded() / 1000
            if r == r.rounded(), abs(r) < 1e15 { out += Array(String(Int(r)).utf8) } else { out += Array(String(r).utf8) }
        case .bool(let b): out += Array((b ? "true" : "false").utf8)
        case .null: out += Array("null".utf8)
        case .array(let items):
            out.append(UInt8(ascii: "["))
            for (i, item) in items.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                item.write(into: &out)
            }
            out.append(UInt8(ascii: "]"))
        case .object(let pairs):
            out.append(UInt8(ascii: "{"))
            for (i, (k, v)) in pairs.enumerated() {
                if i > 0 { out.append(UInt8(ascii: ",")) }
                out += JSONWriter.quoted(k)
                out.append(UInt8(ascii: ":"))
                v.write(into: &out)
            }
            out.append(UInt8(ascii: "}"))
        }
    }
}
