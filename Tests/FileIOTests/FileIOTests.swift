import Testing
import FileIO
#if canImport(Glibc)
import Glibc
#endif

@Suite struct FileIOTests {
    func tempDir() -> String {
        var t = Array("/tmp/pb-fileio-XXXXXX".utf8CString)
        let p = t.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }!
        return String(cString: p)
    }

    @Test func atomicWriteReplacesAndLeavesNoTemp() throws {
        let dir = tempDir()
        let path = dir + "/a.bin"
        try AtomicFile.write([1, 2, 3], to: path)
        try AtomicFile.write([4, 5], to: path)
        #expect(try FileIO.read(path) == [4, 5])
        let d = opendir(dir)!
        var names: [String] = []
        while let e = readdir(d) {
            let name = withUnsafeBytes(of: e.pointee.d_name) { String(cString: $0.bindMemory(to: CChar.self).baseAddress!) }
            if name != "." && name != ".." { names.append(name) }
        }
        closedir(d)
        #expect(names == ["a.bin"])
    }

    @Test func errorsNameThePath() {
        #expect(throws: FileError.notFound(path: "/nonexistent/x.png")) { try FileIO.read("/nonexistent/x.png") }
        #expect(throws: FileError.isDirectory(path: "/tmp")) { try FileIO.read("/tmp") }
        #expect(throws: FileError.self) { try AtomicFile.write([1], to: "/nonexistent-dir/x.png") }
        #expect(FileError.tooLarge(path: "p", bytes: 10, limit: 5).description.contains("p:"))
    }

    @Test func readLimitRefusesLargeFiles() throws {
        let path = tempDir() + "/big"
        try AtomicFile.write([UInt8](repeating: 7, count: 100), to: path)
        #expect(throws: FileError.tooLarge(path: path, bytes: 100, limit: 50)) { try FileIO.read(path, limit: 50) }
    }

    @Test func createDirectoryMakesParents() throws {
        let dir = tempDir() + "/a/b/c"
        try FileIO.createDirectory(dir)
        #expect(FileIO.isDirectory(dir))
    }
}
