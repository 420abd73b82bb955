// The block verifier on real engraved plates (The Story of the Three Little Pigs, 1904, in
// ../shared/realdata, which CI has too) and the page-number pass on the sample books.
import Codecs
import Foundation
import Generator
import Geometry
@testable import PageAnalysis
import Raster
import Testing

enum RealScans {
    static let pigs = Fixtures.root + "/../shared/realdata/three-little-pigs-1904/images/"
    static let huck = Fixtures.root + "/../shared/realdata/huck-finn-1884/images/"

    /// ../shared/realdata sits beside the checkout on developer machines and in CI; without it
    /// the real-scan tests are skipped, not failed.
    static let available = FileManager.default.fileExists(atPath: pigs) && FileManager.default.fileExists(atPath: huck)

    static func load(_ path: String) throws -> Bitmap<RGBA8> {
        try #require(FileManager.default.fileExists(atPath: path), "real scan missing: \(path)")
        return try ImageDecoder.decode(file: path)
    }
}

@Suite(.enabled(if: RealScans.available, "needs ../shared/realdata")) struct EngravedPlates {
    /// Colour plates with no text: hatched foliage, flower spikes, fur and straw.
    @Test(arguments: ["imgplate-1.jpg", "imgplate-2.jpg"])
    func colourPlateGetsNoBoxes(_ name: String) throws {
        let analysis = PageAnalyzer().analyze(try RealScans.load(RealScans.pigs + name))
        #expect(analysis.blocks.isEmpty, "boxes at \(analysis.blocks.map(\.rect))")
    }

    /// The lettered title page keeps its lettering: the three-line title, "PIGS" and the credit.
    @Test func titleLetteringIsKept() throws {
        let analysis = PageAnalyzer().analyze(try RealScans.load(RealScans.pigs + "imgtitle.jpg"))
        let lettering = [
            PixelRect(x: 190, y: 52, width: 190, height: 20),    // THE STORY OF
            PixelRect(x: 178, y: 145, width: 206, height: 24),   // THREE LITTLE
            PixelRect(x: 214, y: 200, width: 136, height: 46),   // PIGS
            PixelRect(x: 182, y: 284, width: 200, height: 22),   // With Drawings by
        ]
        for r in lettering {
            #expect(coverage(of: r, by: analysis.blocks.map(\.rect)) >= 0.8, "lettering at \(r)")
        }
        // The title's box stays off the seated pig on the left (x < 160), which growing its
        // largest line through its band once took in, ink mask and all.
        let title = try #require(analysis.blocks.first { $0.rect.contains(x: 280, y: 157) })
        #expect(title.rect.x >= 165, "title box \(title.rect)")
    }

    /// The verifier itself, on blocks the grouping passes on the plates (flowers in the
    /// foreground of plate 1, hatched foliage down the left edge of plate 2) and on the title's
    /// "PIGS" at the same confidence.
    @Test func hatchedBlocksAreRejectedAndLetteringAccepted() throws {
        func candidate(_ r: Rect, _ orientation: DetectedOrientation, _ polarity: DetectedPolarity) -> BlockCandidate {
            BlockCandidate(rect: r, orientation: orientation, polarity: polarity, confidence: 0.8, componentCount: 8,
                           inkGray: 60, level: 1, size: 10)
        }
        func verifier(_ name: String) throws -> BlockVerifier {
            BlockVerifier(work: WorkingImage(page: try RealScans.load(RealScans.pigs + name), factor: 1, parameters: AnalysisParameters()))
        }
        let plate1 = try verifier("imgplate-1.jpg"), plate2 = try verifier("imgplate-2.jpg"), title = try verifier("imgtitle.jpg")
        let flowers = candidate(Rect(x: 24, y: 349, width: 50, height: 14), .horizontal, .lightOnDark)
        let foliage = candidate(Rect(x: 2, y: 330, width: 75, height: 134), .vertical, .lightOnDark)
        let pigs = candidate(Rect(x: 212, y: 198, width: 140, height: 50), .horizontal, .darkOnLight)
        #expect(plate1.texture(around: flowers) >= 0.35)
        #expect(!plate1.accepts(flowers))
        #expect(!plate2.accepts(foliage), "texture \(plate2.texture(around: foliage))")
        #expect(title.texture(around: pigs) < 0.1)
        #expect(title.accepts(pigs))
        // The same block with the deep-ink reading's confidence stands on any ground.
        var sure = flowers
        sure.confidence = 0.95
        #expect(plate1.accepts(sure))
    }
}

@Suite struct PageNumbers {
    /// Sample-book pages with a folio: dark on paper, dark over art, light on a night page.
    static let cases: [(String, Int)] = [("lighthouse-cat", 12), ("salmas-red-kite", 10), ("salmas-red-kite", 26), ("good-morning-farm", 10)]

    @Test(arguments: cases.indices)
    func pageNumberIsFoundWithItsRole(_ i: Int) throws {
        let (book, number) = Self.cases[i]
        let (image, truth) = try Fixtures.page(book, number)
        let folio = try #require(truth.textBoxes.first { $0.role == .pageNumber })
        let analysis = PageAnalyzer().analyze(image)
        let numbers = analysis.blocks.filter { $0.role == .pageNumber }
        #expect(coverage(of: folio.rect, by: numbers.map(\.rect)) >= 0.8, "page number \(folio.text) at \(folio.rect); found \(numbers.map(\.rect))")
        // Nothing else on the page is called a page number, and folios are read last.
        #expect(numbers.count == 1)
        #expect(analysis.blocks.last?.role == .pageNumber)
    }

    /// A real folio beside a running head (Huck Finn p. 180), while the short lines of the
    /// playbill at the foot of the page ("Romeo", "Juliet") stay body text.
    @Test(.enabled(if: RealScans.available, "needs ../shared/realdata"))
    func realFolioAndShortLinesNearTheEdge() throws {
        let analysis = PageAnalyzer().analyze(try RealScans.load(RealScans.huck + "c21-180.jpg"))
        let numbers = analysis.blocks.filter { $0.role == .pageNumber }
        #expect(numbers.count == 1, "page numbers at \(numbers.map(\.rect))")
        let folio = try #require(numbers.first)
        #expect(folio.rect.maxY < 60 && folio.rect.x < 60, "folio at \(folio.rect)")
        let romeo = analysis.blocks.first { $0.rect.contains(x: 170, y: 895) }
        #expect(romeo?.role == .body, "\(String(describing: romeo))")
    }

    /// A folio set a line under the text (Huck Finn p. 2: "2" below the last line).
    @Test(.enabled(if: RealScans.available, "needs ../shared/realdata"))
    func realFolioUnderTheText() throws {
        let analysis = PageAnalyzer().analyze(try RealScans.load(RealScans.huck + "c01-02.jpg"))
        let numbers = analysis.blocks.filter { $0.role == .pageNumber }
        #expect(numbers.count == 1, "page numbers at \(numbers.map(\.rect))")
        #expect(numbers.contains { $0.rect.contains(x: 116, y: 1008) })
    }
}
