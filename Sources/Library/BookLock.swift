// One worker per book. Shards are disjoint, but a re-submitted job, a second `prepare` started by
// hand or two clusters pointed at one library can still meet on a book; the lock makes the second
// one pass the book by instead of writing the same outputs at the same time.
//
// The lock is a file created with O_CREAT|O_EXCL (atomic on local file systems and on NFSv3+),
// holding "pid host time". A holder that died leaves it behind; it is broken when its pid is gone
// on this host, or — for a holder on another host, whose pid means nothing here — when the file
// has not been touched for the timeout (the holder touches it after every stage).

import FileIO
import Foundation
#if canImport(Glibc)
import Glibc
#endif

public final class BookLock: @unchecked Sendable {
    public static let fileName = ".picturebook-prepare.lock"

    /// Who holds a lock, as read from its file.
    public struct Holder: Sendable, Hashable, CustomStringConvertible {
        public var pid: Int32
        public var host: String
        public var time: Int
        public var description: String { "pid \(pid) on \(host) since \(time)" }
    }

    public enum Outcome: Sendable {
        case acquired(BookLock)
        /// Another live worker has it.
        case busy(Holder)
    }

    public let path: String
    private let content: String
    private var released = false

    private init(path: String, content: String) {
        self.path = path
        self.content = content
    }

    public static var hostName: String {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "unknown-host" }
        return String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Takes the lock of the book folder `directory`, breaking a stale one; `timeout` is the age in
    /// seconds past which another host's lock counts as abandoned.
    public static func acquire(directory: String, timeout: Double) throws(LibraryError) -> Outcome {
        let path = directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName
        let content = "\(getpid()) \(hostName) \(time(nil))\n"
        // Two rounds: a stale lock broken in the first leaves the way free for the second.
        for _ in 0..<2 {
            let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
            if fd >= 0 {
                let bytes = Array(content.utf8)
                let written = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
                let synced = fsync(fd) == 0
                close(fd)
                guard written == bytes.count, synced else {
                    unlink(path)
                    throw .lock(path: path, reason: "cannot write it")
                }
                return .acquired(BookLock(path: path, content: content))
            }
            guard errno == EEXIST else { throw .lock(path: path, reason: String(cString: strerror(errno))) }
            guard let found = read(path) else {
                // Vanished between open and read (its holder released it), or was left empty by a
                // holder killed between create and write: an empty lock older than a second is stale.
                if let age = age(of: path), age > 1 { breakStale(path, expected: nil) }
                continue
            }
            if isStale(found.holder, path: path, timeout: timeout) {
                breakStale(path, expected: found.raw)
                continue
            }
            return .busy(found.holder)
        }
        if let found = read(path) { return .busy(found.holder) }
        throw .lock(path: path, reason: "it keeps reappearing; another worker is taking it")
    }

    static func isStale(_ holder: Holder, path: String, timeout: Double) -> Bool {
        if holder.host == hostName, holder.pid > 0, kill(holder.pid, 0) != 0, errno == ESRCH { return true }
        if let age = age(of: path), Double(age) > timeout { return true }
        return false
    }

    /// Moves the stale lock aside under a unique name and deletes it — but only if what was moved
    /// is still the stale lock that was judged. A worker that broke it a moment earlier and
    /// created its own would otherwise lose its fresh lock to us; if so, it is put back.
    static func breakStale(_ path: String, expected: String?) {
        let aside = path + ".stale-\(getpid())-\(UInt64.random(in: 0...UInt64.max))"
        guard rename(path, aside) == 0 else { return }
        let moved = (try? FileIO.read(aside, limit: 4096)).map { String(decoding: $0, as: UTF8.self) }
        if let expected, moved != expected {
            // Not the one judged stale: restore it unless someone has taken the path meanwhile.
            if link(aside, path) != 0 { /* a third lock exists; ours to drop is only the moved one */ }
        }
        unlink(aside)
    }

    static func read(_ path: String) -> (holder: Holder, raw: String)? {
        guard let bytes = try? FileIO.read(path, limit: 4096) else { return nil }
        let raw = String(decoding: bytes, as: UTF8.self)
        let parts = raw.split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard parts.count >= 3, let pid = Int32(parts[0]), let t = Int(parts[2]) else { return nil }
        return (Holder(pid: pid, host: String(parts[1]), time: t), raw)
    }

    static func age(of path: String) -> Int? {
        var st = stat()
        guard stat(path, &st) == 0 else { return nil }
        return time(nil) - st.st_mtim.tv_sec
    }

    /// Who holds the lock of `directory` now, if anyone (for listings).
    public static func holder(of directory: String) -> Holder? {
        read(directory.hasSuffix("/") ? directory + fileName : directory + "/" + fileName)?.holder
    }

    /// Marks the lock as alive (its age is what another host judges it by).
    public func touch() { utimes(path, nil) }

    /// Deletes the lock if it is still ours (a lock broken and re-taken by another worker after a
    /// long stall is theirs now and stays).
    public func release() {
        guard !released else { return }
        released = true
        if let bytes = try? FileIO.read(path, limit: 4096), String(decoding: bytes, as: UTF8.self) == content {
            unlink(path)
        }
    }

    deinit { release() }
}
