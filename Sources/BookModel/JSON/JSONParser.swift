// A strict JSON parser (RFC 8259) written for people who edit JSON by hand. Foundation's parser
// neither keeps key order nor says where a problem is; this one keeps both, rejects duplicate keys,
// records where every value starts so later diagnostics can point into the file, and explains the
// usual hand-editing slips (a missing comma, a trailing comma, single quotes, comments, NaN).

/// A JSON syntax error with its position.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String
    public var location: SourceLocation
    /// Where in the document the problem is, when that is meaningful (duplicate keys).
    public var path: JSONPath?

    public var description: String {
        if let path, !path.isRoot { return "\(location): \(path): \(message)" }
        return "\(location): \(message)"
    }
}

/// A parsed document with the position of every value in it.
public struct ParsedJSON: Sendable {
    public var value: JSONValue
    /// Where each value starts (for objects and arrays, their opening bracket).
    public var locations: [JSONPath: SourceLocation]

    /// The location of `path`, or of its nearest ancestor that exists in the file (a missing field
    /// is reported at the object that should have held it).
    public func location(of path: JSONPath) -> SourceLocation? {
        var p: JSONPath? = path
        while let q = p {
            if let loc = locations[q] { return loc }
            p = q.parent
        }
        return nil
    }
}

public enum JSONParser {
    /// Deeper nesting than this is refused rather than risking the stack; no manifest comes close.
    public static let maximumDepth = 200

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> ParsedJSON {
        var p = Parser(bytes: bytes, recording: .all)
        return try p.parseDocument()
    }

    /// Parses without recording locations (`locations` is empty): the fast path for documents
    /// that will most likely have nothing to report.
    static func parseValue(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        var p = Parser(bytes: bytes, recording: .none)
        return try p.parseDocument().value
    }

    /// The locations of `paths` (and of their ancestors, for paths that do not exist) in a
    /// document already known to parse.
    static func locations(of paths: [JSONPath], in bytes: [UInt8]) -> ParsedJSON {
        var wanted: Set<JSONPath> = []
        for path in paths {
            var p: JSONPath? = path
            while let q = p, wanted.insert(q).inserted { p = q.parent }
        }
        var p = Parser(bytes: bytes, recording: .only(wanted))
        return (try? p.parseDocument()) ?? ParsedJSON(value: .null, locations: [:])
    }

    public static func parse(_ text: String) throws(JSONSyntaxError) -> ParsedJSON {
        try parse(Array(text.utf8))
    }
}

private struct Parser {
    let b: [UInt8]
    var i = 0
    // Current line and the byte offset where it starts, kept up to date while skipping whitespace
    // (the only place a newline can legally appear).
    var line = 1
    var lineStart = 0
    // Incremental column counting, so a minified one-line manifest stays linear.
    var colAnchor = 0
    var colAtAnchor = 1
    var path: [JSONPath.Component] = []
    var locations: [JSONPath: SourceLocation] = [:]
    // End of the last complete value, where a missing comma should be reported.
    var lastValueEnd = 0

    enum Recording {
        case all, none
        case only(Set<JSONPath>)
    }
    let recording: Recording

    init(bytes: [UInt8], recording: Recording) {
        b = bytes
        self.recording = recording
    }

    // MARK: positions

    mutating func currentLocation() -> SourceLocation {
        if colAnchor < lineStart || colAnchor > i {
            colAnchor = lineStart
            colAtAnchor = 1
        }
        var col = colAtAnchor
        var k = colAnchor
        while k < i {
            if b[k] & 0xC0 != 0x80 { col += 1 }
            k += 1
        }
        colAnchor = i
        colAtAnchor = col
        return SourceLocation(line: line, column: col)
    }

    /// Slow but exact: used only for the one error a parse can report.
    func location(ofOffset pos: Int) -> SourceLocation {
        var ln = 1, col = 1, k = 0
        let end = min(pos, b.count)
        while k < end {
            if b[k] == 0x0A {
                ln += 1
                col = 1
            } else if b[k] & 0xC0 != 0x80 {
                col += 1
            }
            k += 1
        }
        return SourceLocation(line: ln, column: col)
    }

    func fail(_ message: String, at pos: Int? = nil, path: JSONPath? = nil) -> JSONSyntaxError {
        JSONSyntaxError(message: message, location: location(ofOffset: pos ?? i), path: path)
    }

    // MARK: lexing helpers

    mutating func skipWhitespace() {
        while i < b.count {
            switch b[i] {
            case 0x20, 0x09, 0x0D: i += 1
            case 0x0A:
                i += 1
                line += 1
                lineStart = i
            default: return
            }
        }
    }

    var atEnd: Bool { i >= b.count }

    /// How the byte at `pos` should be named in a message.
    func describe(at pos: Int) -> String {
        guard pos < b.count else { return "the end of the file" }
        let c = b[pos]
        if c >= 0x21 && c < 0x7F { return "'\(Character(Unicode.Scalar(c)))'" }
        if c == 0x20 { return "a space" }
        if c < 0x80 { return "U+" + hex4(UInt32(c)) }
        // A non-ASCII character: decode it for the message.
        var end = pos + 1
        while end < b.count, b[end] & 0xC0 == 0x80, end - pos < 4 { end += 1 }
        let s = String(decoding: b[pos..<end], as: UTF8.self)
        return "'\(s)'"
    }

    func hex4(_ v: UInt32) -> String {
        let h = String(v, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - h.count)) + h
    }

    func word(at pos: Int) -> String {
        var end = pos
        while end < b.count, isWordByte(b[end]) { end += 1 }
        return String(decoding: b[pos..<end], as: UTF8.self)
    }

    func isWordByte(_ c: UInt8) -> Bool {
        (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
    }

    // MARK: document

    mutating func parseDocument() throws(JSONSyntaxError) -> ParsedJSON {
        if let bad = firstInvalidUTF8() {
            throw fail("the file is not valid UTF-8 text (bad byte 0x\(String(b[bad], radix: 16, uppercase: true))); save it as UTF-8", at: bad)
        }
        if b.starts(with: [0xEF, 0xBB, 0xBF]) {
            // A byte-order mark is not JSON, but editors on Windows add one; it carries no meaning.
            i = 3
            lineStart = 3
            colAnchor = 3
        }
        skipWhitespace()
        if atEnd { throw fail(b.count <= 3 ? "the file is empty" : "the file contains only whitespace") }
        let value = try parseValue(depth: 0)
        skipWhitespace()
        if !atEnd {
            if b[i] == UInt8(ascii: "}") || b[i] == UInt8(ascii: "]") {
                throw fail("unexpected \(describe(at: i)) after the end of the document: one closing bracket too many?")
            }
            throw fail("unexpected \(describe(at: i)) after the end of the document")
        }
        return ParsedJSON(value: value, locations: locations)
    }

    func firstInvalidUTF8() -> Int? {
        var k = 0
        let n = b.count
        while k < n {
            let c = b[k]
            if c < 0x80 {
                k += 1
                continue
            }
            let len: Int
            var minScalar: UInt32
            var scalar: UInt32
            switch c {
            case 0xC2...0xDF: len = 2; scalar = UInt32(c & 0x1F); minScalar = 0x80
            case 0xE0...0xEF: len = 3; scalar = UInt32(c & 0x0F); minScalar = 0x800
            case 0xF0...0xF4: len = 4; scalar = UInt32(c & 0x07); minScalar = 0x10000
            default: return k
            }
            guard k + len <= n else { return k }
            for j in 1..<len {
                let cc = b[k + j]
                guard cc & 0xC0 == 0x80 else { return k }
                scalar = scalar << 6 | UInt32(cc & 0x3F)
            }
            if scalar < minScalar || scalar > 0x10FFFF || (scalar >= 0xD800 && scalar <= 0xDFFF) { return k }
            minScalar = 0
            k += len
        }
        return nil
    }

    // MARK: values

    mutating func record() {
        switch recording {
        case .none: return
        case .all: locations[JSONPath(path)] = currentLocation()
        case .only(let wanted):
            let p = JSONPath(path)
            if wanted.contains(p) { locations[p] = currentLocation() }
        }
    }

    mutating func parseValue(depth: Int) throws(JSONSyntaxError) -> JSONValue {
        guard !atEnd else { throw fail("unexpected end of file: a value is missing") }
        record()
        let c = b[i]
        switch c {
        case UInt8(ascii: "{"):
            return .object(try parseObject(depth: depth + 1))
        case UInt8(ascii: "["):
            return .array(try parseArray(depth: depth + 1))
        case UInt8(ascii: "\""):
            let s = try parseString()
            lastValueEnd = i
            return .string(s)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return .number(try parseNumber())
        case UInt8(ascii: "+"), UInt8(ascii: "."):
            return .number(try parseNumber())
        case UInt8(ascii: "'"):
            throw fail("strings must be in double quotes (\"), not single quotes")
        case UInt8(ascii: "/"):
            throw fail("comments are not allowed in JSON; put notes in a field such as \"note\" instead")
        case UInt8(ascii: "}"), UInt8(ascii: "]"):
            throw fail("expected a value, found \(describe(at: i))")
        default:
            if isWordByte(c) {
                let w = word(at: i)
                switch w {
                case "true": i += 4; lastValueEnd = i; return .bool(true)
                case "false": i += 5; lastValueEnd = i; return .bool(false)
                case "null": i += 4; lastValueEnd = i; return .null
                case "NaN", "nan", "Infinity", "infinity", "inf":
                    throw fail("\(w) is not allowed in JSON: numbers must be finite")
                case "True", "TRUE": throw fail("JSON is case-sensitive: write true, not \(w)")
                case "False", "FALSE": throw fail("JSON is case-sensitive: write false, not \(w)")
                case "Null", "NULL", "None", "nil", "undefined": throw fail("write null, not \(w)")
                default:
                    throw fail("unexpected word '\(w)': text must be in double quotes, like \"\(w)\"")
                }
            }
            throw fail("expected a value, found \(describe(at: i))")
        }
    }

    mutating func parseObject(depth: Int) throws(JSONSyntaxError) -> JSONObject {
        let open = i
        guard depth <= JSONParser.maximumDepth else {
            throw fail("nesting is deeper than \(JSONParser.maximumDepth) levels")
        }
        i += 1  // {
        var object = JSONObject()
        // Byte offset of each key, for duplicate detection. Manifest objects have a handful of
        // keys, where a linear scan beats hashing; big objects switch to a dictionary.
        var keyOffsets: [Int] = []
        var index: [String: Int]? = nil
        skipWhitespace()
        if !atEnd, b[i] == UInt8(ascii: "}") {
            i += 1
            lastValueEnd = i
            return object
        }
        while true {
            skipWhitespace()
            guard !atEnd else { throw unclosed("object", open) }
            let c = b[i]
            if c != UInt8(ascii: "\"") {
                if c == UInt8(ascii: "}") {
                    throw fail("trailing comma before '}': JSON allows no comma after the last member", at: lastCommaBefore(i))
                }
                if c == UInt8(ascii: "'") { throw fail("keys must be in double quotes (\"), not single quotes") }
                if c == UInt8(ascii: "/") { throw fail("comments are not allowed in JSON") }
                if isWordByte(c) {
                    let w = word(at: i)
                    throw fail("keys must be in double quotes: write \"\(w)\"")
                }
                throw fail("expected a key in double quotes, found \(describe(at: i))")
            }
            let keyStart = i
            let key = try parseString()
            var firstOffset: Int? = nil
            if let index {
                firstOffset = index[key]
            } else if let k = object.members.firstIndex(where: { $0.key == key }) {
                firstOffset = keyOffsets[k]
            }
            if let first = firstOffset {
                let loc = location(ofOffset: first)
                throw fail(
                    "duplicate key \(String(decoding: JSONWriter.quoted(key), as: UTF8.self)) (first at line \(loc.line), column \(loc.column))",
                    at: keyStart, path: JSONPath(path + [.key(key)]))
            }
            keyOffsets.append(keyStart)
            if index != nil {
                index![key] = keyStart
            } else if keyOffsets.count == 16 {
                var d: [String: Int] = [:]
                for (m, off) in zip(object.members, keyOffsets) { d[m.key] = off }
                d[key] = keyStart
                index = d
            }
            skipWhitespace()
            guard !atEnd else { throw unclosed("object", open) }
            guard b[i] == UInt8(ascii: ":") else {
                if b[i] == UInt8(ascii: "=") { throw fail("use ':' between a key and its value, not '='") }
                throw fail("expected ':' after the key \(String(decoding: JSONWriter.quoted(key), as: UTF8.self)), found \(describe(at: i))")
            }
            i += 1
            skipWhitespace()
            guard !atEnd else { throw unclosed("object", open) }
            path.append(.key(key))
            let value = try parseValue(depth: depth)
            path.removeLast()
            object.appendUnchecked(key, value)
            skipWhitespace()
            guard !atEnd else { throw unclosed("object", open) }
            switch b[i] {
            case UInt8(ascii: ","):
                i += 1
            case UInt8(ascii: "}"):
                i += 1
                lastValueEnd = i
                return object
            case UInt8(ascii: "\""):
                throw fail("missing ',' after this value", at: lastValueEnd)
            default:
                let openLoc = location(ofOffset: open)
                throw fail("expected ',' or '}' in the object opened at line \(openLoc.line), column \(openLoc.column), found \(describe(at: i))")
            }
        }
    }

    mutating func parseArray(depth: Int) throws(JSONSyntaxError) -> [JSONValue] {
        let open = i
        guard depth <= JSONParser.maximumDepth else {
            throw fail("nesting is deeper than \(JSONParser.maximumDepth) levels")
        }
        i += 1  // [
        var array: [JSONValue] = []
        skipWhitespace()
        if !atEnd, b[i] == UInt8(ascii: "]") {
            i += 1
            lastValueEnd = i
            return array
        }
        while true {
            skipWhitespace()
            guard !atEnd else { throw unclosed("array", open) }
            if b[i] == UInt8(ascii: "]") {
                throw fail("trailing comma before ']': JSON allows no comma after the last element", at: lastCommaBefore(i))
            }
            path.append(.index(array.count))
            let value = try parseValue(depth: depth)
            path.removeLast()
            array.append(value)
            skipWhitespace()
            guard !atEnd else { throw unclosed("array", open) }
            switch b[i] {
            case UInt8(ascii: ","):
                i += 1
            case UInt8(ascii: "]"):
                i += 1
                lastValueEnd = i
                return array
            case UInt8(ascii: "\""), UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"):
                throw fail("missing ',' after this value", at: lastValueEnd)
            default:
                let openLoc = location(ofOffset: open)
                throw fail("expected ',' or ']' in the array opened at line \(openLoc.line), column \(openLoc.column), found \(describe(at: i))")
            }
        }
    }

    func unclosed(_ what: String, _ open: Int) -> JSONSyntaxError {
        let loc = location(ofOffset: open)
        let closer = what == "object" ? "}" : "]"
        return fail("unexpected end of file: the \(what) opened at line \(loc.line), column \(loc.column) is never closed with '\(closer)'")
    }

    func lastCommaBefore(_ pos: Int) -> Int {
        var k = pos - 1
        while k > 0, b[k] != UInt8(ascii: ",") { k -= 1 }
        return k
    }

    // MARK: strings

    mutating func parseString() throws(JSONSyntaxError) -> String {
        let open = i
        i += 1  // "
        // Fast path: no escapes — slice straight into a String (the bytes are already valid UTF-8).
        var start = i
        var buffer: [UInt8] = []
        var escaped = false
        while true {
            guard i < b.count else {
                let loc = location(ofOffset: open)
                throw fail("unexpected end of file inside the string that starts at line \(loc.line), column \(loc.column)")
            }
            let c = b[i]
            if c == UInt8(ascii: "\"") {
                let s: String
                if escaped {
                    buffer.append(contentsOf: b[start..<i])
                    s = String(decoding: buffer, as: UTF8.self)
                } else {
                    s = String(decoding: b[start..<i], as: UTF8.self)
                }
                i += 1
                return s
            }
            if c < 0x20 {
                if c == 0x0A || c == 0x0D {
                    let loc = location(ofOffset: open)
                    throw fail("line break inside the string that starts at line \(loc.line), column \(loc.column): is a closing quote missing? (write \\n for a line break in text)")
                }
                throw fail("control character U+\(hex4(UInt32(c))) must be escaped in a string")
            }
            if c == UInt8(ascii: "\\") {
                if !escaped {
                    escaped = true
                    buffer.reserveCapacity(i - start + 16)
                }
                buffer.append(contentsOf: b[start..<i])
                try parseEscape(into: &buffer)
                start = i
                continue
            }
            i += 1
        }
    }

    mutating func parseEscape(into out: inout [UInt8]) throws(JSONSyntaxError) {
        let escStart = i
        i += 1  // backslash
        guard i < b.count else { throw fail("unexpected end of file in an escape sequence") }
        let c = b[i]
        i += 1
        switch c {
        case UInt8(ascii: "\""): out.append(0x22)
        case UInt8(ascii: "\\"): out.append(0x5C)
        case UInt8(ascii: "/"): out.append(0x2F)
        case UInt8(ascii: "b"): out.append(0x08)
        case UInt8(ascii: "f"): out.append(0x0C)
        case UInt8(ascii: "n"): out.append(0x0A)
        case UInt8(ascii: "r"): out.append(0x0D)
        case UInt8(ascii: "t"): out.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hexQuad(escStart)
            if scalar >= 0xD800 && scalar <= 0xDBFF {
                // A high surrogate must be followed by an escaped low surrogate.
                guard i + 1 < b.count, b[i] == UInt8(ascii: "\\"), b[i + 1] == UInt8(ascii: "u") else {
                    throw fail("\\u\(hex4(scalar)) is half of a surrogate pair; the second half is missing", at: escStart)
                }
                let lowStart = i
                i += 2
                let low = try hexQuad(lowStart)
                guard low >= 0xDC00 && low <= 0xDFFF else {
                    throw fail("\\u\(hex4(scalar)) must be followed by a low surrogate \\uDC00…\\uDFFF", at: escStart)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar <= 0xDFFF {
                throw fail("\\u\(hex4(scalar)) is an unpaired low surrogate", at: escStart)
            }
            guard let u = Unicode.Scalar(scalar) else { throw fail("invalid \\u escape", at: escStart) }
            out.append(contentsOf: Array(String(Character(u)).utf8))
        default:
            throw fail("invalid escape \\\(describe(at: i - 1).trimmingQuotes): JSON knows \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX", at: escStart)
        }
    }

    mutating func hexQuad(_ escStart: Int) throws(JSONSyntaxError) -> UInt32 {
        guard i + 4 <= b.count else { throw fail("\\u must be followed by four hex digits", at: escStart) }
        var v: UInt32 = 0
        for _ in 0..<4 {
            let c = b[i]
            let d: UInt32
            switch c {
            case 0x30...0x39: d = UInt32(c - 0x30)
            case 0x41...0x46: d = UInt32(c - 0x41 + 10)
            case 0x61...0x66: d = UInt32(c - 0x61 + 10)
            default: throw fail("\\u must be followed by four hex digits", at: escStart)
            }
            v = v << 4 | d
            i += 1
        }
        return v
    }

    // MARK: numbers

    mutating func parseNumber() throws(JSONSyntaxError) -> JSONNumber {
        let start = i
        while i < b.count {
            let c = b[i]
            let isNumberByte =
                (c >= 0x30 && c <= 0x39) || c == UInt8(ascii: "-") || c == UInt8(ascii: "+")
                || c == UInt8(ascii: ".") || c == UInt8(ascii: "e") || c == UInt8(ascii: "E")
            guard isNumberByte else { break }
            i += 1
        }
        let text = b[start..<i]
        let literal = String(decoding: text, as: UTF8.self)
        if literal == "-", i < b.count, isWordByte(b[i]) {
            throw fail("-\(word(at: i)) is not allowed in JSON: numbers must be finite", at: start)
        }
        guard JSONNumber.isValidSyntax(text) else {
            var hint = ""
            if literal.hasPrefix("+") {
                hint = ": drop the '+'"
            } else if literal.hasPrefix(".") || literal.hasPrefix("-.") {
                hint = ": write a 0 before the point"
            } else if literal.hasSuffix(".") {
                hint = ": write a digit after the point or drop it"
            } else if literal.hasPrefix("0") || literal.hasPrefix("-0"), literal.count > 1 {
                hint = ": numbers must not start with 0"
            }
            throw fail("invalid number \(literal)\(hint)", at: start)
        }
        guard let v = Double(literal), v.isFinite else {
            throw fail("the number \(literal) is too large", at: start)
        }
        lastValueEnd = i
        return JSONNumber(validatedLiteral: literal, value: v)
    }
}

extension String {
    fileprivate var trimmingQuotes: String {
        hasPrefix("'") && hasSuffix("'") && count >= 2 ? String(dropFirst().dropLast()) : self
    }
}
