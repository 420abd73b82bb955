// Holding up under many clients: the descriptor limit, the connection cap and the Host check.
//
// A server that runs out of file descriptors cannot accept, cannot open a scan and (in NIO) spins
// on the failing accept. So `serve` raises its soft descriptor limit to the hard one and caps open
// connections below it, leaving a reserve for the files requests open; connections past the cap
// wait in the kernel's listen queue. Idle ones (no complete request within the idle timeout,
// including clients that dribble their headers) are closed by the HTTP channel, so the queue
// drains.

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Hummingbird

public enum Connections {
    /// Descriptors kept back from connections for scans, cache files and the listening socket.
    static let reserve = 256

    /// Raises the soft file-descriptor limit to the hard one (at most 1,048,576); returns the
    /// soft limit now in force.
    @discardableResult
    public static func raiseDescriptorLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 else { return 1024 }
        let wanted = min(limit.rlim_max, 1 << 20)
        if limit.rlim_cur < wanted {
            var raised = limit
            raised.rlim_cur = wanted
            if setrlimit(RLIMIT_NOFILE_VALUE, &raised) == 0 { limit = raised }
        }
        return Int(clamping: limit.rlim_cur)
    }

    /// The connection cap the descriptor limit allows.
    public static func defaultCap() -> Int {
        var limit = rlimit()
        let soft = getrlimit(RLIMIT_NOFILE_VALUE, &limit) == 0 ? Int(clamping: limit.rlim_cur) : 1024
        return max(16, soft - reserve)
    }

    #if canImport(Glibc)
    static let RLIMIT_NOFILE_VALUE = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
    #else
    static let RLIMIT_NOFILE_VALUE = RLIMIT_NOFILE
    #endif

    /// The host names a server on `address` answers to by default: for a loopback address only
    /// loopback names (a browser page on another site that rebinds its DNS name to 127.0.0.1
    /// sends its own name and is refused); for any other address, nil (any name).
    public static func defaultAllowedHosts(bindAddress: String) -> Set<String>? {
        let a = bindAddress.lowercased()
        guard a == "localhost" || a.hasPrefix("127.") || a == "::1" else { return nil }
        return ["localhost", "127.0.0.1", "::1", a]
    }

    /// The host name of a Host header or :authority: lower-cased, port and brackets removed,
    /// a trailing dot dropped.
    public static func normalisedHostName(_ name: String) -> String { hostName(name) }

    static func hostName(_ authority: String) -> String {
        var s = Substring(authority.lowercased())
        if s.hasPrefix("[") {
            if let close = s.firstIndex(of: "]") { s = s[s.index(after: s.startIndex)..<close] }
        } else if let colon = s.lastIndex(of: ":"), s.firstIndex(of: ":") == colon {
            s = s[..<colon]
        }
        if s.hasSuffix(".") { s = s.dropLast() }
        return String(s)
    }
}

/// Refuses requests that name a host the server does not answer to (421 Misdirected Request).
/// (HTTP/1.1's Host header arrives as the request's authority.) A request with no Host at all
/// (HTTP/1.0, in-process tests) is let through: the attack this
/// stops comes from browsers, and browsers always send one.
struct HostCheck: RouterMiddleware {
    typealias Context = ReaderContext
    let allowed: Set<String>

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        if let authority = request.head.authority {
            let name = Connections.hostName(authority)
            guard allowed.contains(name) else {
                return JSONErrors.error(
                    .misdirectedRequest,
                    "this server does not answer to the host name '\(name)'; start it with --allowed-host \(name) if that is intended")
            }
        }
        return try await next(request, context)
    }
}
