// `picturebook generate --illustrations`: bad folders stop with a message naming them.
import Foundation
import Testing

@Suite struct GenerateIllustrationsTests {
    @Test func badIllustrationFoldersFailWithAMessage() throws {
        let scratch = try Scratch()
        let missing = scratch.file("no-such-plates")
        let r1 = try CLI.run(["generate", "--illustrations", missing, "--out", scratch.file("out1"), "--pages", "1", "--size", "200x250"])
        #expect(r1.status != 0)
        #expect(r1.stderr.contains(missing) && r1.stderr.contains("no such folder"), "\(r1.stderr)")

        let junk = scratch.file("plates")
        try FileManager.default.createDirectory(atPath: junk, withIntermediateDirectories: true)
        try Data("hello".utf8).write(to: URL(fileURLWithPath: junk + "/notes.txt"))
        let r2 = try CLI.run(["generate", "--illustrations", junk, "--out", scratch.file("out2"), "--pages", "1", "--size", "200x250"])
        #expect(r2.status != 0)
        #expect(r2.stderr.contains("notes.txt") && r2.stderr.contains("not a readable image"), "\(r2.stderr)")
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out2/truth.json")))
    }
}
