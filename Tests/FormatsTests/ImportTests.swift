// `picturebook import` and the round trips: book → ALTO/hOCR → import keeps boxes and printed
// text; book → IIIF → import keeps page order, spreads, boxes and text in every language.
import BookModel
@testable import Formats
import Foundation
import Geometry
import Testing

@Suite("Format import")
struct ImportTests {
    @Test("book → ALTO → import keeps every box and its printed text", arguments: ["alto", "hocr"])
    func pageTextRoundTrip(format: String) throws {
        let dir = try TempDir()
        let original = try Book.load(directory: Repo.book("salmas-red-kite")).book
        let scans = dir.path + "/scans"
        let r = try Tool.cli(["export", Repo.book("salmas-red-kite"), "--format", format, "--out", scans])
        #expect(r.status == 0, "\(r.stderr)")
        for p in original.pages { try FileManager.default.copyItem(atPath: Repo.book("salmas-red-kite") + "/" + p.image, toPath: scans + "/" + p.image) }
        let out = dir.path + "/imported"
        let i = try Tool.cli(["import", scans, "--out", out, "--language", "en"])
        #expect(i.status == 0, "\(i.stderr)")
        let imported = try Book.load(directory: out).book
        #expect(imported.pages.map(\.image) == original.pages.map(\.image))
        #expect(imported.pages.map(\.width) == original.pages.map(\.width))
        for (a, b) in zip(original.pages, imported.pages) {
            let expected = a.textBoxesInReadingOrder
            #expect(b.textBoxes.map(\.id) == expected.map(\.id), "\(a.image)")
            #expect(b.textBoxes.map(\.rect) == expected.map(\.rect), "\(a.image)")
            for (x, y) in zip(expected, b.textBoxes) {
                let language = x.language ?? original.languages[0]
                #expect(y.language == language)
                #expect(y.text[language] == x.text[language]?.split(whereSeparator: \.isWhitespace).joined(separator: " "), "\(a.image) \(x.id)")
                if format == "alto" { #expect(y.role == x.role) }
            }
        }
        #expect(Set(imported.languages) == ["en", "ar"])
    }

    @Test("book → IIIF → import keeps page order, spreads, boxes and every language")
    func iiifRoundTrip() throws {
        let dir = try TempDir()
        for (name, rtl) in [("salmas-red-kite", false), ("little-horse", true)] {
            let book = try dir.copyBook(name) { if rtl { $0.readingDirection = .rightToLeft } }
            let original = try Book.load(directory: book).book
            let r = try Tool.cli(["export", book, "--format", "iiif", "--out", book, "--base-url", "https://library.example/iiif/\(name)"])
            #expect(r.status == 0, "\(r.stderr)")
            let out = dir.path + "/\(name)-imported"
            let i = try Tool.cli(["import", book + "/manifest.json", "--out", out])
            #expect(i.status == 0, "\(i.stderr)")
            let imported = try Book.load(directory: out).book
            #expect(imported.pages.map(\.image) == original.pages.map(\.image))
            #expect(imported.spreads == original.spreads)
            #expect(imported.readingDirection == original.readingDirection)
            #expect(imported.languages == original.languages)
            #expect(imported.title == original.title)
            for (a, b) in zip(original.pages, imported.pages) {
                #expect(b.label == a.label && b.role == a.role && b.single == a.single && b.width == a.width)
                let expected = a.textBoxesInReadingOrder
                #expect(b.textBoxes.map(\.id) == expected.map(\.id))
                #expect(b.textBoxes.map(\.rect) == expected.map(\.rect))
                #expect(b.textBoxes.map(\.text) == expected.map(\.text))
                #expect(b.textBoxes.map(\.role) == expected.map(\.role))
                #expect(b.textBoxes.map(\.language) == expected.map { $0.language ?? original.languages[0] })
            }
            // The copied scans are the same files.
            #expect(FileManager.default.contentsEqual(atPath: book + "/" + original.pages[3].image, andPath: out + "/" + imported.pages[3].image))
        }
    }

    @Test("Foreign ALTO: other ids, float positions, a page size to scale from, a role tag")
    func foreignALTO() throws {
        let xml = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!-- from another OCR engine -->
            <alto xmlns="http://www.loc.gov/standards/alto/ns-v4#">
              <Description><MeasurementUnit>pixel</MeasurementUnit></Description>
              <Tags><StructureTag ID="T1" LABEL="caption"/></Tags>
              <Layout><Page ID="p" PHYSICAL_IMG_NR="1" WIDTH="2000" HEIGHT="1000"><PrintSpace>
                <ComposedBlock ID="c"><TextBlock ID="1st" HPOS="100.4" VPOS="50" WIDTH="300.2" HEIGHT="40" TAGREFS="T1" LANG="fr">
                  <TextLine><String CONTENT="Le"/><SP/><String CONTENT="chat &amp; moi"/></TextLine>
                  <TextLine><String CONTENT="&#233;t&#xE9;"/></TextLine>
                </TextBlock></ComposedBlock>
                <TextBlock ID="1st" HPOS="0" VPOS="0" WIDTH="10" HEIGHT="10"/>
              </PrintSpace></Page></Layout>
            </alto>
            """
        let text = try PageTextImport.alto(Array(xml.utf8), file: "x.xml", defaultLanguage: "en")
        #expect(text.width == 2000 && text.height == 1000)
        #expect(text.boxes.count == 2)
        // "1st" is not a valid box id? It is (digits are allowed); the repeat gets a fresh one.
        #expect(text.boxes.map(\.id) == ["1st", "b1"])
        #expect(text.boxes[0].rect == PixelRect(x: 100, y: 50, width: 301, height: 40))
        #expect(text.boxes[0].text["fr"] == "Le chat & moi\nété")
        #expect(text.boxes[0].role == .caption)
        #expect(text.boxes[1].text.isEmpty)
    }

    @Test("Tesseract's hOCR: its ids, ISO 639-2 languages and word spans")
    func tesseractHOCR() throws {
        // The shape Tesseract 5 writes (trimmed): areas, paragraphs with lang="eng", lines, words.
        let html = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE html PUBLIC "-//W3C//DTD XHTML 1.0 Transitional//EN" "http://www.w3.org/TR/xhtml1/DTD/xhtml1-transitional.dtd">
            <html xmlns="http://www.w3.org/1999/xhtml" xml:lang="en" lang="en">
             <head><title></title><meta name='ocr-system' content='tesseract 5.3.0' /></head>
             <body>
              <div class='ocr_page' id='page_1' title='image "c21-180.png"; bbox 0 0 780 990; ppageno 0'>
               <div class='ocr_carea' id='block_1_1' title="bbox 27 31 616 54">
                <p class='ocr_par' id='par_1_1' lang='eng' title="bbox 27 31 616 54">
                 <span class='ocr_line' id='line_1_1' title="bbox 27 31 616 54; baseline 0 -5; x_size 23">
                  <span class='ocrx_word' id='word_1_1' title='bbox 27 31 70 54; x_wconf 96'>180</span>
                  <span class='ocrx_word' id='word_1_2' title='bbox 90 31 150 54; x_wconf 95'>THE</span>
                 </span>
                </p>
               </div>
               <div class='ocr_carea' id='block_1_2' title="bbox 40 80 700 300">
                <p class='ocr_par' id='par_1_2' lang='chi_sim' title="bbox 40 80 700 300">
                 <span class='ocr_line' id='line_1_2' title="bbox 40 80 700 120"><span class='ocrx_word' id='word_1_3' title='bbox 40 80 90 120'>你好</span></span>
                 <span class='ocr_line' id='line_1_3' title="bbox 40 130 700 170"><span class='ocrx_word' id='word_1_4' title='bbox 40 130 90 170'>世界</span></span>
                </p>
               </div>
              </div>
             </body>
            </html>
            """
        let text = try PageTextImport.hocr(Array(html.utf8), file: "c21-180.hocr", defaultLanguage: "und")
        #expect(text.width == 780 && text.height == 990)
        #expect(text.boxes.map(\.id) == ["1_1", "1_2"])
        #expect(text.boxes[0].language == "en" && text.boxes[0].text["en"] == "180 THE")
        #expect(text.boxes[1].language == "zh" && text.boxes[1].text["zh"] == "你好\n世界")
        #expect(text.boxes[1].rect == PixelRect(x: 40, y: 80, width: 660, height: 220))
    }

    @Test("Broken or foreign input is a clear error naming the file", arguments: [
        ("<alto><Layout>", "never closed"),
        ("<alto><Description><MeasurementUnit>mm10</MeasurementUnit></Description></alto>", "mm10"),
        ("<html/>", "not ALTO"),
        ("<alto a=b/>", "not quoted"),
        ("<alto>&bogus;</alto>", "unknown entity"),
        ("", "no root element"),
    ])
    func badALTO(input: String, message: String) {
        do {
            _ = try PageTextImport.alto(Array(input.utf8), file: "page.xml", defaultLanguage: "en")
            Issue.record("accepted \(input)")
        } catch {
            #expect(error.description.hasPrefix("page.xml"), "\(error)")
            #expect(error.description.contains(message), "\(error)")
        }
    }

    @Test("Deep nesting is refused, not recursed into")
    func deepNesting() {
        let deep = String(repeating: "<a>", count: 100_000)
        #expect(throws: FormatError.self) { try PageTextImport.alto(Array(deep.utf8), file: "deep.xml", defaultLanguage: "en") }
    }

    @Test("Manifest import errors name the manifest and the problem")
    func badManifests() throws {
        let dir = try TempDir()
        let cases: [(String, String)] = [
            ("{", "not JSON"),
            ("{\"type\": \"Collection\"}", "not \"Manifest\""),
            ("{\"type\": \"Manifest\", \"items\": []}", "no canvases"),
            ("{\"type\": \"Manifest\", \"items\": [{\"type\": \"Canvas\", \"id\": \"c1\", \"width\": 10, \"height\": 10}]}", "paints no image"),
            ("{\"type\": \"Manifest\", \"items\": [{\"type\": \"Canvas\", \"id\": \"c1\", \"width\": 10, \"height\": 10, \"items\": [{\"items\": [{\"motivation\": \"painting\", \"body\": {\"id\": \"https://x.org/missing.jpg\"}}]}]}]}", "not on this disk"),
            // A file:// URL outside the manifest's folder is not followed (it could name any file).
            ("{\"type\": \"Manifest\", \"items\": [{\"type\": \"Canvas\", \"id\": \"c1\", \"width\": 10, \"height\": 10, \"items\": [{\"items\": [{\"motivation\": \"painting\", \"body\": {\"id\": \"file://\(Repo.book("good-morning-farm"))/page-001.jpg\"}}]}]}]}", "not on this disk"),
        ]
        for (k, (json, message)) in cases.enumerated() {
            let file = dir.path + "/m\(k).json"
            try Data(json.utf8).write(to: URL(fileURLWithPath: file))
            let r = try Tool.cli(["import", file, "--out", dir.path + "/out\(k)"])
            #expect(r.status == 1, "\(json)")
            #expect(r.stderr.contains("m\(k).json") && r.stderr.contains(message), "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: dir.path + "/out\(k)/book.json"))
        }
    }
}
