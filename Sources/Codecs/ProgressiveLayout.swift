// The structure of a progressive JPEG, read from its markers: the frame, and every scan with the
// Huffman tables and restart interval in force for it and where its entropy-coded data lies.
// ProgressiveBands.swift decodes the scans a band of rows at a time from this.
//
// Only what that decoder handles exactly is accepted (8-bit, Huffman-coded progressive frames
// whose scans refine every coefficient of every component to its last bit); anything else gives
// nil, and libjpeg decodes the file whole as before: that is also where damaged files are judged
// and named.

import Glibc

/// Random access to a file's bytes: in memory, or the open file through pread.
enum JPEGBytes {
    case memory(UnsafeBufferPointer<UInt8>)
    case file(fd: Int32, size: Int)

    var count: Int {
        switch self {
        case .memory(let b): return b.count
        case .file(_, let size): return size
        }
    }

    /// Copies up to `count` bytes at `offset` into `into`; returns how many there were.
    func read(into: UnsafeMutablePointer<UInt8>, at offset: Int, count: Int) -> Int {
        guard offset >= 0, offset < self.count, count > 0 else { return 0 }
        let n = min(count, self.count - offset)
        switch self {
        case .memory(let b):
            into.update(from: b.baseAddress! + offset, count: n)
            return n
        case .file(let fd, _):
            var done = 0
            while done < n {
                let got = pread(fd, into + done, n - done, off_t(offset + done))
                if got < 0 && errno == EINTR { continue }
                if got <= 0 { break }
                done += got
            }
            return done
        }
    }

    func bytes(at offset: Int, count: Int) -> [UInt8]? {
        guard count >= 0 else { return nil }
        var out = [UInt8](repeating: 0, count: count)
        let got = out.withUnsafeMutableBufferPointer { read(into: $0.baseAddress!, at: offset, count: count) }
        return got == count ? out : nil
    }
}

/// A canonical Huffman table (ITU-T T.81 annex C), with a 9-bit lookahead for the short codes.
/// Its arrays live in memory of its own, read without bounds checks by the entropy decoder
/// (every index is masked or range-checked there first).
final class JPEGHuffmanTable {
    /// For each 9-bit prefix: code length << 8 | symbol, or 0 when the code is longer.
    let lookahead: UnsafeMutablePointer<UInt16>
    /// For lengths 0...17: the largest code of that length (-1 when none; 17 is a sentinel), and
    /// what to add to a code of that length to index `symbols`.
    let maxCode: UnsafeMutablePointer<Int32>
    let offset: UnsafeMutablePointer<Int32>
    let symbols: UnsafeMutablePointer<UInt8>
    let symbolCount: Int

    static let lookaheadBits = 9

    init?(counts: [UInt8], symbols list: [UInt8]) {
        guard counts.count == 16, list.count == counts.reduce(0, { $0 + Int($1) }), list.count <= 256 else { return nil }
        lookahead = .allocate(capacity: 1 << Self.lookaheadBits)
        lookahead.initialize(repeating: 0, count: 1 << Self.lookaheadBits)
        maxCode = .allocate(capacity: 18)
        maxCode.initialize(repeating: -1, count: 18)
        offset = .allocate(capacity: 18)
        offset.initialize(repeating: 0, count: 18)
        symbols = .allocate(capacity: 256)
        symbols.initialize(repeating: 0, count: 256)
        symbolCount = list.count
        for (i, v) in list.enumerated() { symbols[i] = v }
        var code: Int32 = 0
        var index = 0
        var valid = true
        for length in 1...16 where valid {
            let n = Int(counts[length - 1])
            offset[length] = Int32(index) - code
            for _ in 0..<n {
                // A code that does not fit its length: the counts describe no prefix code.
                guard code < (1 << length) else { valid = false; break }
                if length <= Self.lookaheadBits {
                    let shift = Self.lookaheadBits - length
                    let first = Int(code) << shift
                    for p in first..<(first + (1 << shift)) { lookahead[p] = UInt16(length) << 8 | UInt16(list[index]) }
                }
                code += 1
                index += 1
            }
            maxCode[length] = n > 0 ? code - 1 : -1
            code <<= 1
        }
        maxCode[17] = Int32.max  // no code is longer than 16 bits
        if !valid { return nil }
    }

    deinit {
        lookahead.deallocate()
        maxCode.deallocate()
        offset.deallocate()
        symbols.deallocate()
    }
}

struct ProgressiveLayout {
    struct Component {
        var id: UInt8
        var h: Int, v: Int
        /// Blocks holding the component's samples: ceil(ceil(width × h / hmax) / 8), likewise down.
        var blocksWide: Int, blocksHigh: Int
    }

    struct Scan {
        /// Indices into `components`, in the scan's order.
        var components: [Int]
        var dcTables: [JPEGHuffmanTable?]
        var acTables: [JPEGHuffmanTable?]
        var ss: Int, se: Int, ah: Int, al: Int
        /// MCUs (blocks, in a one-component scan) between restart markers; 0 for none.
        var restartInterval: Int
        /// The entropy-coded data: from `start` up to the marker that ends it at `end`.
        var start: Int, end: Int
    }

    var width: Int, height: Int
    var components: [Component]
    var hmax: Int, vmax: Int
    var mcusWide: Int, mcusHigh: Int
    var scans: [Scan]

    /// Bytes libjpeg would hold for every coefficient of the image (2 per coefficient).
    var coefficientBytes: Int { components.reduce(0) { $0 + $1.blocksWide * $1.blocksHigh * 128 } }

    /// The layout of a progressive JPEG, or nil when the file is anything else, or anything this
    /// decoder would not decode exactly as libjpeg does.
    static func read(_ src: JPEGBytes) -> ProgressiveLayout? {
        guard let soi = src.bytes(at: 0, count: 2), soi == [0xFF, 0xD8] else { return nil }
        var at = 2
        var frame: (width: Int, height: Int, components: [Component])?
        var dc = [JPEGHuffmanTable?](repeating: nil, count: 4), ac = [JPEGHuffmanTable?](repeating: nil, count: 4)
        var restart = 0
        var scans: [Scan] = []
        var ended = false
        while !ended {
            // A marker: 0xFF, any number of fill 0xFFs, then its code.
            guard let ff = src.bytes(at: at, count: 2), ff[0] == 0xFF else { return nil }
            var code = ff[1]
            at += 1
            while code == 0xFF {
                at += 1
                guard let next = src.bytes(at: at, count: 1) else { return nil }
                code = next[0]
            }
            at += 1
            if code == 0xD9 { ended = true; break }  // EOI
            if code == 0x01 || (0xD0...0xD7).contains(code) { continue }  // TEM, stray RSTn: no length
            guard let lengthBytes = src.bytes(at: at, count: 2) else { return nil }
            let length = Int(lengthBytes[0]) << 8 | Int(lengthBytes[1])
            guard length >= 2, let payload = src.bytes(at: at + 2, count: length - 2) else { return nil }
            let segmentEnd = at + length
            switch code {
            case 0xC2:  // progressive, Huffman
                guard frame == nil, payload.count >= 6, payload[0] == 8 else { return nil }
                let height = Int(payload[1]) << 8 | Int(payload[2]), width = Int(payload[3]) << 8 | Int(payload[4])
                let n = Int(payload[5])
                // A height of 0 is declared later by a DNL marker: left to libjpeg.
                guard height > 0, width > 0, (1...4).contains(n), payload.count >= 6 + 3 * n else { return nil }
                var comps: [Component] = []
                for i in 0..<n {
                    let p = 6 + 3 * i
                    let h = Int(payload[p + 1] >> 4), v = Int(payload[p + 1] & 15)
                    guard (1...4).contains(h), (1...4).contains(v), !comps.contains(where: { $0.id == payload[p] }) else { return nil }
                    comps.append(Component(id: payload[p], h: h, v: v, blocksWide: 0, blocksHigh: 0))
                }
                let hmax = comps.map(\.h).max()!, vmax = comps.map(\.v).max()!
                for i in comps.indices {
                    comps[i].blocksWide = ((width * comps[i].h + hmax - 1) / hmax + 7) / 8
                    comps[i].blocksHigh = ((height * comps[i].v + vmax - 1) / vmax + 7) / 8
                }
                frame = (width, height, comps)
            case 0xC0, 0xC1, 0xC3, 0xC5...0xC7, 0xC9...0xCB, 0xCD...0xCF, 0xCC, 0xDC:
                return nil  // another kind of frame, arithmetic coding, or DNL
            case 0xC4:
                var p = 0
                while p < payload.count {
                    guard payload.count - p >= 17 else { return nil }
                    let kind = payload[p] >> 4, slot = Int(payload[p] & 15)
                    let counts = Array(payload[(p + 1)..<(p + 17)])
                    let n = counts.reduce(0) { $0 + Int($1) }
                    guard kind <= 1, slot < 4, payload.count - p - 17 >= n,
                        let table = JPEGHuffmanTable(counts: counts, symbols: Array(payload[(p + 17)..<(p + 17 + n)]))
                    else { return nil }
                    if kind == 0 { dc[slot] = table } else { ac[slot] = table }
                    p += 17 + n
                }
            case 0xDD:
                guard payload.count == 2 else { return nil }
                restart = Int(payload[0]) << 8 | Int(payload[1])
            case 0xDB:
                // Tables redefined once scans have begun would be latched by libjpeg per
                // component, not copied from the header as the band encoder does.
                guard scans.isEmpty else { return nil }
            case 0xDA:
                guard let f = frame, payload.count >= 1 else { return nil }
                let n = Int(payload[0])
                guard (1...4).contains(n), payload.count == 4 + 2 * n else { return nil }
                var scan = Scan(
                    components: [], dcTables: [], acTables: [], ss: Int(payload[1 + 2 * n]), se: Int(payload[2 + 2 * n]),
                    ah: Int(payload[3 + 2 * n] >> 4), al: Int(payload[3 + 2 * n] & 15), restartInterval: restart,
                    start: segmentEnd, end: 0)
                for i in 0..<n {
                    guard let c = f.components.firstIndex(where: { $0.id == payload[1 + 2 * i] }), !scan.components.contains(c),
                        payload[2 + 2 * i] >> 4 < 4, payload[2 + 2 * i] & 15 < 4
                    else { return nil }
                    scan.components.append(c)
                    scan.dcTables.append(dc[Int(payload[2 + 2 * i] >> 4)])
                    scan.acTables.append(ac[Int(payload[2 + 2 * i] & 15)])
                }
                guard let end = entropyEnd(src, from: segmentEnd) else { return nil }
                scan.end = end
                scans.append(scan)
                at = end
                continue
            default:
                break  // APPn, COM and the like
            }
            at = segmentEnd
        }
        guard ended, let f = frame, !scans.isEmpty else { return nil }
        let hmax = f.components.map(\.h).max()!, vmax = f.components.map(\.v).max()!
        let layout = ProgressiveLayout(
            width: f.width, height: f.height, components: f.components, hmax: hmax, vmax: vmax,
            mcusWide: (f.width + 8 * hmax - 1) / (8 * hmax), mcusHigh: (f.height + 8 * vmax - 1) / (8 * vmax), scans: scans)
        return layout.scansAreComplete() && layout.dataCoversTheBlocks() ? layout : nil
    }

    /// Every block takes at least one bit of each first DC scan (its Huffman code is never empty),
    /// so a file declaring more blocks than its DC scans have bits is cut short or crafted: left to
    /// libjpeg, before anything is allocated by the declaration.
    private func dataCoversTheBlocks() -> Bool {
        for scan in scans where scan.ss == 0 && scan.ah == 0 {
            let blocks = scan.components.count > 1
                ? mcusWide * mcusHigh * scan.components.reduce(0) { $0 + components[$1].h * components[$1].v }
                : components[scan.components[0]].blocksWide * components[scan.components[0]].blocksHigh
            if blocks > 8 * (scan.end - scan.start) { return false }
        }
        return true
    }

    /// Where the entropy-coded data starting at `from` ends: at the first marker other than a
    /// restart marker (a stuffed 0xFF 0x00 is data). Nil when the file ends first.
    private static func entropyEnd(_ src: JPEGBytes, from: Int) -> Int? {
        let chunk = 64 * 1024
        var buffer = [UInt8](repeating: 0, count: chunk + 1)
        var at = from
        while at < src.count {
            let got = buffer.withUnsafeMutableBufferPointer { src.read(into: $0.baseAddress!, at: at, count: chunk + 1) }
            if got < 2 { return nil }
            for i in 0..<(got - 1) where buffer[i] == 0xFF {
                let next = buffer[i + 1]
                if next != 0 && !(0xD0...0xD7).contains(next) { return at + i }
            }
            at += got - 1
        }
        return nil
    }

    /// Every scan well formed (ITU-T T.81 G.1.1.1), each refinement following the scan before it
    /// for the same coefficients, and every coefficient of every component refined to its last
    /// bit. libjpeg smooths the blocks of a file that leaves some unfinished; that is not done
    /// here, so such files are left to it.
    private func scansAreComplete() -> Bool {
        var bits = [[Int]](repeating: [Int](repeating: -1, count: 64), count: components.count)
        for scan in scans {
            guard scan.ss <= scan.se, scan.se <= 63, scan.al <= 13, scan.ah == 0 || scan.ah == scan.al + 1 else { return false }
            if scan.ss == 0 {
                guard scan.se == 0 else { return false }
                if scan.ah == 0 { guard scan.dcTables.allSatisfy({ $0 != nil }) else { return false } }
                // Blocks in one interleaved MCU: at most 10 (T.81 B.2.3).
                if scan.components.count > 1 {
                    guard scan.components.reduce(0, { $0 + components[$1].h * components[$1].v }) <= 10 else { return false }
                }
            } else {
                guard scan.components.count == 1, scan.acTables[0] != nil else { return false }
            }
            for c in scan.components {
                for k in scan.ss...scan.se {
                    if scan.ah == 0 { guard bits[c][k] == -1 else { return false } } else { guard bits[c][k] == scan.ah else { return false } }
                    bits[c][k] = scan.al
                }
            }
        }
        return bits.allSatisfy { $0.allSatisfy { $0 == 0 } }
    }
}
