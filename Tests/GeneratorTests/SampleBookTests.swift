import Foundation
import Testing
import BookModel
@testable import Generator

/// The story files in Tools/books/ and the sample books made from them in Books/.
@Suite struct SampleBookTests {
    static let root: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.path
    }()

    struct Expected: Sendable, CustomStringConvertible {
        var story: String, folder: String, pages: Int, printed: String, spreads: Bool
        var description: String { story }
    }

    static let books: [Expected] = [
        Expected(story: "board", folder: "good-morning-farm", pages: 12, printed: "en", spreads: true),
        Expected(story: "bilingual", folder: "salmas-red-kite", pages: 28, printed: "ar", spreads: true),
        Expected(story: "mongolian", folder: "little-horse", pages: 20, printed: "mn-Mong", spreads: true),
        Expected(story: "historic", folder: "lighthouse-cat", pages: 28, printed: "en", spreads: false),
    ]

    @Test(arguments: books)
    func storyPlansTheBook(_ e: Expected) throws {
        let story = try Story.load(Self.root + "/Tools/books/\(e.story).json")
        let plan = try story.plan()
        #expect(plan.pageCount == e.pages)
        #expect(plan.languages.count >= 2)
        #expect(!plan.spreads.isEmpty == e.spreads)
        let blocks = plan.units.flatMap(\.blocks).filter { $0.role != .pageNumber }
        #expect(blocks.contains { $0.language == e.printed })
        // Every printed block carries at least one translation.
        for b in blocks { #expect(b.translations.count >= 2, "\(e.story): '\(b.text)' has no translation") }
        if e.story == "mongolian" { #expect(blocks.allSatisfy { $0.orientation == .verticalLR }) }
        if e.story == "historic" {
            #expect(plan.units.filter(\.monochrome).count >= 10)
            #expect(plan.units.filter { $0.layout == .plate }.count >= 8)
        }
    }

    @Test(arguments: books)
    func committedBookIsValidAndComplete(_ e: Expected) throws {
        let dir = Self.root + "/Books/" + e.folder
        let (book, warnings) = try Book.load(directory: dir)
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(book.pages.count == e.pages)
        for page in book.pages {
            #expect(FileManager.default.fileExists(atPath: dir + "/" + page.image))
            #expect(max(page.width, page.height) <= 1600)
        }
        let boxes = book.pages.flatMap(\.textBoxes).filter { $0.role != .pageNumber }
        #expect(boxes.allSatisfy { $0.text.count >= 2 })
    }
}
