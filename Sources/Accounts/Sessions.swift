// Signed-in sessions and the sign-in rate limit. Sessions live in memory only: a restarted server
// signs everyone out, which is the safe direction, and no token is ever written to disk.

import Foundation

public struct Session: Sendable, Equatable {
    public let token: String
    public let name: String
    /// The per-session CSRF token every write must echo in `X-CSRF-Token`.
    public let csrf: String
    public var expires: Double
}

public actor Sessions {
    /// A session unused this long is gone (sliding: every request renews it).
    public let idleLifetime: Double
    private var byToken: [String: Session] = [:]

    public init(idleLifetime: Double = 12 * 3600) { self.idleLifetime = idleLifetime }

    public func create(name: String, now given: Double? = nil) -> Session {
        let now = given ?? Date().timeIntervalSince1970
        if byToken.count > 100_000 { purge(now: now) }
        let s = Session(token: Passwords.token(), name: name, csrf: Passwords.token(), expires: now + idleLifetime)
        byToken[s.token] = s
        return s
    }

    /// The live session for a cookie's token, renewed.
    public func lookup(_ token: String, now given: Double? = nil) -> Session? {
        let now = given ?? Date().timeIntervalSince1970
        guard var s = byToken[token] else { return nil }
        guard s.expires > now else {
            byToken[token] = nil
            return nil
        }
        s.expires = now + idleLifetime
        byToken[token] = s
        return s
    }

    public func revoke(_ token: String) { byToken[token] = nil }

    /// Signs a user out everywhere (after `users remove` or a password reset).
    public func revokeAll(name: String) { byToken = byToken.filter { $0.value.name != name } }

    public var count: Int { byToken.count }

    private func purge(now: Double) { byToken = byToken.filter { $0.value.expires > now } }
}

/// Failed sign-ins per account and per client address: the first few are free, then each
/// further failure doubles the wait before the next attempt is even looked at (1 s, 2 s, 4 s …,
/// at most 15 minutes). For an account an attempt counts as failed from the moment it starts, so
/// a burst of parallel guesses at one password cannot slip in before the first result is known.
/// For an address only finished failures count: many people behind one proxy or office NAT may
/// sign in at the same moment, and their successes must not lock each other out.
public actor SignInLimiter {
    struct State {
        var failures = 0
        var blockedUntil: Double = 0
        var last: Double = 0
    }

    public struct Policy: Sendable {
        public var freeFailures: Int
        public var firstDelay: Double
        public var maximumDelay: Double
        public init(freeFailures: Int, firstDelay: Double = 1, maximumDelay: Double = 900) {
            self.freeFailures = freeFailures
            self.firstDelay = firstDelay
            self.maximumDelay = maximumDelay
        }
    }

    private var states: [String: State] = [:]
    public let accountPolicy: Policy
    /// One address may try several accounts (a shared office NAT), so it gets more slack.
    public let addressPolicy: Policy

    public init(account: Policy = Policy(freeFailures: 3), address: Policy = Policy(freeFailures: 10)) {
        accountPolicy = account
        addressPolicy = address
    }

    /// Begins an attempt: nil when it may go ahead, else the seconds to wait.
    public func begin(account: String, address: String, now given: Double? = nil) -> Double? {
        let now = given ?? Date().timeIntervalSince1970
        if states.count > 200_000 { states = states.filter { now - $0.value.last < 86_400 } }
        let wait = ["account:" + account, "address:" + address].map { (states[$0]?.blockedUntil ?? 0) - now }.max() ?? 0
        if wait > 0 { return wait }
        count("account:" + account, accountPolicy, now: now)
        return nil
    }

    /// Ends an attempt begun with `begin`.
    public func finish(account: String, address: String, success: Bool, now given: Double? = nil) {
        let now = given ?? Date().timeIntervalSince1970
        if success {
            states["account:" + account] = nil
        } else {
            count("address:" + address, addressPolicy, now: now)
        }
    }

    private func count(_ key: String, _ policy: Policy, now: Double) {
        var s = states[key] ?? State()
        // A day without failures forgets the past ones.
        if now - s.last > 86_400 { s = State() }
        s.failures += 1
        s.last = now
        let over = s.failures - policy.freeFailures
        if over > 0 {
            s.blockedUntil = now + min(policy.maximumDelay, policy.firstDelay * pow(2, Double(min(over - 1, 30))))
        }
        states[key] = s
    }
}
