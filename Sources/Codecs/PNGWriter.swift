// The PNG container and a parallel deflate, written here rather than through libpng, because
// libpng filters and compresses on one core and a screen-sized PNG is the slowest step of a render.
//
// The compressed stream is built the way pigz builds gzip files: the filtered image is cut into
// strips, the strips are deflated concurrently, each as a raw deflate stream ending on a byte
// boundary (Z_SYNC_FLUSH; the last one Z_FINISH), and they are concatenated behind one zlib header.
// Each strip starts with the 32 KB before it as its dictionary, so matches across the cut are
// not lost and the file is barely larger than a one-stream file. The Adler-32 of the whole stream
// comes from the strips' checksums with adler32_combine. Decoders see one ordinary zlib stream.
import CZlib
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Knobs of ``PNGWriter`` that change the bytes but never the pixels: tests use them to put strip
/// and chunk boundaries inside small images.
package struct PNGWriterTuning: Sendable {
    /// Deflate strips; nil chooses by size (about 1 MB each).
    package var strips: Int?
    /// Bytes of zlib stream per IDAT chunk.
    package var chunkSize: Int
    /// zlib strategy; nil is libpng's choice (see `PNGWriter.zlibStrategy`).
    package var strategy: Int32?
    /// Whether to deflate with ``FastDeflate`` instead of zlib; nil uses it for the `.fast`
    /// preset (level 1, up filter) alone.
    package var fastDeflate: Bool?
    /// Strips filtered and deflated together when writing to a file
    /// (`PNGWriter.write(source:sourceStride:name:to:)`); nil chooses by size (about 8 MB).
    package var batchStrips: Int?

    package init(
        strips: Int? = nil, chunkSize: Int = 256 * 1024, strategy: Int32? = nil, fastDeflate: Bool? = nil, batchStrips: Int? = nil
    ) {
        precondition(strips.map { $0 > 0 } ?? true, "PNG strips must be positive, got \(strips ?? 0)")
        precondition(batchStrips.map { $0 > 0 } ?? true, "PNG strips per batch must be positive, got \(batchStrips ?? 0)")
        precondition(chunkSize > 0, "IDAT chunk size must be positive, got \(chunkSize)")
        self.strips = strips
        self.chunkSize = chunkSize
        self.strategy = strategy
        self.fastDeflate = fastDeflate
        self.batchStrips = batchStrips
    }
}

/// How a row of source pixels becomes a row of PNG samples.
enum PNGRowLayout: Sendable, Equatable {
    /// Source rows are already PNG rows (RGBA to RGBA, gray to gray).
    case copy
    /// RGBA source, gray PNG: the red byte of each pixel.
    case grayFromRGBA
    /// RGBA source, gray+alpha PNG: red and alpha.
    case grayAlphaFromRGBA
    /// RGBA source, RGB PNG: the first three bytes.
    case rgbFromRGBA
}

/// One non-interlaced 8-bit PNG: the container, the row filters and the parallel deflate.
struct PNGWriter {
    var width: Int
    var height: Int
    /// IHDR colour type: 0 gray, 2 RGB, 4 gray+alpha, 6 RGBA.
    var colorType: UInt8
    var layout: PNGRowLayout
    var level: Int
    var filter: PNGFilter
    var tuning = PNGWriterTuning()
    var strips: Int? { tuning.strips }
    var chunkSize: Int { tuning.chunkSize }
    var strategy: Int32? { tuning.strategy }
    /// The `.fast` preset skips zlib: on a 2556×1179 screen spread FastDeflate takes a fraction
    /// of level 1's CPU for a file of about the same size (Documentation/Layout.md, Render).
    var usesFastDeflate: Bool { tuning.fastDeflate ?? (level == 1 && filter == .up && strategy == nil) }

    var channels: Int {
        switch colorType {
        case 0: return 1
        case 4: return 2
        case 2: return 3
        default: return 4
        }
    }
    var rowBytes: Int { width * channels }

    static let coreCount: Int = {
        let n = sysconf(Int32(_SC_NPROCESSORS_ONLN))
        return n > 0 ? Int(n) : 1
    }()

    /// Below this much filtered data one deflate stream is as fast as waking other threads and
    /// costs no ratio.
    static let minimumParallelBytes = 256 * 1024
    /// Filtered bytes per deflate strip, roughly.
    static let stripBytes = 1 << 20
    /// The deflate window: how far back a strip's dictionary reaches.
    static let window = 32 * 1024

    /// `source` holds `height` rows `sourceStride` bytes apart in the layout's source format.
    func encode(source: UnsafeRawBufferPointer, sourceStride: Int, name: String) throws(CodecError) -> [UInt8] {
        let total = try filteredLength(source, name: name)
        let source = source.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let filtered = UnsafeMutablePointer<UInt8>.allocate(capacity: total)
        defer { filtered.deallocate() }
        filterRows(source: source, sourceStride: sourceStride, rows: 0..<height, into: filtered)
        let streams = try deflate(UnsafeBufferPointer(start: filtered, count: total), name: name)
        defer { for s in streams.strips { s.data.deallocate() } }
        return assemble(streams)
    }

    /// The length of the filtered image (a filter byte and the samples of each row), after
    /// checking the size and that there are pixels.
    func filteredLength(_ source: UnsafeRawBufferPointer, name: String) throws(CodecError) -> Int {
        precondition((0...9).contains(level), "PNG compression level must be 0...9, got \(level)")
        guard width > 0, height > 0, source.baseAddress != nil else {
            throw .encodeFailed(name: name, format: .png, reason: "image is empty (\(width)×\(height))")
        }
        guard width <= 0x7FFF_FFFF, height <= 0x7FFF_FFFF else {
            throw .encodeFailed(name: name, format: .png, reason: "image is too large (\(width)×\(height))")
        }
        let (total, overflow) = (rowBytes + 1).multipliedReportingOverflow(by: height)
        guard !overflow, total < Int.max / 2 else {
            throw .encodeFailed(name: name, format: .png, reason: "image is too large (\(width)×\(height))")
        }
        return total
    }

    // MARK: Filtering

    /// Fills `out` with `rows` of filter type byte + filtered samples (the first of them at `out`).
    /// Every row's filter reads only the unfiltered row above, so bands of rows are independent.
    func filterRows(source: UnsafePointer<UInt8>, sourceStride: Int, rows: Range<Int>, into out: UnsafeMutablePointer<UInt8>) {
        let n = rowBytes
        let bandCount = min(rows.count, Self.bandCount(bytes: (n + 1) * rows.count))
        guard bandCount > 0 else { return }
        let rowsPerBand = (rows.count + bandCount - 1) / bandCount
        let bands = (rows.count + rowsPerBand - 1) / rowsPerBand
        concurrentPerform(iterations: bands) { band in
            let y0 = rows.lowerBound + band * rowsPerBand, y1 = min(rows.upperBound, y0 + rowsPerBand)
            // Two packed rows (current and previous, swapped each row), a zero row above the
            // first, and for the adaptive filter the five candidates.
            let candidates = filter == .adaptive ? 5 : 0
            let scratch = UnsafeMutablePointer<UInt8>.allocate(capacity: n * (3 + candidates))
            defer { scratch.deallocate() }
            let zero = scratch + 2 * n
            zero.initialize(repeating: 0, count: n)
            var slot = 0
            var prev: UnsafePointer<UInt8> = y0 == 0 ? UnsafePointer(zero) : row(y0 - 1, source, sourceStride, scratch + n)
            for y in y0..<y1 {
                let cur = row(y, source, sourceStride, scratch + slot * n)
                let dst = out + (y - rows.lowerBound) * (n + 1)
                if filter == .adaptive {
                    chooseFilter(cur, prev, dst, scratch + 3 * n)
                } else {
                    let type = filter.type
                    dst[0] = type
                    Self.apply(type, cur, prev, dst + 1, n, channels)
                }
                prev = cur
                slot ^= 1
            }
        }
    }

    /// Bands of rows for filtering: enough to keep every core busy even when other processes
    /// take some, none when the image is small.
    private static func bandCount(bytes: Int) -> Int {
        guard coreCount > 1, bytes >= minimumParallelBytes else { return 1 }
        return coreCount * 4
    }

    /// Row `y` as PNG samples: the source row itself, or packed into `scratch`.
    @inline(__always)
    private func row(_ y: Int, _ source: UnsafePointer<UInt8>, _ stride: Int, _ scratch: UnsafeMutablePointer<UInt8>)
        -> UnsafePointer<UInt8>
    {
        let src = source + y * stride
        switch layout {
        case .copy:
            return src
        case .grayFromRGBA:
            for x in 0..<width { scratch[x] = src[4 * x] }
        case .grayAlphaFromRGBA:
            for x in 0..<width {
                scratch[2 * x] = src[4 * x]
                scratch[2 * x + 1] = src[4 * x + 3]
            }
        case .rgbFromRGBA:
            for x in 0..<width {
                scratch[3 * x] = src[4 * x]
                scratch[3 * x + 1] = src[4 * x + 1]
                scratch[3 * x + 2] = src[4 * x + 2]
            }
        }
        return UnsafePointer(scratch)
    }

    /// libpng's heuristic: the filter whose output, read as signed bytes, has the smallest sum of
    /// absolute values (ties go to the simpler filter).
    private func chooseFilter(
        _ cur: UnsafePointer<UInt8>, _ prev: UnsafePointer<UInt8>, _ dst: UnsafeMutablePointer<UInt8>,
        _ candidates: UnsafeMutablePointer<UInt8>
    ) {
        let n = rowBytes
        var best: UInt8 = 0
        var bestSum = Int.max
        for type in UInt8(0)...4 {
            let c = candidates + Int(type) * n
            Self.apply(type, cur, prev, c, n, channels)
            var sum = 0
            for i in 0..<n {
                let v = Int(Int8(bitPattern: c[i]))
                sum &+= v < 0 ? 0 &- v : v
            }
            if sum < bestSum {
                bestSum = sum
                best = type
            }
        }
        dst[0] = best
        (dst + 1).update(from: candidates + Int(best) * n, count: n)
    }

    /// PNG filter `type` of row `cur` (with `prev` the unfiltered row above, zeros for the first
    /// row) into `out`; `bpp` is bytes per pixel.
    @inline(__always)
    static func apply(
        _ type: UInt8, _ cur: UnsafePointer<UInt8>, _ prev: UnsafePointer<UInt8>, _ out: UnsafeMutablePointer<UInt8>,
        _ n: Int, _ bpp: Int
    ) {
        let head = min(bpp, n)
        switch type {
        case 0:
            out.update(from: cur, count: n)
        case 1:
            for i in 0..<head { out[i] = cur[i] }
            for i in head..<max(head, n) { out[i] = cur[i] &- cur[i - bpp] }
        case 2:
            for i in 0..<n { out[i] = cur[i] &- prev[i] }
        case 3:
            for i in 0..<head { out[i] = cur[i] &- prev[i] >> 1 }
            for i in head..<max(head, n) {
                out[i] = cur[i] &- UInt8(truncatingIfNeeded: (UInt16(cur[i - bpp]) + UInt16(prev[i])) >> 1)
            }
        default:
            // Paeth; with no left neighbour the predictor is the byte above.
            for i in 0..<head { out[i] = cur[i] &- prev[i] }
            // Wrapping arithmetic and selects, no traps or branches, so the loop vectorizes.
            for i in head..<max(head, n) {
                let a = Int16(cur[i - bpp]), b = Int16(prev[i]), c = Int16(prev[i - bpp])
                let p = b &- c, q = a &- c, r = p &+ q
                let pa = p < 0 ? 0 &- p : p, pb = q < 0 ? 0 &- q : q, pc = r < 0 ? 0 &- r : r
                let predictor = pa <= pb && pa <= pc ? a : (pb <= pc ? b : c)
                out[i] = cur[i] &- UInt8(truncatingIfNeeded: predictor)
            }
        }
    }

    // MARK: Deflate

    struct Strip {
        var data: UnsafeMutablePointer<UInt8>
        var count: Int
    }

    struct Streams {
        var strips: [Strip]
        var adler: UInt
    }

    var zlibStrategy: Int32 {
        // libpng's defaults, so a file is as small as libpng's at the same level: Z_FILTERED for
        // filtered rows, the default strategy when no filter runs. (At levels 1–3 zlib ignores
        // Z_FILTERED; it only changes the lazy matcher of levels 4–9.) Measured for the level-1
        // preset on a 2556×1179 spread, one strip: Z_RLE saves ~12 % CPU for a file 6.7 % larger,
        // Z_HUFFMAN_ONLY ~9 % CPU for 35 % larger, so neither replaces the default.
        strategy ?? (filter == .none ? Z_DEFAULT_STRATEGY : Z_FILTERED)
    }

    /// How many strips a filtered image of `total` bytes is deflated in.
    func stripCount(total: Int) -> Int {
        // The strip count depends on the data alone, never on the machine, so the same pixels
        // give the same bytes everywhere (the generator promises byte-identical output per seed).
        // About 1 MB per strip: enough strips for Dispatch to even out cores that other
        // processes are using, few enough that the dictionaries (32 KB hashed again per strip)
        // and block restarts (tens of bytes per strip) cost little.
        if let strips { return max(1, min(strips, total)) }
        if total >= Self.minimumParallelBytes { return min(64, max(2, total / Self.stripBytes)) }
        return 1
    }

    private func deflate(_ input: UnsafeBufferPointer<UInt8>, name: String) throws(CodecError) -> Streams {
        let total = input.count
        let count = stripCount(total: total)
        let deflated = try deflate(strips: 0..<count, of: count, total: total, base: input.baseAddress!, offset: 0, name: name)
        var adler: UInt = 1
        for (i, s) in deflated.enumerated() {
            let length = total * (i + 1) / count - total * i / count
            adler = i == 0 ? s.adler : adler32_combine(adler, s.adler, .init(length))
        }
        return Streams(strips: deflated.map(\.strip), adler: adler)
    }

    /// Strips `range` (of `count` over `total` filtered bytes) deflated concurrently, each with the
    /// Adler-32 of its input. `base` holds the filtered bytes from `offset` on: each strip and the
    /// window before it (its dictionary).
    func deflate(
        strips range: Range<Int>, of count: Int, total: Int, base: UnsafePointer<UInt8>, offset: Int, name: String
    ) throws(CodecError) -> [(strip: Strip, adler: UInt)] {
        let results = UnsafeMutablePointer<(strip: Strip?, adler: UInt, error: String?)>.allocate(capacity: range.count)
        results.initialize(repeating: (nil, 0, nil), count: range.count)
        defer { results.deallocate() }
        let level = Int32(level), strategy = zlibStrategy
        let fast = usesFastDeflate, bytesPerPixel = channels
        concurrentPerform(iterations: range.count) { k in
            let i = range.lowerBound + k
            let start = total * i / count, end = total * (i + 1) / count
            let input = base + (start - offset)
            if fast {
                let (data, produced) = FastDeflate.compress(input, end - start, distance: bytesPerPixel, final: i == count - 1)
                results[k] = (Strip(data: data, count: produced), adler32_z(1, input, end - start), nil)
                return
            }
            let dictionary = i == 0 ? 0 : min(Self.window, start)
            results[k] = Self.deflateStrip(
                input, end - start, dictionary: dictionary, finish: i == count - 1, level: level, strategy: strategy)
        }
        var strips: [(strip: Strip, adler: UInt)] = []
        var failure: String?
        for k in 0..<range.count {
            if let s = results[k].strip { strips.append((s, results[k].adler)) }
            failure = failure ?? results[k].error
        }
        if let failure {
            for s in strips { s.strip.data.deallocate() }
            throw .encodeFailed(name: name, format: .png, reason: failure)
        }
        return strips
    }

    /// One raw deflate stream of `count` bytes at `input`; the `dictionary` bytes before `input`
    /// prime the window. Ends with a sync flush (byte-aligned, not final) unless `finish`.
    static func deflateStrip(
        _ input: UnsafePointer<UInt8>, _ count: Int, dictionary: Int, finish: Bool, level: Int32, strategy: Int32
    ) -> (strip: Strip?, adler: UInt, error: String?) {
        var z = z_stream()
        // memLevel 8: libpng's and zlib's default; 9 measured no faster at level 1.
        guard pb_deflate_init_raw(&z, level, 8, strategy) == Z_OK else { return (nil, 0, "zlib: out of memory") }
        defer { deflateEnd(&z) }
        if dictionary > 0, level > 0 {
            guard deflateSetDictionary(&z, input - dictionary, UInt32(dictionary)) == Z_OK else {
                return (nil, 0, "zlib: cannot set the dictionary")
            }
        }
        var capacity = Int(deflateBound(&z, UInt(count))) + 64
        var out = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity)
        var produced = 0
        var remaining = count
        var next = UnsafeMutablePointer(mutating: input)
        let piece = 1 << 30  // avail_in is 32-bit
        while true {
            if z.avail_in == 0 && remaining > 0 {
                let take = min(piece, remaining)
                z.next_in = next
                z.avail_in = UInt32(take)
                next += take
                remaining -= take
            }
            if produced == capacity {
                let bigger = UnsafeMutablePointer<UInt8>.allocate(capacity: capacity * 2)
                bigger.update(from: out, count: produced)
                out.deallocate()
                out = bigger
                capacity *= 2
            }
            z.next_out = out + produced
            let room = min(capacity - produced, piece)
            z.avail_out = UInt32(room)
            let flush = remaining > 0 ? Z_NO_FLUSH : (finish ? Z_FINISH : Z_SYNC_FLUSH)
            let status = CZlib.deflate(&z, flush)
            produced += room - Int(z.avail_out)
            if status == Z_STREAM_ERROR {
                out.deallocate()
                return (nil, 0, "zlib: deflate failed")
            }
            if flush == Z_FINISH {
                if status == Z_STREAM_END { break }
            } else if flush == Z_SYNC_FLUSH, z.avail_in == 0, z.avail_out > 0 {
                break
            }
        }
        let adler = adler32_z(1, input, Int(count))
        return (Strip(data: out, count: produced), adler, nil)
    }

    // MARK: Container

    /// Signature, IHDR, the zlib stream in IDAT chunks of `chunkSize`, IEND.
    private func assemble(_ streams: Streams) -> [UInt8] {
        // The zlib stream as segments: header, strips, Adler-32 trailer (big-endian).
        let header = zlibHeader
        let trailer = Self.zlibTrailer(adler: streams.adler)
        var segments: [(UnsafePointer<UInt8>, Int)] = []
        let zlibLength = 2 + streams.strips.reduce(0) { $0 + $1.count } + 4
        let chunkCount = (zlibLength + chunkSize - 1) / chunkSize
        let fileLength = 8 + 25 + chunkCount * 12 + zlibLength + 12
        return header.withUnsafeBufferPointer { h in
            trailer.withUnsafeBufferPointer { t in
                segments.append((h.baseAddress!, 2))
                for s in streams.strips { segments.append((UnsafePointer(s.data), s.count)) }
                segments.append((t.baseAddress!, 4))
                return [UInt8](unsafeUninitializedCapacity: fileLength) { file, initialized in
                    let f = file.baseAddress!
                    (f).update(from: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], count: 8)
                    var ihdr = [UInt8]()
                    ihdr.reserveCapacity(13)
                    Self.appendBigEndian(UInt32(width), to: &ihdr)
                    Self.appendBigEndian(UInt32(height), to: &ihdr)
                    ihdr += [8, colorType, 0, 0, 0]
                    Self.writeChunk("IHDR", at: f + 8) { $0.update(from: ihdr, count: 13); return 13 }
                    let segs = segments
                    concurrentPerform(iterations: chunkCount) { k in
                        let from = k * chunkSize, to = min(zlibLength, from + chunkSize)
                        Self.writeChunk("IDAT", at: f + 33 + k * (chunkSize + 12)) { data in
                            Self.copy(segs, from..<to, into: data)
                            return to - from
                        }
                    }
                    Self.writeChunk("IEND", at: f + fileLength - 12) { _ in 0 }
                    initialized = fileLength
                }
            }
        }
    }

    /// The zlib stream's header: deflate with a 32 KB window; FLEVEL says how hard the
    /// compressor tried.
    var zlibHeader: [UInt8] {
        let flevel: UInt16 = level < 2 ? 0 : level < 6 ? 1 : level == 6 ? 2 : 3
        var cmfflg: UInt16 = 0x78 << 8 | flevel << 6
        if cmfflg % 31 != 0 { cmfflg += 31 - cmfflg % 31 }
        return [UInt8(cmfflg >> 8), UInt8(cmfflg & 0xFF)]
    }

    /// The zlib stream's trailer: the Adler-32 of the filtered image, big-endian.
    static func zlibTrailer(adler: UInt) -> [UInt8] {
        let a = UInt32(truncatingIfNeeded: adler)
        return [UInt8(a >> 24), UInt8(a >> 16 & 0xFF), UInt8(a >> 8 & 0xFF), UInt8(a & 0xFF)]
    }

    /// Writes length, type, what `body` writes (returning its length) and the CRC at `at`.
    static func writeChunk(
        _ type: StaticString, at p: UnsafeMutablePointer<UInt8>, _ body: (UnsafeMutablePointer<UInt8>) -> Int
    ) {
        let typeBytes = type.utf8Start
        for i in 0..<4 { p[4 + i] = typeBytes[i] }
        let length = body(p + 8)
        storeBigEndian(UInt32(length), at: p)
        let crc = crc32_z(0, p + 4, 4 + length)
        storeBigEndian(UInt32(truncatingIfNeeded: crc), at: p + 8 + length)
    }

    /// Copies bytes `range` of the concatenated `segments` to `out`.
    private static func copy(_ segments: [(UnsafePointer<UInt8>, Int)], _ range: Range<Int>, into out: UnsafeMutablePointer<UInt8>) {
        var offset = 0
        var written = 0
        for (p, n) in segments {
            let lo = max(range.lowerBound, offset), hi = min(range.upperBound, offset + n)
            if lo < hi {
                (out + written).update(from: p + (lo - offset), count: hi - lo)
                written += hi - lo
            }
            offset += n
            if offset >= range.upperBound { break }
        }
    }

    static func storeBigEndian(_ v: UInt32, at p: UnsafeMutablePointer<UInt8>) {
        p[0] = UInt8(v >> 24)
        p[1] = UInt8(v >> 16 & 0xFF)
        p[2] = UInt8(v >> 8 & 0xFF)
        p[3] = UInt8(v & 0xFF)
    }

    static func appendBigEndian(_ v: UInt32, to bytes: inout [UInt8]) {
        bytes += [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)]
    }
}

extension PNGFilter {
    /// The PNG filter type byte of a single-filter choice.
    var type: UInt8 {
        switch self {
        case .none, .adaptive: return 0
        case .sub: return 1
        case .up: return 2
        case .average: return 3
        case .paeth: return 4
        }
    }
}
