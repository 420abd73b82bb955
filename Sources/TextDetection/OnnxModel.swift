// One ONNX model, run through ONNX Runtime's C API (COnnxRuntime opens the library at run time).

import COnnxRuntime
import Foundation

/// What went wrong loading or running the learned text detector.
public enum TextDetectionError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The runtime library or the model file could not be opened.
    case unavailable(String)
    /// The model ran and failed, or answered in a shape the detector does not understand.
    case failed(String)

    public var description: String {
        switch self {
        case .unavailable(let why): "the learned text detector is not available: \(why)"
        case .failed(let why): "the learned text detector failed: \(why)"
        }
    }
}

/// A loaded model, shared by every page of a parallel run.
///
/// One page is in the model at a time, and that run uses all the threads it was opened with.
/// ONNX Runtime could run several pages at once, but its memory arena then keeps every
/// concurrent run's activations for the life of the process (about 75 MiB a page at our input
/// size), which put a two-page analyze over prepare's 300 MiB bound on long books. Serialising
/// the runs while each uses every core costs little throughput: a page's other work (decoding,
/// masks, grouping) still overlaps with the next page's run.
final class OnnxModel: @unchecked Sendable {
    private let handle: OpaquePointer
    private let gate = NSLock()
    let runtimeVersion: String

    init(library: String, model: String, threads: Int) throws(TextDetectionError) {
        var message = [CChar](repeating: 0, count: 1024)
        guard let h = pb_onnx_open(library, model, Int32(clamping: threads), &message, message.count) else {
            throw .unavailable(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        handle = h
        runtimeVersion = String(cString: pb_onnx_version(h))
    }

    deinit { pb_onnx_close(handle) }

    /// Runs the model on one tensor; returns the output's values and shape.
    func run(_ input: [Float], shape: [Int]) throws(TextDetectionError) -> (values: [Float], shape: [Int]) {
        var message = [CChar](repeating: 0, count: 1024)
        var output: UnsafeMutablePointer<Float>?
        var outShape = [Int64](repeating: 0, count: 8)
        var rank = 0
        let dims = shape.map(Int64.init)
        gate.lock()
        let status = input.withUnsafeBufferPointer { buffer in
            pb_onnx_run(handle, buffer.baseAddress, dims, dims.count, &output, &outShape, outShape.count, &rank, &message, message.count)
        }
        gate.unlock()
        guard status == 0, let output else {
            throw .failed(String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        defer { pb_onnx_free(output) }
        let dimsOut = outShape.prefix(rank).map { Int($0) }
        let count = dimsOut.reduce(1, *)
        return (Array(UnsafeBufferPointer(start: output, count: count)), dimsOut)
    }
}
