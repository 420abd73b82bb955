#if canImport(Glibc)
import Glibc
#endif
import FileIO

/// An image file opened for a decode that reads it in pieces (libpng and libjpeg through a 64 KiB
/// buffer, OpenJPEG through pread), so the encoded file never sits whole beside the decoded image. Only regular files
/// are opened (FileIO's rule: a FIFO, a directory or a device is refused, never waited on). The
/// descriptor lives as long as this object, which the decoders reading it keep.
final class SourceFile {
    let fd: Int32
    /// The size when opened (fstat); the readers cope with a file that shrinks meanwhile.
    let size: Int
    let path: String

    init(_ path: String) throws(CodecError) {
        let opened: (Int32, Int)
        do { opened = try FileIO.openRegular(path) } catch { throw .file(error) }
        (fd, size, self.path) = (opened.0, opened.1, path)
        // The same ceiling as reading the file whole (FileIO.read), with the same error.
        guard size <= FileIO.defaultReadLimit else {
            throw .file(.tooLarge(path: path, bytes: size, limit: FileIO.defaultReadLimit))
        }
    }

    deinit { close(fd) }

    /// The first `count` bytes (fewer when the file is shorter), to sniff the format. pread leaves
    /// the offset at 0 for the readers that follow.
    func prefix(_ count: Int) throws(CodecError) -> [UInt8] {
        do { return try FileIO.readPrefix(fd, count: count, path: path) } catch { throw .file(error) }
    }
}
