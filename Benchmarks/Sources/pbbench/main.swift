// In-process timings for the codec benchmark. Each operation runs `--repeat` times after one
// warm-up and prints the median in milliseconds as one JSON object per line, which
// Tools/bench-codecs.sh puts beside the peer tools' times.
//
//   pbbench decode FILE [--scale N] [--repeat R]
//   pbbench encode-png FILE [--preset fast|default|smallest] [--repeat R]
//   pbbench encode-jpeg FILE [--quality Q] [--repeat R]
//   pbbench resize FILE --width W --height H [--repeat R]
import Codecs
import FileIO
import Foundation
import Raster

func median(_ xs: [Double]) -> Double {
    let s = xs.sorted()
    return s.count % 2 == 1 ? s[s.count / 2] : (s[s.count / 2 - 1] + s[s.count / 2]) / 2
}

func time(_ repeats: Int, _ body: () throws -> Void) rethrows -> Double {
    try body()
    var samples: [Double] = []
    for _ in 0..<repeats {
        let t0 = DispatchTime.now().uptimeNanoseconds
        try body()
        samples.append(Double(DispatchTime.now().uptimeNanoseconds - t0) / 1e6)
    }
    return median(samples)
}

func option(_ name: String, _ fallback: Int) -> Int {
    let args = CommandLine.arguments
    if let i = args.firstIndex(of: name), i + 1 < args.count, let v = Int(args[i + 1]) { return v }
    return fallback
}

func stringOption(_ name: String) -> String? {
    let args = CommandLine.arguments
    if let i = args.firstIndex(of: name), i + 1 < args.count { return args[i + 1] }
    return nil
}

struct UsageError: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

func report(_ op: String, _ file: String, _ ms: Double, _ extra: String = "") {
    print("{\"op\":\"\(op)\",\"file\":\"\(file)\",\"ms\":\(String(format: "%.3f", ms))\(extra)}")
}

let args = CommandLine.arguments
guard args.count >= 3 else {
    FileHandle.standardError.write(Data("usage: pbbench decode|encode-png|encode-jpeg|resize FILE [options]\n".utf8))
    exit(2)
}
let op = args[1], file = args[2]
let repeats = option("--repeat", 15)
do {
    let bytes = try FileIO.read(file)
    switch op {
    case "decode":
        let scale = option("--scale", 1)
        let options = DecodeOptions(jpegScale: JPEGScale(denominator: scale) ?? .full)
        var size = (0, 0)
        let ms = try time(repeats) {
            let b = try ImageDecoder.decode(bytes, name: file, options: options)
            size = (b.width, b.height)
        }
        report("decode", file, ms, ",\"scale\":\(scale),\"width\":\(size.0),\"height\":\(size.1)")
    case "encode-png":
        // --preset fast|default|smallest, the CLI's --compression choices.
        let presets: [String: PNGEncodeOptions] = ["fast": .fast, "default": .default, "smallest": .smallest]
        let name = stringOption("--preset") ?? "default"
        guard let options = presets[name] else { throw UsageError(message: "unknown --preset \(name)") }
        let bitmap = try ImageDecoder.decode(bytes, name: file)
        var n = 0
        let ms = try time(repeats) { n = try PNGEncoder.encode(bitmap, options: options).count }
        report("encode-png", file, ms, ",\"preset\":\"\(name)\",\"bytes\":\(n)")
    case "encode-jpeg":
        let quality = option("--quality", 90)
        let bitmap = try ImageDecoder.decode(bytes, name: file)
        var n = 0
        let ms = try time(repeats) { n = try JPEGEncoder.encode(bitmap, options: JPEGEncodeOptions(quality: quality)).count }
        report("encode-jpeg", file, ms, ",\"quality\":\(quality),\"bytes\":\(n)")
    case "resize":
        let bitmap = try ImageDecoder.decode(bytes, name: file)
        let w = option("--width", bitmap.width / 8), h = option("--height", bitmap.height / 8)
        let ms = time(repeats) { _ = bitmap.resized(width: w, height: h) }
        report("resize", file, ms, ",\"width\":\(w),\"height\":\(h)")
    default:
        FileHandle.standardError.write(Data("pbbench: unknown operation '\(op)'\n".utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("pbbench: \(error)\n".utf8))
    exit(1)
}
