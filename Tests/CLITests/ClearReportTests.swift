// `clear --report` names each box left as scanned and says why.
import Codecs
import Foundation
import Raster
import Testing

@Suite struct ClearReportTests {
    @Test func aBoxInADrawingIsReportedWithItsReason() throws {
        let scratch = try Scratch()
        let dir = scratch.file("book")
        try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        // Paper; in the first box a line of dark bars ("letters", 4×14) beside a dark square four
        // letters high (a drawing the box took in); the second box holds the letters alone.
        var page = Bitmap<RGBA8>(width: 320, height: 200, fill: RGBA8(r: 236, g: 228, b: 208))
        let ink = RGBA8(r: 30, g: 28, b: 40)
        func fill(_ x0: Int, _ y0: Int, _ w: Int, _ h: Int) {
            for y in y0..<(y0 + h) { for x in x0..<(x0 + w) { page.pixels[y * page.width + x] = ink } }
        }
        for x in stride(from: 24, to: 120, by: 10) { fill(x, 40, 4, 14) }
        fill(140, 22, 56, 56)
        for x in stride(from: 24, to: 200, by: 10) { fill(x, 140, 4, 14) }
        try PNGEncoder.write(page, to: dir + "/p1.png")
        let manifest = """
        {"format": "picturebook-book/1", "readingDirection": "ltr", "title": {"en": "Report"}, "languages": ["en"], "pages": [
          {"image": "p1.png", "width": 320, "height": 200, "textBoxes": [
            {"id": "drawn", "rect": {"x": 16, "y": 16, "width": 190, "height": 68}, "text": {"en": "Hi"}},
            {"id": "plain", "rect": {"x": 16, "y": 132, "width": 192, "height": 30}, "text": {"en": "Hi"}}]}
        ]}
        """
        try manifest.write(toFile: dir + "/book.json", atomically: true, encoding: .utf8)
        let r = try CLI.run(["clear", dir, "--report"])
        #expect(r.status == 0, "\(r.stderr)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 1, "\(r.stdout)")
        #expect(lines.first?.contains("box drawn") == true && lines.first?.contains("it lies in a drawing") == true, "\(r.stdout)")
        // The reason is recorded in book.json beside the flag, and only on the flagged box.
        let book = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: dir + "/book.json"))) as? [String: Any])
        let boxes = try #require(((book["pages"] as? [[String: Any]])?.first?["textBoxes"]) as? [[String: Any]])
        #expect(boxes.map { $0["reviewReason"] as? String } == ["inDrawing", nil])
        #expect(boxes.map { $0["needsReview"] as? Bool } == [true, nil])
        // Run again: the page is up to date and not read now; the report gives the recorded reason.
        let again = try CLI.run(["clear", dir, "--report"])
        #expect(again.stdout.contains("box drawn") && again.stdout.contains("it lies in a drawing"), "\(again.stdout)")
        #expect(!again.stdout.contains("--force"), "\(again.stdout)")
        // The same for scripts: `--json` on stdout, the page up to date, the box with its reason.
        let json = try CLI.run(["clear", dir, "--json"])
        #expect(json.status == 0, "\(json.stderr)")
        let run = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any])
        #expect(run["cleared"] as? Int == 0 && run["upToDate"] as? Int == 1 && run["failed"] as? Int == 0, "\(run)")
        let review = try #require(run["review"] as? [[String: Any]])
        #expect(review.count == 1)
        #expect(review.first?["box"] as? String == "drawn" && review.first?["reason"] as? String == "inDrawing")
        #expect(review.first?["page"] as? Int == 1 && (review.first?["rect"] as? [String: Int])?["width"] == 190)
        #expect((review.first?["description"] as? String)?.contains("lies in a drawing") == true)
        // A book cleared before reasons were recorded has the flag alone: the report says how to
        // get the reason.
        var pages = try #require(book["pages"] as? [[String: Any]])
        var old = try #require(pages[0]["textBoxes"] as? [[String: Any]])
        old[0].removeValue(forKey: "reviewReason")
        pages[0]["textBoxes"] = old
        var legacyBook = book
        legacyBook["pages"] = pages
        try JSONSerialization.data(withJSONObject: legacyBook).write(to: URL(fileURLWithPath: dir + "/book.json"))
        let legacy = try CLI.run(["clear", dir, "--report"])
        #expect(legacy.stdout.contains("box drawn") && legacy.stdout.contains("--force"), "\(legacy.stdout)")
    }
}
