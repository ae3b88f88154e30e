public import Glibc

/// A failed system call, as data: the operation's name and `errno`, before a path is attached.
public struct SystemCallError: Error, Equatable, Sendable {
    public let operation: String
    public let errno: Int32

    public init(operation: String, errno: Int32) {
        self.operation = operation
        self.errno = errno
    }

    /// What `errno` means, in the C library's words (``errnoText(_:)``).
    public var reason: String { errnoText(errno) }
}

/// The C library's words for an `errno` value (`strerror_r`), starting in lower case so
/// that it reads inside a sentence: "no space left on device".
public func errnoText(_ code: Int32) -> String {
    // glibc's strerror returns a static string for every known errno (thread-safe since 2.32).
    guard let message = strerror(code) else { return "errno \(code)" }
    let text = String(cString: message)
    // "No space left on device" → "no space left on device"; an acronym ("EOF") stays.
    guard let first = text.first, first.isUppercase, text.dropFirst().first.map({ !$0.isUppercase }) ?? true else {
        return text
    }
    return first.lowercased() + text.dropFirst()
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

/// An open file descriptor owned by the caller, with the POSIX calls GiftKeeper makes on files.
///
/// The checked layer: each method makes one call, checks its result where it is made and
/// throws ``SystemCallError``. It does not close itself: its owner (a journal, an
/// ``AtomicFile``) closes it.
public struct FileDescriptor: Sendable {
    public let rawValue: Int32

    public init(rawValue: Int32) {
        self.rawValue = rawValue
    }

    /// Opens `path` (`open`, retried on `EINTR`); `mode` only matters with `O_CREAT`.
    public static func open(_ path: String, flags: Int32, mode: mode_t = 0) throws(SystemCallError) -> FileDescriptor {
        let fd = try systemCall("open") { Glibc.open(path, flags, mode) }.get()
        return FileDescriptor(rawValue: fd)
    }

    /// Closes the descriptor (`close`). `EINTR` is not retried: on Linux the descriptor is
    /// already released then, and closing it again could close someone else's.
    public func close() {
        _ = Glibc.close(rawValue)
    }

    /// The file's status (`fstat`).
    public func status() throws(SystemCallError) -> stat {
        var info = stat()
        _ = try systemCall("fstat") { fstat(rawValue, &info) }.get()
        return info
    }

    /// Clears `O_NONBLOCK`, which is only used so that opening a FIFO cannot block.
    public func clearNonBlocking() throws(SystemCallError) {
        let flags = try systemCall("fcntl") { fcntl(rawValue, F_GETFL) }.get()
        _ = try systemCall("fcntl") { fcntl(rawValue, F_SETFL, flags & ~O_NONBLOCK) }.get()
    }

    /// Takes an advisory lock without waiting (`flock` with `LOCK_NB`).
    /// - Returns: `false` when another open file description holds a conflicting lock.
    public func tryLock(exclusive: Bool) throws(SystemCallError) -> Bool {
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

    /// Takes an advisory lock, waiting up to `milliseconds` for another holder to let go
    /// (`flock` with `LOCK_NB`, tried every millisecond: `flock` itself cannot time out).
    /// - Returns: `false` when the lock was still held elsewhere at the deadline.
    public func lock(exclusive: Bool, waitingUpTo milliseconds: Int) throws(SystemCallError) -> Bool {
        var waited = 0
        while true {
            if try tryLock(exclusive: exclusive) { return true }
            guard waited < milliseconds else { return false }
            usleep(1_000)
            waited += 1
        }
    }

    /// Releases this descriptor's advisory lock (`flock` with `LOCK_UN`).
    public func unlock() {
        _ = flock(rawValue, LOCK_UN)
    }

    /// Takes (`F_RDLCK`) or releases (`F_UNLCK`) a shared record lock on the one byte at
    /// `offset`, owned by this open file description (`F_OFD_SETLK`): independent of `flock`
    /// on Linux, and released when the description closes, a crash included.
    /// - Returns: false when the file system does not support it.
    @discardableResult
    public func setRecordLock(shared: Bool, at offset: Int64) -> Bool {
        var lock = Self.byteLock(shared ? F_RDLCK : F_UNLCK, at: offset)
        return fcntl(rawValue, Self.ofdSetLock, &lock) == 0
    }

    /// Tries to take an exclusive record lock (`F_WRLCK`, `F_OFD_SETLK`) on the byte at
    /// `offset`, owned by this open file description (the descriptor must be open for
    /// writing). True when taken, false when another description holds a lock there, nil
    /// when the file system does not support it. ``setRecordLock(shared:at:)`` with
    /// `shared: false` releases it.
    public func tryExclusiveRecordLock(at offset: Int64) -> Bool? {
        var lock = Self.byteLock(F_WRLCK, at: offset)
        if fcntl(rawValue, Self.ofdSetLock, &lock) == 0 { return true }
        return errno == EAGAIN || errno == EACCES ? false : nil
    }

    /// Whether another open file description holds a record lock on the byte at `offset`
    /// (`F_OFD_GETLK`; this description's own locks do not count). Nil when it cannot be told.
    public func recordLockHeldElsewhere(at offset: Int64) -> Bool? {
        var lock = Self.byteLock(F_WRLCK, at: offset)
        guard fcntl(rawValue, Self.ofdGetLock, &lock) == 0 else { return nil }
        return lock.l_type != Int16(F_UNLCK)
    }

    /// A record lock of `type` on the one byte at `offset`.
    private static func byteLock(_ type: Int32, at offset: Int64) -> Glibc.flock {
        var lock = Glibc.flock()
        lock.l_type = Int16(type)
        lock.l_whence = Int16(SEEK_SET)
        lock.l_start = off_t(offset)
        lock.l_len = 1
        return lock
    }

    /// `F_OFD_GETLK` and `F_OFD_SETLK` (Linux 3.15; not exported to Swift by Glibc's module).
    private static let ofdGetLock: Int32 = 36
    private static let ofdSetLock: Int32 = 37

    /// Reads up to `buffer.count` bytes at `offset` (`pread`, retried on `EINTR`).
    /// - Returns: the number of bytes read; 0 only at end of file.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(SystemCallError) -> Int {
        guard let base = buffer.baseAddress, buffer.count > 0 else { return 0 }
        return try systemCall("read") { pread(rawValue, base, buffer.count, off_t(offset)) }.get()
    }

    /// Fills `buffer` from `offset`, looping over short reads (`pread`).
    /// - Throws: `EIO` when the file ends before the buffer is full.
    public func readFully(into buffer: UnsafeMutableRawBufferPointer, at offset: Int) throws(SystemCallError) {
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
    public func writeFully(_ bytes: UnsafeRawBufferPointer, at offset: Int) throws(SystemCallError) {
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
    public func synchronize() throws(SystemCallError) {
        if fsync(rawValue) == -1 {
            throw SystemCallError(operation: "fsync", errno: errno)
        }
    }

    /// Sets the file's size (`ftruncate`).
    public func truncate(to size: Int) throws(SystemCallError) {
        _ = try systemCall("ftruncate") { ftruncate(rawValue, off_t(size)) }.get()
    }

    /// Sets the file's permission bits (`fchmod`).
    public func setMode(_ mode: mode_t) throws(SystemCallError) {
        _ = try systemCall("fchmod") { fchmod(rawValue, mode) }.get()
    }
}

/// Path-level calls: the checked layer for `mkdir`, `link`, `lstat`, `unlink` and a directory `fsync`.
public enum FileSystem {
    /// Creates a directory (`mkdir`). - Returns: `false` when it already exists.
    public static func makeDirectory(_ path: String, mode: mode_t) throws(SystemCallError) -> Bool {
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
    public static func link(_ source: String, to destination: String) throws(SystemCallError) {
        _ = try systemCall("link") { Glibc.link(source, destination) }.get()
    }

    /// The status of what `path` names, a symlink itself rather than its target (`lstat`).
    public static func linkStatus(_ path: String) throws(SystemCallError) -> stat {
        var info = stat()
        // `withCString`: the string's own bytes (a String passed as the argument was copied
        // into a new array on each call, and an append checks the journal's path).
        _ = try path.withCString { path in systemCall("lstat") { lstat(path, &info) } }.get()
        return info
    }

    /// Removes a name (`unlink`).
    public static func unlink(_ path: String) throws(SystemCallError) {
        _ = try systemCall("unlink") { Glibc.unlink(path) }.get()
    }

    /// The names in a directory, `.` and `..` left out (`opendir`, `readdir`).
    public static func directoryEntries(_ path: String) throws(SystemCallError) -> [String] {
        guard let directory = opendir(path) else { throw SystemCallError(operation: "opendir", errno: errno) }
        defer { closedir(directory) }
        var names: [String] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != ".", name != ".." { names.append(name) }
        }
        return names
    }

    /// Makes a directory's entries durable: opens it and calls `fsync`.
    public static func synchronizeDirectory(_ path: String) throws(SystemCallError) {
        let directory = try FileDescriptor.open(path, flags: O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        defer { directory.close() }
        try directory.synchronize()
    }
}

/// Splits a path into its directory and last component (`"a/b/c"` → `("a/b", "c")`;
/// `"c"` → `(".", "c")`; `"/c"` → `("/", "c")`).
public func splitPath(_ path: String) -> (directory: String, name: String) {
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
