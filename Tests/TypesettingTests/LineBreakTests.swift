import Foundation
import Testing
@testable import Typesetting

/// The Unicode conformance file for UAX #14, from Debian's `unicode-data` (Tools/setup.sh).
let lineBreakTestPath = "/usr/share/unicode/auxiliary/LineBreakTest.txt"

struct LineBreakCase {
    let codePoints: [UInt32]
    /// Expected opportunity before each code point after the first (true = break).
    let breaks: [Bool]
    let line: Int
    let source: String
}

func loadLineBreakCases() throws -> [LineBreakCase] {
    let text = try String(contentsOfFile: lineBreakTestPath, encoding: .utf8)
    var cases: [LineBreakCase] = []
    for (n, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let data = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let tokens = data.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard !tokens.isEmpty else { continue }
        var cps: [UInt32] = []
        var breaks: [Bool] = []
        for t in tokens {
            if t == "÷" || t == "×" {
                if !cps.isEmpty { breaks.append(t == "÷") }
            } else if let v = UInt32(t, radix: 16) {
                cps.append(v)
            }
        }
        breaks.removeLast()  // the end of text always breaks (LB3)
        cases.append(LineBreakCase(codePoints: cps, breaks: breaks, line: n + 1, source: String(rawLine)))
    }
    return cases
}

@Suite struct LineBreakTests {
    @Test func unicodeLineBreakTestPasses() throws {
        try #require(
            FileManager.default.fileExists(atPath: lineBreakTestPath),
            "install Debian's unicode-data (Tools/setup.sh) for \(lineBreakTestPath)")
        let cases = try loadLineBreakCases()
        #expect(cases.count > 7000)
        var failures: [String] = []
        for c in cases {
            let got = LineBreaker.opportunities(codePoints: c.codePoints)
            let gotBreaks = (1..<c.codePoints.count).map { got[$0] != .prohibited }
            if gotBreaks != c.breaks {
                failures.append("line \(c.line): \(c.source)\n   got \(gotBreaks.map { $0 ? "÷" : "×" }.joined(separator: " "))")
            }
        }
        let passed = cases.count - failures.count
        print("LineBreakTest: \(passed)/\(cases.count) passed")
        #expect(failures.isEmpty, "\(failures.count) of \(cases.count) failed; first: \(failures.prefix(5).joined(separator: "\n"))")
    }

    @Test(arguments: [
        ("Hello world", [6]),  // break after the space, before "world"
        ("a-b", [2]),
        ("你好世界", [1, 2, 3]),  // between ideographs
        ("「你好」。", [2]),  // none after an opening bracket or before closing punctuation
        ("$(12.5)%", []),
        ("line\nnext", [5]),
    ])
    func breakPositions(_ text: String, _ expected: [Int]) {
        let ops = LineBreaker.opportunities(text)
        let n = text.unicodeScalars.count
        let got = (1..<n).filter { ops[$0] != .prohibited }
        #expect(got == expected, "\(text)")
        #expect(ops[n] == .mandatory)
    }

    @Test func newlineIsMandatory() {
        let ops = LineBreaker.opportunities("ab\ncd")
        #expect(ops[3] == .mandatory)
        #expect(ops[2] == .prohibited)
    }
}
