import Testing
import Geometry
import Raster

@Suite struct PathRasterizerTests {
    let clip = PixelRect(x: 0, y: 0, width: 64, height: 48)

    @Test func pixelAlignedRectHasExactCoverage() {
        let m = PathRasterizer.coverage(of: .rect(Rect(x: 10, y: 5, width: 20, height: 12)), in: clip)
        #expect(m.width == 64 && m.height == 48)
        for y in 0..<48 {
            for x in 0..<64 {
                let inside = x >= 10 && x < 30 && y >= 5 && y < 17
                #expect(m[x, y] == (inside ? 255 : 0), "pixel (\(x), \(y)) = \(m[x, y])")
            }
        }
    }

    @Test(arguments: [FillRule.nonZero, .evenOdd])
    func halfPixelEdgesHaveHalfCoverage(rule: FillRule) {
        let m = PathRasterizer.coverage(of: .rect(Rect(x: 10.5, y: 5.25, width: 20, height: 12)), in: clip, rule: rule)
        #expect(m[20, 10] == 255)
        #expect(m[10, 10] == 128)  // left edge: half the pixel
        #expect(m[30, 10] == 128)  // right edge at 30.5
        #expect(m[20, 5] == 191)  // top edge at 5.25: three quarters
        #expect(m[20, 17] == 64)  // bottom edge at 17.25: one quarter
        #expect(m[10, 5] == 96)  // corner: 0.5 × 0.75
        #expect(m[9, 10] == 0 && m[31, 10] == 0)
    }

    @Test func diagonalEdgeCoversTriangleAreas() {
        // Triangle (0,0) (8,0) (0,8): pixels on the diagonal are cut exactly in half.
        let tri = Path.polygon([Point(x: 0, y: 0), Point(x: 8, y: 0), Point(x: 0, y: 8)])
        let m = PathRasterizer.coverage(of: tri, in: PixelRect(width: 10, height: 10))
        for i in 0..<8 { #expect(m[i, 7 - i] == 128, "diagonal pixel \(i) = \(m[i, 7 - i])") }
        #expect(m[0, 0] == 255 && m[6, 0] == 255)
        #expect(m[7, 7] == 0)
        #expect(abs(CoverageMask(rect: PixelRect(width: 10, height: 10), mask: m).area - 32) < 0.05)
    }

    @Test(arguments: [5.0, 10.0, 37.5, 150.0])
    func circleAreaWithinHalfPercent(radius: Double) {
        let path = Path.circle(center: Point(x: 170.3, y: 169.7), radius: radius)
        let cov = PathRasterizer.rasterize(path, clip: PixelRect(width: 400, height: 400))
        let exact = Double.pi * radius * radius
        #expect(abs(cov.area - exact) / exact < 0.005, "area \(cov.area) vs \(exact)")
    }

    @Test func evenOddPunchesHoleAndNonZeroFillsSameDirection() {
        var p = Path.rect(Rect(x: 4, y: 4, width: 40, height: 40))
        p.append(.rect(Rect(x: 14, y: 14, width: 20, height: 20)))  // same winding
        let eo = PathRasterizer.coverage(of: p, in: clip, rule: .evenOdd)
        let nz = PathRasterizer.coverage(of: p, in: clip, rule: .nonZero)
        #expect(eo[20, 20] == 0 && eo[8, 8] == 255)
        #expect(nz[20, 20] == 255 && nz[8, 8] == 255)
        // With the inner square reversed the non-zero rule also leaves a hole.
        var q = Path.rect(Rect(x: 4, y: 4, width: 40, height: 40))
        q.append(.polygon([Point(x: 14, y: 14), Point(x: 14, y: 34), Point(x: 34, y: 34), Point(x: 34, y: 14)]))
        #expect(PathRasterizer.coverage(of: q, in: clip)[20, 20] == 0)
    }

    @Test func shapesCrossingTheClipAreCutNotDistorted() {
        let r = Rect(x: -10.5, y: -3, width: 30, height: 20)  // sticks out left and top
        let m = PathRasterizer.coverage(of: .rect(r), in: PixelRect(x: 0, y: 0, width: 16, height: 16))
        #expect(m[0, 0] == 255 && m[15, 0] == 255 && m[15, 15] == 255)
        let off = PathRasterizer.coverage(of: .rect(r), in: PixelRect(x: 10, y: 10, width: 20, height: 20))
        #expect(off[9, 6] == 128)  // the right edge at x = 19.5 lands in local column 9
        #expect(off[0, 0] == 255 && off[10, 0] == 0 && off[0, 7] == 0)
        // A far-away clip gets an all-zero mask of its own size.
        let none = PathRasterizer.coverage(of: .rect(r), in: PixelRect(x: 100, y: 100, width: 5, height: 4))
        #expect(none.width == 5 && none.pixels.allSatisfy { $0 == 0 })
    }

    @Test func roundedRectAndEllipseAreas() {
        let rr = PathRasterizer.rasterize(.roundedRect(Rect(x: 5, y: 5, width: 60, height: 40), radius: 10), clip: PixelRect(width: 80, height: 60))
        let exact = 60.0 * 40 - (4 - Double.pi) * 100
        #expect(abs(rr.area - exact) / exact < 0.005)
        let el = PathRasterizer.rasterize(.ellipse(in: Rect(x: 2, y: 10, width: 70, height: 30)), clip: PixelRect(width: 80, height: 60))
        #expect(abs(el.area - Double.pi * 35 * 15) / (Double.pi * 35 * 15) < 0.005)
    }

    @Test(arguments: [LineJoin.miter, .round, .bevel])
    func strokedLineHasWidthTimesLength(join: LineJoin) {
        // A horizontal butt-capped line 40 long, 4 wide, covers 160 px exactly.
        let line = Path.polyline([Point(x: 10, y: 20), Point(x: 50, y: 20)])
        let cov = PathRasterizer.rasterize(line.stroked(StrokeStyle(width: 4, cap: .butt, join: join)), clip: clip)
        #expect(abs(cov.area - 160) < 0.5)
        // Round caps add a disc (two half discs).
        let rc = PathRasterizer.rasterize(line.stroked(StrokeStyle(width: 4, cap: .round, join: join)), clip: clip)
        #expect(abs(rc.area - (160 + Double.pi * 4)) < 0.3)
    }

    @Test func strokedSquareOutlineHasMiterCorners() {
        let square = Path.rect(Rect(x: 10, y: 10, width: 20, height: 20))
        let cov = PathRasterizer.coverage(of: square.stroked(StrokeStyle(width: 2, join: .miter)), in: clip)
        #expect(cov[9, 9] == 255)  // miter fills the outer corner square
        #expect(cov[20, 9] == 255 && cov[20, 10] == 255 && cov[20, 11] == 0)
        #expect(cov[20, 20] == 0)  // hollow inside
        let area = CoverageMask(rect: PixelRect(width: 64, height: 48), mask: cov).area
        #expect(abs(area - (22 * 22 - 18 * 18)) < 0.5)
        let bevel = PathRasterizer.coverage(of: square.stroked(StrokeStyle(width: 2, join: .bevel)), in: clip)
        #expect(bevel[9, 9] == 128)  // the bevel cuts the corner pixel diagonally
    }

    @Test func curvesFlattenWithinTolerance() {
        var p = Path()
        p.move(to: Point(x: 0, y: 0))
        p.cubic(to: Point(x: 100, y: 0), control1: Point(x: 30, y: 80), control2: Point(x: 70, y: 80))
        let pts = p.flattened(tolerance: 0.1)[0].points
        #expect(pts.count > 8)
        // The curve's peak is at y = 60 (t = 0.5); the polyline must come within tolerance.
        let peak = pts.map(\.y).max() ?? 0
        #expect(abs(peak - 60) < 0.1)
    }
}
