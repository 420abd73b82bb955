// Reading and writing whole files safely. Every output Picturebook writes goes through
// `AtomicFile.write`, so a crash, a full disk or Ctrl-C never leaves a half-written file where a
// good one (or none) was: readers see either the old file or the complete new one.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What went wrong reading or writing a file, with the path in every message.
public enum FileError: Error, CustomStringConvertible, Equatable {
    case notFound(path: String)
    case isDirectory(path: String)
    case tooLarge(path: String, bytes: Int, limit: Int)
    case readFailed(path: String, reason: String)
    case writeFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case .notFound(let p): return "\(p): no such file"
        case .isDirectory(let p): return "\(p): is a directory, expected a file"
        case .tooLarge(let p, let n, let limit): return "\(p): file is \(n) bytes, larger than the \(limit)-byte limit"
        case .readFailed(let p, let r): return "\(p): cannot read: \(r)"
        case .writeFailed(let p, let r): return "\(p): cannot write: \(r)"
        }
    }

    public var path: String {
        switch self {
        case .notFound(let p), .isDirectory(let p), .tooLarge(let p, _, _), .readFailed(let p, _), .writeFailed(let p, _): return p
        }
    }
}

private func errnoText(_ code: Int32 = errno) -> String { String(cString: strerror(code)) }

public enum FileIO {
    /// Default ceiling for a single input file (1 GiB): a scan larger than that is not a page.
    public static let defaultReadLimit = 1 << 30

    /// Reads a whole regular file. Refuses directories, FIFOs and files over `limit` bytes.
    public static func read(_ path: String, limit: Int = defaultReadLimit) throws(FileError) -> [UInt8] {
        let (fd, size) = try openRegular(path)
        defer { close(fd) }
        guard size <= limit else { throw .tooLarge(path: path, bytes: size, limit: limit) }
        return try readAll(fd, size: size, path: path)
    }

    /// The rest of an open file from its current offset, expected to be `size` bytes (fewer when
    /// it shrank meanwhile); `path` names it in errors.
    public static func readAll(_ fd: Int32, size: Int, path: String) throws(FileError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: size)
        var done = 0
        while done < size {
            let n = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + done, size - done) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .readFailed(path: path, reason: errnoText())
            }
            if n == 0 { break }  // shrank while we read: return what is there
            done += n
        }
        if done < size { bytes.removeLast(size - done) }
        return bytes
    }

    /// The first `count` bytes of a regular file (fewer when it is shorter), to tell its format
    /// without reading a multi-gigabyte scan document whole.
    public static func readPrefix(_ path: String, count: Int) throws(FileError) -> [UInt8] {
        let (fd, _) = try openRegular(path)
        defer { close(fd) }
        return try readPrefix(fd, count: count, path: path)
    }

    /// The first `count` bytes of an open file (fewer when it is shorter), read with pread so the
    /// descriptor's offset stays at 0 for whoever reads it next; `path` names it in errors.
    public static func readPrefix(_ fd: Int32, count: Int, path: String) throws(FileError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: max(0, count))
        var done = 0
        while done < bytes.count {
            let n = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress! + done, $0.count - done, off_t(done)) }
            if n < 0 {
                if errno == EINTR { continue }
                throw .readFailed(path: path, reason: errnoText())
            }
            if n == 0 { break }
            done += n
        }
        bytes.removeLast(bytes.count - done)
        return bytes
    }

    /// The size of a regular file, refused by the same rules as reading it (a FIFO, a directory).
    public static func regularFileSize(_ path: String) throws(FileError) -> Int {
        let (fd, size) = try openRegular(path)
        close(fd)
        return size
    }

    /// Opens a regular file for reading; its descriptor (the caller closes it) and size.
    /// Directories, FIFOs, sockets and devices are refused by what they are.
    public static func openRegular(_ path: String) throws(FileError) -> (Int32, Int) {
        // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer forever (a pipe
        // named like a scan hung `info` and the server's book list). Regular files ignore the flag.
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        guard fd >= 0 else {
            let e = errno
            if e == ENOENT { throw .notFound(path: path) }
            throw .readFailed(path: path, reason: errnoText(e))
        }
        var st = stat()
        guard fstat(fd, &st) == 0 else {
            let reason = errnoText()
            close(fd)
            throw .readFailed(path: path, reason: reason)
        }
        let kind = st.st_mode & S_IFMT
        guard kind == S_IFREG else {
            close(fd)
            if kind == S_IFDIR { throw .isDirectory(path: path) }
            throw .readFailed(path: path, reason: "not a regular file (a pipe, socket or device)")
        }
        return (fd, Int(st.st_size))
    }

    /// True when `path` names an existing file or directory (following symlinks).
    public static func exists(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0
    }

    public static func isDirectory(_ path: String) -> Bool {
        var st = stat()
        return stat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFDIR
    }

    /// Modification time in nanoseconds since 1970, or nil when the file does not exist.
    public static func modificationTime(_ path: String) -> Int64? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return Int64(st.st_mtim.tv_sec) * 1_000_000_000 + Int64(st.st_mtim.tv_nsec)
    }

    /// True when `path` itself is a symbolic link (not followed).
    public static func isSymbolicLink(_ path: String) -> Bool {
        var st = stat()
        return lstat(path, &st) == 0 && (st.st_mode & S_IFMT) == S_IFLNK
    }

    /// `folder/name` for a file name made from untrusted data (a book's ids and image names),
    /// refused unless it is one plain name: no '/', no NUL, not "." or "..". So an output built from
    /// a book can never land outside the folder it is meant for.
    public static func child(_ name: String, of folder: String) throws(FileError) -> String {
        guard !name.isEmpty, name != ".", name != "..", !name.contains("/"), !name.contains("\0") else {
            let shown = name.map { $0 == "\0" ? "\\0" : String($0) }.joined()
            throw .writeFailed(path: folder, reason: "\"\(shown)\" is not a plain file name; refusing to write outside the folder")
        }
        return folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// Creates an output folder that a book's own data chose (its `clear`, `popout`, `masks`
    /// folders): a symbolic link there is refused rather than followed, since a crafted book could
    /// point it anywhere.
    public static func createOwnedDirectory(_ path: String) throws(FileError) {
        if isSymbolicLink(path) {
            throw .writeFailed(path: path, reason: "is a symbolic link; refusing to write through it (remove it, or give an output folder explicitly)")
        }
        try createDirectory(path)
    }

    /// Creates `path` and any missing parents (like `mkdir -p`).
    public static func createDirectory(_ path: String) throws(FileError) {
        if isDirectory(path) { return }
        var prefix = path.hasPrefix("/") ? "/" : ""
        for part in path.split(separator: "/", omittingEmptySubsequences: true) {
            prefix += part + "/"
            if mkdir(prefix, 0o777) != 0 && errno != EEXIST {
                throw .writeFailed(path: path, reason: errnoText())
            }
        }
        guard isDirectory(path) else { throw .writeFailed(path: path, reason: "exists and is not a directory") }
    }
}

/// Atomic whole-file writes: the bytes go to a temporary file in the same directory, are flushed
/// to disk, and the temporary file is renamed over the destination.
public enum AtomicFile {
    /// `mode`, when given, is the file's permission bits exactly (say 0600 for a file of password
    /// hashes, which must never be readable by others, not even for a moment); otherwise the
    /// usual 0666 less the umask.
    public static func write(_ bytes: some Collection<UInt8>, to path: String, mode: UInt32? = nil) throws(FileError) {
        let (fd, tmp) = try temporary(for: path)
        var ok = false
        defer {
            if !ok { unlink(tmp) }
        }
        let contiguous = Array(bytes)
        var done = 0
        while done < contiguous.count {
            let n = contiguous.withUnsafeBytes { Glibc.write(fd, $0.baseAddress! + done, contiguous.count - done) }
            if n < 0 {
                if errno == EINTR { continue }
                let reason = errnoText()
                close(fd)
                throw .writeFailed(path: path, reason: reason)
            }
            done += n
        }
        // mkstemp creates 0600; outputs are ordinary files the user and web server read.
        if let mode {
            fchmod(fd, mode_t(mode))
        } else {
            let mask = umask(0)
            umask(mask)
            fchmod(fd, 0o666 & ~mask)
        }
        guard fsync(fd) == 0, close(fd) == 0 else { throw .writeFailed(path: path, reason: errnoText()) }
        guard rename(tmp, path) == 0 else { throw .writeFailed(path: path, reason: errnoText()) }
        ok = true
    }

    /// A new temporary file beside `path` (same directory, so the final rename is atomic): its
    /// descriptor, open for writing, and its path.
    static func temporary(for path: String) throws(FileError) -> (Int32, String) {
        let dir: String
        if let slash = path.lastIndex(of: "/") {
            dir = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            dir = "."
        }
        if FileIO.isDirectory(path) { throw .isDirectory(path: path) }
        guard FileIO.isDirectory(dir) else { throw .writeFailed(path: path, reason: "directory \(dir) does not exist") }
        let base = path.split(separator: "/").last.map(String.init) ?? "out"
        // The writer's pid is in the name, so a later run can tell a temp file whose writer was
        // killed (removeStale) from one being written right now.
        var template = Array("\(dir)/.\(base).tmp-\(getpid())-XXXXXX".utf8CString)
        let fd = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard fd >= 0 else { throw .writeFailed(path: path, reason: errnoText()) }
        return (fd, template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })
    }

    /// Removes temp files that killed writers left in `directory`: ours (".NAME.tmp-PID-XXXXXX")
    /// whose writer is no longer running on this machine and that are over 10 minutes old (no
    /// single write takes that long, and the age keeps a writer on another machine sharing the
    /// folder safe), and any over a day old. A temp over 10 minutes old that names this process
    /// is a dead writer's too (an earlier process that had the same pid, as a server restarted
    /// in a container often does): none of our own writes takes that long. With `exclusive` —
    /// the caller holds a lock that keeps every other writer out of the folder, like `prepare`'s
    /// book lock — every temp file there is a dead writer's and goes, whatever its age. `named`
    /// limits it to the temps of that one file. Returns the names removed.
    @discardableResult
    public static func removeStale(in directory: String, exclusive: Bool = false, named: String? = nil) -> [String] {
        let now = time(nil)
        guard let dir = opendir(directory) else { return [] }
        defer { closedir(dir) }
        var removed: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            let bytes = Array(name.utf8), marker = Array(".tmp-".utf8)
            guard bytes.first == UInt8(ascii: "."), bytes.count > marker.count,
                  let at = (0...(bytes.count - marker.count)).last(where: { Array(bytes[$0..<($0 + marker.count)]) == marker })
            else { continue }
            if let named, !name.hasPrefix(".\(named).tmp-") { continue }
            let tail = String(decoding: bytes[(at + marker.count)...], as: UTF8.self).split(separator: "-")
            let path = directory + "/" + name
            var st = stat()
            guard lstat(path, &st) == 0, (st.st_mode & S_IFMT) == S_IFREG else { continue }
            let age = now - st.st_mtim.tv_sec
            var writerGone = true
            if tail.count == 2, let pid = pid_t(tail[0]), pid > 0 {
                writerGone = pid == getpid() || (kill(pid, 0) != 0 && errno == ESRCH)
            }
            if exclusive || (writerGone && age > 600) || age > 86_400 {
                if unlink(path) == 0 { removed.append(name) }
            }
        }
        return removed
    }
}
