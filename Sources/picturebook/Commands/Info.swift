import ArgumentParser
import BookModel
import Codecs
import FileIO
import Foundation

struct Info: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Describe image files: format, size, colour type, orientation, decode time.",
        discussion: """
            Each FILE may be an image or a folder; a folder lists the PNG and JPEG files directly \
            inside it in natural order (p2 before p10). The format is read from the file's content, \
            not its name. Every image is fully decoded, so a corrupt file is reported here.

            Examples:
              picturebook info scan.jpg
              picturebook info Books/moon-rabbit --json | jq '.[].width'
            """)

    @Argument(help: "Image files or folders of images.", completion: .file())
    var files: [String]

    @Flag(help: "Print a JSON array instead of one line per file.")
    var json = false

    @Option(help: "Decode at 1/N size with JPEG DCT scaling (1, 2, 4 or 8) to time a thumbnail decode.")
    var scale: Int = 1

    func validate() throws {
        guard [1, 2, 4, 8].contains(scale) else { throw ValidationError("--scale must be 1, 2, 4 or 8, got \(scale)") }
    }

    struct Row: Encodable {
        var file: String
        var format: String
        var width: Int
        var height: Int
        var colorType: String
        var orientation: Int
        var orientedWidth: Int
        var orientedHeight: Int
        var decodedWidth: Int
        var decodedHeight: Int
        var decodeMilliseconds: Double
        var bytes: Int
    }

    func run() async throws {
        var failures = 0
        var rows: [Row] = []
        let paths: [String]
        do { paths = try ImageFiles.expand(files) } catch {
            Console.error("\(error)")
            throw ExitCode(1)
        }
        for path in paths {
            do {
                // Decoded from the file, read in pieces: the encoded file is not held beside the image.
                let size = try FileIO.regularFileSize(path)
                let info = try ImageDecoder.info(file: path)
                let start = ContinuousClock.now
                let bitmap = try ImageDecoder.decode(file: path, options: DecodeOptions(jpegScale: JPEGScale(denominator: scale) ?? .full))
                let ms = (ContinuousClock.now - start).milliseconds
                let row = Row(
                    file: path, format: info.format.rawValue.uppercased(), width: info.width, height: info.height,
                    colorType: info.colorDescription, orientation: info.orientation,
                    orientedWidth: info.orientedWidth, orientedHeight: info.orientedHeight,
                    decodedWidth: bitmap.width, decodedHeight: bitmap.height,
                    decodeMilliseconds: (ms * 100).rounded() / 100, bytes: size)
                if json { rows.append(row) } else { Console.out(Self.line(row)) }
            } catch {
                failures += 1
                Console.error("\(error)")
            }
        }
        if json { try Console.json(rows) }
        if failures > 0 { throw ExitCode(1) }
    }

    static func line(_ r: Row) -> String {
        var s = "\(r.file): \(r.format) \(r.width)×\(r.height), \(r.colorType)"
        if r.orientation != 1 {
            s += ", EXIF orientation \(r.orientation) → shown \(r.orientedWidth)×\(r.orientedHeight)"
        }
        if r.decodedWidth != r.orientedWidth || r.decodedHeight != r.orientedHeight {
            s += ", decoded at \(r.decodedWidth)×\(r.decodedHeight)"
        }
        s += String(format: ", decoded in %.1f ms, %@", r.decodeMilliseconds, ByteCount.format(r.bytes))
        return s
    }
}

extension Duration {
    var milliseconds: Double {
        let (s, atto) = components
        return Double(s) * 1000 + Double(atto) / 1e15
    }
}

enum ByteCount {
    static func format(_ n: Int) -> String {
        if n < 1024 { return "\(n) B" }
        if n < 1024 * 1024 { return String(format: "%.1f KiB", Double(n) / 1024) }
        return String(format: "%.1f MiB", Double(n) / 1048576)
    }
}

/// Expands command-line operands into image files: files stay as given, folders contribute the
/// PNG/JPEG files directly inside them, in natural order.
enum ImageFiles {
    static func expand(_ operands: [String]) throws -> [String] {
        var out: [String] = []
        for op in operands {
            if FileIO.isDirectory(op) {
                let dir = op.hasSuffix("/") && op.count > 1 ? String(op.dropLast()) : op
                out += try BookDirectory.imageFiles(in: dir).map { "\(dir)/\($0)" }
            } else {
                out.append(op)
            }
        }
        return out
    }
}
