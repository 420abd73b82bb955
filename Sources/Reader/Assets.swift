// Page images: the scan as it is, or prepared (resized, cleared, cropped, thumbnailed) on first
// request and kept in an on-disk cache. A cached file's name is the hash of everything it is made
// from (the source's size and modification time, the boxes, the parameters), so a changed scan
// simply misses the cache and nothing stale is ever served.

import BookModel
import ClearText
import Codecs
import Dispatch
import FileIO
import Formats
import Foundation
import Geometry
import Preparation
import Raster

#if canImport(Glibc)
import Glibc
#endif

/// A bounded pool for CPU-heavy work, off the event loops: at most `width` jobs run at once on
/// a concurrent dispatch queue, the rest wait (without holding a thread) in arrival order.
final class WorkPool: @unchecked Sendable {
    private let queue = DispatchQueue(label: "picturebook.reader.work", qos: .userInitiated, attributes: .concurrent)
    private let lock = NSLock()
    private var running = 0
    private var waiting: [CheckedContinuation<Void, Never>] = []
    let width: Int
    /// Set for background work: its jobs run on threads of their own at a lower CPU priority.
    private let background: BackgroundThreads?

    /// `lowPriority`: for work nobody waits for (the editor remaking a saved page's images), which
    /// must not take the cores from requests — saves, page turns — on a small machine. Dispatch's
    /// QoS classes do not lower a thread's priority on Linux, so these are threads of their own.
    init(width: Int, lowPriority: Bool = false) {
        self.width = max(1, width)
        background = lowPriority ? BackgroundThreads(count: self.width) : nil
    }

    func run<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        await acquire()
        defer { release() }
        return try await withCheckedThrowingContinuation { c in
            if let background {
                background.submit { c.resume(with: Result { try work() }) }
            } else {
                queue.async { c.resume(with: Result { try work() }) }
            }
        }
    }

    private func acquire() async {
        let admitted: Bool = lock.withLock {
            if running < width { running += 1; return true }
            return false
        }
        if admitted { return }
        await withCheckedContinuation { c in
            let now: Bool = lock.withLock {
                if running < width { running += 1; return true }
                waiting.append(c)
                return false
            }
            if now { c.resume() }
        }
    }

    private func release() {
        let next: CheckedContinuation<Void, Never>? = lock.withLock {
            if waiting.isEmpty { running -= 1; return nil }
            return waiting.removeFirst()  // the slot passes straight to the next job
        }
        next?.resume()
    }
}

/// Threads that lower their own scheduling priority (nice +10) once, when they start, and then run
/// the jobs given to them in order. A thread's niceness cannot be raised back without privileges,
/// which is why these are not the shared dispatch threads.
final class BackgroundThreads: @unchecked Sendable {
    private let condition = NSCondition()
    private var jobs: [@Sendable () -> Void] = []

    init(count: Int) {
        for i in 0..<max(1, count) {
            let t = Thread { [self] in
                #if canImport(Glibc)
                // On Linux the nice value is per thread, and `who` 0 is the calling thread.
                _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, 10)
                #endif
                loop()
            }
            t.name = "picturebook.background.\(i)"
            t.start()
        }
    }

    func submit(_ job: @escaping @Sendable () -> Void) {
        condition.lock()
        jobs.append(job)
        condition.signal()
        condition.unlock()
    }

    private func loop() -> Never {
        while true {
            condition.lock()
            while jobs.isEmpty { condition.wait() }
            let job = jobs.removeFirst()
            condition.unlock()
            job()
        }
    }
}

/// A response body ready to send.
struct Asset: Sendable {
    let bytes: [UInt8]
    let contentType: String
    let etag: String
}

/// What a request for a page image names.
enum AssetRequest: Sendable, Hashable {
    case scan(width: Int?)
    case cleared(width: Int?)
    case thumb(scale: Int)
    case popout(boxID: String, scale: Double?)
    /// A IIIF Image API request: a region of the scan at a size (IIIFRoutes).
    case iiif(IIIFImageRequest)
}

enum AssetError: Error, CustomStringConvertible, Sendable {
    case notFound(String)
    case badRequest(String)
    case failed(String)

    var description: String {
        switch self {
        case .notFound(let m), .badRequest(let m), .failed(let m): return m
        }
    }
}

/// Creates each cache file once, however many requests ask for it at the same moment, and
/// remembers the ones that could not be made.
actor Preparations {
    private var running: [String: Task<Void, any Error>] = [:]
    /// Failures by cache path. The path is a hash of the source's size and modification time, so
    /// a fixed (rewritten) scan gets a new path and is tried again; an unchanged broken scan is
    /// not decoded again on every request (a grid of thumbnails would ask for it many times).
    private var failures: [String: String] = [:]
    static let failureLimit = 10_000
    /// How many cache files this process has made (tests check that a second request reuses).
    private(set) var made = 0
    /// How many preparations were attempted and failed (tests check that a failure is remembered).
    private(set) var failed = 0
    /// The cache's size bound, when one is set.
    let budget: CacheBudget?

    init(budget: CacheBudget? = nil) { self.budget = budget }

    func ensure(_ path: String, pool: WorkPool, make: @escaping @Sendable () throws -> [UInt8]) async throws {
        if let t = FileIO.modificationTime(path) {
            CacheUse.touchIfStale(path, modified: t)
            await budget?.used(path)
            return
        }
        if let message = failures[path] { throw AssetError.failed(message) }
        if let task = running[path] {
            try await task.value
            return
        }
        let task = Task {
            let size = try await pool.run {
                let bytes = try make()
                try AtomicFile.write(bytes, to: path)
                return bytes.count
            }
            await self.budget?.added(path, bytes: Int64(size))
        }
        running[path] = task
        defer { running[path] = nil }
        do {
            try await task.value
        } catch {
            // Only a source that cannot be made into the asset is remembered; a failed write
            // (a full disk, say) may well work next time.
            if let e = error as? AssetError { remember(path, e.description) }
            throw error
        }
        made += 1
    }

    /// The remembered failure for a key that is not a cache file (a scan's header).
    func failure(_ key: String) -> String? { failures[key] }
    func remember(_ key: String, _ message: String) {
        failed += 1
        if failures.count >= Self.failureLimit { failures.removeAll() }
        failures[key] = message
    }
}

/// Cache files record their last use in their modification time (refreshed at most once a day, so
/// a busy page costs no extra writes), which is what `--prune-cache` goes by.
enum CacheUse {
    static let refreshAfter: Int64 = 24 * 3600 * 1_000_000_000

    static func touchIfStale(_ path: String, modified: Int64, now: Int64 = nowNanoseconds()) {
        guard now - modified > refreshAfter else { return }
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path)
    }

    static func nowNanoseconds() -> Int64 { Int64(Date().timeIntervalSince1970 * 1e9) }
}

struct AssetStore: Sendable {
    static let widthLadder = [320, 480, 640, 960, 1280, 1600, 2048]
    /// The 1x thumbnail box (the 2x one is twice this); a double-page scan gets twice the width.
    static let thumbBox = (width: 160, height: 200)
    static let version = "reader-assets/2"

    let cacheDirectory: String
    let containment: Containment
    let pool: WorkPool
    let preparations: Preparations
    /// When each page was last changed in the editor: a book's own clear/ image older than that
    /// was cleared around the old boxes and is passed over for one made from the current ones.
    let edits = EditedPages()

    init(cacheDirectory: String, containment: Containment, pool: WorkPool, cacheLimit: Int64? = nil, protectFor: Double = 10) {
        self.cacheDirectory = cacheDirectory
        self.containment = containment
        self.pool = pool
        preparations = Preparations(budget: cacheLimit.map { CacheBudget(limit: $0, root: cacheDirectory, protectFor: protectFor) })
    }

    /// Reads a file the server is allowed to serve, off the event loop.
    func read(_ path: String) async throws -> [UInt8] {
        try await pool.run { try FileIO.read(path) }
    }

    /// Page `n` of `book`, its scan, its cache folder and the name errors give it.
    func located(page n: Int, of book: LoadedBook) throws -> (page: Page, source: String, folder: String, label: String) {
        guard n >= 1, n <= book.book.pages.count else { throw AssetError.notFound("\(book.id) has no page \(n)") }
        let page = book.book.pages[n - 1]
        return (page, book.pagePaths[n - 1], cacheDirectory + "/" + Self.safeName(book.id), "\(book.id) page \(n) (\(page.image))")
    }

    func asset(_ request: AssetRequest, page n: Int, of book: LoadedBook) async throws -> Asset {
        let (page, source, folder, label) = try located(page: n, of: book)
        let sourceKey = SourceKey.of(source)

        switch request {
        case .scan(let w):
            let info = try await scanInfo(source, sourceKey: sourceKey, label: label)
            // TIFF and JPEG 2000 scans are never sent as they are (browsers show neither): they
            // go through the JPEG path at full width.
            let target = w.map { Self.ladderWidth($0, scanWidth: info.orientedWidth) } ?? (info.format.isWebImage ? nil : info.orientedWidth)
            guard let width = target, !(width == info.orientedWidth && info.format == .jpeg && info.orientation == 1) else {
                let bytes = try await read(source)
                return Asset(bytes: bytes, contentType: Self.contentType(info.format), etag: ETag.of(key: "scan \(source) \(sourceKey)"))
            }
            return try await cached(folder: folder, key: "scan w=\(width) \(source) \(sourceKey)", ext: "jpg", label: label) {
                let image = try PagePreparation.fitted(file: source, maxWidth: width, maxHeight: 100_000, fastDecode: false)
                return try PagePreparation.jpeg(image, quality: 85, name: source)
            }

        case .thumb(let scale):
            let wide = page.width > page.height
            let bw = Self.thumbBox.width * scale * (wide ? 2 : 1), bh = Self.thumbBox.height * scale
            return try await cached(folder: folder, key: "thumb \(bw)x\(bh) \(source) \(sourceKey)", ext: "jpg", label: label) {
                let image = try PagePreparation.fitted(file: source, maxWidth: bw, maxHeight: bh)
                return try PagePreparation.jpeg(image, quality: 85, name: source)
            }

        case .cleared(let w):
            guard !page.textBoxes.isEmpty else { throw AssetError.notFound("\(label) has no text boxes, so nothing to clear") }
            let full = try await clearedFile(book: book, page: page, source: source, sourceKey: sourceKey, folder: folder, label: label)
            guard let w else {
                return Asset(bytes: try await read(full.path), contentType: "image/png", etag: ETag.of(key: full.key))
            }
            let width = Self.ladderWidth(w, scanWidth: page.width)
            let fullPath = full.path
            return try await cached(folder: folder, key: "cleared w=\(width) \(full.key)", ext: "jpg", label: label) {
                let image = try PagePreparation.fitted(file: fullPath, maxWidth: width, maxHeight: 100_000)
                return try PagePreparation.jpeg(image, quality: 85, name: fullPath)
            }

        case .iiif(let r):
            // Cut from the scan as decoded (EXIF-oriented, as info.json describes it); the request
            // was resolved against the page's size, which is the scan's.
            return try await cached(folder: folder, key: "iiif \(r.x),\(r.y),\(r.width),\(r.height) \(r.outputWidth)x\(r.outputHeight) \(source) \(sourceKey)", ext: "jpg", label: label) {
                let image = try PagePreparation.decode(source)
                guard r.x + r.width <= image.width, r.y + r.height <= image.height else {
                    throw AssetError.failed("\(label): the scan is \(image.width)×\(image.height), not the size book.json gives")
                }
                let cut = image.cropped(to: PixelRect(x: r.x, y: r.y, width: r.width, height: r.height))
                let sized = cut.width == r.outputWidth && cut.height == r.outputHeight ? cut : cut.resized(width: r.outputWidth, height: r.outputHeight)
                return try PagePreparation.jpeg(sized, quality: 90, name: source)
            }

        case .popout(let boxID, let scale):
            guard let box = page.textBoxes.first(where: { $0.id == boxID }) else {
                throw AssetError.notFound("\(label) has no text box '\(boxID)'")
            }
            var params = PopoutParameters()
            params.scale = scale
            do { try params.validate() } catch { throw AssetError.badRequest("scale: \(error)") }
            let rect = box.rect, fixed = params
            return try await cached(folder: folder, key: "popout \(boxID) \(rect) \(params) \(source) \(sourceKey)", ext: "png", label: label) {
                let image = try PagePreparation.decode(source)
                let crop = try PagePreparation.popout(page: image, box: rect, boxID: boxID, source: source, parameters: fixed)
                return try PagePreparation.png(crop, name: source)
            }
        }
    }

    /// The full-size cleared page: the book's own `clear/<stem>.png` from `picturebook clear`
    /// when it is newer than the scan and lies inside the books folder, else one made here.
    /// `madeHere` says which: the verdicts on the boxes of an image made here are in the image
    /// (``Clearance``), those of the book's own in book.json.
    func clearedFile(
        book: LoadedBook, page: Page, source: String, sourceKey: String, folder: String, label: String
    ) async throws -> (path: String, key: String, madeHere: Bool) {
        let stem = BookDirectory.stem(of: page.image)
        let own = book.directory + "/clear/" + stem + ".png"
        if let scanTime = FileIO.modificationTime(source), let t = FileIO.modificationTime(own), t >= scanTime,
           t >= edits.time(of: source),
           let inside = containment.inside(own)
        {
            return (inside, "own-cleared \(inside) \(SourceKey.of(inside))", false)
        }
        let maskFile = BookDirectory.maskFolder(in: book.directory) + "/" + stem + ".png"
        let usableMask = containment.inside(maskFile)
        let maskKey = usableMask.map(SourceKey.of) ?? "none"
        let boxes = ClearingBoxes(page.textBoxes)
        // "cleared/2": the image carries its verdicts (an image from before them is made again).
        let key = "cleared/2 \(InFillParameters()) \(InkMaskParameters()) \(FillCheckParameters()) \(source) \(sourceKey) mask:\(maskKey) \(boxes.key)"
        let path = try await ensure(folder: folder, key: key, ext: "png", label: label) {
            let image = try PagePreparation.decode(source)
            let result = try PageClearing.clear(page: image, boxes: boxes.rects, vertical: boxes.vertical, lightInk: boxes.lightInk, maskFile: usableMask, source: source, infill: InFill())
            return try Clearance.stamp(try PagePreparation.png(result.image, name: source), flagged: result.glyphs.map(\.needsReview), reasons: result.reviewReasons)
        }
        return (path, key, true)
    }

    /// Set around work nobody waits for (the editor's remaking of a saved page's images): the
    /// images are made on this pool instead of the one requests use.
    @TaskLocal static var backgroundPool: WorkPool?

    private func ensure(folder: String, key: String, ext: String, label: String, make: @escaping @Sendable () throws -> [UInt8]) async throws -> String {
        let pool = Self.backgroundPool ?? pool
        let path = folder + "/" + ETag.of(key: Self.version + " " + key).trimmingCharacters(in: CharacterSet(charactersIn: "\"")) + "." + ext
        do {
            if !FileIO.isDirectory(folder) { try FileIO.createDirectory(folder) }
            try await preparations.ensure(path, pool: pool) {
                do { return try make() } catch let e as AssetError { throw e } catch {
                    throw AssetError.failed("cannot prepare \(label): \(error)")
                }
            }
        } catch let e as AssetError {
            throw e
        } catch {
            throw AssetError.failed("cannot prepare \(label): \(error)")
        }
        return path
    }

    private func cached(folder: String, key: String, ext: String, label: String, make: @escaping @Sendable () throws -> [UInt8]) async throws -> Asset {
        var path = try await ensure(folder: folder, key: key, ext: ext, label: label, make: make)
        var bytes: [UInt8]? = try? await read(path)
        if bytes == nil {
            // Removed by the cache bound between being found and being read: made again.
            path = try await ensure(folder: folder, key: key, ext: ext, label: label, make: make)
            bytes = try? await read(path)
        }
        guard let bytes else { throw AssetError.failed("cannot read the prepared \(label)") }
        return Asset(bytes: bytes, contentType: ext == "png" ? "image/png" : "image/jpeg", etag: ETag.of(key: Self.version + " " + key))
    }

    /// A scan's header, with an unreadable one remembered like a failed preparation.
    private func scanInfo(_ path: String, sourceKey: String, label: String) async throws -> ImageInfo {
        let key = "info \(path) \(sourceKey)"
        if let message = await preparations.failure(key) { throw AssetError.failed(message) }
        do { return try Self.info(path, label: label) } catch {
            await preparations.remember(key, (error as? AssetError)?.description ?? "\(error)")
            throw error
        }
    }

    static func info(_ path: String, label: String) throws -> ImageInfo {
        do { return try ImageDecoder.info(file: path) } catch {
            throw AssetError.failed("cannot read \(label): \(error)")
        }
    }

    static func contentType(_ f: ImageFormat) -> String { f == .png ? "image/png" : "image/jpeg" }

    /// The smallest ladder width ≥ `w`, never more than the scan.
    static func ladderWidth(_ w: Int, scanWidth: Int) -> Int {
        let step = widthLadder.first { $0 >= w } ?? widthLadder.last!
        return min(step, scanWidth)
    }

    /// A book id as a cache folder name: letters, digits, '-' and '_' kept, plus a hash so two
    /// ids that differ only in other characters do not share a folder.
    static func safeName(_ id: String) -> String {
        let kept = String(id.unicodeScalars.filter { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }.prefix(60))
        let h = ETag.of(key: id).trimmingCharacters(in: CharacterSet(charactersIn: "\"")).prefix(8)
        return (kept.isEmpty ? "book" : kept) + "-" + h
    }
}

/// Edit times by scan path, in nanoseconds since 1970 (see `AssetStore.edits`).
final class EditedPages: @unchecked Sendable {
    private let lock = NSLock()
    private var times: [String: Int64] = [:]

    func time(of scan: String) -> Int64 { lock.withLock { times[scan] ?? Int64.min } }

    func record(_ scan: String, at t: Int64) {
        lock.withLock { times[scan] = max(times[scan] ?? Int64.min, t) }
    }
}
