import Foundation
public import GiftKeeperJournal

/// Where a shared journal's server is: `postgres://USER@HOST:PORT/DATABASE`, from
/// `--remote`, `$GIFTKEEPER_REMOTE` or a test. The password is never in the address a
/// person types (argv and shell history are not secret): it comes from `~/.pgpass`
/// (mode 0600, as libpq reads it), or from nowhere (trust or peer authentication).
public struct PostgresAddress: Sendable, Equatable, CustomStringConvertible {
    public let host: String
    public let port: Int
    public let user: String
    public let database: String
    /// From `~/.pgpass`; never printed.
    let password: String?

    /// Parses `url`; a password written in it is refused (it would sit in argv and history).
    /// - Parameter passwordFile: the `.pgpass` to read (`~/.pgpass` by default).
    public init(url: String, passwordFile: String? = nil) throws(JournalError) {
        guard let parts = URLComponents(string: url), let scheme = parts.scheme,
            scheme == "postgres" || scheme == "postgresql", let host = parts.host, !host.isEmpty
        else {
            throw JournalError(.unreachable(.invalidAddress), path: url)
        }
        guard parts.password == nil else {
            throw JournalError(
                .unreachable(.passwordInAddress),
                path: Self.redacted(parts))
        }
        self.host = host
        port = parts.port ?? 5432
        user = parts.user ?? ProcessInfo.processInfo.environment["USER"] ?? "postgres"
        let path = parts.path.hasPrefix("/") ? String(parts.path.dropFirst()) : parts.path
        database = path.isEmpty ? user : path
        password = try Self.password(
            host: host, port: port, database: database, user: user,
            file: passwordFile ?? ProcessInfo.processInfo.environment["HOME"].map { $0 + "/.pgpass" })
    }

    /// The address without any password: what messages and the rollback memory name.
    public var description: String { "postgres://\(user)@\(host):\(port)/\(database)" }

    private static func redacted(_ parts: URLComponents) -> String {
        var shown = parts
        shown.password = nil
        return shown.string ?? "postgres://"
    }

    /// The first `~/.pgpass` line matching this address (`*` matches anything), as libpq
    /// reads it; none when the file is missing. A file others may read is refused.
    static func password(host: String, port: Int, database: String, user: String, file: String?) throws(JournalError)
        -> String?
    {
        guard let file, let attributes = try? FileManager.default.attributesOfItem(atPath: file) else { return nil }
        if let mode = attributes[.posixPermissions] as? Int, mode & 0o077 != 0 {
            throw JournalError(.insecurePermissions(mode: UInt32(mode)), path: file)
        }
        guard let text = try? String(contentsOfFile: file, encoding: .utf8) else { return nil }
        let wanted = [host, String(port), database, user]
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = pgpassFields(String(line))
            guard fields.count == 5 else { continue }
            if zip(fields.prefix(4), wanted).allSatisfy({ $0 == "*" || $0 == $1 }) { return fields[4] }
        }
        return nil
    }

    /// A `.pgpass` line's five fields: `:` separates them, `\` escapes `:` and `\`.
    static func pgpassFields(_ line: String) -> [String] {
        var fields: [String] = [""]
        var escaped = false
        for character in line {
            if escaped {
                fields[fields.count - 1].append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" {
                fields.append("")
            } else {
                fields[fields.count - 1].append(character)
            }
        }
        return fields
    }
}
