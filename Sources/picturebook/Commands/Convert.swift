import ArgumentParser
import Codecs
import FileIO
import Foundation
import Geometry
import Raster

struct Convert: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Convert an image between PNG and JPEG, optionally resizing it.",
        discussion: """
            The input format is read from the file's content; the output format from OUT's extension \
            (.png, .jpg, .jpeg) or --format. EXIF orientation is applied, so the output is upright. \
            Shrinking uses area averaging (and, for JPEG input, decodes at 1/2, 1/4 or 1/8 size \
            first so large scans are never fully decoded); enlarging uses Lanczos-3. \
            The output is written atomically: it appears complete or not at all.

            Examples:
              picturebook convert scan.jpg scan.png
              picturebook convert scan.png thumb.jpg --fit 300x400 --quality 85
              picturebook convert page.jpg half.png --scale 0.5 --compression fast
            """)

    @Argument(help: "Input image (PNG, JPEG, TIFF or JPEG 2000).", completion: .file())
    var input: String

    @Argument(help: "Output file.", completion: .file())
    var output: String

    @Option(help: "Resize by this factor, e.g. 0.25 or 2.")
    var scale: Double?

    @Option(help: "Resize to fit inside WxH pixels, keeping the aspect ratio.")
    var fit: String?

    @Option(help: "Output format: png or jpeg (default: from OUT's extension).")
    var format: String?

    @Option(help: "JPEG quality, 1-100.")
    var quality: Int = 90

    @Option(help: "PNG compression: fast, default or smallest (or a zlib level 0-9).")
    var compression: String = "default"

    func validate() throws {
        if let s = scale, !(s > 0 && s <= 16) { throw ValidationError("--scale must be in (0, 16], got \(s)") }
        if scale != nil && fit != nil { throw ValidationError("give --scale or --fit, not both") }
        if let f = fit, Self.parseSize(f) == nil { throw ValidationError("--fit must look like 300x400, got '\(f)'") }
        guard (1...100).contains(quality) else { throw ValidationError("--quality must be 1-100, got \(quality)") }
        _ = try outputFormat()
        _ = try pngLevel()
    }

    static func parseSize(_ s: String) -> (Int, Int)? {
        guard let d = parseDimensions(s), let w = Int(exactly: d.width), let h = Int(exactly: d.height), w > 0, h > 0 else { return nil }
        return (w, h)
    }

    func outputFormat() throws -> ImageFormat {
        let name = (format ?? (output as NSString).pathExtension).lowercased()
        switch name {
        case "png": return .png
        case "jpg", "jpeg": return .jpeg
        default:
            throw ValidationError("cannot tell the output format from '\(output)'; use a .png or .jpg name or --format png|jpeg")
        }
    }

    func pngLevel() throws -> Int {
        switch compression {
        case "fast": return 1
        case "default": return 6
        case "smallest": return 9
        default:
            guard let n = Int(compression), (0...9).contains(n) else {
                throw ValidationError("--compression must be fast, default, smallest or 0-9, got '\(compression)'")
            }
            return n
        }
    }

    func run() async throws {
        try reportingFailure {
            // Decoded from the file, read in pieces: the encoded file is not held beside the image.
            let info = try ImageDecoder.info(file: input)
            var target: (Int, Int)?
            if let s = scale {
                target = (max(1, Int((Double(info.orientedWidth) * s).rounded())), max(1, Int((Double(info.orientedHeight) * s).rounded())))
            } else if let f = fit, let (w, h) = Self.parseSize(f) {
                let fitted = Size(width: Double(info.orientedWidth), height: Double(info.orientedHeight))
                    .fitted(into: Size(width: Double(w), height: Double(h)))
                target = (max(1, Int(fitted.width.rounded())), max(1, Int(fitted.height.rounded())))
            }
            if let (w, h) = target {
                try validateOutputSize(width: Double(w), height: Double(h), what: "\(input) resized")
            }
            var options = DecodeOptions()
            if let (w, h) = target {
                options.jpegScale = JPEGScale.largestReduction(from: info, covering: w, h)
            }
            var bitmap = try ImageDecoder.decode(file: input, options: options)
            if let (w, h) = target, w != bitmap.width || h != bitmap.height {
                bitmap = bitmap.resized(width: w, height: h)
            }
            // Written as encoded (PNG a batch of rows at a time), atomically: the compressed file
            // is never held whole beside the image.
            switch try outputFormat() {
            case .png: try PNGEncoder.write(bitmap, to: output, options: PNGEncodeOptions(compressionLevel: try pngLevel()))
            case .jpeg: try JPEGEncoder.write(bitmap, to: output, options: JPEGEncodeOptions(quality: quality))
            case .tiff, .jpeg2000, .pdf: throw ValidationError("Picturebook writes PNG and JPEG only")  // outputFormat() never returns these
            }
        }
    }
}
