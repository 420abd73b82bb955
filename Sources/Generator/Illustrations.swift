// Real illustrations for the second synthetic corpus (`generate --illustrations DIR`): loading a
// folder of public-domain plates and drawing them, resampled, onto a page canvas.
//
// The corpus exists because a generator that paints its own scenes only tests a detector on the
// art it was tuned on; real plates bring real hatching, washes, faces and foliage under the text.

import Foundation
import Codecs
import Geometry
public import Raster

/// One decoded illustration.
public struct Illustration: Sendable {
    /// The file name inside the folder (recorded nowhere else: plans refer to images by index).
    public var name: String
    public var image: Bitmap<RGBA8>
    /// Width over height.
    var aspect: Double { Double(image.width) / Double(image.height) }
}

public enum IllustrationLibrary {
    /// Every image in `directory`, sorted by file name so a plan's indices are stable. Files that
    /// document the folder (README, *.md, *.json such as sources.json) and hidden files are
    /// skipped; anything else must decode as an image, so a stray file is an error, not a gap.
    public static func load(_ directory: String) throws(GeneratorError) -> [Illustration] {
        let fm = FileManager.default
        var isDir: ObjCBool = false
        guard fm.fileExists(atPath: directory, isDirectory: &isDir) else {
            throw .illustrations(path: directory, reason: "no such folder")
        }
        guard isDir.boolValue else { throw .illustrations(path: directory, reason: "is a file, expected a folder of images") }
        let names: [String]
        do {
            names = try fm.contentsOfDirectory(atPath: directory).sorted()
        } catch {
            throw .illustrations(path: directory, reason: "cannot be listed: \(error.localizedDescription)")
        }
        var out: [Illustration] = []
        for name in names where !name.hasPrefix(".") {
            let lower = name.lowercased()
            if lower.hasSuffix(".md") || lower.hasSuffix(".json") || lower.hasPrefix("readme") || lower == "license" { continue }
            let path = directory + "/" + name
            var sub: ObjCBool = false
            if fm.fileExists(atPath: path, isDirectory: &sub), sub.boolValue { continue }
            guard let data = fm.contents(atPath: path) else { throw .illustrations(path: path, reason: "cannot be read") }
            let image: Bitmap<RGBA8>
            do {
                image = try ImageDecoder.decode(Array(data), name: path)
            } catch {
                throw .illustrations(path: path, reason: "not a readable image (\(error.description))")
            }
            guard image.width >= 32, image.height >= 32 else {
                throw .illustrations(path: path, reason: "too small (\(image.width)×\(image.height); at least 32×32)")
            }
            out.append(Illustration(name: name, image: image))
        }
        guard !out.isEmpty else {
            throw .illustrations(path: directory, reason: "holds no images (expected PNG or JPEG illustrations)")
        }
        return out
    }
}

extension Canvas {
    /// Draws `source` scaled into `dest` (canvas pixels), sampling bilinearly from the part
    /// `crop` of the image (image pixels). Only pixels inside `clip` (default: the canvas) change.
    mutating func draw(_ source: Bitmap<RGBA8>, crop: Rect, into dest: Rect, clip: PixelRect? = nil) {
        guard dest.width > 0, dest.height > 0, crop.width > 0, crop.height > 0 else { return }
        let area = (clip ?? bounds).intersection(dest.enclosingPixelRect) ?? PixelRect(x: 0, y: 0, width: 0, height: 0)
        guard area.width > 0, area.height > 0 else { return }
        let sx = crop.width / dest.width, sy = crop.height / dest.height
        let iw = source.width, ih = source.height
        let w = width
        let src = source.pixels
        data.withUnsafeMutableBufferPointer { o in
            rowsInParallel(area.height) { row in
                let y = area.y + row
                let fy = max(0, min(Double(ih - 1), crop.minY + (Double(y) + 0.5 - dest.minY) * sy - 0.5))
                let y0 = Int(fy), y1 = min(ih - 1, y0 + 1)
                let ty = Float(fy - Double(y0))
                for x in area.x..<(area.x + area.width) {
                    let fx = max(0, min(Double(iw - 1), crop.minX + (Double(x) + 0.5 - dest.minX) * sx - 0.5))
                    let x0 = Int(fx), x1 = min(iw - 1, x0 + 1)
                    let tx = Float(fx - Double(x0))
                    let a = src[y0 * iw + x0], b = src[y0 * iw + x1], c = src[y1 * iw + x0], d = src[y1 * iw + x1]
                    @inline(__always) func mix(_ p: UInt8, _ q: UInt8, _ r: UInt8, _ s: UInt8) -> Float {
                        let top = Float(p) + (Float(q) - Float(p)) * tx
                        let bottom = Float(r) + (Float(s) - Float(r)) * tx
                        return (top + (bottom - top) * ty) / 255
                    }
                    let i = (y * w + x) * 3
                    o[i] = mix(a.r, b.r, c.r, d.r)
                    o[i + 1] = mix(a.g, b.g, c.g, d.g)
                    o[i + 2] = mix(a.b, b.b, c.b, d.b)
                }
            }
        }
    }

    /// Mean and spread of luma inside `r` (sampled on a grid): how light the ground under a text
    /// block is, to pick an ink that reads against it.
    func lumaStats(in r: PixelRect) -> (mean: Float, sd: Float) {
        guard let a = bounds.intersection(r), a.width > 0, a.height > 0 else { return (1, 0) }
        let step = max(1, min(a.width, a.height) / 24)
        var sum: Float = 0, sq: Float = 0, n: Float = 0
        var y = a.y
        while y < a.y + a.height {
            var x = a.x
            while x < a.x + a.width {
                let l = pixel(x, y).luma
                sum += l; sq += l * l; n += 1
                x += step
            }
            y += step
        }
        let mean = sum / n
        return (mean, max(0, sq / n - mean * mean).squareRoot())
    }
}
