// The only file that touches Tesseract's C API. A `TesseractHandle` is one TessBaseAPI with one
// model loaded; Tesseract's handles are not thread-safe, so a handle belongs to one `OCREngine`
// and an engine to one worker.

internal import CTesseract
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// How Tesseract should cut the image into lines (its page-segmentation modes).
public enum OCRSegmentation: String, Sendable, Hashable {
    /// A uniform block of horizontal text (PSM 6).
    case block
    /// One line (PSM 7): a title, a page number, a caption.
    case line
    /// A block of vertical text, columns right to left (PSM 5).
    case verticalBlock
    /// One word (PSM 8): page numbers, where the line finder stumbles on two digits.
    case word
    /// One line given straight to the recogniser, no layout analysis (PSM 13). Tesseract's line
    /// finder loses whole clean Arabic lines that this reads perfectly.
    case rawLine

    var psm: TessPageSegMode {
        switch self {
        case .block: PSM_SINGLE_BLOCK
        case .line: PSM_SINGLE_LINE
        case .verticalBlock: PSM_SINGLE_BLOCK_VERT_TEXT
        case .word: PSM_SINGLE_WORD
        case .rawLine: PSM_RAW_LINE
        }
    }
}

/// One recognised word and how sure Tesseract was of it (0…1).
public struct OCRWord: Sendable, Hashable {
    public var text: String
    public var confidence: Double
}

final class TesseractHandle {
    private let api: OpaquePointer
    let model: String

    /// Loads `model` from `dataPath` with Tesseract's chatter sent to /dev/null: its tprintf output
    /// ("Estimating resolution as …", "Empty page!!") is not for a librarian's terminal.
    init(dataPath: String, model: String) throws(OCRError) {
        guard let api = TessBaseAPICreate() else { throw .engineFailed(model: model, path: dataPath) }
        self.api = api
        self.model = model
        let names = ["debug_file", "tessedit_write_images"], values = ["/dev/null", "0"]
        var cNames = names.map { strdup($0) }, cValues = values.map { strdup($0) }
        defer {
            cNames.forEach { free($0) }
            cValues.forEach { free($0) }
        }
        let status = cNames.withUnsafeMutableBufferPointer { n in
            cValues.withUnsafeMutableBufferPointer { v in
                TessBaseAPIInit4(api, dataPath, model, OEM_LSTM_ONLY, nil, 0, n.baseAddress, v.baseAddress, names.count, 0)
            }
        }
        guard status == 0 else {
            TessBaseAPIDelete(api)
            throw .engineFailed(model: model, path: dataPath)
        }
        // Word-level spacing as printed, not guessed from a fixed-pitch font.
        TessBaseAPISetVariable(api, "preserve_interword_spaces", "0")
    }

    deinit {
        TessBaseAPIEnd(api)
        TessBaseAPIDelete(api)
    }

    /// Reads a grey image. Returns the text as Tesseract laid it out (lines separated by "\n"),
    /// the mean word confidence (0…1) and the words.
    /// `allowed`: the only characters the result may contain (nil: any).
    func recognize(_ image: [UInt8], width: Int, height: Int, segmentation: OCRSegmentation, dpi: Int, allowed: String? = nil)
        -> (text: String, confidence: Double, words: [OCRWord])
    {
        TessBaseAPISetPageSegMode(api, segmentation.psm)
        // The handle is reused for every box, so the whitelist is set (or cleared) every time.
        TessBaseAPISetVariable(api, "tessedit_char_whitelist", allowed ?? "")
        image.withUnsafeBufferPointer { p in
            TessBaseAPISetImage(api, p.baseAddress, Int32(width), Int32(height), 1, Int32(width))
        }
        // Without a resolution Tesseract warns and guesses; the normaliser has sized the glyphs.
        TessBaseAPISetSourceResolution(api, Int32(dpi))
        defer { TessBaseAPIClear(api) }
        guard TessBaseAPIRecognize(api, nil) == 0 else { return ("", 0, []) }
        var text = ""
        if let c = TessBaseAPIGetUTF8Text(api) {
            text = String(cString: c)
            TessDeleteText(c)
        }
        var words: [OCRWord] = []
        if let it = TessBaseAPIGetIterator(api) {
            defer { TessResultIteratorDelete(it) }
            repeat {
                guard let w = TessResultIteratorGetUTF8Text(it, RIL_WORD) else { continue }
                let word = String(cString: w)
                TessDeleteText(w)
                let conf = Double(TessResultIteratorConfidence(it, RIL_WORD))
                if !word.isEmpty { words.append(OCRWord(text: word, confidence: max(0, min(1, conf / 100)))) }
            } while TessResultIteratorNext(it, RIL_WORD) != 0
        }
        // MeanTextConf weighs words by length; with no words it reports 0, which is the truth.
        let mean = Double(TessBaseAPIMeanTextConf(api)) / 100
        return (text, max(0, min(1, mean)), words)
    }

    static var version: String { TessVersion().map { String(cString: $0) } ?? "unknown" }
}
