// The JSON documents of the API: the library entry and the manifest of a book (from BookModel),
// and the geometry of a viewport (from Layout: every rect comes from the layout engine).

import BookModel
import Foundation
import Geometry
import Layout

enum Manifest {
    static let composer = SpreadComposer()

    /// A book id or box id as one URL path segment.
    static func segment(_ s: String) -> String {
        var allowed = CharacterSet.urlPathAllowed
        allowed.remove(charactersIn: "/?#%")
        return s.addingPercentEncoding(withAllowedCharacters: allowed) ?? s
    }

    static func base(_ id: String) -> String { "/api/books/" + segment(id) }

    static func localized(_ t: LocalizedText, defaultLanguage: String) -> JSON {
        switch t {
        case .plain(let s): return .object([(defaultLanguage, .string(s))])
        case .localized(let m): return .object(m.entries.map { ($0.language, .string($0.text)) })
        }
    }

    static func defaultLanguage(_ book: Book) -> String { book.languages.first ?? "und" }

    static func summary(id: String, book: Book) -> JSON {
        let lang = defaultLanguage(book)
        return .object([
            ("id", .string(id)), ("status", "ok"),
            ("title", localized(book.title, defaultLanguage: lang)),
            ("displayTitle", .string(book.title.text(for: lang) ?? id)),
            ("languages", .array(book.languages.map(JSON.string))),
            ("readingDirection", .string(book.readingDirection.rawValue)),
            ("pageCount", .int(book.pages.count)),
            ("cover", .string(base(id) + "/pages/1/thumb?size=2x")),
        ])
    }

    static func document(id: String, book: Book) -> JSON {
        let lang = defaultLanguage(book)
        let b = base(id)
        let pages: [JSON] = book.pages.enumerated().map { i, page in
            let n = i + 1
            let p = "\(b)/pages/\(n)"
            let boxes: [JSON] = page.textBoxesInReadingOrder.map { box in
                .object([
                    ("id", .string(box.id)), ("role", .optional(box.role?.rawValue)), ("order", box.order.map(JSON.int) ?? .null),
                    ("orientation", .string((box.orientation ?? .horizontal).rawValue)),
                    ("rect", .rect(box.rect)), ("language", .optional(box.language)),
                    ("text", .object(box.text.entries.map { ($0.language, .string($0.text)) })),
                    ("textSize", .number(TextSizeEstimate.fontSize(of: box))),
                    ("inkColor", .optional(box.inkColor?.hex)), ("backgroundColor", .optional(box.backgroundColor?.hex)),
                    ("popout", .string("\(p)/popout/\(segment(box.id))")),
                ])
            }
            let scanOnly = page.textBoxes.isEmpty || page.readsAsScanInClearText
            return .object([
                ("number", .int(n)), ("label", .optional(page.label)), ("role", .optional(page.role?.rawValue)),
                ("single", .bool(page.single)), ("width", .int(page.width)), ("height", .int(page.height)),
                ("scan", .string("\(p)/scan")),
                // A page with a box `clear` left for review is read as the scan, with PopoutText:
                // its ClearText could not be shown to leave the picture whole. (A page number left
                // as scanned keeps its print, and the reader does not draw it again.)
                ("cleared", scanOnly ? .null : .string("\(p)/cleared")),
                // Which boxes that image left as scanned: the reader shows ClearText only when none
                // but page numbers.
                ("clearance", scanOnly ? .null : .string("\(p)/clearance")),
                ("thumb", .string("\(p)/thumb?size=1x")), ("thumb2x", .string("\(p)/thumb?size=2x")),
                ("textBoxes", .array(boxes)),
            ])
        }
        func screens(_ o: ScreenOrientation) -> JSON {
            .array(composer.screens(for: book, orientation: o).map { s in
                .object([("pages", .array(s.pages.map(JSON.int))), ("kind", .string(kind(s, of: book, orientation: o)))])
            })
        }
        return .object([
            ("id", .string(id)), ("title", localized(book.title, defaultLanguage: lang)),
            ("displayTitle", .string(book.title.text(for: lang) ?? id)),
            ("languages", .array(book.languages.map(JSON.string))), ("defaultLanguage", .string(lang)),
            ("readingDirection", .string(book.readingDirection.rawValue)),
            ("pages", .array(pages)),
            ("screens", .object([("portrait", screens(.portrait)), ("landscape", screens(.landscape))])),
            ("glossary", glossary(book)),
        ])
    }

    /// The book's glossary for the reader's word pop-ups and word-pairs list. Each entry carries
    /// the page it first appears on (its text, or a translation, in that language's text), so the
    /// list can jump there; the region's page when no text has it.
    static func glossary(_ book: Book) -> JSON {
        var firstPage: [String: Int] = [:]  // "language\0lowercased text" → page
        func page(of language: String, _ word: String) -> Int? {
            let key = language + "\u{0}" + word.lowercased()
            if let p = firstPage[key] { return p > 0 ? p : nil }
            var found = 0
            search: for (i, page) in book.pages.enumerated() {
                for box in page.textBoxes {
                    if let t = box.text[language], t.lowercased().contains(word.lowercased()) {
                        found = i + 1
                        break search
                    }
                }
            }
            firstPage[key] = found
            return found > 0 ? found : nil
        }
        return .array(book.glossary.map { e in
            let p = page(of: e.language, e.text) ?? e.translations.lazy.compactMap { page(of: $0.language, $0.text) }.first ?? e.region?.page
            return .object([
                ("id", .string(e.id)), ("language", .string(e.language)), ("text", .string(e.text)),
                ("translations", .object(e.translations.entries.map { ($0.language, .string($0.text)) })),
                ("note", .optional(e.note)), ("tags", .array(e.tags.map(JSON.string))),
                ("page", p.map(JSON.int) ?? .null),
                ("region", e.region.map { .object([("page", .int($0.page)), ("box", .rect($0.box))]) } ?? .null),
                ("source", .string((e.source ?? .editor).rawValue)),
            ])
        })
    }

    /// The layout engine's kind, except that a landscape screen showing the cover alone is
    /// called "cover" (the app centres it rather than leaving a gap beside it).
    static func kind(_ s: Screen, of book: Book, orientation: ScreenOrientation) -> String {
        if orientation == .landscape, s.pages.count == 1, s.kind == .single, let n = s.pages.first, n >= 1, n <= book.pages.count {
            let p = book.pages[n - 1]
            if p.role == .cover || (n == 1 && p.role == nil) { return "cover" }
        }
        return s.kind.rawValue
    }

    /// The size of the "Tap to enlarge text" label the app draws (15 px system font with
    /// padding): the hint is placed so this box covers no text block.
    static let hintLabelSize = Size(width: 170, height: 30)

    static func layout(book: Book, viewport: Viewport) -> JSON {
        let screens = composer.screens(for: book, orientation: viewport.orientation)
        let popouts = PopoutLayout()
        var out: [JSON] = []
        for (index, screen) in screens.enumerated() {
            let laid = Fit.layout(screen, of: book, in: viewport)
            var boxes: [JSON] = []
            var rects: [Rect] = []
            for frame in laid.pages {
                guard frame.page >= 1, frame.page <= book.pages.count else { continue }
                for box in book.pages[frame.page - 1].textBoxesInReadingOrder {
                    let rect = frame.toScreen(box.rect)
                    rects.append(rect)
                    let g = popouts.popout(box: box, on: frame, in: viewport)
                    boxes.append(.object([
                        ("id", .string(box.id)), ("page", .int(frame.page)), ("rect", .rect(rect)),
                        ("popout", .object([
                            ("frame", .rect(g.frame)), ("contentSize", .size(g.contentSize)),
                            ("scrollExtent", .size(g.scrollExtent)), ("magnification", .number(g.magnification)),
                            ("textSize", .number(g.textSize)),
                        ])),
                    ]))
                }
            }
            let hint: JSON = TapHint.layout(boxes: rects, labelSize: hintLabelSize, in: viewport).map { h in
                .object([
                    ("outlines", .array(h.outlines.map(JSON.rect))), ("label", .rect(h.label)), ("anchor", .rect(h.anchor)),
                    ("text", .string(TapHint.text)),
                ])
            } ?? .null
            out.append(.object([
                ("index", .int(index)), ("pages", .array(screen.pages.map(JSON.int))),
                ("visualOrder", .array(screen.visualOrder.map(JSON.int))),
                ("kind", .string(kind(screen, of: book, orientation: viewport.orientation))),
                ("frames", .array(laid.pages.map { .object([("page", .int($0.page)), ("rect", .rect($0.frame))]) })),
                ("content", .rect(laid.contentFrame)),
                ("boxes", .array(boxes)), ("hint", hint),
            ]))
        }
        let grid = GridLayout.layout(book, in: viewport)
        return .object([
            ("viewport", viewportJSON(viewport)),
            ("screens", .array(out)),
            ("grid", .object([
                ("columns", .int(grid.columns)),
                ("cells", .array(grid.cells.map { .object([("page", .int($0.page)), ("rect", .rect($0.frame))]) })),
                ("contentHeight", .number(grid.contentHeight)),
            ])),
        ])
    }

    static func viewportJSON(_ v: Viewport) -> JSON {
        .object([
            ("width", .number(v.size.width)), ("height", .number(v.size.height)), ("scale", .number(v.scale)),
            ("orientation", .string(v.orientation.rawValue)),
            ("safeArea", .object([
                ("top", .number(v.safeArea.top)), ("right", .number(v.safeArea.right)),
                ("bottom", .number(v.safeArea.bottom)), ("left", .number(v.safeArea.left)),
            ])),
            ("textSize", .number(v.readableTextSize)),
        ])
    }

    enum TransitionKind: String { case zoom, rotate }

    /// Keyframes sampled by the layout engine; nil when the page is not on any screen.
    static func transition(book: Book, kind: TransitionKind, page: Int, viewport: Viewport, frames: Int) -> JSON? {
        let times = frameTimes(count: frames)
        let keyframes: [TransitionFrame]
        switch kind {
        case .zoom:
            let screens = composer.screens(for: book, orientation: viewport.orientation)
            guard let i = SpreadComposer.screenIndex(of: page, in: screens) else { return nil }
            let target = Fit.layout(screens[i], of: book, in: viewport)
            keyframes = Transition.zoom(grid: GridLayout.layout(book, in: viewport), tapped: page, into: target, times: times)
        case .rotate:
            // W×H names the landscape viewport; the portrait one is the same device turned.
            let long = max(viewport.size.width, viewport.size.height), short = min(viewport.size.width, viewport.size.height)
            let landscapeViewport = Viewport(
                size: Size(width: long, height: short), scale: viewport.scale, safeArea: viewport.safeArea,
                readableTextSize: viewport.readableTextSize, orientation: .landscape)
            let portraitViewport = Viewport(
                size: Size(width: short, height: long), scale: viewport.scale, safeArea: viewport.safeArea,
                readableTextSize: viewport.readableTextSize, orientation: .portrait)
            let ps = composer.screens(for: book, orientation: .portrait), ls = composer.screens(for: book, orientation: .landscape)
            guard let pi = SpreadComposer.screenIndex(of: page, in: ps), let li = SpreadComposer.screenIndex(of: page, in: ls) else {
                return nil
            }
            keyframes = Transition.rotate(
                from: Fit.layout(ps[pi], of: book, in: portraitViewport), to: Fit.layout(ls[li], of: book, in: landscapeViewport),
                page: page, times: times)
        }
        guard !keyframes.isEmpty else { return nil }
        return .object([
            ("kind", .string(kind.rawValue)), ("page", .int(page)),
            ("viewport", viewportJSON(keyframes[0].viewport)),
            ("frames", .array(keyframes.map { f in
                .object([
                    ("time", .number(f.time)),
                    ("placements", .array(f.placements.map(placement))),
                ])
            })),
        ])
    }

    static func placement(_ p: Placement) -> JSON {
        var pairs: [(String, JSON)] = []
        switch p.content {
        case .page(let n): pairs.append(("page", .int(n)))
        case .pageRegion(let n, let r): pairs += [("page", .int(n)), ("region", .rect(r))]
        case .dim: pairs.append(("dim", true))
        }
        pairs += [("rect", .rect(p.rect)), ("opacity", .number(p.opacity)), ("rotation", .number(p.rotation))]
        return .object(pairs)
    }
}
