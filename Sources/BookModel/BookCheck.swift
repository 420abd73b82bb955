// `picturebook validate` as a value: check a list of book folders, then render the outcome as
// text or JSON and pick the exit status. Lives here rather than in the CLI so it can be tested
// without spawning processes.

import FileIO

/// The outcome of checking one book folder (or manifest file).
public struct BookCheck: Sendable {
    public enum Status: String, Sendable {
        case valid, invalid, unreadable
    }

    /// The operand as given.
    public var input: String
    /// The manifest that was read.
    public var manifest: String
    /// Every problem, errors and warnings, in file order. For an unreadable book, the one reason.
    public var diagnostics: [Diagnostic]
    public var status: Status

    /// Loads and validates one book. Never throws: every outcome is a `BookCheck`.
    public static func run(_ input: String, imageSize: ((String) -> (Int, Int)?)? = nil) -> BookCheck {
        let (_, manifest) = BookDirectory.resolve(input)
        func unreadable(_ message: String) -> BookCheck {
            BookCheck(input: input, manifest: manifest, diagnostics: [.error(.root, message)], status: .unreadable)
        }
        guard FileIO.exists(input) else { return unreadable("\(input): no such file or folder") }
        if FileIO.isDirectory(input), !FileIO.exists(manifest) {
            return unreadable("\(input): not a book folder: there is no \(BookDirectory.manifestName) in it")
        }
        do {
            let (_, warnings) = try Book.load(file: manifest, imageSize: imageSize)
            return BookCheck(input: input, manifest: manifest, diagnostics: warnings, status: .valid)
        } catch {
            switch error {
            case .invalid, .malformedJSON:
                return BookCheck(input: input, manifest: manifest, diagnostics: error.diagnostics, status: .invalid)
            default:
                return unreadable(error.description)
            }
        }
    }

    public var errorCount: Int { diagnostics.errors.count }
    public var warningCount: Int { diagnostics.warnings.count }

    /// Passes: valid, and free of warnings when `strict`.
    public func passes(strict: Bool) -> Bool { status == .valid && !(strict && warningCount > 0) }
}

/// The outcome of checking several books.
public struct ValidationReport: Sendable {
    public var checks: [BookCheck]
    /// Warnings count as failures.
    public var strict: Bool

    public init(checks: [BookCheck], strict: Bool) {
        self.checks = checks
        self.strict = strict
    }

    /// 0 when every book passes, 2 when any could not be read, otherwise 1.
    public var exitCode: Int32 {
        if checks.contains(where: { $0.status == .unreadable }) { return 2 }
        return checks.allSatisfy { $0.passes(strict: strict) } ? 0 : 1
    }

    /// One line per diagnostic of readable books, `FILE[:LINE:COL]: SEVERITY: PATH: MESSAGE`.
    public var diagnosticLines: [String] {
        checks.filter { $0.status != .unreadable }.flatMap { c in c.diagnostics.map { $0.formatted(file: c.manifest) } }
    }

    /// Why each unreadable book could not be read.
    public var unreadableMessages: [String] {
        checks.filter { $0.status == .unreadable }.flatMap { $0.diagnostics.map(\.message) }
    }

    /// "3 books checked: 1 valid, 1 invalid, 1 unreadable; 4 errors, 1 warning".
    public var summary: String {
        let passed = checks.filter { $0.passes(strict: strict) }.count
        let unreadable = checks.filter { $0.status == .unreadable }.count
        let failed = checks.count - passed - unreadable
        var parts = ["\(passed) valid"]
        if failed > 0 || unreadable == 0 { parts.append("\(failed) invalid") }
        if unreadable > 0 { parts.append("\(unreadable) unreadable") }
        let errors = checks.filter { $0.status != .unreadable }.reduce(0) { $0 + $1.errorCount }
        let warnings = checks.reduce(0) { $0 + $1.warningCount }
        var s = "\(plural(checks.count, "book")) checked: " + parts.joined(separator: ", ")
        s += "; \(plural(errors, "error")), \(plural(warnings, "warning"))"
        if strict && warnings > 0 { s += " (--strict: warnings fail)" }
        return s
    }

    public var json: JSONValue {
        var books: [JSONValue] = []
        for c in checks {
            var o: JSONObject = [
                "input": .string(c.input), "manifest": .string(c.manifest),
                "status": .string(c.status == .valid && !c.passes(strict: strict) ? "invalid" : c.status.rawValue),
                "errors": .number(JSONNumber(c.errorCount)), "warnings": .number(JSONNumber(c.warningCount)),
            ]
            o["diagnostics"] = .array(c.diagnostics.map { d in
                var e: JSONObject = ["severity": .string(d.severity.rawValue), "path": .string(d.path.description), "message": .string(d.message)]
                if let loc = d.location {
                    e["line"] = .number(JSONNumber(loc.line))
                    e["column"] = .number(JSONNumber(loc.column))
                }
                return .object(e)
            })
            books.append(.object(o))
        }
        let passed = checks.filter { $0.passes(strict: strict) }.count
        let unreadable = checks.filter { $0.status == .unreadable }.count
        let summary: JSONObject = [
            "books": .number(JSONNumber(checks.count)), "valid": .number(JSONNumber(passed)),
            "invalid": .number(JSONNumber(checks.count - passed - unreadable)), "unreadable": .number(JSONNumber(unreadable)),
            "errors": .number(JSONNumber(checks.filter { $0.status != .unreadable }.reduce(0) { $0 + $1.errorCount })),
            "warnings": .number(JSONNumber(checks.reduce(0) { $0 + $1.warningCount })),
        ]
        return ["valid": .bool(exitCode == 0), "strict": .bool(strict), "summary": .object(summary), "books": .array(books)]
    }
}
