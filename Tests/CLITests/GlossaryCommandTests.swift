// `picturebook glossary` end to end: proposals land in book.json, an editor's entry survives,
// --dry-run writes nothing, --json is machine-readable, bad books fail with a named file.
import Foundation
import Testing

@Suite struct GlossaryCommandTests {
    static let sentences = [
        ("The cat sleeps.", "Le chat dort."), ("The cat eats fish.", "Le chat mange du poisson."),
        ("The dog eats bread.", "Le chien mange du pain."), ("The dog sleeps in the boat.", "Le chien dort dans le bateau."),
        ("The boat is on the sea.", "Le bateau est sur la mer."), ("The sea is blue.", "La mer est bleue."),
        ("The fish swims in the sea.", "Le poisson nage dans la mer."), ("The cat sees the boat.", "Le chat voit le bateau."),
    ]

    /// A book of one sentence pair per page, with one editor's entry ("cat" → "le matou").
    func makeBook(_ scratch: Scratch, languages: String = #"["en", "fr"]"#) throws -> String {
        let dir = scratch.file("book")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        var pages: [String] = []
        for (i, (en, fr)) in Self.sentences.enumerated() {
            // Only the file's existence is checked: no image size is read without --deep.
            try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: dir + "/p\(i + 1).png"))
            pages.append(#"{"image": "p\#(i + 1).png", "width": 100, "height": 100, "textBoxes": [{"id": "t", "rect": {"x": 0, "y": 0, "width": 50, "height": 20}, "text": {"en": "\#(en)", "fr": "\#(fr)"}}]}"#)
        }
        let json = """
            {"format": "picturebook-book/1", "title": "Cats", "languages": \(languages), "readingDirection": "ltr",
             "pages": [\(pages.joined(separator: ",\n"))],
             "glossary": [{"id": "cat", "language": "en", "text": "cat", "translations": {"fr": "le matou"}, "source": "editor"}]}
            """
        try json.write(toFile: dir + "/book.json", atomically: true, encoding: .utf8)
        return dir
    }

    func glossary(_ dir: String) throws -> [[String: Any]] {
        let data = try Data(contentsOf: URL(fileURLWithPath: dir + "/book.json"))
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(root["glossary"] as? [[String: Any]])
    }

    @Test func proposesIntoTheBookAndLeavesTheEditorsEntry() throws {
        let scratch = try Scratch()
        let dir = try makeBook(scratch)
        let r = try CLI.run(["glossary", dir])
        #expect(r.status == 0, "\(r.stderr)")
        let entries = try glossary(dir)
        let cat = entries.filter { ($0["text"] as? String)?.lowercased() == "cat" }
        #expect(cat.count == 1)
        #expect((cat.first?["translations"] as? [String: String])?["fr"] == "le matou")
        let proposed = entries.filter { $0["source"] as? String == "proposed" }
        let pairs = Dictionary(proposed.compactMap { e -> (String, String)? in
            guard let t = e["text"] as? String, let fr = (e["translations"] as? [String: String])?["fr"] else { return nil }
            return (t.lowercased(), fr.lowercased())
        }, uniquingKeysWith: { a, _ in a })
        #expect(pairs["dog"] == "chien")
        #expect(pairs["boat"] == "bateau")
        #expect(pairs["sea"] == "mer")
        #expect(!pairs.values.contains("chat"), "no second entry takes the word an editor covers")
        #expect(r.stdout.contains("proposals"))
        // The written glossary passes validation (the stand-in scans themselves do not: they are
        // four bytes), and a second run changes nothing.
        let v = try CLI.run(["validate", dir])
        #expect(!v.stdout.contains("glossary"), "\(v.stdout)")
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/book.json"))
        #expect(try CLI.run(["glossary", dir]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/book.json")) == before)
    }

    @Test func dryRunWritesNothingAndJSONIsReadable() throws {
        let scratch = try Scratch()
        let dir = try makeBook(scratch)
        let before = try Data(contentsOf: URL(fileURLWithPath: dir + "/book.json"))
        let r = try CLI.run(["glossary", dir, "--dry-run", "--json", "--min-count", "2"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir + "/book.json")) == before)
        let report = try #require(try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])
        let proposals = try #require(report["proposals"] as? [[String: Any]])
        #expect(!proposals.isEmpty)
        for p in proposals {
            let evidence = try #require(p["evidence"] as? [String: [String: Any]])
            #expect(((evidence["fr"]?["count"] as? Int) ?? 0) >= 2)
        }
        #expect(report["dryRun"] as? Bool == true)
    }

    @Test func badInputFailsWithAMessage() throws {
        let scratch = try Scratch()
        let missing = try CLI.run(["glossary", scratch.file("nope")])
        #expect(missing.status != 0)
        #expect(missing.stderr.contains("nope"))
        let single = try makeBook(scratch, languages: #"["en"]"#)
        let one = try CLI.run(["glossary", single])
        #expect(one.status == 1)
        #expect(one.stderr.contains("picturebook: error:"))
        #expect(!one.stderr.contains("Fatal"))
        let zero = try CLI.run(["glossary", single, "--min-count", "0"])
        #expect(zero.status != 0)
        #expect(zero.stderr.contains("--min-count"))
    }
}
