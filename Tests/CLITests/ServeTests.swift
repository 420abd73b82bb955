// `picturebook serve` as a script would start it: the one URL line, errors for a missing folder
// and a busy port, and a clean exit on SIGINT.
import Foundation
import Testing

@Suite(.serialized) struct ServeCommandTests {
    @Test func missingFolderFailsWithMessage() throws {
        let r = try CLI.run(["serve", "/nonexistent/books-\(UUID().uuidString)", "--no-warm"])
        #expect(r.status == 1)
        #expect(r.stderr.contains("no such books folder"))
        #expect(r.stdout.isEmpty)
    }

    @Test func printsTheURLThenStopsOnSIGINTAndRefusesABusyPort() throws {
        let scratch = try Scratch()
        try FileManager.default.createDirectory(atPath: scratch.file("books"), withIntermediateDirectories: true)
        let p = Process()
        p.executableURL = CLI.executable
        p.arguments = ["serve", scratch.file("books"), "--port", "0", "--cache", scratch.file("cache"), "--no-warm"]
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        p.standardInput = FileHandle.nullDevice
        try p.run()
        // The line arrives as soon as the server listens (scripts wait for it).
        var line = ""
        let reader = out.fileHandleForReading
        while !line.contains("\n") {
            let chunk = reader.availableData
            if chunk.isEmpty { break }
            line += String(decoding: chunk, as: UTF8.self)
        }
        let pattern = #/^Picturebook reader: http://127\.0\.0\.1:(\d+)/\n$/#
        let match = try #require(line.wholeMatch(of: pattern), "got \(line.debugDescription)")
        let port = try #require(Int(match.1))
        #expect(port > 0)

        let busy = try CLI.run(["serve", scratch.file("books"), "--port", String(port), "--cache", scratch.file("cache"), "--no-warm"])
        #expect(busy.status == 1)
        #expect(busy.stderr.contains("already in use"))

        kill(p.processIdentifier, SIGINT)
        p.waitUntilExit()
        #expect(p.terminationReason == .exit)
        #expect(p.terminationStatus == 0)
    }
}
