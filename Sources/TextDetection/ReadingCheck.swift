// A proposed block is kept only when the recogniser can read some of it (LearnedTextReader).
//
// One principle, no per-kind rules: printed text is something a reader model trained on the
// script reads with confidence; a drawing that has the rhythm of type (teeth, grain, hatching, a
// painted figure) is not. Each block's longest lines are read over a short window from their
// start — enough glyphs to tell text, little enough to cost one small run — and the block is kept
// as soon as one of them reads with `threshold` confidence. A vertical line is turned a quarter
// turn counter-clockwise (how CJK and Mongolian columns read as rows), then clockwise (Latin
// lettered up a post) before it fails.
//
// The recogniser knows Chinese and Latin; its low confidence on a script it was never trained on
// means nothing, so the check applies only to books whose printed language is written in the Latin
// script (`applies(toLanguage:)`). Chinese is left out until it has been measured on real scans.
//
// Decided on Benchmarks/RealCorpus (the threshold: the lowest-confidence correct box there reads at
// 0.40, the false boxes on its text-free pages at 0.00–0.48); confirmed on HeldOut, the synthetic
// corpora and the text-free plates. Documentation/Evaluation.md has the figures.

public import Geometry
public import Raster

/// The reading check's settings.
public struct ReadingCheck: Sendable, Hashable, CustomStringConvertible {
    /// A block is text when one of its lines reads with at least this confidence.
    public var threshold: Double = 0.5
    /// Each line is read over at most this many of its thicknesses from its start.
    public var window: Double = 5
    /// At most this many of a block's lines are read, longest first.
    public var maximumLines: Int = 3
    /// Off gives back the detector without the check.
    public var isEnabled = true

    public init() {}

    public var description: String {
        "ReadingCheck(threshold: \(threshold), window: \(window), maximumLines: \(maximumLines), isEnabled: \(isEnabled))"
    }

    /// Sets a parameter by name (`--set read.NAME=VALUE`); false for an unknown name.
    public mutating func set(_ name: String, to value: Double) -> Bool {
        switch name {
        case "threshold": threshold = value
        case "window": window = value
        case "maximumLines": maximumLines = Int(value)
        case "enabled": isEnabled = value != 0
        default: return false
        }
        return true
    }

    /// Languages whose printed text is in the Latin script (ISO 639 codes). Languages written
    /// with many stacked diacritics (Vietnamese, Yoruba) are left out: the recogniser's alphabet
    /// has the base letters only, and its confidence there has not been measured.
    static let latinLanguages: Set<String> = [
        "af", "ay", "az", "br", "bs", "ca", "ceb", "ch", "co", "cs", "cy", "da", "de", "en", "eo", "es", "et",
        "eu", "fi", "fil", "fj", "fo", "fr", "fy", "ga", "gd", "gl", "gn", "gv", "ha", "haw", "hr", "ht", "hu",
        "id", "ig", "is", "it", "jv", "kl", "la", "lb", "lt", "lv", "mg", "mh", "mi", "ms", "mt", "nb", "nl",
        "nn", "no", "ny", "oc", "om", "pl", "pt", "qu", "rm", "rn", "ro", "rw", "sm", "sn", "so", "sq", "st",
        "su", "sv", "sw", "tl", "tn", "to", "tr", "ts", "tk", "ty", "uz", "wa", "wo", "xh", "zu",
    ]

    /// Whether the recogniser's confidence is evidence for text printed in `language` (a BCP 47
    /// tag): its script is Latin, named in the tag (`sr-Latn`) or the language's usual one.
    public static func applies(toLanguage language: String) -> Bool {
        let parts = language.split(separator: "-").map { $0.lowercased() }
        guard let primary = parts.first else { return false }
        if let script = parts.dropFirst().first(where: { $0.count == 4 && $0.allSatisfy(\.isLetter) }) {
            return script == "latn"
        }
        return latinLanguages.contains(primary)
    }

    /// Whether a block whose lines are `lines` (page pixels) reads as text.
    public func reads(lines: [Rect], vertical: Bool, on page: Bitmap<RGBA8>, with reader: LearnedTextReader) throws(TextDetectionError) -> Bool {
        let pageRect = PixelRect(x: 0, y: 0, width: page.width, height: page.height)
        let longest = lines.sorted { (vertical ? $0.height : $0.width) > (vertical ? $1.height : $1.width) }.prefix(max(1, maximumLines))
        for line in longest {
            guard let crop = window(of: line, vertical: vertical).intersection(pageRect), crop.width >= 2, crop.height >= 2 else { continue }
            let strip = page.cropped(to: crop)
            let turns: [QuarterTurn?] = vertical ? [.counterclockwise, .clockwise] : [nil]
            for turn in turns {
                let upright = turn.map { strip.rotated($0) } ?? strip
                if try reader.confidence(of: upright) >= threshold { return true }
            }
        }
        return false
    }

    /// The first `window` thicknesses of a line, in whole pixels.
    func window(of line: Rect, vertical: Bool) -> PixelRect {
        let x0 = Int(line.minX.rounded()), y0 = Int(line.minY.rounded())
        var x1 = Int(line.maxX.rounded()), y1 = Int(line.maxY.rounded())
        if vertical {
            y1 = min(y1, y0 + Int(window * Double(x1 - x0)))
        } else {
            x1 = min(x1, x0 + Int(window * Double(y1 - y0)))
        }
        return PixelRect(x: x0, y: y0, width: max(0, x1 - x0), height: max(0, y1 - y0))
    }
}
