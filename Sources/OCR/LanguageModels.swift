// Book languages are BCP 47 tags ("en", "zh-Hans", "mn-Mong"); Tesseract names its models with
// ISO 639-2/T codes and its own script suffixes ("eng", "chi_sim", "jpn_vert"). This table maps
// one to the other for the languages Debian ships a model for. A tag that is not here has no
// model: it is reported, never read with a neighbouring language's model, because confident
// nonsense in book.json is worse than an empty box a librarian fills in.

/// Which Tesseract model reads a language, and which Debian package installs it.
public struct OCRModel: Hashable, Sendable, CustomStringConvertible {
    /// The traineddata name, e.g. "chi_sim_vert".
    public var name: String
    /// True when the model reads top-to-bottom columns.
    public var vertical: Bool
    /// Script family, which decides how lines are joined and how large glyphs should be.
    public var script: Script

    public enum Script: Sendable, Hashable {
        /// Alphabets with an x-height (Latin, Cyrillic, Greek…): lines joined with a space.
        case alphabetic
        /// Arabic, Hebrew: right-to-left, joined with a space.
        case rightToLeft
        /// Chinese, Japanese: no spaces between words, lines joined directly.
        case cjk
        /// Thai, Lao, Khmer, Myanmar: no spaces between words either.
        case unspaced
    }

    /// The Debian package holding the model: tesseract-ocr-chi-sim-vert for chi_sim_vert.
    public var package: String { "tesseract-ocr-" + name.replacingOccurrences(of: "_", with: "-") }
    public var description: String { name }
}

public enum OCRLanguages {
    /// Language (lower-case primary subtag, or "language-Script") → model base name and script.
    /// Tags with a script subtag are looked up with it first, so "mn-Mong" (traditional script,
    /// no model) is not read with "mn" (Cyrillic Mongolian).
    static let table: [String: (String, OCRModel.Script)] = [
        "en": ("eng", .alphabetic), "fr": ("fra", .alphabetic), "es": ("spa", .alphabetic), "de": ("deu", .alphabetic),
        "it": ("ita", .alphabetic), "pt": ("por", .alphabetic), "nl": ("nld", .alphabetic), "sv": ("swe", .alphabetic),
        "da": ("dan", .alphabetic), "nb": ("nor", .alphabetic), "no": ("nor", .alphabetic), "fi": ("fin", .alphabetic),
        "pl": ("pol", .alphabetic), "cs": ("ces", .alphabetic), "sk": ("slk", .alphabetic), "hu": ("hun", .alphabetic),
        "ro": ("ron", .alphabetic), "tr": ("tur", .alphabetic), "id": ("ind", .alphabetic), "ms": ("msa", .alphabetic),
        "fil": ("fil", .alphabetic), "tl": ("tgl", .alphabetic), "vi": ("vie", .alphabetic), "sw": ("swa", .alphabetic),
        "haw": ("eng", .alphabetic), "ca": ("cat", .alphabetic), "eu": ("eus", .alphabetic), "ga": ("gle", .alphabetic),
        "cy": ("cym", .alphabetic), "is": ("isl", .alphabetic), "hr": ("hrv", .alphabetic), "sl": ("slv", .alphabetic),
        "lt": ("lit", .alphabetic), "lv": ("lav", .alphabetic), "et": ("est", .alphabetic), "la": ("lat", .alphabetic),
        "ru": ("rus", .alphabetic), "uk": ("ukr", .alphabetic), "bg": ("bul", .alphabetic), "sr": ("srp", .alphabetic),
        "mk": ("mkd", .alphabetic), "be": ("bel", .alphabetic), "kk": ("kaz", .alphabetic), "el": ("ell", .alphabetic),
        "mn": ("mon", .alphabetic), "mn-Cyrl": ("mon", .alphabetic), "hy": ("hye", .alphabetic), "ka": ("kat", .alphabetic),
        "hi": ("hin", .alphabetic), "mr": ("mar", .alphabetic), "ne": ("nep", .alphabetic), "bn": ("ben", .alphabetic),
        "ta": ("tam", .alphabetic), "te": ("tel", .alphabetic), "kn": ("kan", .alphabetic), "ml": ("mal", .alphabetic),
        "gu": ("guj", .alphabetic), "pa": ("pan", .alphabetic), "si": ("sin", .alphabetic), "am": ("amh", .alphabetic),
        "ar": ("ara", .rightToLeft), "fa": ("fas", .rightToLeft), "ur": ("urd", .rightToLeft), "he": ("heb", .rightToLeft),
        "yi": ("yid", .rightToLeft),
        "th": ("tha", .unspaced), "lo": ("lao", .unspaced), "km": ("khm", .unspaced), "my": ("mya", .unspaced),
        "zh": ("chi_sim", .cjk), "zh-Hans": ("chi_sim", .cjk), "zh-Hant": ("chi_tra", .cjk), "yue": ("chi_tra", .cjk),
        "ja": ("jpn", .cjk), "ko": ("kor", .cjk),
    ]

    /// Scripts that have no model whatever the language (traditional Mongolian, Manchu, Tifinagh…).
    static let scriptsWithoutModel: Set<String> = ["Mong", "Tfng", "Cher", "Cans", "Yiii", "Vaii", "Nkoo", "Adlm"]

    /// Models that also come in a vertical (top-to-bottom) variant.
    static let verticalVariants: Set<String> = ["chi_sim", "chi_tra", "jpn", "kor"]

    /// The model that reads `tag` printed horizontally or vertically; throws `.unsupportedLanguage`
    /// when there is none.
    public static func model(for tag: String, vertical: Bool) throws(OCRError) -> OCRModel {
        let parts = tag.split(separator: "-").map(String.init)
        guard let first = parts.first, !first.isEmpty else { throw .unsupportedLanguage(tag) }
        let language = first.lowercased()
        // A script subtag is the second subtag when it has four letters.
        let script = parts.dropFirst().first.flatMap { $0.count == 4 && $0.allSatisfy(\.isLetter) ? $0.prefix(1).uppercased() + $0.dropFirst().lowercased() : nil }
        if let script, scriptsWithoutModel.contains(script) { throw .unsupportedLanguage(tag) }
        let entry = script.flatMap { table[language + "-" + $0] } ?? table[language]
        guard let (base, kind) = entry else { throw .unsupportedLanguage(tag) }
        // A region changes the model only for Chinese: zh-TW / zh-HK print traditional characters.
        var name = base
        if language == "zh", script == nil, let region = parts.dropFirst().first?.uppercased(), ["TW", "HK", "MO"].contains(region) {
            name = "chi_tra"
        }
        if vertical, verticalVariants.contains(name) {
            return OCRModel(name: name + "_vert", vertical: true, script: kind)
        }
        return OCRModel(name: name, vertical: false, script: kind)
    }
}
