import BookModel
import Codecs
import Foundation
import PageAnalysis
import Raster
import Testing

/// The sample books list their panoramic spreads in book.json (the generator painted those pairs as
/// one scene), so every adjacent pair of pages in them is a labelled example.
@Suite struct SpreadDetectorTests {
    static let booksDirectory: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Books").path
    }()

    struct Example: Sendable, CustomTestStringConvertible {
        var book: String
        var left: Int
        var right: Int
        var isSpread: Bool
        var testDescription: String { "\(book) \(left)-\(right)\(isSpread ? " spread" : "")" }
    }

    /// Every adjacent pair of body pages (cover and pages marked single left out), labelled by the
    /// book's spreads list.
    static let examples: [Example] = {
        var out: [Example] = []
        for name in ["good-morning-farm", "little-horse", "salmas-red-kite", "lighthouse-cat"] {
            guard let (book, _) = try? Book.load(directory: booksDirectory + "/" + name) else { continue }
            let spreads = Set(book.spreads.map { [$0.first, $0.second] })
            for n in 1..<book.pages.count where !book.pages[n - 1].single && !book.pages[n].single {
                out.append(Example(book: name, left: n, right: n + 1, isSpread: spreads.contains([n, n + 1])))
            }
        }
        return out
    }()

    func page(_ book: String, _ number: Int) throws -> Bitmap<RGBA8> {
        let (b, _) = try Book.load(directory: Self.booksDirectory + "/" + book)
        return try ImageDecoder.decode(file: BookDirectory.imagePath(of: b.pages[number - 1], in: Self.booksDirectory + "/" + book))
    }

    @Test func sampleBooksHaveSpreadsToFind() {
        #expect(Self.examples.filter(\.isSpread).count >= 8)
        #expect(Self.examples.filter { !$0.isSpread }.count >= 40)
    }

    @Test(arguments: examples)
    func facingPagesAreClassified(_ e: Example) throws {
        let evidence = SpreadDetector().evidence(left: try page(e.book, e.left), right: try page(e.book, e.right))
        #expect(evidence.isSpread == e.isSpread, "\(evidence)")
    }

    @Test func blankPaperIsNotASpread() {
        let paper = Bitmap<RGBA8>(width: 300, height: 400, fill: RGBA8(r: 240, g: 232, b: 215))
        let e = SpreadDetector().evidence(left: paper, right: paper)
        #expect(!e.isSpread)
        #expect(e.structure < 0.01)
    }

    @Test func aPictureCutInTwoIsASpreadAndItsHalvesSwappedAreNot() {
        // Horizontal bands of varying height and colour: outlines cross the cut at the same heights.
        var wide = Bitmap<RGBA8>(width: 600, height: 400, fill: .white)
        var y = 0, i = 0
        while y < 400 {
            let h = 7 + (i * 37) % 41
            wide.fill(.init(x: 0, y: y, width: 600, height: h), with: RGBA8(r: UInt8((i * 53) % 256), g: UInt8((i * 97) % 256), b: UInt8((i * 29) % 256)))
            y += h
            i += 1
        }
        let left = wide.cropped(to: .init(x: 0, y: 0, width: 300, height: 400))
        let right = wide.cropped(to: .init(x: 300, y: 0, width: 300, height: 400))
        #expect(SpreadDetector().isSpread(left: left, right: right))
        let flipped = right.flippedVertically()
        #expect(!SpreadDetector().isSpread(left: left, right: flipped))
    }
}
