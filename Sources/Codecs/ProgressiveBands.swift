// A progressive JPEG a band of rows at a time, in bounded memory.
//
// A progressive file sends every block's coefficients over several scans of the whole image, so
// libjpeg holds all of them until the last scan: 2 bytes a coefficient, 3 bytes a pixel at 4:2:0
// and 6 at 4:4:4, more than the decoded image itself, at any output scale. Here the scans are
// first read once through, keeping no coefficients: only one 64-bit word per block saying which
// of its AC coefficients are already nonzero (a refinement scan cannot be parsed without it), and,
// in every scan, the decoder's state where each band of MCU rows begins (byte, bits in hand,
// end-of-band run, DC predictions, restart count). Each band is then decoded from those states,
// reading in every scan only the stretch that holds its blocks. The band's coefficients are then
// written as a small baseline JPEG (CShim's pb_jpeg_band_encode, the file's own quantization
// tables) that libjpeg decodes as it would have decoded the band: the same IDCT, and the same
// upsampling, since each band is decoded with one MCU row of context above and below it. So the
// pixels are exactly those of one libjpeg decode (JPEGBandTests compares them).
//
// The entropy decoding follows ITU-T T.81 annex G.1.2 (progressive Huffman decoding).

import CJPEG
import CShim

/// Coefficient order within a block: the k-th coefficient of the zigzag sequence is this index
/// of the 8 × 8 block in row order (ITU-T T.81 figure A.6).
let jpegNaturalOrder: [Int] = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27, 20, 13, 6, 7, 14, 21, 28,
    35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58, 59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55,
    62, 63,
]

struct ProgressiveDecodeError: Error {}

/// Where a scan's decoding stood before a given unit (MCU, or block in a one-component scan).
struct ScanState {
    var position: Int
    var acc: UInt64 = 0
    var count = 0
    var padding = 0
    var atMarker = false
    var eobrun = 0
    var predictions: (Int, Int, Int, Int) = (0, 0, 0, 0)
    var untilRestart = 0
    var restarts = 0
}

/// The entropy-coded bytes of one scan, read most significant bit first with stuffed zero bytes
/// removed; stops at restart markers (see `restart`).
private struct BitReader {
    var s: ScanState
    let end: Int
    /// The bytes: the whole input when it is in memory, else a window of the file.
    var base: UnsafePointer<UInt8>
    var baseStart: Int
    var baseCount: Int
    let file: (fd: Int32, buffer: UnsafeMutablePointer<UInt8>, capacity: Int)?
    var overran = false

    init(_ src: JPEGBytes, end: Int, state: ScanState, buffer: UnsafeMutablePointer<UInt8>, capacity: Int) {
        s = state
        self.end = end
        switch src {
        case .memory(let b):
            base = UnsafePointer(b.baseAddress!)
            baseStart = 0
            baseCount = min(b.count, end)
            file = nil
        case .file(let fd, _):
            base = UnsafePointer(buffer)
            baseStart = 0
            baseCount = 0
            file = (fd, buffer, capacity)
        }
    }

    @inline(__always) mutating func byte(_ at: Int) -> Int {
        if at >= baseStart && at < baseStart + baseCount { return Int(base[at - baseStart]) }
        guard at < end, let f = file else { return -1 }
        baseStart = at
        baseCount = JPEGBytes.file(fd: f.fd, size: end).read(into: f.buffer, at: at, count: min(f.capacity, end - at))
        return baseCount > 0 ? Int(base[0]) : -1
    }

    @inline(__always) mutating func fill() {
        while s.count <= 56 {
            var b = 0
            if !s.atMarker {
                let x = byte(s.position)
                if x == 0xFF {
                    if byte(s.position + 1) == 0 {
                        s.position += 2
                        b = 0xFF
                    } else {
                        s.atMarker = true
                    }
                } else if x >= 0 {
                    s.position += 1
                    b = x
                } else {
                    s.atMarker = true
                }
            }
            if s.atMarker { s.padding += 8 }
            s.acc = s.acc << 8 | UInt64(b)
            s.count += 8
        }
    }

    @inline(__always) mutating func peek(_ n: Int) -> Int {
        if s.count < n { fill() }
        return Int(truncatingIfNeeded: s.acc >> UInt64(s.count - n)) & ((1 << n) - 1)
    }

    @inline(__always) mutating func skip(_ n: Int) {
        s.count -= n
        if s.count < s.padding { overran = true }
    }

    @inline(__always) mutating func bits(_ n: Int) -> Int {
        let v = peek(n)
        skip(n)
        return v
    }

    @inline(__always) mutating func bit() -> Bool { bits(1) != 0 }

    @inline(__always) mutating func decode(_ t: JPEGHuffmanTable) throws(ProgressiveDecodeError) -> Int {
        let look = t.lookahead[peek(JPEGHuffmanTable.lookaheadBits)]
        if look != 0 {
            skip(Int(look >> 8))
            return Int(look & 0xFF)
        }
        var length = JPEGHuffmanTable.lookaheadBits + 1
        var code = peek(length)
        while Int32(code) > t.maxCode[length] {
            length += 1
            if length > 16 { throw ProgressiveDecodeError() }
            code = peek(length)
        }
        skip(length)
        let index = Int(t.offset[length]) + code
        guard index >= 0 && index < t.symbolCount else { throw ProgressiveDecodeError() }
        return Int(t.symbols[index])
    }

    /// A value of `n` bits, extended to its sign (T.81 F.2.2.1).
    @inline(__always) mutating func extended(_ n: Int) -> Int {
        guard n > 0 else { return 0 }
        let v = bits(n)
        return v < (1 << (n - 1)) ? v - (1 << n) + 1 : v
    }

    /// Drops the bits left in the byte and reads the restart marker RST`n`.
    mutating func restart(_ n: Int) throws(ProgressiveDecodeError) {
        s.acc = 0
        s.count = 0
        s.padding = 0
        s.atMarker = false
        guard byte(s.position) == 0xFF, byte(s.position + 1) == 0xD0 + (n & 7) else { throw ProgressiveDecodeError() }
        s.position += 2
    }
}

/// One band's coefficients: for each component, its block rows `firstRows[c]..<firstRows[c] +
/// rows[c]`, each of `blocksWide` blocks of 64 values in natural order.
final class ProgressiveBand {
    let firstRows: [Int]
    let rows: [Int]
    let coefficients: [UnsafeMutablePointer<Int16>]
    fileprivate let masks: [UnsafeMutablePointer<UInt64>]

    fileprivate init(layout: ProgressiveLayout, mcuRows: Range<Int>, keepCoefficients: Bool) {
        var firstRows: [Int] = [], rows: [Int] = []
        var coefficients: [UnsafeMutablePointer<Int16>] = [], masks: [UnsafeMutablePointer<UInt64>] = []
        for c in layout.components {
            let f = min(mcuRows.lowerBound * c.v, c.blocksHigh)
            let n = min(mcuRows.upperBound * c.v, c.blocksHigh) - f
            firstRows.append(f)
            rows.append(n)
            let blocks = max(1, n * c.blocksWide)
            let m = UnsafeMutablePointer<UInt64>.allocate(capacity: blocks)
            m.initialize(repeating: 0, count: blocks)
            masks.append(m)
            let k = UnsafeMutablePointer<Int16>.allocate(capacity: keepCoefficients ? blocks * 64 : 1)
            k.initialize(repeating: 0, count: keepCoefficients ? blocks * 64 : 1)
            coefficients.append(k)
        }
        self.firstRows = firstRows
        self.rows = rows
        self.coefficients = coefficients
        self.masks = masks
    }

    deinit {
        for p in coefficients { p.deallocate() }
        for p in masks { p.deallocate() }
    }

    fileprivate func stores(_ layout: ProgressiveLayout, keepCoefficients: Bool) -> [BlockStore] {
        layout.components.indices.map { c in
            BlockStore(
                firstRow: firstRows[c], rows: rows[c], blocksWide: layout.components[c].blocksWide,
                blocksHigh: layout.components[c].blocksHigh, masks: masks[c], coefficients: keepCoefficients ? coefficients[c] : nil)
        }
    }
}

/// The blocks one pass keeps track of, for one component: rows `firstRow..<firstRow + rows`.
fileprivate struct BlockStore {
    var firstRow: Int
    var rows: Int
    var blocksWide: Int
    var blocksHigh: Int
    var masks: UnsafeMutablePointer<UInt64>
    var coefficients: UnsafeMutablePointer<Int16>?
}

final class ProgressiveBandDecoder {
    let layout: ProgressiveLayout
    let src: JPEGBytes
    /// MCU rows where bands begin, and for each scan the state before the first unit of each.
    private(set) var bandStarts: [Int] = []
    private var checkpoints: [[ScanState]] = []
    private let buffer = UnsafeMutablePointer<UInt8>.allocate(capacity: 64 * 1024)

    init(layout: ProgressiveLayout, src: JPEGBytes) {
        self.layout = layout
        self.src = src
    }

    deinit { buffer.deallocate() }

    /// Reads every scan once, keeping no coefficients (only which are nonzero, for parsing the
    /// refinements), and records where each band (MCU rows from each of `starts`) begins in each.
    func index(bandStarts starts: [Int]) throws(ProgressiveDecodeError) {
        bandStarts = starts
        checkpoints = []
        let whole = ProgressiveBand(layout: layout, mcuRows: 0..<layout.mcusHigh, keepCoefficients: false)
        let stores = whole.stores(layout, keepCoefficients: false)
        for scan in layout.scans {
            var marks: [ScanState] = []
            try run(scan, from: ScanState(position: scan.start, untilRestart: scan.restartInterval),
                    rows: 0..<layout.mcusHigh, stores: stores, marks: &marks, recording: true)
            checkpoints.append(marks)
        }
    }

    /// The coefficients of MCU rows `bandStarts[band]..<end`, after `index`.
    func decode(band: Int, end: Int) throws(ProgressiveDecodeError) -> ProgressiveBand {
        let first = bandStarts[band]
        let result = ProgressiveBand(layout: layout, mcuRows: first..<end, keepCoefficients: true)
        let stores = result.stores(layout, keepCoefficients: true)
        var none: [ScanState] = []
        for (i, scan) in layout.scans.enumerated() {
            try run(scan, from: checkpoints[i][band], rows: first..<end, stores: stores, marks: &none, recording: false)
        }
        return result
    }

    /// Decodes the units of `scan` that hold MCU rows `rows`, from `state` (the state before the
    /// first of them); when `marks` is being filled (the index pass), records the state before
    /// each band's first unit.
    private func run(
        _ scan: ProgressiveLayout.Scan, from state: ScanState, rows: Range<Int>, stores: [BlockStore], marks: inout [ScanState],
        recording indexing: Bool
    ) throws(ProgressiveDecodeError) {
        var reader = BitReader(src, end: scan.end, state: state, buffer: buffer, capacity: 64 * 1024)
        var scratch = [Int16](repeating: 0, count: 64)
        var nextMark = 0
        let interleaved = scan.components.count > 1
        let c0 = scan.components[0]
        let comp0 = layout.components[c0]
        // Units per MCU row of the frame: MCUs, or in a one-component scan its block rows' blocks.
        let unitsPerRow = interleaved ? layout.mcusWide : comp0.blocksWide * comp0.v
        let totalUnits = interleaved ? layout.mcusWide * layout.mcusHigh : comp0.blocksWide * comp0.blocksHigh
        let firstUnit = min(rows.lowerBound * unitsPerRow, totalUnits)
        let endUnit = min(rows.upperBound * unitsPerRow, totalUnits)
        try scratch.withUnsafeMutableBufferPointer { (scratchBuffer) throws(ProgressiveDecodeError) in
            let dummy = scratchBuffer.baseAddress!
            var dummyMask: UInt64 = 0
            for unit in firstUnit..<endUnit {
                if indexing {
                    while nextMark < bandStarts.count && bandStarts[nextMark] * unitsPerRow <= unit {
                        marks.append(reader.s)
                        nextMark += 1
                    }
                }
                if scan.restartInterval > 0 {
                    if reader.s.untilRestart == 0 {
                        try reader.restart(reader.s.restarts)
                        reader.s.restarts += 1
                        reader.s.eobrun = 0
                        reader.s.predictions = (0, 0, 0, 0)
                        reader.s.untilRestart = scan.restartInterval
                    }
                    reader.s.untilRestart -= 1
                }
                // Data that runs out is damaged: stop at once rather than decode padding.
                if reader.overran { throw ProgressiveDecodeError() }
                if interleaved {
                    let my = unit / layout.mcusWide, mx = unit % layout.mcusWide
                    for (i, c) in scan.components.enumerated() {
                        let comp = layout.components[c]
                        for by in 0..<comp.v {
                            for bx in 0..<comp.h {
                                let row = my * comp.v + by, col = mx * comp.h + bx
                                try block(&reader, scan, i, stores[c], row, col, dummy, &dummyMask)
                            }
                        }
                    }
                } else {
                    try block(&reader, scan, 0, stores[c0], unit / comp0.blocksWide, unit % comp0.blocksWide, dummy, &dummyMask)
                }
            }
        }
        if indexing {
            while nextMark < bandStarts.count {
                marks.append(reader.s)
                nextMark += 1
            }
            // The whole scan read: what is left before its marker may only be the last byte's
            // padding bits (libjpeg calls more "extraneous data", an error in strict mode).
            if reader.s.count - reader.s.padding >= 8 || (!reader.s.atMarker && reader.s.position != scan.end) {
                throw ProgressiveDecodeError()
            }
        }
        if reader.overran { throw ProgressiveDecodeError() }
    }

    @inline(__always) private func block(
        _ reader: inout BitReader, _ scan: ProgressiveLayout.Scan, _ i: Int, _ store: BlockStore, _ row: Int, _ col: Int,
        _ dummy: UnsafeMutablePointer<Int16>, _ dummyMask: inout UInt64
    ) throws(ProgressiveDecodeError) {
        let local = row - store.firstRow
        if row < store.blocksHigh && col < store.blocksWide && local >= 0 && local < store.rows {
            let index = local * store.blocksWide + col
            let coef = store.coefficients.map { $0 + index * 64 } ?? dummy
            try decodeBlock(&reader, scan, i, coef, &store.masks[index])
        } else {
            // A block outside the image (an interleaved MCU's padding) or outside the band.
            dummyMask = 0
            try decodeBlock(&reader, scan, i, dummy, &dummyMask)
        }
    }

    @inline(__always) private func decodeBlock(
        _ reader: inout BitReader, _ scan: ProgressiveLayout.Scan, _ i: Int, _ coef: UnsafeMutablePointer<Int16>, _ mask: inout UInt64
    ) throws(ProgressiveDecodeError) {
        let al = scan.al
        if scan.ss == 0 {
            if scan.ah == 0 {
                let s = try reader.decode(scan.dcTables[i]!)
                guard s <= 11 else { throw ProgressiveDecodeError() }
                let diff = reader.extended(s)
                let value: Int
                switch i {
                case 0: reader.s.predictions.0 += diff; value = reader.s.predictions.0
                case 1: reader.s.predictions.1 += diff; value = reader.s.predictions.1
                case 2: reader.s.predictions.2 += diff; value = reader.s.predictions.2
                default: reader.s.predictions.3 += diff; value = reader.s.predictions.3
                }
                coef[0] = Int16(truncatingIfNeeded: value << al)
            } else if reader.bit() {
                coef[0] |= Int16(truncatingIfNeeded: 1 << al)
            }
            return
        }
        let table = scan.acTables[0]!
        if scan.ah == 0 {
            if reader.s.eobrun > 0 { reader.s.eobrun -= 1; return }
            var k = scan.ss
            while k <= scan.se {
                let rs = try reader.decode(table)
                let r = rs >> 4, s = rs & 15
                if s != 0 {
                    k += r
                    guard k <= scan.se else { throw ProgressiveDecodeError() }
                    coef[jpegNaturalOrder[k]] = Int16(truncatingIfNeeded: reader.extended(s) << al)
                    mask |= 1 << UInt64(k)
                    k += 1
                } else if r == 15 {
                    k += 16
                } else {
                    reader.s.eobrun = (1 << r) - 1
                    if r > 0 { reader.s.eobrun += reader.bits(r) }
                    break
                }
            }
            return
        }
        // Refinement: one more bit of each coefficient already nonzero, and new coefficients of
        // magnitude 1 << al placed among the zero ones.
        let p1 = Int16(truncatingIfNeeded: 1 << al), m1 = Int16(truncatingIfNeeded: -1 << al)
        var k = scan.ss
        if reader.s.eobrun == 0 {
            while k <= scan.se {
                let rs = try reader.decode(table)
                var r = rs >> 4
                let s = rs & 15
                var value: Int16 = 0
                if s != 0 {
                    guard s == 1 else { throw ProgressiveDecodeError() }
                    value = reader.bit() ? p1 : m1
                } else if r != 15 {
                    reader.s.eobrun = 1 << r
                    if r > 0 { reader.s.eobrun += reader.bits(r) }
                    break
                }
                // Past the coefficients already nonzero (each refined) and r zero ones.
                while k <= scan.se {
                    if mask & (1 << UInt64(k)) != 0 {
                        if reader.bit() {
                            let z = jpegNaturalOrder[k]
                            if coef[z] & p1 == 0 { coef[z] = coef[z] &+ (coef[z] >= 0 ? p1 : m1) }
                        }
                    } else {
                        if r == 0 { break }
                        r -= 1
                    }
                    k += 1
                }
                if s != 0 {
                    guard k <= scan.se else { throw ProgressiveDecodeError() }
                    coef[jpegNaturalOrder[k]] = value
                    mask |= 1 << UInt64(k)
                }
                k += 1
            }
        }
        if reader.s.eobrun > 0 {
            while k <= scan.se {
                if mask & (1 << UInt64(k)) != 0, reader.bit() {
                    let z = jpegNaturalOrder[k]
                    if coef[z] & p1 == 0 { coef[z] = coef[z] &+ (coef[z] >= 0 ? p1 : m1) }
                }
                k += 1
            }
            reader.s.eobrun -= 1
        }
    }
}
