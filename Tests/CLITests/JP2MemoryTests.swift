// Issue #18's bound for a normal file — peak memory at most 1.1 × the decoded RGBA image plus
// 64 MiB — for a single-tile JPEG 2000 image, which OpenJPEG cannot decode a tile at a time.
// Measured as the peak resident memory of the built CLI (wait4's rusage of the child), never as
// time.
import Foundation
import Testing

@Suite struct JP2MemoryTests {
    /// A 4000 × 3000 RGB image, lossy (9/7), one tile: `info` (which decodes every pixel) may cost
    /// the RGBA image (45.8 MiB) plus 24 MiB above what the CLI costs for a tiny image. Decoded in
    /// full-width bands through one codec it cost the image plus 36 MiB (OpenJPEG keeps every
    /// code-block a band touches, across the width, and its lists grow band after band); in
    /// 512-column areas, each through its own codec, the image plus about 9.
    @Test(.disabled(if: runningUnderSanitizer, "a sanitizer's own memory is not the decoder's"))
    func aLargeSingleTileLossyImageCostsLittleMoreThanItsPixels() throws {
        let scratch = try Scratch()
        let w = 4000, h = 3000
        let header = Array("P6\n\(w) \(h)\n255\n".utf8)
        var ppm = [UInt8](repeating: 0, count: header.count + w * h * 3)
        ppm.replaceSubrange(0..<header.count, with: header)
        var state: UInt64 = 18
        var i = header.count
        for y in 0..<h {
            for x in 0..<w {
                // Ramps with a little noise, so the codestream is small (1.8 MB) but every
                // code-block holds data.
                state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
                let n = UInt8(truncatingIfNeeded: state >> 60)
                ppm[i] = UInt8((x / 10 + y / 7) & 255) ^ n
                ppm[i + 1] = UInt8((y / 6) & 255)
                ppm[i + 2] = UInt8((x * y / 4000) & 255) ^ n
                i += 3
            }
        }
        try Data(ppm).write(to: URL(fileURLWithPath: scratch.file("in.ppm")))
        let file = scratch.file("one-tile-lossy.jp2")
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/opj_compress")
        p.arguments = ["-i", scratch.file("in.ppm"), "-o", file, "-I", "-r", "20"]
        p.standardOutput = FileHandle.nullDevice
        p.standardError = FileHandle.nullDevice
        do { try p.run() } catch {
            Issue.record("opj_compress not found (Tools/setup.sh installs libopenjp2-tools): \(error)")
            return
        }
        p.waitUntilExit()
        try #require(p.terminationStatus == 0, "opj_compress failed")
        try FileManager.default.removeItem(atPath: scratch.file("in.ppm"))

        let base = try HostileInputMemoryTests.baselineMiB(scratch)
        let r = try PeakMemory.run(["info", file, "--json"])
        #expect(r.status == 0, "\(r.stderr)")
        let image = Double(w * h * 4) / Double(1 << 20)
        #expect(r.peakMiB - base < image + 24, "peak \(r.peakMiB) MiB: \(r.peakMiB - base) above the CLI's \(base), for a \(image) MiB image")
    }
}
