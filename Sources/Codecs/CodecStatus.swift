import CShim

/// PB_OK as the shim functions return it.
let pbOK = Int32(PB_OK)

/// The message a failed shim call left in its trap.
func trapMessage(_ trap: UnsafePointer<pb_trap>) -> String {
    let raw = UnsafeRawPointer(trap) + MemoryLayout<pb_trap>.offset(of: \pb_trap.message)!
    let text = String(cString: raw.assumingMemoryBound(to: CChar.self))
    return text.isEmpty ? "unknown error" : text
}

/// Turns a shim status into the error for `name`; `tooLarge` supplies the size for PB_TOO_BIG.
func codecError(
    status: Int32, trap: UnsafePointer<pb_trap>, name: String, format: ImageFormat,
    tooLarge: () -> CodecError
) -> CodecError {
    let message = trapMessage(trap)
    switch Int(status) {
    case Int(PB_TRUNCATED): return .truncated(name: name, format: format, reason: message)
    case Int(PB_TOO_BIG): return tooLarge()
    case Int(PB_UNSUPPORTED): return .unsupported(name: name, reason: "\(format.displayName): \(message)")
    default: return .corrupt(name: name, format: format, reason: message)
    }
}

/// A contiguous byte view of pixels for the C side.
extension UnsafeMutableBufferPointer {
    var bytes: UnsafeMutablePointer<UInt8> {
        UnsafeMutableRawPointer(baseAddress!).assumingMemoryBound(to: UInt8.self)
    }
}
