// Terminal output shared by every subcommand: messages on stderr, results on stdout, a progress
// bar only when stderr is a terminal (so logs and pipes stay clean), JSON for scripts.

import ArgumentParser
import Foundation

#if canImport(Glibc)
import Glibc
#endif

enum Console {
    /// True when stderr is an interactive terminal: progress bars are drawn only then.
    static let stderrIsTerminal = isatty(STDERR_FILENO) == 1

    /// One lock for everything written to the terminal, so a progress bar and a message never
    /// interleave mid-line.
    fileprivate static let lock = NSLock()

    static func out(_ line: String) {
        lock.withLock { FileHandle.standardOutput.write(Data((line + "\n").utf8)) }
    }

    /// While `prepare` runs a stage's command in-process, the command's messages come here (to be
    /// attached to that book's report) instead of going to stderr line by line.
    nonisolated(unsafe) static var capture: (@Sendable (String) -> Void)?

    static func err(_ line: String) {
        if let capture {
            capture(line)
            return
        }
        lock.withLock {
            if Progress.isDrawing { FileHandle.standardError.write(Data("\r\u{1b}[2K".utf8)) }
            FileHandle.standardError.write(Data((line + "\n").utf8))
        }
    }

    /// `picturebook: <message>` on stderr — the form every failure takes.
    static func error(_ message: String) { err("picturebook: error: \(message)") }
    static func warning(_ message: String) { err("picturebook: warning: \(message)") }

    /// Pretty, key-sorted JSON on stdout.
    static func json(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        lock.withLock {
            FileHandle.standardOutput.write(data)
            FileHandle.standardOutput.write(Data("\n".utf8))
        }
    }

    /// One compact JSON object per line (JSON Lines), for streaming progress to scripts.
    static func jsonLine(_ value: some Encodable) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let data = try encoder.encode(value)
        lock.withLock {
            FileHandle.standardOutput.write(data)
            FileHandle.standardOutput.write(Data("\n".utf8))
        }
    }
}

/// A one-line progress bar on stderr: `analyze  [#########-----------]  12/40  p12.jpg`.
/// Silent when stderr is not a terminal or when disabled; safe to advance from any thread.
final class Progress: @unchecked Sendable {
    nonisolated(unsafe) fileprivate static var isDrawing = false

    private let label: String
    private let total: Int
    private let enabled: Bool
    private var done = 0
    private var lastDraw = 0.0
    private var lock: NSLock { Console.lock }

    init(_ label: String, total: Int, enabled: Bool = true) {
        self.label = label
        self.total = total
        // A command run inside `prepare` draws no bar of its own: prepare's bar is the one on screen.
        self.enabled = enabled && Console.stderrIsTerminal && total > 1 && Console.capture == nil
    }

    func advance(_ item: String = "") {
        lock.withLock {
            done += 1
            guard enabled else { return }
            let now = Date().timeIntervalSinceReferenceDate
            guard done == total || now - lastDraw > 0.05 else { return }
            lastDraw = now
            let width = 28
            let filled = total == 0 ? width : width * done / total
            let bar = String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
            let line = "\r\u{1b}[2K\(label)  [\(bar)]  \(done)/\(total)  \(item.suffix(40))"
            Progress.isDrawing = true
            FileHandle.standardError.write(Data(line.utf8))
        }
    }

    func finish() {
        lock.withLock {
            guard enabled, Progress.isDrawing else { return }
            FileHandle.standardError.write(Data("\r\u{1b}[2K".utf8))
            Progress.isDrawing = false
        }
    }
}

/// Runs a command's body the way every subcommand reports failure: an `ExitCode` passes through,
/// any other error is printed as `picturebook: error: …` (the errors carry the file name) and the
/// process exits 1.
func reportingFailure(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let exit as ExitCode {
        throw exit
    } catch {
        Console.error("\(error)")
        throw ExitCode(1)
    }
}

/// Parses a `WIDTHxHEIGHT` option value ("600x300", case-insensitive x) into two numbers; each
/// option then applies its own range checks.
func parseDimensions(_ s: String) -> (width: Double, height: Double)? {
    let parts = s.lowercased().split(separator: "x")
    guard parts.count == 2, let w = Double(parts[0]), let h = Double(parts[1]) else { return nil }
    return (w, h)
}
