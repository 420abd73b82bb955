// PopoutText crops: each text block cut from the original scan with a margin, at full
// resolution, and on request magnified (Lanczos) so the text reaches a target height.

public import Geometry
public import Raster

/// Parameters of a popout crop.
public struct PopoutParameters: Sendable, Hashable, CustomStringConvertible {
    /// Margin around the box as a fraction of its shorter side…
    public var marginFraction: Double = 0.08
    /// …but at least this many pixels.
    public var minimumMargin: Int = 8
    /// Fixed magnification; `nil` = 1 unless ``targetTextHeight`` is set.
    public var scale: Double? = nil
    /// Magnify so the block's line height (measured from the ink) reaches this many pixels.
    public var targetTextHeight: Double? = nil
    /// Never magnify more than this.
    public var maximumScale: Double = 8

    public init() {}

    public var description: String {
        "margin=\(marginFraction),\(minimumMargin) scale=\(scale.map { "\($0)" } ?? "-") textHeight=\(targetTextHeight.map { "\($0)" } ?? "-") max=\(maximumScale)"
    }

    /// Throws ``ClearTextError/invalidParameter(name:reason:)`` for the first parameter out of range.
    public func validate() throws(ClearTextError) {
        if !(marginFraction >= 0 && marginFraction <= 4) { throw .invalidParameter(name: "margin", reason: "must be 0...4, got \(marginFraction)") }
        if minimumMargin < 0 { throw .invalidParameter(name: "minimum margin", reason: "must be ≥ 0, got \(minimumMargin)") }
        if let s = scale, !(s > 0 && s <= 64 && s.isFinite) { throw .invalidParameter(name: "--scale", reason: "must be in (0, 64], got \(s)") }
        if let t = targetTextHeight, !(t > 0 && t <= 4096) { throw .invalidParameter(name: "--text-height", reason: "must be in (0, 4096], got \(t)") }
        if !(maximumScale > 0 && maximumScale.isFinite) { throw .invalidParameter(name: "maximum scale", reason: "must be > 0, got \(maximumScale)") }
    }
}

public enum Popout {
    /// The margin for `box`: a fraction of its shorter side, never less than the minimum.
    public static func margin(for box: PixelRect, parameters: PopoutParameters) -> Int {
        max(parameters.minimumMargin, Int((Double(min(box.width, box.height)) * parameters.marginFraction).rounded()))
    }

    /// `box` grown by `margin` on every side, clipped to `bounds` (the crop never invents pixels
    /// beyond the page); `nil` when nothing of it is on the page.
    public static func cropRect(for box: PixelRect, margin: Int, in bounds: PixelRect) -> PixelRect? {
        box.expanded(by: max(0, margin)).intersection(bounds)
    }

    /// Median height of the ink's lines: rows with ink form runs (one per horizontal line), and
    /// the median run is the line height. `nil` when the mask has no ink in `rect`.
    public static func lineHeight(mask: Bitmap<UInt8>, in rect: PixelRect) -> Double? {
        guard let r = rect.intersection(mask.bounds) else { return nil }
        var runs: [Int] = []
        var current = 0
        mask.pixels.withUnsafeBufferPointer { m in
            for y in r.minY..<r.maxY {
                var inked = 0
                for x in r.minX..<r.maxX where m[y * mask.width + x] != 0 { inked += 1 }
                // A row whose ink is a speck (a stray dot) does not join lines.
                if inked * 100 > r.width {
                    current += 1
                } else if current > 0 {
                    runs.append(current)
                    current = 0
                }
            }
        }
        if current > 0 { runs.append(current) }
        guard !runs.isEmpty else { return nil }
        runs.sort()
        return Double(runs[runs.count / 2])
    }

    /// The scale a crop gets: the fixed scale, else the one bringing `lineHeight` to the target,
    /// else 1; capped by the maximum.
    public static func scale(lineHeight: Double?, parameters: PopoutParameters) -> Double {
        var s = parameters.scale ?? 1
        if parameters.scale == nil, let target = parameters.targetTextHeight, let h = lineHeight, h > 0 {
            s = target / h
        }
        return min(s, parameters.maximumScale)
    }

    /// The crop of `page` around `box`, magnified as the parameters ask. `mask` (optional)
    /// measures the line height for a target text height.
    public static func crop(
        page: Bitmap<RGBA8>, box: PixelRect, mask: Bitmap<UInt8>? = nil, parameters: PopoutParameters = PopoutParameters(),
        name: String = "page", boxID: String = "box"
    ) throws(ClearTextError) -> (image: Bitmap<RGBA8>, rect: PixelRect, scale: Double) {
        try parameters.validate()
        guard let rect = cropRect(for: box, margin: margin(for: box, parameters: parameters), in: page.bounds) else {
            throw .boxOutsidePage(page: name, box: boxID, rect: box.description)
        }
        let lh = mask.flatMap { lineHeight(mask: $0, in: box) }
        let s = scale(lineHeight: lh, parameters: parameters)
        let image = page.cropped(to: rect)
        if abs(s - 1) < 1e-9 { return (image, rect, 1) }
        // Lanczos both ways: a popout that shrinks keeps its crispness too.
        return (image.resized(scale: s, filter: .lanczos3), rect, s)
    }
}
