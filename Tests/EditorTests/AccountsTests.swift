import Accounts
import Foundation
import Testing

@Suite struct AccountsTests {
    @Test func hashesAreArgon2idAndVerify() throws {
        let h = try Passwords.hash("a long enough password")
        #expect(h.hasPrefix("$argon2id$"))
        #expect(Passwords.verify("a long enough password", hash: h))
        #expect(!Passwords.verify("a long enough passworD", hash: h))
        #expect(!Passwords.verify("anything", hash: "not a hash"))
        // Salted: the same password hashes differently each time.
        #expect(try Passwords.hash("a long enough password") != h)
    }

    @Test func tokensAreRandomAndURLSafe() {
        let a = Passwords.token(), b = Passwords.token()
        #expect(a != b && a.count == 43)
        #expect(a.allSatisfy { $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" })
        #expect(Passwords.constantTimeEqual(a, a) && !Passwords.constantTimeEqual(a, b) && !Passwords.constantTimeEqual(a, "x"))
    }

    @Test func accountIsBlockedAfterThreeFailuresWithDoublingWaits() async {
        let l = SignInLimiter()
        let t0 = 1_000_000.0
        for i in 0..<3 {
            #expect(await l.begin(account: "ann", address: "10.0.0.\(i)", now: t0) == nil)
            await l.finish(account: "ann", address: "10.0.0.\(i)", success: false, now: t0)
        }
        // The 4th attempt goes ahead but sets a 1 s wait; the 5th waits 1 s, after it 2 s.
        #expect(await l.begin(account: "ann", address: "10.0.0.9", now: t0) == nil)
        #expect(await l.begin(account: "ann", address: "10.0.0.9", now: t0 + 0.5) == 0.5)
        #expect(await l.begin(account: "ann", address: "10.0.0.9", now: t0 + 1.0) == nil)
        #expect(await l.begin(account: "ann", address: "10.0.0.9", now: t0 + 1.5) == 1.5)
        // Other accounts are unaffected; success clears the account.
        #expect(await l.begin(account: "bob", address: "10.0.0.9", now: t0 + 1.5) == nil)
        await l.finish(account: "ann", address: "10.0.0.9", success: true, now: t0 + 4)
        #expect(await l.begin(account: "ann", address: "10.0.0.9", now: t0 + 4) == nil)
    }

    @Test func parallelGuessesAtOneAccountAreCountedAsTheyStart() async {
        let l = SignInLimiter()
        var allowed = 0
        for _ in 0..<20 where await l.begin(account: "ann", address: "10.0.0.1", now: 5) == nil { allowed += 1 }
        #expect(allowed == 4)
    }

    @Test func manyPeopleBehindOneAddressCanSignInTogether() async {
        let l = SignInLimiter()
        for i in 0..<30 { #expect(await l.begin(account: "user\(i)", address: "127.0.0.1", now: 5) == nil) }
        for i in 0..<30 { await l.finish(account: "user\(i)", address: "127.0.0.1", success: true, now: 5) }
        // But failures from one address across many accounts add up.
        for i in 0..<11 {
            _ = await l.begin(account: "guess\(i)", address: "10.9.9.9", now: 5)
            await l.finish(account: "guess\(i)", address: "10.9.9.9", success: false, now: 5)
        }
        #expect(await l.begin(account: "someone", address: "10.9.9.9", now: 5) != nil)
    }

    @Test func usersFileIsPrivateAndRoundTrips() throws {
        let dir = Scratch.path("accounts")
        let store = UserStore(path: UserStore.defaultPath(library: dir))
        try store.add(name: "ann", role: .editor, password: "ann password 1")
        let attrs = try FileManager.default.attributesOfItem(atPath: store.path)
        #expect(attrs[.posixPermissions] as? Int == 0o600)
        #expect(try store.load().map(\.name) == ["ann"])
        #expect(throws: AccountError.exists("ann")) { try store.add(name: "ann", role: .admin, password: "other password") }
        #expect(throws: AccountError.self) { try store.add(name: "a/b", role: .admin, password: "other password") }
        try store.reset(name: "ann", password: nil, role: .admin)
        #expect(try store.load().first?.role == .admin)
        try store.remove(name: "ann")
        #expect(try store.load().isEmpty)
        try Data("{not json".utf8).write(to: URL(fileURLWithPath: store.path))
        #expect(throws: AccountError.self) { try store.load() }
    }
}
