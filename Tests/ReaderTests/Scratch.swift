import Foundation

/// One folder per test process for everything these tests write, removed when the process exits:
/// each test copies a book, and hundreds of runs on a working machine had left a gigabyte in /tmp.
enum Scratch {
    static let root: String = {
        let root = NSTemporaryDirectory() + "picturebook-reader-tests-\(getpid())"
        try? FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(atPath: Scratch.root) }
        return root
    }()

    /// A fresh path under the root (not created).
    static func path(_ name: String) -> String { root + "/\(name)-\(UUID().uuidString)" }
}
