// An atomic write for a file too large to hold in memory at once: the bytes arrive in pieces,
// go to a temporary file beside the destination (named like `AtomicFile.write`'s, so
// `AtomicFile.removeStale` clears one a killed writer left), and only `commit` renames it into
// place. A writer dropped without committing removes its temporary file.

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

public final class AtomicStream {
    public let path: String
    private let temporary: String
    private var fd: Int32
    private var finished = false

    public init(path: String) throws(FileError) {
        (fd, temporary) = try AtomicFile.temporary(for: path)
        self.path = path
    }

    /// Appends `count` bytes at `bytes`.
    public func write(_ bytes: UnsafeRawPointer, count: Int) throws(FileError) {
        precondition(!finished, "AtomicStream.write after commit")
        var done = 0
        while done < count {
            let n = Glibc.write(fd, bytes + done, count - done)
            if n < 0 {
                if errno == EINTR { continue }
                throw .writeFailed(path: path, reason: String(cString: strerror(errno)))
            }
            done += n
        }
    }

    public func write(_ bytes: [UInt8]) throws(FileError) {
        let failure: FileError? = bytes.withUnsafeBytes { (b) -> FileError? in
            guard let base = b.baseAddress else { return nil }
            do throws(FileError) { try write(base, count: b.count) } catch { return error }
            return nil
        }
        if let failure { throw failure }
    }

    /// Flushes the file to disk and renames it over the destination.
    public func commit() throws(FileError) {
        precondition(!finished, "AtomicStream committed twice")
        finished = true
        let mask = umask(0)
        umask(mask)
        fchmod(fd, 0o666 & ~mask)
        let synced = fsync(fd) == 0
        let closed = close(fd) == 0
        fd = -1
        guard synced, closed, rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw .writeFailed(path: path, reason: reason)
        }
    }

    deinit {
        if !finished {
            close(fd)
            unlink(temporary)
        }
    }
}
