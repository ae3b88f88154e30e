public import GiftKeeperCrypto
import Glibc

/// A `--password-file`: its first line is the password. The file must be a regular file
/// that neither the group nor others can access (mode `& 0o077 == 0`).
public final class PasswordFile: PasswordSource {
    /// The path as given.
    public let path: String
    private let fd: Int32

    private init(path: String, fd: Int32) {
        self.path = path
        self.fd = fd
    }

    deinit {
        _ = close(fd)
    }

    /// Opens and checks the file (the checks use `fstat` on the opened descriptor).
    /// - Throws: ``PasswordInputError`` (`.fileNotFound`, `.isDirectory`, `.notRegularFile`,
    ///   `.tooPermissive` whose message says `chmod 600 PATH`, `.unreadable`).
    public static func open(_ path: String) throws -> PasswordFile {
        let fd = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        guard fd >= 0 else {
            let error = errno
            if error == ENOENT || error == ENOTDIR {
                throw PasswordInputError(.fileNotFound(path: path))
            }
            throw PasswordInputError(.unreadable(path: path, errno: error))
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = errno
            _ = close(fd)
            throw PasswordInputError(.unreadable(path: path, errno: error))
        }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else {
            _ = close(fd)
            if type == S_IFDIR { throw PasswordInputError(.isDirectory(path: path)) }
            throw PasswordInputError(.notRegularFile(path: path))
        }
        guard info.st_mode & 0o077 == 0 else {
            _ = close(fd)
            throw PasswordInputError(.tooPermissive(path: path, mode: UInt32(info.st_mode)))
        }
        return PasswordFile(path: path, fd: fd)
    }

    /// The file's first line (without `\n` or a trailing `\r`), read from the start each time.
    /// - Throws: ``PasswordInputError`` (`.endOfInput` for an empty file).
    public func readPassword() throws -> SecureBytes {
        guard lseek(fd, 0, SEEK_SET) == 0 else {
            throw PasswordInputError(.unreadable(path: path, errno: errno))
        }
        return try PasswordReader.readLine(from: fd)
    }

    public func readPassword(prompt: String) throws -> SecureBytes {
        try readPassword()
    }
}
