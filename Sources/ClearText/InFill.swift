// In-fill: replace text ink with background that continues the picture around it.
//
// The work happens in windows — each text region grown by the dilation and some context — so the
// cost follows the text, not the page. Overlapping windows are merged first, so no window ever
// reads pixels another one is about to fill, and the merged windows are filled in parallel.
//
// Inside a window the surround (the known pixels) decides the method:
//   flat / gradient  the known pixels fit a plane closely: start from the plane and relax to the
//                    harmonic (membrane) solution, which matches the border exactly and averages
//                    scan noise away instead of copying it in;
//   structure        outlines or edges cross the surround: each hidden pixel interpolates along
//                    the direction in which the hole is narrowest and whose two ends agree, and
//                    that follows the art's local orientation (structure tensor), so a line
//                    crossing a stroke is bridged straight, stripes and pickets continue along
//                    themselves, and edges stay sharp; over busy art the fill mask's outer ring
//                    is kept as decoded where it looks like the art rather than the ink;
//   texture          busy art whose own patches predict the border well (stripes, fences): copy
//                    the best-matching patch of the surround, shifted by the mean seam mismatch.

public import Geometry
public import Raster
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// How a region was (or should be) filled.
public enum FillMethod: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    case flat, gradient, structure, texture
    public var description: String { rawValue }
}

/// The in-fill's declared parameters (they are part of every output's fingerprint).
public struct InFillParameters: Sendable, Hashable, CustomStringConvertible {
    /// Pixels grown around the mask: the anti-aliased fringe, scan blur and JPEG ringing around
    /// the ink belong to the text too.
    public var dilation: Int = 2
    /// Pixels added to `dilation` in windows whose surround is smooth (flat and gradient fills).
    /// On plain paper and sky the letters' halo (scan blur, JPEG ringing) reaches a pixel
    /// further than an ink estimate that stops at the letters' edge plus two, and the fill there
    /// is near exact, so the wider hole only gains; over art a wider hole costs more art than it
    /// takes halo (standard corpus, own estimate: plain styles +0.4 to +1.1 dB with a dilation
    /// of 3 everywhere, over art −0.9 dB).
    public var smoothGrowth: Int = 1
    /// Pixels around a region that may still carry ink the region's rect missed (scan blur):
    /// mask pixels this far outside a region count as the region's.
    public var slack: Int = 3
    /// Known pixels kept around each region to fill from.
    public var context: Int = 14
    /// How far (pixels) a structure-fill ray searches for a known pixel.
    public var reach: Int = 96
    /// Plane-fit residual (RMS, 8-bit levels) under which a surround counts as smooth.
    public var smoothThreshold: Double = 5.0
    /// Colour difference (sum over channels) at which a ray's two ends stop counting as the same
    /// surface.
    public var agreement: Double = 30
    /// Relaxation sweeps for the harmonic fill.
    public var harmonicIterations: Int = 40
    /// How strongly the structure fill follows the surround's local orientation: a ray at angle
    /// φ to the isophote is down-weighted by exp(−strength · coherence · sin²φ). 0 turns it off.
    public var orientationStrength: Double = 30
    /// Integration scale (pixels, ≈ Gaussian σ) of the structure tensor that gives that orientation.
    public var orientationScale: Int = 4
    /// The dilation used instead of `dilation` in windows whose surround is busy (structure and
    /// texture fills): there the halo the wider dilation takes is mostly the art's own pixels
    /// beside the letters, and keeping them costs less than guessing them. The fill mask stays
    /// the wider one; inside such windows its outer ring is returned as decoded.
    public var busyDilation: Int = 1
    /// Spread of the luma (RMS, 8-bit levels) of the known pixels within 4 px above which a pixel
    /// of the fill mask's outer ring counts as lying in busy art and is kept (`busyDilation`).
    /// Plain sky, shaded paper and washes sit well below it: there the halo is the text's, and
    /// an ink estimate that stops at the letters' core relies on the dilation to take it.
    public var busyThreshold: Double = 13
    /// Over busy art (plane-fit residual above `busyThreshold`), the share of the spectral fill
    /// (frequency-selective extrapolation, `SpectralFill.swift`) in the value of each hidden
    /// pixel; the rest is the structure and copy fills'. 0 turns it off.
    public var spectralWeight: Double = 0.5
    /// At most this many sinusoids per 8×8 block of the spectral fill.
    public var spectralIterations: Int = 60
    /// Force one method everywhere (tests, comparisons); `nil` chooses per region.
    public var method: FillMethod? = nil
    /// Whether texture synthesis may be chosen automatically.
    public var allowTexture: Bool = true

    public init() {}

    /// Every parameter, for fingerprints and logs.
    public var description: String {
        "dilation=\(dilation)+\(smoothGrowth) slack=\(slack) context=\(context) reach=\(reach) smooth=\(smoothThreshold) "
            + "busyDilation=\(busyDilation)/\(busyThreshold) agreement=\(agreement) iterations=\(harmonicIterations) orientation=\(orientationStrength)/\(orientationScale) "
            + "spectral=\(spectralWeight)/\(spectralIterations) method=\(method?.rawValue ?? "auto") texture=\(allowTexture)"
    }

    /// Throws ``ClearTextError/invalidParameter(name:reason:)`` for the first parameter out of range.
    public func validate() throws(ClearTextError) {
        func check(_ ok: Bool, _ name: String, _ value: some CustomStringConvertible, _ range: String) throws(ClearTextError) {
            if !ok { throw .invalidParameter(name: name, reason: "must be \(range), got \(value)") }
        }
        try check((0...32).contains(dilation), "dilation", dilation, "0...32")
        try check((0...32).contains(slack), "slack", slack, "0...32")
        try check((0...32).contains(smoothGrowth), "smoothGrowth", smoothGrowth, "0...32")
        try check((0...32).contains(busyDilation), "busyDilation", busyDilation, "0...32")
        try check(busyThreshold >= 0 && busyThreshold.isFinite, "busyThreshold", busyThreshold, "finite and ≥ 0")
        try check((1...256).contains(context), "context", context, "1...256")
        try check((1...1024).contains(reach), "reach", reach, "1...1024")
        try check(smoothThreshold >= 0 && smoothThreshold.isFinite, "smoothThreshold", smoothThreshold, "finite and ≥ 0")
        try check(agreement > 0 && agreement.isFinite, "agreement", agreement, "finite and > 0")
        try check((0...10_000).contains(harmonicIterations), "harmonicIterations", harmonicIterations, "0...10000")
        try check(orientationStrength >= 0 && orientationStrength.isFinite, "orientationStrength", orientationStrength, "finite and ≥ 0")
        try check((1...32).contains(orientationScale), "orientationScale", orientationScale, "1...32")
        try check(spectralWeight >= 0 && spectralWeight <= 1, "spectralWeight", spectralWeight, "0...1")
        try check((1...1000).contains(spectralIterations), "spectralIterations", spectralIterations, "1...1000")
    }
}

extension InFillParameters {
    /// Sets the numeric parameter called `name` (for tuning from the command line); false when
    /// there is no such parameter.
    public mutating func set(_ name: String, to value: Double) -> Bool {
        switch name {
        case "dilation": dilation = Int(value)
        case "slack": slack = Int(value)
        case "smoothGrowth": smoothGrowth = Int(value)
        case "context": context = Int(value)
        case "reach": reach = Int(value)
        case "smoothThreshold": smoothThreshold = value
        case "agreement": agreement = value
        case "harmonicIterations": harmonicIterations = Int(value)
        case "orientationStrength": orientationStrength = value
        case "orientationScale": orientationScale = Int(value)
        case "busyDilation": busyDilation = Int(value)
        case "busyThreshold": busyThreshold = value
        case "spectralWeight": spectralWeight = value
        case "spectralIterations": spectralIterations = Int(value)
        case "allowTexture": allowTexture = value != 0
        default: return false
        }
        return true
    }
}

/// What happened to one merged window.
public struct RegionReport: Sendable, Hashable {
    /// The window (region plus context), page pixels.
    public var window: PixelRect
    public var method: FillMethod
    /// Pixels replaced.
    public var filledPixels: Int
    /// RMS residual of the surround's plane fit (8-bit levels) — the smoothness the choice used.
    public var surroundResidual: Double
}

/// Removes text ink from a page. A value: parameters in, pure function out.
public struct InFill: Sendable {
    public var parameters: InFillParameters

    public init(_ parameters: InFillParameters = InFillParameters()) {
        self.parameters = parameters
    }

    /// The page with the ink under `mask` (non-zero = ink) inside `regions` replaced. Pixels
    /// outside ``fillMask(mask:regions:)`` are returned bit-identical.
    public func clear(page: Bitmap<RGBA8>, mask: Bitmap<UInt8>, regions: [PixelRect], name: String = "page") throws(ClearTextError) -> Bitmap<RGBA8> {
        try clearReporting(page: page, mask: mask, regions: regions, name: name).image
    }

    /// ``clear(page:mask:regions:name:)`` plus what was done per window.
    public func clearReporting(
        page: Bitmap<RGBA8>, mask: Bitmap<UInt8>, regions: [PixelRect], name: String = "page"
    ) throws(ClearTextError) -> (image: Bitmap<RGBA8>, regions: [RegionReport]) {
        try parameters.validate()
        guard mask.width == page.width, mask.height == page.height else {
            throw .maskSizeMismatch(page: name, pageWidth: page.width, pageHeight: page.height, maskWidth: mask.width, maskHeight: mask.height)
        }
        let fill = fillMask(mask: mask, regions: regions)
        return fillMasked(page: page, fill: fill, regions: regions)
    }

    /// Fill-mask value of the ring between `dilation` and `dilation + smoothGrowth`: replaced
    /// only in windows whose surround is smooth.
    public static let smoothRing: UInt8 = 128

    /// The pixels the in-fill may replace: `mask` inside the regions (grown by `slack`), dilated
    /// by `dilation` (255) and by `smoothGrowth` more (``smoothRing``), never outside the grown
    /// regions; every non-zero pixel may be replaced. Over busy art the outer ring beyond
    /// `busyDilation` is returned as decoded where it looks like the art.
    public func fillMask(mask: Bitmap<UInt8>, regions: [PixelRect]) -> Bitmap<UInt8> {
        precondition(parameters.dilation >= 0 && parameters.slack >= 0 && parameters.smoothGrowth >= 0,
                     "negative dilation, growth or slack: \(parameters)")
        let w = mask.width, s = parameters.slack
        let d = parameters.dilation, reach = parameters.dilation + parameters.smoothGrowth
        var out = Bitmap<UInt8>(width: w, height: mask.height, fill: 0)
        for region in regions {
            guard let src = region.expanded(by: s).intersection(mask.bounds),
                let dst = region.expanded(by: s + reach).intersection(mask.bounds)
            else { continue }
            // Chebyshev distance to the mask, separably: per row the distance along it to the
            // nearest mask pixel (two sweeps), then per column the best of max(|dy|, that).
            let tw = dst.width, th = dst.height, none = Int32.max / 2
            var along = [Int32](repeating: none, count: tw * th)
            mask.pixels.withUnsafeBufferPointer { m in
                along.withUnsafeMutableBufferPointer { t in
                    for y in max(dst.minY, src.minY)..<min(dst.maxY, src.maxY) {
                        let base = y * w, row = (y - dst.minY) * tw
                        var last = none
                        for x in dst.minX..<dst.maxX {
                            if x >= src.minX && x < src.maxX && m[base + x] != 0 { last = Int32(x) }
                            if last != none { t[row + x - dst.minX] = Int32(x) - last }
                        }
                        last = none
                        for x in stride(from: dst.maxX - 1, through: dst.minX, by: -1) {
                            if x >= src.minX && x < src.maxX && m[base + x] != 0 { last = Int32(x) }
                            if last != none { t[row + x - dst.minX] = min(t[row + x - dst.minX], last - Int32(x)) }
                        }
                    }
                }
            }
            out.pixels.withUnsafeMutableBufferPointer { o in
                along.withUnsafeBufferPointer { t in
                    for y in dst.minY..<dst.maxY {
                        for x in dst.minX..<dst.maxX {
                            let c = x - dst.minX, r = y - dst.minY
                            var best = Int32(reach + 1), k: Int32 = 0
                            while k < best && k <= Int32(reach) {
                                if r - Int(k) >= 0 { best = min(best, max(k, t[(r - Int(k)) * tw + c])) }
                                if r + Int(k) < th { best = min(best, max(k, t[(r + Int(k)) * tw + c])) }
                                k += 1
                            }
                            if best <= Int32(d) {
                                o[y * w + x] = 255
                            } else if best <= Int32(reach) && o[y * w + x] == 0 {
                                o[y * w + x] = Self.smoothRing
                            }
                        }
                    }
                }
            }
        }
        return out
    }

    /// Fills every non-zero pixel of `fill` (already dilated) inside the regions' windows.
    public func fillMasked(page: Bitmap<RGBA8>, fill: Bitmap<UInt8>, regions: [PixelRect]) -> (image: Bitmap<RGBA8>, regions: [RegionReport]) {
        precondition(fill.width == page.width && fill.height == page.height, "fill mask \(fill.width)×\(fill.height) ≠ page \(page.width)×\(page.height)")
        let grow = parameters.slack + parameters.dilation + parameters.context
        let windows = Self.mergedWindows(regions.map { $0.expanded(by: grow) }, bounds: page.bounds)
        var out = page
        var reports = [RegionReport?](repeating: nil, count: windows.count)
        let params = parameters
        page.pixels.withUnsafeBufferPointer { src in
            fill.pixels.withUnsafeBufferPointer { fm in
                out.pixels.withUnsafeMutableBufferPointer { dst in
                    reports.withUnsafeMutableBufferPointer { rep in
                        nonisolated(unsafe) let src = src, fm = fm, dst = dst, rep = rep
                        // Largest first, so the two cores finish together.
                        let order = windows.indices.sorted { windows[$0].area > windows[$1].area }
                        let pageWidth = page.width
                        let work: @Sendable (Int) -> Void = { k in
                            let i = order[k]
                            var filler = WindowFill(window: windows[i], pageWidth: pageWidth, src: src, fill: fm, parameters: params)
                            rep[i] = filler.run(into: dst)
                        }
                        if order.count > 1 {
                            DispatchQueue.concurrentPerform(iterations: order.count, execute: work)
                        } else if order.count == 1 {
                            work(0)
                        }
                    }
                }
            }
        }
        return (out, reports.compactMap { $0 })
    }

    /// Clamps the windows to the page and merges any that overlap, until none do.
    static func mergedWindows(_ rects: [PixelRect], bounds: PixelRect) -> [PixelRect] {
        var pending = rects.compactMap { $0.intersection(bounds) }
        var merged: [PixelRect] = []
        while var r = pending.popLast() {
            var changed = true
            while changed {
                changed = false
                var i = 0
                while i < merged.count {
                    if merged[i].intersection(r) != nil {
                        r = r.union(merged.remove(at: i))
                        changed = true
                    } else {
                        i += 1
                    }
                }
            }
            merged.append(r)
        }
        return merged.sorted { ($0.y, $0.x) < ($1.y, $1.x) }
    }
}

/// Work handed to another thread that the caller may also do itself: whoever claims it first
/// runs it. The caller never waits for a task that has not started, so it cannot stall when
/// every worker thread is busy (the windows already run on all cores).
final class SideTask<Value>: @unchecked Sendable {
    /// One token for whoever runs the work. (Made with 0 and signalled: libdispatch traps when a
    /// semaphore is freed holding less than its initial value.)
    private let claim = DispatchSemaphore(value: 0)
    private let done = DispatchSemaphore(value: 0)
    private let work: () -> Value
    private var value: Value?

    init(_ work: @escaping () -> Value) {
        self.work = work
        claim.signal()
        DispatchQueue.global().async { [self] in
            guard claim.wait(timeout: .now()) == .success else { return }
            value = self.work()
            done.signal()
        }
    }

    func result() -> Value {
        if claim.wait(timeout: .now()) == .success { return work() }
        done.wait()
        return value!
    }
}

/// One window's fill: local mask, classification, and the chosen filler.
struct WindowFill {
    /// Below this many hole pixels the spectral fill is cheaper than handing it to another thread.
    static let spectralOffloadPixels = 1024

    let window: PixelRect
    let pageWidth: Int
    let src: UnsafeBufferPointer<RGBA8>
    let parameters: InFillParameters
    /// 1 where the pixel must be filled, window-local, row-major.
    var hole: [UInt8]
    var holeIndices: [Int] = []
    /// The fill mask's `InFill.smoothRing` pixels: hole only if the surround is smooth.
    var smoothRing: [Int] = []

    init(window: PixelRect, pageWidth: Int, src: UnsafeBufferPointer<RGBA8>, fill: UnsafeBufferPointer<UInt8>, parameters: InFillParameters) {
        self.window = window
        self.pageWidth = pageWidth
        self.src = src
        self.parameters = parameters
        let ww = window.width
        var hole = [UInt8](repeating: 0, count: window.width * window.height)
        var indices: [Int] = [], ring: [Int] = []
        for y in 0..<window.height {
            let row = (window.minY + y) * pageWidth + window.minX
            for x in 0..<ww where fill[row + x] != 0 {
                if fill[row + x] == InFill.smoothRing {
                    ring.append(y * ww + x)
                } else {
                    hole[y * ww + x] = 1
                    indices.append(y * ww + x)
                }
            }
        }
        self.hole = hole
        self.holeIndices = indices
        self.smoothRing = ring
    }

    @inline(__always) func pageIndex(_ i: Int) -> Int {
        let y = i / window.width, x = i - y * window.width
        return (window.minY + y) * pageWidth + window.minX + x
    }

    mutating func run(into dst: UnsafeMutableBufferPointer<RGBA8>) -> RegionReport {
        guard !holeIndices.isEmpty else {
            return RegionReport(window: window, method: .flat, filledPixels: 0, surroundResidual: 0)
        }
        let fit = planeFit()
        var method: FillMethod
        if let forced = parameters.method {
            method = forced
        } else if fit.residual <= parameters.smoothThreshold {
            method = fit.slope * Double(max(window.width, window.height)) < 6 ? .flat : .gradient
        } else {
            method = .structure
        }
        if method == .flat || method == .gradient, !smoothRing.isEmpty {
            for i in smoothRing { hole[i] = 1 }
            holeIndices = (holeIndices + smoothRing).sorted()
        }
        if method == .structure || method == .texture, parameters.busyDilation < parameters.dilation,
            fit.residual > parameters.busyThreshold
        {
            shrinkHole(by: parameters.dilation - parameters.busyDilation)
            if holeIndices.isEmpty {
                return RegionReport(window: window, method: method, filledPixels: 0, surroundResidual: fit.residual)
            }
        }
        // Over busy art the spectral fill is blended in (below). It reads only the known pixels
        // and the hole, not the other fills, so a large one runs on the other core meanwhile.
        let blendsSpectral = parameters.method == nil && parameters.spectralWeight > 0 && method == .structure
            && fit.residual > parameters.busyThreshold
        var spectralTask: SideTask<[SIMD4<Float>]>?
        if blendsSpectral, holeIndices.count >= Self.spectralOffloadPixels {
            let filler = self, iterations = parameters.spectralIterations
            spectralTask = SideTask { filler.spectralFill(iterations: iterations) }
        }
        var values: [SIMD4<Float>]
        switch method {
        case .flat, .gradient:
            values = holeIndices.map { i in
                let y = i / window.width, x = i - y * window.width
                return fit.value(x: Double(x), y: Double(y))
            }
            harmonicRelax(&values, iterations: parameters.harmonicIterations)
        case .structure:
            values = directionalFill(oriented: fit.residual > parameters.busyThreshold)
        case .texture:
            values = directionalFill(oriented: fit.residual > parameters.busyThreshold)
        }
        let uncopied = values
        if parameters.method == nil, method == .structure, parameters.allowTexture,
            let synthesized = textureFill(base: values)
        {
            values = synthesized
            method = .texture
        } else if parameters.method == .texture, let synthesized = textureFill(base: values, force: true) {
            values = synthesized
        }
        if parameters.method == nil, method == .structure || method == .texture, parameters.allowTexture {
            if let synthesized = offsetFill(base: values) {
                values = synthesized
                method = .texture
            }
        }
        if blendsSpectral {
            // The spectral and the directional fills err in different places: their blend beats
            // either (true ink over art: 24.94 dB directional, 25.45 spectral, 25.97 blended).
            let spectral = spectralTask?.result() ?? spectralFill(iterations: parameters.spectralIterations)
            // Pixels the copy fills took from an exact repeat of the art stay as copied.
            let a = Float(parameters.spectralWeight)
            for k in values.indices where values[k] == uncopied[k] { values[k] = values[k] * (1 - a) + spectral[k] * a }
        }
        for (k, i) in holeIndices.enumerated() {
            let p = pageIndex(i)
            let v = values[k]
            @inline(__always) func q(_ f: Float) -> UInt8 { UInt8(max(0, min(255, f + 0.5))) }
            dst[p] = RGBA8(r: q(v.x), g: q(v.y), b: q(v.z), a: src[p].a)
        }
        return RegionReport(window: window, method: method, filledPixels: holeIndices.count, surroundResidual: fit.residual)
    }

    /// One-dimensional erosion along lines of `mask`: 1 where the mask is set for more than
    /// `e` pixels both ways along the line (the pixel itself counted in each). `index(line, i)`
    /// is the flat index of the i-th pixel of a line.
    static func erodeLines(_ mask: [UInt8], lines: Int, length: Int, radius e: Int, index: (Int, Int) -> Int) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: mask.count)
        var before = [Int](repeating: 0, count: length)
        for line in 0..<lines {
            var run = 0
            for i in 0..<length {
                run = mask[index(line, i)] != 0 ? run + 1 : 0
                before[i] = run
            }
            run = 0
            for i in stride(from: length - 1, through: 0, by: -1) {
                let j = index(line, i)
                run = mask[j] != 0 ? run + 1 : 0
                if before[i] > e && run > e { out[j] = 1 }
            }
        }
        return out
    }

    /// Erodes the hole by `e` (Chebyshev): the fill mask is the ink dilated by `dilation`, so
    /// this leaves the ink dilated by `dilation − e` (plus gaps narrower than 2e between strokes).
    mutating func shrinkHole(by e: Int) {
        let ww = window.width, wh = window.height
        // Separable: a pixel stays when every pixel within e along its row is hole, then along its column.
        let rowOK = Self.erodeLines(hole, lines: wh, length: ww, radius: e) { y, x in y * ww + x }
        var kept = Self.erodeLines(rowOK, lines: ww, length: wh, radius: e) { x, y in y * ww + x }
        // The ring between the two dilations is kept only where the art around it is busy.
        // Luma sums of the known pixels by integral images, for the spread within `r`.
        let r = 4
        let iw = ww + 1
        var sum = [Double](repeating: 0, count: iw * (wh + 1)), sum2 = sum, count = sum
        for y in 0..<wh {
            let row = (window.minY + y) * pageWidth + window.minX
            var a = 0.0, b = 0.0, c = 0.0
            for x in 0..<ww {
                if hole[y * ww + x] == 0 {
                    let p = src[row + x]
                    let l = 0.299 * Double(p.r) + 0.587 * Double(p.g) + 0.114 * Double(p.b)
                    a += l; b += l * l; c += 1
                }
                let o = (y + 1) * iw + x + 1
                sum[o] = sum[o - iw] + a; sum2[o] = sum2[o - iw] + b; count[o] = count[o - iw] + c
            }
        }
        let threshold = parameters.busyThreshold * parameters.busyThreshold
        // The ink's colour: the mean of the hole that survives the erosion (the letters' core).
        var ink = SIMD4<Float>.zero
        var inkCount: Float = 0
        for i in holeIndices where kept[i] != 0 { ink += color(i); inkCount += 1 }
        guard inkCount > 0 else { hole = kept; holeIndices = []; return }
        ink /= inkCount
        for i in holeIndices where kept[i] == 0 {
            let y = i / ww, x = i - y * ww
            let x0 = max(0, x - r), x1 = min(ww, x + r + 1), y0 = max(0, y - r), y1 = min(wh, y + r + 1)
            @inline(__always) func box(_ t: [Double]) -> Double {
                t[y1 * iw + x1] - t[y0 * iw + x1] - t[y1 * iw + x0] + t[y0 * iw + x0]
            }
            let n = box(count)
            guard n >= 8 else { kept[i] = 1; continue }
            let mean = box(sum) / n
            let variance = box(sum2) / n - mean * mean
            if variance <= threshold { kept[i] = 1; continue }
            // A ring pixel that is a blend with the ink (the halo of a letter whose ink mask
            // stops at its core) is still filled: kept are only pixels that look like some known
            // pixel nearby far more than like the ink.
            let c = color(i)
            let d = c - ink
            let toInk = abs(d.x) + abs(d.y) + abs(d.z)
            var toArt = Float.infinity
            for yy in max(0, y - 3)...min(wh - 1, y + 3) {
                for xx in max(0, x - 3)...min(ww - 1, x + 3) where hole[yy * ww + xx] == 0 {
                    let e = c - color(yy * ww + xx)
                    toArt = min(toArt, abs(e.x) + abs(e.y) + abs(e.z))
                }
            }
            if toArt > 0.25 * toInk { kept[i] = 1 }
        }
        hole = kept
        holeIndices = holeIndices.filter { kept[$0] != 0 }
    }

    @inline(__always) func color(_ local: Int) -> SIMD4<Float> {
        let p = src[pageIndex(local)]
        return SIMD4(Float(p.r), Float(p.g), Float(p.b), 0)
    }

    // MARK: plane fit

    struct Plane {
        var c0: SIMD4<Double>, cx: SIMD4<Double>, cy: SIMD4<Double>
        var residual: Double
        var slope: Double
        func value(x: Double, y: Double) -> SIMD4<Float> {
            let v = c0 + cx * x + cy * y
            return SIMD4(Float(v.x), Float(v.y), Float(v.z), 0)
        }
    }

    /// Least-squares plane per channel through the known pixels, and how far they stray from it.
    func planeFit() -> Plane {
        let ww = window.width
        // The smooth ring is left out too: where the ground is plain it holds the letters' halo,
        // which would make a plain ground look busy.
        var hole = self.hole
        for i in smoothRing { hole[i] = 1 }
        var n = 0.0, sx = 0.0, sy = 0.0, sxx = 0.0, sxy = 0.0, syy = 0.0
        var sc = SIMD4<Double>(), sxc = SIMD4<Double>(), syc = SIMD4<Double>(), scc = SIMD4<Double>()
        for y in 0..<window.height {
            let row = (window.minY + y) * pageWidth + window.minX
            let fy = Double(y)
            for x in 0..<ww where hole[y * ww + x] == 0 {
                let p = src[row + x]
                let c = SIMD4<Double>(Double(p.r), Double(p.g), Double(p.b), 0)
                let fx = Double(x)
                n += 1; sx += fx; sy += fy; sxx += fx * fx; sxy += fx * fy; syy += fy * fy
                sc += c; sxc += c * fx; syc += c * fy; scc += c * c
            }
        }
        guard n >= 3 else {
            let mean = n > 0 ? sc / n : SIMD4(255, 255, 255, 0)
            return Plane(c0: mean, cx: .zero, cy: .zero, residual: 0, slope: 0)
        }
        // Centre the normal equations for stability.
        let mx = sx / n, my = sy / n
        let vxx = sxx / n - mx * mx, vxy = sxy / n - mx * my, vyy = syy / n - my * my
        let mc = sc / n
        let cxc = sxc / n - mc * mx, cyc = syc / n - mc * my
        let det = vxx * vyy - vxy * vxy
        var ax = SIMD4<Double>(), ay = SIMD4<Double>()
        if det > 1e-9 {
            ax = (cxc * vyy - cyc * vxy) / det
            ay = (cyc * vxx - cxc * vxy) / det
        }
        // Residual variance = total variance − explained variance.
        let total = scc / n - mc * mc
        let explained = ax * cxc + ay * cyc
        let r = total - explained
        let residual = (max(0, r.x) + max(0, r.y) + max(0, r.z)) / 3
        let c0 = mc - ax * mx - ay * my
        let slope = max(abs(ax.x), abs(ax.y), abs(ax.z), abs(ay.x), abs(ay.y), abs(ay.z))
        return Plane(c0: c0, cx: ax, cy: ay, residual: residual.squareRoot(), slope: slope)
    }

    // MARK: harmonic

    /// Red-black over-relaxation of the membrane equation on the hole, known pixels fixed.
    func harmonicRelax(_ values: inout [SIMD4<Float>], iterations: Int) {
        guard iterations > 0 else { return }
        let ww = window.width, wh = window.height
        // Window-local slot of each hole pixel, -1 for known pixels.
        var slot = [Int32](repeating: -1, count: ww * wh)
        for (k, i) in holeIndices.enumerated() { slot[i] = Int32(k) }
        var known = [SIMD4<Float>](repeating: .zero, count: ww * wh)
        for i in 0..<(ww * wh) where hole[i] == 0 { known[i] = color(i) }
        let omega: Float = 1.6
        slot.withUnsafeBufferPointer { sl in
            known.withUnsafeBufferPointer { kn in
                values.withUnsafeMutableBufferPointer { v in
                    for _ in 0..<iterations {
                        for parity in 0..<2 {
                            for (k, i) in holeIndices.enumerated() {
                                let y = i / ww, x = i - y * ww
                                guard (x + y) & 1 == parity else { continue }
                                var sum = SIMD4<Float>.zero
                                var count: Float = 0
                                @inline(__always) func add(_ j: Int) {
                                    let s = sl[j]
                                    sum += s >= 0 ? v[Int(s)] : kn[j]
                                    count += 1
                                }
                                if x > 0 { add(i - 1) }
                                if x + 1 < ww { add(i + 1) }
                                if y > 0 { add(i - ww) }
                                if y + 1 < wh { add(i + ww) }
                                guard count > 0 else { continue }
                                v[k] += omega * (sum / count - v[k])
                            }
                        }
                    }
                }
            }
        }
    }

    // MARK: structure

    static let directions: [(Int, Int)] = [(1, 0), (0, 1), (1, 1), (1, -1), (2, 1), (1, 2), (2, -1), (1, -2)]

    /// Per hole pixel: for each line through it, the linear interpolation between the first
    /// known pixels on both sides, weighted towards short spans (fourth power: the narrowest
    /// crossing of a thin line must outvote the slanted rays that miss it) whose ends agree.
    func directionalFill(oriented: Bool = true) -> [SIMD4<Float>] {
        let ww = window.width, wh = window.height
        let reach = parameters.reach
        let agreement = Float(parameters.agreement)
        var fallback = SIMD4<Float>.zero
        var knownCount: Float = 0
        for i in 0..<(ww * wh) where hole[i] == 0 {
            fallback += color(i)
            knownCount += 1
        }
        fallback = knownCount > 0 ? fallback / knownCount : SIMD4(255, 255, 255, 0)
        var out = [SIMD4<Float>](repeating: .zero, count: holeIndices.count)
        let dirCount = Self.directions.count
        let strength = Float(parameters.orientationStrength)
        // Only over busy art: a surround that is nearly smooth has no orientation of its own,
        // and what the tensor finds there is the edges of ink the mask missed.
        let orientation = strength > 0 && oriented ? orientationField() : nil
        let unitDirections = Self.directions.map { d -> SIMD2<Float> in
            let v = SIMD2<Float>(Float(d.0), Float(d.1))
            return v / (v * v).sum().squareRoot()
        }
        var rayValue = [SIMD4<Float>](repeating: .zero, count: dirCount)
        var rayMid = [SIMD4<Float>](repeating: .zero, count: dirCount)
        var rayWeight = [Float](repeating: 0, count: dirCount)
        hole.withUnsafeBufferPointer { hp in
            for (k, i) in holeIndices.enumerated() {
                let y = i / ww, x = i - y * ww
                var endSum = SIMD4<Float>.zero
                var endCount: Float = 0
                for (r, (dx, dy)) in Self.directions.enumerated() {
                    let step = Float((dx * dx + dy * dy)).squareRoot()
                    // Ends: the first known pixel each way, averaged with the next one out to
                    // damp scan noise.
                    func end(_ sx: Int, _ sy: Int) -> (SIMD4<Float>, Float)? {
                        var cx = x, cy = y
                        for n in 1...reach {
                            cx += sx; cy += sy
                            guard cx >= 0, cx < ww, cy >= 0, cy < wh else { return nil }
                            let j = cy * ww + cx
                            if hp[j] == 0 {
                                var c = color(j)
                                let nx = cx + sx, ny = cy + sy
                                if nx >= 0, nx < ww, ny >= 0, ny < wh, hp[ny * ww + nx] == 0 {
                                    c = (c + color(ny * ww + nx)) * 0.5
                                }
                                return (c, Float(n) * step)
                            }
                        }
                        return nil
                    }
                    let a = end(dx, dy), b = end(-dx, -dy)
                    switch (a, b) {
                    case let (.some((ca, da)), .some((cb, db))):
                        let span = da + db
                        let diff = ca - cb
                        let dsum = (abs(diff.x) + abs(diff.y) + abs(diff.z)) / agreement
                        let s2 = span * span
                        rayWeight[r] = 1 / (s2 * s2 * (1 + dsum * dsum))
                        rayValue[r] = (ca * db + cb * da) / span
                        rayMid[r] = (ca + cb) * 0.5
                        endSum += ca + cb
                        endCount += 2
                    case let (.some((c, d)), nil), let (nil, .some((c, d))):
                        rayWeight[r] = 0.25 / (16 * d * d * d * d)
                        rayValue[r] = c
                        rayMid[r] = c
                        endSum += c
                        endCount += 1
                    default:
                        rayWeight[r] = 0
                    }
                }
                guard endCount > 0 else {
                    out[k] = fallback
                    continue
                }
                // Two ends that agree with each other but not with the rest of the
                // neighbourhood are a structure passing through (a line, a band): that is
                // unlikely by chance, so such rays are believed more than background-to-background ones.
                let around = endSum / endCount
                var acc = SIMD4<Float>.zero
                var wsum: Float = 0
                // Art with one clear orientation around the hole (stripes, pickets, an outline)
                // continues along it: rays across it are damped however short they are, since a
                // short span across stripes lands on the same colour one period on and erases
                // the band in between.
                var iso = SIMD2<Float>(1, 0), coherence: Float = 0
                if let orientation {
                    iso = orientation.isophote[k]
                    coherence = orientation.coherence[k]
                }
                for r in 0..<dirCount where rayWeight[r] > 0 {
                    let c = rayMid[r] - around
                    let contrast = (abs(c.x) + abs(c.y) + abs(c.z)) / agreement
                    var w = rayWeight[r] * (1 + contrast * contrast)
                    if coherence > 0 {
                        let along = (unitDirections[r] * iso).sum()
                        w *= exp(-strength * coherence * (1 - along * along))
                    }
                    acc += rayValue[r] * w
                    wsum += w
                }
                out[k] = wsum > 0 ? acc / wsum : fallback
            }
        }
        return out
    }

    // MARK: orientation

    /// The surround's dominant local orientation at every hole pixel: the structure tensor of
    /// the known pixels' luma gradients (pixels next to the hole left out, as their gradient
    /// sees ink), averaged by normalised convolution so that it reaches into the hole. Returns
    /// the isophote (unit vector along the art's lines) and the coherence ((λ₁−λ₂)/(λ₁+λ₂))²,
    /// 0 where no direction dominates.
    func orientationField() -> (isophote: [SIMD2<Float>], coherence: [Float]) {
        let ww = window.width, wh = window.height, n = ww * wh
        // Luma. Gradients need only the 3×3 neighbourhood to be known, so that the narrow gaps
        // between letters (often the only art a big hole has beside it) still count.
        var luma = [Float](repeating: 0, count: n)
        var tmp = [Float](repeating: 0, count: n)
        var a = [Float](repeating: 0, count: n), b = a, c = a, ok = a
        for y in 0..<wh {
            let row = (window.minY + y) * pageWidth + window.minX
            for x in 0..<ww {
                let p = src[row + x]
                luma[y * ww + x] = 0.299 * Float(p.r) + 0.587 * Float(p.g) + 0.114 * Float(p.b)
            }
        }
        var near = [UInt8](repeating: 0, count: n)
        for i in holeIndices {
            let y = i / ww, x = i - y * ww
            for yy in max(0, y - 1)...min(wh - 1, y + 1) {
                for xx in max(0, x - 1)...min(ww - 1, x + 1) { near[yy * ww + xx] = 1 }
            }
        }
        for y in 1..<max(1, wh - 1) {
            for x in 1..<max(1, ww - 1) {
                let i = y * ww + x
                guard near[i] == 0 else { continue }
                let gx = (luma[i - ww + 1] + 2 * luma[i + 1] + luma[i + ww + 1] - luma[i - ww - 1] - 2 * luma[i - 1] - luma[i + ww - 1]) * 0.125
                let gy = (luma[i + ww - 1] + 2 * luma[i + ww] + luma[i + ww + 1] - luma[i - ww - 1] - 2 * luma[i - ww] - luma[i - ww + 1]) * 0.125
                a[i] = gx * gx; b[i] = gx * gy; c[i] = gy * gy; ok[i] = 1
            }
        }
        // Two box passes each way approximate a Gaussian of σ ≈ orientationScale.
        let sigma = Double(parameters.orientationScale)
        let r = max(1, Int(((1.5 * sigma * sigma + 0.25).squareRoot() - 0.5).rounded()))
        for k in 0..<4 {
            switch k {
            case 0: Self.boxBlur(&a, tmp: &tmp, width: ww, height: wh, radius: r, passes: 2)
            case 1: Self.boxBlur(&b, tmp: &tmp, width: ww, height: wh, radius: r, passes: 2)
            case 2: Self.boxBlur(&c, tmp: &tmp, width: ww, height: wh, radius: r, passes: 2)
            default: Self.boxBlur(&ok, tmp: &tmp, width: ww, height: wh, radius: r, passes: 2)
            }
        }
        var isophote = [SIMD2<Float>](repeating: SIMD2(1, 0), count: holeIndices.count)
        var coherence = [Float](repeating: 0, count: holeIndices.count)
        for (k, i) in holeIndices.enumerated() {
            let wsum = ok[i]
            guard wsum > 1e-4 else { continue }
            let jxx = a[i] / wsum, jxy = b[i] / wsum, jyy = c[i] / wsum
            let theta = 0.5 * atan2(2 * jxy, jxx - jyy)
            let trace = jxx + jyy
            let disc = ((jxx - jyy) * (jxx - jyy) + 4 * jxy * jxy).squareRoot()
            let q = disc / (trace + 1e-3)
            isophote[k] = SIMD2(-sin(theta), cos(theta))
            coherence[k] = q * q
        }
        return (isophote, coherence)
    }

    /// In-place separable box blur (zero outside), `passes` times each way, by running sums.
    static func boxBlur(_ v: inout [Float], tmp: inout [Float], width: Int, height: Int, radius: Int, passes: Int) {
        v.withUnsafeMutableBufferPointer { p in
            tmp.withUnsafeMutableBufferPointer { t in
                for _ in 0..<passes {
                    for y in 0..<height {
                        let row = y * width
                        var sum: Float = 0
                        for x in 0..<min(width, radius) { sum += p[row + x] }
                        for x in 0..<width {
                            if x + radius < width { sum += p[row + x + radius] }
                            if x - radius - 1 >= 0 { sum -= p[row + x - radius - 1] }
                            t[row + x] = sum
                        }
                    }
                    // Columns, a row at a time so the memory walk stays sequential.
                    var colSum = [Float](repeating: 0, count: width)
                    for y in 0..<min(height, radius) {
                        for x in 0..<width { colSum[x] += t[y * width + x] }
                    }
                    for y in 0..<height {
                        if y + radius < height {
                            let add = (y + radius) * width
                            for x in 0..<width { colSum[x] += t[add + x] }
                        }
                        if y - radius - 1 >= 0 {
                            let sub = (y - radius - 1) * width
                            for x in 0..<width { colSum[x] -= t[sub + x] }
                        }
                        let row = y * width
                        for x in 0..<width { p[row + x] = colSum[x] }
                    }
                }
            }
        }
    }

    // MARK: texture

    /// Patch-based synthesis for each connected hole component: the offset whose source patch
    /// best matches the component's known border is copied in, shifted by the border's mean
    /// mismatch. Used only when the best match predicts the border clearly better than a smooth
    /// fill would; `nil` when no component qualified.
    func textureFill(base: [SIMD4<Float>], force: Bool = false) -> [SIMD4<Float>]? {
        let ww = window.width, wh = window.height
        // Window-local slot of every hole pixel.
        var slot = [Int32](repeating: -1, count: ww * wh)
        for (k, i) in holeIndices.enumerated() { slot[i] = Int32(k) }

        // Connected hole components (4-connected), each with its bounding box.
        var label = [Int32](repeating: -1, count: ww * wh)
        var components: [(pixels: [Int], box: PixelRect)] = []
        var stack: [Int] = []
        for start in holeIndices where label[start] < 0 {
            let id = Int32(components.count)
            var pixels: [Int] = []
            var x0 = Int.max, y0 = Int.max, x1 = Int.min, y1 = Int.min
            label[start] = id
            stack.append(start)
            while let i = stack.popLast() {
                pixels.append(i)
                let y = i / ww, x = i - y * ww
                x0 = min(x0, x); x1 = max(x1, x); y0 = min(y0, y); y1 = max(y1, y)
                if x > 0, hole[i - 1] != 0, label[i - 1] < 0 { label[i - 1] = id; stack.append(i - 1) }
                if x + 1 < ww, hole[i + 1] != 0, label[i + 1] < 0 { label[i + 1] = id; stack.append(i + 1) }
                if y > 0, hole[i - ww] != 0, label[i - ww] < 0 { label[i - ww] = id; stack.append(i - ww) }
                if y + 1 < wh, hole[i + ww] != 0, label[i + ww] < 0 { label[i + ww] = id; stack.append(i + ww) }
            }
            components.append((pixels, PixelRect(x: x0, y: y0, width: x1 - x0 + 1, height: y1 - y0 + 1)))
        }

        // Rings: known pixels within two of a hole pixel, per component.
        let ringWidth = 2
        var rings = [[Int]](repeating: [], count: components.count)
        var allRing: [Int] = []
        // Walk out from the hole pixels (far fewer than the window's): each known pixel within
        // reach joins the ring of the first component that finds it.
        var ringOwner = [Int32](repeating: -1, count: ww * wh)
        for (c, comp) in components.enumerated() {
            for i in comp.pixels {
                let y = i / ww, x = i - y * ww
                for yy in max(0, y - ringWidth)...min(wh - 1, y + ringWidth) {
                    for xx in max(0, x - ringWidth)...min(ww - 1, x + ringWidth) {
                        let j = yy * ww + xx
                        if hole[j] == 0 && ringOwner[j] < 0 {
                            ringOwner[j] = Int32(c)
                            rings[c].append(j)
                            allRing.append(j)
                        }
                    }
                }
            }
        }
        guard !allRing.isEmpty else { return nil }

        // Candidate offsets from the surround's self-similarity: periodic art (stripes, fences,
        // brickwork) matches itself one period away. A sample of the rings is scored for every
        // offset in range; the best few are tried per component.
        let radius = 20
        let sampleStep = max(1, allRing.count / 400)
        let samples = stride(from: 0, to: allRing.count, by: sampleStep).map { allRing[$0] }
        var scored: [(Float, Int, Int)] = []
        for dy in -radius...radius {
            for dx in -radius...radius where abs(dx) + abs(dy) >= 3 {
                var sum: Float = 0
                var n = 0
                for i in samples {
                    let y = i / ww + dy, x = i - (i / ww) * ww + dx
                    guard x >= 0, x < ww, y >= 0, y < wh else { continue }
                    let j = y * ww + x
                    guard hole[j] == 0 else { continue }
                    let d = color(i) - color(j)
                    sum += d.x * d.x + d.y * d.y + d.z * d.z
                    n += 1
                }
                if n * 3 >= samples.count { scored.append((sum / Float(n), dx, dy)) }
            }
        }
        scored.sort { $0.0 < $1.0 }
        let candidates = scored.prefix(16)
        guard !candidates.isEmpty else { return nil }

        var out = base
        var used = 0
        for (c, comp) in components.enumerated() {
            let ring = rings[c]
            guard ring.count >= 4 else { continue }
            var mean = SIMD4<Float>.zero
            for i in ring { mean += color(i) }
            mean /= Float(ring.count)
            var variance: Float = 0
            for i in ring {
                let d = color(i) - mean
                variance += d.x * d.x + d.y * d.y + d.z * d.z
            }
            variance /= Float(ring.count)
            var best: (mse: Float, dx: Int, dy: Int, shift: SIMD4<Float>)? = nil
            offsets: for (_, dx, dy) in candidates {
                // The copied pixels must all be known.
                for i in comp.pixels {
                    let y = i / ww + dy, x = i - (i / ww) * ww + dx
                    guard x >= 0, x < ww, y >= 0, y < wh, hole[y * ww + x] == 0 else { continue offsets }
                }
                var sum: Float = 0
                var diff = SIMD4<Float>.zero
                var n = 0
                for i in ring {
                    let y = i / ww + dy, x = i - (i / ww) * ww + dx
                    guard x >= 0, x < ww, y >= 0, y < wh, hole[y * ww + x] == 0 else { continue }
                    let d = color(i) - color(y * ww + x)
                    sum += d.x * d.x + d.y * d.y + d.z * d.z
                    diff += d
                    n += 1
                }
                guard n * 2 >= ring.count else { continue }
                let mse = sum / Float(n)
                if mse < (best?.mse ?? .infinity) { best = (mse, dx, dy, diff / Float(n)) }
            }
            guard let b = best else { continue }
            // Copy only when the surround's own texture predicts this ring much better than a
            // smooth fill could (whose error is about the ring's variance).
            guard force || (variance > 60 && b.mse < 0.3 * variance) else { continue }
            for i in comp.pixels {
                let y = i / ww + b.dy, x = i - (i / ww) * ww + b.dx
                let v = color(y * ww + x) + b.shift
                out[Int(slot[i])] = SIMD4(max(0, min(255, v.x)), max(0, min(255, v.y)), max(0, min(255, v.z)), 0)
            }
            used += 1
        }
        return used > 0 ? out : nil
    }

    // MARK: per-pixel offsets

    /// Pixel-wise patch copying for busy art. The art's own repeats (a stripe period, a picket
    /// spacing, a neighbouring stretch of the same outline) give a few candidate offsets; the hole
    /// is then filled from its border inwards, each pixel copying from the offset whose shifted
    /// 5×5 neighbourhood best matches the pixels already known or filled around it. A pixel keeps
    /// the smooth value whenever no copy predicts its neighbourhood clearly better than that
    /// smooth value does (by a factor of 25). `nil` when nothing was copied.
    func offsetFill(base: [SIMD4<Float>]) -> [SIMD4<Float>]? {
        let ww = window.width, wh = window.height
        let n = ww * wh
        // Current image: known pixels, hole pixels start at the smooth fill.
        var img = [SIMD4<Float>](repeating: .zero, count: n)
        for i in 0..<n where hole[i] == 0 { img[i] = color(i) }
        for (k, i) in holeIndices.enumerated() { img[i] = base[k] }
        // 0 = hole not yet done, 1 = known or done.
        var ready = [UInt8](repeating: 0, count: n)
        for i in 0..<n where hole[i] == 0 { ready[i] = 1 }
        // Candidate offsets: self-similarity of 3×3 patches of known pixels near the hole.
        var nearHole: [Int] = []
        do {
            var seen = [UInt8](repeating: 0, count: n)
            for i in holeIndices {
                let y = i / ww, x = i - y * ww
                for yy in max(1, y - 4)...min(wh - 2, y + 4) where yy >= 1 {
                    for xx in max(1, x - 4)...min(ww - 2, x + 4) where xx >= 1 {
                        let j = yy * ww + xx
                        if seen[j] == 0 && hole[j] == 0 { seen[j] = 1; nearHole.append(j) }
                    }
                }
            }
        }
        guard nearHole.count >= 32 else { return nil }
        let sampleStep = max(1, nearHole.count / 200)
        let samples = stride(from: 0, to: nearHole.count, by: sampleStep).map { nearHole[$0] }
        let radius = 20
        let side = 2 * radius + 1
        var votes = [Int](repeating: 0, count: side * side)
        for i in samples {
            let y = i / ww, x = i - y * ww
            // Skip flat samples: they match everywhere and vote for nothing.
            var mean = SIMD4<Float>.zero
            for dy in -1...1 { for dx in -1...1 { mean += img[(y + dy) * ww + x + dx] } }
            mean /= 9
            var v: Float = 0
            for dy in -1...1 { for dx in -1...1 { let d = img[(y + dy) * ww + x + dx] - mean; v += (d * d).sum() } }
            guard v > 9 * 150 else { continue }
            var best: Float = .infinity, bdx = 0, bdy = 0
            for oy in -radius...radius {
                let sy = y + oy
                guard sy >= 1, sy < wh - 1 else { continue }
                for ox in -radius...radius where abs(ox) > 2 || abs(oy) > 2 {
                    let sx = x + ox
                    guard sx >= 1, sx < ww - 1 else { continue }
                    var e: Float = 0
                    var ok = true
                    for dy in -1...1 {
                        for dx in -1...1 {
                            let j = (sy + dy) * ww + sx + dx
                            if hole[j] != 0 { ok = false; break }
                            let d = img[(y + dy) * ww + x + dx] - img[j]
                            e += (d * d).sum()
                        }
                        if !ok { break }
                        if e >= best { break }
                    }
                    if ok, e < best { best = e; bdx = ox; bdy = oy }
                }
            }
            if best < .infinity { votes[(bdy + radius) * side + bdx + radius] += 1 }
        }
        let ranked = votes.indices.filter { votes[$0] >= 2 }.sorted { votes[$0] > votes[$1] }.prefix(12)
        guard !ranked.isEmpty else { return nil }
        let offsets = ranked.map { ($0 % side - radius, $0 / side - radius) }
        // Onion peel: hole pixels by distance from the known pixels (4-connected BFS).
        var order: [Int] = []
        order.reserveCapacity(holeIndices.count)
        var dist = [Int32](repeating: -1, count: n)
        var frontier: [Int] = []
        for i in holeIndices {
            let y = i / ww, x = i - y * ww
            if (x > 0 && hole[i - 1] == 0) || (x + 1 < ww && hole[i + 1] == 0) || (y > 0 && hole[i - ww] == 0) || (y + 1 < wh && hole[i + ww] == 0) {
                dist[i] = 0; frontier.append(i)
            }
        }
        while !frontier.isEmpty {
            order.append(contentsOf: frontier)
            var next: [Int] = []
            for i in frontier {
                let y = i / ww, x = i - y * ww
                @inline(__always) func visit(_ j: Int) {
                    if hole[j] != 0 && dist[j] < 0 { dist[j] = dist[i] + 1; next.append(j) }
                }
                if x > 0 { visit(i - 1) }
                if x + 1 < ww { visit(i + 1) }
                if y > 0 { visit(i - ww) }
                if y + 1 < wh { visit(i + ww) }
            }
            frontier = next
        }
        var slot = [Int32](repeating: -1, count: n)
        for (k, i) in holeIndices.enumerated() { slot[i] = Int32(k) }
        var out = base
        var copied = 0
        for i in order {
            let y = i / ww, x = i - y * ww
            let smooth = img[i]
            // How well the smooth value fits the ready neighbours' spread is the bar to beat.
            var bestCost: Float = .infinity
            var bestValue = smooth
            var smoothCost: Float = 0
            var count: Float = 0
            for dy in -2...2 {
                let yy = y + dy
                guard yy >= 0, yy < wh else { continue }
                for dx in -2...2 where dx != 0 || dy != 0 {
                    let xx = x + dx
                    guard xx >= 0, xx < ww else { continue }
                    let j = yy * ww + xx
                    guard ready[j] != 0 else { continue }
                    let d = img[j] - smooth
                    smoothCost += (d * d).sum()
                    count += 1
                }
            }
            guard count >= 6 else { ready[i] = 1; continue }
            smoothCost /= count
            // A neighbourhood the smooth value already explains has nothing for a copy to add.
            guard smoothCost > 300 else { ready[i] = 1; continue }
            for (ox, oy) in offsets {
                let sx = x + ox, sy = y + oy
                guard sx >= 2, sx < ww - 2, sy >= 2, sy < wh - 2, ready[sy * ww + sx] != 0 else { continue }
                var e: Float = 0, c: Float = 0
                for dy in -2...2 {
                    let yy = y + dy
                    guard yy >= 0, yy < wh else { continue }
                    for dx in -2...2 where dx != 0 || dy != 0 {
                        let xx = x + dx
                        guard xx >= 0, xx < ww else { continue }
                        let j = yy * ww + xx
                        let s = (sy + dy) * ww + sx + dx
                        guard ready[j] != 0, ready[s] != 0 else { continue }
                        let d = img[j] - img[s]
                        e += (d * d).sum()
                        c += 1
                    }
                }
                guard c >= 6 else { continue }
                e /= c
                if e < bestCost { bestCost = e; bestValue = img[sy * ww + sx] }
            }
            // Copy only where the copy explains the neighbourhood far better than a smooth
            // value can: that is structure the smooth fill would blur. Since the structure fill
            // follows the art's orientation, a looser bar (¼) no longer paid: over art with the
            // own ink estimate it cost 0.2 dB, exact repeats (synthetic stripes) still pass this one.
            if bestCost < 0.04 * smoothCost {
                img[i] = bestValue
                out[Int(slot[i])] = bestValue
                copied += 1
            }
            ready[i] = 1
        }
        return copied > 0 ? out : nil
    }
}
