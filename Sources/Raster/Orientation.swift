// Quarter turns and mirrors, for EXIF orientation and layout. Every one of them is the same
// operation — output pixel (x, y) reads source index base + x·dx + y·dy — so one copy loop
// serves all eight, moving pixels as raw words of their size so it runs at full speed for any
// pixel type even when called from another module.

/// A rotation by a multiple of 90°, clockwise as seen on screen.
public enum QuarterTurn: Int, Sendable, Hashable, CaseIterable {
    case clockwise = 1
    case halfTurn = 2
    case counterclockwise = 3
}

extension Bitmap {
    /// The image as it should be displayed given its EXIF orientation tag (1...8): 2 mirrors
    /// horizontally, 3 turns 180°, 4 mirrors vertically, 5 transposes, 6 turns 90° clockwise,
    /// 7 transverses, 8 turns 90° counterclockwise. Other values (absent or corrupt tags) leave
    /// the image unchanged.
    public func oriented(exif orientation: Int) -> Bitmap {
        let w = width, h = height
        switch orientation {
        case 2: return remapped(width: w, height: h, base: w - 1, dx: -1, dy: w)
        case 3: return remapped(width: w, height: h, base: (h - 1) * w + w - 1, dx: -1, dy: -w)
        case 4: return remapped(width: w, height: h, base: (h - 1) * w, dx: 1, dy: -w)
        case 5: return remapped(width: h, height: w, base: 0, dx: w, dy: 1)
        case 6: return remapped(width: h, height: w, base: (h - 1) * w, dx: -w, dy: 1)
        case 7: return remapped(width: h, height: w, base: (h - 1) * w + w - 1, dx: -w, dy: -1)
        case 8: return remapped(width: h, height: w, base: w - 1, dx: w, dy: -1)
        default: return self
        }
    }

    /// The displayed size for an image stored as `width`×`height` with EXIF `orientation`
    /// (5...8 swap the sides), so decoders can size buffers before orienting.
    public static func orientedSize(width: Int, height: Int, exif orientation: Int) -> (width: Int, height: Int) {
        (5...8).contains(orientation) ? (height, width) : (width, height)
    }

    /// The image turned by a multiple of 90° clockwise.
    public func rotated(_ turn: QuarterTurn) -> Bitmap {
        switch turn {
        case .clockwise: oriented(exif: 6)
        case .halfTurn: oriented(exif: 3)
        case .counterclockwise: oriented(exif: 8)
        }
    }

    /// The image mirrored left to right.
    public func flippedHorizontally() -> Bitmap { oriented(exif: 2) }

    /// The image mirrored top to bottom.
    public func flippedVertically() -> Bitmap { oriented(exif: 4) }

    /// The image mirrored across its main diagonal (rows become columns).
    public func transposed() -> Bitmap { oriented(exif: 5) }

    /// Builds a `width`×`height` bitmap whose pixel (x, y) is source pixel `base + x·dx + y·dy`.
    private func remapped(width ow: Int, height oh: Int, base: Int, dx: Int, dy: Int) -> Bitmap {
        if isEmpty { return Bitmap(width: ow, height: oh, pixels: []) }
        return pixels.withUnsafeBytes { raw in
            Bitmap(width: ow, height: oh) { out in
                let d = UnsafeMutableRawPointer(out.baseAddress!)
                let s = raw.baseAddress!
                switch MemoryLayout<Pixel>.stride {
                case 1: remap(s.assumingMemoryBound(to: UInt8.self), d.assumingMemoryBound(to: UInt8.self), ow, oh, base, dx, dy)
                case 2: remap(s.assumingMemoryBound(to: UInt16.self), d.assumingMemoryBound(to: UInt16.self), ow, oh, base, dx, dy)
                case 4: remap(s.assumingMemoryBound(to: UInt32.self), d.assumingMemoryBound(to: UInt32.self), ow, oh, base, dx, dy)
                case 8: remap(s.assumingMemoryBound(to: UInt64.self), d.assumingMemoryBound(to: UInt64.self), ow, oh, base, dx, dy)
                default:
                    remap(s.assumingMemoryBound(to: Pixel.self), out.baseAddress!, ow, oh, base, dx, dy)
                }
            }
        }
    }
}

/// The copy loop behind every orientation. Row-preserving cases (|dx| = 1) stream row by row;
/// transposing ones go in square tiles so both the reads and the writes stay in cache.
private func remap<T>(
    _ src: UnsafePointer<T>, _ dst: UnsafeMutablePointer<T>,
    _ ow: Int, _ oh: Int, _ base: Int, _ dx: Int, _ dy: Int
) {
    let tile = 64
    if dx == 1 || dx == -1 {
        Parallel.forEachChunk(of: oh, workPerItem: ow * MemoryLayout<T>.stride) { rows in
            for y in rows {
                let s = src + (base + y * dy)
                let d = dst + y * ow
                if dx == 1 {
                    d.initialize(from: s, count: ow)
                } else {
                    for x in 0..<ow { (d + x).initialize(to: s[-x]) }
                }
            }
        }
        return
    }
    let bands = (oh + tile - 1) / tile
    Parallel.forEachChunk(of: bands, workPerItem: tile * ow * MemoryLayout<T>.stride) { bandRange in
        for band in bandRange {
            let y0 = band * tile, y1 = min(y0 + tile, oh)
            var x0 = 0
            while x0 < ow {
                let x1 = min(x0 + tile, ow)
                for y in y0..<y1 {
                    let d = dst + y * ow
                    var si = base + y * dy + x0 * dx
                    for x in x0..<x1 {
                        (d + x).initialize(to: src[si])
                        si += dx
                    }
                }
                x0 = x1
            }
        }
    }
}
