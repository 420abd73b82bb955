import BookModel
import Geometry
import Testing

@Suite struct RoundTripTests {
    /// Already in Picturebook's layout, with unknown fields at every level (top, page, box, rect,
    /// inside nested values), known fields in an unusual order, a null optional field, numbers
    /// spelt oddly, slashes and non-ASCII text.
    static let canonical = """
        {
          "x-catalog": {
            "shelf": "B/12",
            "tags": ["pigs", "wolf"],
            "scannedAt": {
              "dpi": 600.0,
              "ratio": 1.50,
              "big": 1e3
            }
          },
          "format": "picturebook-book/1",
          "title": {
            "en": "The Three Little Pigs",
            "ar": "الخنازير الثلاثة الصغيرة",
            "mn-Mong": "ᠭᠤᠷᠪᠠᠨ ᠪᠠᠭ᠎ᠠ ᠭᠠᠬᠠᠢ"
          },
          "languages": ["en", "ar", "mn-Mong"],
          "readingDirection": "ltr",
          "license": "CC0-1.0",
          "pages": [
            {
              "width": 400,
              "image": "scans/cover.jpg",
              "height": 600,
              "notes": "fold at top/left",
              "label": null,
              "single": false,
              "textBoxes": [
                {
                  "rect": {
                    "y": 20,
                    "x": 10,
                    "height": 40,
                    "width": 300,
                    "skew": -0.25
                  },
                  "id": "t1",
                  "text": {
                    "en": "The Three Little Pigs",
                    "ar": "الخنازير"
                  },
                  "future": {
                    "deep": [
                      {
                        "a": null
                      },
                      []
                    ]
                  },
                  "confidence": 0.87,
                  "source": "detected",
                  "inkColor": "#1a2b3c"
                }
              ],
              "trailing": true
            }
          ],
          "zLast": []
        }

        """

    @Test func aCanonicalFileComesBackByteForByte() throws {
        let (book, warnings) = try Book.decode(Array(Self.canonical.utf8))
        #expect(warnings.isEmpty, "\(warnings)")
        #expect(String(decoding: book.encoded(), as: UTF8.self) == Self.canonical)
    }

    @Test func unknownFieldsAreKeptAtEveryLevel() throws {
        let (book, _) = try Book.decode(Array(Self.canonical.utf8))
        #expect(book.extraFields.keys == ["x-catalog", "zLast"])
        #expect(book.extraFields["x-catalog"]?.objectValue?["scannedAt"]?.objectValue?["ratio"]?.numberValue?.literal == "1.50")
        #expect(book.pages[0].extraFields.keys == ["notes", "trailing"])
        let box = book.pages[0].textBoxes[0]
        #expect(box.extraFields.keys == ["future"])
        #expect(box.rect == PixelRect(x: 10, y: 20, width: 300, height: 40))
        #expect(box.source == .detected)
        #expect(!box.isLibrarianOwned)
        #expect(box.inkColor == RGBColor(red: 0x1a, green: 0x2b, blue: 0x3c))
    }

    @Test func editsChangeOnlyWhatChanged() throws {
        var (book, _) = try Book.decode(Array(Self.canonical.utf8))
        book.pages[0].width = 401
        book.pages[0].label = "i"
        book.pages[0].textBoxes[0].text["mn-Mong"] = "ᠭᠤᠷᠪᠠᠨ"
        book.pages[0].textBoxes.append(TextBox(id: "t2", rect: PixelRect(x: 1, y: 2, width: 3, height: 4), role: .pageNumber))
        book.extraFields["added"] = "yes"
        let text = String(decoding: book.encoded(), as: UTF8.self)
        var expected = Self.canonical
            .replacingFirst(#""width": 400,"#, with: #""width": 401,"#)
            .replacingFirst(#""label": null,"#, with: #""label": "i","#)
            .replacingFirst(#""ar": "الخنازير"\#n"#, with: #""ar": "الخنازير",\#n            "mn-Mong": "ᠭᠤᠷᠪᠠᠨ"\#n"#)
            .replacingFirst(
                lines(##"          "inkColor": "#1a2b3c""##, "        }"),
                with: lines(
                    ##"          "inkColor": "#1a2b3c""##, "        },", "        {", #"          "id": "t2","#,
                    #"          "role": "pageNumber","#, #"          "rect": {"#, #"            "x": 1,"#, #"            "y": 2,"#,
                    #"            "width": 3,"#, #"            "height": 4"#, "          }", "        }"))
        expected = expected.replacingFirst("  \"zLast\": []\n", with: "  \"zLast\": [],\n  \"added\": \"yes\"\n")
        #expect(text == expected)
    }

    func lines(_ l: String...) -> String { l.joined(separator: "\n") + "\n" }

    @Test func savingIsByteStable() throws {
        // A compact, hand-typed file: the first save normalizes it, later cycles change nothing.
        let first = try Book.decode(Array(sampleManifest.utf8)).book.encoded()
        let second = try Book.decode(first).book.encoded()
        let third = try Book.decode(second).book.encoded()
        #expect(first == second)
        #expect(second == third)
        let text = String(decoding: first, as: UTF8.self)
        #expect(text.hasSuffix("}\n"))
        #expect(!text.contains("\\/"))
        #expect(!text.contains("\\u"))
        #expect(text.contains("أرنب القمر"))
        #expect(text.contains("\n  \"languages\": [\"en\", \"ar\"],\n"))
        #expect(text.contains("\n  \"spreads\": [\n    [2, 3]\n  ],\n"))
    }

    @Test func aBookBuiltInCodeSavesInTheDocumentedOrder() throws {
        let book = Book(
            title: .localized(["en": "Moon", "ar": "قمر"]), languages: ["en", "ar"], readingDirection: .rightToLeft,
            pages: [
                Page(image: "p1.jpg", width: 10, height: 20, label: "1", role: .cover, single: true, textBoxes: [
                    TextBox(
                        id: "a", rect: PixelRect(x: 0, y: 1, width: 2, height: 3), text: ["ar": "قمر"], role: .title,
                        language: "ar", order: 0, orientation: .horizontal, polarity: .lightOnDark,
                        inkColor: RGBColor(red: 255, green: 255, blue: 255), backgroundColor: RGBColor(hex: "#00FF80"),
                        confidence: 0.5, source: .librarian)
                ]),
                Page(image: "p2.jpg", width: 10, height: 20),
                Page(image: "p3.jpg", width: 10, height: 20),
            ],
            spreads: [Spread(2, 3)], author: "A. Author", year: 1999, source: "ICDL", license: "CC-BY-4.0",
            extraFields: ["x-note": "kept last"])
        #expect(book.validate().isEmpty, "\(book.validate())")
        let text = String(decoding: book.encoded(), as: UTF8.self)
        #expect(text == """
            {
              "format": "picturebook-book/1",
              "title": {
                "en": "Moon",
                "ar": "قمر"
              },
              "author": "A. Author",
              "year": 1999,
              "source": "ICDL",
              "license": "CC-BY-4.0",
              "languages": ["en", "ar"],
              "readingDirection": "rtl",
              "spreads": [
                [2, 3]
              ],
              "pages": [
                {
                  "image": "p1.jpg",
                  "width": 10,
                  "height": 20,
                  "label": "1",
                  "role": "cover",
                  "single": true,
                  "textBoxes": [
                    {
                      "id": "a",
                      "role": "title",
                      "rect": {
                        "x": 0,
                        "y": 1,
                        "width": 2,
                        "height": 3
                      },
                      "text": {
                        "ar": "قمر"
                      },
                      "language": "ar",
                      "order": 0,
                      "orientation": "horizontal",
                      "polarity": "lightOnDark",
                      "inkColor": "#ffffff",
                      "backgroundColor": "#00ff80",
                      "confidence": 0.5,
                      "source": "librarian"
                    }
                  ]
                },
                {
                  "image": "p2.jpg",
                  "width": 10,
                  "height": 20
                },
                {
                  "image": "p3.jpg",
                  "width": 10,
                  "height": 20
                }
              ],
              "x-note": "kept last"
            }

            """)
        let (back, _) = try Book.decode(book.encoded())
        #expect(back == book)
    }

    @Test func newKnownFieldsGoWhereTheyBelong() throws {
        let text = """
            {
              "format": "picturebook-book/1",
              "x-first": 1,
              "title": "T",
              "languages": ["en"],
              "readingDirection": "ltr",
              "pages": [
                {
                  "x-note": "n",
                  "image": "p1.png",
                  "width": 10,
                  "height": 10,
                  "x-after-height": true,
                  "textBoxes": []
                }
              ]
            }

            """
        var (book, _) = try Book.decode(Array(text.utf8))
        book.pages[0].label = "1"
        book.author = "A"
        book.spreads = []
        let saved = String(decoding: book.encoded(), as: UTF8.self)
        #expect(saved == text
            .replacingFirst("  \"title\": \"T\",\n", with: "  \"title\": \"T\",\n  \"author\": \"A\",\n")
            .replacingFirst("      \"height\": 10,\n", with: "      \"height\": 10,\n      \"label\": \"1\",\n"))
    }

    @Test func nullsInOptionalFieldsSurvive() throws {
        let text = """
            {
              "format": "picturebook-book/1",
              "title": "T",
              "author": null,
              "languages": ["en"],
              "readingDirection": "ltr",
              "spreads": null,
              "pages": [
                {
                  "image": "p1.png",
                  "width": 10,
                  "height": 10,
                  "single": null,
                  "textBoxes": null
                }
              ]
            }

            """
        let (book, _) = try Book.decode(Array(text.utf8))
        #expect(String(decoding: book.encoded(), as: UTF8.self) == text)
    }

    @Test func readingOrderFollowsOrderThenPosition() {
        let r = PixelRect(x: 0, y: 0, width: 1, height: 1)
        let page = Page(image: "p.png", width: 10, height: 10, textBoxes: [
            TextBox(id: "c", rect: r), TextBox(id: "b", rect: r, order: 2), TextBox(id: "a", rect: r, order: 1), TextBox(id: "d", rect: r),
        ])
        #expect(page.textBoxesInReadingOrder.map(\.id) == ["a", "b", "c", "d"])
    }

    /// `clear`'s review flag and its reason are kept through a load and save, and a reason left
    /// on a box whose flag was taken off is dropped (with a warning) rather than written back.
    @Test func theReviewReasonIsKeptWithItsFlag() throws {
        let text = """
            {"format": "picturebook-book/1", "title": "R", "languages": ["en"], "readingDirection": "ltr", "pages": [
              {"image": "p.png", "width": 100, "height": 80, "textBoxes": [
                {"id": "a", "rect": {"x": 1, "y": 1, "width": 20, "height": 10}, "needsReview": true, "reviewReason": "runsOn"},
                {"id": "b", "rect": {"x": 1, "y": 30, "width": 20, "height": 10}, "reviewReason": "textLeft"}]}]}
            """
        let (book, warnings) = try Book.decode(Array(text.utf8))
        #expect(book.pages[0].textBoxes.map(\.reviewReason) == [.runsOn, nil])
        #expect(warnings.count == 1)
        let saved = String(decoding: book.encoded(), as: UTF8.self)
        #expect(saved.contains("\"reviewReason\": \"runsOn\""), "\(saved)")
        #expect(!saved.contains("textLeft"), "\(saved)")
        let (again, _) = try Book.decode(book.encoded())
        #expect(again.pages[0].textBoxes[0].reviewReason == .runsOn && again.pages[0].textBoxes[0].needsReview)
    }
}
