// The letters-left check: did the fill leave whole letters standing inside a box it cleared?
//
// The text-left reading judges a fill against the detector's own mask of the ink, so a letter the
// mask missed is a letter it cannot miss either: on *The Tiny Story Book* (1-bit typeset pages)
// titles came out as "A IE." and "R" with the rest of their letters gone, and nothing was flagged.
// This reading needs no mask: the scan's own marks of the text's darkness (the run-on check's
// reading of ground and ink) are followed as whole shapes, and a letter-sized shape lying inside
// the box that the fill did not touch, still on the cleared page, is a letter left. The reading is
// the share of the box's letters' ink so left, at the run-on check's bar: "THE SHIP." cleared to
// "P." is far over it, a semicolon the mask missed in a verse of a hundred letters is not (in
// ClearText the native text is set over it; sending the page to the scan for it would cost the
// reader the page's translation).
//
// A shape counts as a letter when it spans a third of a type size or more (a speck, a dot of the
// JPEG's blur, does not) and no more than three. A larger one, up to `largest` type sizes, left
// whole while the box's letters were taken is a drop capital standing alone on a cleared block
// (nine pages of *The Tiny Story Book*), or an ornament or small figure the glyph filter kept: the
// box goes back to the scan either way, since which it is cannot be told here. Larger shapes still
// are the drawings a box may hold.
//
// A box is the box of its letters, and a tight one has letters on its edge: a Q's tail, a drop
// capital at the block's left side, a descender under a box drawn round the x-height (*The Tiny
// Story Book*'s "THE SQUIRREL." cleared to its Q, and its verse to a drop capital alone, with no
// flag). So shapes are followed out of the box, through a window three type sizes round it as the
// cut-letter check reads them, and a shape is the box's when its middle lies inside the box; one
// that runs out of the window is drawing, and one whose middle is outside is a neighbour's.

public import Geometry
public import Raster

public enum LettersLeftCheck {
    /// What the fill left whole of the letter-sized shapes of the scan inside `box`: their ink
    /// left untouched (under a tenth of a shape filled) and still on the cleared page, over the
    /// ink of every such shape in the box; 1 when a shape larger than three type sizes (up to
    /// `largest`: a drop capital, an ornament) was left whole while the box's letters were taken.
    /// Nil when the box gives no reading. Arguments as
    /// ``RunOnCheck/share(scan:cleared:filled:box:vertical:boxes:ink:lightInk:parameters:)``.
    public static func share(
        scan: Bitmap<RGBA8>, cleared: Bitmap<RGBA8>, filled: Bitmap<UInt8>, box: PixelRect, vertical: Bool, largest: Double = 6,
        ink inkMask: Bitmap<UInt8>? = nil, lightInk: Bool? = nil, parameters p: FillCheckParameters = .init()
    ) -> Double? {
        precondition(scan.width == cleared.width && scan.height == cleared.height, "scan and cleared page differ in size")
        return RunOnCheck.reading(scan: scan, filled: filled, box: box, vertical: vertical, ink: inkMask, lightInk: lightInk, parameters: p)
            .map { share(reading: $0, scan: scan, cleared: cleared, filled: filled, largest: largest) }
    }

    /// ``share(scan:cleared:filled:box:vertical:largest:ink:lightInk:parameters:)`` from the box's reading.
    package static func share(reading r: RunOnCheck.InkReading, scan: Bitmap<RGBA8>, cleared: Bitmap<RGBA8>, filled: Bitmap<UInt8>, largest: Double) -> Double {
        let size = r.letters
        let b = r.box, w = scan.width
        guard let win = b.expanded(by: 3 * r.letterGrid).intersection(scan.bounds) else { return 0 }
        let ww = win.width, wh = win.height
        let mark = r.marks(of: scan, in: win)
        var letters = 0, left = 0, largeLeft = false
        for part in InkMask.components(width: ww, height: wh, where: { mark[$0] }) {
            var x0 = Int.max, x1 = Int.min, y0 = Int.max, y1 = Int.min, taken = 0, kept = 0
            for i in part {
                let y = i / ww, x = i - y * ww
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
                let page = (win.minY + y) * w + win.minX + x
                if filled.pixels[page] != 0 {
                    taken += 1
                } else if r.isMark(cleared.pixels[page]) {
                    kept += 1
                }
            }
            // Running out of the window: drawing. Its middle outside the box: a neighbour's.
            if x0 == 0 || y0 == 0 || x1 == ww - 1 || y1 == wh - 1 { continue }
            let midX = win.minX + (x0 + x1) / 2, midY = win.minY + (y0 + y1) / 2
            guard b.contains(x: midX, y: midY) else { continue }
            let extent = Double(max(x1 - x0 + 1, y1 - y0 + 1))
            guard 3 * extent >= size, extent <= largest * size else { continue }
            let whole = 10 * taken < part.count && 10 * kept >= 9 * part.count
            if extent > 3 * size {
                if whole { largeLeft = true }
                continue
            }
            letters += part.count
            if whole { left += part.count }
        }
        guard letters > 0 else { return largeLeft ? 1 : 0 }
        return largeLeft ? 1 : Double(left) / Double(letters)
    }
}
