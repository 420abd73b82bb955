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

    /// What the records of a book are checked against, read once per book (not once per stage:
    /// a re-run of a library where nothing changed is these reads and a few stats per book).
    struct Inputs {
        var manifestHash: String
        /// "page NAME src=SIZE@MTIME" per page, in order.
        var pageLines: [String]
        var book: String

        /// Nil before the book has a book.json (a bare folder of scans that analyze has not turned
        /// into a book yet): nothing is current then.
        init?(book: String) {
            let manifest = BookDirectory.manifestPath(in: book)
            guard let bytes = try? FileIO.read(manifest, limit: BookDirectory.manifestSizeLimit),
                  let model = try? Book.decode(bytes, file: manifest).book
            else { return nil }
            self.book = book
            manifestHash = StableHash.hex(bytes)
            pageLines = model.pages.map { "page \($0.image) \(StageRecord.sourceKey(BookDirectory.imagePath(of: $0, in: book)))" }
        }

        /// Everything `stage`'s outputs depend on, as text: the stage's version and parameters,
        /// each page scan's size and time, and (when the stage reads them) book.json's bytes and
        /// the input folders' files.
        func fingerprint(_ stage: LibraryStage) -> String {
            var lines = ["picturebook-prepare/1", "stage \(stage.name) \(stage.version)"] + pageLines
            if stage.readsManifest { lines.append("manifest \(manifestHash)") }
            for folder in stage.inputFolders {
                let dir = book + "/" + folder
                for name in StageRecord.names(in: dir) { lines.append("input \(folder)/\(name) \(StageRecord.sourceKey(dir + "/" + name))") }
            }
            return lines.joined(separator: "\n") + "\n"
        }
    }

    static func fingerprint(_ stage: LibraryStage, book: String) -> String? {
        Inputs(book: book)?.fingerprint(stage)
    }

    /// `src=SIZE@MTIME` as `SourceKey.of` writes it, from one stat (Foundation's attribute
    /// dictionary costs far more, and a re-run is mostly this).
    static func sourceKey(_ path: String) -> String {
        var st = stat()
        guard stat(path, &st) == 0 else { return "src=-1@-1" }
        return "src=\(st.st_size)@\(Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec))"
    }

    /// The visible entries of a folder, sorted (none if it cannot be read).
    static func names(in dir: String) -> [String] {
        guard let d = opendir(dir) else { return [] }
        defer { closedir(d) }
        var names: [String] = []
        while let entry = readdir(d) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !name.hasPrefix(".") { names.append(name) }
        }
        return names.sorted()
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
