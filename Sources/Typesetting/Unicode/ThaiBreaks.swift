// Word breaks inside Thai (UAX #14 class SA): Thai writes no spaces between words, so the line
// breaker alone could only wrap at phrase ends. libthai's dictionary segmentation finds the word
// boundaries, which become break opportunities.

import CThai
import Foundation

enum ThaiBreaks {
    private static let lock = NSLock()
    // th_brk_new(nil) loads libthai's default dictionary; the breaker keeps state between
    // calls, so it is used under the lock.
    nonisolated(unsafe) private static let breaker: OpaquePointer? = th_brk_new(nil)

    /// Adds break opportunities between Thai words to `breaks` (count + 1 entries) for every
    /// run of Thai SA characters in `scalars`.
    static func addBreaks(_ scalars: [UInt32], _ breaks: inout [LineBreakOpportunity]) {
        let n = scalars.count
        var i = 0
        while i < n {
            guard isThaiSA(scalars[i]) else {
                i += 1
                continue
            }
            var j = i
            while j < n && (isThaiSA(scalars[j]) || UnicodeProperties.lineBreakClass(scalars[j]) == .CM && (0x0E00...0x0E7F).contains(scalars[j])) { j += 1 }
            if j - i >= 2 {
                for p in wordBoundaries(Array(scalars[i..<j])) where p > 0 && p < j - i {
                    if breaks[i + p] == .prohibited { breaks[i + p] = .allowed }
                }
            }
            i = j
        }
    }

    private static func isThaiSA(_ cp: UInt32) -> Bool {
        (0x0E00...0x0E7F).contains(cp) && UnicodeProperties.lineBreakClass(cp) == .SA
    }

    private static func wordBoundaries(_ run: [UInt32]) -> [Int] {
        guard let breaker else { return [] }
        var wide = run.map { wchar_t(bitPattern: $0) } + [0]
        var pos = [Int32](repeating: 0, count: run.count + 1)
        let count: Int32 = lock.withLock {
            th_brk_wc_find_breaks(breaker, &wide, &pos, pos.count)
        }
        return pos.prefix(Int(max(0, count))).map { Int($0) }
    }
}
