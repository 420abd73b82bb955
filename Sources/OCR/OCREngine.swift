// Reads the text of one box on a page: picks the model for the box's language and orientation,
// normalises the crop, chooses how Tesseract should segment it, and tidies the text into the form
// book.json holds (one paragraph a line, words joined as the script joins them).

public import Geometry
public import Raster
import Foundation

/// A box to read, described the way book.json describes it.
public struct OCRRegion: Sendable, Hashable {
    public var rect: PixelRect
    /// BCP 47 tag of the printed language, e.g. "en", "zh-Hans".
    public var language: String
    /// Lines run top to bottom.
    public var vertical: Bool
    /// nil: decided from the pixels.
    public var polarity: OCRPolarity?
    /// Colour of the letters and of the ground behind them, when known (page analysis measures
    /// them): text over a picture is then separated by colour, not by brightness alone.
    public var inkColor: RGBA8?
    public var backgroundColor: RGBA8?
    /// A page number: read as digits and roman numerals only, so "11" on grass is not "dt".
    public var isPageNumber: Bool

    public init(
        rect: PixelRect, language: String, vertical: Bool = false, polarity: OCRPolarity? = nil, inkColor: RGBA8? = nil,
        backgroundColor: RGBA8? = nil, isPageNumber: Bool = false
    ) {
        self.rect = rect
        self.language = language
        self.vertical = vertical
        self.polarity = polarity
        self.inkColor = inkColor
        self.backgroundColor = backgroundColor
        self.isPageNumber = isPageNumber
    }
}

/// What was read in a box.
public struct OCRResult: Sendable, Hashable {
    /// The text, paragraphs separated by "\n", lines within a paragraph joined.
    public var text: String
    /// Tesseract's mean word confidence, 0…1 (0 when nothing was read).
    public var confidence: Double
    public var words: [OCRWord]
    /// The Tesseract model used, e.g. "jpn_vert".
    public var model: String
    public var segmentation: OCRSegmentation
    /// Lines (columns) the normaliser saw, and the factor the crop was scaled by.
    public var lineCount: Int
    public var scale: Double
}

/// One Tesseract worker. Not thread-safe (Tesseract's handles are not): give each thread or task
/// its own engine. Models are loaded on first use and kept.
public final class OCREngine {
    public let dataPath: String
    private var handles: [String: TesseractHandle] = [:]

    /// Folders searched for `<model>.traineddata` when neither an explicit path nor
    /// TESSDATA_PREFIX is given: Debian's (Tesseract 5 and 4), then the usual local installs.
    public static let standardDataPaths = [
        "/usr/share/tesseract-ocr/5/tessdata", "/usr/share/tesseract-ocr/4.00/tessdata", "/usr/local/share/tessdata",
        "/usr/share/tessdata", "/opt/homebrew/share/tessdata",
    ]

    /// The tessdata folders to look in, most specific first. A folder the user named is the only
    /// one searched: a model silently taken from elsewhere would hide their mistake.
    public static func candidateDataPaths(explicit: String? = nil) -> [String] {
        if let explicit { return [explicit] }
        var paths: [String] = []
        if let env = ProcessInfo.processInfo.environment["TESSDATA_PREFIX"], !env.isEmpty {
            // Tesseract accepts both the tessdata folder itself and its parent.
            paths.append(env)
            paths.append((env as NSString).appendingPathComponent("tessdata"))
        }
        return paths + standardDataPaths
    }

    /// The folder holding `model`, if any.
    public static func dataPath(for model: String, explicit: String? = nil) -> String? {
        candidateDataPaths(explicit: explicit).first { FileManager.default.fileExists(atPath: $0 + "/" + model + ".traineddata") }
    }

    /// `dataPath` nil: found per model among `candidateDataPaths`.
    public init(dataPath: String? = nil) {
        self.dataPath = dataPath ?? ""
    }

    public static var tesseractVersion: String { TesseractHandle.version }

    /// Checks that the model for `language` exists and is installed, without loading it.
    public func check(language: String, vertical: Bool) throws(OCRError) -> OCRModel {
        let model = try OCRLanguages.model(for: language, vertical: vertical)
        _ = try location(of: model, language: language)
        return model
    }

    private func location(of model: OCRModel, language: String) throws(OCRError) -> String {
        let explicit = dataPath.isEmpty ? nil : dataPath
        guard let path = Self.dataPath(for: model.name, explicit: explicit) else {
            let searched = Self.candidateDataPaths(explicit: explicit).filter { FileManager.default.fileExists(atPath: $0) }
            throw .modelNotInstalled(language: language, model: model.name, package: model.package, searched: searched)
        }
        return path
    }

    private func handle(for model: OCRModel, language: String) throws(OCRError) -> TesseractHandle {
        if let h = handles[model.name] { return h }
        let h = try TesseractHandle(dataPath: try location(of: model, language: language), model: model.name)
        handles[model.name] = h
        return h
    }

    /// Reads `region` of `page`.
    public func recognize(_ page: Bitmap<RGBA8>, region: OCRRegion) throws(OCRError) -> OCRResult {
        let model = try OCRLanguages.model(for: region.language, vertical: region.vertical)
        let tess = try handle(for: model, language: region.language)
        let norm = try RegionNormalizer.normalize(
            page: page, rect: region.rect, model: model, vertical: region.vertical, polarity: region.polarity,
            ink: region.inkColor, ground: region.backgroundColor)
        // No band of ink at all: Tesseract would find a ";" in paper grain; there is nothing to read.
        if norm.lineCount == 0 {
            return OCRResult(text: "", confidence: 0, words: [], model: model.name, segmentation: .block, lineCount: 0, scale: norm.scale)
        }
        let first: OCRSegmentation =
            model.vertical ? .verticalBlock : region.isPageNumber ? .word : norm.singleLine ? .line : .block
        // Tesseract's layout analysis fails outright on some clean crops (an empty result, or
        // "d" for "27") that another mode reads perfectly; when the first reading is empty or
        // unsure, the other plausible modes are tried and the most confident reading kept.
        var modes = [first]
        if !model.vertical {
            modes += (norm.lineCount <= 2 ? [OCRSegmentation.rawLine, .line, .block] : [.block]).filter { $0 != first }
        }
        var best: (segmentation: OCRSegmentation, text: String, confidence: Double, words: [OCRWord])? = nil
        for mode in modes {
            let raw = tess.recognize(
                norm.image.pixels, width: norm.image.width, height: norm.image.height, segmentation: mode, dpi: 300,
                allowed: region.isPageNumber ? "0123456789ivxlcdmIVXLCDM" : nil)
            let text = Self.tidy(raw.text, script: model.script)
            let confidence = text.isEmpty ? 0 : raw.confidence
            if confidence > best?.confidence ?? -1 { best = (mode, text, confidence, raw.words) }
            if confidence >= Self.sureEnough { break }
        }
        guard let best else {
            return OCRResult(text: "", confidence: 0, words: [], model: model.name, segmentation: first, lineCount: norm.lineCount, scale: norm.scale)
        }
        return OCRResult(
            text: best.text, confidence: best.confidence, words: best.words, model: model.name, segmentation: best.segmentation,
            lineCount: norm.lineCount, scale: norm.scale)
    }

    /// A reading at least this confident is kept without trying other segmentation modes.
    static let sureEnough = 0.75

    /// Tesseract's layout turned into book text: lines of a paragraph joined (with a space, or
    /// directly for scripts written without spaces), a word hyphenated across a line break
    /// re-joined, paragraphs one a line, runs of spaces collapsed.
    public static func tidy(_ raw: String, script: OCRModel.Script) -> String {
        let joiner = (script == .cjk || script == .unspaced) ? "" : " "
        var paragraphs: [String] = []
        var current = ""
        for line in raw.split(separator: "\n", omittingEmptySubsequences: false) {
            let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            let clean = words.joined(separator: " ")
            if clean.isEmpty {
                if !current.isEmpty { paragraphs.append(current) }
                current = ""
                continue
            }
            if current.isEmpty {
                current = clean
            } else if joiner == " ", current.count >= 2, current.hasSuffix("-"), current.dropLast().last?.isLetter == true {
                // "won-" + "derful": the typesetter's hyphen goes; before a capital ("Jean-" +
                // "Paul") it is the author's and stays, without a space.
                current = clean.first?.isLowercase == true ? String(current.dropLast()) + clean : current + clean
            } else {
                current += joiner + clean
            }
        }
        if !current.isEmpty { paragraphs.append(current) }
        if joiner.isEmpty { paragraphs = paragraphs.map(removingSpacesBetweenIdeographs) }
        return paragraphs.joined(separator: "\n")
    }

    /// Tesseract's CJK and Thai models put a space between the words they segment; the scripts
    /// write none. A space stays only between two characters of a spaced script (Latin words or
    /// numbers inside Japanese text).
    static func removingSpacesBetweenIdeographs(_ s: String) -> String {
        let chars = Array(s)
        func unspaced(_ c: Character) -> Bool { (c.unicodeScalars.first?.value ?? 0) >= 0x0E00 }
        var out = ""
        for (i, c) in chars.enumerated() {
            if c == " ", i > 0, i + 1 < chars.count, unspaced(chars[i - 1]) || unspaced(chars[i + 1]) { continue }
            out.append(c)
        }
        return out
    }
}
