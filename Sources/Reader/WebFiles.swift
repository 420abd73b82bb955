// The app's own files: index.html and /static/*. Served from the copy bundled with the program,
// or with --web-root from a folder read on every request (edit, reload). Either way a request
// names a file only through a listing of the folder, never by joining the path.

import FileIO
import Foundation

struct WebFile: Sendable {
    let bytes: [UInt8]
    let type: String
    let etag: String
}

struct WebFiles: Sendable {
    /// Files read once at start (the bundled app).
    let fixed: [String: WebFile]
    /// A folder listed and read on each request.
    let liveRoot: String?

    init(liveRoot: String) {
        fixed = [:]
        self.liveRoot = liveRoot
    }

    private init(fixed: [String: WebFile]) {
        self.fixed = fixed
        liveRoot = nil
    }

    static func bundled() -> WebFiles {
        guard let base = Bundle.module.resourceURL?.appendingPathComponent("Web").path, FileIO.isDirectory(base) else {
            return WebFiles(fixed: [:])
        }
        var files: [String: WebFile] = [:]
        for name in listing(base) {
            if let bytes = try? FileIO.read(base + "/" + name) { files[name] = make(name, bytes) }
        }
        return WebFiles(fixed: files)
    }

    func file(_ name: String, pool: WorkPool) async throws -> WebFile? {
        guard let liveRoot else { return fixed[name] }
        guard listing(liveRoot).contains(name) else { return nil }
        let path = liveRoot + "/" + name
        // A symlink inside the web root may point anywhere; only what resolves inside is served.
        guard let resolved = Containment.resolve(path), resolved.hasPrefix(liveRoot + "/") else { return nil }
        let bytes = try await pool.run { try FileIO.read(resolved) }
        return Self.make(name, bytes)
    }

    private func listing(_ root: String) -> Set<String> { Self.listing(root) }

    /// Relative paths of the regular files under `root`, hidden files skipped.
    static func listing(_ root: String) -> Set<String> {
        let all = (try? FileManager.default.subpathsOfDirectory(atPath: root)) ?? []
        return Set(all.filter { p in
            !p.split(separator: "/").contains { $0.hasPrefix(".") } && !FileIO.isDirectory(root + "/" + p)
        })
    }

    static func make(_ name: String, _ bytes: [UInt8]) -> WebFile {
        WebFile(bytes: bytes, type: contentType(name), etag: ETag.of(bytes))
    }

    static let types: [String: String] = [
        "html": "text/html; charset=utf-8", "js": "text/javascript; charset=utf-8", "mjs": "text/javascript; charset=utf-8",
        "css": "text/css; charset=utf-8", "json": "application/json; charset=utf-8", "svg": "image/svg+xml",
        "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg", "webp": "image/webp", "ico": "image/x-icon",
        "woff2": "font/woff2", "woff": "font/woff", "ttf": "font/ttf", "otf": "font/otf", "txt": "text/plain; charset=utf-8",
        "webmanifest": "application/manifest+json", "map": "application/json; charset=utf-8",
    ]

    static func contentType(_ name: String) -> String {
        guard let dot = name.lastIndex(of: ".") else { return "application/octet-stream" }
        return types[name[name.index(after: dot)...].lowercased()] ?? "application/octet-stream"
    }
}
