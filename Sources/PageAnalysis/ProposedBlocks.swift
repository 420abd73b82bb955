// Blocks proposed by another detector (the learned line detector, TextDetection) made into
// analysed blocks: each line's glyph ink found and masked, the block's colours and polarity
// measured, page numbers and reading order assigned as for the classical detector's blocks.
//
// The mask is where "ClearText does no harm" starts: only ink that is glyph-sized and lies on a
// proposed line is marked. Per line, grey levels split in two (Otsu); the class farther from the
// line's border — the ground just outside the glyphs, which a line box always includes — is ink.
// An ink region that reaches the line box's edge and is taller than the line (across it) or runs
// on for more than a few line heights is a stroke of the drawing passing through, not a letter,
// and is left out. A line with too little contrast gets no mask at all: nothing is erased there.

public import Geometry
public import Raster

/// A block found by another detector, in page pixels.
public struct ProposedBlock: Sendable, Hashable {
    public var lines: [Rect]
    public var vertical: Bool
    /// The proposing detector's confidence, 0…1.
    public var score: Double

    public init(lines: [Rect], vertical: Bool, score: Double) {
        self.lines = lines
        self.vertical = vertical
        self.score = score
    }

    /// The union of its lines' boxes (zero for a block without lines).
    public var bounds: Rect { lines.dropFirst().reduce(lines.first ?? .zero) { $0.union($1) } }
}

extension PageAnalyzer {
    /// Analyses `page` with the text blocks another detector proposed. `gray` is the page's grey
    /// copy (`page.grayscale()`) when the caller made one already (for `DrawingLineRule`).
    public func analyze(_ page: Bitmap<RGBA8>, proposals: [ProposedBlock], gray pageGray: Bitmap<UInt8>? = nil,
                        readingDirection: ReadingDirection = .leftToRight) -> PageAnalysis {
        var mask = Bitmap<UInt8>(width: page.width, height: page.height, fill: 0)
        let gray = pageGray ?? page.grayscale()
        var blocks: [DetectedBlock] = []
        var glyphCounts: [Int] = []
        var lines: [PixelRect] = []
        let pageRect = PixelRect(x: 0, y: 0, width: page.width, height: page.height)
        for proposal in proposals {
            var ink = LineInk()
            // Each line is boxed round the glyph ink it holds (see `inkBoxMargin`); a line whose
            // ink was not measured, or does not explain it, keeps the detector's box.
            var lineBoxes: [PixelRect] = []
            for line in proposal.lines {
                let found = ink.add(line: line, vertical: proposal.vertical, page: page, gray: gray, into: &mask)
                guard let detected = line.enclosingPixelRect.intersection(pageRect) else { continue }
                lineBoxes.append(found.flatMap { inkBox($0, in: detected, vertical: proposal.vertical) } ?? detected)
            }
            let box: PixelRect?
            if parameters.inkBoxMargin < 0 {
                // The detector's boxes, widened to any ink found beyond them.
                let r = proposal.bounds
                box = PixelRect(x: Int(r.minX), y: Int(r.minY), width: Int(r.width.rounded(.up)), height: Int(r.height.rounded(.up)))
                    .intersection(pageRect).map { b in ink.bounds.map { b.union($0) } ?? b }
            } else {
                // The block's box is the union of its lines' boxes.
                box = lineBoxes.dropFirst().reduce(lineBoxes.first) { $0?.union($1) }
            }
            guard let box else { continue }
            blocks.append(DetectedBlock(
                rect: box, orientation: proposal.vertical ? .vertical : .horizontal,
                polarity: ink.darkVotes >= ink.lightVotes ? .darkOnLight : .lightOnDark,
                inkColor: ink.inkColor, backgroundColor: ink.groundColor,
                // Without measured ink a box still serves PopoutText, but nothing is erased there.
                confidence: ink.bounds == nil ? proposal.score * 0.5 : proposal.score,
                role: .body, order: 0))
            glyphCounts.append(ink.glyphs)
            lines += lineBoxes
        }
        blocks = assignPageNumberRoles(blocks, glyphCounts: glyphCounts, pageWidth: page.width, pageHeight: page.height)
        blocks = readingOrder(blocks, direction: readingDirection)
        return PageAnalysis(blocks: blocks, inkMask: mask, lines: lines)
    }

    /// The box drawn round a line's measured ink `found`: `inkBoxMargin` of the line's thickness
    /// (at least a pixel) outside it, within the detector's box `detected`; nil when the margin is
    /// negative (off) or the ink does not explain the line (`inkBoxMinimumShare`,
    /// `inkBoxMinimumShareAcross`).
    func inkBox(_ found: PixelRect, in detected: PixelRect, vertical: Bool) -> PixelRect? {
        let p = parameters
        guard p.inkBoxMargin >= 0 else { return nil }
        let across = Double(vertical ? detected.width : detected.height), along = Double(vertical ? detected.height : detected.width)
        let inkAcross = Double(vertical ? found.width : found.height), inkAlong = Double(vertical ? found.height : found.width)
        guard inkAlong >= p.inkBoxMinimumShare * along, inkAcross >= p.inkBoxMinimumShareAcross * across else { return nil }
        return found.expanded(by: max(1, Int((p.inkBoxMargin * across).rounded()))).intersection(detected)
    }
}

/// The ink of one block's lines, accumulated line by line.
struct LineInk {
    var bounds: PixelRect?
    var glyphs = 0
    var darkVotes = 0, lightVotes = 0
    var thickness = 0.0
    private var ink = (0.0, 0.0, 0.0, 0.0), ground = (0.0, 0.0, 0.0, 0.0)

    var inkColor: RGBA8 { Self.colour(ink) }
    var groundColor: RGBA8 { Self.colour(ground) }

    static func colour(_ s: (Double, Double, Double, Double)) -> RGBA8 {
        s.3 > 0 ? RGBA8(r: UInt8(s.0 / s.3), g: UInt8(s.1 / s.3), b: UInt8(s.2 / s.3)) : RGBA8(r: 0, g: 0, b: 0)
    }

    /// Minimum grey-level difference between ink and ground: below it a "line" has no ink a
    /// reader could see as type, and nothing is masked.
    static let minimumContrast = 24.0

    /// Masks the glyph ink of one line box and returns its bounds (nil when none was measured).
    @discardableResult
    mutating func add(line: Rect, vertical: Bool, page: Bitmap<RGBA8>, gray: Bitmap<UInt8>, into mask: inout Bitmap<UInt8>) -> PixelRect? {
        let x0 = max(0, Int(line.minX)), y0 = max(0, Int(line.minY))
        let x1 = min(page.width, Int(line.maxX.rounded(.up))), y1 = min(page.height, Int(line.maxY.rounded(.up)))
        let w = x1 - x0, h = y1 - y0
        guard w >= 3, h >= 3 else { return nil }
        let across = Double(vertical ? w : h)
        thickness = max(thickness, across)
        guard let split = Self.split(x0: x0, y0: y0, x1: x1, y1: y1, gray: gray) else { return nil }
        let threshold = split.threshold, dark = split.dark, groundLevel = split.groundLevel, inkMean = split.inkMean
        let total = w * h
        guard abs(inkMean - Double(groundLevel)) >= Self.minimumContrast else { return nil }
        if dark { darkVotes += 1 } else { lightVotes += 1 }

        // Ink components in the box; the ones that are strokes of the drawing are dropped.
        var label = [Int32](repeating: 0, count: total)
        func isInk(_ x: Int, _ y: Int) -> Bool {
            let v = Int(gray.pixels[(y0 + y) * page.width + x0 + x])
            return dark ? v <= threshold : v > threshold
        }
        var next: Int32 = 0
        var stack: [Int] = []
        var kept: [Int32: Bool] = [:]
        for start in 0..<total where label[start] == 0 && isInk(start % w, start / w) {
            next += 1
            label[start] = next
            stack.append(start)
            var minX = w, minY = h, maxX = 0, maxY = 0, count = 0
            while let i = stack.popLast() {
                let x = i % w, y = i / w
                count += 1
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                for (dx, dy) in [(1, 0), (-1, 0), (0, 1), (0, -1)] {
                    let nx = x + dx, ny = y + dy
                    guard nx >= 0, nx < w, ny >= 0, ny < h else { continue }
                    let j = ny * w + nx
                    if label[j] == 0 && isInk(nx, ny) { label[j] = next; stack.append(j) }
                }
            }
            let touches = minX == 0 || minY == 0 || maxX == w - 1 || maxY == h - 1
            let extentAcross = Double(vertical ? maxX - minX + 1 : maxY - minY + 1)
            let extentAlong = Double(vertical ? maxY - minY + 1 : maxX - minX + 1)
            let stroke = touches && (extentAcross >= 0.95 * across || extentAlong > 3 * across)
            let speck = count < 3
            kept[next] = !stroke && !speck
            if !stroke && !speck { glyphs += 1 }
        }
        var minX = Int.max, minY = Int.max, maxX = -1, maxY = -1
        for y in 0..<h {
            for x in 0..<w {
                let l = label[y * w + x]
                let px = page.pixels[(y0 + y) * page.width + x0 + x]
                guard l != 0, kept[l] == true else {
                    if l == 0 { ground.0 += Double(px.r); ground.1 += Double(px.g); ground.2 += Double(px.b); ground.3 += 1 }
                    continue
                }
                ink.0 += Double(px.r); ink.1 += Double(px.g); ink.2 += Double(px.b); ink.3 += 1
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                // The glyph and a one-pixel rim: the threshold sits halfway from ground to ink, so
                // the anti-aliased edge lies just outside it.
                for yy in max(0, y0 + y - 1)...min(page.height - 1, y0 + y + 1) {
                    for xx in max(0, x0 + x - 1)...min(page.width - 1, x0 + x + 1) { mask.pixels[yy * page.width + xx] = 255 }
                }
            }
        }
        guard maxX >= 0 else { return nil }
        let r = PixelRect(x: x0 + minX, y: y0 + minY, width: maxX - minX + 1, height: maxY - minY + 1)
        bounds = bounds.map { $0.union(r) } ?? r
        return r
    }
}

extension LineInk {
    /// The two grey-level classes of a line box (x0..<x1, y0..<y1): Otsu's threshold over the box,
    /// and which class is ink — the one farther from the median of the box's border (two pixels
    /// deep), which a line box always places on the ground just outside the glyphs. Nil when the
    /// box holds one grey level only.
    static func split(x0: Int, y0: Int, x1: Int, y1: Int, gray: Bitmap<UInt8>) -> (threshold: Int, dark: Bool, groundLevel: Int, inkMean: Double)? {
        let w = x1 - x0, h = y1 - y0
        guard w > 0, h > 0 else { return nil }
        var hist = [Int](repeating: 0, count: 256), border = [Int](repeating: 0, count: 256)
        var borderCount = 0
        for y in y0..<y1 {
            for x in x0..<x1 {
                let v = Int(gray.pixels[y * gray.width + x])
                hist[v] += 1
                if x - x0 < 2 || x1 - 1 - x < 2 || y - y0 < 2 || y1 - 1 - y < 2 { border[v] += 1; borderCount += 1 }
            }
        }
        var acc = 0, groundLevel = 0
        for v in 0..<256 { acc += border[v]; if 2 * acc >= borderCount { groundLevel = v; break } }
        let total = w * h
        var sumAll = 0.0
        for v in 0..<256 { sumAll += Double(v * hist[v]) }
        var best = -1.0, threshold = 128, weightBelow = 0, sumBelow = 0.0
        for t in 0..<255 {
            weightBelow += hist[t]
            sumBelow += Double(t * hist[t])
            let weightAbove = total - weightBelow
            guard weightBelow > 0, weightAbove > 0 else { continue }
            let m0 = sumBelow / Double(weightBelow), m1 = (sumAll - sumBelow) / Double(weightAbove)
            let between = Double(weightBelow) * Double(weightAbove) * (m0 - m1) * (m0 - m1)
            if between > best { best = between; threshold = t }
        }
        var n0 = 0, n1 = 0, s0 = 0.0, s1 = 0.0
        for v in 0..<256 { if v <= threshold { n0 += hist[v]; s0 += Double(v * hist[v]) } else { n1 += hist[v]; s1 += Double(v * hist[v]) } }
        guard n0 > 0, n1 > 0 else { return nil }
        let mean0 = s0 / Double(n0), mean1 = s1 / Double(n1)
        let dark = abs(mean0 - Double(groundLevel)) >= abs(mean1 - Double(groundLevel))
        return (threshold, dark, groundLevel, dark ? mean0 : mean1)
    }
}
