// The IIIF Image API 3 service of a page: its description (info.json) and the parsing of an image
// request's region, size, rotation, quality and format into the rectangle to cut and the size to
// send. The service is level 1 (regions and sizes in pixels, square regions, no upscaling) plus the
// percent forms and confined sizes, which cost nothing more once pixels are done. Rotation, mirroring,
// other qualities and formats are refused with 400, as the spec asks of what a level does not offer.

import BookModel

public enum IIIFImageService {
    public static let context = "http://iiif.io/api/image/3/context.json"
    /// Features beyond level 1 that the service offers (Image API 3 §6, "extraFeatures").
    public static let extraFeatures = ["regionByPct", "sizeByPct", "sizeByConfinedWh"]

    public static func info(id: String, width: Int, height: Int) -> [UInt8] {
        let doc: JSONValue = .object([
            "@context": .string(context), "id": .string(id), "type": "ImageService3",
            "protocol": "http://iiif.io/api/image", "profile": "level1",
            "width": .number(JSONNumber(width)), "height": .number(JSONNumber(height)),
            "sizes": [.object(["width": .number(JSONNumber(width)), "height": .number(JSONNumber(height))])],
            "extraFeatures": .array(extraFeatures.map { .string($0) }),
        ])
        return JSONWriter.serialize(doc)
    }
}

/// One image request of the service, resolved against the image's size.
public struct IIIFImageRequest: Hashable, Sendable {
    /// The part of the image to cut, in image pixels, already clipped to the image.
    public var x: Int, y: Int, width: Int, height: Int
    /// The size to send it at; never larger than the cut region (no upscaling is offered).
    public var outputWidth: Int, outputHeight: Int

    public init(x: Int, y: Int, width: Int, height: Int, outputWidth: Int, outputHeight: Int) {
        (self.x, self.y, self.width, self.height, self.outputWidth, self.outputHeight) = (x, y, width, height, outputWidth, outputHeight)
    }

    /// Whether this is the whole image at its own size (served from the scan as it is).
    public func isFull(imageWidth: Int, imageHeight: Int) -> Bool {
        x == 0 && y == 0 && width == imageWidth && height == imageHeight && outputWidth == imageWidth && outputHeight == imageHeight
    }

    /// Why a request cannot be served: every case is a 400 Bad Request with this message.
    public struct Invalid: Error, CustomStringConvertible, Equatable, Sendable {
        public let description: String
        init(_ m: String) { description = m }
    }

    /// Resolves the four path segments after the identifier (`quality` still carries `.format`)
    /// for an image of `imageWidth`×`imageHeight`.
    public static func parse(region: String, size: String, rotation: String, quality qualityAndFormat: String,
                             imageWidth: Int, imageHeight: Int) throws(Invalid) -> IIIFImageRequest {
        guard imageWidth > 0, imageHeight > 0 else { throw Invalid("the image has no pixels") }
        let (qx, qy, qw, qh) = try Self.region(region, imageWidth, imageHeight)
        let (ow, oh) = try Self.size(size, regionWidth: qw, regionHeight: qh)
        // Rotation is a level-2 feature; "0" (and its decimal spellings) is the only one offered.
        guard let degrees = Double(rotation), degrees == 0, !rotation.hasPrefix("!"), !rotation.hasPrefix("-") else {
            throw Invalid("rotation '\(rotation)': this level-1 service offers only 0")
        }
        let parts = qualityAndFormat.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2 else { throw Invalid("'\(qualityAndFormat)' is not quality.format") }
        guard parts[0] == "default" else { throw Invalid("quality '\(parts[0])': this service offers only default") }
        guard parts[1] == "jpg" else { throw Invalid("format '\(parts[1])': this service offers only jpg") }
        return IIIFImageRequest(x: qx, y: qy, width: qw, height: qh, outputWidth: ow, outputHeight: oh)
    }

    /// Region: full, square (centred, the shorter side), x,y,w,h in pixels or pct:x,y,w,h. A region
    /// reaching past the image is clipped to it; one with no pixels inside the image is refused.
    static func region(_ s: String, _ iw: Int, _ ih: Int) throws(Invalid) -> (Int, Int, Int, Int) {
        if s == "full" { return (0, 0, iw, ih) }
        if s == "square" {
            let side = min(iw, ih)
            return ((iw - side) / 2, (ih - side) / 2, side, side)
        }
        let percent = s.hasPrefix("pct:")
        let fields = (percent ? String(s.dropFirst(4)) : s).split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == 4 else { throw Invalid("region '\(s)': expected full, square, x,y,w,h or pct:x,y,w,h") }
        var x: Int, y: Int, w: Int, h: Int
        if percent {
            let v = try fields.map { f throws(Invalid) -> Double in
                guard let d = Double(f), d.isFinite, d >= 0, isDecimal(f) else { throw Invalid("region '\(s)': '\(f)' is not a percentage") }
                return d
            }
            // Percentages of the image, rounded to whole pixels as the spec leaves to the server;
            // capped first so no product can overflow (past 100 % clips or misses the image anyway).
            let c = v.map { min($0, 1000) }
            x = Int((c[0] * Double(iw) / 100).rounded()); y = Int((c[1] * Double(ih) / 100).rounded())
            w = Int((c[2] * Double(iw) / 100).rounded()); h = Int((c[3] * Double(ih) / 100).rounded())
        } else {
            let v = try fields.map { f throws(Invalid) -> Int in
                guard let n = Int(f), n >= 0, isDigits(f) else { throw Invalid("region '\(s)': '\(f)' is not a whole number of pixels") }
                return n
            }
            (x, y, w, h) = (v[0], v[1], v[2], v[3])
        }
        guard w > 0, h > 0 else { throw Invalid("region '\(s)' has no width or no height") }
        guard x < iw, y < ih else { throw Invalid("region '\(s)' lies outside the \(iw)×\(ih) image") }
        return (x, y, min(w, iw - x), min(h, ih - y))
    }

    /// Size: max, w,, ,h, w,h, !w,h or pct:n, none of them past the region's own size (a request
    /// that would upscale, with or without `^`, is refused: upscaling is not offered).
    static func size(_ s: String, regionWidth rw: Int, regionHeight rh: Int) throws(Invalid) -> (Int, Int) {
        if s.hasPrefix("^") { throw Invalid("size '\(s)': upscaling is not offered") }
        if s == "max" { return (rw, rh) }
        func scaled(_ v: Int, by num: Int, over den: Int) -> Int { max(1, Int((Double(v) * Double(num) / Double(den)).rounded())) }
        var w: Int, h: Int
        if s.hasPrefix("pct:") {
            let f = s.dropFirst(4)
            guard let p = Double(f), p > 0, isDecimal(f) else { throw Invalid("size '\(s)': '\(f)' is not a percentage above 0") }
            guard p <= 100 else { throw Invalid("size '\(s)' is larger than the region; upscaling is not offered") }
            w = max(1, Int((Double(rw) * p / 100).rounded())); h = max(1, Int((Double(rh) * p / 100).rounded()))
            return (w, h)
        }
        let confined = s.hasPrefix("!")
        let fields = (confined ? String(s.dropFirst()) : s).split(separator: ",", omittingEmptySubsequences: false)
        guard fields.count == 2 else { throw Invalid("size '\(s)': expected max, w,, ,h, w,h, !w,h or pct:n") }
        func number(_ f: Substring) throws(Invalid) -> Int? {
            if f.isEmpty { return nil }
            guard let n = Int(f), n > 0, isDigits(f) else { throw Invalid("size '\(s)': '\(f)' is not a whole number of pixels above 0") }
            return n
        }
        let fw = try number(fields[0]), fh = try number(fields[1])
        // Every requested side is checked against the region before any scaling, so no product
        // of a huge number can overflow.
        let upscale = Invalid("size '\(s)' is larger than the \(rw)×\(rh) region; upscaling is not offered")
        switch (fw, fh, confined) {
        case (let a?, nil, false):
            guard a <= rw else { throw upscale }
            (w, h) = (a, scaled(rh, by: a, over: rw))
        case (nil, let b?, false):
            guard b <= rh else { throw upscale }
            (w, h) = (scaled(rw, by: b, over: rh), b)
        case (let a?, let b?, false):
            guard a <= rw, b <= rh else { throw upscale }
            (w, h) = (a, b)
        case (let a?, let b?, true):
            // The largest size of the region's shape inside a×b; a best fit above the region's own
            // size would be an upscale, which is refused like the others.
            if Double(a) * Double(rh) <= Double(b) * Double(rw) {
                guard a <= rw else { throw upscale }
                (w, h) = (a, min(b, scaled(rh, by: a, over: rw)))
            } else {
                guard b <= rh else { throw upscale }
                (w, h) = (min(a, scaled(rw, by: b, over: rh)), b)
            }
        default: throw Invalid("size '\(s)': expected max, w,, ,h, w,h, !w,h or pct:n")
        }
        return (w, h)
    }

    static func isDigits<S: StringProtocol>(_ s: S) -> Bool { !s.isEmpty && s.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 } }
    static func isDecimal<S: StringProtocol>(_ s: S) -> Bool {
        !s.isEmpty && s.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2E } && s.utf8.filter { $0 == 0x2E }.count <= 1
    }
}
