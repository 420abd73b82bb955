import ArgumentParser
import BookModel
import FileIO
import Glossary

struct GlossaryCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "glossary",
        abstract: "Propose glossary entries (word pairs) from a book's aligned sentences.",
        discussion: """
            Every text box that holds its text in the book's first language and in another one is \
            a sentence pair. Words that keep turning up together across those pairs are proposed \
            as translations of each other (Dice coefficient, one-to-one competitive linking); an \
            installed freedict dictionary (Debian's dict-freedict-* packages, in /usr/share/dictd) \
            breaks ties. Languages written without spaces (Chinese, Japanese, Thai) are matched by \
            runs of one to three characters.

            Proposals are written into book.json's "glossary" with "source": "proposed", \
            replacing the previous run's proposals. Entries an editor made or accepted ("source": \
            "editor", or no source) are never changed, and no proposal duplicates a word they \
            cover. Check the proposals by eye: fix them and set "source": "editor", or delete them. \
            Documentation/Glossary.md explains the method and its measured precision.

            Examples:
              picturebook glossary Books/salmas-red-kite --dry-run
              picturebook glossary Books/salmas-red-kite --min-count 2
              picturebook glossary Books/salmas-red-kite --json --dry-run | jq '.proposals[]'
            """)

    @Argument(help: ArgumentHelp("The book folder.", valueName: "book-dir"), completion: .directory)
    var book: String

    @Flag(help: "Print one JSON report instead of a table.")
    var json = false

    @Option(help: "Propose only pairs seen together in at least this many sentence pairs.")
    var minCount = 1

    @Flag(help: "Show the proposals without writing book.json.")
    var dryRun = false

    @Option(help: ArgumentHelp("Where dictd dictionaries are installed.", valueName: "dir"))
    var dictionaries = BilingualDictionary.defaultDirectory

    func validate() throws {
        guard minCount >= 1 else { throw ValidationError("--min-count must be 1 or more, found \(minCount)") }
    }

    func run() throws {
        guard FileIO.exists(book) else {
            Console.error("glossary: \(book): no such book folder")
            throw ExitCode.failure
        }
        let directory = BookDirectory.resolve(book).directory
        var model: Book
        do {
            model = try Book.load(directory: directory).book
        } catch {
            Console.error("glossary: \(error)")
            throw ExitCode.failure
        }
        guard let pivot = model.languages.first, model.languages.count >= 2 else {
            Console.error("glossary: \(directory): the book has one language; a glossary pairs words of two")
            throw ExitCode.failure
        }
        var loaded: [String: BilingualDictionary] = [:]
        for language in model.languages.dropFirst() {
            do {
                if let d = try BilingualDictionary.installed(from: pivot, to: language, directory: dictionaries) { loaded[language] = d }
            } catch {
                // A broken dictionary only costs tie-breaking; say so and go on without it.
                Console.warning("glossary: \(error); going on without it")
            }
        }
        let pairsFound = model.languages.dropFirst().map { Proposer.sentencePairs(in: model, pivot: pivot, language: $0).count }
        guard pairsFound.contains(where: { $0 > 0 }) else {
            Console.error("glossary: \(directory): no text box has its text in \(pivot) and another language; nothing to align")
            throw ExitCode.failure
        }
        let proposer = Proposer(options: AlignmentOptions(minimumCount: minCount), dictionaries: loaded)
        let proposals = proposer.propose(for: model)
        let (merged, report) = GlossaryMerge.merge(proposals, into: model.glossary)
        let changed = merged != model.glossary
        if !dryRun, changed {
            model.glossary = merged
            do {
                try model.save(directory: directory)
            } catch {
                Console.error("glossary: \(error)")
                throw ExitCode.failure
            }
        }
        if json {
            Console.out(String(JSONWriter.string(jsonReport(proposals, report, merged: merged, dictionaries: loaded)).dropLast()))
            return
        }
        for p in proposals {
            let translations = p.entry.translations.map { t in
                let e = p.evidence[t.language]
                let mark = e?.inDictionary == true ? " (dict)" : ""
                return "\(t.language): \(t.text) [dice \(format(e?.dice ?? 0)), ×\(e?.count ?? 0)\(mark)]"
            }
            Console.out("p\(p.page)  \(p.entry.text)  →  \(translations.joined(separator: "; "))")
        }
        let dicts = loaded.isEmpty ? "no dictionary" : "dictionaries for " + loaded.keys.sorted().joined(separator: ", ")
        let verb = dryRun ? "would add" : "added"
        Console.out("\(proposals.count) proposals (\(dicts)); \(verb) \(report.added.count), "
            + "\(dryRun ? "would remove" : "removed") \(report.removed.count) earlier proposals, "
            + "\(report.keptEditor.count) left to editors' entries" + (dryRun || !changed ? "" : "; wrote \(BookDirectory.manifestPath(in: directory))"))
    }

    func jsonReport(_ proposals: [Proposal], _ report: MergeReport, merged: [GlossaryEntry], dictionaries: [String: BilingualDictionary]) -> JSONValue {
        var list: [JSONValue] = []
        for p in proposals {
            var evidence = JSONObject()
            for (language, e) in p.evidence.sorted(by: { $0.key < $1.key }) {
                evidence[language] = [
                    "target": .string(e.target), "dice": .number(JSONNumber(rounded(e.dice))),
                    "score": .number(JSONNumber(rounded(e.score))), "count": .number(JSONNumber(e.count)),
                    "inDictionary": .bool(e.inDictionary),
                ]
            }
            list.append([
                "language": .string(p.entry.language), "text": .string(p.entry.text), "translations": p.entry.translations.json,
                "page": .number(JSONNumber(p.page)), "evidence": .object(evidence),
            ])
        }
        return [
            "book": .string(book), "dryRun": .bool(dryRun), "proposals": .array(list),
            "dictionaries": .array(dictionaries.keys.sorted().map(JSONValue.string)),
            "added": .array(report.added.map(JSONValue.string)), "removed": .array(report.removed.map(JSONValue.string)),
            "leftToEditors": .array(report.keptEditor.map(JSONValue.string)), "entries": .number(JSONNumber(merged.count)),
        ]
    }

    func rounded(_ x: Double) -> Double { (x * 1000).rounded() / 1000 }
    func format(_ x: Double) -> String { String(rounded(x)) }
}
