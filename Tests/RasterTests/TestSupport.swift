import Raster
import TestSupport

extension SplitMix64 {

    mutating func rgba(opaque: Bool = false) -> RGBA8 {
        RGBA8(r: byte(), g: byte(), b: byte(), a: opaque ? 255 : byte())
    }
}

func randomGray(_ w: Int, _ h: Int, seed: UInt64 = 1) -> Bitmap<UInt8> {
    var rng = SplitMix64(seed: seed)
    return Bitmap(width: w, height: h, pixels: (0..<w * h).map { _ in rng.byte() })
}

func randomRGBA(_ w: Int, _ h: Int, opaque: Bool, seed: UInt64 = 1) -> Bitmap<RGBA8> {
    var rng = SplitMix64(seed: seed)
    return Bitmap(width: w, height: h, pixels: (0..<w * h).map { _ in rng.rgba(opaque: opaque) })
}

/// Round half up, the rounding every 8-bit operation in Raster promises.
func roundHalfUp(_ v: Double) -> Int { Int((v + 0.5).rounded(.down)) }

/// The exact straight-alpha result of premultiplied source-over, rounded once.
func referenceOver(_ s: RGBA8, _ ea: Int, _ d: RGBA8) -> RGBA8 {
    let sw = Double(ea * 255), dw = Double(Int(d.a) * (255 - ea))
    let den = sw + dw
    if den == 0 { return d }
    func ch(_ cs: UInt8, _ cd: UInt8) -> UInt8 { UInt8(roundHalfUp((Double(cs) * sw + Double(cd) * dw) / den)) }
    return RGBA8(r: ch(s.r, d.r), g: ch(s.g, d.g), b: ch(s.b, d.b), a: UInt8(roundHalfUp(den / 255)))
}
