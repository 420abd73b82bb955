// Transitions as keyframes: pure functions of progress t ∈ [0, 1], so a reader (or the
// renderer) can sample them at any frame rate. Every curve here is monotone and hits its
// endpoints exactly, so frame 0 and the last frame are the screens themselves.

public import Geometry

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Easing curves: maps [0, 1] onto [0, 1], monotone, e(0) = 0 and e(1) = 1 exactly.
public enum Easing: String, Sendable, Hashable, Codable, CaseIterable {
    case linear
    /// Cubic ease in and out: zooms start and land softly.
    case easeInOut
    /// Cubic ease out: a popout leaps toward the reader and settles.
    case easeOut
    /// A critically damped spring, rescaled to land exactly at 1: fast start, a firm snap into
    /// place, no overshoot (overshoot would break monotone frames and looks like a wobble).
    case snap

    public func callAsFunction(_ t: Double) -> Double {
        if t <= 0 { return 0 }
        if t >= 1 { return 1 }
        switch self {
        case .linear: return t
        case .easeInOut: return t < 0.5 ? 4 * t * t * t : 1 - pow(-2 * t + 2, 3) / 2
        case .easeOut: return 1 - pow(1 - t, 3)
        case .snap:
            let w = 9.0
            func spring(_ x: Double) -> Double { 1 - (1 + w * x) * exp(-w * x) }
            return spring(t) / spring(1)
        }
    }
}

/// A rect moving and resizing between two rects.
public struct RectTween: Sendable, Hashable, Codable {
    public var from: Rect
    public var to: Rect
    public var easing: Easing
    /// Interpolate the size geometrically (a zoom: each frame magnifies by the same factor) and
    /// keep the fixed point of the zoom fixed, rather than moving the centre in a straight line.
    public var logScale: Bool

    public init(from: Rect, to: Rect, easing: Easing = .easeInOut, logScale: Bool = false) {
        self.from = from
        self.to = to
        self.easing = easing
        self.logScale = logScale
    }

    public func rect(at t: Double) -> Rect {
        if t <= 0 { return from }
        if t >= 1 { return to }
        let e = easing(t)
        guard logScale else {
            func l(_ a: Double, _ b: Double) -> Double { a + (b - a) * e }
            return Rect(x: l(from.minX, to.minX), y: l(from.minY, to.minY), width: l(from.width, to.width), height: l(from.height, to.height))
        }
        func axis(_ p0: Double, _ s0: Double, _ p1: Double, _ s1: Double) -> (Double, Double) {
            guard s0 > 0, s1 > 0, abs(s1 - s0) > 1e-9 * max(s0, s1) else {
                return (p0 + (p1 - p0) * e, s0 + (s1 - s0) * e)
            }
            let s = s0 * pow(s1 / s0, e)
            // The fixed point a of the zoom along this axis: a + (p0 - a)·k = p1 with k = s1/s0.
            // Origin moves with the size, so position is monotone whenever size is.
            let k = s1 / s0
            let a = (p1 - p0 * k) / (1 - k)
            return (a + (p0 - a) * (s / s0), s)
        }
        let (x, w) = axis(from.minX, from.width, to.minX, to.width)
        let (y, h) = axis(from.minY, from.height, to.minY, to.height)
        return Rect(x: x, y: y, width: w, height: h)
    }

    /// The transform taking `from` to the rect at `t`: apply it to anything that moves with the
    /// tweened rect (the rest of an overview grid zooming with its tapped thumbnail).
    public func transform(at t: Double) -> AffineTransform {
        AffineTransform.mapping(from, to: rect(at: t))
    }
}

/// A scalar going from one value to another.
public struct ScalarTween: Sendable, Hashable, Codable {
    public var from: Double
    public var to: Double
    public var easing: Easing

    public init(from: Double, to: Double, easing: Easing = .easeInOut) {
        self.from = from
        self.to = to
        self.easing = easing
    }

    public func value(at t: Double) -> Double {
        if t <= 0 { return from }
        if t >= 1 { return to }
        return from + (to - from) * easing(t)
    }
}

/// Progress values for `count` frames: 0 and 1 included, evenly spaced.
public func frameTimes(count: Int) -> [Double] {
    precondition(count >= 1, "need at least one frame, got \(count)")
    if count == 1 { return [1] }
    return (0..<count).map { k in k == count - 1 ? 1 : Double(k) / Double(count - 1) }
}

/// Progress values for an animation of `duration` seconds at `frameRate` frames per second.
public func frameTimes(duration: Double, frameRate: Double) -> [Double] {
    precondition(duration > 0 && frameRate > 0, "duration and frame rate must be positive, got \(duration) s at \(frameRate) fps")
    return frameTimes(count: max(2, Int((duration * frameRate).rounded()) + 1))
}

/// Something drawn in a transition frame.
public struct Placement: Sendable, Hashable, Codable {
    public enum Content: Sendable, Hashable, Codable {
        /// A page scan (1-based number), whole.
        case page(Int)
        /// Part of a page scan (scan pixels), e.g. a popped-out text block.
        case pageRegion(Int, Rect)
        /// A translucent black layer over everything drawn before it.
        case dim
    }

    public var content: Content
    /// Where, in points.
    public var rect: Rect
    public var opacity: Double
    /// Rotation about the rect's centre, radians, clockwise on screen.
    public var rotation: Double

    public init(_ content: Content, rect: Rect, opacity: Double = 1, rotation: Double = 0) {
        self.content = content
        self.rect = rect
        self.opacity = opacity
        self.rotation = rotation
    }
}

/// One sampled frame: what to draw, back to front.
public struct TransitionFrame: Sendable, Hashable, Codable {
    public var time: Double
    public var viewport: Viewport
    public var placements: [Placement]
}

/// The transitions the reader plays.
public enum Transition {
    /// Overview grid → page: the grid zooms, anchored at the tapped thumbnail, until the
    /// thumbnail is the page on screen; the other thumbnails fly out with it and fade.
    public static func zoom(grid: GridLayout, tapped page: Int, into screen: ScreenLayout, times: [Double]) -> [TransitionFrame] {
        guard let thumb = grid.cells.first(where: { $0.page == page })?.frame,
              let target = screen.frame(of: page)?.frame else { return [] }
        let tween = RectTween(from: thumb, to: target, easing: .easeInOut, logScale: true)
        let fade = ScalarTween(from: 1, to: 0, easing: .easeOut)
        let partnersIn = ScalarTween(from: 0, to: 1, easing: .easeInOut)
        return times.map { t in
            let r = tween.rect(at: t)
            let tr = AffineTransform.mapping(thumb, to: r)
            var ps: [Placement] = grid.cells.filter { $0.page != page }.map {
                Placement(.page($0.page), rect: $0.frame.applying(tr), opacity: fade.value(at: t))
            }
            // Facing pages of the destination spread slide in beside the zooming page.
            for f in screen.pages where f.page != page {
                let offset = AffineTransform.mapping(target, to: r)
                ps.append(Placement(.page(f.page), rect: f.frame.applying(offset), opacity: partnersIn.value(at: t)))
            }
            ps.append(Placement(.page(page), rect: r))
            return TransitionFrame(time: t, viewport: screen.viewport, placements: ps)
        }
    }

    /// Portrait page → its place in the landscape spread. Frames are in the landscape
    /// viewport: the page starts where the portrait screen put it, turned a quarter back (the
    /// device just turned under it), and unturns as it settles into the spread while its
    /// facing page fades in.
    public static func rotate(from portrait: ScreenLayout, to landscape: ScreenLayout, page: Int, times: [Double]) -> [TransitionFrame] {
        guard let start = portrait.frame(of: page)?.frame, let end = landscape.frame(of: page)?.frame else { return [] }
        // The portrait screen's centre stays at the landscape screen's centre.
        let pc = portrait.viewport.bounds.center, lc = landscape.viewport.bounds.center
        let startInLandscape = start.offsetBy(dx: lc.x - pc.x, dy: lc.y - pc.y)
        let tween = RectTween(from: startInLandscape, to: end, easing: .easeInOut)
        let angle = ScalarTween(from: -Double.pi / 2, to: 0, easing: .easeInOut)
        let fadeIn = ScalarTween(from: 0, to: 1, easing: .easeInOut)
        return times.map { t in
            let r = tween.rect(at: t)
            var ps: [Placement] = []
            for f in landscape.pages where f.page != page {
                ps.append(Placement(.page(f.page), rect: f.frame, opacity: fadeIn.value(at: t)))
            }
            ps.append(Placement(.page(page), rect: r, rotation: angle.value(at: t)))
            return TransitionFrame(time: t, viewport: landscape.viewport, placements: ps)
        }
    }

    /// A text block popping out (`grow`) or back (`!grow`) over its screen.
    public static func popout(_ geometry: PopoutGeometry, page: Int, boxRect: Rect, on screen: ScreenLayout, grow: Bool, times: [Double]) -> [TransitionFrame] {
        let visibleContent = Rect(
            x: boxRect.minX, y: boxRect.minY,
            width: boxRect.width * min(1, geometry.frame.width / geometry.contentSize.width),
            height: boxRect.height * min(1, geometry.frame.height / geometry.contentSize.height))
        let tween = RectTween(from: grow ? geometry.source : geometry.frame, to: grow ? geometry.frame : geometry.source, easing: .easeOut)
        let dim = ScalarTween(from: grow ? 0 : 0.45, to: grow ? 0.45 : 0, easing: .easeOut)
        return times.map { t in
            var ps = screen.pages.map { Placement(.page($0.page), rect: $0.frame) }
            ps.append(Placement(.dim, rect: screen.viewport.bounds, opacity: dim.value(at: t)))
            ps.append(Placement(.pageRegion(page, visibleContent), rect: tween.rect(at: t)))
            return TransitionFrame(time: t, viewport: screen.viewport, placements: ps)
        }
    }

    /// Turning to the next screen: the current one slides out toward where the reader came
    /// from and the next slides in behind the reading direction, with a snap at the end.
    /// In a right-to-left book pages turn the other way.
    public static func turn(from current: ScreenLayout, to next: ScreenLayout, rightToLeft: Bool, times: [Double]) -> [TransitionFrame] {
        let w = current.viewport.size.width
        let dir: Double = rightToLeft ? 1 : -1
        let offset = ScalarTween(from: 0, to: dir * w, easing: .snap)
        return times.map { t in
            let dx = offset.value(at: t)
            var ps = current.pages.map { Placement(.page($0.page), rect: $0.frame.offsetBy(dx: dx, dy: 0)) }
            ps += next.pages.map { Placement(.page($0.page), rect: $0.frame.offsetBy(dx: dx - dir * w, dy: 0)) }
            if t >= 1 { ps = next.pages.map { Placement(.page($0.page), rect: $0.frame) } }
            return TransitionFrame(time: t, viewport: current.viewport, placements: ps)
        }
    }
}
