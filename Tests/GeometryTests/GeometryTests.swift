import Testing
import Geometry

@Suite struct RectTests {
    @Test func aspectFitCentres() {
        let page = Rect(x: 0, y: 0, width: 100, height: 200)
        let screen = Rect(x: 0, y: 0, width: 400, height: 300)
        let fitted = page.aspectFit(in: screen)
        #expect(fitted == Rect(x: 125, y: 0, width: 150, height: 300))
    }

    @Test func clampKeepsSizeAndMovesInside() {
        let bounds = Rect(x: 10, y: 10, width: 100, height: 100)
        #expect(Rect(x: -20, y: 95, width: 30, height: 30).clamped(into: bounds) == Rect(x: 10, y: 80, width: 30, height: 30))
        #expect(Rect(x: 0, y: 0, width: 200, height: 10).clamped(into: bounds).minX == -40)
    }

    @Test func intersectionAndUnion() {
        let a = Rect(x: 0, y: 0, width: 10, height: 10), b = Rect(x: 5, y: 5, width: 10, height: 10)
        #expect(a.intersection(b) == Rect(x: 5, y: 5, width: 5, height: 5))
        #expect(a.union(b) == Rect(x: 0, y: 0, width: 15, height: 15))
        #expect(a.intersection(Rect(x: 10, y: 0, width: 5, height: 5)) == nil)
    }

    @Test func enclosingPixelRectCovers() {
        #expect(Rect(x: 0.5, y: 1.2, width: 2, height: 2).enclosingPixelRect == PixelRect(x: 0, y: 1, width: 3, height: 3))
    }
}

@Suite struct AffineTransformTests {
    @Test func mappingTakesRectOntoRect() {
        let from = Rect(x: 10, y: 20, width: 100, height: 50), to = Rect(x: -5, y: 0, width: 50, height: 200)
        let t = AffineTransform.mapping(from, to: to)
        #expect(from.applying(t) == to)
    }

    @Test func inverseRoundTrips() throws {
        let t = AffineTransform.rotation(0.3).concatenating(.scale(x: 2, y: 3)).concatenating(.translation(x: 7, y: -4))
        let inv = try #require(t.inverted)
        let p = Point(x: 12.5, y: -3.25)
        let back = inv.apply(t.apply(p))
        #expect(abs(back.x - p.x) < 1e-9 && abs(back.y - p.y) < 1e-9)
        #expect(AffineTransform.scale(x: 0, y: 1).inverted == nil)
    }

    @Test func rotationIsClockwiseOnScreen() {
        let p = AffineTransform.rotation(.pi / 2).apply(Point(x: 1, y: 0))
        #expect(abs(p.x) < 1e-12 && abs(p.y - 1) < 1e-12)
    }
}
