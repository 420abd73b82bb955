import Foundation
import Testing
import Geometry
import Raster
@testable import Generator

/// The corpus from real illustrations, on the committed plates at a small page size.
enum IllustratedFixture {
    static let folder: String = {
        var url = URL(fileURLWithPath: #filePath)
        for _ in 0..<3 { url.deleteLastPathComponent() }
        return url.appendingPathComponent("Benchmarks/Illustrations").path
    }()
    static let options = GeneratorOptions(seed: 5_001, pageCount: 6, width: 320, height: 400, difficulty: .mixed)

    static func plan() throws -> BookPlan {
        try PageGenerator.plan(options, illustrations: try IllustrationLibrary.load(folder))
    }

    static func tempDir(_ name: String) throws -> String {
        let dir = NSTemporaryDirectory() + "pb-illustrated-\(name)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        return dir
    }
}

@Suite struct IllustratedPagesTests {
    @Test func sameSeedGivesSamePages() throws {
        let a = try IllustratedFixture.plan(), b = try IllustratedFixture.plan()
        #expect(a.unitCount == b.unitCount)
        for i in 0..<min(a.unitCount, 3) {
            let pa = try PageGenerator.render(a, unit: i), pb = try PageGenerator.render(b, unit: i)
            #expect(pa.count == pb.count)
            for (x, y) in zip(pa, pb) {
                #expect(x.image == y.image)
                #expect(x.clean == y.clean)
                #expect(x.truth == y.truth)
            }
        }
        // A different seed composes different pages.
        var other = IllustratedFixture.options
        other.seed = 5_002
        let c = try PageGenerator.plan(other, illustrations: try IllustrationLibrary.load(IllustratedFixture.folder))
        #expect(try PageGenerator.render(c, unit: 0)[0].image != (try PageGenerator.render(a, unit: 0))[0].image)
    }

    @Test func boxesInsidePagesAndCleanDiffersOnlyNearText() throws {
        let plan = try IllustratedFixture.plan()
        var boxes = 0, spreads = 0
        for i in 0..<plan.unitCount {
            let pages = try PageGenerator.render(plan, unit: i)
            if pages.count == 2 { spreads += 1 }
            for p in pages {
                let page = PixelRect(width: p.truth.width, height: p.truth.height)
                #expect(p.image.width == p.truth.width && p.image.height == p.truth.height)
                for b in p.truth.textBoxes {
                    boxes += 1
                    #expect(page.contains(b.rect), "box \(b.id) \(b.rect) outside the page")
                    #expect(b.rect.width > 0 && b.rect.height > 0)
                }
                // Outside every text box grown by the blur's reach (plus a pixel of coverage
                // anti-aliasing) page and clean background are identical; inside, they differ.
                let grow = p.truth.degradation.reach + 2
                let near = p.truth.textBoxes.map { PixelRect(x: $0.rect.x - grow, y: $0.rect.y - grow, width: $0.rect.width + 2 * grow, height: $0.rect.height + 2 * grow) }
                var differOutside = 0, differInside = 0
                for y in 0..<p.image.height {
                    for x in 0..<p.image.width where p.image[x, y] != p.clean[x, y] {
                        if near.contains(where: { $0.contains(x: x, y: y) }) { differInside += 1 } else { differOutside += 1 }
                    }
                }
                #expect(differOutside == 0, "page \(p.truth.number): \(differOutside) pixels differ away from text")
                if !p.truth.textBoxes.isEmpty { #expect(differInside > 0) }
            }
        }
        #expect(boxes > 5)
        #expect(spreads >= 1, "the first units include a panorama across a spread")
    }

    @Test func missingEmptyOrNonImageFolderIsAClearError() throws {
        func message(_ dir: String) -> String? {
            do {
                _ = try IllustrationLibrary.load(dir)
                return nil
            } catch {
                return error.description
            }
        }
        let missing = "/nonexistent/picturebook-illustrations"
        #expect(message(missing)?.contains(missing) == true)
        #expect(message(missing)?.contains("no such folder") == true)

        let empty = try IllustratedFixture.tempDir("empty")
        defer { try? FileManager.default.removeItem(atPath: empty) }
        try Data("# notes\n".utf8).write(to: URL(fileURLWithPath: empty + "/README.md"))
        #expect(message(empty)?.contains("holds no images") == true)

        let junk = try IllustratedFixture.tempDir("junk")
        defer { try? FileManager.default.removeItem(atPath: junk) }
        try Data("not a picture".utf8).write(to: URL(fileURLWithPath: junk + "/plate.jpg"))
        let m = message(junk)
        #expect(m?.contains("plate.jpg") == true)
        #expect(m?.contains("not a readable image") == true)

        // And the plan refuses an empty list outright.
        #expect(throws: GeneratorError.self) { try PageGenerator.plan(IllustratedFixture.options, illustrations: []) }
    }
}
