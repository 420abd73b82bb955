@testable import PageAnalysis
import Raster
import Testing

/// `analyze` keeps one `PageEdges` per page until the whole book is in (the spread test compares
/// each facing pair with the rest of the book); that record is the part of analyze's memory that
/// grows with the book, so it must stay small, and its compact storage must not change what the
/// spread test sees (SeamContinuityTests and SpreadDetectorTests judge books from the stored edges).
@Suite struct PageEdgesMemoryTests {
    /// A page with colour changing down both edges and a few outlines crossing them (as a
    /// picture has; each crossing kept costs ~100 bytes, so a page striped all the way down would
    /// cost more), any size.
    static func page(width: Int, height: Int) -> Bitmap<RGBA8> {
        var pixels = [RGBA8](repeating: .white, count: width * height)
        for y in 0..<height {
            for x in 0..<width {
                let band = (y * 7 / max(1, height) + x * 3 / max(1, width)) % 4
                pixels[y * width + x] = RGBA8(r: UInt8(40 + 50 * band), g: UInt8((y * 255) / max(1, height - 1)), b: UInt8(200 - 40 * band))
            }
        }
        return Bitmap(width: width, height: height, pixels: pixels)
    }

    @Test func aPageKeepsAFewKilobytesForTheSpreadTestWhateverItsSize() {
        let detector = SpreadDetector()
        for (w, h) in [(200, 250), (1060, 1600), (2500, 3500)] {
            let page = Self.page(width: w, height: h)
            let edges = detector.edges(of: page)
            // Two profiles of `bins` (400) rows and two seam profiles of 100, 6 bytes a row, plus
            // the outlines crossing the edges: about 6 KB. Held as `SIMD3<Double>` it was 32 bytes
            // a row, ~32 KB a page, which is what made a 2,000-page analyze ~50 MiB bigger.
            // The colour-field measure adds its fitted lines, 100 bins × 3 channels × 2 (value at
            // the edge, slope) as Float per edge: 4.8 KB a page.
            #expect(edges.byteCount <= 14_000, "\(w)×\(h): \(edges.byteCount) bytes")
            #expect(edges.byteCount >= 6 * (2 * min(400, h) + 2 * 100), "\(w)×\(h): profiles missing")
        }
    }

    @Test func theStoredProfileIsTheMeasuredOneToWithinAFractionOfAGreyLevel() {
        let detector = SpreadDetector()
        let page = Self.page(width: 640, height: 480)
        let exact = detector.profile(of: page, atRightEdge: true)
        let stored = EdgeProfile(exact).rgb
        #expect(stored.count == exact.count)
        var worst = 0.0
        for (a, b) in zip(exact, stored) {
            let d: SIMD3<Double> = a - b
            worst = max(worst, abs(d.x), abs(d.y), abs(d.z))
        }
        #expect(worst <= 1.0 / 512 + 1e-9)
        // Full scale survives: white paper is 255, not clipped.
        let extremes: [SIMD3<Double>] = [SIMD3<Double>(255, 0, 128.25)]
        #expect(EdgeProfile(extremes).rgb == extremes)
    }
}
