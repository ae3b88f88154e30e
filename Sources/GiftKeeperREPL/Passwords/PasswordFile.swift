public import GiftKeeperCrypto
import GiftKeeperFiles
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
        // Through the one file layer: no blocking on a FIFO, no controlling terminal.
        let file: FileDescriptor
        do {
            file = try FileDescriptor.open(path, flags: O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)
        } catch {
            if error.errno == ENOENT || error.errno == ENOTDIR {
                throw PasswordInputError(.fileNotFound(path: path))
            }
            throw PasswordInputError(.unreadable(path: path, errno: error.errno))
        }
        let info: stat
        do {
            info = try file.status()
        } catch {
            file.close()
            throw PasswordInputError(.unreadable(path: path, errno: error.errno))
        }
        let type = info.st_mode & S_IFMT
        guard type == S_IFREG else {
            file.close()
            if type == S_IFDIR { throw PasswordInputError(.isDirectory(path: path)) }
            throw PasswordInputError(.notRegularFile(path: path))
        }
        guard info.st_mode & 0o077 == 0 else {
            file.close()
            throw PasswordInputError(.tooPermissive(path: path, mode: UInt32(info.st_mode)))
        }
        return PasswordFile(path: path, fd: file.rawValue)
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
