// Files that declare far more than they hold must cost memory in proportion to what they hold.
// Measured as the peak resident memory of the built CLI reading them (wait4's rusage of the child),
// never as time: time on a shared machine says nothing reliable.
import Codecs
import Foundation
import Raster
import Testing

/// Set by Tools/test-sanitize.sh: the CLI under test is built with ASan or TSan.
let runningUnderSanitizer = ProcessInfo.processInfo.environment["PICTUREBOOK_SANITIZER"].map { !$0.isEmpty } ?? false

enum PeakMemory {
    /// Runs the CLI with `args`; returns its exit status, stderr and peak resident memory in MiB.
    static func run(_ args: [String]) throws -> (status: Int32, stderr: String, peakMiB: Double) {
        let errPath = NSTemporaryDirectory() + "pb-peak-\(UUID().uuidString).err"
        defer { try? FileManager.default.removeItem(atPath: errPath) }
        var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        let argv = ([CLI.executable.path] + args).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let rc = posix_spawn(&pid, CLI.executable.path, &actions, nil, argv, environ)
        guard rc == 0 else { throw POSIXError(POSIXErrorCode(rawValue: rc) ?? .EIO) }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 && errno == EINTR {}
        let exit = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        let err = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
        return (exit, err, Double(usage.ru_maxrss) / 1024)  // ru_maxrss is in KiB on Linux
    }
}

/// Minimal PNG assembly with real CRCs, so libpng reads as far as the crafted part.
enum CraftedPNG {
    static let crcTable: [UInt32] = (0..<256).map { n in
        var c = UInt32(n)
        for _ in 0..<8 { c = c & 1 != 0 ? 0xEDB8_8320 ^ (c >> 1) : c >> 1 }
        return c
    }
    static func crc(_ bytes: [UInt8]) -> UInt32 {
        var c: UInt32 = 0xFFFF_FFFF
        for b in bytes { c = crcTable[Int((c ^ UInt32(b)) & 0xFF)] ^ (c >> 8) }
        return c ^ 0xFFFF_FFFF
    }
    static func be32(_ v: UInt32) -> [UInt8] { [UInt8(v >> 24), UInt8(v >> 16 & 0xFF), UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func chunk(_ type: String, _ data: [UInt8], declaredLength: UInt32? = nil) -> [UInt8] {
        let body = Array(type.utf8) + data
        return be32(declaredLength ?? UInt32(data.count)) + body + be32(crc(body))
    }
    static let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
    static func ihdr(width: UInt32, height: UInt32) -> [UInt8] { chunk("IHDR", be32(width) + be32(height) + [8, 2, 0, 0, 0]) }

    /// 45 bytes: a 1×1 image header, then a tEXt chunk whose length field says 0x7fffffff.
    static func textBomb() -> [UInt8] {
        signature + ihdr(width: 1, height: 1) + be32(0x7FFF_FFFF) + Array("tEXt".utf8) + [0x6B, 0x00, 0x76, 0x00]
    }
}

/// J2K main headers: SOC, SIZ, and a minimal COD and QCD, enough for OpenJPEG to read the header.
enum CraftedJ2K {
    static func be16(_ v: Int) -> [UInt8] { [UInt8(v >> 8 & 0xFF), UInt8(v & 0xFF)] }
    static func codestream(width: Int, height: Int, tile: Int, components: Int) -> [UInt8] {
        var siz = be16(0) + [width, height, 0, 0, tile, tile, 0, 0].flatMap { CraftedPNG.be32(UInt32($0)) } + be16(components)
        for _ in 0..<components { siz += [7, 1, 1] }
        let cod: [UInt8] = [0xFF, 0x52] + be16(12) + [0, 0, 0, 1, 0, 5, 4, 4, 0, 1]
        let qcd: [UInt8] = [0xFF, 0x5C] + be16(4) + [0x40, 0x80]
        return [0xFF, 0x4F, 0xFF, 0x51] + be16(siz.count + 2) + siz + cod + qcd + [0xFF, 0x90]
    }
    static func box(_ type: String, _ payload: [UInt8]) -> [UInt8] { CraftedPNG.be32(UInt32(8 + payload.count)) + Array(type.utf8) + payload }
    /// The codestream in a JP2 file's `jp2c` box, after the signature, file type and header boxes.
    static func jp2(_ codestream: [UInt8], width: Int, height: Int) -> [UInt8] {
        let ihdr = box("ihdr", CraftedPNG.be32(UInt32(height)) + CraftedPNG.be32(UInt32(width)) + be16(1) + [7, 7, 0, 0])
        let colr = box("colr", [1, 0, 0] + CraftedPNG.be32(17))
        return box("jP  ", [0x0D, 0x0A, 0x87, 0x0A]) + box("ftyp", Array("jp2 ".utf8) + CraftedPNG.be32(0) + Array("jp2 ".utf8))
            + box("jp2h", ihdr + colr) + box("jp2c", codestream)
    }
    /// Found by the jp2 fuzz harness: 1441816×16 in 60,076 tiles, 624 MB before the size was refused.
    static let fuzzFound = Array(Data(base64Encoded: "/0//UQApAAAAFgAYAAAAEAAAAAAAAAAAAAAAGAAAABAAAAAAAAAAAAABDwEB/1IADAAAAAEAAgQEAAH/XAAKQIAhiJByLjD/kA==")!)
}

@Suite struct HostileInputMemoryTests {
    /// What the CLI costs to start and read a tiny image, for comparison.
    static func baselineMiB(_ scratch: Scratch) throws -> Double {
        let tiny = scratch.file("tiny.png")
        try PNGEncoder.write(Bitmap<RGBA8>(width: 8, height: 8, fill: .white), to: tiny)
        return try PeakMemory.run(["info", tiny]).peakMiB
    }

    @Test func aPNGDeclaringAHugeTextChunkCostsNothing() throws {
        let scratch = try Scratch()
        let bomb = scratch.file("bomb.png")
        let bytes = CraftedPNG.textBomb()
        #expect(bytes.count == 45)
        try Data(bytes).write(to: URL(fileURLWithPath: bomb))
        let base = try Self.baselineMiB(scratch)
        let r = try PeakMemory.run(["info", bomb])
        // Whatever the verdict (the chunk is skipped, the image data is missing), no gigabytes.
        #expect(r.peakMiB < base + 64, "peak \(r.peakMiB) MiB against \(base) MiB for a tiny image; \(r.stderr)")
        #expect(!r.stderr.isEmpty || r.status == 0)
    }

    /// 44 bytes: as above, but the file ends before the tEXt chunk's CRC (found by the png fuzz
    /// harness: libpng allocates the declared 2 GB as soon as it has the chunk's length and type).
    /// Run with a 1 GiB address-space limit, so an allocation of the declared length fails loudly
    /// instead of hiding in untouched virtual memory. Not under a sanitizer: ASan and TSan reserve
    /// terabytes of address space for their shadow memory at start-up, so the limit stops the CLI
    /// before it reads anything (`make test-sanitize` sets PICTUREBOOK_SANITIZER).
    @Test(.disabled(if: runningUnderSanitizer, "a 1 GiB address-space limit leaves no room for a sanitizer's shadow memory"))
    func aPNGWhoseHugeChunkHasNoCRCAllocatesNothing() throws {
        let scratch = try Scratch()
        let bomb = scratch.file("bomb44.png")
        let bytes = Array(CraftedPNG.textBomb().dropLast())
        try Data(bytes).write(to: URL(fileURLWithPath: bomb))
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
        p.arguments = ["--as=1073741824", CLI.executable.path, "info", bomb]
        let err = Pipe()
        p.standardError = err
        p.standardOutput = Pipe()
        try p.run()
        let text = String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        #expect(p.terminationStatus == 1)
        #expect(text.contains("truncated") || text.contains("ends before"), "\(text)")
        #expect(!text.lowercased().contains("out of memory"), "\(text)")
    }

    @Test(arguments: [(30000, false, 1), (30000, true, 1), (30000, false, 8), (65000, false, 8), (60000, true, 8)])
    func aJPEGDeclaringAHugeFrameIsRefusedWithoutAllocating(side: Int, progressive: Bool, scale: Int) throws {
        let scratch = try Scratch()
        let small = try JPEGEncoder.encode(Bitmap<RGBA8>(width: 16, height: 16, fill: RGBA8(r: 200, g: 100, b: 50)), options: .init(progressive: progressive))
        // Patch the frame header's height and width (SOF0 or SOF2).
        var bytes = small
        var i = 2
        while i + 9 < bytes.count {
            guard bytes[i] == 0xFF else { i += 1; continue }
            let marker = bytes[i + 1]
            if marker == 0xC0 || marker == 0xC2 {
                bytes[i + 5] = UInt8(side >> 8); bytes[i + 6] = UInt8(side & 0xFF)
                bytes[i + 7] = UInt8(side >> 8); bytes[i + 8] = UInt8(side & 0xFF)
                break
            }
            i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
        }
        let file = scratch.file("huge.jpg")
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let base = try Self.baselineMiB(scratch)
        let r = try PeakMemory.run(["info", file, "--scale", String(scale)])
        #expect(r.status != 0)
        #expect(r.stderr.contains("larger than the limit"), "\(r.stderr)")
        #expect(r.peakMiB < base + 64, "peak \(r.peakMiB) MiB against \(base) MiB for a tiny image")
    }

    /// Inside the limits (14000² = 196 MP) but with almost no data: the decoders used to map in
    /// the whole 785 MB output before finding the data missing (bench-decode-memory finding).
    @Test(arguments: ["png", "jpeg", "progressive"])
    func anImageDeclaredInsideTheLimitsWithoutItsDataCostsNothing(_ kind: String) throws {
        let scratch = try Scratch()
        let side = 14000
        var bytes: [UInt8]
        if kind == "png" {
            bytes = CraftedPNG.signature + CraftedPNG.ihdr(width: UInt32(side), height: UInt32(side))
                + CraftedPNG.chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + CraftedPNG.chunk("IEND", [])
        } else {
            bytes = try JPEGEncoder.encode(
                Bitmap<RGBA8>(width: 16, height: 16, fill: RGBA8(r: 20, g: 100, b: 150)), options: .init(progressive: kind == "progressive"))
            var i = 2
            while i + 9 < bytes.count {
                guard bytes[i] == 0xFF else { i += 1; continue }
                if bytes[i + 1] == 0xC0 || bytes[i + 1] == 0xC2 {
                    bytes[i + 5] = UInt8(side >> 8); bytes[i + 6] = UInt8(side & 0xFF)
                    bytes[i + 7] = UInt8(side >> 8); bytes[i + 8] = UInt8(side & 0xFF)
                    break
                }
                i += 2 + (Int(bytes[i + 2]) << 8 | Int(bytes[i + 3]))
            }
        }
        let file = scratch.file("declared." + (kind == "png" ? "png" : "jpg"))
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let base = try Self.baselineMiB(scratch)
        let r = try PeakMemory.run(["info", file])
        #expect(r.status != 0, "\(r.stderr)")
        #expect(r.peakMiB < base + 64, "peak \(r.peakMiB) MiB against \(base) MiB for a tiny image")
    }

    /// OpenJPEG allocates per tile and per component while it reads the main header, before any
    /// size check of ours could run on its answer; the SIZ marker is judged from the bytes first.
    @Test(arguments: ["fuzz-found", "60000-tiles", "60000-tiles-in-jp2", "16384-components", "5-components"])
    func aJPEG2000HeaderDeclaringHugeBookkeepingIsRefusedWithoutAllocating(_ kind: String) throws {
        let scratch = try Scratch()
        let bytes: [UInt8]
        let expected: String
        switch kind {
        case "fuzz-found": (bytes, expected) = (CraftedJ2K.fuzzFound, "larger than the limit")
        case "60000-tiles": (bytes, expected) = (CraftedJ2K.codestream(width: 240, height: 250, tile: 1, components: 1), "60000 tiles")
        case "60000-tiles-in-jp2":
            bytes = CraftedJ2K.jp2(CraftedJ2K.codestream(width: 240, height: 250, tile: 1, components: 1), width: 240, height: 250)
            expected = "60000 tiles"
        case "16384-components": (bytes, expected) = (CraftedJ2K.codestream(width: 100, height: 100, tile: 100, components: 16384), "16384 components")
        default: (bytes, expected) = (CraftedJ2K.codestream(width: 100, height: 100, tile: 100, components: 5), "5 components")
        }
        let file = scratch.file(kind + (kind.hasSuffix("jp2") ? ".jp2" : ".j2k"))
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let base = try Self.baselineMiB(scratch)
        for command in [["info", file], ["convert", file, scratch.file("out.png")]] {
            let r = try PeakMemory.run(command)
            #expect(r.status == 1, "\(command[0]): \(r.stderr)")
            #expect(r.stderr.contains(file) && r.stderr.contains(expected), "\(command[0]): \(r.stderr)")
            #expect(r.peakMiB < base + 32, "\(command[0]): peak \(r.peakMiB) MiB against \(base) MiB for a tiny image")
        }
        #expect(!FileManager.default.fileExists(atPath: scratch.file("out.png")))
    }

    @Test func aPNGDeclaringAHugeImageIsRefusedWithoutAllocating() throws {
        let scratch = try Scratch()
        let file = scratch.file("huge.png")
        let bytes = CraftedPNG.signature + CraftedPNG.ihdr(width: 30000, height: 30000) + CraftedPNG.chunk("IDAT", [0x78, 0x9C, 0x03, 0x00, 0x00, 0x00, 0x00, 0x01]) + CraftedPNG.chunk("IEND", [])
        try Data(bytes).write(to: URL(fileURLWithPath: file))
        let base = try Self.baselineMiB(scratch)
        let r = try PeakMemory.run(["info", file])
        #expect(r.status != 0)
        #expect(r.stderr.contains("larger than the limit"), "\(r.stderr)")
        #expect(r.peakMiB < base + 64, "peak \(r.peakMiB) MiB against \(base) MiB for a tiny image")
    }
}
