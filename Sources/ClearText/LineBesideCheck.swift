// The line-beside check: is there a line of text, in no box, right beside a cleared box?
//
// A block the detector took for one line (a two-line signature "ERNEST / ARIS" read as "ERNEST";
// a verse whose first line it missed over wood grain) is cleared line by line as far as its boxes
// go, and the lines it missed stay: half a block, which a reader sees at once — worse than the
// scan. Nothing inside the box says so, and the run-on check looks only along the box's lines.
//
// Across the lines lie the neighbours a box rightly leaves too: a drawing's feathers, grass tips
// and footprints are glyph-sized and of the type's darkness (Documentation/ClearText.md, "Marks
// left beside the boxes cleared"), and counting every such mark took back two good clearings for
// each bad one. What a line has and scattered marks have not is its order: several marks of
// about the type's size, their middles on one line parallel to the box's, one after another with
// no more than a word space between them. That is what is looked for, on each side of the box,
// within two type sizes of it (a line's leading); the row's ink over the box's filled pixels is
// the reading, and at the run-on check's bar the box goes back to the scan.
//
// Every constant is in the box's own type size (``RunOnCheck/InkReading/letters``), so nothing depends on
// the resolution, the face or the script; vertical text is read with the axes swapped.

public import Geometry
public import Raster

public enum LineBesideCheck {
    /// The largest row of glyph-sized marks, of the box's text's darkness, lying beside `box`
    /// across its lines on the cleared page, over the pixels filled in the box; 0 when there is
    /// none, nil when the box gives no reading. `boxes` are all the page's boxes: a mark within
    /// 2 px of any is that box's. Arguments as ``RunOnCheck/share(scan:cleared:filled:box:vertical:boxes:ink:lightInk:parameters:)``.
    public static func share(
        scan: Bitmap<RGBA8>, cleared: Bitmap<RGBA8>, filled: Bitmap<UInt8>, box: PixelRect, vertical: Bool, boxes: [PixelRect],
        ink inkMask: Bitmap<UInt8>? = nil, lightInk: Bool? = nil, parameters p: FillCheckParameters = .init()
    ) -> Double? {
        precondition(scan.width == cleared.width && scan.height == cleared.height, "scan and cleared page differ in size")
        return RunOnCheck.reading(scan: scan, filled: filled, box: box, vertical: vertical, ink: inkMask, lightInk: lightInk, parameters: p)
            .flatMap { share(reading: $0, cleared: cleared, box: box, vertical: vertical, boxes: boxes) }
    }

    /// ``share(scan:cleared:filled:box:vertical:boxes:ink:lightInk:parameters:)`` from the box's reading.
    package static func share(reading r: RunOnCheck.InkReading, cleared: Bitmap<RGBA8>, box: PixelRect, vertical: Bool, boxes: [PixelRect]) -> Double? {
        let b = r.box, size = r.letters, g = r.letterGrid
        // Three type sizes round the box: a line within two of it (its leading) is whole inside,
        // and a mark reaching the window's edge runs on (a rule, a frame, a drawing's stroke).
        guard let win = b.expanded(by: 3 * g).intersection(cleared.bounds) else { return nil }
        let ww = win.width, wh = win.height
        let mark = r.marks(of: cleared, in: win)
        let occupied = boxes.filter { $0 != box }.map { $0.expanded(by: 2) }
        var before: [Mark] = [], after: [Mark] = []
        // The box's own extent in the same frame.
        let (boxAlong0, boxAlong1, boxAcross0, boxAcross1) = vertical
            ? (b.minY, b.maxY, b.minX, b.maxX) : (b.minX, b.maxX, b.minY, b.maxY)
        for part in InkMask.components(width: ww, height: wh, where: { mark[$0] }) {
            var x0 = Int.max, x1 = Int.min, y0 = Int.max, y1 = Int.min, free = 0
            for i in part {
                let y = i / ww, x = i - y * ww
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
                let px = win.minX + x, py = win.minY + y
                if !occupied.contains(where: { $0.contains(x: px, y: py) }) { free += 1 }
            }
            if x0 == 0 || y0 == 0 || x1 == ww - 1 || y1 == wh - 1 { continue }
            // Another box's.
            guard 2 * free >= part.count else { continue }
            let m = vertical
                ? Mark(along0: win.minY + y0, along1: win.minY + y1 + 1, across0: win.minX + x0, across1: win.minX + x1 + 1, count: part.count)
                : Mark(along0: win.minX + x0, along1: win.minX + x1 + 1, across0: win.minY + y0, across1: win.minY + y1 + 1, count: part.count)
            // A letter of a line: about the type's size across the line (a lower-case letter
            // of a line of capitals, or the capital of a lower-case line, still counts), no
            // longer than a wide letter along it.
            let across = Double(m.across1 - m.across0), along = Double(m.along1 - m.along0)
            guard across >= 0.4 * size, across <= 1.5 * size, along <= 1.5 * size else { continue }
            // Beside the box, not in its lines' band: its middle before or after the box across
            // the lines, its near side within two type sizes of it (the row must also lie over
            // the box's extent along its lines: ``row``).
            if m.middle < Double(boxAcross0), m.across1 >= boxAcross0 - 2 * g {
                before.append(m)
            } else if m.middle > Double(boxAcross1), m.across0 <= boxAcross1 + 2 * g {
                after.append(m)
            }
        }
        var best = 0
        for side in [before, after] {
            best = max(best, row(side, size: size, over: (boxAlong0 - g)..<(boxAlong1 + g)))
        }
        return Double(best) / Double(r.filledCount)
    }

    /// A mark in the lines' own frame: `along` the box's lines and `across` them (half-open).
    struct Mark {
        var along0, along1, across0, across1, count: Int
        var middle: Double { Double(across0 + across1) / 2 }
    }

    /// The ink of the largest row among `marks`: at least three marks whose middles across the
    /// lines lie within half a type size of each other, one after another along the line with
    /// gaps of at most a type size (a word space), spanning at least two type sizes, and
    /// reaching into `over` (the box's extent along its lines, grown by a type size).
    static func row(_ marks: [Mark], size: Double, over: Range<Int>) -> Int {
        guard marks.count >= 3 else { return 0 }
        var best = 0
        // Every band of middles half a type size wide that starts at a mark's middle.
        for anchor in marks {
            let band = marks.filter { $0.middle >= anchor.middle && $0.middle <= anchor.middle + 0.5 * size }
                .sorted { $0.along0 < $1.along0 }
            guard band.count >= 3 else { continue }
            // Chains of marks no more than a type size apart along the line.
            var start = 0
            while start < band.count {
                var end = start, reach = band[start].along1, ink = band[start].count
                while end + 1 < band.count, Double(band[end + 1].along0 - reach) <= size {
                    end += 1
                    reach = max(reach, band[end].along1)
                    ink += band[end].count
                }
                if end - start + 1 >= 3, Double(reach - band[start].along0) >= 2 * size,
                    band[start].along0 < over.upperBound, reach > over.lowerBound {
                    best = max(best, ink)
                }
                start = end + 1
            }
        }
        return best
    }
}
