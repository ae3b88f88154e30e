import GiftKeeperFiles
public import GiftKeeperService
import Glibc

/// Files the REPL writes for the user (exports) and reads (imports).
public enum PrivateFile {
    /// Writes `bytes` to `path` with mode 0600 (see ``Writer``) and fsyncs it.
    public static func write(_ bytes: [UInt8], to path: String) throws(ServiceError) {
        let file = Writer(path: path)
        try file.write(bytes[...])
        try file.finish()
    }

    /// A file written chunk by chunk (an export), atomically, through the one file layer
    /// (``AtomicFile``): the chunks go to an unnamed file in `path`'s directory
    /// (`O_TMPFILE`), or where the file system has none to a temporary file beside `path`
    /// (created on the first write, `O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0600); ``finish()``
    /// fsyncs it, names it `path` and fsyncs the directory. So `path` is either the old file
    /// or the whole new document, never a partial one, and a failed, abandoned or killed
    /// export leaves nothing anyone can find. Temporary files that earlier exports to `path`
    /// left when they were killed (SIGKILL, a crash) are removed first
    /// (``removedPartialFiles``). Unless `replacing`, the name is given with `link`, which
    /// never replaces: a file that appeared at `path` since it was checked (while the
    /// password was typed) is kept.
    public final class Writer: ExportWriting {
        public let path: String
        private let replacing: Bool
        private var file: AtomicFile?
        /// The partial files of earlier, killed exports to `path` this one removed.
        public private(set) var removedPartialFiles: [String] = []

        public init(path: String, replacing: Bool = true) {
            self.path = path
            self.replacing = replacing
        }

        private func openIfNeeded() throws(ServiceError) -> AtomicFile {
            if let file { return file }
            removedPartialFiles = AtomicFile.removeStalePartialFiles(of: path)
            do {
                let created = try AtomicFile(path: path)
                file = created
                return created
            } catch {
                throw ServiceError(.fileIO(operation: "create", path: path, errno: error.errno))
            }
        }

        /// Appends `chunk` (the whole of it: short writes and EINTR are retried).
        public func write(_ chunk: ArraySlice<UInt8>) throws(ServiceError) {
            let file = try openIfNeeded()
            do {
                try file.write(chunk)
            } catch {
                throw ServiceError(.fileIO(operation: "write", path: path, errno: error.errno))
            }
        }

        /// Makes the document durable and gives it its name: fsync, rename over `path` (or
        /// link), fsync of the directory (the file is created, empty, if nothing was written).
        public func finish() throws(ServiceError) {
            let file = try openIfNeeded()
            do {
                try file.commit(replacing: replacing).close()
            } catch  where error.errno == EEXIST && !replacing {
                throw ServiceError(.exportTargetExists(path: path))
            } catch {
                let operation =
                    switch error.operation {
                    case "rename": "replace"
                    case "link": "create"
                    case "open": "fsync the directory of"
                    default: error.operation
                    }
                throw ServiceError(.fileIO(operation: operation, path: path, errno: error.errno))
            }
        }

        static func directory(of path: String) -> String {
            splitPath(path).directory
        }
    }

    /// What `export FILE` says once `file` is written (the shell and the subcommand alike),
    /// naming the partial files of earlier, killed exports it removed.
    public static func exportedSentence(presents count: Int, to file: Writer) -> String {
        let removed = file.removedPartialFiles
        let cleaned =
            removed.isEmpty
            ? ""
            : " Removed \(removed.count == 1 ? "a partial file" : "\(removed.count) partial files") an earlier export "
                + "left when it was killed: " + removed.map { "'\($0)'" }.joined(separator: ", ") + "."
        return "Exported \(count) present\(count == 1 ? "" : "s") to \(file.path) (mode 0600)." + cleaned
    }

    /// Checks, without creating anything, that `path` could be written: its directory
    /// exists and is writable, the path is not a directory, and nothing is there unless
    /// `replacing` (the decrypted list never silently takes the place of another file).
    /// Lets `export` fail before it signs in or does any work.
    public static func checkWritable(_ path: String, replacing: Bool) throws(ServiceError) {
        var info = stat()
        // lstat: a symlink (even to a directory) is a name `--force` replaces, not a directory.
        if lstat(path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR {
            throw ServiceError(.fileIO(operation: "write", path: path, errno: EISDIR))
        }
        if !replacing, lstat(path, &info) == 0 {
            throw ServiceError(.exportTargetExists(path: path))
        }
        // The document is written beside `path` and renamed over it: the directory is
        // what must be writable.
        guard access(Writer.directory(of: path), W_OK | X_OK) == 0 else {
            throw ServiceError(.fileIO(operation: "create", path: path, errno: errno))
        }
    }

    /// The largest document `import` reads: 1 GiB.
    public static let maximumReadSize = 1 << 30

    /// Reads a whole regular file of at most ``maximumReadSize`` bytes.
    ///
    /// Opened `O_NONBLOCK` and checked with `fstat` before anything is read, so a FIFO, a
    /// device or a socket is refused at once (``ServiceError/Code/notRegularFile(path:)``)
    /// instead of blocking for ever. Read in chunks: Ctrl-C in the shell
    /// (``CommandInterruption``) cancels between two of them.
    public static func read(_ path: String) throws(ServiceError) -> [UInt8] {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        guard fd >= 0 else { throw ServiceError(.fileIO(operation: "open", path: path, errno: errno)) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ServiceError(.fileIO(operation: "examine", path: path, errno: errno)) }
        guard info.st_mode & S_IFMT == S_IFREG else { throw ServiceError(.notRegularFile(path: path)) }
        guard Int(info.st_size) <= maximumReadSize else {
            throw ServiceError(.fileIO(operation: "read", path: path, errno: EFBIG))
        }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        var offset = 0
        while offset < bytes.count {
            if CommandInterruption.isRequested { throw ServiceError(.cancelled) }
            let n = bytes.withUnsafeMutableBytes { buffer in
                Glibc.read(fd, buffer.baseAddress.map { $0 + offset }, min(readChunk, buffer.count - offset))
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

    /// How much ``read(_:)`` reads between two looks for Ctrl-C.
    static let readChunk = 1 << 20
}
