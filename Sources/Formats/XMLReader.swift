// Just enough XML reading for importing ALTO and hOCR: elements, attributes, text, the five
// predefined entities and numeric character references. No DTDs (a DOCTYPE is skipped, never
// fetched or expanded — no entity bombs), no namespaces beyond stripping prefixes, which both
// formats use in only one way. Malformed input is an error with its line, never a crash.

final class MarkupElement {
    let name: String
    var attributes: [String: String]
    var children: [MarkupElement] = []
    /// Character data directly inside this element, in order, with the child index it precedes.
    var text = ""
    /// Text content of this element and all its descendants, in document order.
    var allText: String { text.isEmpty && children.isEmpty ? "" : collect() }
    private var pieces: [Piece] = []
    private enum Piece { case text(String), child(Int) }

    init(name: String, attributes: [String: String]) {
        self.name = name
        self.attributes = attributes
    }

    func appendText(_ s: String) {
        text += s
        pieces.append(.text(s))
    }

    func appendChild(_ e: MarkupElement) {
        pieces.append(.child(children.count))
        children.append(e)
    }

    private func collect() -> String {
        var out = ""
        for p in pieces {
            switch p {
            case .text(let s): out += s
            case .child(let k): out += children[k].allText
            }
        }
        return out
    }

    /// Every descendant (depth first, document order) whose local name is `name`.
    func descendants(_ name: String) -> [MarkupElement] {
        var out: [MarkupElement] = []
        func walk(_ e: MarkupElement) {
            for c in e.children {
                if c.name == name { out.append(c) }
                walk(c)
            }
        }
        walk(self)
        return out
    }

    func child(_ name: String) -> MarkupElement? { children.first { $0.name == name } }
}

struct XMLReader {
    /// Nesting deeper than this is refused: no real ALTO or hOCR comes near it, and it keeps a
    /// hostile file from exhausting the stack in the tree walks.
    static let maximumDepth = 256

    let file: String
    private let b: [UInt8]
    private var i = 0
    private var line = 1

    init(_ bytes: [UInt8], file: String) {
        self.b = bytes
        self.file = file
    }

    static func parse(_ bytes: [UInt8], file: String) throws(FormatError) -> MarkupElement {
        var r = XMLReader(bytes, file: file)
        return try r.document()
    }

    private func fail(_ message: String) -> FormatError { .malformedXML(file: file, line: line, message: message) }

    private mutating func advance(_ n: Int = 1) {
        for _ in 0..<n where i < b.count {
            if b[i] == 0x0A { line += 1 }
            i += 1
        }
    }

    private func starts(_ s: String) -> Bool {
        let u = Array(s.utf8)
        return i + u.count <= b.count && b[i..<(i + u.count)].elementsEqual(u)
    }

    private mutating func skip(until s: String, what: String) throws(FormatError) {
        while i < b.count, !starts(s) { advance() }
        guard i < b.count else { throw fail("unterminated \(what)") }
        advance(s.utf8.count)
    }

    private mutating func document() throws(FormatError) -> MarkupElement {
        if starts("\u{FEFF}") { advance(3) }
        var root: MarkupElement?
        var stack: [MarkupElement] = []
        while i < b.count {
            if b[i] == UInt8(ascii: "<") {
                if starts("<?") { try skip(until: "?>", what: "processing instruction"); continue }
                if starts("<!--") { try skip(until: "-->", what: "comment"); continue }
                if starts("<![CDATA[") {
                    advance(9)
                    let start = i
                    try skip(until: "]]>", what: "CDATA section")
                    stack.last?.appendText(String(decoding: b[start..<(i - 3)], as: UTF8.self))
                    continue
                }
                if starts("<!") { try skipDeclaration(); continue }
                if starts("</") {
                    advance(2)
                    let name = try readName()
                    skipSpace()
                    guard i < b.count, b[i] == UInt8(ascii: ">") else { throw fail("expected '>' after </\(name)") }
                    advance()
                    guard let open = stack.popLast() else { throw fail("closing tag </\(name)> without an opening tag") }
                    guard open.name == localName(name) else { throw fail("</\(name)> closes <\(open.name)>") }
                    continue
                }
                advance()
                let name = try readName()
                var attributes: [String: String] = [:]
                var selfClosing = false
                while true {
                    skipSpace()
                    guard i < b.count else { throw fail("unterminated tag <\(name)>") }
                    if b[i] == UInt8(ascii: ">") { advance(); break }
                    if starts("/>") { advance(2); selfClosing = true; break }
                    let key = try readName()
                    skipSpace()
                    guard i < b.count, b[i] == UInt8(ascii: "=") else { throw fail("attribute \(key) of <\(name)> has no value") }
                    advance()
                    skipSpace()
                    guard i < b.count, b[i] == UInt8(ascii: "\"") || b[i] == UInt8(ascii: "'") else {
                        throw fail("attribute \(key) of <\(name)> is not quoted")
                    }
                    let quote = b[i]
                    advance()
                    let start = i
                    while i < b.count, b[i] != quote {
                        guard b[i] != UInt8(ascii: "<") else { throw fail("'<' in the value of attribute \(key)") }
                        advance()
                    }
                    guard i < b.count else { throw fail("unterminated value of attribute \(key)") }
                    let raw = String(decoding: b[start..<i], as: UTF8.self)
                    advance()
                    // Prefixed attributes keep their prefix (xml:lang and lang are different keys).
                    attributes[key] = try decodeEntities(raw)
                }
                let element = MarkupElement(name: localName(name), attributes: attributes)
                if let parent = stack.last {
                    parent.appendChild(element)
                } else {
                    guard root == nil else { throw fail("a second root element <\(name)>") }
                    root = element
                }
                if !selfClosing {
                    guard stack.count < Self.maximumDepth else { throw fail("elements nested more than \(Self.maximumDepth) deep") }
                    stack.append(element)
                }
            } else {
                let start = i
                while i < b.count, b[i] != UInt8(ascii: "<") { advance() }
                let text = String(decoding: b[start..<i], as: UTF8.self)
                if let top = stack.last {
                    top.appendText(try decodeEntities(text))
                } else if !text.allSatisfy({ $0.isWhitespace }) {
                    throw fail("text outside the root element")
                }
            }
        }
        if let open = stack.last { throw fail("<\(open.name)> is never closed") }
        guard let root else { throw fail("no root element") }
        return root
    }

    /// `<!DOCTYPE …>` possibly with an internal subset in brackets; skipped whole.
    private mutating func skipDeclaration() throws(FormatError) {
        var depth = 0
        while i < b.count {
            let c = b[i]
            advance()
            if c == UInt8(ascii: "[") { depth += 1 }
            if c == UInt8(ascii: "]") { depth -= 1 }
            if c == UInt8(ascii: ">"), depth <= 0 { return }
        }
        throw fail("unterminated <! declaration")
    }

    private mutating func skipSpace() {
        while i < b.count, [0x20, 0x09, 0x0A, 0x0D].contains(b[i]) { advance() }
    }

    private mutating func readName() throws(FormatError) -> String {
        let start = i
        while i < b.count {
            let c = b[i]
            if [0x20, 0x09, 0x0A, 0x0D, UInt8(ascii: ">"), UInt8(ascii: "/"), UInt8(ascii: "="), UInt8(ascii: "<")].contains(c) { break }
            advance()
        }
        guard i > start else { throw fail("expected a name") }
        return String(decoding: b[start..<i], as: UTF8.self)
    }

    private func localName(_ name: String) -> String {
        guard let colon = name.lastIndex(of: ":") else { return name }
        return String(name[name.index(after: colon)...])
    }

    private func decodeEntities(_ s: String) throws(FormatError) -> String {
        guard s.contains("&") else { return s }
        var out = ""
        var rest = s[...]
        while let amp = rest.firstIndex(of: "&") {
            out += rest[..<amp]
            guard let semi = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semi) <= 12 else {
                throw fail("'&' that starts no entity")
            }
            let name = rest[rest.index(after: amp)..<semi]
            switch name {
            case "amp": out += "&"
            case "lt": out += "<"
            case "gt": out += ">"
            case "quot": out += "\""
            case "apos": out += "'"
            default:
                var v: UInt32?
                if name.hasPrefix("#x") { v = UInt32(name.dropFirst(2), radix: 16) } else if name.hasPrefix("#") { v = UInt32(name.dropFirst(), radix: 10) }
                guard let v, let scalar = Unicode.Scalar(v) else { throw fail("unknown entity &\(name);") }
                out.unicodeScalars.append(scalar)
            }
            rest = rest[rest.index(after: semi)...]
        }
        return out + rest
    }
}
