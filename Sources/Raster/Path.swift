// Vector paths: the shapes the sample-book generator paints and that overlays may draw.
//
// A path is a list of subpaths built from lines and Bézier curves in pixel coordinates (Double,
// top-left origin, the same space as `Geometry`). Curves are kept exact until rasterization,
// which flattens them to line segments within a tolerance (see `flattened(tolerance:)`), so a
// path can be transformed or scaled without losing smoothness.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
public import Geometry

/// A shape made of subpaths of line and Bézier segments.
public struct Path: Sendable, Equatable {
    public enum Element: Sendable, Equatable {
        case move(Point)
        case line(Point)
        /// Quadratic Bézier: control point, then end point.
        case quad(Point, Point)
        /// Cubic Bézier: two control points, then end point.
        case cubic(Point, Point, Point)
        case close
    }

    public private(set) var elements: [Element] = []

    public init() {}

    public init(elements: [Element]) { self.elements = elements }

    public var isEmpty: Bool { elements.isEmpty }

    /// The point the next segment starts from; curves need it, and a path that has not moved
    /// anywhere starts at the origin.
    private var currentPoint: Point {
        var start = Point.zero, p = Point.zero
        for e in elements {
            switch e {
            case .move(let q): start = q; p = q
            case .line(let q): p = q
            case .quad(_, let q): p = q
            case .cubic(_, _, let q): p = q
            case .close: p = start
            }
        }
        return p
    }

    public mutating func move(to p: Point) { elements.append(.move(p)) }
    public mutating func line(to p: Point) { elements.append(.line(p)) }
    public mutating func quad(to p: Point, control c: Point) { elements.append(.quad(c, p)) }
    public mutating func cubic(to p: Point, control1 c1: Point, control2 c2: Point) {
        elements.append(.cubic(c1, c2, p))
    }
    public mutating func close() { elements.append(.close) }

    public mutating func move(to x: Double, _ y: Double) { move(to: Point(x: x, y: y)) }
    public mutating func line(to x: Double, _ y: Double) { line(to: Point(x: x, y: y)) }

    /// Appends every subpath of `other`.
    public mutating func append(_ other: Path) { elements += other.elements }

    /// A closed polygon through `points` (nothing when fewer than 2).
    public static func polygon(_ points: [Point]) -> Path {
        var p = Path()
        guard points.count >= 2 else { return p }
        p.move(to: points[0])
        for q in points.dropFirst() { p.line(to: q) }
        p.close()
        return p
    }

    /// An open polyline through `points`, for stroking.
    public static func polyline(_ points: [Point]) -> Path {
        var p = Path()
        guard let first = points.first else { return p }
        p.move(to: first)
        for q in points.dropFirst() { p.line(to: q) }
        return p
    }

    public static func rect(_ r: Rect) -> Path {
        polygon([
            Point(x: r.minX, y: r.minY), Point(x: r.maxX, y: r.minY),
            Point(x: r.maxX, y: r.maxY), Point(x: r.minX, y: r.maxY),
        ])
    }

    /// Four cubic arcs; the control distance 0.5523·r keeps the radius within 0.03 % of a circle.
    public static func ellipse(in r: Rect) -> Path {
        let k = 0.5522847498307936
        let cx = r.midX, cy = r.midY, rx = r.width / 2, ry = r.height / 2
        var p = Path()
        p.move(to: Point(x: cx + rx, y: cy))
        p.cubic(to: Point(x: cx, y: cy + ry), control1: Point(x: cx + rx, y: cy + k * ry), control2: Point(x: cx + k * rx, y: cy + ry))
        p.cubic(to: Point(x: cx - rx, y: cy), control1: Point(x: cx - k * rx, y: cy + ry), control2: Point(x: cx - rx, y: cy + k * ry))
        p.cubic(to: Point(x: cx, y: cy - ry), control1: Point(x: cx - rx, y: cy - k * ry), control2: Point(x: cx - k * rx, y: cy - ry))
        p.cubic(to: Point(x: cx + rx, y: cy), control1: Point(x: cx + k * rx, y: cy - ry), control2: Point(x: cx + rx, y: cy - k * ry))
        p.close()
        return p
    }

    public static func circle(center: Point, radius: Double) -> Path {
        ellipse(in: Rect(x: center.x - radius, y: center.y - radius, width: 2 * radius, height: 2 * radius))
    }

    /// A rectangle with quarter-ellipse corners; `radius` is clamped to half the shorter side.
    public static func roundedRect(_ r: Rect, radius: Double) -> Path {
        let rad = Swift.max(0, Swift.min(radius, Swift.min(r.width, r.height) / 2))
        if rad == 0 { return rect(r) }
        let k = rad * (1 - 0.5522847498307936)
        var p = Path()
        p.move(to: Point(x: r.minX + rad, y: r.minY))
        p.line(to: Point(x: r.maxX - rad, y: r.minY))
        p.cubic(to: Point(x: r.maxX, y: r.minY + rad), control1: Point(x: r.maxX - k, y: r.minY), control2: Point(x: r.maxX, y: r.minY + k))
        p.line(to: Point(x: r.maxX, y: r.maxY - rad))
        p.cubic(to: Point(x: r.maxX - rad, y: r.maxY), control1: Point(x: r.maxX, y: r.maxY - k), control2: Point(x: r.maxX - k, y: r.maxY))
        p.line(to: Point(x: r.minX + rad, y: r.maxY))
        p.cubic(to: Point(x: r.minX, y: r.maxY - rad), control1: Point(x: r.minX + k, y: r.maxY), control2: Point(x: r.minX, y: r.maxY - k))
        p.line(to: Point(x: r.minX, y: r.minY + rad))
        p.cubic(to: Point(x: r.minX + rad, y: r.minY), control1: Point(x: r.minX, y: r.minY + k), control2: Point(x: r.minX + k, y: r.minY))
        p.close()
        return p
    }

    /// A smooth closed curve through `points` (Catmull–Rom converted to cubics) — blobs,
    /// bushes, clouds and hills in generated art.
    public static func smoothClosed(_ points: [Point]) -> Path {
        let n = points.count
        guard n >= 3 else { return polygon(points) }
        var p = Path()
        p.move(to: points[0])
        for i in 0..<n {
            let p0 = points[(i + n - 1) % n], p1 = points[i], p2 = points[(i + 1) % n], p3 = points[(i + 2) % n]
            let c1 = p1 + (p2 - p0) * (1.0 / 6)
            let c2 = p2 - (p3 - p1) * (1.0 / 6)
            p.cubic(to: p2, control1: c1, control2: c2)
        }
        p.close()
        return p
    }

    /// A smooth open curve through `points` (Catmull–Rom, end tangents from the end segments).
    public static func smoothOpen(_ points: [Point]) -> Path {
        let n = points.count
        guard n >= 3 else { return polyline(points) }
        var p = Path()
        p.move(to: points[0])
        for i in 0..<(n - 1) {
            let p0 = points[Swift.max(0, i - 1)], p1 = points[i], p2 = points[i + 1], p3 = points[Swift.min(n - 1, i + 2)]
            p.cubic(to: p2, control1: p1 + (p2 - p0) * (1.0 / 6), control2: p2 - (p3 - p1) * (1.0 / 6))
        }
        return p
    }

    /// Every point mapped through `t`; curves stay curves (affine maps preserve Béziers).
    public func applying(_ t: AffineTransform) -> Path {
        Path(elements: elements.map { e in
            switch e {
            case .move(let p): return .move(t.apply(p))
            case .line(let p): return .line(t.apply(p))
            case .quad(let c, let p): return .quad(t.apply(c), t.apply(p))
            case .cubic(let c1, let c2, let p): return .cubic(t.apply(c1), t.apply(c2), t.apply(p))
            case .close: return .close
            }
        })
    }

    /// The bounds of all points including control points: never smaller than the shape, which
    /// is all the rasterizer needs to size its buffer.
    public var controlBounds: Rect {
        var x0 = Double.infinity, y0 = Double.infinity, x1 = -Double.infinity, y1 = -Double.infinity
        func add(_ p: Point) {
            x0 = Swift.min(x0, p.x); y0 = Swift.min(y0, p.y)
            x1 = Swift.max(x1, p.x); y1 = Swift.max(y1, p.y)
        }
        for e in elements {
            switch e {
            case .move(let p), .line(let p): add(p)
            case .quad(let c, let p): add(c); add(p)
            case .cubic(let c1, let c2, let p): add(c1); add(c2); add(p)
            case .close: break
            }
        }
        guard x0 <= x1, y0 <= y1 else { return .zero }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// One flattened subpath: its points, and whether it was closed with `close()`.
    public struct Polyline: Sendable, Equatable {
        public var points: [Point]
        public var isClosed: Bool
    }

    /// The path as polylines whose distance from the true curves is at most `tolerance` pixels.
    /// The number of pieces per curve comes from the curve's second differences, which bound
    /// the flattening error of uniform subdivision. Chords cut inside convex curves, losing
    /// about ⅔·tolerance·length of area, so the default is fine (1/50 px) to keep filled
    /// areas within a fraction of a percent even for small circles.
    public func flattened(tolerance: Double = 0.02) -> [Polyline] {
        let tol = Swift.max(tolerance, 1e-4)
        var out: [Polyline] = []
        var current: [Point] = []
        var start = Point.zero
        func flush(closed: Bool) {
            if current.count >= 2 || (closed && current.count >= 1) { out.append(Polyline(points: current, isClosed: closed)) }
            current = []
        }
        for e in elements {
            switch e {
            case .move(let p):
                flush(closed: false)
                start = p
                current = [p]
            case .line(let p):
                if current.isEmpty { current = [start] }
                current.append(p)
            case .quad(let c, let p):
                if current.isEmpty { current = [start] }
                let p0 = current[current.count - 1]
                let dd = (p0 - c * 2 + p)
                let m = (dd.x * dd.x + dd.y * dd.y).squareRoot()
                let n = Swift.max(1, Swift.min(1000, Int((0.25 * m / tol).squareRoot().rounded(.up))))
                for i in 1...n {
                    let t = Double(i) / Double(n), u = 1 - t
                    current.append(p0 * (u * u) + c * (2 * u * t) + p * (t * t))
                }
            case .cubic(let c1, let c2, let p):
                if current.isEmpty { current = [start] }
                let p0 = current[current.count - 1]
                let d1 = p0 - c1 * 2 + c2, d2 = c1 - c2 * 2 + p
                let m = Swift.max((d1.x * d1.x + d1.y * d1.y).squareRoot(), (d2.x * d2.x + d2.y * d2.y).squareRoot())
                let n = Swift.max(1, Swift.min(1000, Int((0.75 * m / tol).squareRoot().rounded(.up))))
                for i in 1...n {
                    let t = Double(i) / Double(n), u = 1 - t
                    current.append(p0 * (u * u * u) + c1 * (3 * u * u * t) + c2 * (3 * u * t * t) + p * (t * t * t))
                }
            case .close:
                if current.isEmpty { current = [start] }
                flush(closed: true)
                current = []
            }
        }
        flush(closed: false)
        return out
    }

    /// The area the path encloses under `rule`'s sign convention is not needed here; this is the
    /// signed area of the flattened polygons (positive = clockwise on screen, y down), used to
    /// orient stroke pieces consistently.
    static func signedArea(_ pts: [Point]) -> Double {
        var a = 0.0
        for i in 0..<pts.count {
            let p = pts[i], q = pts[(i + 1) % pts.count]
            a += p.x * q.y - q.x * p.y
        }
        return a / 2
    }
}

/// How the inside of a self-overlapping path is decided.
public enum FillRule: String, Sendable, Codable, CaseIterable {
    /// Inside where the winding number is not zero (overlaps stay filled).
    case nonZero
    /// Inside where an odd number of edges lie to one side (overlaps punch holes).
    case evenOdd
}

public enum LineCap: String, Sendable, Codable, CaseIterable {
    case butt, round, square
}

public enum LineJoin: String, Sendable, Codable, CaseIterable {
    case miter, round, bevel
}

/// How a path is outlined: width in pixels, caps at open ends, joins at corners.
public struct StrokeStyle: Sendable, Equatable {
    public var width: Double
    public var cap: LineCap
    public var join: LineJoin
    /// Longest miter, as a multiple of the half-width, before a miter join falls back to bevel.
    public var miterLimit: Double

    public init(width: Double, cap: LineCap = .round, join: LineJoin = .round, miterLimit: Double = 4) {
        self.width = width
        self.cap = cap
        self.join = join
        self.miterLimit = miterLimit
    }
}

extension Path {
    /// The outline of this path drawn with `style`, as a fillable path.
    ///
    /// The stroke is built as a union of simple pieces — one quadrilateral per segment, one
    /// wedge or disc per join, one cap per open end — all wound the same way, so filling the
    /// result with the non-zero rule gives their union. Where two pieces overlap inside one
    /// edge pixel the coverage is slightly overestimated (the sum is clamped at full), which is
    /// invisible at stroke edges and far simpler than offsetting curves exactly.
    public func stroked(_ style: StrokeStyle, tolerance: Double = 0.02) -> Path {
        let hw = style.width / 2
        guard hw > 0 else { return Path() }
        var out = Path()
        func piece(_ pts: [Point]) {
            guard pts.count >= 3 else { return }
            out.append(.polygon(Path.signedArea(pts) < 0 ? pts.reversed() : pts))
        }
        func disc(_ c: Point) {
            // A polygonal disc fine enough that its sagitta stays within the tolerance.
            let n = Swift.max(8, Swift.min(256, Int((Double.pi / acos(Swift.max(-1, 1 - tolerance / Swift.max(hw, tolerance)))).rounded(.up))))
            // Vertices pushed out so the polygon's area equals the disc's.
            let step = 2 * Double.pi / Double(n)
            let r = hw * (step / sin(step)).squareRoot()
            piece((0..<n).map { i in
                let a = step * Double(i)
                return Point(x: c.x + r * cos(a), y: c.y + r * sin(a))
            })
        }
        for line in flattened(tolerance: tolerance) {
            var pts: [Point] = []
            for p in line.points where pts.last.map({ $0.distance(to: p) > 1e-9 }) ?? true { pts.append(p) }
            if line.isClosed, pts.count > 2, let f = pts.first, let l = pts.last, f.distance(to: l) <= 1e-9 { pts.removeLast() }
            if pts.count == 1 {
                // A zero-length subpath draws a dot with round or square caps, as in PostScript.
                let c = pts[0]
                if style.cap == .round { disc(c) }
                if style.cap == .square { piece([Point(x: c.x - hw, y: c.y - hw), Point(x: c.x + hw, y: c.y - hw), Point(x: c.x + hw, y: c.y + hw), Point(x: c.x - hw, y: c.y + hw)]) }
                continue
            }
            guard pts.count >= 2 else { continue }
            let closed = line.isClosed && pts.count > 2
            let segCount = closed ? pts.count : pts.count - 1
            func normal(_ a: Point, _ b: Point) -> Point {
                let d = b - a, len = (d.x * d.x + d.y * d.y).squareRoot()
                return Point(x: -d.y / len * hw, y: d.x / len * hw)
            }
            for i in 0..<segCount {
                let a = pts[i], b = pts[(i + 1) % pts.count]
                let n = normal(a, b)
                piece([a + n, b + n, b - n, a - n])
            }
            // Joins at interior vertices (and all vertices of a closed subpath).
            let joinIndices = closed ? Array(0..<pts.count) : Array(1..<(pts.count - 1))
            for i in joinIndices {
                let prev = pts[(i + pts.count - 1) % pts.count], v = pts[i], next = pts[(i + 1) % pts.count]
                let n0 = normal(prev, v), n1 = normal(v, next)
                let cross = (v.x - prev.x) * (next.y - v.y) - (v.y - prev.y) * (next.x - v.x)
                if abs(cross) < 1e-12 && (n0.x * n1.x + n0.y * n1.y) > 0 { continue }  // straight on
                switch style.join {
                case .round:
                    disc(v)
                case .bevel, .miter:
                    // The outer side is the one the path turns away from.
                    let s: Double = cross > 0 ? -1 : 1
                    let o0 = v + n0 * s, o1 = v + n1 * s
                    var wedge = [v, o0, o1]
                    if style.join == .miter {
                        let bis = Point(x: n0.x + n1.x, y: n0.y + n1.y)
                        let bl = (bis.x * bis.x + bis.y * bis.y).squareRoot()
                        let cosHalf = bl / (2 * hw)  // cos of half the angle between the normals
                        if cosHalf > 1e-9 {
                            let miterLen = hw / cosHalf
                            if miterLen <= style.miterLimit * hw {
                                let tip = v + Point(x: bis.x / bl, y: bis.y / bl) * (miterLen * s)
                                wedge = [v, o0, tip, o1]
                            }
                        }
                    }
                    piece(wedge)
                }
            }
            if !closed {
                for (end, inner) in [(pts[0], pts[1]), (pts[pts.count - 1], pts[pts.count - 2])] {
                    switch style.cap {
                    case .butt: break
                    case .round: disc(end)
                    case .square:
                        let d = end - inner, len = (d.x * d.x + d.y * d.y).squareRoot()
                        let u = Point(x: d.x / len * hw, y: d.y / len * hw), n = Point(x: -u.y, y: u.x)
                        piece([end + n, end + n + u, end - n + u, end - n])
                    }
                }
            }
        }
        return out
    }
}
