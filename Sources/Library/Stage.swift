// A stage as the library run sees it: a name, what its outputs depend on, where they go, and a
// function that brings one book's outputs up to date. The stages themselves (analyze, clear,
// popout, thumbs) live where they always have; the CLI hands them over as values, so this module
// orders, skips, locks and reports without knowing how any stage works.

public import Thumbnails

/// One book of the library, as given to a stage.
public struct LibraryBook: Sendable, Hashable {
    /// The book folder.
    public var directory: String
    /// Its path relative to the library folder: what `--shard` hashes and what reports name.
    public var name: String
    /// Its thumbnail folder name under the thumbs output (unique across the library).
    public var key: String
    /// Position in the whole library's natural order (the library grid follows it).
    public var index: Int

    public var source: BookSource { BookSource(directory: directory, key: key, index: index) }
}

/// What a stage is told when it runs for a book.
public struct StageRequest: Sendable {
    public var book: LibraryBook
    /// Redo outputs even where the stage's own per-output records say they are current: set by
    /// `--force`, and when the stage never finished on this book (a run killed half-way through a
    /// stage may have written some outputs but not the book-level results that go with them).
    public var redo: Bool
}

/// What a stage did to a book.
public struct StageResult: Sendable {
    /// Pages the stage went over (for pages-per-second figures).
    public var pages: Int
    /// Something the run should report although the stage did not fail (what it left undone
    /// and why, like boxes in a language with no OCR model installed).
    public var note: String?
    public init(pages: Int, note: String? = nil) {
        self.pages = pages
        self.note = note
    }
}

public struct StageFailure: Error, Sendable, CustomStringConvertible {
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

public struct LibraryStage: Sendable {
    public var name: String
    /// Everything besides the inputs that shapes the outputs: the stage's output version and its
    /// parameters. A change redoes the stage on every book.
    public var version: String
    /// Whether book.json is an input (its boxes for clear and popout, its order for thumbs). Not for
    /// analyze, which writes it: its inputs are the scans.
    public var readsManifest: Bool
    /// Folders (relative to the book) whose files are inputs too, like the masks clear reads.
    public var inputFolders: [String]
    /// Folders this stage writes for a book (full paths); they must exist for the book to count as
    /// done, and temp files killed writers left in them are cleared before the stage runs.
    public var outputFolders: @Sendable (LibraryBook) -> [String]
    /// True when what this stage writes into book.json is read by no stage before it in the
    /// pipeline (ocr's recognised text: clear reads boxes and masks, never text). Records store
    /// book.json's hash, so without this a run that ends with ocr having read something leaves
    /// clear's record stale: the finished library is not "done" (`--merge` refuses) and the next
    /// run redoes clear. With it, an earlier stage whose record was current just before this
    /// stage ran is re-recorded against the book.json this stage leaves.
    public var keepsEarlierRecords: Bool
    public var run: @Sendable (StageRequest) throws -> StageResult

    public init(
        name: String, version: String, readsManifest: Bool, inputFolders: [String] = [],
        keepsEarlierRecords: Bool = false,
        outputFolders: @escaping @Sendable (LibraryBook) -> [String],
        run: @escaping @Sendable (StageRequest) throws -> StageResult
    ) {
        self.name = name
        self.version = version
        self.readsManifest = readsManifest
        self.inputFolders = inputFolders
        self.keepsEarlierRecords = keepsEarlierRecords
        self.outputFolders = outputFolders
        self.run = run
    }
}
