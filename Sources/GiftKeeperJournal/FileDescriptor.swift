import Glibc

/// A failed system call: the operation's name and `errno`, before a path is attached.
struct SystemCallError: Error, Equatable {
    let operation: String
    let errno: Int32
}

/// The raw layer: one system call, retried while it reports `EINTR`, its `errno` captured
/// at once. Every call wrapped here reports failure as -1.
@inline(__always)
private func systemCall<R: BinaryInteger>(_ operation: String, _ call: () -> R) -> Result<R, SystemCallError> {
    while true {
        let result = call()
        if result != -1 {
            return .success(result)
        }
        let code = errno
        if code != EINTR {
            return .failure(SystemCallError(operation: operation, errno: code))
        }
    }
}

/// An open file descriptor owned by the caller, with the POSIX calls the journal makes.
///
/// The checked layer: each method makes one call, checks its result where it is made and
/// throws ``SystemCallError``. It does not close itself; ``Journal`` owns one and closes it.
struct FileDescriptor {
    let rawValue: Int32

    /// Opens `path` (`open`, retried on `EINTR`); `mode` only matters with `O_CREAT`.
    static func open(_ path: String, flags: Int32, mode: mode_t = 0) throws(SystemCallError) -> FileDescriptor {
        let fd = try systemCall("open") { Glibc.open(path, flags, mode) }.get()
        return FileDescriptor(rawValue: fd)
    }

    /// Closes the descriptor (`close`). `EINTR` is not retried: on Linux the descriptor is
    /// already released then, and closing it again could close someone else's.
    func close() {
        _ = Glibc.close(rawValue)
    }

    /// The file's status (`fstat`).
    func status() throws(SystemCallError) -> stat {
        var info = stat()
        _ = try systemCall("fstat") { fstat(rawValue, &info) }.get()
        return info
    }

    /// Clears `O_NONBLOCK`, which is only used so that opening a FIFO cannot block.
    func clearNonBlocking() throws(SystemCallError) {
        let flags = try systemCall("fcntl") { fcntl(rawValue, F_GETFL) }.get()
        _ = try systemCall("fcntl") { fcntl(rawValue, F_SETFL, flags & ~O_NONBLOCK) }.get()
    }

    /// Takes an advisory lock without waiting (`flock` with `LOCK_NB`).
    /// - Returns: `false` when another open file description holds a conflicting lock.
    func tryLock(exclusive: Bool) throws(SystemCallError) -> Bool {
        let operation = (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB
        switch systemCall("flock", { flock(rawValue, operation) }) {
        case .success:
            return true
        case .failure(let error) where error.errno == EWOULDBLOCK:
            return false
        case .failure(let error):
            throw error
        }
    }

    /// Reads up to `buffer.count` bytes at `offset` (`pread`, retried on `EINTR`).
    /// - Returns: the number of bytes read; 0 only at end of file.
    func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(SystemCallError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        return try systemCall("read") { pread(rawValue, base, buffer.count, off_t(offset)) }.get()
    }

    /// Fills `buffer` from `offset`, looping over short reads (`pread`).
    /// - Throws: `EIO` when the file ends before the buffer is full.
    func readFully(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(SystemCallError) {
        var done = 0
        while done < buffer.count {
            let count = try read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[done...]), at: offset + done)
            if count == 0 {
                throw SystemCallError(operation: "read", errno: EIO)
            }
            done += count
        }
    }

    /// Writes all of `bytes` at `offset`, looping over short writes (`pwrite`).
    /// - Throws: the first failure; a write that makes no progress is reported as `EIO`.
    func writeFully(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(SystemCallError) {
        var done = 0
        while done < bytes.count {
            guard let base = bytes.baseAddress else { return }
            let count = try systemCall("write") {
                pwrite(rawValue, base + done, bytes.count - done, off_t(offset + done))
            }.get()
            if count == 0 {
                throw SystemCallError(operation: "write", errno: EIO)
            }
            done += count
        }
    }

    /// Flushes the file's data and metadata to stable storage (`fsync`).
    ///
    /// Not retried, not even on `EINTR`: after a failed `fsync` the kernel may already have
    /// dropped the dirty pages and cleared the error, so a second call could succeed falsely.
    func synchronize() throws(SystemCallError) {
        if fsync(rawValue) == -1 {
            throw SystemCallError(operation: "fsync", errno: errno)
        }
    }

    /// Sets the file's size (`ftruncate`).
    func truncate(to size: Int) throws(SystemCallError) {
        _ = try systemCall("ftruncate") { ftruncate(rawValue, off_t(size)) }.get()
    }

    /// Sets the file's permission bits (`fchmod`).
    func setMode(_ mode: mode_t) throws(SystemCallError) {
        _ = try systemCall("fchmod") { fchmod(rawValue, mode) }.get()
    }
}

/// Path-level calls: the checked layer for `mkdir`, `link`, `lstat`, `unlink` and a directory `fsync`.
enum FileSystem {
    /// Creates a directory (`mkdir`). - Returns: `false` when it already exists.
    static func makeDirectory(_ path: String, mode: mode_t) throws(SystemCallError) -> Bool {
        switch systemCall("mkdir", { mkdir(path, mode) }) {
        case .success:
            return true
        case .failure(let error) where error.errno == EEXIST:
            return false
        case .failure(let error):
            throw error
        }
    }

    /// Makes `destination` a second name of `source` (`link`); fails if it exists (`EEXIST`).
    static func link(_ source: String, to destination: String) throws(SystemCallError) {
        _ = try systemCall("link") { Glibc.link(source, destination) }.get()
    }

    /// The status of what `path` names, a symlink itself rather than its target (`lstat`).
    static func linkStatus(_ path: String) throws(SystemCallError) -> stat {
        var info = stat()
        _ = try systemCall("lstat") { lstat(path, &info) }.get()
        return info
    }

    /// Removes a name (`unlink`).
    static func unlink(_ path: String) throws(SystemCallError) {
        _ = try systemCall("unlink") { Glibc.unlink(path) }.get()
    }

    /// Makes a directory's entries durable: opens it and calls `fsync`.
    static func synchronizeDirectory(_ path: String) throws(SystemCallError) {
        let directory = try FileDescriptor.open(path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { directory.close() }
        try directory.synchronize()
    }
}

/// Splits a path into its directory and last component (`"a/b/c"` → `("a/b", "c")`;
/// `"c"` → `(".", "c")`; `"/c"` → `("/", "c")`).
func splitPath(_ path: String) -> (directory: String, name: String) {
    var trimmed = Substring(path)
    while trimmed.count > 1, trimmed.hasSuffix("/") {
        trimmed = trimmed.dropLast()
    }
    guard let slash = trimmed.lastIndex(of: "/") else {
        return (".", String(trimmed))
    }
    let directory = trimmed[..<slash]
    return (directory.isEmpty ? "/" : String(directory), String(trimmed[trimmed.index(after: slash)...]))
}
