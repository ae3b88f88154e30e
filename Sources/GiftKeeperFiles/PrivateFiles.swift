import Glibc

/// The one way GiftKeeper makes its private files: the journal, the remembered head, an
/// export. Files are created `O_CREAT|O_EXCL|O_NOFOLLOW` with mode 0600 (whatever the
/// umask), directories with mode 0700, and every name is given only once the content is
/// durable, so a reader never sees a half-written file.
public enum PrivateFiles {
    /// `mkdir -p` with mode 0700 for the directories it creates (existing ones are left as
    /// they are), fsyncing each new one's parent so the name survives a crash.
    public static func makeDirectories(_ directory: String) throws(SystemCallError) {
        do throws(SystemCallError) {
            if try FileSystem.makeDirectory(directory, mode: 0o700) {
                try FileSystem.synchronizeDirectory(splitPath(directory).directory)
            }
        } catch  where error.errno == ENOENT {
            let parent = splitPath(directory).directory
            guard parent != directory else { throw error }
            try makeDirectories(parent)
            if try FileSystem.makeDirectory(directory, mode: 0o700) {
                try FileSystem.synchronizeDirectory(parent)
            }
        }
    }

    /// Reads a regular file of at most `limit` bytes, not following a symlink; nil when it
    /// is missing, not a regular file, unreadable or larger.
    public static func readSmallFile(_ path: String, limit: Int = 1 << 16) -> [UInt8]? {
        guard let file = try? FileDescriptor.open(path, flags: O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK) else {
            return nil
        }
        defer { file.close() }
        guard let info = try? file.status(), info.st_mode & S_IFMT == S_IFREG, Int(info.st_size) <= limit else {
            return nil
        }
        var bytes = [UInt8](repeating: 0, count: limit + 1)
        var count = 0
        while count <= limit {
            let read = bytes.withUnsafeMutableBytes { buffer in
                try? file.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[count...]), at: count)
            }
            guard let read else { return nil }
            if read == 0 { return Array(bytes[0..<count]) }
            count += read
        }
        return nil  // grew past the limit while being read
    }

    /// Writes `bytes` to `path` atomically (``AtomicFile``), replacing what is there.
    public static func replace(_ path: String, with bytes: [UInt8]) throws(SystemCallError) {
        let file = try AtomicFile(path: path)
        try file.write(bytes)
        try file.commit(replacing: true).close()
    }
}

/// A private file written in full before it gets its name.
///
/// The content goes to a temporary file beside `path` (`O_CREAT|O_EXCL|O_NOFOLLOW`, mode
/// 0600); ``commit(replacing:)`` fsyncs it, names it `path` -- `rename` over what is there,
/// or `link`, which never replaces -- and fsyncs the directory. Until then `path` is
/// untouched; an abandoned file leaves nothing behind (deinit removes the temporary name).
public final class AtomicFile {
    public let path: String
    /// The temporary file, open for writing (the caller may lock it, or keep it after commit).
    public let descriptor: FileDescriptor
    private let temporaryPath: String
    private var offset = 0
    private var isNamed = false
    private var ownsDescriptor = true

    /// Creates the temporary file beside `path`.
    /// - Throws: the failed `open` (the directory missing or not writable...).
    public init(path: String) throws(SystemCallError) {
        self.path = path
        let (directory, name) = splitPath(path)
        // Unique to this process and moment; O_EXCL refuses a name that exists anyway, and
        // the next moment gives another.
        var attempt = 0
        while true {
            var now = timespec()
            clock_gettime(CLOCK_MONOTONIC, &now)
            let suffix = String(getpid(), radix: 16) + "-" + String(Int(now.tv_sec) * 1_000_000_000 + now.tv_nsec, radix: 16)
            let candidate = directory + "/." + name + ".new-" + suffix
            do throws(SystemCallError) {
                descriptor = try FileDescriptor.open(
                    candidate, flags: O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
                temporaryPath = candidate
                break
            } catch  where error.errno == EEXIST && attempt < 8 {
                attempt += 1
            }
        }
        do throws(SystemCallError) {
            try descriptor.setMode(0o600)  // whatever the umask
        } catch {
            descriptor.close()
            try? FileSystem.unlink(temporaryPath)
            throw error
        }
    }

    deinit {
        if !isNamed { try? FileSystem.unlink(temporaryPath) }
        if ownsDescriptor { descriptor.close() }
    }

    /// Appends `bytes` (short writes continued).
    public func write(_ bytes: UnsafeRawBufferPointer) throws(SystemCallError) {
        try descriptor.writeFully(bytes, at: offset)
        offset += bytes.count
    }

    /// Appends `bytes` (short writes continued).
    public func write(_ bytes: some Collection<UInt8>) throws(SystemCallError) {
        let written = bytes.withContiguousStorageIfAvailable { buffer in
            Result { () throws(SystemCallError) in try write(UnsafeRawBufferPointer(buffer)) }
        }
        if let written {
            try written.get()
        } else {
            try Array(bytes).withUnsafeBytes { buffer in
                Result { () throws(SystemCallError) in try write(buffer) }
            }.get()
        }
    }

    /// Makes the content durable and gives it its name: fsync, then `rename` over `path`
    /// (`replacing`) or `link` (fails with `EEXIST` when `path` exists), then fsync of the
    /// directory. Returns the descriptor, which the caller then owns and closes.
    public func commit(replacing: Bool) throws(SystemCallError) -> FileDescriptor {
        try descriptor.synchronize()
        let directory = splitPath(path).directory
        if replacing {
            guard rename(temporaryPath, path) == 0 else { throw SystemCallError(operation: "rename", errno: errno) }
            isNamed = true
        } else {
            try FileSystem.link(temporaryPath, to: path)
            isNamed = true
            try FileSystem.unlink(temporaryPath)
        }
        try FileSystem.synchronizeDirectory(directory)
        ownsDescriptor = false
        return descriptor
    }
}
