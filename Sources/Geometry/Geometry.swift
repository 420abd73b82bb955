// Geometry shared by the pixel stages and the layout engine.
//
// Coordinates everywhere in Picturebook: origin at the top-left, x to the right, y down. Pixel
// rects (`PixelRect`) use whole pixels of a bitmap; layout uses `Rect` in points (Double) so that
// fractional scales and animations stay exact.

/// A point in a top-left-origin coordinate space.
public struct Point: Hashable, Sendable, Codable, CustomStringConvertible {
    public var x: Double
    public var y: Double

    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    public static let zero = Point(x: 0, y: 0)

    public static func + (a: Point, b: Point) -> Point { Point(x: a.x + b.x, y: a.y + b.y) }
    public static func - (a: Point, b: Point) -> Point { Point(x: a.x - b.x, y: a.y - b.y) }
    public static func * (a: Point, s: Double) -> Point { Point(x: a.x * s, y: a.y * s) }

    public func distance(to other: Point) -> Double {
        ((x - other.x) * (x - other.x) + (y - other.y) * (y - other.y)).squareRoot()
    }

    public var description: String { "(\(x), \(y))" }
}

/// A width and height; negative values are allowed only as intermediate results.
public struct Size: Hashable, Sendable, Codable, CustomStringConvertible {
    public var width: Double
    public var height: Double

    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    public static let zero = Size(width: 0, height: 0)

    public var aspectRatio: Double { height == 0 ? .infinity : width / height }
    public var area: Double { width * height }

    public static func * (a: Size, s: Double) -> Size { Size(width: a.width * s, height: a.height * s) }

    /// The largest size with this aspect ratio that fits inside `bounds` ("aspect fit").
    public func fitted(into bounds: Size) -> Size {
        guard width > 0, height > 0 else { return .zero }
        let s = Swift.min(bounds.width / width, bounds.height / height)
        return self * s
    }

    /// The smallest size with this aspect ratio that covers `bounds` ("aspect fill").
    public func filling(_ bounds: Size) -> Size {
        guard width > 0, height > 0 else { return .zero }
        let s = Swift.max(bounds.width / width, bounds.height / height)
        return self * s
    }

    public var description: String { "\(width)×\(height)" }
}

/// An axis-aligned rectangle in points. `origin` is the top-left corner.
public struct Rect: Hashable, Sendable, Codable, CustomStringConvertible {
    public var origin: Point
    public var size: Size

    public init(origin: Point, size: Size) {
        self.origin = origin
        self.size = size
    }

    public init(x: Double, y: Double, width: Double, height: Double) {
        self.init(origin: Point(x: x, y: y), size: Size(width: width, height: height))
    }

    public init(_ r: PixelRect) {
        self.init(x: Double(r.x), y: Double(r.y), width: Double(r.width), height: Double(r.height))
    }

    public static let zero = Rect(x: 0, y: 0, width: 0, height: 0)

    public var x: Double { origin.x }
    public var y: Double { origin.y }
    public var width: Double { size.width }
    public var height: Double { size.height }
    public var minX: Double { origin.x }
    public var minY: Double { origin.y }
    public var maxX: Double { origin.x + size.width }
    public var maxY: Double { origin.y + size.height }
    public var midX: Double { origin.x + size.width / 2 }
    public var midY: Double { origin.y + size.height / 2 }
    public var center: Point { Point(x: midX, y: midY) }
    public var area: Double { Swift.max(0, width) * Swift.max(0, height) }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    /// A rect of `size` centred on `center`.
    public init(center: Point, size: Size) {
        self.init(x: center.x - size.width / 2, y: center.y - size.height / 2, width: size.width, height: size.height)
    }

    public func contains(_ p: Point) -> Bool { p.x >= minX && p.x < maxX && p.y >= minY && p.y < maxY }

    public func contains(_ r: Rect) -> Bool {
        r.minX >= minX && r.minY >= minY && r.maxX <= maxX && r.maxY <= maxY
    }

    /// The overlap of two rects, or `nil` when they do not overlap with positive area.
    public func intersection(_ r: Rect) -> Rect? {
        let x0 = Swift.max(minX, r.minX), y0 = Swift.max(minY, r.minY)
        let x1 = Swift.min(maxX, r.maxX), y1 = Swift.min(maxY, r.maxY)
        guard x1 > x0, y1 > y0 else { return nil }
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public func intersects(_ r: Rect) -> Bool { intersection(r) != nil }

    public func union(_ r: Rect) -> Rect {
        let x0 = Swift.min(minX, r.minX), y0 = Swift.min(minY, r.minY)
        let x1 = Swift.max(maxX, r.maxX), y1 = Swift.max(maxY, r.maxY)
        return Rect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    /// Grows (positive) or shrinks (negative) every side by the given amounts.
    public func insetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: minX + dx, y: minY + dy, width: width - 2 * dx, height: height - 2 * dy)
    }

    public func inset(by e: EdgeInsets) -> Rect {
        Rect(x: minX + e.left, y: minY + e.top, width: width - e.left - e.right, height: height - e.top - e.bottom)
    }

    public func offsetBy(dx: Double, dy: Double) -> Rect {
        Rect(x: minX + dx, y: minY + dy, width: width, height: height)
    }

    /// This rect's size, aspect kept, fitted into `bounds` and centred there.
    public func aspectFit(in bounds: Rect) -> Rect {
        Rect(center: bounds.center, size: size.fitted(into: bounds.size))
    }

    /// Moves (without resizing, unless it is larger) so the rect lies inside `bounds`.
    /// When the rect is larger than `bounds` along an axis it is centred on that axis.
    public func clamped(into bounds: Rect) -> Rect {
        func axis(_ lo: Double, _ len: Double, _ blo: Double, _ blen: Double) -> Double {
            if len >= blen { return blo + (blen - len) / 2 }
            return Swift.min(Swift.max(lo, blo), blo + blen - len)
        }
        return Rect(
            x: axis(minX, width, bounds.minX, bounds.width),
            y: axis(minY, height, bounds.minY, bounds.height),
            width: width, height: height)
    }

    /// The smallest pixel rect that covers this rect.
    public var enclosingPixelRect: PixelRect {
        let x0 = Int((minX).rounded(.down)), y0 = Int((minY).rounded(.down))
        let x1 = Int((maxX).rounded(.up)), y1 = Int((maxY).rounded(.up))
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public func applying(_ t: AffineTransform) -> Rect {
        let corners = [
            t.apply(Point(x: minX, y: minY)), t.apply(Point(x: maxX, y: minY)),
            t.apply(Point(x: minX, y: maxY)), t.apply(Point(x: maxX, y: maxY)),
        ]
        let xs = corners.map(\.x), ys = corners.map(\.y)
        let x0 = xs.min()!, y0 = ys.min()!
        return Rect(x: x0, y: y0, width: xs.max()! - x0, height: ys.max()! - y0)
    }

    public var description: String { "[\(minX), \(minY) \(width)×\(height)]" }
}

/// Distances inward from each edge (safe areas, padding, margins).
public struct EdgeInsets: Hashable, Sendable, Codable {
    public var top: Double
    public var left: Double
    public var bottom: Double
    public var right: Double

    public init(top: Double = 0, left: Double = 0, bottom: Double = 0, right: Double = 0) {
        self.top = top
        self.left = left
        self.bottom = bottom
        self.right = right
    }

    public init(all v: Double) { self.init(top: v, left: v, bottom: v, right: v) }

    public static let zero = EdgeInsets()
}

/// An axis-aligned rectangle of whole pixels; `x`, `y` is the top-left pixel.
public struct PixelRect: Hashable, Sendable, Codable, CustomStringConvertible {
    public var x: Int
    public var y: Int
    public var width: Int
    public var height: Int

    public init(x: Int, y: Int, width: Int, height: Int) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    public init(width: Int, height: Int) { self.init(x: 0, y: 0, width: width, height: height) }

    public var minX: Int { x }
    public var minY: Int { y }
    public var maxX: Int { x + width }
    public var maxY: Int { y + height }
    public var area: Int { Swift.max(0, width) * Swift.max(0, height) }
    public var isEmpty: Bool { width <= 0 || height <= 0 }

    public func contains(x px: Int, y py: Int) -> Bool { px >= x && px < maxX && py >= y && py < maxY }

    public func contains(_ r: PixelRect) -> Bool {
        r.x >= x && r.y >= y && r.maxX <= maxX && r.maxY <= maxY
    }

    public func intersection(_ r: PixelRect) -> PixelRect? {
        let x0 = Swift.max(x, r.x), y0 = Swift.max(y, r.y)
        let x1 = Swift.min(maxX, r.maxX), y1 = Swift.min(maxY, r.maxY)
        guard x1 > x0, y1 > y0 else { return nil }
        return PixelRect(x: x0, y: y0, width: x1 - x0, height: y1 - y0)
    }

    public func union(_ r: PixelRect) -> PixelRect {
        let x0 = Swift.min(x, r.x), y0 = Swift.min(y, r.y)
        return PixelRect(x: x0, y: y0, width: Swift.max(maxX, r.maxX) - x0, height: Swift.max(maxY, r.maxY) - y0)
    }

    /// Grows every side by `d` pixels (shrinks when negative).
    public func expanded(by d: Int) -> PixelRect {
        PixelRect(x: x - d, y: y - d, width: width + 2 * d, height: height + 2 * d)
    }

    public var description: String { "\(width)×\(height)+\(x)+\(y)" }
}

/// A 2-D affine transform mapping (x, y) to (a·x + c·y + tx, b·x + d·y + ty), the same
/// convention as Core Graphics and the CSS `matrix(a, b, c, d, tx, ty)` function.
public struct AffineTransform: Hashable, Sendable, Codable {
    public var a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double

    public init(a: Double, b: Double, c: Double, d: Double, tx: Double, ty: Double) {
        self.a = a
        self.b = b
        self.c = c
        self.d = d
        self.tx = tx
        self.ty = ty
    }

    public static let identity = AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: 0, ty: 0)

    public static func translation(x: Double, y: Double) -> AffineTransform {
        AffineTransform(a: 1, b: 0, c: 0, d: 1, tx: x, ty: y)
    }

    public static func scale(x: Double, y: Double) -> AffineTransform {
        AffineTransform(a: x, b: 0, c: 0, d: y, tx: 0, ty: 0)
    }

    public static func scale(_ s: Double) -> AffineTransform { scale(x: s, y: s) }

    /// Rotation by `radians`; positive turns clockwise on screen because y points down.
    public static func rotation(_ radians: Double) -> AffineTransform {
        let cs = cos(radians), sn = sin(radians)
        return AffineTransform(a: cs, b: sn, c: -sn, d: cs, tx: 0, ty: 0)
    }

    /// The transform that maps `from` onto `to` (scale per axis, then translate).
    public static func mapping(_ from: Rect, to: Rect) -> AffineTransform {
        let sx = from.width == 0 ? 1 : to.width / from.width
        let sy = from.height == 0 ? 1 : to.height / from.height
        return AffineTransform(a: sx, b: 0, c: 0, d: sy, tx: to.minX - from.minX * sx, ty: to.minY - from.minY * sy)
    }

    /// `self` followed by `t`.
    public func concatenating(_ t: AffineTransform) -> AffineTransform {
        AffineTransform(
            a: a * t.a + b * t.c, b: a * t.b + b * t.d,
            c: c * t.a + d * t.c, d: c * t.b + d * t.d,
            tx: tx * t.a + ty * t.c + t.tx, ty: tx * t.b + ty * t.d + t.ty)
    }

    public var determinant: Double { a * d - b * c }

    /// The inverse, or `nil` for a singular transform.
    public var inverted: AffineTransform? {
        let det = determinant
        guard det != 0, det.isFinite else { return nil }
        return AffineTransform(
            a: d / det, b: -b / det, c: -c / det, d: a / det,
            tx: (c * ty - d * tx) / det, ty: (b * tx - a * ty) / det)
    }

    public func apply(_ p: Point) -> Point {
        Point(x: a * p.x + c * p.y + tx, y: b * p.x + d * p.y + ty)
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
