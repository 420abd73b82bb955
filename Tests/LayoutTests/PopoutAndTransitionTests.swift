import BookModel
import Geometry
import Layout
import Testing

@Suite struct PopoutTests {
    let vp = Viewport(size: Size(width: 400, height: 800), scale: 2, safeArea: EdgeInsets(top: 40, bottom: 20), readableTextSize: 18)
    let popout = PopoutLayout(margin: 10, minimumMagnification: 1.25, padding: 0)

    @Test func growsToReadableSizeCentredOnTheSource() {
        let src = Rect(x: 150, y: 380, width: 100, height: 20)
        let g = popout.popout(source: src, textSize: 6, in: vp)
        #expect(g.magnification == 3)
        #expect(g.textSize == 18)
        #expect(g.frame.size == Size(width: 300, height: 60))
        #expect(g.frame.center == src.center)
        #expect(!g.needsScroll)
    }

    @Test func alreadyReadableTextStillGrowsALittle() {
        let g = popout.popout(source: Rect(x: 100, y: 300, width: 100, height: 40), textSize: 30, in: vp)
        #expect(g.magnification == 1.25)
    }

    enum Edge: String, CaseIterable { case left, right, top, bottom }

    @Test(arguments: Edge.allCases)
    func clampedAtEveryEdge(edge: Edge) {
        let area = vp.safeBounds.insetBy(dx: 10, dy: 10)
        let src: Rect
        switch edge {
        case .left: src = Rect(x: 0, y: 400, width: 60, height: 20)
        case .right: src = Rect(x: 340, y: 400, width: 60, height: 20)
        case .top: src = Rect(x: 170, y: 40, width: 60, height: 20)
        case .bottom: src = Rect(x: 170, y: 760, width: 60, height: 20)
        }
        let g = popout.popout(source: src, textSize: 6, in: vp)
        #expect(area.contains(g.frame), "\(g.frame) not inside \(area)")
        switch edge {
        case .left: #expect(g.frame.minX == area.minX)
        case .right: #expect(g.frame.maxX == area.maxX)
        case .top: #expect(g.frame.minY == area.minY)
        case .bottom: #expect(g.frame.maxY == area.maxY)
        }
        // Along the other axis it stays centred on the source.
        switch edge {
        case .left, .right: #expect(g.frame.midY == src.midY)
        case .top, .bottom: #expect(g.frame.midX == src.midX)
        }
    }

    @Test func longLinesFitTheWidthWhenThatCostsLittle() {
        let area = vp.safeBounds.insetBy(dx: 10, dy: 10)
        // ×3 would be 450 wide; fitting 380 is ×2.53, 84 % of the target: fit, no panning.
        let g = popout.popout(source: Rect(x: 100, y: 300, width: 150, height: 20), textSize: 6, in: vp)
        #expect(g.frame.width == area.width)
        #expect(!g.needsScroll)
        #expect(g.textSize < 18 && g.textSize >= 18 * 0.8)
    }

    @Test func tooBigReportsScrollExtent() {
        let area = vp.safeBounds.insetBy(dx: 10, dy: 10)
        let src = Rect(x: 20, y: 100, width: 360, height: 300)
        let g = popout.popout(source: src, textSize: 6, in: vp)
        #expect(g.contentSize == Size(width: 1080, height: 900))
        #expect(g.frame == area)
        #expect(g.scrollExtent == Size(width: 1080 - area.width, height: 900 - area.height))
        #expect(g.needsScroll)
    }

    @Test func estimatesPrintedTextSize() {
        // One line of 20 characters in a 200×26 box: about 20 px per em.
        let s = TextSizeEstimate.fontSize(of: "abcde fghij klmn opq", in: Size(width: 200, height: 26))
        #expect(s > 15 && s < 26)
        // Four lines of the same text in a narrow box: a quarter of the width, four lines high.
        let s4 = TextSizeEstimate.fontSize(of: String(repeating: "abcde fghij klmn opq ", count: 4), in: Size(width: 200, height: 104))
        #expect(abs(s4 - s) / s < 0.3)
        let v = TextSizeEstimate.fontSize(of: "abcde fghij klmn opq", in: Size(width: 26, height: 200), vertical: true)
        #expect(abs(v - s) < 1e-9)
    }

    @Test func hintLabelBelowOrAbove() throws {
        let label = Size(width: 160, height: 28)
        let below = try #require(TapHint.layout(boxes: [Rect(x: 100, y: 200, width: 200, height: 40)], labelSize: label, in: vp))
        #expect(below.label.minY > below.anchor.maxY)
        let above = try #require(TapHint.layout(boxes: [Rect(x: 100, y: 740, width: 200, height: 30)], labelSize: label, in: vp))
        #expect(above.label.maxY < above.anchor.minY)
        #expect(vp.safeBounds.contains(above.label))
        #expect(TapHint.layout(boxes: [], labelSize: label, in: vp) == nil)
        // A label that would cover the next block goes elsewhere.
        let crowded = try #require(TapHint.layout(
            boxes: [Rect(x: 100, y: 200, width: 200, height: 30), Rect(x: 100, y: 240, width: 200, height: 30)], labelSize: label, in: vp))
        #expect(!crowded.outlines.contains { $0.intersects(crowded.label) })
    }
}

@Suite struct TransitionTests {
    static let pairs: [(Rect, Rect)] = [
        (Rect(x: 20, y: 30, width: 40, height: 56), Rect(x: 0, y: 50, width: 400, height: 560)),
        (Rect(x: 300, y: 600, width: 50, height: 50), Rect(x: 10, y: 10, width: 380, height: 500)),
        (Rect(x: 0, y: 0, width: 100, height: 100), Rect(x: 200, y: 0, width: 100, height: 100)),
    ]

    @Test(arguments: [true, false], Easing.allCases)
    func endpointsExactAndFramesMonotone(logScale: Bool, easing: Easing) {
        for (a, b) in Self.pairs {
            let tw = RectTween(from: a, to: b, easing: easing, logScale: logScale)
            let times = frameTimes(count: 31)
            let rects = times.map(tw.rect(at:))
            #expect(rects.first == a)
            #expect(rects.last == b)
            func monotone(_ v: [Double]) -> Bool {
                let up = zip(v, v.dropFirst()).allSatisfy { $0 <= $1 + 1e-9 }
                let down = zip(v, v.dropFirst()).allSatisfy { $0 >= $1 - 1e-9 }
                return up || down
            }
            #expect(monotone(rects.map(\.minX)) && monotone(rects.map(\.minY)))
            #expect(monotone(rects.map(\.width)) && monotone(rects.map(\.height)))
            #expect(monotone(rects.map(\.maxX)) && monotone(rects.map(\.maxY)))
        }
    }

    @Test func logZoomKeepsItsFixedPointAndScalesGeometrically() {
        let a = Rect(x: 20, y: 30, width: 40, height: 56), b = Rect(x: 0, y: 50, width: 400, height: 560)
        let tw = RectTween(from: a, to: b, easing: .linear, logScale: true)
        // Halfway in time is the geometric mean in size.
        #expect(abs(tw.rect(at: 0.5).width - (40.0 * 400).squareRoot()) < 1e-9)
        // The zoom's fixed point maps to itself in every frame.
        let k = 10.0, fx = (b.minX - a.minX * k) / (1 - k), fy = (b.minY - a.minY * k) / (1 - k)
        for t in [0.2, 0.5, 0.8] {
            let p = tw.transform(at: t).apply(Point(x: fx, y: fy))
            #expect(abs(p.x - fx) < 1e-6 && abs(p.y - fy) < 1e-6)
        }
    }

    @Test(arguments: Easing.allCases)
    func easingIsMonotoneWithExactEnds(e: Easing) {
        #expect(e(0) == 0 && e(1) == 1)
        let v = (0...200).map { e(Double($0) / 200) }
        #expect(zip(v, v.dropFirst()).allSatisfy { $0 <= $1 })
    }

    @Test func snapIsFasterThanLinearEarly() {
        #expect(Easing.snap(0.3) > 0.7)
    }

    @Test(arguments: [1, 2, 5, 60])
    func frameTimesCoverTheRange(n: Int) {
        let t = frameTimes(count: n)
        #expect(t.count == n)
        #expect(t.last == 1)
        if n > 1 { #expect(t.first == 0) }
        #expect(frameTimes(duration: 0.5, frameRate: 60).count == 31)
    }

    @Test func zoomTransitionEndsOnThePage() throws {
        let book = makeBook(9)
        let vp = DeviceProfile.phone.viewport(.portrait)
        let grid = GridLayout.layout(book, in: vp)
        let screens = SpreadComposer().screens(for: book, orientation: .portrait)
        let screen = Fit.layout(screens[4], of: book, in: vp)
        let frames = Transition.zoom(grid: grid, tapped: 5, into: screen, times: frameTimes(count: 9))
        #expect(frames.count == 9)
        let first = try #require(frames.first?.placements.last), last = try #require(frames.last?.placements.last)
        #expect(first.rect == grid.cells[4].frame)
        #expect(last.rect == screen.frame(of: 5)!.frame)
        let widths = frames.map { $0.placements.last!.rect.width }
        #expect(zip(widths, widths.dropFirst()).allSatisfy { $0 < $1 })
    }

    @Test func rotateAndTurnEndpoints() throws {
        let book = makeBook(9)
        let d = DeviceProfile.phone
        let p = Fit.layout(Screen(pages: [3], direction: .leftToRight, kind: .single), of: book, in: d.viewport(.portrait))
        let l = Fit.layout(Screen(pages: [2, 3], direction: .leftToRight, kind: .pair), of: book, in: d.viewport(.landscape))
        let frames = Transition.rotate(from: p, to: l, page: 3, times: frameTimes(count: 5))
        #expect(frames.last!.placements.last!.rect == l.frame(of: 3)!.frame)
        #expect(frames.last!.placements.last!.rotation == 0)
        #expect(frames.first!.placements.last!.rect.size == p.frame(of: 3)!.frame.size)
        let next = Fit.layout(Screen(pages: [4, 5], direction: .leftToRight, kind: .pair), of: book, in: d.viewport(.landscape))
        let turn = Transition.turn(from: l, to: next, rightToLeft: false, times: frameTimes(count: 5))
        #expect(turn.first!.placements.prefix(2).map(\.rect) == l.pages.map(\.frame))
        #expect(turn.last!.placements.map(\.rect) == next.pages.map(\.frame))
    }

    @Test func gridFillsRowsInReadingDirection() {
        let vp = DeviceProfile.tablet.viewport(.portrait)
        let ltr = GridLayout.layout(makeBook(10), in: vp)
        let rtl = GridLayout.layout(makeBook(10, direction: .rightToLeft), in: vp)
        #expect(ltr.cells[0].frame.minX < ltr.cells[1].frame.minX)
        #expect(rtl.cells[0].frame.minX > rtl.cells[1].frame.minX)
        #expect(ltr.cells.allSatisfy { vp.safeBounds.contains($0.frame) || $0.frame.maxY > vp.safeBounds.maxY })
    }
}
