// Password hashes, random tokens and constant-time comparison, all through libsodium: Argon2id
// (memory-hard, so a stolen users file costs an attacker 64 MiB and tens of milliseconds per
// guess) in libsodium's self-describing string form, which carries its own salt and parameters.

import CSodium
import Foundation

public enum Passwords {
    /// libsodium must be initialised once before use; `sodium_init` is itself thread-safe and
    /// idempotent, so a lazily initialised static is enough.
    static let ready: Bool = sodium_init() >= 0

    /// Passwords shorter than this are refused when set (not when checked: a short guess simply fails).
    public static let minimumLength = 8
    /// Longer input is refused before hashing so a megabyte "password" cannot tie up a core.
    public static let maximumLength = 1024

    /// An Argon2id hash string (`$argon2id$v=19$m=65536,t=2,p=1$...`).
    public static func hash(_ password: String) throws(AccountError) -> String {
        guard ready else { throw .crypto("libsodium could not be initialised") }
        let bytes = Array(password.utf8)
        guard bytes.count <= maximumLength else { throw .badPassword("a password is at most \(maximumLength) bytes") }
        var out = [CChar](repeating: 0, count: Int(crypto_pwhash_STRBYTES))
        let rc = password.withCString { c in
            crypto_pwhash_str_alg(
                &out, c, UInt64(bytes.count), UInt64(crypto_pwhash_OPSLIMIT_INTERACTIVE),
                Int(crypto_pwhash_MEMLIMIT_INTERACTIVE), crypto_pwhash_ALG_ARGON2ID13)
        }
        // Fails only when the memory for the hash cannot be had.
        guard rc == 0 else { throw .crypto("hashing the password failed (out of memory?)") }
        return String(cString: out)
    }

    /// True when `password` matches `hash`. libsodium's verification runs in time independent of
    /// where the first difference lies.
    public static func verify(_ password: String, hash: String) -> Bool {
        guard ready else { return false }
        let bytes = Array(password.utf8)
        guard bytes.count <= maximumLength, hash.utf8.count < Int(crypto_pwhash_STRBYTES) else { return false }
        return password.withCString { c in crypto_pwhash_str_verify(hash, c, UInt64(bytes.count)) == 0 }
    }

    /// A hash of a random password, checked against when the named account does not exist so a
    /// wrong name costs as long as a wrong password (no user enumeration by timing).
    public static let decoy: String = (try? hash(token(bytes: 24))) ?? ""

    /// `bytes` random bytes from the system's CSPRNG, as unpadded base64url.
    public static func token(bytes: Int = 32) -> String {
        _ = ready
        var raw = [UInt8](repeating: 0, count: bytes)
        randombytes_buf(&raw, bytes)
        return Data(raw).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Equality of two secrets in time that depends only on their lengths.
    public static func constantTimeEqual(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8), y = Array(b.utf8)
        guard x.count == y.count else { return false }
        if x.isEmpty { return true }
        return sodium_memcmp(x, y, x.count) == 0
    }
}

/// What went wrong with accounts, with a message for the person at the terminal or browser.
public enum AccountError: Error, CustomStringConvertible, Equatable, Sendable {
    case crypto(String)
    case badPassword(String)
    case badName(String)
    case noSuchUser(String)
    case exists(String)
    case file(path: String, reason: String)

    public var description: String {
        switch self {
        case .crypto(let m): return m
        case .badPassword(let m): return "password refused: \(m)"
        case .badName(let m): return m
        case .noSuchUser(let n): return "there is no user '\(n)'"
        case .exists(let n): return "a user named '\(n)' already exists (use `users reset` to change the password)"
        case .file(let p, let r): return "\(p): \(r)"
        }
    }
}
