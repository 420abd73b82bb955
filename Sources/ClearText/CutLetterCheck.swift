// The cut-letter check: did the fill take part of a letter and leave the rest?
//
// A detector's line box drawn round the x-height band of hand lettering leaves the ascenders and
// descenders outside it; the fill takes what the box holds and the tops of h, t and d stay
// floating over an empty line (Crane's *Song of Sixpence*, "When the pie was open'd"). A box
// drawn over the descenders of the line above cuts them, and its neighbour's "g" loses its tail.
// Neither leaves a third of the box's text (the text-left reading), nor ink along the line's ends
// (the run-on check), nor a line beside it: what is left is pieces of letters at the fill's edge.
//
// So the scan's own marks of the text's darkness are followed as whole shapes: a glyph-sized
// shape the fill took part of, and left a piece of that a reader sees, is a letter cut; one is
// enough to send the box back to the scan (a stub floating over a cleared line is seen at once).
// A shape that runs on out of a window three type sizes round the box is drawing (a frame, a
// rule, a stroke the box crossed, which the glyph filter left on the page on purpose), and one
// the fill only grazed (under a tenth of it filled) or took almost whole (under a tenth left) is
// no cut letter. Every constant is in the box's own type size or the shape's own ink.

public import Geometry
public import Raster

public enum CutLetterCheck {
    /// How many letters the fill cut and left a visible piece of (glyph-sized marks of the scan
    /// it took part of, whose part left on the cleared page spans at least a third of a type
    /// size); nil when the box gives no reading. Arguments as ``RunOnCheck/share(scan:cleared:filled:box:vertical:boxes:ink:lightInk:parameters:)``.
    public static func count(
        scan: Bitmap<RGBA8>, cleared: Bitmap<RGBA8>, filled: Bitmap<UInt8>, box: PixelRect, vertical: Bool,
        ink inkMask: Bitmap<UInt8>? = nil, lightInk: Bool? = nil, parameters p: FillCheckParameters = .init()
    ) -> Double? {
        precondition(scan.width == cleared.width && scan.height == cleared.height, "scan and cleared page differ in size")
        return RunOnCheck.reading(scan: scan, filled: filled, box: box, vertical: vertical, ink: inkMask, lightInk: lightInk, parameters: p)
            .flatMap { count(reading: $0, scan: scan, cleared: cleared, filled: filled) }
    }

    /// ``count(scan:cleared:filled:box:vertical:ink:lightInk:parameters:)`` from the box's reading.
    package static func count(reading r: RunOnCheck.InkReading, scan: Bitmap<RGBA8>, cleared: Bitmap<RGBA8>, filled: Bitmap<UInt8>) -> Double? {
        let size = r.letters, w = scan.width
        guard let win = r.box.expanded(by: 3 * r.letterGrid).intersection(scan.bounds) else { return nil }
        let ww = win.width, wh = win.height
        let mark = r.marks(of: scan, in: win)
        var cut = 0
        for part in InkMask.components(width: ww, height: wh, where: { mark[$0] }) {
            var x0 = Int.max, x1 = Int.min, y0 = Int.max, y1 = Int.min, taken = 0, kept = 0
            var kx0 = Int.max, kx1 = Int.min, ky0 = Int.max, ky1 = Int.min
            for i in part {
                let y = i / ww, x = i - y * ww
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
                let page = (win.minY + y) * w + win.minX + x
                if filled.pixels[page] != 0 {
                    taken += 1
                } else if r.isMark(cleared.pixels[page]) {
                    kept += 1
                    kx0 = min(kx0, x); kx1 = max(kx1, x); ky0 = min(ky0, y); ky1 = max(ky1, y)
                }
            }
            if x0 == 0 || y0 == 0 || x1 == ww - 1 || y1 == wh - 1 { continue }
            // A letter with its ascender and descender is under three type sizes either way.
            guard Double(max(x1 - x0 + 1, y1 - y0 + 1)) <= 3 * size else { continue }
            guard 10 * taken >= part.count, 10 * kept >= part.count else { continue }
            // A piece a reader sees: a third of a type size or more (a speck of a comma or a
            // semicolon's dot left in the JPEG's blur is not).
            guard 3 * Double(max(kx1 - kx0 + 1, ky1 - ky0 + 1)) >= size else { continue }
            cut += 1
        }
        return Double(cut)
    }
}
