// The book-level "this stage is done" record. Each stage also keeps its own per-output records
// (clear's and popout's `.NAME.key`, thumbs' thumbs.json) and skips current outputs by them; this
// one lets a re-run pass a whole book by after a few stats, and tells a finished stage from one a
// crash interrupted. It is written after the stage's last output, so it never vouches for
// outputs that are not there.

import BookModel
import FileIO
import Foundation
import Preparation
#if canImport(Glibc)
import Glibc
#endif

enum StageRecord {
    static let folder = ".prepare"

    static func path(_ stage: String, in book: String) -> String { book + "/" + folder + "/" + stage + ".done" }

    /// Everything the stage's outputs depend on, as text: the stage's version and parameters, each
    /// page scan's size and time, and (when the stage reads them) book.json's bytes and the input
    /// folders' files. Nil before the book has a book.json (a bare folder of scans that analyze has
    /// not turned into a book yet): nothing is current then.
    static func fingerprint(_ stage: LibraryStage, book: String) -> String? {
        let manifest = BookDirectory.manifestPath(in: book)
        guard let bytes = try? FileIO.read(manifest, limit: BookDirectory.manifestSizeLimit),
              let model = try? Book.decode(bytes, file: manifest).book
        else { return nil }
        var lines = ["picturebook-prepare/1", "stage \(stage.name) \(stage.version)"]
        for page in model.pages {
            lines.append("page \(page.image) \(SourceKey.of(BookDirectory.imagePath(of: page, in: book)))")
        }
        if stage.readsManifest { lines.append("manifest \(StableHash.hex(bytes))") }
        for folder in stage.inputFolders {
            let dir = book + "/" + folder
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: dir)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
            for name in names { lines.append("input \(folder)/\(name) \(SourceKey.of(dir + "/" + name))") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func read(_ stage: String, in book: String) -> String? {
        (try? FileIO.read(path(stage, in: book), limit: 1 << 24)).map { String(decoding: $0, as: UTF8.self) }
    }

    static func write(_ fingerprint: String, stage: String, in book: String) throws(LibraryError) {
        let p = path(stage, in: book)
        do {
            try FileIO.createOwnedDirectory(book + "/" + folder)
            try AtomicFile.write(Array(fingerprint.utf8), to: p)
        } catch {
            throw .record(path: p, reason: "\(error)")
        }
    }

    static func remove(_ stage: String, in book: String) { unlink(path(stage, in: book)) }
}
