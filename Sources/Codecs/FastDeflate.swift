// A deflate compressor for filtered PNG rows that trades a little ratio for a lot of speed, in the
// spirit of fpng/fpnge: no hash chains, no lazy matching, no window search. A strip is read once,
// and the only matches tried are repeats of the pixel to the left (distance = bytes per pixel, so
// runs of zeros and of constant filtered pixels); what is left goes out as literals under a
// dynamic Huffman code built from the strip's own histogram. For the smooth, mostly-literal bytes
// that the "up" filter leaves on screen renders, the histogram is where zlib's level 1 finds most
// of its gain too, so the file comes out about as small at a fraction of the CPU.
//
// Each strip becomes one dynamic block that ends on a byte boundary (an empty stored block after a
// non-final one, byte padding after the final one), so strips compressed on different cores join
// into one valid deflate stream by concatenation; no match ever reaches before its strip.
import CZlib

enum FastDeflate {
    /// Longest match deflate can express.
    static let maxMatch = 258
    /// Shortest match tried: four bytes compare as one 32-bit word, and a 3-byte match rarely pays
    /// over three short literals under a histogram code.
    static let minMatch = 4

    /// One strip: raw deflate of `count` bytes at `input`, matches only at `distance` (1...4)
    /// back. The result is byte-aligned; `final` marks the stream's last block. The caller
    /// deallocates the returned buffer.
    static func compress(
        _ input: UnsafePointer<UInt8>, _ count: Int, distance: Int, final: Bool
    ) -> (data: UnsafeMutablePointer<UInt8>, count: Int) {
        precondition((1...4).contains(distance), "fast deflate distance must be 1...4, got \(distance)")
        precondition(count >= 0, "fast deflate input must not be negative, got \(count)")
        // Tokens: a literal byte b is b; a match of length L is 256 + L. One table then gives
        // the bits of either, so the emitting loop has no branch per token.
        let tokens = UnsafeMutablePointer<UInt16>.allocate(capacity: max(count, 1))
        defer { tokens.deallocate() }
        var tokenCount = 0
        // Four histograms, taken in turn, so runs of one byte value do not serialize on one
        // counter's load-add-store.
        let tableSize = 256 + maxMatch + 1
        let histograms = UnsafeMutablePointer<UInt32>.allocate(capacity: 4 * tableSize)
        histograms.initialize(repeating: 0, count: 4 * tableSize)
        defer { histograms.deallocate() }
        do {
            var i = 0
            let d = distance
            while i < count {
                let h = histograms + (tokenCount & 3) * tableSize
                if i >= d, i + minMatch <= count,
                    UnsafeRawPointer(input + i).loadUnaligned(as: UInt32.self)
                        == UnsafeRawPointer(input + i - d).loadUnaligned(as: UInt32.self)
                {
                    var length = minMatch
                    let limit = min(maxMatch, count - i)
                    while length + 8 <= limit {
                        let a = UnsafeRawPointer(input + i + length).loadUnaligned(as: UInt64.self)
                        let b = UnsafeRawPointer(input + i + length - d).loadUnaligned(as: UInt64.self)
                        let x = a ^ b
                        if x != 0 {
                            length += x.trailingZeroBitCount >> 3
                            break
                        }
                        length += 8
                    }
                    // Fewer than 8 bytes left, or the 8-byte step stopped exactly on a mismatch
                    // (then this loop exits at once).
                    while length < limit, input[i + length] == input[i + length - d] { length += 1 }
                    tokens[tokenCount] = UInt16(256 + length)
                    h[256 + length] &+= 1
                    i += length
                } else {
                    let b = input[i]
                    tokens[tokenCount] = UInt16(b)
                    h[Int(b)] &+= 1
                    i += 1
                }
                tokenCount += 1
            }
        }
        var tokenFrequency = [Int](repeating: 0, count: tableSize)
        for t in 0..<tableSize {
            tokenFrequency[t] = Int(histograms[t]) + Int(histograms[tableSize + t])
                + Int(histograms[2 * tableSize + t]) + Int(histograms[3 * tableSize + t])
        }

        // Symbol histograms of the two alphabets.
        var literalFrequency = [Int](repeating: 0, count: 286)
        var distanceFrequency = [Int](repeating: 0, count: 30)
        for b in 0..<256 { literalFrequency[b] = tokenFrequency[b] }
        literalFrequency[256] = 1
        // An empty strip would leave end-of-block alone in the code; keep the code complete.
        if count == 0 { literalFrequency[0] = 1 }
        for length in minMatch...maxMatch where tokenFrequency[256 + length] > 0 {
            literalFrequency[lengthSymbol(length).symbol] += tokenFrequency[256 + length]
            distanceFrequency[distance - 1] += tokenFrequency[256 + length]
        }
        // Two distance codes at least, so the distance code is complete even with no matches
        // (zlib rejects incomplete codes other than a lone one-bit code).
        let distanceSymbol = distance - 1
        distanceFrequency[distanceSymbol] = max(distanceFrequency[distanceSymbol], 1)
        distanceFrequency[distanceSymbol == 0 ? 1 : 0] = 1
        let literalLengths = Huffman.lengths(literalFrequency, limit: 15)
        let distanceLengths = Huffman.lengths(distanceFrequency, limit: 15)
        let literalCodes = Huffman.codes(literalLengths)
        let distanceCodes = Huffman.codes(distanceLengths)

        // Bits of every token: a literal's code, or a length code, its extra bits and the
        // distance code, as one LSB-first field of at most 15 + 5 + 15 bits.
        var tokenBits = [UInt64](repeating: 0, count: tableSize)
        var tokenWidth = [UInt8](repeating: 0, count: tableSize)
        for b in 0..<256 {
            tokenBits[b] = UInt64(literalCodes[b])
            tokenWidth[b] = literalLengths[b]
        }
        for length in 3...maxMatch {
            let (symbol, extraBits, extra) = lengthSymbol(length)
            let n = Int(literalLengths[symbol])
            tokenBits[256 + length] =
                UInt64(literalCodes[symbol]) | UInt64(extra) << n
                | UInt64(distanceCodes[distanceSymbol]) << (n + extraBits)
            tokenWidth[256 + length] = UInt8(n + extraBits + Int(distanceLengths[distanceSymbol]))
        }

        // Exact size of the block body, so the buffer is allocated once.
        var bodyBits = 0
        for t in 0..<tableSize { bodyBits += tokenFrequency[t] * Int(tokenWidth[t]) }
        bodyBits += Int(literalLengths[256])
        // Header: 17 bits, at most 19 × 3 bits of code-length lengths, at most 316 code lengths
        // of at most 7 + 7 bits; then the stored block's 3 bits, padding and 4 bytes; and the
        // 8-byte stores of the bit writer may run 8 bytes past the end.
        let capacity = (bodyBits + 17 + 57 + 316 * 14 + 3 + 7) / 8 + 4 + 16
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        var writer = BitWriter(out)

        writer.put(final ? 1 : 0, 1)
        writer.put(2, 2)  // dynamic Huffman codes
        writeCodeLengths(literalLengths, distanceLengths, into: &writer)

        tokenBits.withUnsafeBufferPointer { bits in
            tokenWidth.withUnsafeBufferPointer { widths in
                var w = writer
                for k in 0..<tokenCount {
                    let t = Int(tokens[k])
                    w.put(bits[t], Int(widths[t]))
                }
                writer = w
            }
        }
        writer.put(UInt64(literalCodes[256]), Int(literalLengths[256]))
        if !final {
            // An empty stored block: what zlib's sync flush writes, and what brings the strip to a
            // byte boundary without ending the stream.
            writer.put(0, 3)
            writer.alignToByte()
            writer.put(0xFFFF_0000, 32)
        } else {
            writer.alignToByte()
        }
        let produced = writer.finish()
        precondition(produced <= capacity - 8, "fast deflate overran its estimate: \(produced) of \(capacity)")
        return (out, produced)
    }

    /// Length symbol (257...285), count of extra bits and their value for a match length 3...258.
    @inline(__always)
    static func lengthSymbol(_ length: Int) -> (symbol: Int, extraBits: Int, extra: Int) {
        var k = lengthBase.count - 1
        while lengthBase[k] > length { k -= 1 }
        return (257 + k, lengthExtra[k], length - lengthBase[k])
    }

    static let lengthBase = [
        3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258,
    ]
    static let lengthExtra = [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0]
    /// The order in which a dynamic block lists the code-length code's own lengths.
    static let codeLengthOrder = [16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15]

    /// HLIT, HDIST, HCLEN and the two codes' lengths, run-length coded under a third Huffman code.
    private static func writeCodeLengths(_ literal: [UInt8], _ distance: [UInt8], into w: inout BitWriter) {
        var hlit = 286
        while hlit > 257, literal[hlit - 1] == 0 { hlit -= 1 }
        var hdist = 30
        while hdist > 1, distance[hdist - 1] == 0 { hdist -= 1 }
        let all = Array(literal[0..<hlit]) + Array(distance[0..<hdist])
        // (symbol, extra bits value) pairs; 16 repeats the previous length 3–6 times, 17 and 18
        // write 3–10 and 11–138 zeros.
        var items: [(symbol: Int, extra: Int)] = []
        var i = 0
        while i < all.count {
            let v = all[i]
            var run = 1
            while i + run < all.count, all[i + run] == v { run += 1 }
            i += run
            if v == 0 {
                while run >= 11 { let n = min(run, 138); items.append((18, n - 11)); run -= n }
                if run >= 3 { items.append((17, run - 3)); run = 0 }
                while run > 0 { items.append((0, 0)); run -= 1 }
            } else {
                items.append((Int(v), 0))
                run -= 1
                while run >= 3 { let n = min(run, 6); items.append((16, n - 3)); run -= n }
                while run > 0 { items.append((Int(v), 0)); run -= 1 }
            }
        }
        var frequency = [Int](repeating: 0, count: 19)
        for item in items { frequency[item.symbol] += 1 }
        // zlib insists the code-length code be complete: give it two symbols at least.
        if frequency.filter({ $0 > 0 }).count < 2 {
            frequency[frequency[0] == 0 ? 0 : 1] += 1
        }
        let lengths = Huffman.lengths(frequency, limit: 7)
        let codes = Huffman.codes(lengths)
        var hclen = 19
        while hclen > 4, lengths[codeLengthOrder[hclen - 1]] == 0 { hclen -= 1 }
        w.put(UInt64(hlit - 257), 5)
        w.put(UInt64(hdist - 1), 5)
        w.put(UInt64(hclen - 4), 4)
        for k in 0..<hclen { w.put(UInt64(lengths[codeLengthOrder[k]]), 3) }
        for item in items {
            w.put(UInt64(codes[item.symbol]), Int(lengths[item.symbol]))
            switch item.symbol {
            case 16: w.put(UInt64(item.extra), 2)
            case 17: w.put(UInt64(item.extra), 3)
            case 18: w.put(UInt64(item.extra), 7)
            default: break
            }
        }
    }
}

/// LSB-first bits into a buffer with room for an 8-byte store past the last byte written.
struct BitWriter {
    var base: UnsafeMutablePointer<UInt8>
    var position = 0
    var buffer: UInt64 = 0
    var bitCount = 0

    init(_ base: UnsafeMutablePointer<UInt8>) { self.base = base }

    /// `bits` holds exactly `count` (≤ 56) significant bits. Every call stores the whole buffer
    /// and advances by the bytes completed, so fewer than 8 bits stay pending and no call branches.
    @inline(__always)
    mutating func put(_ bits: UInt64, _ count: Int) {
        buffer |= bits &<< UInt64(bitCount)
        bitCount += count
        UnsafeMutableRawPointer(base + position).storeBytes(of: buffer.littleEndian, as: UInt64.self)
        let bytes = bitCount >> 3
        position += bytes
        buffer = buffer &>> UInt64(bytes << 3)
        bitCount &= 7
    }

    mutating func alignToByte() {
        if bitCount > 0 { put(0, 8 - bitCount) }
    }

    /// Bytes written; pending bits are flushed as a final partial byte.
    mutating func finish() -> Int {
        alignToByte()
        return position
    }
}

/// Huffman code lengths and canonical codes for deflate.
enum Huffman {
    /// Code lengths for `frequency` (0 = unused symbol), none longer than `limit`. With two or
    /// more used symbols the code is complete; one used symbol gets length 1.
    static func lengths(_ frequency: [Int], limit: Int) -> [UInt8] {
        var weights = frequency
        while true {
            let result = unlimitedLengths(weights)
            if result.max() ?? 0 <= UInt8(limit) { return result }
            // Flatten the distribution and try again: halving keeps every used symbol used and
            // shortens the deepest codes; after a few rounds all weights are equal and the depth
            // is log2 of the symbol count, well under any limit used here.
            weights = weights.map { $0 == 0 ? 0 : max(1, $0 >> 1) }
        }
    }

    private static func unlimitedLengths(_ frequency: [Int]) -> [UInt8] {
        let used = frequency.indices.filter { frequency[$0] > 0 }
        var lengths = [UInt8](repeating: 0, count: frequency.count)
        if used.count == 1 { lengths[used[0]] = 1 }
        if used.count < 2 { return lengths }
        // Two-queue Huffman: leaves sorted by weight, and internal nodes, which arise in
        // non-decreasing weight order. Nodes 0..<n are leaves, n... internal; parent links give
        // depths.
        let leaves = used.sorted { (frequency[$0], $0) < (frequency[$1], $1) }
        let n = leaves.count
        var weight = leaves.map { frequency[$0] } + [Int](repeating: 0, count: n - 1)
        var parent = [Int](repeating: -1, count: 2 * n - 1)
        var nextLeaf = 0, nextNode = n, made = n
        func take() -> Int {
            if nextLeaf < n, nextNode == made || weight[nextLeaf] <= weight[nextNode] {
                nextLeaf += 1
                return nextLeaf - 1
            }
            nextNode += 1
            return nextNode - 1
        }
        while made < 2 * n - 1 {
            let a = take(), b = take()
            weight[made] = weight[a] + weight[b]
            parent[a] = made
            parent[b] = made
            made += 1
        }
        var depth = [Int](repeating: 0, count: 2 * n - 1)
        for node in stride(from: 2 * n - 3, through: 0, by: -1) { depth[node] = depth[parent[node]] + 1 }
        for k in 0..<n { lengths[leaves[k]] = UInt8(depth[k]) }
        return lengths
    }

    /// Canonical codes for `lengths`, bit-reversed so they can be written LSB first.
    static func codes(_ lengths: [UInt8]) -> [UInt16] {
        var count = [Int](repeating: 0, count: 16)
        for l in lengths where l > 0 { count[Int(l)] += 1 }
        var next = [Int](repeating: 0, count: 16)
        var code = 0
        for bits in 1..<16 {
            code = (code + count[bits - 1]) << 1
            next[bits] = code
        }
        var codes = [UInt16](repeating: 0, count: lengths.count)
        for (symbol, l) in lengths.enumerated() where l > 0 {
            let c = next[Int(l)]
            next[Int(l)] += 1
            var reversed = 0
            for k in 0..<Int(l) where c >> k & 1 == 1 { reversed |= 1 << (Int(l) - 1 - k) }
            codes[symbol] = UInt16(reversed)
        }
        return codes
    }
}

extension FastDeflate {
    /// A whole zlib stream of `input` made the way ``PNGWriter`` makes one: `strips` strips
    /// compressed independently and concatenated, Adler-32 combined. For tests.
    package static func zlib(_ input: [UInt8], strips: Int, distance: Int) -> [UInt8] {
        precondition(strips > 0, "strips must be positive, got \(strips)")
        var out: [UInt8] = [0x78, 0x01]
        var adler: UInt = 1
        input.withUnsafeBufferPointer { p in
            let base = p.baseAddress ?? UnsafePointer(bitPattern: 1)!
            let total = p.count
            for i in 0..<strips {
                let start = total * i / strips, end = total * (i + 1) / strips
                let (data, count) = compress(base + start, end - start, distance: distance, final: i == strips - 1)
                out += UnsafeBufferPointer(start: data, count: count)
                data.deallocate()
                let a = end > start ? adler32_z(1, base + start, end - start) : 1
                adler = i == 0 ? a : adler32_combine(adler, a, .init(end - start))
            }
        }
        let a = UInt32(truncatingIfNeeded: adler)
        return out + [UInt8(a >> 24), UInt8(a >> 16 & 0xFF), UInt8(a >> 8 & 0xFF), UInt8(a & 0xFF)]
    }

    /// zlib's inflate of a whole zlib stream, checking the Adler-32; nil if zlib rejects it or
    /// it does not inflate to exactly `expectedCount` bytes. For tests.
    package static func inflate(_ stream: [UInt8], expectedCount: Int) -> [UInt8]? {
        var result = [UInt8](repeating: 0, count: expectedCount + 1)
        var length = UInt(result.count)
        let status = result.withUnsafeMutableBufferPointer { r in
            stream.withUnsafeBufferPointer { s in
                uncompress(r.baseAddress, &length, s.baseAddress, UInt(s.count))
            }
        }
        guard status == Z_OK, Int(length) == expectedCount else { return nil }
        return Array(result[0..<expectedCount])
    }
}
