import Dispatch
import Raster

/// The few per-pixel passes the decoders and encoders need, over raw buffers.
enum PixelConversion {
    /// x·y/255 rounded, exact for all 8-bit inputs.
    @inline(__always)
    static func mul255(_ x: UInt32, _ y: UInt32) -> UInt8 {
        let t = x &* y &+ 128
        return UInt8(truncatingIfNeeded: (t &+ (t >> 8)) >> 8)
    }

    /// Converts, in place, CMYK samples (as libjpeg delivers them in the four bytes of each
    /// pixel) to opaque RGB. Adobe software stores CMYK inverted (255 = no ink), so there
    /// R = C·K/255; otherwise R = (255−C)(255−K)/255. A naive conversion: no ICC profile.
    static func cmykToRGBA(_ bitmap: inout Bitmap<RGBA8>, inverted: Bool) {
        bitmap.pixels.withUnsafeMutableBufferPointer { p in
            forEachBand(count: p.count) { range in
                for i in range {
                    var c = UInt32(p[i].r), m = UInt32(p[i].g), y = UInt32(p[i].b), k = UInt32(p[i].a)
                    if !inverted { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k }
                    p[i] = RGBA8(r: mul255(c, k), g: mul255(m, k), b: mul255(y, k), a: 255)
                }
            }
        }
    }

    /// Rec. 601 luma of the colour composited over white: transparent areas read as paper.
    @inline(__always)
    static func grayOverWhite(_ p: RGBA8) -> UInt8 {
        let l = p.luma
        if p.a == 255 { return l }
        return mul255(UInt32(l), UInt32(p.a)) &+ (255 &- p.a)
    }

    static func grayOverWhite(_ bitmap: Bitmap<RGBA8>) -> Bitmap<UInt8> {
        bitmap.pixels.withUnsafeBufferPointer { src in
            Bitmap(width: bitmap.width, height: bitmap.height) { dst in
                grayOverWhite(src, into: dst)
            }
        }
    }

    /// Fills all of `dst` (which must be no longer than `src`).
    static func grayOverWhite(_ src: UnsafeBufferPointer<RGBA8>, into dst: UnsafeMutableBufferPointer<UInt8>) {
        forEachBand(count: dst.count) { range in
            for i in range { dst.initializeElement(at: i, to: grayOverWhite(src[i])) }
        }
    }

    /// Runs `body` over bands of `0..<count`, spread over the cores when the work is big enough
    /// to pay for the hand-off.
    static func forEachBand(count: Int, _ body: (Range<Int>) -> Void) {
        let bands = count >= 1 << 20 ? 8 : 1
        if bands == 1 { return body(0..<count) }
        let step = (count + bands - 1) / bands
        concurrentPerform(iterations: bands) { b in body(b * step..<Swift.min(count, (b + 1) * step)) }
    }
}

/// `DispatchQueue.concurrentPerform` for work over raw buffers. The bands touch disjoint memory
/// and the call returns only when all are done, which the compiler cannot see, hence the box.
func concurrentPerform(iterations: Int, _ body: (Int) -> Void) {
    struct UncheckedSendable<T>: @unchecked Sendable { let value: T }
    withoutActuallyEscaping(body) { body in
        let box = UncheckedSendable(value: body)
        DispatchQueue.concurrentPerform(iterations: iterations) { box.value($0) }
    }
}
