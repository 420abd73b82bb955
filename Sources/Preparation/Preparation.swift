// The per-page work that `picturebook clear`/`popout` run over a whole book and that the reader
// runs on demand for one page: clearing the printed text, cropping a text block, and shrinking a
// scan for the screen. Pure functions of their inputs; callers decide where outputs go.

public import ClearText
public import Geometry
public import Raster
import Codecs
import Dispatch
import FileIO
import Foundation

/// Identifies a source file's version by its size and modification time: an output made from
/// it is current while this string is unchanged.
public enum SourceKey {
    /// `src=<size>@<mtime>`, or `src=-1@-1` for a file that cannot be read.
    public static func of(_ path: String) -> String {
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? -1
        return "src=\(size)@\(FileIO.modificationTime(path) ?? -1)"
    }
}

/// A page with its text in-filled away, with what it took.
public struct ClearedPage: Sendable {
    public var image: Bitmap<RGBA8>
    /// 255 where pixels were replaced.
    public var fill: Bitmap<UInt8>
    public var regions: [RegionReport]
    /// "estimate", or "file+estimate" when a mask file was used.
    public var maskKind: String
    public var maskMilliseconds: Double
    public var infillMilliseconds: Double
}

public enum PageClearing {
    /// Clears `boxes` on `page`. The ink is the union of `maskFile` (a gray PNG the size of the
    /// page, when it exists) and the box-wise estimate: the detector that writes mask files keeps
    /// only letter-like components and can drop quotation marks or Arabic dots, and a box a
    /// librarian drew may hold no detected ink at all.
    public static func clear(
        page image: Bitmap<RGBA8>, boxes: [PixelRect], maskFile: String?, source: String,
        infill: InFill, maskParameters: InkMaskParameters = InkMaskParameters()
    ) throws -> ClearedPage {
        let t0 = DispatchTime.now()
        var mask: Bitmap<UInt8>
        var maskKind = "estimate"
        if let maskFile, FileIO.exists(maskFile) {
            mask = try ImageDecoder.decodeGray(file: maskFile)
            guard mask.width == image.width, mask.height == image.height else {
                throw ClearTextError.maskSizeMismatch(
                    page: source, pageWidth: image.width, pageHeight: image.height, maskWidth: mask.width, maskHeight: mask.height)
            }
            let estimate = InkMask.estimate(page: image, regions: boxes, parameters: maskParameters)
            mask.pixels.withUnsafeMutableBufferPointer { m in
                estimate.pixels.withUnsafeBufferPointer { e in
                    for i in m.indices where e[i] > m[i] { m[i] = e[i] }
                }
            }
            maskKind = "file+estimate"
        } else {
            mask = InkMask.estimate(page: image, regions: boxes, parameters: maskParameters)
        }
        let t1 = DispatchTime.now()
        let fill = infill.fillMask(mask: mask, regions: boxes)
        let (cleared, reports) = infill.fillMasked(page: image, fill: fill, regions: boxes)
        let t2 = DispatchTime.now()
        func ms(_ a: DispatchTime, _ b: DispatchTime) -> Double { Double(b.uptimeNanoseconds - a.uptimeNanoseconds) / 1e6 }
        return ClearedPage(
            image: cleared, fill: fill, regions: reports, maskKind: maskKind,
            maskMilliseconds: ms(t0, t1), infillMilliseconds: ms(t1, t2))
    }
}

public enum PagePreparation {
    /// Decodes a page scan (PNG or JPEG, EXIF orientation applied).
    public static func decode(_ path: String) throws -> Bitmap<RGBA8> { try ImageDecoder.decode(file: path) }

    /// The crop of `box` for PopoutText. The line height is measured from the ink only when the
    /// parameters ask for a target text height.
    public static func popout(
        page image: Bitmap<RGBA8>, box: PixelRect, boxID: String, source: String,
        parameters: PopoutParameters = PopoutParameters()
    ) throws -> Bitmap<RGBA8> {
        let mask = parameters.targetTextHeight == nil ? nil : InkMask.estimate(page: image, in: box)
        return try ClearText.Popout.crop(page: image, box: box, mask: mask, parameters: parameters, name: source, boxID: boxID).image
    }

    /// The image in `path` shrunk (never enlarged) to fit `maxWidth`×`maxHeight`. A JPEG is
    /// decoded straight at the smallest DCT scale that still covers the target, which makes a
    /// thumbnail of a large scan several times cheaper than a full decode.
    public static func fitted(file path: String, maxWidth: Int, maxHeight: Int, fastDecode: Bool = true) throws -> Bitmap<RGBA8> {
        let info = try ImageDecoder.info(file: path)
        let (w, h) = Bitmap<RGBA8>.fittedSize(
            width: info.orientedWidth, height: info.orientedHeight, maxWidth: maxWidth, maxHeight: maxHeight)
        let scale = JPEGScale.largestReduction(from: info, covering: w, h)
        let decoded = try ImageDecoder.decode(file: path, options: DecodeOptions(jpegScale: scale, fastJPEG: fastDecode))
        return fitted(decoded, maxWidth: maxWidth, maxHeight: maxHeight)
    }

    /// `image` shrunk (never enlarged) to fit `maxWidth`×`maxHeight`.
    public static func fitted(_ image: Bitmap<RGBA8>, maxWidth: Int, maxHeight: Int) -> Bitmap<RGBA8> {
        image.resized(fittingWidth: maxWidth, height: maxHeight)
    }

    public static func jpeg(_ image: Bitmap<RGBA8>, quality: Int = 85, name: String = "image") throws -> [UInt8] {
        try JPEGEncoder.encode(image, options: JPEGEncodeOptions(quality: quality, progressive: false), name: name)
    }

    /// Fast PNG (low zlib effort): prepared pages are written once and read many times, but a
    /// reader waiting on the first one should not wait for the last few percent of size.
    public static func png(_ image: Bitmap<RGBA8>, name: String = "image") throws -> [UInt8] {
        try PNGEncoder.encode(image, options: .fast, name: name)
    }
}
