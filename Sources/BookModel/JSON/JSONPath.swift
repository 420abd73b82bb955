/// Where a value sits in a JSON document, written the way a JavaScript programmer would reach it:
/// `pages[3].textBoxes[1].rect`, `pages[0].textBoxes[2].text["zh-Hant"]`.
public struct JSONPath: Hashable, Sendable, CustomStringConvertible, Comparable {
    public enum Component: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    public var components: [Component]

    public init(_ components: [Component] = []) { self.components = components }

    /// The document itself.
    public static let root = JSONPath()

    public var isRoot: Bool { components.isEmpty }

    public func appending(_ key: String) -> JSONPath { JSONPath(components + [.key(key)]) }
    public func appending(_ index: Int) -> JSONPath { JSONPath(components + [.index(index)]) }
    public static func / (p: JSONPath, key: String) -> JSONPath { p.appending(key) }
    public static func / (p: JSONPath, index: Int) -> JSONPath { p.appending(index) }

    /// The enclosing value's path, or nil for the root.
    public var parent: JSONPath? { isRoot ? nil : JSONPath(Array(components.dropLast())) }

    /// True when `self` is `other` or lies inside it.
    public func isWithin(_ other: JSONPath) -> Bool {
        components.count >= other.components.count && Array(components.prefix(other.components.count)) == other.components
    }

    /// Empty for the root.
    public var description: String {
        var s = ""
        for c in components {
            switch c {
            case .index(let i): s += "[\(i)]"
            case .key(let k):
                if JSONPath.isIdentifier(k) {
                    if !s.isEmpty { s += "." }
                    s += k
                } else {
                    s += "[" + String(decoding: JSONWriter.quoted(k), as: UTF8.self) + "]"
                }
            }
        }
        return s
    }

    /// Orders paths the way the document reads: parents before children, array elements by index.
    public static func < (a: JSONPath, b: JSONPath) -> Bool {
        for (x, y) in zip(a.components, b.components) where x != y {
            switch (x, y) {
            case (.index(let i), .index(let j)): return i < j
            case (.key(let k), .key(let l)): return k < l
            case (.index, .key): return true
            case (.key, .index): return false
            }
        }
        return a.components.count < b.components.count
    }

    private static func isIdentifier(_ k: String) -> Bool {
        guard let f = k.utf8.first, !(f >= 0x30 && f <= 0x39) else { return false }
        return k.utf8.allSatisfy { c in
            (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5A) || (c >= 0x61 && c <= 0x7A) || c == 0x5F
        }
    }
}

/// A 1-based line and column in a text file. Columns count Unicode scalars, as editors do.
public struct SourceLocation: Hashable, Sendable, CustomStringConvertible {
    public var line: Int
    public var column: Int

    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    public var description: String { "\(line):\(column)" }
}
