// The smear check: did the fill shade the box's ground towards its ink?
//
// The edges reading (``FillCheck/edgesMade(scan:cleared:filled:box:ink:parameters:)``) sees what
// a fill leaves sharp: pieces of letters, outlines, streaks of copied lines. A smear is soft: the
// fill bridged the box from a grey band above it to one below (NDL's "国立国会図書館" strips),
// carried a card's frame or a drawn divider into the hole as a ghost, or let a letter's blur
// through as a faint shadow. Its gradients are low, so its edges read under the ground's own, and
// no letter-sized shape is left for the letter readings; yet a reader sees the grey at once on
// the white it should be.
//
// What it changes is the shade: a fill that gives back the ground takes the ground's own range of
// colours (paper, grain, the wash of the art); a smear lies towards the ink beyond that range. So
// the ground's colours in the box (the pixels neither ink nor filled) are projected on the line
// from the ground's median to the ink's (0 at the ground, 1 at the ink), their 95th percentile
// is the ground's own reach towards the ink, and a filled pixel past that reach by a fifth of the
// way to the ink is shaded by the fill. The share of such pixels among the filled is the reading.
// Over textured art the ground's own reach is long and the reading stays low; on flat paper a
// few levels of grain are not a fifth of the ink's contrast. Every constant is in the box's own
// contrast; nothing reads the script, the type size or the resolution.

public import Geometry
public import Raster

public enum SmearCheck {
    /// The share of the pixels filled in `box` that the fill shaded towards the text's ink
    /// beyond the ground's own reach; nil when the box gives no reading (too few pixels filled,
    /// too little ink or ground under `ink`, too little contrast between them). `ink` is the
    /// detector's reading of the text's ink (the mask file): the ink's colour is read under it.
    public static func share(
        scan: Bitmap<RGBA8>, cleared: Bitmap<RGBA8>, filled: Bitmap<UInt8>, box: PixelRect, ink inkMask: Bitmap<UInt8>,
        parameters p: FillCheckParameters = .init()
    ) -> Double? {
        precondition(scan.width == cleared.width && scan.height == cleared.height && scan.width == filled.width
            && scan.height == filled.height && inkMask.width == scan.width && inkMask.height == scan.height,
            "scan, cleared page, fill and ink masks differ in size")
        guard let b = box.intersection(scan.bounds), b.width > 0, b.height > 0 else { return nil }
        let w = scan.width, bw = b.width, bh = b.height
        // Ink, and the ink grown by a pixel: its blurred rim is neither ink nor ground.
        var inkHere = [UInt8](repeating: 0, count: bw * bh)
        for y in 0..<bh { for x in 0..<bw where inkMask.pixels[(b.minY + y) * w + b.minX + x] != 0 { inkHere[y * bw + x] = 1 } }
        let rim = InkMask.dilate(inkHere, bw, bh, 1)
        var inkPixels: [RGBA8] = [], groundPixels: [RGBA8] = [], filledPixels: [RGBA8] = []
        inkPixels.reserveCapacity(bw * bh / 2)
        groundPixels.reserveCapacity(bw * bh)
        filledPixels.reserveCapacity(bw * bh)
        for y in 0..<bh {
            for x in 0..<bw {
                let i = (b.minY + y) * w + b.minX + x
                if inkHere[y * bw + x] != 0 { inkPixels.append(scan.pixels[i]) }
                if filled.pixels[i] != 0 {
                    filledPixels.append(cleared.pixels[i])
                } else if rim[y * bw + x] == 0 {
                    groundPixels.append(scan.pixels[i])
                }
            }
        }
        guard inkPixels.count >= p.minimumInk, groundPixels.count >= p.minimumInk, filledPixels.count >= p.minimumInk else { return nil }
        let ground = FillCheck.median(groundPixels)
        var ink = FillCheck.median(inkPixels)
        if ((ink - ground) * (ink - ground)).sum() < p.minimumContrast * p.minimumContrast {
            // Small type on a coarse scan is mostly the mask's rim, and its median lies near the
            // paper: the ink is then read from its strongest quarter, the darkest masked pixels
            // or the lightest, whichever lies farther from the ground.
            inkPixels.sort { $0.luma < $1.luma }
            let quarter = max(1, inkPixels.count / 4)
            let darkest = FillCheck.median(Array(inkPixels.prefix(quarter))), lightest = FillCheck.median(Array(inkPixels.suffix(quarter)))
            let toDark = darkest - ground, toLight = lightest - ground
            ink = (toDark * toDark).sum() >= (toLight * toLight).sum() ? darkest : lightest
        }
        let d = ink - ground
        let n2 = (d * d).sum()
        guard n2 >= p.minimumContrast * p.minimumContrast else { return nil }
        // t = (c − ground)·d / |d|², as one multiply-add per channel.
        let k = SIMD3<Float>(Float(d.x / n2), Float(d.y / n2), Float(d.z / n2)), offset = Float((ground * d).sum() / n2)
        @inline(__always) func towardsInk(_ c: RGBA8) -> Double {
            Double(Float(c.r) * k.x + Float(c.g) * k.y + Float(c.b) * k.z - offset)
        }
        // The ground's 95th percentile, exactly, without sorting a page-wide block's hundreds of
        // thousands of ground pixels: a histogram finds the bin it lies in, and only that bin's
        // values are sorted.
        let steps = 64.0, lowest = -4.0, bins = Int(8 * steps)
        func bin(_ t: Double) -> Int { max(0, min(bins - 1, Int(((t - lowest) * steps).rounded(.down)))) }
        var own = [Double](repeating: 0, count: groundPixels.count)
        var histogram = [Int](repeating: 0, count: bins)
        for (j, c) in groundPixels.enumerated() {
            let t = towardsInk(c)
            own[j] = t
            histogram[bin(t)] += 1
        }
        let rank = min(own.count - 1, own.count * 95 / 100)
        var below = 0, top = bins - 1
        for (k, n) in histogram.enumerated() {
            if below + n > rank { top = k; break }
            below += n
        }
        let inBin = own.filter { bin($0) == top }.sorted()
        let reach = inBin[min(inBin.count - 1, rank - below)] + p.smearShade
        var shaded = 0
        for c in filledPixels where towardsInk(c) > reach { shaded += 1 }
        return Double(shaded) / Double(filledPixels.count)
    }
}
