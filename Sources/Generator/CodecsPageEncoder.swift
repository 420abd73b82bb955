// The default page encoder: libjpeg-turbo and libpng through the Codecs module.

import Codecs
public import Raster

public struct CodecsPageEncoder: PageImageEncoder {
    public init() {}

    public func jpeg(_ image: Bitmap<RGBA8>, quality: Int, name: String) throws -> [UInt8] {
        // 4:2:0 like real scanner output; Huffman tables optimized to keep sample books small.
        try JPEGEncoder.encode(image, options: JPEGEncodeOptions(quality: quality, optimizeCoding: true), name: name)
    }

    public func png(_ image: Bitmap<RGBA8>, name: String) throws -> [UInt8] {
        try PNGEncoder.encode(image, options: .fast, name: name)
    }
}
