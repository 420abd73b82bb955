#if canImport(Glibc)
import Glibc
#endif

/// Maps in the pages of a freshly allocated multi-megabyte pixel buffer with one system call
/// before the decoder writes it. Otherwise every 4 KB page costs a separate fault while libjpeg
/// or libpng writes rows: about 3000 faults for a 1600×2000 RGBA page, some 10 % of its decode.
/// Pages already mapped (a reused heap block) are skipped cheaply; kernels without
/// MADV_POPULATE_WRITE (before Linux 5.14) just return an error, which changes nothing.
///
/// Only when the file is big enough to plausibly fill the buffer (`sourceBytes`, the encoded
/// file's size, at least 1/1024 of it — deflate cannot do better than ~1032:1, and real JPEGs are
/// far from it): a 100-byte file declaring 14000×14000 would otherwise commit 785 MB before the
/// decoder found its data missing. Unpopulated, the buffer costs only the rows actually written.
func prefault(_ buffer: UnsafeMutableRawBufferPointer, sourceBytes: Int) {
    #if os(Linux)
    guard sourceBytes >= buffer.count / 1024 else { return }
    let populateWrite: Int32 = 23  // MADV_POPULATE_WRITE, missing from older headers
    guard buffer.count >= 1 << 20, let base = buffer.baseAddress else { return }
    let page = Int(sysconf(Int32(_SC_PAGESIZE)))
    let start = (Int(bitPattern: base) + page - 1) & ~(page - 1)
    let end = (Int(bitPattern: base) + buffer.count) & ~(page - 1)
    guard end > start, let first = UnsafeMutableRawPointer(bitPattern: start) else { return }
    _ = madvise(first, end - start, populateWrite)
    #endif
}
