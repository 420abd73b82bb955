// Scan degradation: what a flatbed scanner and an old book do to a clean page — paper tone and
// grain, a slight blur, a colour cast, vignetting and a gutter shadow, sensor noise — and JPEG.
//
// The same parameters and the same noise field are applied to the page with text and to its
// clean background. Every step is either per-pixel or a linear blur, so outside the text (plus
// the blur's reach) both come out bit-identical: in-fill can be scored against the clean image.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Dispatch
import Geometry
import Raster

/// Every parameter of one page's scan degradation; recorded in the ground truth.
public struct ScanDegradation: Sendable, Codable, Equatable {
    /// Seed of the per-pixel noise and grain fields.
    public var noiseSeed: UInt64
    /// Multiplied into every pixel: the paper's tone (1, 1, 1 = white).
    public var paperTone: [Double]
    /// Amplitude of the paper's fine fibre texture (fraction of brightness).
    public var grain: Double
    /// Gaussian blur sigma in pixels (scanner optics, slight defocus).
    public var blurSigma: Double
    /// Per-channel gain applied after the blur (a scanner's colour cast).
    public var colourGain: [Double]
    /// Darkening at the corners, 0 = none.
    public var vignette: Double
    /// Gutter shadow strength and which edge it is on ("left", "right" or "none").
    public var gutterShadow: Double
    public var gutterSide: String
    /// Sensor noise standard deviation, in 8-bit levels.
    public var noise: Double
    /// JPEG quality of the page image.
    public var jpegQuality: Int

    public static let none = ScanDegradation(
        noiseSeed: 0, paperTone: [1, 1, 1], grain: 0, blurSigma: 0, colourGain: [1, 1, 1], vignette: 0,
        gutterShadow: 0, gutterSide: "none", noise: 0, jpegQuality: 95)

    /// Parameters drawn for a difficulty; `hard` scans are blurrier, noisier and more compressed.
    static func random(_ rng: inout SeededRandom, difficulty: Difficulty, gutter: String) -> ScanDegradation {
        let k: Double
        switch difficulty {
        case .easy: k = 0.5
        case .mixed: k = rng.uniform(0.6, 1.2)
        case .hard: k = rng.uniform(1.3, 1.9)
        }
        let g = rng.uniform(0.965, 0.995)
        // Old paper yellows: blue always lowest, so the tone never drifts to pink.
        let tone = [1.0, g, g - rng.uniform(0.03, 0.09)]
        let cast = [rng.uniform(0.98, 1.03), rng.uniform(0.985, 1.02), rng.uniform(0.95, 1.02)]
        return ScanDegradation(
            noiseSeed: rng.next() >> 12,
            paperTone: tone,
            grain: 0.025 * k * rng.uniform(0.6, 1.2),
            blurSigma: 0.45 * k * rng.uniform(0.8, 1.4),
            colourGain: cast.map { 1 + ($0 - 1) * k },
            vignette: 0.08 * k * rng.uniform(0.5, 1.3),
            gutterShadow: gutter == "none" ? 0 : 0.18 * rng.uniform(0.7, 1.3),
            gutterSide: gutter,
            noise: 2.2 * k * rng.uniform(0.7, 1.3),
            jpegQuality: difficulty == .hard ? rng.int(55...75) : (difficulty == .easy ? 92 : rng.int(72...90)))
    }

    /// How far (in pixels) the blur carries a change: outside text boxes grown by this much the
    /// page and its clean background are identical before JPEG.
    public var reach: Int { blurSigma <= 0 ? 0 : Int((3 * blurSigma).rounded(.up)) }

    func apply(to canvas: Canvas) -> Bitmap<RGBA8> { apply(to: [canvas])[0] }

    /// Degrades several same-sized canvases (a page and its clean background) with one set of
    /// per-pixel fields, computed once: the paper factor, the shading (vignette × gutter) and
    /// the noise.
    func apply(to canvases: [Canvas]) -> [Bitmap<RGBA8>] {
        guard let first = canvases.first else { return [] }
        let w = first.width, h = first.height
        let n = w * h
        let grainField = NoiseField(seed: noiseSeed ^ 0x6A7, cell: 1.6, octaves: 2)
        let mottle = NoiseField(seed: noiseSeed ^ 0x3B1, cell: Double(max(w, h)) / 6, octaves: 3)
        let g = Float(grain)
        let vig = Float(vignette), gut = Float(gutterShadow)
        let cx = Double(w) / 2, cy = Double(h) / 2, rmax = (cx * cx + cy * cy).squareRoot()
        let gutterWidth = Double(w) * 0.07
        let gutterLeft = gutterSide == "left"
        let noiseSD = Float(noise / 255)
        let seed = noiseSeed
        var paper = [Float](repeating: 0, count: n), shade = paper, lumaNoise = paper, chromaNoise = paper
        paper.withUnsafeMutableBufferPointer { pp in
            shade.withUnsafeMutableBufferPointer { sp in
                lumaNoise.withUnsafeMutableBufferPointer { lp in
                    chromaNoise.withUnsafeMutableBufferPointer { cp in
                        let pa = pp.baseAddress!, sa = sp.baseAddress!, la = lp.baseAddress!, ca = cp.baseAddress!
                        rowsInParallel(h) { y in
                            for x in 0..<w {
                                let i = y * w + x
                                pa[i] = 1 + g * 2 * (grainField.value(Double(x), Double(y)) - 0.5)
                                    + 0.02 * (mottle.value(Double(x), Double(y)) - 0.5)
                                let dx = Double(x) - cx, dy = Double(y) - cy
                                let rr = (dx * dx + dy * dy) / (rmax * rmax)
                                var m = 1 - vig * Float(rr)
                                if gut > 0 {
                                    let dist = gutterLeft ? Double(x) : Double(w - 1 - x)
                                    if dist < gutterWidth {
                                        let t = Float(1 - dist / gutterWidth)
                                        m *= 1 - gut * t * t
                                    }
                                }
                                sa[i] = m
                                // Three uniform hashes summed ≈ a normal sample, shared by the
                                // channels (sensor noise is mostly luma), plus a little chroma.
                                let n0 = hashUnit(seed, x, y) + hashUnit(seed &+ 1, x, y) + hashUnit(seed &+ 2, x, y) - 1.5
                                la[i] = n0 * 2 * noiseSD
                                ca[i] = (hashUnit(seed &+ 3, x, y) - 0.5) * noiseSD
                            }
                        }
                    }
                }
            }
        }
        let tone = paperTone.map(Float.init)
        let gains = colourGain.map(Float.init)
        return canvases.map { canvas in
            precondition(canvas.width == w && canvas.height == h, "canvas \(canvas.width)×\(canvas.height) is not \(w)×\(h)")
            var d = canvas.data
            // Paper: tone and fibres multiply everything (ink sits on the paper too).
            d.withUnsafeMutableBufferPointer { buf in
                let p = buf.baseAddress!
                paper.withUnsafeBufferPointer { pf in
                    let pa = pf.baseAddress!
                    rowsInParallel(h) { y in
                        for x in 0..<w {
                            let i = y * w + x, f = pa[i]
                            p[3 * i] *= tone[0] * f
                            p[3 * i + 1] *= tone[1] * f
                            p[3 * i + 2] *= tone[2] * f
                        }
                    }
                }
            }
            if blurSigma > 0 { d = gaussian(d, width: w, height: h, sigma: blurSigma) }
            return Bitmap(width: w, height: h) { out in
                let base = out.baseAddress!
                d.withUnsafeBufferPointer { src in
                    shade.withUnsafeBufferPointer { sh in
                        lumaNoise.withUnsafeBufferPointer { ln in
                            chromaNoise.withUnsafeBufferPointer { cn in
                                let sp = src.baseAddress!, sa = sh.baseAddress!, la = ln.baseAddress!, ca = cn.baseAddress!
                                rowsInParallel(h) { y in
                                    for x in 0..<w {
                                        let i = y * w + x
                                        let m = sa[i], nl = la[i], nc = ca[i]
                                        @inline(__always) func q(_ v: Float) -> UInt8 { UInt8(min(255, max(0, v * 255 + 0.5))) }
                                        base[i] = RGBA8(
                                            r: q(sp[3 * i] * gains[0] * m + nl + nc),
                                            g: q(sp[3 * i + 1] * gains[1] * m + nl),
                                            b: q(sp[3 * i + 2] * gains[2] * m + nl - nc))
                                    }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Runs `body(row)` for every row, split across the cores. The rows are independent, so the
/// result does not depend on which thread runs which row.
func rowsInParallel(_ rows: Int, _ body: (Int) -> Void) {
    let chunks = min(rows, 8)
    guard chunks > 1 else {
        for y in 0..<rows { body(y) }
        return
    }
    // Dispatch wants a Sendable closure; callers only write rows of their own, and the closure
    // cannot outlive this call.
    withoutActuallyEscaping(body) { body in
        nonisolated(unsafe) let body = body
        DispatchQueue.concurrentPerform(iterations: chunks) { c in
            let y0 = rows * c / chunks, y1 = rows * (c + 1) / chunks
            for y in y0..<y1 { body(y) }
        }
    }
}

/// Separable Gaussian blur of interleaved RGB floats, edges clamped.
func gaussian(_ src: [Float], width w: Int, height h: Int, sigma: Double) -> [Float] {
    let r = max(1, Int((3 * sigma).rounded(.up)))
    var k = (-r...r).map { Float(exp(-Double($0 * $0) / (2 * sigma * sigma))) }
    let sum = k.reduce(0, +)
    k = k.map { $0 / sum }
    var tmp = [Float](repeating: 0, count: src.count)
    var out = [Float](repeating: 0, count: src.count)
    src.withUnsafeBufferPointer { s in
        tmp.withUnsafeMutableBufferPointer { t in
            let sp = s.baseAddress!, tp = t.baseAddress!
            rowsInParallel(h) { y in
                for x in 0..<w {
                    var a: Float = 0, b: Float = 0, c: Float = 0
                    for j in -r...r {
                        let xx = min(w - 1, max(0, x + j))
                        let i = (y * w + xx) * 3, kk = k[j + r]
                        a += sp[i] * kk
                        b += sp[i + 1] * kk
                        c += sp[i + 2] * kk
                    }
                    let o = (y * w + x) * 3
                    tp[o] = a
                    tp[o + 1] = b
                    tp[o + 2] = c
                }
            }
        }
    }
    tmp.withUnsafeBufferPointer { t in
        out.withUnsafeMutableBufferPointer { o in
            let tp = t.baseAddress!, op = o.baseAddress!
            rowsInParallel(h) { y in
                for x in 0..<w {
                    var a: Float = 0, b: Float = 0, c: Float = 0
                    for j in -r...r {
                        let yy = min(h - 1, max(0, y + j))
                        let i = (yy * w + x) * 3, kk = k[j + r]
                        a += tp[i] * kk
                        b += tp[i + 1] * kk
                        c += tp[i + 2] * kk
                    }
                    let oi = (y * w + x) * 3
                    op[oi] = a
                    op[oi + 1] = b
                    op[oi + 2] = c
                }
            }
        }
    }
    return out
}
