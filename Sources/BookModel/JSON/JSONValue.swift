// A JSON document as Picturebook keeps it in memory. Unlike Foundation's `Any` trees this one keeps
// object keys in file order and numbers as they were written, so a manifest that goes through
// load and save comes back with its unknown fields intact and diffs only where something changed.

/// One JSON value. Objects keep their key order; numbers keep their spelling.
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(JSONNumber)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    public var stringValue: String? {
        if case .string(let s) = self { return s }
        return nil
    }

    public var objectValue: JSONObject? {
        if case .object(let o) = self { return o }
        return nil
    }

    public var arrayValue: [JSONValue]? {
        if case .array(let a) = self { return a }
        return nil
    }

    public var numberValue: JSONNumber? {
        if case .number(let n) = self { return n }
        return nil
    }

    public var boolValue: Bool? {
        if case .bool(let b) = self { return b }
        return nil
    }

    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// "a string", "an object", … — for messages that say what was found instead.
    public var kindDescription: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// A short rendering for messages: scalars as written (long strings shortened), containers
    /// by kind, because quoting a whole page object back at a librarian helps nobody.
    public var briefDescription: String {
        switch self {
        case .null: return "null"
        case .bool(let b): return b ? "true" : "false"
        case .number(let n): return n.literal
        case .string(let s):
            let limit = 40
            let shown = s.count > limit ? String(s.prefix(limit)) + "…" : s
            return String(decoding: JSONWriter.quoted(shown), as: UTF8.self)
        case .array(let a): return a.isEmpty ? "an empty array" : "an array"
        case .object(let o): return o.isEmpty ? "an empty object" : "an object"
        }
    }
}

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral,
    ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .number(JSONNumber(value)) }
    public init(floatLiteral value: Double) { self = .number(JSONNumber(value)) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        var o = JSONObject()
        for (k, v) in elements { o[k] = v }
        self = .object(o)
    }
    public init(nilLiteral: ()) { self = .null }
}

/// A JSON number that remembers how it was written, so `1.50` or `1e3` in a field Picturebook does
/// not know is saved back exactly as the librarian typed it.
public struct JSONNumber: Hashable, Sendable, CustomStringConvertible {
    /// The number as it appears in JSON text; always valid JSON number syntax.
    public let literal: String
    /// The value, always finite.
    public let value: Double

    /// An integer number.
    public init(_ value: Int) {
        literal = String(value)
        self.value = Double(value)
    }

    /// A finite double, written in Swift's shortest round-tripping form (integral values without
    /// ".0", so 3.0 is written `3`).
    public init(_ value: Double) {
        precondition(value.isFinite, "JSON cannot represent the number \(value)")
        self.value = value
        if value == value.rounded(), abs(value) < 1e15 {
            literal = String(Int64(value))
        } else {
            // Swift prints e.g. 1e-05 and 1.5e+20; both are valid JSON numbers.
            literal = "\(value)"
        }
    }

    /// A number from JSON text; nil when `literal` is not JSON number syntax or overflows a Double.
    public init?(literal: String) {
        guard JSONNumber.isValidSyntax(literal.utf8), let v = Double(literal), v.isFinite else { return nil }
        self.literal = literal
        value = v
    }

    init(validatedLiteral: String, value: Double) {
        literal = validatedLiteral
        self.value = value
    }

    /// The value as an `Int` when it is a whole number within ±2^53 (where doubles are exact).
    public var intValue: Int? {
        guard value == value.rounded(), abs(value) <= 9_007_199_254_740_992 else { return nil }
        return Int(value)
    }

    public var description: String { literal }

    // Equal when they denote the same value: 1, 1.0 and 1e0 are one number.
    public static func == (a: JSONNumber, b: JSONNumber) -> Bool { a.value == b.value }
    public func hash(into h: inout Hasher) { h.combine(value == 0 ? 0 : value) }

    static func isValidSyntax(_ s: some Collection<UInt8>) -> Bool {
        var it = Array(s)[...]
        func digits() -> Int {
            var n = 0
            while let c = it.first, c >= 0x30, c <= 0x39 { it = it.dropFirst(); n += 1 }
            return n
        }
        if it.first == UInt8(ascii: "-") { it = it.dropFirst() }
        guard let first = it.first else { return false }
        if first == UInt8(ascii: "0") {
            it = it.dropFirst()
        } else if digits() == 0 {
            return false
        }
        if it.first == UInt8(ascii: ".") {
            it = it.dropFirst()
            if digits() == 0 { return false }
        }
        if it.first == UInt8(ascii: "e") || it.first == UInt8(ascii: "E") {
            it = it.dropFirst()
            if it.first == UInt8(ascii: "+") || it.first == UInt8(ascii: "-") { it = it.dropFirst() }
            if digits() == 0 { return false }
        }
        return it.isEmpty
    }
}

/// A JSON object whose members keep their order. Lookups are linear, which is faster than hashing
/// for the handful of keys a manifest object has.
public struct JSONObject: Hashable, Sendable, Sequence, ExpressibleByDictionaryLiteral {
    public struct Member: Hashable, Sendable {
        public var key: String
        public var value: JSONValue

        public init(key: String, value: JSONValue) {
            self.key = key
            self.value = value
        }
    }

    public private(set) var members: [Member] = []

    public init() {}

    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        for (k, v) in elements { self[k] = v }
    }

    public var count: Int { members.count }
    public var isEmpty: Bool { members.isEmpty }
    public var keys: [String] { members.map(\.key) }

    /// Reading returns the member's value; assigning replaces it in place (keeping its position) or
    /// appends a new member; assigning nil removes the member.
    public subscript(key: String) -> JSONValue? {
        get { members.first { $0.key == key }?.value }
        set {
            if let i = members.firstIndex(where: { $0.key == key }) {
                if let newValue { members[i].value = newValue } else { members.remove(at: i) }
            } else if let newValue {
                members.append(Member(key: key, value: newValue))
            }
        }
    }

    public func contains(key: String) -> Bool { members.contains { $0.key == key } }

    /// Appends without looking for an existing member; the caller guarantees `key` is new.
    mutating func appendUnchecked(_ key: String, _ value: JSONValue) {
        members.append(Member(key: key, value: value))
    }

    public func makeIterator() -> IndexingIterator<[Member]> { members.makeIterator() }
}
