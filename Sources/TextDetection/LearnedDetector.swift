// Text lines found by a learned detector: a DBNet-style segmentation model (Liao et al.,
// "Real-time Scene Text Detection with Differentiable Binarization", AAAI 2020) that gives every
// pixel a probability of lying in the core of a text line. PaddleOCR's PP-OCRv4 detection model
// (Apache-2.0) is the one Tools/setup.sh --detector installs; nothing here is specific to it
// beyond its input convention (BGR, ImageNet mean and deviation).
//
// From the probability map to lines, the steps of the paper's inference: threshold the map,
// take connected regions, drop weak ones by their mean probability, and grow each region back
// by the margin the training shrank it by (the "unclip" distance, area × ratio / perimeter).

import Foundation
public import Geometry
public import Raster

/// One line (or word) of text on a page, in page pixels.
public struct TextLine: Sendable, Hashable {
    public var rect: Rect
    /// Mean probability over the line's core region, 0…1.
    public var score: Double
    public var vertical: Bool

    public init(rect: Rect, score: Double, vertical: Bool) {
        self.rect = rect
        self.score = score
        self.vertical = vertical
    }
}

/// Where the runtime library and the model are.
public struct DetectorFiles: Sendable, Hashable {
    public var library: String
    public var model: String
    /// The line recogniser `ReadingCheck` reads proposed blocks with; nil when the folder has
    /// none (a detector folder made before it was installed), and the check is then skipped.
    public var reader: String?

    public init(library: String, model: String, reader: String? = nil) {
        self.library = library
        self.model = model
        self.reader = reader
    }

    /// Names inside a detector folder (Tools/setup.sh --detector makes them).
    public static let libraryName = "libonnxruntime.so"
    public static let modelName = "text-detector.onnx"
    public static let readerName = "text-reader.onnx"

    /// The detector files, looked for in `$PICTUREBOOK_DETECTOR_DIR`, then beside the program
    /// (`../detector`, where a build in .build/debug or .build/release finds the one
    /// Tools/setup.sh made, and `../share/picturebook/detector` for an installed program), then
    /// `$XDG_DATA_HOME/picturebook/detector` (default ~/.local/share). Nil when none is complete.
    public static func locate() -> DetectorFiles? {
        locate(environment: ProcessInfo.processInfo.environment, executable: CommandLine.arguments.first ?? "")
    }

    public static func locate(environment: [String: String], executable: String) -> DetectorFiles? {
        var folders: [String] = []
        if let dir = environment["PICTUREBOOK_DETECTOR_DIR"], !dir.isEmpty { folders.append(dir) }
        // The program's folder as it was called and as it really is (.build/debug is a link to
        // .build/<triple>/debug, so the build's detector folder is one or two levels up).
        var programs = [URL(fileURLWithPath: executable).deletingLastPathComponent()]
        if let real = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            programs.append(URL(fileURLWithPath: real).deletingLastPathComponent())
        }
        for dir in programs {
            for relative in ["../detector", "../../detector", "../share/picturebook/detector"] {
                folders.append(dir.appendingPathComponent(relative).standardized.path)
            }
        }
        let data = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? (environment["HOME"].map { $0 + "/.local/share" } ?? "")
        if !data.isEmpty { folders.append(data + "/picturebook/detector") }
        let fm = FileManager.default
        for folder in folders {
            let library = folder + "/" + libraryName, model = folder + "/" + modelName
            if fm.isReadableFile(atPath: library) && fm.isReadableFile(atPath: model) {
                let reader = folder + "/" + readerName
                return DetectorFiles(library: library, model: model, reader: fm.isReadableFile(atPath: reader) ? reader : nil)
            }
        }
        return nil
    }
}

/// The learned line detector's settings. The defaults are the model authors' published
/// inference settings except the scale (`longSide`, `maximumLongSide`: see there).
public struct LearnedDetectorParameters: Sendable, Hashable {
    /// A scan shorter than this on its long side is enlarged to it before the model sees it.
    /// Picture-book type is large against the page (a line is rarely under 1 % of the page's
    /// height), so ~1300 px keeps the smallest lines above 12 px, inside the range such models
    /// are trained on, whatever the scan's resolution.
    public var longSide: Int = 1280
    /// A scan longer than `longSide` is kept at its own size up to this many pixels on its long
    /// side, and reduced to it beyond, so that the time per page stops growing with the scan.
    /// Reducing dense small writing loses it: NDL's 1600 × 1200 scans brought to 1280 px had line
    /// F1 0.65 (PP-OCRv4, at their own size, 0.71), kept at 1600 px 0.71 — decided there; the
    /// generated 1600 × 2000 pages confirm it (0.85 → 0.89 at 1280 × 1600), the pages from real
    /// illustrations hold (0.96), and scans under 1280 px are not touched. 2048 cost the generated
    /// pages (0.82) and 2.5 times the time. `longSide` itself gives back one fixed scale.
    public var maximumLongSide: Int = 1600
    /// Never enlarge a small scan more than this (enlarging adds no detail, only time).
    public var maximumEnlargement: Double = 3
    /// Probability above which a pixel is line core (DB paper and PaddleOCR: 0.3).
    public var pixelThreshold: Float = 0.3
    /// Regions whose mean probability is below this are dropped (PaddleOCR: 0.6).
    public var regionThreshold: Double = 0.5
    /// How far a region is grown back (PaddleOCR: 1.5).
    public var unclipRatio: Double = 1.6
    /// Regions thinner than this many map pixels are noise (PaddleOCR: 3).
    public var minimumSize: Int = 3

    public init() {}

    /// The size of the model's input for a `width`×`height` page: enlarged to `longSide` (at most
    /// `maximumEnlargement` times), kept up to `maximumLongSide`, reduced to it beyond; each side
    /// a multiple of 32, since the network halves the image five times.
    public func inputSize(width: Int, height: Int) -> (width: Int, height: Int) {
        let long = Double(max(width, height))
        let scale = long <= Double(longSide)
            ? min(maximumEnlargement, Double(longSide) / long)
            : min(1, Double(max(longSide, maximumLongSide)) / long)
        return (max(32, Int((Double(width) * scale / 32).rounded()) * 32), max(32, Int((Double(height) * scale / 32).rounded()) * 32))
    }

    /// Sets a parameter by name (`--set learned.NAME=VALUE`, for tuning); false for an unknown name.
    public mutating func set(_ name: String, to value: Double) -> Bool {
        switch name {
        case "longSide": longSide = Int(value)
        case "maximumLongSide": maximumLongSide = Int(value)
        case "maximumEnlargement": maximumEnlargement = value
        case "pixelThreshold": pixelThreshold = Float(value)
        case "regionThreshold": regionThreshold = value
        case "unclipRatio": unclipRatio = value
        case "minimumSize": minimumSize = Int(value)
        default: return false
        }
        return true
    }
}

/// The learned text-line detector.
public final class LearnedTextDetector: Sendable {
    private let model: OnnxModel
    public let parameters: LearnedDetectorParameters
    public let files: DetectorFiles
    /// The runtime's version, for reports.
    public var runtimeVersion: String { model.runtimeVersion }

    /// Loads the model. `threads` is the runtime's threads per page (0: its own choice).
    public init(files: DetectorFiles, parameters: LearnedDetectorParameters = .init(), threads: Int = 1) throws(TextDetectionError) {
        model = try OnnxModel(library: files.library, model: files.model, threads: threads)
        self.parameters = parameters
        self.files = files
    }

    /// The text lines on `page`, in page pixels.
    public func lines(in page: Bitmap<RGBA8>) throws(TextDetectionError) -> [TextLine] {
        guard page.width >= 8, page.height >= 8 else { return [] }
        let (tw, th) = parameters.inputSize(width: page.width, height: page.height)
        let input = Self.tensor(page, width: tw, height: th)
        let (map, shape) = try model.run(input, shape: [1, 3, th, tw])
        guard shape.count == 4, shape[0] == 1, shape[1] == 1, shape[2] == th, shape[3] == tw else {
            throw .failed("the model answered with shape \(shape), expected [1, 1, \(th), \(tw)]")
        }
        let sx = Double(page.width) / Double(tw), sy = Double(page.height) / Double(th)
        return regions(map, width: tw, height: th).map { r in
            let rect = Rect(x: r.rect.minX * sx, y: r.rect.minY * sy, width: r.rect.width * sx, height: r.rect.height * sy)
                .intersection(Rect(x: 0, y: 0, width: Double(page.width), height: Double(page.height))) ?? r.rect
            return TextLine(rect: rect, score: r.score, vertical: rect.height > 1.5 * rect.width)
        }
    }

    /// The page resampled to `width`×`height` (area average when shrinking, bilinear when
    /// enlarging), as the model's planar BGR tensor normalised with ImageNet's mean and deviation.
    ///
    /// Shrinking, each target pixel is the mean of the whole source pixels it covers; the sums
    /// are integers, so summing a band of rows first and then each target column's span of it
    /// gives exactly the per-pixel means (and the same floats) at a fraction of the cost.
    static func tensor(_ page: Bitmap<RGBA8>, width tw: Int, height th: Int) -> [Float] {
        var out = [Float](repeating: 0, count: 3 * tw * th)
        let W = page.width, H = page.height
        let fx = Double(W) / Double(tw), fy = Double(H) / Double(th)
        // Per channel in output order (B, G, R): value = (v / 255 - mean) / deviation.
        let mean: (Float, Float, Float) = (0.485, 0.456, 0.406), deviation: (Float, Float, Float) = (0.229, 0.224, 0.225)
        let plane = tw * th
        let meanLanes = SIMD4<Float>(mean.0, mean.1, mean.2, 0), deviationLanes = SIMD4<Float>(deviation.0, deviation.1, deviation.2, 1)
        page.pixels.withUnsafeBufferPointer { px in
            out.withUnsafeMutableBufferPointer { o in
                if fx >= 1 && fy >= 1 {
                    // Source column span of each target column, and row span of each target row.
                    var xs = [Int](repeating: 0, count: tw), xe = [Int](repeating: 0, count: tw)
                    for x in 0..<tw {
                        let x0 = Double(x) * fx
                        xs[x] = Int(x0); xe[x] = max(xs[x] + 1, min(W, Int(x0 + fx)))
                    }
                    var ys = [Int](repeating: 0, count: th), ye = [Int](repeating: 0, count: th)
                    for y in 0..<th {
                        let y0 = Double(y) * fy
                        ys[y] = Int(y0); ye[y] = max(ys[y] + 1, min(H, Int(y0 + fy)))
                    }
                    // A target value depends only on its channel, the sum of its source values
                    // and their count, and the counts are few (a span is ⌊f⌋ or ⌈f⌉ pixels each
                    // way), so each (count, sum) value is worked out once, by the very expression
                    // a pixel would use, and looked up: the same floats without two divisions a
                    // channel a pixel, which were most of this function's time. Each count's
                    // table holds the three channels one after another, 255 × count + 1 values each.
                    let rowCounts = Set(zip(ys, ye).map { $1 - $0 }), columnCounts = Set(zip(xs, xe).map { $1 - $0 })
                    let means = [mean.0, mean.1, mean.2], deviations = [deviation.0, deviation.1, deviation.2]
                    var tableStart: [Int: Int] = [:], table: [Float] = []
                    for n in Set(rowCounts.flatMap { r in columnCounts.map { r * $0 } }).sorted() {
                        tableStart[n] = table.count
                        for c in 0..<3 {
                            for sum in 0...(255 * n) { table.append((Float(Double(sum) / Double(n) / 255) - means[c]) / deviations[c]) }
                        }
                    }
                    // For each row count, where each target column's table starts.
                    let starts = Dictionary(uniqueKeysWithValues: rowCounts.map { r in
                        (r, (0..<tw).map { tableStart[r * (xe[$0] - xs[$0]), default: 0] })
                    })
                    // Rows in chunks across the cores, each with its own band: every target
                    // value is computed exactly as in one pass. (Wrapping sums: at most 255 times
                    // a span's pixels, far from overflow; indices are in range by construction.)
                    Parallel.forEachChunk(of: th, workPerItem: 3 * W * max(1, Int(fy.rounded(.up)))) { chunk in
                        var band = [Int](repeating: 0, count: 3 * W)
                        xs.withUnsafeBufferPointer { xs in xe.withUnsafeBufferPointer { xe in table.withUnsafeBufferPointer { table in
                            band.withUnsafeMutableBufferPointer { acc in
                                for y in chunk {
                                    for i in 0..<(3 * W) { acc[i] = 0 }
                                    for sy in ys[y]..<ye[y] {
                                        let row = sy * W
                                        for sx in 0..<W {
                                            let p = px[row + sx]
                                            acc[3 &* sx] &+= Int(p.b); acc[3 &* sx &+ 1] &+= Int(p.g); acc[3 &* sx &+ 2] &+= Int(p.r)
                                        }
                                    }
                                    let rows = ye[y] - ys[y]
                                    starts[rows, default: []].withUnsafeBufferPointer { start in
                                        for x in 0..<tw {
                                            var b = 0, g = 0, r = 0
                                            for sx in xs[x]..<xe[x] { b &+= acc[3 &* sx]; g &+= acc[3 &* sx &+ 1]; r &+= acc[3 &* sx &+ 2] }
                                            let channel = 255 &* rows &* (xe[x] &- xs[x]) &+ 1, at = start[x], i = y &* tw &+ x
                                            o[i] = table[at &+ b]
                                            o[plane &+ i] = table[at &+ channel &+ g]
                                            o[2 &* plane &+ i] = table[at &+ 2 &* channel &+ r]
                                        }
                                    }
                                }
                            }
                        } } }
                    }
                } else {
                    // Bilinear: the two source columns and their weight for each target column.
                    var ix = [Int](repeating: 0, count: tw), jx = [Int](repeating: 0, count: tw), ax = [Double](repeating: 0, count: tw)
                    for x in 0..<tw {
                        let x0 = Double(x) * fx
                        let x1 = x0 + fx
                        let cx = max(0, min(Double(W - 1), (x0 + x1) / 2 - 0.5))
                        ix[x] = Int(cx); jx[x] = min(W - 1, ix[x] + 1); ax[x] = cx - Double(ix[x])
                    }
                    @inline(__always) func lanes(_ p: RGBA8) -> SIMD4<Double> { SIMD4(Double(p.b), Double(p.g), Double(p.r), 0) }
                    Parallel.forEachChunk(of: th, workPerItem: 12 * tw) { chunk in
                        ix.withUnsafeBufferPointer { ix in jx.withUnsafeBufferPointer { jx in ax.withUnsafeBufferPointer { ax in
                            for y in chunk {
                                let y0 = Double(y) * fy
                                let y1 = y0 + fy
                                let cy = max(0, min(Double(H - 1), (y0 + y1) / 2 - 0.5))
                                let iy = Int(cy), ay = cy - Double(iy), jy = min(H - 1, iy + 1)
                                let top = iy * W, bottom = jy * W
                                for x in 0..<tw {
                                    let a = ax[x]
                                    let p00 = px[top &+ ix[x]], p01 = px[top &+ jx[x]], p10 = px[bottom &+ ix[x]], p11 = px[bottom &+ jx[x]]
                                    // The three channels side by side: each lane does exactly the
                                    // scalar arithmetic, so the floats are the same.
                                    let t = lanes(p00) * (1 - a) + lanes(p01) * a
                                    let u = lanes(p10) * (1 - a) + lanes(p11) * a
                                    let v = (SIMD4<Float>((t * (1 - ay) + u * ay) / 255) - meanLanes) / deviationLanes
                                    let i = y &* tw &+ x
                                    o[i] = v[0]; o[plane &+ i] = v[1]; o[2 &* plane &+ i] = v[2]
                                }
                            }
                        } } }
                    }
                }
            }
        }
        return out
    }

    /// Line regions of a probability map, in map pixels, grown back by the unclip distance.
    func regions(_ map: [Float], width w: Int, height h: Int) -> [(rect: Rect, score: Double)] {
        let p = parameters
        var label = [Int32](repeating: 0, count: w * h)
        var found: [(rect: Rect, score: Double)] = []
        var stack: [Int] = [], members: [Int] = []
        var next: Int32 = 0
        for start in 0..<(w * h) where map[start] > p.pixelThreshold && label[start] == 0 {
            next += 1
            label[start] = next
            stack.append(start)
            var minX = w, minY = h, maxX = 0, maxY = 0
            members.removeAll(keepingCapacity: true)
            while let i = stack.popLast() {
                let x = i % w, y = i / w
                members.append(i)
                minX = min(minX, x); maxX = max(maxX, x); minY = min(minY, y); maxY = max(maxY, y)
                for dy in -1...1 {
                    let ny = y + dy
                    guard ny >= 0, ny < h else { continue }
                    for dx in -1...1 {
                        let nx = x + dx
                        guard nx >= 0, nx < w else { continue }
                        let j = ny * w + nx
                        if label[j] == 0 && map[j] > p.pixelThreshold { label[j] = next; stack.append(j) }
                    }
                }
            }
            let bw = maxX - minX + 1, bh = maxY - minY + 1
            guard min(bw, bh) >= p.minimumSize else { continue }
            let score = Self.orientedScore(map, width: w, members: members, minX: minX, minY: minY, maxX: maxX, maxY: maxY)
            guard score >= p.regionThreshold else { continue }
            let area = Double(bw * bh), perimeter = 2 * Double(bw + bh)
            let d = area * p.unclipRatio / perimeter
            found.append((Rect(x: Double(minX) - d, y: Double(minY) - d, width: Double(bw) + 2 * d, height: Double(bh) + 2 * d), score))
        }
        return found
    }

    /// Mean probability inside the region's oriented box: the rectangle along the region's own
    /// axes (principal axes of its pixels) that holds all of them. The reference inference scores
    /// a region by the mean inside its minimum-area rectangle; for an upright line this is its
    /// bounding box, but the bounding box of a slanted line — a column of a page scanned a degree
    /// or two off — is mostly ground, and such lines were dropped whole (the right-hand page of
    /// ndl 2544473_04). The principal axes give the slanted line's own rectangle.
    static func orientedScore(_ map: [Float], width w: Int, members: [Int], minX: Int, minY: Int, maxX: Int, maxY: Int) -> Double {
        let n = Double(members.count)
        guard n > 0 else { return 0 }
        var sx = 0.0, sy = 0.0
        for i in members { sx += Double(i % w); sy += Double(i / w) }
        let cx = sx / n, cy = sy / n
        var xx = 0.0, yy = 0.0, xy = 0.0
        for i in members {
            let dx = Double(i % w) - cx, dy = Double(i / w) - cy
            xx += dx * dx; yy += dy * dy; xy += dx * dy
        }
        let angle = 0.5 * atan2(2 * xy, xx - yy)
        let ux = cos(angle), uy = sin(angle)
        var u0 = Double.infinity, u1 = -Double.infinity, v0 = Double.infinity, v1 = -Double.infinity
        for i in members {
            let dx = Double(i % w) - cx, dy = Double(i / w) - cy
            let u = dx * ux + dy * uy, v = -dx * uy + dy * ux
            u0 = min(u0, u); u1 = max(u1, u); v0 = min(v0, v); v1 = max(v1, v)
        }
        // Half a pixel of slack: pixel centres on the rectangle's edge belong to it.
        u0 -= 0.5; u1 += 0.5; v0 -= 0.5; v1 += 0.5
        var sum = 0.0, count = 0
        for y in minY...maxY {
            for x in minX...maxX {
                let dx = Double(x) - cx, dy = Double(y) - cy
                let u = dx * ux + dy * uy, v = -dx * uy + dy * ux
                if u >= u0 && u <= u1 && v >= v0 && v <= v1 { sum += Double(map[y * w + x]); count += 1 }
            }
        }
        return count > 0 ? sum / Double(count) : 0
    }
}
