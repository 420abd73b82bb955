// Reading a proposed line, to tell printed text from a drawing that looks like text at the
// detector's scale (issue 17: the false boxes left on text-free pages are teeth, rows of grain,
// hatching, a painted cat or duck).
//
// The detector (DBNet) sees texture: every pixel's probability of being the core of a line. A
// recogniser sees sequence: it must map the strip to characters of a script, step by step, and its
// own confidence in what it read is low for a strip of hatching or a duck even when the strip has
// the rhythm of type. PP-OCRv4's recogniser (SVTR-LCNet with a CTC head, Apache-2.0, shipped in
// the same rapidocr-onnxruntime wheel as the detector) is trained on Chinese and Latin text, so it
// is evidence only for those scripts: `ReadingCheck` says when it applies.
//
// Nothing of what it reads is kept: only how sure it was. The text of a box comes from
// `picturebook ocr` (Tesseract, in the book's own language) or from a person.

import Foundation
public import Raster

/// The learned line recogniser, used as a check, not as OCR.
public final class LearnedTextReader: Sendable {
    private let model: OnnxModel
    /// Lines are scaled to this height before the model sees them (the model's training height).
    public static let inputHeight = 48

    /// Loads the model. `threads` is the runtime's threads per run (0: its own choice).
    public init(library: String, model path: String, threads: Int = 1) throws(TextDetectionError) {
        model = try OnnxModel(library: library, model: path, threads: threads)
    }

    /// How sure the recogniser is that `line` — an upright strip of one line, reading left to
    /// right — is text it can read, 0…1: the mean, over the characters it read, of the
    /// probability of each (greedy CTC decoding: the most likely class per step, repeats and
    /// blanks removed). 0 when it reads nothing.
    public func confidence(of line: Bitmap<RGBA8>) throws(TextDetectionError) -> Double {
        guard line.width >= 2, line.height >= 2 else { return 0 }
        let h = Self.inputHeight
        // At least a few steps wide (the network downsamples width by 8) and at most 40 line
        // heights: the caller sends a window of a line, not a page.
        let w = max(16, min(40 * h, Int((Double(h) * Double(line.width) / Double(line.height)).rounded())))
        let input = Self.tensor(line.resized(width: w, height: h), width: w, height: h)
        let (values, shape) = try model.run(input, shape: [1, 3, h, w])
        guard shape.count == 3, shape[0] == 1, shape[1] > 0, shape[2] > 1, values.count == shape[1] * shape[2] else {
            throw .failed("the reader answered with shape \(shape), expected [1, steps, classes]")
        }
        return Self.greedyConfidence(values, steps: shape[1], classes: shape[2])
    }

    /// The planar BGR tensor of a `width`×`height` strip, each channel scaled to -1…1 (the
    /// recogniser's training normalisation: (v / 255 − 0.5) / 0.5).
    static func tensor(_ strip: Bitmap<RGBA8>, width w: Int, height h: Int) -> [Float] {
        var out = [Float](repeating: 0, count: 3 * w * h)
        let plane = w * h
        strip.pixels.withUnsafeBufferPointer { px in
            out.withUnsafeMutableBufferPointer { o in
                for i in 0..<plane {
                    let p = px[i]
                    o[i] = Float(p.b) / 127.5 - 1
                    o[plane + i] = Float(p.g) / 127.5 - 1
                    o[2 * plane + i] = Float(p.r) / 127.5 - 1
                }
            }
        }
        return out
    }

    /// Greedy CTC over `steps` rows of `classes` probabilities (class 0 is the blank): the mean
    /// probability of the characters read, 0 when none is.
    static func greedyConfidence(_ p: [Float], steps: Int, classes: Int) -> Double {
        var sum = 0.0, count = 0, previous = -1
        for t in 0..<steps {
            var best = 0
            var bestP: Float = -1
            for c in 0..<classes where p[t * classes + c] > bestP { bestP = p[t * classes + c]; best = c }
            if best != 0 && best != previous { sum += Double(bestP); count += 1 }
            previous = best
        }
        return count > 0 ? sum / Double(count) : 0
    }
}
