public import GiftKeeperService
import Glibc

/// Files the REPL writes for the user (exports) and reads (imports).
public enum PrivateFile {
    /// Writes `bytes` to `path` with mode 0600: created `O_NOFOLLOW` (never through a
    /// symlink), truncated if it exists, forced to 0600 even if it existed with another
    /// mode, and fsynced before returning.
    public static func write(_ bytes: [UInt8], to path: String) throws(ServiceError) {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw ServiceError(.fileIO(operation: "create", path: path, errno: errno)) }
        defer { close(fd) }
        guard fchmod(fd, 0o600) == 0 else { throw ServiceError(.fileIO(operation: "set the mode of", path: path, errno: errno)) }
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { buffer in
                Glibc.write(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw ServiceError(.fileIO(operation: "write", path: path, errno: errno))
            }
            offset += n
        }
        guard fsync(fd) == 0 else { throw ServiceError(.fileIO(operation: "fsync", path: path, errno: errno)) }
    }

    /// Checks, without creating anything, that `path` could be written: its directory
    /// exists and is writable, and the path is not a directory. Lets `export --output`
    /// fail before it signs in.
    public static func checkWritable(_ path: String) throws(ServiceError) {
        var info = stat()
        if stat(path, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR {
                throw ServiceError(.fileIO(operation: "write", path: path, errno: EISDIR))
            }
            guard access(path, W_OK) == 0 else { throw ServiceError(.fileIO(operation: "write", path: path, errno: errno)) }
            return
        }
        let directory: String
        if let slash = path.lastIndex(of: "/") {
            directory = slash == path.startIndex ? "/" : String(path[..<slash])
        } else {
            directory = "."
        }
        guard access(directory, W_OK | X_OK) == 0 else {
            throw ServiceError(.fileIO(operation: "create", path: path, errno: errno))
        }
    }

    /// The largest document `import` reads: 1 GiB.
    public static let maximumReadSize = 1 << 30

    /// Reads a whole regular file of at most ``maximumReadSize`` bytes.
    public static func read(_ path: String) throws(ServiceError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw ServiceError(.fileIO(operation: "open", path: path, errno: errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ServiceError(.fileIO(operation: "examine", path: path, errno: errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw ServiceError(.fileIO(operation: "read", path: path, errno: info.st_mode & S_IFMT == S_IFDIR ? EISDIR : EINVAL))
        }
        guard Int(info.st_size) <= maximumReadSize else {
            throw ServiceError(.fileIO(operation: "read", path: path, errno: EFBIG))
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress.map { $0 + offset }, buffer.count - offset)
            }
            if n < 0 {
                if errno == EINTR { continue }
                throw ServiceError(.fileIO(operation: "read", path: path, errno: errno))
            }
            if n == 0 { break }
            offset += n
        }
        return Array(bytes[0..<offset])
    }
}
