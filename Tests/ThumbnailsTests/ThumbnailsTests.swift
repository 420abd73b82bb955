// Thumbnails: resumability, sharding, bad pages, spread pairing in the overview grid.
import BookModel
import Codecs
import FileIO
import Foundation
import Raster
import TestSupport
import Testing

@testable import Thumbnails

// MARK: - Fixtures

/// A colour per page, far enough apart that a tile is identified by its centre pixel.
func pageColor(_ k: Int) -> RGBA8 {
    RGBA8(r: UInt8((k * 37) % 200 + 30), g: UInt8((k * 71) % 200 + 30), b: UInt8((k * 113) % 200 + 30))
}

/// A book folder of `pages` flat-coloured JPEG scans (small, so tests stay fast).
@discardableResult
func makeBook(
    in parent: String, name: String, pages: Int, width: Int = 320, height: Int = 400, spreads: [Spread] = [],
    direction: ReadingDirection = .leftToRight, seed: Int = 0
) throws -> String {
    let dir = parent + "/" + name
    try FileIO.createDirectory(dir)
    var list: [Page] = []
    for k in 1...pages {
        let image = String(format: "page-%03d.jpg", k)
        let bitmap = Bitmap<RGBA8>(width: width, height: height, fill: pageColor(k + seed))
        try JPEGEncoder.write(bitmap, to: dir + "/" + image, options: JPEGEncodeOptions(quality: 92))
        list.append(Page(image: image, width: width, height: height))
    }
    try Book(title: .plain(name), languages: ["en"], readingDirection: direction, pages: list, spreads: spreads)
        .save(directory: dir)
    return dir
}

func mtime(_ path: String) -> Int64 { FileIO.modificationTime(path) ?? -1 }

/// Every file under `dir` (relative path → modification time).
func listing(_ dir: String) -> [String: Int64] {
    var out: [String: Int64] = [:]
    let e = FileManager.default.enumerator(atPath: dir)
    while let rel = e?.nextObject() as? String {
        let full = dir + "/" + rel
        if !FileIO.isDirectory(full) { out[rel] = mtime(full) }
    }
    return out
}

func smallParameters() -> ThumbnailParameters {
    ThumbnailParameters(boxWidth: 40, boxHeight: 50, columns: 4, gutter: 6, labelSize: 10)
}

// MARK: - Resumability

@Suite struct Resumability {
    @Test func secondRunDoesNothingAndChangingOneScanRedoesOnlyItsBook() throws {
        let root = makeTemporaryDirectory("thumbs-resume")
        defer { try? FileManager.default.removeItem(atPath: root) }
        for i in 1...3 { try makeBook(in: root + "/lib", name: "book-\(i)", pages: 5, seed: i * 10) }
        let out = root + "/out"
        let runner = ThumbnailRunner(parameters: smallParameters(), outputDirectory: out)
        let books = try BookDiscovery.books(in: [root + "/lib"])
        #expect(books.map(\.key) == ["book-1", "book-2", "book-3"])

        let first = try runner.run(books)
        #expect(first.done == 3 && first.skipped == 0 && first.pages == 15)
        #expect(first.library?.upToDate == false)
        let before = listing(out)
        #expect(before["book-2/overview.png"] != nil && before["book-2/p005@2x.jpg"] != nil && before["library.png"] != nil)

        // Nothing changed: nothing is redone, no file is rewritten.
        Thread.sleep(forTimeInterval: 0.02)
        let second = try runner.run(books)
        #expect(second.done == 0 && second.skipped == 3 && second.pages == 0)
        #expect(second.library?.upToDate == true)
        #expect(listing(out) == before)

        // Touched but identical: the content hash says "same", still nothing redone.
        let scan = root + "/lib/book-2/page-003.jpg"
        let bytes = try FileIO.read(scan)
        try AtomicFile.write(bytes, to: scan)
        let third = try runner.run(books)
        #expect(third.skipped == 3 && third.pages == 0 && third.library?.upToDate == true)

        // One scan really changed: only that book is redone.
        Thread.sleep(forTimeInterval: 0.02)
        let changed = Bitmap<RGBA8>(width: 320, height: 400, fill: RGBA8(r: 250, g: 10, b: 10))
        try JPEGEncoder.write(changed, to: scan)
        let fourth = try runner.run(books)
        #expect(fourth.done == 1 && fourth.skipped == 2 && fourth.pages == 5)
        let after = listing(out)
        for (file, time) in before where file.hasPrefix("book-1/") || file.hasPrefix("book-3/") {
            #expect(after[file] == time, "\(file) was rewritten")
        }
        #expect(after["book-2/p003.jpg"] != before["book-2/p003.jpg"])
        let thumb = try ImageDecoder.decode(file: out + "/book-2/p003.jpg")
        #expect(thumb[thumb.width / 2, thumb.height / 2].r > 200)

        // Other parameters make every book stale.
        var other = runner
        other.parameters.gutter = 8
        #expect(try other.run(books).done == 3)
    }
}

@Suite struct StaleOutputs {
    @Test func aBookThatLostPagesLosesTheirThumbnails() throws {
        let root = makeTemporaryDirectory("thumbs-stale")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try makeBook(in: root, name: "b", pages: 5)
        let runner = ThumbnailRunner(parameters: smallParameters(), outputDirectory: root + "/out")
        _ = try runner.run(try BookDiscovery.books(in: [root + "/b"]))
        #expect(FileIO.exists(root + "/out/b/p005@2x.jpg"))
        try FileManager.default.removeItem(atPath: root + "/b")
        try makeBook(in: root, name: "b", pages: 3)
        let again = try runner.run(try BookDiscovery.books(in: [root + "/b"]))
        #expect(again.done == 1)
        #expect(FileIO.exists(root + "/out/b/p003.jpg"))
        #expect(!FileIO.exists(root + "/out/b/p004.jpg") && !FileIO.exists(root + "/out/b/p005@2x.jpg"))
    }
}

// MARK: - Sharding

@Suite struct Sharding {
    @Test(arguments: [2, 3])
    func unionOfShardsEqualsOneRun(shards: Int) throws {
        let root = makeTemporaryDirectory("thumbs-shard")
        defer { try? FileManager.default.removeItem(atPath: root) }
        for i in 1...5 { try makeBook(in: root + "/lib", name: "b\(i)", pages: 3, seed: i * 7) }
        let books = try BookDiscovery.books(in: [root + "/lib"])
        let single = ThumbnailRunner(parameters: smallParameters(), outputDirectory: root + "/single")
        _ = try single.run(books)

        let sharded = ThumbnailRunner(parameters: smallParameters(), outputDirectory: root + "/sharded")
        var seen: [String] = []
        for k in 1...shards {
            let s = try #require(Shard(index: k, count: shards))
            let summary = try sharded.run(books, shard: s)
            #expect(summary.library == nil)
            let record = try #require(Records.decode(ShardRecord.self, at: root + "/sharded/shard-\(k)-of-\(shards).json"))
            seen += record.books.map(\.key)
            if k < shards {
                // Merging before every shard is done is refused, naming what is missing.
                #expect(throws: ThumbnailError.self) { try sharded.merge() }
            }
        }
        #expect(seen.count == books.count, "shards overlap or miss books: \(seen)")
        #expect(Set(seen) == Set(books.map(\.key)))
        let library = try sharded.merge()
        #expect(library.books == 5 && library.missing.isEmpty)

        let a = listing(root + "/single").keys.sorted()
        let b = listing(root + "/sharded").keys.filter { !$0.hasPrefix("shard-") }.sorted()
        #expect(a == b)
        for file in a where file.hasSuffix(".png") || file.hasSuffix(".jpg") {
            let x = try ImageDecoder.decode(file: root + "/single/" + file)
            let y = try ImageDecoder.decode(file: root + "/sharded/" + file)
            #expect(x.width == y.width && x.height == y.height, "\(file)")
            if x.width == y.width && x.height == y.height {
                #expect(ImageComparison.difference(x, y).maxError <= 2, "\(file) differs")
            }
        }
    }

    @Test func shardParsingAndRoundRobin() {
        #expect(Shard(parsing: "2/4") == Shard(index: 2, count: 4))
        for bad in ["0/4", "5/4", "x/2", "1", "1/0", "-1/2"] { #expect(Shard(parsing: bad) == nil, "\(bad)") }
        let books = (0..<10).map { BookSource(directory: "/b\($0)", key: "b\($0)", index: $0) }
        let parts = (1...3).map { k in books.filter { Shard(index: k, count: 3)!.contains($0) }.map(\.index) }
        #expect(parts == [[0, 3, 6, 9], [1, 4, 7], [2, 5, 8]])
    }
}

// MARK: - Bad pages

@Suite struct BadPages {
    @Test func corruptAndMissingPagesGetPlaceholdersAndAreListed() throws {
        let root = makeTemporaryDirectory("thumbs-bad")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dir = try makeBook(in: root, name: "damaged", pages: 4)
        try makeBook(in: root, name: "fine", pages: 2)
        let good = try FileIO.read(dir + "/page-002.jpg")
        try AtomicFile.write(good.prefix(good.count / 3), to: dir + "/page-002.jpg")
        try FileManager.default.removeItem(atPath: dir + "/page-004.jpg")

        let out = root + "/out"
        let runner = ThumbnailRunner(parameters: smallParameters(), outputDirectory: out)
        let books = try BookDiscovery.books(in: [root])
        let summary = try runner.run(books)
        #expect(summary.failures.map(\.file).sorted() == [dir + "/page-002.jpg", dir + "/page-004.jpg"])
        #expect(summary.done == 1 && summary.failed == 1)
        #expect(summary.failures.allSatisfy { $0.book == "damaged" && $0.description.contains($0.file) })
        // The run went on: every page has thumbnails, the overview and library exist.
        for k in 1...4 { #expect(FileIO.exists(out + String(format: "/damaged/p%03d.jpg", k))) }
        #expect(FileIO.exists(out + "/damaged/overview.png") && FileIO.exists(out + "/library.png"))

        // The placeholder is in page 2's place (red frame, grey hatching), page 3 is itself.
        let overview = try ImageDecoder.decode(file: out + "/damaged/overview.png")
        let book = try Book.decode(FileIO.read(dir + "/book.json")).book  // load() would refuse the missing scan
        let layout = OverviewLayout(book: book, parameters: smallParameters())
        let p2 = layout.placements[1]
        let (x, y) = p2.origin(width: p2.boxWidth, height: p2.boxHeight)
        let frame = overview[x, y + p2.boxHeight / 2]
        #expect(frame.r > 140 && frame.g < 90, "expected the placeholder's red frame, got \(frame)")
        let p3 = layout.placements[2]
        let c3 = overview[p3.area.x + p3.area.width / 2, p3.area.y + p3.area.height / 2]
        #expect(abs(Int(c3.r) - Int(pageColor(3).r)) < 12 && abs(Int(c3.b) - Int(pageColor(3).b)) < 12)

        // A book with failures is never "up to date": the next run tries again and reports again.
        let again = try runner.run(books)
        #expect(again.failures.count == 2 && again.skipped == 1)
    }

    @Test func commandLineExitsNonZeroNamingTheFile() throws {
        let root = makeTemporaryDirectory("thumbs-cli")
        defer { try? FileManager.default.removeItem(atPath: root) }
        let dir = try makeBook(in: root, name: "torn", pages: 3)
        try AtomicFile.write(Array("not a picture".utf8), to: dir + "/page-003.jpg")
        let exe = try #require(picturebookExecutable())
        let p = Process()
        p.executableURL = URL(fileURLWithPath: exe)
        p.arguments = ["thumbs", dir, "--out", root + "/out", "--box", "40x50"]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 1)
        #expect(text.contains(dir + "/page-003.jpg"), "stderr: \(text)")
        #expect(FileIO.exists(root + "/out/torn/overview.png"))
    }

    func picturebookExecutable() -> String? {
        var dir = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().deletingLastPathComponent()
        while dir.path != "/" {
            let candidate = dir.appendingPathComponent("picturebook").path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            dir = dir.deletingLastPathComponent()
        }
        return nil
    }
}

// MARK: - Spreads

@Suite struct Spreads {
    func book(_ n: Int, single: Set<Int> = [], wide: Set<Int> = [], spreads: [Spread] = [], rtl: Bool = false, coverRole: Bool = false) -> Book {
        let pages = (1...n).map { k in
            Page(image: "p\(k).jpg", width: wide.contains(k) ? 3200 : 1600, height: 2000, role: coverRole && k == 1 ? .cover : nil, single: single.contains(k))
        }
        return Book(title: "t", languages: ["en"], readingDirection: rtl ? .rightToLeft : .leftToRight, pages: pages, spreads: spreads)
    }

    struct Case: Sendable, CustomStringConvertible {
        var name: String
        var pages: Int
        var single: Set<Int> = []
        var wide: Set<Int> = []
        var spreads: [Spread] = []
        var expected: [[Int]]
        var description: String { name }
    }

    static let cases: [Case] = [
        Case(name: "cover alone, then pairs, odd count ends single", pages: 6, expected: [[1], [2, 3], [4, 5], [6]]),
        Case(name: "even count: last pair", pages: 5, expected: [[1], [2, 3], [4, 5]]),
        Case(name: "a page marked single stands alone", pages: 7, single: [3], expected: [[1], [2], [3], [4, 5], [6, 7]]),
        Case(name: "double-page scan alone", pages: 6, wide: [4], expected: [[1], [2, 3], [4], [5, 6]]),
        Case(name: "manifest spread overrides parity", pages: 7, spreads: [Spread(3, 4)], expected: [[1], [2], [3, 4], [5, 6], [7]]),
    ]

    @Test(arguments: cases)
    func pairing(_ c: Case) {
        let groups = Pairing.pageGroups(for: book(c.pages, single: c.single, wide: c.wide, spreads: c.spreads))
        #expect(groups.map(\.pages) == c.expected)
        #expect(groups.flatMap(\.pages) == Array(1...c.pages))
    }

    @Test func rightToLeftPairsReadRightToLeft() {
        let groups = Pairing.pageGroups(for: book(5, rtl: true))
        #expect(groups.map(\.pages) == [[1], [2, 3], [4, 5]])
        #expect(groups.map(\.visualOrder) == [[1], [3, 2], [5, 4]])
        let layout = OverviewLayout(book: book(5, rtl: true), parameters: smallParameters())
        // Page 2 (read first) sits on the right of its spread.
        #expect(layout.placements[1].area.x > layout.placements[2].area.x)
    }

    @Test(arguments: [2, 3, 4, 5])
    func spreadsStayTogetherInTheGrid(columns: Int) {
        var p = smallParameters()
        p.columns = columns
        p.overviewRowsPerSheet = 2
        let b = book(13, wide: [8], spreads: [Spread(2, 3), Spread(10, 11)])
        let layout = OverviewLayout(book: b, parameters: p)
        for group in Pairing.pageGroups(for: b) where group.kind == .pair {
            let l = layout.placements[group.visualOrder[0] - 1], r = layout.placements[group.visualOrder[1] - 1]
            // Same sheet, same row, touching at the spine, aligned towards it.
            #expect(l.sheet == r.sheet && l.area.y == r.area.y, "\(group.pages) split")
            #expect(l.area.maxX == r.area.x)
            #expect(l.alignment == .trailing && r.alignment == .leading)
            let sheet = layout.sheets[l.sheet]
            #expect(r.area.maxX <= sheet.width - p.gutter)
        }
        // Reading order: top to bottom, left to right, sheet by sheet.
        let keys = layout.placements.map { ($0.sheet, $0.area.y, $0.area.x) }
        #expect(zip(keys, keys.dropFirst()).allSatisfy { $0 < $1 })
        #expect(layout.sheets.reduce(0) { $0 + $1.tileCount } == 13)
    }

    @Test func renderedSpreadTouchesAtTheSpine() throws {
        let root = makeTemporaryDirectory("thumbs-spread")
        defer { try? FileManager.default.removeItem(atPath: root) }
        try makeBook(in: root, name: "s", pages: 5, spreads: [Spread(2, 3)])
        let out = root + "/out"
        _ = try ThumbnailRunner(parameters: smallParameters(), outputDirectory: out).run(try BookDiscovery.books(in: [root + "/s"]))
        let image = try ImageDecoder.decode(file: out + "/s/overview.png")
        let book = try Book.load(directory: root + "/s").book
        let layout = OverviewLayout(book: book, parameters: smallParameters())
        let l = layout.placements[1], r = layout.placements[2]
        let y = l.area.y + l.area.height / 2
        let spine = r.area.x
        func near(_ a: RGBA8, _ b: RGBA8) -> Bool { abs(Int(a.r) - Int(b.r)) < 14 && abs(Int(a.g) - Int(b.g)) < 14 && abs(Int(a.b) - Int(b.b)) < 14 }
        #expect(near(image[spine - 1, y], pageColor(2)), "left of the spine: \(image[spine - 1, y])")
        #expect(near(image[spine, y], pageColor(3)), "right of the spine: \(image[spine, y])")
    }
}

// MARK: - Hash

@Test func fastHashSeesEveryByte() {
    var rng = SplitMix64(seed: 8)
    let base = (0..<1000).map { _ in rng.byte() }
    let h = FastHash.hash(base)
    #expect(FastHash.hash(base) == h)
    for i in [0, 31, 32, 500, 990, 999] {
        var b = base
        b[i] ^= 1
        #expect(FastHash.hash(b) != h, "flipping byte \(i) went unnoticed")
    }
    #expect(FastHash.hash(Array(base.prefix(999))) != h)
    #expect(FastHash.hex(h).count == 16)
}

@Test func halvingMatchesTheAreaResampler() throws {
    var rng = SplitMix64(seed: 3)
    let image = Bitmap<RGBA8>(width: 64, height: 48) { d in
        for i in d.indices { d[i] = RGBA8(r: rng.byte(), g: rng.byte(), b: rng.byte()) }
    }
    let fast = try #require(PageThumbnailer.halved(image, to: 32, 24))
    let reference = image.resized(width: 32, height: 24, filter: .area)
    #expect(ImageComparison.difference(fast, reference).maxError <= 1)
    #expect(PageThumbnailer.halved(image, to: 31, 24) == nil)
}

@Test(arguments: ["jpg", "png"])
func thumbnailsFitTheBoxAtBothScales(format: String) throws {
    let root = makeTemporaryDirectory("thumbs-sizes")
    defer { try? FileManager.default.removeItem(atPath: root) }
    try FileIO.createDirectory(root + "/b")
    // 1000×600: landscape, so width limits; a wide scan in a book of one page is just a page.
    let scan = Bitmap<RGBA8>(width: 1000, height: 600, fill: pageColor(4))
    let name = "scan." + format
    if format == "png" { try PNGEncoder.write(scan, to: root + "/b/" + name) } else { try JPEGEncoder.write(scan, to: root + "/b/" + name) }
    try Book(title: "b", languages: ["en"], pages: [Page(image: name, width: 1000, height: 600)]).save(directory: root + "/b")
    let p = ThumbnailParameters(boxWidth: 100, boxHeight: 120)
    let summary = try ThumbnailRunner(parameters: p, outputDirectory: root + "/out").run(try BookDiscovery.books(in: [root + "/b"]))
    #expect(summary.failures.isEmpty)
    let x1 = try ImageDecoder.decode(file: root + "/out/b/p001.jpg")
    let x2 = try ImageDecoder.decode(file: root + "/out/b/p001@2x.jpg")
    #expect(x1.width == 100 && x1.height == 60)
    #expect(x2.width == 200 && x2.height == 120)
    let c = x2[100, 60], want = pageColor(4)
    #expect(abs(Int(c.r) - Int(want.r)) < 10 && abs(Int(c.g) - Int(want.g)) < 10 && abs(Int(c.b) - Int(want.b)) < 10)
}
