// `serve --cache-size`: the prepared-image cache has a size bound. Request parameters are already
// quantised (ladder widths, half-step popout scales), so one book has a bounded number of cache
// files; but a library of many books, or many edits that each leave old files behind, still grows
// without end. The budget keeps a running total of the cache folder and, when a new file takes it
// past the bound, removes the files used least recently until it is back under 90 % of it.
//
// Last use is kept in memory (seeded from each file's modification time at start, which
// `CacheUse` refreshes daily), so a hit costs no disk write. Files used in the last few seconds
// are not removed: a request that has just been told a file exists is about to read it (and one
// that still finds it gone makes it again). So the bound can be passed by what was made in those
// seconds, never by more.

import FileIO
import Foundation

actor CacheBudget {
    struct Entry {
        var bytes: Int64
        var lastUse: Date
    }

    let limit: Int64
    let root: String
    private var entries: [String: Entry] = [:]
    private(set) var total: Int64 = 0
    /// How many files the budget has removed (tests and `--verbose` report it).
    private(set) var evicted = 0
    private var loaded = false
    /// Files used this recently are kept even when the cache is over its bound.
    let protectFor: TimeInterval

    init(limit: Int64, root: String, protectFor: TimeInterval = 10) {
        self.limit = limit
        self.root = root
        self.protectFor = protectFor
    }

    /// The cache as it is on disk: every file the reader itself names, one level of book folders
    /// deep. Run once, before the first file is added.
    func loadIfNeeded() {
        guard !loaded else { return }
        loaded = true
        let fm = FileManager.default
        for folder in (try? fm.contentsOfDirectory(atPath: root)) ?? [] where ReaderServer.isCacheFolderName(folder) {
            let dir = root + "/" + folder
            for name in (try? fm.contentsOfDirectory(atPath: dir)) ?? [] where ReaderServer.isCacheFileName(name) {
                let path = dir + "/" + name
                guard let attrs = try? fm.attributesOfItem(atPath: path),
                      (attrs[.type] as? FileAttributeType) == .typeRegular else { continue }
                let size = (attrs[.size] as? NSNumber)?.int64Value ?? 0
                let modified = attrs[.modificationDate] as? Date ?? .distantPast
                entries[path] = Entry(bytes: size, lastUse: modified)
                total += size
            }
        }
    }

    /// A cache hit: the file moves to the back of the eviction queue.
    func used(_ path: String, now: Date = Date()) {
        loadIfNeeded()
        if entries[path] != nil { entries[path]?.lastUse = now }
    }

    /// A file was just written; removes old ones if the cache is now over its bound.
    func added(_ path: String, bytes: Int64, now: Date = Date()) {
        loadIfNeeded()
        if let old = entries[path] { total -= old.bytes }
        entries[path] = Entry(bytes: bytes, lastUse: now)
        total += bytes
        if total > limit { evict(now: now, keeping: path) }
    }

    private func evict(now: Date, keeping newest: String) {
        let target = limit / 10 * 9
        let cutoff = now.addingTimeInterval(-protectFor)
        let candidates = entries.filter { $0.key != newest && $0.value.lastUse <= cutoff }.sorted { $0.value.lastUse < $1.value.lastUse }
        for (path, entry) in candidates {
            if total <= target { break }
            // A file already gone (pruned by hand, say) is only forgotten.
            let removed = unlink(path) == 0
            if removed || errno == ENOENT {
                entries[path] = nil
                total -= entry.bytes
                if removed { evicted += 1 }
            }
        }
    }

    /// Parses a size such as `2G`, `500M`, `750MiB`, `1.5GB` or a plain number of bytes.
    static func parseSizeText(_ text: String) -> Int64? {
        let t = text.trimmingCharacters(in: .whitespaces).uppercased()
        var number = t
        var unit: Double = 1
        let k: Double = 1024
        // Longest suffixes first, so "MIB" is not read as "B".
        let units: [(String, Double)] = [
            ("KIB", k), ("MIB", k * k), ("GIB", k * k * k), ("TIB", k * k * k * k),
            ("KB", k), ("MB", k * k), ("GB", k * k * k), ("TB", k * k * k * k),
            ("K", k), ("M", k * k), ("G", k * k * k), ("T", k * k * k * k), ("B", 1),
        ]
        for (suffix, factor) in units
        where t.hasSuffix(suffix) {
            number = String(t.dropLast(suffix.count)).trimmingCharacters(in: .whitespaces)
            unit = factor
            break
        }
        guard let v = Double(number), v.isFinite, v >= 0, v * unit < 9.0e18 else { return nil }
        return Int64(v * unit)
    }
}

extension ReaderConfiguration {
    /// `--cache-size`: `2G`, `500M`, `750MiB`, `1.5GB` or a number of bytes.
    public static func parseSize(_ text: String) -> Int64? { CacheBudget.parseSizeText(text) }
}
