// `picturebook-fuzz`: the fuzz harnesses of FuzzTargets as one program.
//
// Built by `make fuzz` with `-sanitize=fuzzer,address -DFUZZING`, it is a libFuzzer binary whose
// target is chosen by the environment: `FUZZ_TARGET=png picturebook-fuzz CORPUS_DIR -runs=…`.
// Built normally (as `swift build` does), it replays files through a harness and says which fail,
// which is how a finding is reproduced without the instrumented build:
//   picturebook-fuzz png crash-0123…  Tests/Fuzz/Corpus/png/*

import FuzzTargets
import Foundation

#if FUZZING
nonisolated(unsafe) private var harness: Harness?

// SwiftPM links an executable target with `main` aliased to `picturebook_fuzz_main` (so tests can
// link the module); with no `@main` here, this is that entry point, and it hands over to
// libFuzzer's driver (libFuzzer's own `main` is not linked because the alias already defines it).
@_silgen_name("LLVMFuzzerRunDriver")
private func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt
) -> CInt

@_cdecl("picturebook_fuzz_main")
public func fuzzMain(_ argc: CInt, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> CInt {
    var count = argc
    var vector = argv
    return runFuzzerDriver(&count, &vector, fuzzOne)
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    if harness == nil {
        let name = ProcessInfo.processInfo.environment["FUZZ_TARGET"] ?? ""
        guard let chosen = Harness(rawValue: name) else {
            FileHandle.standardError.write(Data("picturebook-fuzz: set FUZZ_TARGET to one of \(Harness.allCases.map(\.rawValue).joined(separator: ", "))\n".utf8))
            exit(2)
        }
        harness = chosen
    }
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    do {
        try harness?.run(bytes)
    } catch {
        FileHandle.standardError.write(Data("picturebook-fuzz: \(error)\n".utf8))
        abort()
    }
    return 0
}
#else
@main struct Replay {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, let harness = Harness(rawValue: name), arguments.count > 1 else {
            print("usage: picturebook-fuzz \(Harness.allCases.map(\.rawValue).joined(separator: "|")) FILE...")
            print("Replays inputs through a fuzz harness (the libFuzzer build comes from `make fuzz`).")
            exit(2)
        }
        var failed = 0
        for file in arguments.dropFirst() {
            guard let data = FileManager.default.contents(atPath: file) else {
                print("\(file): cannot read it")
                failed += 1
                continue
            }
            do {
                try harness.run(Array(data))
                print("\(file): ok")
            } catch {
                print("\(file): \(error)")
                failed += 1
            }
        }
        exit(failed == 0 ? 0 : 1)
    }
}
#endif
