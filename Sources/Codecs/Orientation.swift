package import Raster

extension Bitmap {
    /// The bitmap turned upright for EXIF orientation `orientation` (1...8); 5–8 swap width and
    /// height. See `ImageInfo.orientation`.
    package func applyingOrientation(_ orientation: Int) -> Bitmap {
        guard (2...8).contains(orientation), !isEmpty else { return self }
        let w = width, h = height
        let transposed = orientation >= 5
        let outW = transposed ? h : w, outH = transposed ? w : h
        // Output pixel (x, y) comes from source index base + x·dx + y·dy. Each orientation is the
        // EXIF definition of where stored row 0 and column 0 are shown (2: row 0 at the top,
        // column 0 at the right; 6: row 0 at the right, column 0 at the top; ...).
        let (base, dx, dy): (Int, Int, Int)
        switch orientation {
        case 2: (base, dx, dy) = (w - 1, -1, w)                  // mirrored left-right
        case 3: (base, dx, dy) = ((h - 1) * w + w - 1, -1, -w)   // rotated 180°
        case 4: (base, dx, dy) = ((h - 1) * w, 1, -w)            // mirrored top-bottom
        case 5: (base, dx, dy) = (0, w, 1)                       // transposed
        case 6: (base, dx, dy) = ((h - 1) * w, -w, 1)            // needs 90° clockwise
        case 7: (base, dx, dy) = ((h - 1) * w + w - 1, -w, -1)   // transversed
        default: (base, dx, dy) = (w - 1, w, -1)                 // 8: needs 90° counter-clockwise
        }
        return pixels.withUnsafeBufferPointer { src in
            Bitmap(width: outW, height: outH) { dst in
                // Tiles keep the strided side of a transpose inside the cache; bands of tiles
                // go to both cores.
                let tile = 64
                let bands = (outH + tile - 1) / tile
                let work = { (band: Int) in
                    let y0 = band * tile, y1 = Swift.min(y0 + tile, outH)
                    var x0 = 0
                    while x0 < outW {
                        let x1 = Swift.min(x0 + tile, outW)
                        for y in y0..<y1 {
                            var s = base + x0 * dx + y * dy
                            var d = y * outW + x0
                            for _ in x0..<x1 {
                                dst.initializeElement(at: d, to: src[s])
                                s += dx
                                d += 1
                            }
                        }
                        x0 = x1
                    }
                }
                if w * h >= 1 << 20 {
                    concurrentPerform(iterations: bands, work)
                } else {
                    for band in 0..<bands { work(band) }
                }
            }
        }
    }
}
