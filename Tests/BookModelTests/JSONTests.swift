import BookModel
import Testing
import TestSupport

@Suite struct JSONParserTests {
    struct SyntaxCase: CustomTestStringConvertible, Sendable {
        var text: String
        var line: Int
        var column: Int
        var fragment: String
        var testDescription: String { fragment }
    }

    static let syntaxCases: [SyntaxCase] = [
        .init(text: #"{"a": 1,}"#, line: 1, column: 8, fragment: "trailing comma"),
        .init(text: "[1, 2,\n]", line: 1, column: 6, fragment: "trailing comma"),
        .init(text: "{\n  \"a\": 1\n  \"b\": 2\n}", line: 2, column: 9, fragment: "missing ','"),
        .init(text: "[\n  {\"a\": 1}\n  {\"a\": 2}\n]", line: 2, column: 11, fragment: "missing ','"),
        .init(text: #"{"a": NaN}"#, line: 1, column: 7, fragment: "NaN is not allowed"),
        .init(text: #"{"a": -Infinity}"#, line: 1, column: 7, fragment: "-Infinity is not allowed"),
        .init(text: #"{"a": 1e999}"#, line: 1, column: 7, fragment: "too large"),
        .init(text: #"{'a': 1}"#, line: 1, column: 2, fragment: "double quotes"),
        .init(text: #"{a: 1}"#, line: 1, column: 2, fragment: "keys must be in double quotes"),
        .init(text: #"{"a": True}"#, line: 1, column: 7, fragment: "case-sensitive"),
        .init(text: #"{"a": yes}"#, line: 1, column: 7, fragment: "must be in double quotes"),
        .init(text: #"{"a": 01}"#, line: 1, column: 7, fragment: "must not start with 0"),
        .init(text: #"{"a": +1}"#, line: 1, column: 7, fragment: "drop the '+'"),
        .init(text: #"{"a": .5}"#, line: 1, column: 7, fragment: "0 before the point"),
        .init(text: "// note\n{}", line: 1, column: 1, fragment: "comments are not allowed"),
        .init(text: #"{"a": 1} }"#, line: 1, column: 10, fragment: "after the end of the document"),
        .init(text: "", line: 1, column: 1, fragment: "the file is empty"),
        .init(text: "  \n ", line: 2, column: 2, fragment: "only whitespace"),
        .init(text: "{\"a\": \"x\ny\"}", line: 1, column: 9, fragment: "line break inside the string"),
        .init(text: #"{"a": [1, 2}"#, line: 1, column: 12, fragment: "array opened at line 1, column 7"),
        .init(text: "{\"a\": 1", line: 1, column: 8, fragment: "never closed"),
        .init(text: "{\"a\": \"abc", line: 1, column: 11, fragment: "inside the string"),
        .init(text: #"{"a": "\x"}"#, line: 1, column: 8, fragment: "invalid escape"),
        .init(text: #"{"a": "\uD800"}"#, line: 1, column: 8, fragment: "surrogate"),
        .init(text: #"{"a": "\u12"}"#, line: 1, column: 8, fragment: "four hex digits"),
        .init(text: #"{"a" 1}"#, line: 1, column: 6, fragment: "expected ':'"),
        .init(text: #"{"a" = 1}"#, line: 1, column: 6, fragment: "use ':'"),
        // Columns count characters, not bytes: é is two bytes but one column.
        .init(text: #"{"é": 1,}"#, line: 1, column: 8, fragment: "trailing comma"),
        .init(text: "{\"a\": \"\u{7}\"}", line: 1, column: 8, fragment: "control character"),
    ]

    @Test(arguments: syntaxCases)
    func syntaxErrorsHaveLineAndColumn(_ c: SyntaxCase) {
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(c.text) }
        do {
            _ = try JSONParser.parse(c.text)
        } catch {
            #expect(error.location == SourceLocation(line: c.line, column: c.column), "\(error)")
            #expect(error.message.contains(c.fragment), "\(error.message)")
        }
    }

    @Test func duplicateKeysAreRejectedWithTheirPath() {
        let text = """
            {"pages": [
              {"width": 1,
               "width": 2}
            ]}
            """
        do {
            _ = try JSONParser.parse(text)
            Issue.record("duplicate key accepted")
        } catch {
            #expect(error.path?.description == "pages[0].width")
            #expect(error.location == SourceLocation(line: 3, column: 4))
            #expect(error.message.contains("first at line 2, column 4"))
        }
    }

    @Test func duplicateKeysAreFoundInLargeObjectsToo() {
        let members = (0..<40).map { "\"k\($0)\": \($0)" } + ["\"k33\": 0"]
        do {
            _ = try JSONParser.parse("{" + members.joined(separator: ", ") + "}")
            Issue.record("duplicate key accepted")
        } catch {
            #expect(error.path == JSONPath.root / "k33")
        }
        let fine = (0..<40).map { "\"k\($0)\": \($0)" }
        #expect(throws: Never.self) { try JSONParser.parse("{" + fine.joined(separator: ", ") + "}") }
    }

    @Test func invalidUTF8IsReportedWhereItIs() {
        var bytes = Array("{\"a\":\n \"x".utf8)
        bytes.append(0xFF)
        bytes += Array("\"}".utf8)
        do {
            _ = try JSONParser.parse(bytes)
            Issue.record("invalid UTF-8 accepted")
        } catch {
            #expect(error.location == SourceLocation(line: 2, column: 4))
            #expect(error.message.contains("UTF-8"))
        }
    }

    @Test func deepNestingIsAnErrorNotACrash() {
        let deep = String(repeating: "[", count: 100_000) + String(repeating: "]", count: 100_000)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(deep) }
        let ok = String(repeating: "[", count: 150) + String(repeating: "]", count: 150)
        #expect(throws: Never.self) { try JSONParser.parse(ok) }
    }

    @Test func valuesKeepOrderSpellingAndLocations() throws {
        let text = "\u{FEFF}{\n  \"z\": 1.50,\n  \"a\": [true, null, \"\\u00e9\\/\\ud83d\\ude00\"],\n  \"m\": {\"k\": -0.0e1}\n}"
        let parsed = try JSONParser.parse(text)
        let o = try #require(parsed.value.objectValue)
        #expect(o.keys == ["z", "a", "m"])
        #expect(o["z"]?.numberValue?.literal == "1.50")
        #expect(o["a"] == [true, nil, "é/😀"])
        #expect(parsed.locations[JSONPath.root / "z"] == SourceLocation(line: 2, column: 8))
        #expect(parsed.locations[JSONPath.root / "a" / 2] == SourceLocation(line: 3, column: 21))
        #expect(parsed.locations[JSONPath.root / "m" / "k"] == SourceLocation(line: 4, column: 14))
        // A missing member is located at the object that should hold it.
        #expect(parsed.location(of: JSONPath.root / "m" / "missing") == SourceLocation(line: 4, column: 8))
    }
}

@Suite struct JSONWriterTests {
    @Test func layoutIsStableAndReadable() {
        let value: JSONValue = [
            "path": "images/p1.jpg",
            "title": "أرنب القمر — Сарны туулай",
            "quote": "say \"hi\"\\\n\t\u{1}",
            "languages": ["en", "ar"],
            "empty": [:],
            "none": [],
            "nested": ["spreads": [[2, 3], [4, 5]]],
        ]
        let text = JSONWriter.string(value)
        #expect(text == """
            {
              "path": "images/p1.jpg",
              "title": "أرنب القمر — Сарны туулай",
              "quote": "say \\"hi\\"\\\\\\n\\t\\u0001",
              "languages": ["en", "ar"],
              "empty": {},
              "none": [],
              "nested": {
                "spreads": [
                  [2, 3],
                  [4, 5]
                ]
              }
            }

            """)
    }

    @Test func longScalarArraysBreakOneElementPerLine() {
        let long = JSONValue.array((1...40).map { .number(JSONNumber($0)) })
        let text = JSONWriter.string(["a": long])
        #expect(text.split(separator: "\n").count == 40 + 4)
    }

    @Test func randomValuesSurviveASerializeParseCycle() throws {
        var rng = SplitMix64(seed: 7)
        for _ in 0..<300 {
            let v = randomValue(depth: 0, &rng)
            let text = JSONWriter.serialize(v)
            let back = try JSONParser.parse(text).value
            #expect(back == v)
            #expect(JSONWriter.serialize(back) == text)
        }
    }

    @Test func numbersAreWrittenShortestAndExact() {
        #expect(JSONNumber(3.0).literal == "3")
        #expect(JSONNumber(0.1).literal == "0.1")
        #expect(JSONNumber(-0.0).literal == "0")
        #expect(JSONNumber(literal: "1e-5")?.value == 0.00001)
        #expect(JSONNumber(literal: "01") == nil)
        #expect(JSONNumber(literal: "1e400") == nil)
        for d in [0.87, 1e-7, 123456789.125, 1e300, -2.5] {
            #expect(JSONNumber(literal: JSONNumber(d).literal)?.value == d)
        }
    }
}

func randomValue(depth: Int, _ rng: inout SplitMix64) -> JSONValue {
    let pick = Int.random(in: 0..<(depth > 3 ? 5 : 7), using: &rng)
    switch pick {
    case 0: return .null
    case 1: return .bool(Bool.random(using: &rng))
    case 2: return .number(JSONNumber(Int.random(in: -1000...1000, using: &rng)))
    case 3: return .number(JSONNumber(Double.random(in: -1e6...1e6, using: &rng)))
    case 4:
        let alphabet = Array("aé/\\\"\n\t z😀ب\u{1}")
        return .string(String((0..<Int.random(in: 0...8, using: &rng)).map { _ in alphabet.randomElement(using: &rng)! }))
    case 5: return .array((0..<Int.random(in: 0...4, using: &rng)).map { _ in randomValue(depth: depth + 1, &rng) })
    default:
        var o = JSONObject()
        for k in 0..<Int.random(in: 0...4, using: &rng) { o["k\(k)\(Int.random(in: 0...9, using: &rng))"] = randomValue(depth: depth + 1, &rng) }
        return .object(o)
    }
}
