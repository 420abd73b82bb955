import Codecs
import Foundation
import Geometry
import Raster
import Testing
@testable import Typesetting

/// Rendered samples compared with the committed PNGs in Golden/ by PSNR and mean error — never
/// byte equality, so a FreeType update that moves anti-aliasing by a level still passes while a
/// wrong glyph, order or position does not. `PICTUREBOOK_UPDATE_GOLDENS=1 swift test --filter
/// GoldenTests` rewrites them and the copies in Documentation/typesetting/.
@Suite struct GoldenTests {
    static let testsDir = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let goldenDir = testsDir.appendingPathComponent("Golden")
    static let docsDir = testsDir.deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Documentation/typesetting")
    static let updating = ProcessInfo.processInfo.environment["PICTUREBOOK_UPDATE_GOLDENS"] == "1"

    static func write(_ image: Bitmap<RGBA8>, name: String) throws {
        let png = Data(try PNGEncoder.encode(image, options: .smallest, name: name))
        for dir in [goldenDir, docsDir] {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
            try png.write(to: dir.appendingPathComponent(name + ".png"), options: .atomic)
        }
    }

    static func compare(_ image: Bitmap<RGBA8>, name: String, background: RGBA8) throws {
        if updating { try write(image, name: name) }
        let url = goldenDir.appendingPathComponent(name + ".png")
        let bytes = try [UInt8](Data(contentsOf: url))
        let golden = try ImageDecoder.decode(bytes, name: url.path)
        try #require(golden.width == image.width && golden.height == image.height,
                     "\(name): rendered \(image.width)×\(image.height), golden \(golden.width)×\(golden.height)")
        let psnr = ImageComparison.psnr(image, golden)
        let mae = ImageComparison.meanAbsoluteError(image, golden)
        #expect(psnr >= 32, "\(name): PSNR \(psnr) dB against the golden")
        #expect(mae <= 1.5, "\(name): mean absolute error \(mae)")
        // The thresholds mean something: an empty page is far from the golden.
        let blank = Bitmap<RGBA8>(width: image.width, height: image.height, fill: background)
        #expect(ImageComparison.psnr(blank, golden) < psnr - 10, "\(name): golden looks blank")
    }

    @Test(arguments: SampleCase.all)
    func sampleMatchesGolden(_ c: SampleCase) throws {
        let (_, image) = try c.render()
        try Self.compare(image, name: c.name, background: SampleCase.paper)
    }

    /// Busy background: the contrast helper picks the colour and asks for a halo.
    @Test func haloOnBusyArtMatchesGolden() throws {
        let w = 360, h = 160
        let art = Bitmap<RGBA8>(width: w, height: h) { p in
            for y in 0..<h {
                for x in 0..<w {
                    // Diagonal stripes of a dark forest green and a pale sky.
                    p[y * w + x] = ((x + y) / 24) % 2 == 0 ? RGBA8(r: 40, g: 90, b: 60) : RGBA8(r: 200, g: 225, b: 240)
                }
            }
        }
        let layout = try Typesetter().fit(
            "The fox ran home through the tall grass.", in: Size(width: Double(w), height: Double(h)),
            style: TextStyle(language: "en", alignment: .center, padding: EdgeInsets(all: 12), maximumSize: 44))
        let choice = Contrast.chooseTextColor(over: art)
        let halo = try #require(choice.halo)
        var image = art
        layout.draw(into: &image, color: choice.color, halo: Halo(color: halo, radius: 3))
        try Self.compare(image, name: "halo", background: .white)
    }

    @Test func hyphenatedParagraphMatchesGolden() throws {
        let layout = try Typesetter().fit(
            "Extraordinary circumstances necessitate unconventional communication between neighbours.",
            in: Size(width: 220, height: 200),
            style: TextStyle(language: "en", minimumSize: 10, maximumSize: 60, hyphenate: true))
        let image = layout.render(background: SampleCase.paper, color: SampleCase.ink)
        try Self.compare(image, name: "hyphenation", background: SampleCase.paper)
    }
}
