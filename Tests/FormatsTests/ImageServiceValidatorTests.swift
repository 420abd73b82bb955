// The IIIF Image API validator (iiif-validator, PyPI, pinned in Tools/setup.sh --formats) run
// against the image service of a real `picturebook serve`: a book whose one page is the
// validator's test picture, the server on a free port, and every check of level 1 for API 3.0.
// Any failed check fails the test, with the validator's report.
import Foundation
import Testing

@Suite(.serialized) struct ImageServiceValidatorTests {
    @Test("iiif-validator passes every level-1 check of Image API 3.0 against `picturebook serve`")
    func level1() throws {
        guard let validator = Tool.require(Repo.venv + "/iiif-validate.py"), let python = Tool.require(Repo.venv + "/python") else { return }
        let dir = try TempDir()
        let book = dir.path + "/books/validator"
        try FileManager.default.createDirectory(atPath: book, withIntermediateDirectories: true)
        let here = URL(fileURLWithPath: #filePath).deletingLastPathComponent().path
        let drawn = try Tool.run(python, [here + "/iiif-test-image.py", book + "/page-001.png"])
        try #require(drawn.status == 0, "iiif-test-image.py: \(drawn.stderr)")
        let manifest = """
            {"format": "picturebook-book/1", "title": {"en": "IIIF validator picture"}, "languages": ["en"],
             "readingDirection": "ltr", "spreads": [],
             "pages": [{"image": "page-001.png", "width": 1000, "height": 1000, "textBoxes": []}]}
            """
        try Data(manifest.utf8).write(to: URL(fileURLWithPath: book + "/book.json"))

        let server = Process()
        server.executableURL = URL(fileURLWithPath: Tool.picturebook)
        server.arguments = ["serve", dir.path + "/books", "--port", "0", "--cache", dir.path + "/cache", "--no-warm"]
        let out = Pipe()
        server.standardOutput = out
        server.standardError = FileHandle.nullDevice
        server.standardInput = FileHandle.nullDevice
        try server.run()
        defer {
            kill(server.processIdentifier, SIGINT)
            server.waitUntilExit()
        }
        // `serve` prints its URL once it listens.
        var line = ""
        while !line.contains("\n") {
            let chunk = out.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line += String(decoding: chunk, as: UTF8.self)
        }
        let match = try #require(line.firstMatch(of: #/http://(127\.0\.0\.1:\d+)/#), "serve printed \(line.debugDescription)")
        let host = String(match.1)

        // Through a wrapper that only lengthens the validator's 5 s wait for each answer (a debug
        // build on a loaded machine can take longer to scale the picture); the checks are its own.
        let r = try Tool.run(python, [here + "/iiif-validate-patient.py", validator,
                                      "-s", host, "-p", "iiif/validator/image", "-i", "1", "--version", "3.0", "--level", "1", "-v"])
        // The validator's exit status is its number of failed checks; it prints PASS/FAIL per check.
        let report = r.stdout + r.stderr
        print(report.split(separator: "\n").filter { $0.contains("PASS") || $0.contains("FAIL") || $0.contains("Done") }.joined(separator: "\n"))
        #expect(report.contains("Done ("), "the validator did not finish: \(report.suffix(2000))")
        // Level 1 for 3.0 is 24 checks in iiif-validator 1.0.5; fewer would mean checks were skipped.
        let passes = report.split(separator: "\n").filter { $0.hasSuffix(" PASS") }.count
        let failures = Self.failures(report)
        #expect(passes == 24 && failures.isEmpty && r.status == 0,
                "iiif-validator: \(passes) passed, failed: \(failures.joined(separator: ", "))\n\(report.suffix(6000))")
    }

    /// The names of the failed checks in a validator report.
    static func failures(_ report: String) -> [String] {
        report.split(separator: "\n").compactMap { line in line.firstMatch(of: #/test (\w+) FAIL$/#).map { String($0.1) } }
    }
}
