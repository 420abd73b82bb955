// Turns a text box on a page scan into the image Tesseract reads best: dark ink on a white
// ground, grey, glyphs at the size its LSTM models were trained on, with a white border. Tesseract
// does its own binarisation and layout, but it is tuned for 300-dpi book pages; picture-book
// boxes are anything from a 12-pixel page number to a 200-pixel title in white on a painted sky,
// and reading them as they are loses whole words.

public import Geometry
public import Raster

/// How the printed letters relate to their ground.
public enum OCRPolarity: String, Sendable, Hashable, CaseIterable {
    case darkOnLight
    case lightOnDark
}

/// The measurements the normaliser took, kept for diagnostics and tests.
public struct NormalizedRegion: Sendable {
    /// Grey, dark ink on white, scaled and padded: what Tesseract is given.
    public var image: Bitmap<UInt8>
    /// Text lines (columns, for vertical text) found in the crop; 0 when there is no ink.
    public var lineCount: Int
    /// Confidently one line: a single band of ink, dense through its middle.
    public var singleLine: Bool
    /// Median line (column) thickness in crop pixels before scaling.
    public var lineSize: Double
    /// The factor the crop was resampled by.
    public var scale: Double
    /// Whether the crop was inverted (light letters on a dark ground).
    public var inverted: Bool
}

public enum RegionNormalizer {
    /// White border added around the crop: Tesseract finds no text touching the image edge.
    static let padding = 12

    /// `rect` of `page`, normalised for `model`. `polarity` nil means: decide from the pixels.
    public static func normalize(
        page: Bitmap<RGBA8>, rect: PixelRect, model: OCRModel, vertical: Bool, polarity: OCRPolarity?,
        ink: RGBA8? = nil, ground: RGBA8? = nil
    ) throws(OCRError) -> NormalizedRegion {
        guard let inside = rect.intersection(page.bounds), inside.width >= 2, inside.height >= 2 else {
            throw .emptyRegion("the box \(rect) lies outside the \(page.width)×\(page.height) page or is too small")
        }
        // A thin margin of the page keeps anti-aliased glyph edges; the rest of the border is
        // white padding, not page: a wider margin of page pulls in fragments of the neighbouring
        // lines, which Tesseract reads as a line of garbage.
        let margin = max(2, min(4, min(inside.width, inside.height) / 16))
        let crop = inside.expanded(by: margin).intersection(page.bounds) ?? inside
        let colour = page.view(crop).copy()
        var grey: Bitmap<UInt8>
        let inverted: Bool
        if let ink, let keyed = colourKeyed(colour, ink: ink, ground: ground) {
            // Distance from the ink colour is already dark-on-light, whatever the polarity.
            grey = keyed
            inverted = false
        } else {
            (grey, inverted) = luma(colour, polarity: polarity)
        }
        grey = stretched(grey)


        // Vertical text read by a horizontal model (rotated Latin, say) is turned to lie flat.
        if vertical && !model.vertical { grey = grey.rotated(.counterclockwise) }
        let columns = vertical && model.vertical
        let bands = inkBands(grey, threshold: otsuThreshold(grey), alongRows: !columns)
        let lines = bands.map(\.thickness)
        let lineSize = lines.isEmpty ? Double(columns ? grey.width : grey.height) : median(lines.map(Double.init))
        // One band is one line only if ink is dense through its middle: two lines whose
        // descenders touch the next line's ascenders form one band with a sparse waist, and
        // reading that as a single line loses a line.
        let singleLine = bands.count == 1 && bands[0].denseMiddle

        // Latin-like lines span about twice the x-height (ascenders + descenders), so 60 px
        // lines give the ~30 px x-height Tesseract's models read best; CJK glyphs fill the line.
        let target: Double = model.script == .cjk ? 48 : 60
        var scale = min(4, max(0.5, target / max(lineSize, 1)))
        // Resampling by a few per cent gains nothing and blurs.
        if scale > 0.8 && scale < 1.25 { scale = 1 }
        // Keep huge boxes (a whole page of text) within a sane pixel budget.
        let maxPixels = 12_000_000.0
        let pixels = Double(grey.pixelCount) * scale * scale
        if pixels > maxPixels { scale *= (maxPixels / pixels).squareRoot() }
        if scale != 1 { grey = grey.resized(scale: scale) }

        var padded = Bitmap<UInt8>(width: grey.width + 2 * padding, height: grey.height + 2 * padding, fill: 255)
        padded.paste(grey.view, atX: padding, y: padding)
        return NormalizedRegion(
            image: padded, lineCount: lines.count, singleLine: singleLine, lineSize: lineSize, scale: scale, inverted: inverted)
    }

    /// Brightness, inverted when the letters are light: given, or — ink being the minority of a
    /// text box — when most pixels are darker than Otsu's threshold.
    static func luma(_ colour: Bitmap<RGBA8>, polarity: OCRPolarity?) -> (Bitmap<UInt8>, Bool) {
        let grey = colour.grayscale()
        let inverted: Bool
        if let polarity {
            inverted = polarity == .lightOnDark
        } else {
            let threshold = otsuThreshold(grey)
            var dark = 0
            grey.pixels.withUnsafeBufferPointer { p in for v in p where v <= threshold { dark += 1 } }
            inverted = dark * 2 > grey.pixelCount
        }
        return (inverted ? grey.map { 255 - $0 } : grey, inverted)
    }

    /// Each pixel's distance from the ink colour as grey: ink black, anything unlike it white.
    /// Over a painted sky or grass the letters differ from the art in colour more than in
    /// brightness, so this separates them where luma cannot. Nil when ink and ground are too alike
    /// for the key to be trusted (then brightness is used).
    static func colourKeyed(_ colour: Bitmap<RGBA8>, ink: RGBA8, ground: RGBA8?) -> Bitmap<UInt8>? {
        func distance(_ a: RGBA8, _ b: RGBA8) -> Double {
            let dr = Double(a.r) - Double(b.r), dg = Double(a.g) - Double(b.g), db = Double(a.b) - Double(b.b)
            return (dr * dr + dg * dg + db * db).squareRoot()
        }
        // The ground: as measured, else the crop's median colour (ink is the minority).
        let background = ground ?? {
            func median(_ k: KeyPath<RGBA8, UInt8>) -> UInt8 {
                var h = [Int](repeating: 0, count: 256)
                for p in colour.pixels { h[Int(p[keyPath: k])] += 1 }
                var seen = 0
                for i in 0..<256 {
                    seen += h[i]
                    if seen * 2 >= colour.pixelCount { return UInt8(i) }
                }
                return 255
            }
            return RGBA8(r: median(\.r), g: median(\.g), b: median(\.b))
        }()
        let contrast = distance(ink, background)
        guard contrast >= 60 else { return nil }
        // Anti-aliased edges lie between ink and ground: a ramp from 15 % to 65 % of the way.
        let near = 0.15 * contrast, far = 0.65 * contrast
        return colour.map { p -> UInt8 in
            let t = (distance(p, ink) - near) / (far - near)
            return UInt8(max(0, min(255, (t * 255).rounded())))
        }
    }

    /// Otsu's threshold of a grey image: the level that best splits it into two classes.
    static func otsuThreshold(_ g: Bitmap<UInt8>) -> UInt8 {
        var histogram = [Int](repeating: 0, count: 256)
        g.pixels.withUnsafeBufferPointer { p in for v in p { histogram[Int(v)] += 1 } }
        let total = Double(g.pixelCount)
        guard total > 0 else { return 128 }
        var sumAll = 0.0
        for i in 0..<256 { sumAll += Double(i * histogram[i]) }
        var weightBack = 0.0, sumBack = 0.0, best = 0.0, level = 128
        for t in 0..<256 {
            weightBack += Double(histogram[t])
            if weightBack == 0 { continue }
            let weightFore = total - weightBack
            if weightFore == 0 { break }
            sumBack += Double(t * histogram[t])
            let meanBack = sumBack / weightBack, meanFore = (sumAll - sumBack) / weightFore
            let between = weightBack * weightFore * (meanBack - meanFore) * (meanBack - meanFore)
            if between > best {
                best = between
                level = t
            }
        }
        return UInt8(level)
    }

    /// Contrast stretched so the ink (1st percentile) is black and the ground (90th percentile)
    /// white: tinted paper and coloured grounds become a clean white, faint print gets darker.
    static func stretched(_ g: Bitmap<UInt8>) -> Bitmap<UInt8> {
        var histogram = [Int](repeating: 0, count: 256)
        g.pixels.withUnsafeBufferPointer { p in for v in p { histogram[Int(v)] += 1 } }
        func percentile(_ q: Double) -> Int {
            let goal = Int(Double(g.pixelCount) * q)
            var seen = 0
            for i in 0..<256 {
                seen += histogram[i]
                if seen > goal { return i }
            }
            return 255
        }
        let lo = percentile(0.01), hi = percentile(0.90)
        // Too little contrast to tell ink from ground: stretching would only amplify noise.
        guard hi - lo >= 24 else { return g }
        var lut = [UInt8](repeating: 0, count: 256)
        for i in 0..<256 {
            let v = Double(i - lo) * 255 / Double(hi - lo)
            lut[i] = UInt8(max(0, min(255, v.rounded())))
        }
        return g.map { lut[Int($0)] }
    }

    struct Band {
        var thickness: Int
        /// The ink through the band's middle half never falls below a quarter of its peak.
        var denseMiddle: Bool
    }

    /// The bands of ink across the image: text lines when `alongRows` (each row's dark-pixel
    /// count), columns otherwise. Bands are split only where a row is truly empty; specks
    /// thinner than 3 px are not lines.
    static func inkBands(_ g: Bitmap<UInt8>, threshold: UInt8, alongRows: Bool) -> [Band] {
        let n = alongRows ? g.height : g.width
        let across = alongRows ? g.width : g.height
        var profile = [Int](repeating: 0, count: n)
        g.pixels.withUnsafeBufferPointer { p in
            for y in 0..<g.height {
                for x in 0..<g.width where p[y * g.width + x] <= threshold {
                    profile[alongRows ? y : x] += 1
                }
            }
        }
        // A band is a line when it holds more than a sliver of ink across its length.
        let minimum = max(1, across / 100)
        var bands: [Band] = []
        var start: Int? = nil
        for i in 0...n {
            let inked = i < n && profile[i] >= minimum
            if inked, start == nil { start = i }
            if !inked, let s = start {
                if i - s >= 3 {
                    let band = profile[s..<i]
                    let peak = band.max() ?? 0
                    let middle = profile[(s + (i - s) / 4)..<(s + 3 * (i - s) / 4 + 1)]
                    bands.append(Band(thickness: i - s, denseMiddle: (middle.min() ?? 0) * 4 >= peak))
                }
                start = nil
            }
        }
        return mergingMarks(bands)
    }

    /// Arabic dots, accents and stray descender fragments form thin bands of their own beside
    /// their line; bands under 40 % of the thickest one are not counted as lines.
    static func mergingMarks(_ bands: [Band]) -> [Band] {
        guard let thickest = bands.map(\.thickness).max(), bands.count > 1 else { return bands }
        let lines = bands.filter { $0.thickness * 10 >= thickest * 4 }
        return lines.isEmpty ? bands : lines
    }

    static func median(_ values: [Double]) -> Double {
        let s = values.sorted()
        return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
    }
}
