import ArgumentParser
import Codecs
import FileIO
import Foundation
import Geometry
import Raster
import Typesetting

struct Typeset: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Typeset text into a box and write it as a PNG, to try Typesetting by hand.",
        discussion: """
            The text is fitted: set at the largest size between --min-size and --max-size that fits \
            the box (or at --size). When even the minimum does not fit, the image grows to the \
            content's height and a warning says so. Paragraphs are separated by newlines.

            Examples:
              picturebook typeset --text "Once upon a time…" --box 600x300 --out fox.png
              picturebook typeset --text "كان يا ما كان" --lang ar --box 600x300 --out ar.png
              picturebook typeset --text-file mn.txt --lang mn --vertical --box 300x500 --out mn.png
              picturebook typeset --text "月が出た" --lang ja --background-image page.png --at 40,60 \\
                  --box 300x200 --color auto --halo 3 --out page-text.png
            """)

    @Option(help: "The text to set.")
    var text: String?

    @Option(help: "Read the text from a UTF-8 file instead.", completion: .file())
    var textFile: String?

    @Option(help: "BCP 47 language of the text (en, ar, he, zh-Hans, zh-Hant, ja, ko, mn, hi, th, ...).")
    var lang: String?

    @Option(help: "Box size in pixels, WIDTHxHEIGHT.")
    var box: String = "600x300"

    @Option(help: "Output PNG file.", completion: .file())
    var out: String

    @Option(help: "Smallest font size (pixels per em) the fit may choose.")
    var minSize: Double = 12

    @Option(help: "Largest font size the fit may choose.")
    var maxSize: Double = 96

    @Option(help: "Set at exactly this size instead of fitting.")
    var size: Double?

    @Option(help: "Line alignment: start, center or end (start follows the paragraph direction).")
    var align: String = "start"

    @Option(help: "Paragraph direction: auto, ltr or rtl.")
    var direction: String = "auto"

    @Option(help: "Text colour, #rrggbb[aa], or 'auto' for the most readable over the background.")
    var color: String = "auto"

    @Option(help: "Background colour #rrggbb[aa] when no --background-image is given.")
    var background: String = "#ffffff"

    @Option(help: "Draw over this PNG or JPEG instead of a plain background.", completion: .file())
    var backgroundImage: String?

    @Option(help: "Top-left corner of the box on the background image, X,Y.")
    var at: String = "0,0"

    @Option(help: "Halo (outline) radius in pixels, optionally with a colour: 3 or 3,#000000.")
    var halo: String?

    @Flag(help: "Set vertically: Mongolian sideways in left-to-right columns, CJK upright in right-to-left columns.")
    var vertical = false

    @Option(help: "Line spacing as a multiple of the font size.")
    var lineSpacing: Double = 1.3

    @Option(help: "Padding inside the box, in pixels.")
    var padding: Double = 0

    @Option(help: "A font file or folder the book ships; tried before the system fonts (repeatable).", completion: .file())
    var font: [String] = []

    @Flag(help: "Print the layout (size chosen, lines, overflow) as JSON.")
    var json = false

    @Option(help: .hidden)
    var bench: Int?

    func validate() throws {
        guard (text == nil) != (textFile == nil) else { throw ValidationError("give exactly one of --text and --text-file") }
        guard Self.parseSize(box) != nil else { throw ValidationError("--box must be WIDTHxHEIGHT in pixels, got '\(box)'") }
        guard TextAlignment(rawValue: align) != nil else { throw ValidationError("--align must be start, center or end, got '\(align)'") }
        guard ["auto", "ltr", "rtl"].contains(direction) else { throw ValidationError("--direction must be auto, ltr or rtl, got '\(direction)'") }
        guard color == "auto" || RGBA8(hex: color) != nil else { throw ValidationError("--color must be #rrggbb, #rrggbbaa or auto, got '\(color)'") }
        guard RGBA8(hex: background) != nil else { throw ValidationError("--background must be #rrggbb or #rrggbbaa, got '\(background)'") }
        guard Self.parsePoint(at) != nil else { throw ValidationError("--at must be X,Y, got '\(at)'") }
        if let halo { guard Self.parseHalo(halo) != nil else { throw ValidationError("--halo must be RADIUS or RADIUS,#rrggbb, got '\(halo)'") } }
        guard minSize > 0, maxSize >= minSize else { throw ValidationError("need 0 < --min-size ≤ --max-size, got \(minSize)…\(maxSize)") }
        if let size { guard size > 0 else { throw ValidationError("--size must be positive, got \(size)") } }
        guard lineSpacing > 0 else { throw ValidationError("--line-spacing must be positive, got \(lineSpacing)") }
        guard padding >= 0 else { throw ValidationError("--padding must not be negative, got \(padding)") }
        if let bench { guard bench > 0 else { throw ValidationError("--bench needs a positive count") } }
    }

    func run() async throws {
        try reportingFailure(runChecked)
    }

    private func runChecked() throws {
        let content: String
        if let text {
            content = text
        } else {
            let bytes = try FileIO.read(textFile!, limit: 16 << 20)
            guard let s = String(validating: bytes, as: UTF8.self) else {
                throw TypesetCommandError.notUTF8(path: textFile!)
            }
            content = s.hasSuffix("\n") ? String(s.dropLast()) : s
        }
        let boxSize = Self.parseSize(box)!
        let fonts = font.isEmpty ? FontRegistry.system : FontRegistry()
        for f in font {
            if FileIO.isDirectory(f) { try fonts.register(directory: f) } else { try fonts.register(fileAt: f) }
        }
        var style = TextStyle(
            language: lang, direction: direction == "ltr" ? .leftToRight : direction == "rtl" ? .rightToLeft : .auto,
            alignment: TextAlignment(rawValue: align)!, lineSpacing: lineSpacing, padding: EdgeInsets(all: padding),
            writingMode: vertical ? WritingMode.vertical(for: content) : .horizontal,
            minimumSize: minSize, maximumSize: maxSize)
        if let size {
            style.minimumSize = size
            style.maximumSize = size
        }
        let typesetter = Typesetter(fonts: fonts)

        // The canvas: a background image with the box on it, or the box alone.
        let origin = Self.parsePoint(at)!
        var canvas: Bitmap<RGBA8>
        if let backgroundImage {
            canvas = try ImageDecoder.decode(try FileIO.read(backgroundImage), name: backgroundImage)
        } else {
            canvas = Bitmap(width: Int(boxSize.width.rounded(.up)), height: Int(boxSize.height.rounded(.up)), fill: RGBA8(hex: background)!)
        }

        if let bench {
            try runBenchmark(bench, text: content, style: style, box: boxSize, typesetter: typesetter, canvas: canvas)
            return
        }

        let layout = try typesetter.fit(content, in: boxSize, style: style)
        if layout.overflows {
            Console.warning(
                "the text does not fit \(box) even at \(Self.format(style.minimumSize)) px; it needs \(Self.format(layout.contentSize.width))×\(Self.format(layout.contentSize.height)) (image extended)")
            if backgroundImage == nil {
                var grown = Bitmap<RGBA8>(
                    width: max(canvas.width, Int(layout.contentSize.width.rounded(.up))),
                    height: max(canvas.height, Int(layout.contentSize.height.rounded(.up))), fill: RGBA8(hex: background)!)
                grown.paste(canvas, atX: 0, y: 0)
                canvas = grown
            }
        }
        let region = PixelRect(
            x: Int(origin.x), y: Int(origin.y), width: Int(boxSize.width), height: Int(boxSize.height)
        ).intersection(canvas.bounds) ?? canvas.bounds
        let choice = Contrast.chooseTextColor(over: canvas.view(region))
        let textColor = color == "auto" ? choice.color : RGBA8(hex: color)!
        let contrast = Contrast.worstCaseRatio(of: textColor, over: canvas.view(region))
        if color != "auto" && contrast < 4.5 && halo == nil {
            Console.warning("\(textColor) reaches only \(Self.format(contrast)):1 against the background (WCAG asks 4.5:1); try --color auto or --halo")
        }
        var haloStyle: Halo? = nil
        if let halo, let (radius, haloColor) = Self.parseHalo(halo) {
            haloStyle = Halo(color: haloColor ?? (Contrast.relativeLuminance(textColor) < 0.18 ? .white : .black), radius: radius)
        } else if color == "auto", let suggested = choice.halo {
            haloStyle = Halo(color: suggested, radius: max(2, layout.fontSize / 12))
        }
        layout.draw(into: &canvas, at: origin, color: textColor, halo: haloStyle)
        try AtomicFile.write(try PNGEncoder.encode(canvas), to: out)

        if json {
            try Console.json(Summary(
                fontSize: layout.fontSize, lines: layout.lines.count, overflows: layout.overflows,
                contentWidth: layout.contentSize.width, contentHeight: layout.contentSize.height,
                color: textColor.description, contrastRatio: (contrast * 100).rounded() / 100,
                writingMode: style.writingMode.rawValue,
                fonts: Array(Set(layout.glyphRuns.map(\.face.info.description))).sorted()))
        } else {
            Console.out(
                "\(out): \(layout.lines.count) line\(layout.lines.count == 1 ? "" : "s") at \(Self.format(layout.fontSize)) px, "
                    + "\(textColor) (contrast at worst \(Self.format(contrast)):1)"
                    + (layout.overflows ? ", overflows" : ""))
        }
    }

    struct Summary: Encodable {
        var fontSize: Double
        var lines: Int
        var overflows: Bool
        var contentWidth: Double
        var contentHeight: Double
        var color: String
        var contrastRatio: Double
        var writingMode: String
        var fonts: [String]
    }

    /// Times shaping + fitting + drawing into a fresh canvas, `n` times after a warm-up, and
    /// prints the median and mean in milliseconds (read by Tools/bench-typeset.sh).
    private func runBenchmark(_ n: Int, text: String, style: TextStyle, box: Size, typesetter: Typesetter, canvas: Bitmap<RGBA8>) throws {
        var fitOnly: [Double] = []
        var total: [Double] = []
        var chosen = 0.0
        var lines = 0
        for i in 0..<(n + 3) {
            var image = canvas
            let t0 = ContinuousClock.now
            let layout = try typesetter.fit(text, in: box, style: style)
            let t1 = ContinuousClock.now
            layout.draw(into: &image, color: .black)
            let t2 = ContinuousClock.now
            if i >= 3 {
                fitOnly.append((t1 - t0).milliseconds)
                total.append((t2 - t0).milliseconds)
            }
            chosen = layout.fontSize
            lines = layout.lines.count
            if i == 0 && !out.isEmpty { try AtomicFile.write(try PNGEncoder.encode(image), to: out) }
        }
        func median(_ v: [Double]) -> Double { let s = v.sorted(); return s[s.count / 2] }
        Console.out(String(
            format: "typeset-bench runs=%d size=%.2f lines=%d fit_median_ms=%.4f fit_draw_median_ms=%.4f fit_draw_mean_ms=%.4f",
            n, chosen, lines, median(fitOnly), median(total), total.reduce(0, +) / Double(total.count)))
    }

    static func parseSize(_ s: String) -> Size? {
        guard let (w, h) = parseDimensions(s), w > 0, h > 0, w <= 20000, h <= 20000 else { return nil }
        return Size(width: w, height: h)
    }

    static func parsePoint(_ s: String) -> Point? {
        let parts = s.split(separator: ",")
        guard parts.count == 2, let x = Double(parts[0]), let y = Double(parts[1]) else { return nil }
        return Point(x: x, y: y)
    }

    static func parseHalo(_ s: String) -> (Double, RGBA8?)? {
        let parts = s.split(separator: ",", maxSplits: 1)
        guard let r = parts.first.flatMap({ Double($0) }), r >= 0, r <= 50 else { return nil }
        if parts.count == 2 {
            guard let c = RGBA8(hex: String(parts[1])) else { return nil }
            return (r, c)
        }
        return (r, nil)
    }

    static func format(_ v: Double) -> String { String(format: "%.1f", v) }
}

enum TypesetCommandError: Error, CustomStringConvertible {
    case notUTF8(path: String)

    var description: String {
        switch self {
        case .notUTF8(let path): return "\(path): the text file is not valid UTF-8"
        }
    }
}
