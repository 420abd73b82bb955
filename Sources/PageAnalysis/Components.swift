// Connected components of a binary mask, or of several layers each apart, labelled run by run
// (8-connected) with union-find, with the per-component statistics the text filters need. Runs
// make this one pass over the mask plus work proportional to the number of runs, which is what
// keeps a busy page cheap.

/// One connected component of a working-resolution mask.
struct Component {
    var minX: Int32, minY: Int32, maxX: Int32, maxY: Int32
    var area: Int32 = 0
    /// Pixels with a 4-neighbour outside the mask; area / (boundary / 2) estimates stroke width.
    var boundary: Int32 = 0
    var graySum: Int64 = 0

    var width: Int { Int(maxX - minX) + 1 }
    var height: Int { Int(maxY - minY) + 1 }
    var fill: Double { Double(area) / Double(width * height) }
    var strokeWidth: Double { boundary == 0 ? Double(area) : 2 * Double(area) / Double(boundary) }
    var meanGray: Double { area == 0 ? 0 : Double(graySum) / Double(area) }
    var centerX: Double { Double(minX + maxX) / 2 }
    var centerY: Double { Double(minY + maxY) / 2 }
}

struct ComponentLabeling {
    var components: [Component]
    /// The mask's runs, each tagged with its component index, for painting the mask back.
    var runs: [(y: Int32, x0: Int32, x1: Int32, component: Int32)]
}

/// What a labeller sees of a pixel: 0 outside every component, else its class (runs and
/// components hold one class).
protocol PixelClasses {
    func callAsFunction(_ i: Int) -> UInt8
}

/// A binary mask: set where the byte has any bit of `level`.
struct MaskBits: PixelClasses {
    let mask: UnsafeBufferPointer<UInt8>, level: UInt8
    @inline(__always) func callAsFunction(_ i: Int) -> UInt8 { mask[i] & level != 0 ? 1 : 0 }
}

/// Layers: 0 none, else a layer number.
struct LayerClasses: PixelClasses {
    let layers: UnsafeBufferPointer<UInt8>
    @inline(__always) func callAsFunction(_ i: Int) -> UInt8 { layers[i] }
}

enum ComponentLabeler {
    /// Labels `mask` (set where it has any bit of `level`) of size w×h; `gray` supplies the mean grey per component.
    static func label(mask: UnsafeBufferPointer<UInt8>, atLeast level: UInt8, gray: UnsafeBufferPointer<UInt8>, width w: Int, height h: Int)
        -> ComponentLabeling
    {
        label(MaskBits(mask: mask, level: level), gray: gray, width: w, height: h)
    }

    /// Labels the layers of `layers` (0 = none, else a layer number): runs of one layer, and
    /// neighbouring runs (8-connected) join only when they are of the same layer. Component
    /// statistics as `label(mask:atLeast:gray:width:height:)` gives them, with a pixel's
    /// neighbours of another layer counting as outside it.
    static func label(layers: UnsafeBufferPointer<UInt8>, gray: UnsafeBufferPointer<UInt8>, width w: Int, height h: Int)
        -> ComponentLabeling
    {
        label(LayerClasses(layers: layers), gray: gray, width: w, height: h)
    }

    /// Runs of one class, joined (8-connected) with neighbouring runs of the same class.
    static func label<C: PixelClasses>(_ cls: C, gray: UnsafeBufferPointer<UInt8>, width w: Int, height h: Int) -> ComponentLabeling {
        var runY: [Int32] = [], runX0: [Int32] = [], runX1: [Int32] = [], runV: [UInt8] = []
        runY.reserveCapacity(w * h / 16)
        runX0.reserveCapacity(w * h / 16)
        runX1.reserveCapacity(w * h / 16)
        runV.reserveCapacity(w * h / 16)
        var parent: [Int32] = []
        parent.reserveCapacity(w * h / 16)
        var rowStart = [Int](repeating: 0, count: h + 1)

        func find(_ p: inout [Int32], _ i: Int32) -> Int32 {
            var i = i
            while p[Int(i)] != i {
                p[Int(i)] = p[Int(p[Int(i)])]
                i = p[Int(i)]
            }
            return i
        }

        for y in 0..<h {
            rowStart[y] = runY.count
            let row = y * w
            var x = 0
            var prev = y > 0 ? rowStart[y - 1] : 0
            let prevEnd = y > 0 ? rowStart[y] : 0
            while x < w {
                let v = cls(row + x)
                if v == 0 { x += 1; continue }
                let x0 = x
                while x < w && cls(row + x) == v { x += 1 }
                let x1 = x - 1
                let id = Int32(runY.count)
                runY.append(Int32(y)); runX0.append(Int32(x0)); runX1.append(Int32(x1)); runV.append(v)
                parent.append(id)
                // 8-connectivity: a run in the row above touches when it overlaps [x0-1, x1+1].
                while prev < prevEnd && Int(runX1[prev]) < x0 - 1 { prev += 1 }
                var k = prev
                while k < prevEnd && Int(runX0[k]) <= x1 + 1 {
                    if runV[k] == v {
                        let a = find(&parent, Int32(k)), b = find(&parent, id)
                        if a != b { if a < b { parent[Int(b)] = a } else { parent[Int(a)] = b } }
                    }
                    k += 1
                }
            }
        }
        rowStart[h] = runY.count

        var index = [Int32](repeating: -1, count: runY.count)
        var comps: [Component] = []
        var runs: [(y: Int32, x0: Int32, x1: Int32, component: Int32)] = []
        runs.reserveCapacity(runY.count)
        for r in 0..<runY.count {
            let root = Int(find(&parent, Int32(r)))
            var c = index[root]
            if c < 0 {
                c = Int32(comps.count)
                index[root] = c
                comps.append(Component(minX: runX0[r], minY: runY[r], maxX: runX1[r], maxY: runY[r]))
            }
            let y = Int(runY[r]), x0 = Int(runX0[r]), x1 = Int(runX1[r]), v = runV[r]
            var boundary: Int32 = x1 > x0 ? 2 : 1
            var gsum = 0
            let row = y * w
            let up = y > 0 ? row - w : -1
            let down = y < h - 1 ? row + w : -1
            for x in x0...x1 {
                gsum += Int(gray[row + x])
                if x == x0 || x == x1 { continue }
                if up < 0 || cls(up + x) != v || down < 0 || cls(down + x) != v { boundary += 1 }
            }
            comps[Int(c)].area += Int32(x1 - x0 + 1)
            comps[Int(c)].boundary += boundary
            comps[Int(c)].graySum += Int64(gsum)
            if runX0[r] < comps[Int(c)].minX { comps[Int(c)].minX = runX0[r] }
            if runX1[r] > comps[Int(c)].maxX { comps[Int(c)].maxX = runX1[r] }
            if runY[r] > comps[Int(c)].maxY { comps[Int(c)].maxY = runY[r] }
            runs.append((runY[r], runX0[r], runX1[r], c))
        }
        return ComponentLabeling(components: comps, runs: runs)
    }
}
