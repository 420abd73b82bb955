import BookModel
import FileIO
import Testing
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

func makeTempDirectory(_ tag: String = "book") -> String { makeTemporaryDirectory("bookmodel-\(tag)") }

func write(_ text: String, to path: String) throws {
    try AtomicFile.write(Array(text.utf8), to: path)
}

/// A valid four-page book: page 1 a single cover, pages 2–3 a spread. Written compactly on
/// purpose, so tests can break it with a textual replacement of a unique snippet.
let sampleManifest = """
    {
      "format": "picturebook-book/1",
      "title": "Moon Rabbit",
      "languages": ["en", "ar"],
      "readingDirection": "ltr",
      "spreads": [[2, 3]],
      "pages": [
        {"image": "p1.jpg", "width": 400, "height": 600, "single": true, "textBoxes": [
          {"id": "a1", "rect": {"x": 10, "y": 20, "width": 300, "height": 40}, "text": {"en": "Moon Rabbit", "ar": "أرنب القمر"}}
        ]},
        {"image": "p2.jpg", "width": 410, "height": 600, "textBoxes": [
          {"id": "b1", "rect": {"x": 5, "y": 5, "width": 50, "height": 50}},
          {"id": "b2", "rect": {"x": 60, "y": 5, "width": 50, "height": 50}}
        ]},
        {"image": "p3.jpg", "width": 420, "height": 600},
        {"image": "p4.jpg", "width": 430, "height": 600}
      ]
    }
    """

/// Decodes manifest text and returns every diagnostic, whether or not the book is valid.
func diagnostics(of text: String) -> [Diagnostic] {
    do {
        return try Book.decode(Array(text.utf8)).warnings
    } catch {
        return error.diagnostics
    }
}

/// The sample with `old` (which must occur exactly once) replaced by `new`.
func sample(replacing old: String, with new: String) -> String {
    let parts = sampleManifest.components(separatedBy: old)
    precondition(parts.count == 2, "snippet \(old) occurs \(parts.count - 1) times in the sample")
    return parts.joined(separator: new)
}

extension String {
    func components(separatedBy separator: String) -> [String] {
        var result: [String] = []
        var rest = self[...]
        while let r = rest.range(of: separator) {
            result.append(String(rest[..<r.lowerBound]))
            rest = rest[r.upperBound...]
        }
        result.append(String(rest))
        return result
    }
}

extension Substring {
    func range(of s: String) -> Range<Substring.Index>? {
        guard !s.isEmpty else { return nil }
        var i = startIndex
        while i < endIndex {
            if self[i...].hasPrefix(s) { return i..<index(i, offsetBy: s.count) }
            i = index(after: i)
        }
        return nil
    }
}

