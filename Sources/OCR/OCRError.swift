// The OCR stage's one error type. Every case says what to do about it, because the person who
// meets it is a librarian running `picturebook ocr`, not the author of this module.

/// Why a region could not be read.
public enum OCRError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No Tesseract model exists for this language (e.g. Mongolian in the traditional script):
    /// the text is left for a person to type, never guessed with another language's model.
    case unsupportedLanguage(String)
    /// A model exists but is not installed on this machine.
    case modelNotInstalled(language: String, model: String, package: String, searched: [String])
    /// Tesseract refused to start with an installed model (a damaged .traineddata file).
    case engineFailed(model: String, path: String)
    /// The region lies outside the page or has no pixels.
    case emptyRegion(String)

    public var description: String {
        switch self {
        case .unsupportedLanguage(let tag):
            return "no OCR model exists for language \"\(tag)\"; its text is left for a person to enter"
        case .modelNotInstalled(let tag, let model, let package, let searched):
            let places = searched.isEmpty ? "no tessdata folder found" : "looked in " + searched.joined(separator: ", ")
            return "the OCR model \(model) for language \"\(tag)\" is not installed (\(places)); install the Debian package \(package) (Tools/setup.sh does) or set TESSDATA_PREFIX"
        case .engineFailed(let model, let path):
            return "Tesseract could not load the model \(model) from \(path); the .traineddata file may be damaged — reinstall it"
        case .emptyRegion(let what):
            return "nothing to read: \(what)"
        }
    }
}
