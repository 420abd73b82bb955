// `picturebook serve --prune-cache`: the cache only ever grows (a changed scan, a changed
// parameter, a removed book each leave their old files behind), so on request it is swept at
// start. Only names the reader itself writes are touched, so a cache folder pointed at a folder
// holding anything else loses nothing else.

import FileIO
import Foundation

/// What a prune removed.
public struct CachePruneReport: Sendable, Equatable {
    public var files = 0
    public var bytes: Int64 = 0
}

extension ReaderServer {
    /// Removes from the cache folder the files of books no longer in the library, files not
    /// used for `days` days (their modification time is refreshed on use, at most daily) and
    /// temporary files left by an interrupted write more than a day ago.
    public func pruneCache(unusedForDays days: Int = 30) async -> CachePruneReport {
        await pruneCache(unusedForDays: days, now: Date())
    }

    func pruneCache(unusedForDays days: Int, now: Date) async -> CachePruneReport {
        let current = Set(await library.all().map { AssetStore.safeName($0.id) })
        let root = store.cacheDirectory
        let fm = FileManager.default
        let unusedCutoff = now.addingTimeInterval(-Double(days) * 86_400)
        let tempCutoff = now.addingTimeInterval(-86_400)
        var report = CachePruneReport()

        func remove(_ path: String, olderThan cutoff: Date?) {
            guard let attrs = try? fm.attributesOfItem(atPath: path),
                  (attrs[.type] as? FileAttributeType) == .typeRegular else { return }
            if let cutoff, let modified = attrs[.modificationDate] as? Date, modified >= cutoff { return }
            guard (try? fm.removeItem(atPath: path)) != nil else { return }
            report.files += 1
            report.bytes += (attrs[.size] as? NSNumber)?.int64Value ?? 0
        }

        for folder in (try? fm.contentsOfDirectory(atPath: root)) ?? [] where Self.isCacheFolderName(folder) {
            let dir = root + "/" + folder
            guard FileIO.isDirectory(dir) else { continue }
            let gone = !current.contains(folder)
            for name in (try? fm.contentsOfDirectory(atPath: dir)) ?? [] {
                if Self.isCacheFileName(name) {
                    remove(dir + "/" + name, olderThan: gone ? nil : unusedCutoff)
                } else if name.hasPrefix("."), name.contains(".tmp-") {
                    remove(dir + "/" + name, olderThan: gone ? nil : tempCutoff)
                }
            }
            if gone, ((try? fm.contentsOfDirectory(atPath: dir)) ?? ["?"]).isEmpty { try? fm.removeItem(atPath: dir) }
        }
        return report
    }

    /// `<id letters>-<8 hex>`, as `AssetStore.safeName` makes them.
    static func isCacheFolderName(_ name: String) -> Bool {
        guard let dash = name.lastIndex(of: "-") else { return false }
        let tail = name[name.index(after: dash)...]
        return tail.count == 8 && tail.allSatisfy(\.isHexDigit) && dash > name.startIndex
    }

    /// `<16 hex>.jpg` or `.png`.
    static func isCacheFileName(_ name: String) -> Bool {
        let parts = name.split(separator: ".")
        return parts.count == 2 && ["jpg", "png"].contains(parts[1]) && parts[0].count == 16 && parts[0].allSatisfy(\.isHexDigit)
    }
}
