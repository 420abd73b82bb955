import Accounts
import ArgumentParser
import FileIO
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `picturebook users`: the accounts that may sign in to `serve --edit`.
struct Users: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Manage the editor accounts of a library (for `serve --edit`).",
        discussion: """
            Accounts live in LIBRARY/.picturebook/users.json (mode 0600; --users names another file), \
            with Argon2id password hashes. A running server notices changes at once: a removed user \
            is signed out on their next request.

            Examples:
              picturebook users add ann --role editor --library Books        # asks for the password twice
              echo "$PASS" | picturebook users add bob --role admin --password-stdin
              picturebook users list --library Books
              picturebook users reset ann --library Books                    # new password
              picturebook users remove ann --library Books
            """,
        subcommands: [Add.self, Remove.self, List.self, Reset.self])

    struct Where: ParsableArguments {
        @Option(help: "The books folder the accounts are for.", completion: .directory)
        var library: String = "Books"

        @Option(help: "The users file (default LIBRARY/.picturebook/users.json).", completion: .file())
        var users: String?

        var store: UserStore { UserStore(path: users ?? UserStore.defaultPath(library: library)) }

        func check() throws {
            if users == nil, !FileIO.isDirectory(library) {
                Console.error("users: \(library): no such books folder (give --library or --users)")
                throw ExitCode.failure
            }
        }
    }

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Add an account.")
        @Argument(help: "The name typed to sign in.") var name: String
        @Option(help: "editor (edit books) or admin (also restore whole books).") var role: String
        @Flag(help: "Read the password from the first line of standard input.") var passwordStdin = false
        @OptionGroup var place: Where

        func run() throws {
            try place.check()
            let role = try parseRole(role)
            let password = try readPassword(fromStdin: passwordStdin, confirm: true)
            do { try place.store.add(name: name, role: role, password: password) } catch {
                Console.error("users add: \(error)")
                throw ExitCode.failure
            }
            Console.err("users: added \(name) (\(role.rawValue)) to \(place.store.path)")
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove an account.")
        @Argument var name: String
        @OptionGroup var place: Where

        func run() throws {
            try place.check()
            do { try place.store.remove(name: name) } catch {
                Console.error("users remove: \(error)")
                throw ExitCode.failure
            }
            Console.err("users: removed \(name)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the accounts (names, roles, creation dates).")
        @OptionGroup var place: Where
        @Flag(help: "One JSON object per user.") var json = false

        func run() throws {
            try place.check()
            let users: [User]
            do { users = try place.store.load() } catch {
                Console.error("users list: \(error)")
                throw ExitCode.failure
            }
            for u in users {
                if json {
                    Console.out("{\"name\": \"\(u.name)\", \"role\": \"\(u.role.rawValue)\", \"created\": \"\(u.created)\"}")
                } else {
                    Console.out("\(u.name)\t\(u.role.rawValue)\t\(u.created)")
                }
            }
        }
    }

    struct Reset: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Set a new password (and optionally a new role).")
        @Argument var name: String
        @Option(help: "A new role as well (editor or admin).") var role: String?
        @Flag(help: "Read the password from the first line of standard input.") var passwordStdin = false
        @Flag(help: "Change only the role, keep the password.") var keepPassword = false
        @OptionGroup var place: Where

        func run() throws {
            try place.check()
            let newRole = try role.map(parseRole)
            let password = keepPassword ? nil : try readPassword(fromStdin: passwordStdin, confirm: true)
            do { try place.store.reset(name: name, password: password, role: newRole) } catch {
                Console.error("users reset: \(error)")
                throw ExitCode.failure
            }
            Console.err("users: updated \(name)")
        }
    }
}

/// A role named on the command line.
func parseRole(_ text: String) throws -> Role {
    guard let r = Role(rawValue: text) else {
        Console.error("users: --role must be editor or admin, got '\(text)'")
        throw ExitCode.failure
    }
    return r
}

/// The password from stdin's first line, or typed twice at a terminal with echo off.
func readPassword(fromStdin: Bool, confirm: Bool) throws -> String {
    if fromStdin {
        guard let line = readLine(strippingNewline: true) else {
            Console.error("users: --password-stdin given but standard input is empty")
            throw ExitCode.failure
        }
        return line
    }
    guard isatty(STDIN_FILENO) == 1 else {
        Console.error("users: standard input is not a terminal; pipe the password with --password-stdin")
        throw ExitCode.failure
    }
    let first = try promptHidden("Password: ")
    if confirm, try promptHidden("Again: ") != first {
        Console.error("users: the two passwords differ; nothing changed")
        throw ExitCode.failure
    }
    return first
}

private func promptHidden(_ prompt: String) throws -> String {
    FileHandle.standardError.write(Data(prompt.utf8))
    var old = termios()
    tcgetattr(STDIN_FILENO, &old)
    var quiet = old
    quiet.c_lflag &= ~tcflag_t(ECHO)
    tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
    defer {
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &old)
        FileHandle.standardError.write(Data("\n".utf8))
    }
    guard let line = readLine(strippingNewline: true) else { throw ExitCode.failure }
    return line
}
