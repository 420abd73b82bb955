// Screens as images at the device's pixel size: scan pages, PopoutText, ClearText, the
// overview grid and transition frames.

public import BookModel
import Foundation
import Geometry
public import Layout
public import Raster
import Typesetting

/// Colours and sizes of the reader's chrome.
public struct RenderStyle: Sendable, Hashable {
    /// Behind the pages.
    public var background: RGBA8
    /// Darkening over the page behind a popout, 0…1.
    public var popoutDim: Double
    public var hintColor: RGBA8
    /// The hint label's text size, points per em.
    public var hintTextSize: Double

    public init(background: RGBA8 = RGBA8(r: 0x26, g: 0x26, b: 0x2a), popoutDim: Double = 0.45,
                hintColor: RGBA8 = RGBA8(r: 0x1e, g: 0x6f, b: 0xd9), hintTextSize: Double = 14) {
        self.background = background
        self.popoutDim = popoutDim
        self.hintColor = hintColor
        self.hintTextSize = hintTextSize
    }
}

/// What a ClearText render did, for the command's report.
public struct ClearTextReport: Sendable {
    public var blocks: [ClearTextBlock]
    public var skipped: [ClearTextSkip]
    /// Pages drawn over their scan because BOOK_DIR/clear/ has no cleared picture of them.
    public var pagesWithoutClearedImage: [Int]
}

public struct ScreenRenderer {
    public let images: PageImages
    public var style: RenderStyle

    public init(images: PageImages, style: RenderStyle = RenderStyle()) {
        self.images = images
        self.style = style
    }

    var book: Book { images.book }

    func canvas(for viewport: Viewport) -> Bitmap<RGBA8> {
        Bitmap(width: viewport.pixelWidth, height: viewport.pixelHeight, fill: style.background)
    }

    /// The screen's pages as scanned (or cleared) at device pixels.
    public func renderPages(_ layout: ScreenLayout, variant: (Int) -> PageVariant = { _ in .scan }) throws -> Bitmap<RGBA8> {
        var out = canvas(for: layout.viewport)
        let scale = layout.viewport.scale
        let jobs = layout.pages.map { ($0.page, variant($0.page), $0.frame.pixelRect(scale: scale)) }
        // Decode and resample the pages of a spread on both cores.
        let results = ResultSlots(count: jobs.count)
        let images = self.images
        DispatchQueue.concurrentPerform(iterations: jobs.count) { i in
            let (n, v, r) = jobs[i]
            results.set(i, Result { try images.image(n, variant: v, width: r.width, height: r.height) })
        }
        for (i, job) in jobs.enumerated() {
            let bitmap = try results.get(i)
            out.paste(bitmap, atX: job.2.minX, y: job.2.minY)
        }
        if layout.pages.count == 2 { gutterShade(&out, layout) }
        return out
    }

    /// A faint shade either side of the gutter so a spread reads as an open book. One pass
    /// over the band's rows (a fill per column would walk the whole height 2×width times).
    func gutterShade(_ bitmap: inout Bitmap<RGBA8>, _ layout: ScreenLayout) {
        let scale = layout.viewport.scale
        let x = Int((layout.pages[0].frame.maxX * scale).rounded())
        guard let r = layout.contentFrame.pixelRect(scale: scale).intersection(bitmap.bounds) else { return }
        let band = max(2, Int(6 * scale))
        // Multiplier per column offset from the gutter, 8-bit fixed point.
        let keep: [UInt32] = (0..<band).map { k in UInt32(255 - 28 * (band - k) / band) }
        let W = bitmap.width
        let x0 = max(r.minX, x - band), x1 = min(r.maxX, x + band)
        guard x0 < x1 else { return }
        bitmap.pixels.withUnsafeMutableBufferPointer { buf in
            for y in r.minY..<r.maxY {
                let row = y * W
                for col in x0..<x1 {
                    let k = col < x ? x - 1 - col : col - x
                    let m = keep[k]
                    let p = buf[row + col]
                    buf[row + col] = RGBA8(r: UInt8(UInt32(p.r) * m / 255), g: UInt8(UInt32(p.g) * m / 255), b: UInt8(UInt32(p.b) * m / 255), a: p.a)
                }
            }
        }
    }

    /// A text box by id on the screen's pages.
    public func box(_ id: String, on layout: ScreenLayout) -> (TextBox, PageFrame)? {
        for f in layout.pages {
            if let b = book.pages[f.page - 1].textBoxes.first(where: { $0.id == id }) { return (b, f) }
        }
        return nil
    }

    /// The screen with one text block popped out over a dimmed page.
    public func renderPopout(_ layout: ScreenLayout, boxID: String, popout: PopoutLayout = PopoutLayout()) throws -> (Bitmap<RGBA8>, PopoutGeometry) {
        guard let (box, frame) = box(boxID, on: layout) else { throw RenderError.noSuchBox(boxID) }
        var out = try renderPages(layout)
        let g = popout.popout(box: box, on: frame, in: layout.viewport)
        out.fill(out.bounds, blending: RGBA8(r: 0, g: 0, b: 0, a: UInt8(style.popoutDim * 255)))
        try drawPopoutCard(&out, geometry: g, box: box, page: frame.page, scale: layout.viewport.scale, padding: popout.padding)
        return (out, g)
    }

    func drawPopoutCard(_ out: inout Bitmap<RGBA8>, geometry g: PopoutGeometry, box: TextBox, page: Int, scale: Double, padding: Double) throws {
        let card = g.frame.pixelRect(scale: scale)
        out.shadow(under: card, radius: Int(8 * scale), offset: Int(3 * scale))
        let p = book.pages[page - 1]
        // The magnified block is the scan itself, sharp: take it from the scan at a resolution
        // close to the card's, not from the screen-sized page.
        let full = try images.image(page, width: p.width, height: p.height)
        // Visible part of the content, in scan pixels: the top-left of the block when it scrolls.
        let fx = min(1, g.frame.width / g.contentSize.width), fy = min(1, g.frame.height / g.contentSize.height)
        let crop = PixelRect(x: box.rect.x, y: box.rect.y,
                             width: max(1, Int((Double(box.rect.width) * fx).rounded())),
                             height: max(1, Int((Double(box.rect.height) * fy).rounded())))
            .intersection(full.bounds) ?? box.rect
        let region = full.cropped(to: crop)
        let paper = full.ringColor(around: box.rect)
        out.fill(card, with: paper)
        let inner = g.frame.insetBy(dx: padding, dy: padding)
        out.draw(region, in: Rect(x: inner.minX * scale, y: inner.minY * scale, width: inner.width * scale, height: inner.height * scale),
                 filter: .automatic)
        out.strokeRect(card, color: RGBA8(r: 255, g: 255, b: 255, a: 200), lineWidth: max(1, Int(scale.rounded())))
        if g.needsScroll { scrollBar(&out, frame: g.frame, contentSize: g.contentSize, scale: scale) }
    }

    /// A thin bar at the right (and bottom) edge saying there is more to scroll to.
    func scrollBar(_ out: inout Bitmap<RGBA8>, frame: Rect, contentSize: Size, scale: Double, vertical: Bool = true, horizontal: Bool = true) {
        let t = max(2, Int((3 * scale).rounded())), inset = Int(3 * scale)
        let px = frame.pixelRect(scale: scale)
        let color = RGBA8(r: 0, g: 0, b: 0, a: 110)
        if vertical && contentSize.height > frame.height + 0.5 {
            let len = Int(Double(px.height - 2 * inset) * frame.height / contentSize.height)
            out.fill(PixelRect(x: px.maxX - inset - t, y: px.minY + inset, width: t, height: max(t, len)), blending: color)
        }
        if horizontal && contentSize.width > frame.width + 0.5 {
            let len = Int(Double(px.width - 2 * inset) * frame.width / contentSize.width)
            out.fill(PixelRect(x: px.minX + inset, y: px.maxY - inset - t, width: max(t, len), height: t), blending: color)
        }
    }

    /// The first-open hint over the scan screen: every text block outlined with a dashed line,
    /// and "Tap to enlarge text" under the first.
    public func renderHint(_ layout: ScreenLayout) throws -> Bitmap<RGBA8> {
        var out = try renderPages(layout)
        let scale = layout.viewport.scale
        var boxes: [Rect] = []
        for f in layout.pages {
            for b in book.pages[f.page - 1].textBoxesInReadingOrder where b.role != .pageNumber { boxes.append(f.toScreen(b.rect)) }
        }
        let sizePx = style.hintTextSize * scale
        let textStyle = TextStyle(language: "en", alignment: .center, minimumSize: sizePx, maximumSize: sizePx)
        let text = try Typesetter().layout(TapHint.text, size: sizePx, in: Size(width: 2000 * scale, height: sizePx * 2), style: textStyle)
        let textW = text.lines.first?.frame.width ?? sizePx * 8
        let label = Size(width: textW / scale + 20, height: style.hintTextSize * 2)
        guard let hint = TapHint.layout(boxes: boxes, labelSize: label, in: layout.viewport) else { return out }
        let lw = max(1, Int((1.5 * scale).rounded()))
        for o in hint.outlines {
            out.strokeRect(o.pixelRect(scale: scale), color: style.hintColor, lineWidth: lw, dash: DashPattern(on: 5 * lw, off: 3 * lw))
        }
        let pill = hint.label.pixelRect(scale: scale)
        out.shadow(under: pill, radius: Int(4 * scale), offset: Int(1 * scale))
        out.fill(pill, with: style.hintColor)
        let centred = try Typesetter().layout(TapHint.text, size: sizePx, in: Size(width: Double(pill.width), height: Double(pill.height)),
                                              style: TextStyle(language: "en", alignment: .center, blockAlignment: .center, minimumSize: sizePx, maximumSize: sizePx))
        centred.draw(into: &out, at: Point(x: Double(pill.minX), y: Double(pill.minY)), color: .white)
        return out
    }

    /// The screen in ClearText: each page's text in `language` set at a readable size over the
    /// cleared page (over the scan, on a plate of the surrounding paper colour, where the book
    /// has no cleared picture of a page yet).
    public func renderClearText(_ layout: ScreenLayout, language: String, clearText: ClearTextLayout = ClearTextLayout()) throws -> (Bitmap<RGBA8>, ClearTextReport) {
        let missing = layout.pages.map(\.page).filter { !images.hasCleared($0) }
        var out = try renderPages(layout) { missing.contains($0) ? .scan : .cleared }
        let scale = layout.viewport.scale
        var report = ClearTextReport(blocks: [], skipped: [], pagesWithoutClearedImage: missing)
        for f in layout.pages {
            let page = book.pages[f.page - 1]
            let r: (blocks: [ClearTextBlock], skipped: [ClearTextSkip])
            do {
                // On a cleared picture a box left as scanned (only ever a page number, or the
                // page would be drawn over its scan) still shows its print: it is not drawn again.
                let boxes = missing.contains(f.page) ? page.textBoxes : page.textBoxes.filter { !$0.needsReview }
                r = try clearText.layout(page: f, boxes: boxes, language: language, in: layout.viewport)
            } catch {
                throw RenderError.typesetting(boxID: page.textBoxes.first?.id ?? "?", reason: "\(error)")
            }
            let byID = Dictionary(page.textBoxes.map { ($0.id, $0) }, uniquingKeysWith: { a, _ in a })
            if missing.contains(f.page) {
                // Cover the printed text (source boxes and grown frames) with its paper.
                let dupes = r.skipped.filter(\.duplicate).compactMap { byID[$0.boxID].map { f.toScreen($0.rect) } }
                // Only where text was printed: grown frames over the picture get a halo instead.
                for rects in r.blocks.map({ [$0.source] }) + dupes.map({ [$0] }) {
                    for rect in rects {
                        let px = rect.insetBy(dx: -2, dy: -2).pixelRect(scale: scale)
                        let paper = out.ringColor(around: px)
                        out.fill(px, with: paper)
                    }
                }
            }
            for b in r.blocks {
                let px = b.frame.pixelRect(scale: scale)
                guard let clip = px.intersection(out.bounds), !clip.isEmpty else { continue }
                let ink = byID[b.boxID]?.inkColor.map { RGBA8(r: $0.red, g: $0.green, b: $0.blue) }
                let choice = Contrast.chooseTextColor(over: out.view(clip), preferred: ink)
                // Draw into a copy of the frame so a block that scrolls is cut at its frame,
                // with a scroll bar, rather than spilling over the page.
                var tile = out.cropped(to: clip)
                let halo = choice.halo.map { Halo(color: $0, radius: max(1, (b.layout.fontSize * 0.08).rounded())) }
                b.layout.draw(into: &tile, at: Point(x: Double(px.minX - clip.minX), y: Double(px.minY - clip.minY)), color: choice.color, halo: halo)
                out.paste(tile, atX: clip.minX, y: clip.minY)
                if b.scrollExtent > 0 {
                    let vertical = b.layout.style.writingMode != .horizontal
                    let content = vertical ? Size(width: b.frame.width + b.scrollExtent, height: b.frame.height)
                                           : Size(width: b.frame.width, height: b.frame.height + b.scrollExtent)
                    scrollBar(&out, frame: b.frame, contentSize: content, scale: scale)
                }
            }
            report.blocks += r.blocks
            report.skipped += r.skipped
        }
        return (out, report)
    }

    /// The overview: every page as a thumbnail (the part of the grid that fits the screen).
    public func renderGrid(_ grid: GridLayout) throws -> Bitmap<RGBA8> {
        var out = canvas(for: grid.viewport)
        let scale = grid.viewport.scale
        for c in grid.cells {
            let px = c.frame.pixelRect(scale: scale)
            guard px.intersection(out.bounds) != nil, !px.isEmpty else { continue }
            out.shadow(under: px, radius: Int(3 * scale), offset: Int(1 * scale))
            let img = try images.image(c.page, width: px.width, height: px.height)
            out.paste(img, atX: px.minX, y: px.minY)
        }
        return out
    }

    /// One transition frame. `previews` holds each page's picture at a resolution good enough
    /// for the largest size it takes in the animation.
    public func renderFrame(_ frame: TransitionFrame, previews: [Int: Bitmap<RGBA8>]) -> Bitmap<RGBA8> {
        var out = canvas(for: frame.viewport)
        let s = frame.viewport.scale
        for p in frame.placements {
            let r = Rect(x: p.rect.minX * s, y: p.rect.minY * s, width: p.rect.width * s, height: p.rect.height * s)
            switch p.content {
            case .dim:
                out.fill(r.pixelRect(scale: 1), blending: RGBA8(r: 0, g: 0, b: 0, a: UInt8(max(0, min(1, p.opacity)) * 255)))
            case .page(let n):
                guard let img = previews[n] else { continue }
                out.draw(img, in: r, rotation: p.rotation, opacity: p.opacity)
            case .pageRegion(let n, let region):
                guard let img = previews[n], n >= 1, n <= book.pages.count else { continue }
                let page = book.pages[n - 1]
                let k = Double(img.width) / Double(max(1, page.width))
                let crop = Rect(x: region.minX * k, y: region.minY * k, width: region.width * k, height: region.height * k)
                    .enclosingPixelRect.intersection(img.bounds)
                guard let crop else { continue }
                let px = r.pixelRect(scale: 1)
                out.shadow(under: px, radius: Int(6 * s), offset: Int(2 * s))
                out.draw(img.cropped(to: crop), in: r, opacity: p.opacity)
            }
        }
        return out
    }
}

/// Per-job results filled from concurrent workers.
final class ResultSlots: @unchecked Sendable {
    private var slots: [Result<Bitmap<RGBA8>, any Error>?]
    private let lock = NSLock()
    init(count: Int) { slots = Array(repeating: nil, count: count) }
    func set(_ i: Int, _ r: Result<Bitmap<RGBA8>, any Error>) { lock.withLock { slots[i] = r } }
    func get(_ i: Int) throws -> Bitmap<RGBA8> {
        guard let r = lock.withLock({ slots[i] }) else { preconditionFailure("job \(i) produced no result") }
        return try r.get()
    }
}
