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
/// The content goes to an unnamed file in `path`'s directory (`O_TMPFILE`, mode 0600)
/// where the file system allows it, so a process killed mid-write leaves nothing anyone can
/// find; elsewhere to a temporary file beside `path`, `.<name>.new-<pid>-<time>`
/// (`O_CREAT|O_EXCL|O_NOFOLLOW`, mode 0600), which ``removeStalePartialFiles(of:)`` finds
/// again once its process is gone. ``commit(replacing:)`` fsyncs it, names it `path` --
/// `rename` over what is there, or `link`, which never replaces -- and fsyncs the
/// directory. Until then `path` is untouched; an abandoned file leaves nothing behind
/// (deinit removes the temporary name).
public final class AtomicFile {
    public let path: String
    /// The temporary file, open for writing (the caller may lock it, or keep it after commit).
    public let descriptor: FileDescriptor
    /// The temporary name; nil for an unnamed file (`O_TMPFILE`).
    private let temporaryPath: String?
    private var offset = 0
    private var isNamed = false
    private var ownsDescriptor = true

    /// Linux's `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`; the same value on x86-64 and
    /// arm64), which Swift's Glibc module does not import.
    static let unnamedFileFlag: Int32 = 0o20_000_000 | O_DIRECTORY

    /// Creates the unnamed, or else temporary, file in `path`'s directory.
    /// - Throws: the failed `open` (the directory missing or not writable...).
    public init(path: String) throws(SystemCallError) {
        self.path = path
        let directory = splitPath(path).directory
        if let unnamed = try? FileDescriptor.open(directory, flags: Self.unnamedFileFlag | O_RDWR | O_CLOEXEC, mode: 0o600) {
            descriptor = unnamed
            temporaryPath = nil
        } else {
            // No O_TMPFILE here (an old kernel, a file system without it): a name, unique to
            // this process and moment; O_EXCL refuses one that exists, the next moment gives another.
            var attempt = 0
            while true {
                let candidate = Self.temporaryName(for: path)
                do throws(SystemCallError) {
                    descriptor = try FileDescriptor.open(
                        candidate, flags: O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode: 0o600)
                    temporaryPath = candidate
                    break
                } catch  where error.errno == EEXIST && attempt < 8 {
                    attempt += 1
                }
            }
        }
        do throws(SystemCallError) {
            try descriptor.setMode(0o600)  // whatever the umask
        } catch {
            descriptor.close()
            if let temporaryPath { try? FileSystem.unlink(temporaryPath) }
            throw error
        }
    }

    deinit {
        if !isNamed, let temporaryPath { try? FileSystem.unlink(temporaryPath) }
        if ownsDescriptor { descriptor.close() }
    }

    /// Whether the content goes to an unnamed file (`O_TMPFILE`): nothing of it has a name
    /// before ``commit(replacing:)``.
    public var isUnnamed: Bool { temporaryPath == nil }

    /// `.<name>.new-<pid>-<time>` beside `path`: this process's id in hex, then the moment.
    static func temporaryName(for path: String) -> String {
        let (directory, name) = splitPath(path)
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        let suffix = String(getpid(), radix: 16) + "-" + String(Int(now.tv_sec) * 1_000_000_000 + now.tv_nsec, radix: 16)
        return directory + "/." + name + ".new-" + suffix
    }

    /// Removes the temporary files of `path` (`.<name>.new-<pid>-<time>`) that earlier
    /// processes left when they were killed mid-write: regular files of this user's whose
    /// process no longer runs. A running process's file is left alone. Returns the paths
    /// removed (best effort: a name that cannot be removed is left).
    public static func removeStalePartialFiles(of path: String) -> [String] {
        let (directory, name) = splitPath(path)
        let prefix = "." + name + ".new-"
        guard let entries = try? FileSystem.directoryEntries(directory) else { return [] }
        var removed: [String] = []
        for entry in entries where entry.hasPrefix(prefix) {
            let rest = entry.dropFirst(prefix.count)
            guard let dash = rest.firstIndex(of: "-"), let pid = pid_t(rest[..<dash], radix: 16), pid > 0 else { continue }
            // Still running (or another user's process): maybe still writing it.
            if kill(pid, 0) == 0 || errno != ESRCH { continue }
            let candidate = directory + "/" + entry
            guard let info = try? FileSystem.linkStatus(candidate), info.st_mode & S_IFMT == S_IFREG,
                info.st_uid == getuid(), (try? FileSystem.unlink(candidate)) != nil
            else { continue }
            removed.append(candidate)
        }
        return removed
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
    /// directory. An unnamed file is first linked to a temporary name when replacing
    /// (`linkat` cannot replace), or straight to `path`. Returns the descriptor, which the
    /// caller then owns and closes.
    public func commit(replacing: Bool) throws(SystemCallError) -> FileDescriptor {
        try descriptor.synchronize()
        let directory = splitPath(path).directory
        let named: String
        if let temporaryPath {
            named = temporaryPath
        } else if replacing {
            named = Self.temporaryName(for: path)
            try linkUnnamed(to: named)
        } else {
            try linkUnnamed(to: path)
            named = path
        }
        if replacing {
            guard rename(named, path) == 0 else {
                let failure = SystemCallError(operation: "rename", errno: errno)
                if isUnnamed { try? FileSystem.unlink(named) }
                throw failure
            }
            isNamed = true
        } else if named != path {
            try FileSystem.link(named, to: path)
            isNamed = true
            try FileSystem.unlink(named)
        }
        isNamed = true
        try FileSystem.synchronizeDirectory(directory)
        ownsDescriptor = false
        return descriptor
    }

    /// Gives the unnamed file the name `name` (`linkat` of `/proc/self/fd/N`, or with
    /// `AT_EMPTY_PATH` where `/proc` is missing); fails with `EEXIST` when it exists.
    private func linkUnnamed(to name: String) throws(SystemCallError) {
        if linkat(AT_FDCWD, "/proc/self/fd/\(descriptor.rawValue)", AT_FDCWD, name, AT_SYMLINK_FOLLOW) == 0 { return }
        guard errno == ENOENT else { throw SystemCallError(operation: "link", errno: errno) }
        // AT_EMPTY_PATH (0x1000), which Glibc's module does not import.
        guard linkat(descriptor.rawValue, "", AT_FDCWD, name, 0x1000) == 0 else {
            throw SystemCallError(operation: "link", errno: errno)
        }
    }
}
