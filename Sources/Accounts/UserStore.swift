// The users file: `<library>/.picturebook/users.json` unless `--users` names another. It holds
// names, roles and Argon2id hashes only, is written atomically with mode 0600 and re-read when it
// changes, so `picturebook users add` takes effect in a running server without a restart.

import FileIO
import Foundation

public enum Role: String, Sendable, Codable, CaseIterable {
    /// Edits books: boxes, text, translations, reviewed marks; undo.
    case editor
    /// Everything an editor does, plus restoring a whole book to an earlier revision.
    case admin

    public func allows(_ needed: Role) -> Bool { self == .admin || needed == .editor }
}

public struct User: Sendable, Codable, Equatable {
    public var name: String
    public var role: Role
    public var hash: String
    /// ISO 8601 UTC.
    public var created: String
}

public struct UserStore: Sendable {
    public let path: String

    public init(path: String) { self.path = path }

    /// The default place for a library's users.
    public static func defaultPath(library: String) -> String {
        (library.hasSuffix("/") ? String(library.dropLast()) : library) + "/.picturebook/users.json"
    }

    struct File: Codable {
        var format = "picturebook-users/1"
        var users: [User]
    }

    /// Names are what people type to sign in: 1–64 characters, letters, digits, '.', '_', '-', '@'.
    public static func checkName(_ name: String) throws(AccountError) {
        let ok = !name.isEmpty && name.count <= 64 && name.unicodeScalars.allSatisfy {
            ($0.isASCII && (CharacterSet.alphanumerics.contains($0))) || "._-@".unicodeScalars.contains($0)
        }
        guard ok else { throw .badName("'\(name)' is not a user name: use 1–64 letters, digits, '.', '_', '-' or '@'") }
    }

    /// Every user; a missing file is no users.
    public func load() throws(AccountError) -> [User] {
        guard FileIO.exists(path) else { return [] }
        let bytes: [UInt8]
        do { bytes = try FileIO.read(path, limit: 16 << 20) } catch { throw .file(path: path, reason: error.description) }
        do {
            return try JSONDecoder().decode(File.self, from: Data(bytes)).users
        } catch {
            throw .file(path: path, reason: "not a users file (\(error.localizedDescription))")
        }
    }

    public func save(_ users: [User]) throws(AccountError) {
        let folder = (path as NSString).deletingLastPathComponent
        do {
            if !folder.isEmpty, !FileIO.isDirectory(folder) {
                try FileIO.createDirectory(folder)
                chmod(folder, 0o700)
            }
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
            let data = try encoder.encode(File(users: users.sorted { $0.name < $1.name }))
            try AtomicFile.write(Array(data) + [0x0A], to: path, mode: 0o600)
        } catch let e as FileError {
            throw .file(path: path, reason: e.description)
        } catch {
            throw .file(path: path, reason: "\(error)")
        }
    }

    public func add(name: String, role: Role, password: String) throws(AccountError) {
        try Self.checkName(name)
        try Self.checkStrength(password)
        var users = try load()
        if users.contains(where: { $0.name == name }) { throw .exists(name) }
        users.append(User(name: name, role: role, hash: try Passwords.hash(password), created: Self.now()))
        try save(users)
    }

    public func remove(name: String) throws(AccountError) {
        var users = try load()
        guard users.contains(where: { $0.name == name }) else { throw .noSuchUser(name) }
        users.removeAll { $0.name == name }
        try save(users)
    }

    /// A new password and, when given, a new role.
    public func reset(name: String, password: String?, role: Role?) throws(AccountError) {
        var users = try load()
        guard let i = users.firstIndex(where: { $0.name == name }) else { throw .noSuchUser(name) }
        if let password {
            try Self.checkStrength(password)
            users[i].hash = try Passwords.hash(password)
        }
        if let role { users[i].role = role }
        try save(users)
    }

    static func checkStrength(_ password: String) throws(AccountError) {
        guard password.count >= Passwords.minimumLength else {
            throw .badPassword("use at least \(Passwords.minimumLength) characters")
        }
        guard password.utf8.count <= Passwords.maximumLength else {
            throw .badPassword("a password is at most \(Passwords.maximumLength) bytes")
        }
    }

    static func now() -> String {
        let f = ISO8601DateFormatter()
        f.formatOptions = [.withInternetDateTime]
        return f.string(from: Date())
    }
}
