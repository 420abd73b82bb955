// Lookups into the generated run tables (UnicodeTables.generated.swift).

/// UAX #14 line break classes. The first 43 are the Unicode classes in the order the generator
/// numbers them; the last three are pseudo classes that fold in the extra facts LB30 and LB30b
/// need (East Asian width of brackets, unassigned pictographs).
enum LineBreakClass: UInt8, CaseIterable, Sendable {
    case BK, CR, LF, NL, SP, ZW, CM, ZWJ, WJ, GL, BA, BB, B2, HY, CB
    case CL, CP, EX, IN, NS, OP, QU, IS, NU, PO, PR, SY, AL, HL, ID
    case EB, EM, H2, H3, JL, JV, JT, RI, SA, AI, CJ, SG, XX
    case OPW, CPW, IDX
}

/// A decoded run table: parallel arrays of run starts and values, searched by bisection.
struct RunTable: Sendable {
    let starts: [UInt32]
    let values: [UInt8]
    /// The first 256 code points resolved directly; most text never leaves them.
    let low: [UInt8]

    init(_ chunks: [String]) {
        var starts: [UInt32] = []
        var values: [UInt8] = []
        for chunk in chunks {
            let bytes = Array(chunk.utf8)
            var i = 0
            while i + 8 <= bytes.count {
                var start: UInt32 = 0
                for k in 0..<6 { start = start << 4 | UInt32(RunTable.hex(bytes[i + k])) }
                values.append(RunTable.hex(bytes[i + 6]) << 4 | RunTable.hex(bytes[i + 7]))
                starts.append(start)
                i += 8
            }
        }
        self.starts = starts
        self.values = values
        var low = [UInt8](repeating: 0, count: 256)
        var r = 0
        for cp in 0..<256 {
            while r + 1 < starts.count && starts[r + 1] <= UInt32(cp) { r += 1 }
            low[cp] = values[r]
        }
        self.low = low
    }

    private static func hex(_ c: UInt8) -> UInt8 { c <= 57 ? c - 48 : c - 55 }

    @inline(__always)
    func value(_ cp: UInt32) -> UInt8 {
        if cp < 256 { return low[Int(cp)] }
        return starts.withUnsafeBufferPointer { s in
            var lo = 0, hi = s.count - 1
            while lo < hi {
                let mid = (lo + hi + 1) >> 1
                if s[mid] <= cp { lo = mid } else { hi = mid - 1 }
            }
            return values[lo]
        }
    }
}

enum UnicodeProperties {
    static let lineBreakTable = RunTable(UnicodeTables.lineBreakRuns)
    static let scriptTable = RunTable(UnicodeTables.scriptRuns)

    static func lineBreakClass(_ cp: UInt32) -> LineBreakClass {
        LineBreakClass(rawValue: lineBreakTable.value(cp)) ?? .XX
    }

    /// Index into `UnicodeTables.scriptCodes` (0 Unknown, 1 Common, 2 Inherited).
    static func scriptIndex(_ cp: UInt32) -> UInt8 { scriptTable.value(cp) }
}
