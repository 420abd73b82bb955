import ArgumentParser
import Codecs
import BookModel

struct Validate: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Check book manifests (book.json) and report every problem in them.",
        discussion: """
            Each BOOK-DIR may be a book folder (holding book.json and its page scans) or a \
            manifest file. Every problem is reported, not just the first, one per line:
              FILE:LINE:COLUMN: error: JSON-PATH: message
              Books/moon/book.json:8:34: error: pages[0].width: expected a positive integer, found "abc"

            Warnings (such as text in a language the book does not list) do not make a book \
            invalid unless --strict is given. Documentation/BookFormat.md describes the format.

            Exit status: 0 when every book is valid, 1 when any is invalid, 2 when a book cannot \
            be read at all (no such folder, no book.json, unreadable file).

            Examples:
              picturebook validate Books/moon-rabbit
              picturebook validate Books/* --strict
              picturebook validate Books/moon-rabbit --deep   # decode every scan, not just its header
              picturebook validate Books/moon-rabbit --json | jq '.books[].diagnostics[]'
            """)

    @Argument(help: ArgumentHelp("Book folders or book.json files.", valueName: "book-dir"), completion: .directory)
    var books: [String] = []

    @Flag(help: "Print one JSON report instead of one line per problem.")
    var json = false

    @Flag(help: "Treat warnings as failures.")
    var strict = false

    @Flag(help: "Decode every scan in full, strictly, instead of reading only its header: finds truncated and damaged files (slower).")
    var deep = false

    func validate() throws {
        guard !books.isEmpty else { throw ValidationError("name at least one book folder, e.g. picturebook validate Books/moon-rabbit") }
    }

    func run() throws {
        let imageSize = deep ? deepPageImageSize : pageImageSize
        let report = ValidationReport(checks: books.map { BookCheck.run($0, imageSize: imageSize) }, strict: strict)
        if json {
            Console.out(String(JSONWriter.string(report.json).dropLast()))
        } else {
            for message in report.unreadableMessages { Console.error(message) }
            for line in report.diagnosticLines { Console.out(line) }
            Console.out(report.summary)
        }
        if report.exitCode != 0 { throw ExitCode(report.exitCode) }
    }
}

/// How the commands read a scan's pixel size for BookModel (to check a page's width and height, or
/// to fill them in for a new book). BookModel does not depend on the image codecs, so the CLI
/// supplies this. Only the header is parsed; the size is the upright one (EXIF orientation
/// applied), which is what rects refer to.
func pageImageSize(_ path: String) -> (Int, Int)? {
    guard let info = try? ImageDecoder.info(file: path) else { return nil }
    return (info.orientedWidth, info.orientedHeight)
}

/// `validate --deep`: the size of a scan that decodes in full with the strict decoder (damage the
/// libraries would conceal counts), or nil — so a truncated or bit-flipped scan is an error.
func deepPageImageSize(_ path: String) -> (Int, Int)? {
    var options = DecodeOptions()
    options.strict = true
    guard let bitmap = try? ImageDecoder.decode(file: path, options: options) else { return nil }
    return (bitmap.width, bitmap.height)
}
