import GiftKeeperCrypto
import GiftKeeperFiles
import Glibc

/// An open journal file: a clear header followed by hash-chained frames of opaque payload.
///
/// A `Journal` owns the file descriptor, released in `deinit`. Several processes may hold
/// one journal open at once (SPEC §12): each takes the file's `flock` only while it works on
/// the file — exclusive to trim a torn tail and to append, shared to verify and to take in
/// what others appended — and lets go at once. It is not thread-safe: use it from one
/// task at a time. The format is specified in `docs/journal-format.md`.
public final class Journal {
    /// The path the journal was opened or created at.
    public let path: String
    public let header: JournalHeader
    /// The last frame's sequence number; 0 when there are no frames.
    public internal(set) var lastSequence: UInt64
    /// The last frame's hash; the genesis hash when there are no frames.
    public internal(set) var headHash: [UInt8]
    public internal(set) var frameCount: Int
    /// Header plus whole frames, in bytes: where the next frame goes. With `.readOnly`
    /// access a torn tail may lie beyond it (see ``trimmedTail``).
    public internal(set) var size: Int
    /// The torn tail found on open: trimmed with `.readWrite`, only reported with `.readOnly`.
    public let trimmedTail: TornTail?
    /// What opening noted about the frames' kinds (key wraps kept), kept up to date by appends.
    public internal(set) var frameIndex: FrameIndex
    /// The first frame that does not verify, when the journal was opened read-only with
    /// `toleratingDamage` (for `audit`: the frames before it can still be shown). The
    /// journal then holds only the whole frames before the damage. Nil otherwise.
    public let damage: JournalProblem?

    let access: JournalAccess
    let file: FileDescriptor
    /// Set after a failed write or fsync: every later call throws ``JournalError/Code/unusable``.
    var isUnusable = false
    /// The device and inode of the open file, once a look has asked (they never change).
    var fileIdentity: (device: dev_t, inode: ino_t)?
    /// Where the frames after a recent head begin (noted on open, after each append and
    /// each take-in; at least the newest ``rememberedBoundaries``), so that reading what followed a
    /// recent head — a device sending its newest change — starts there, not at frame 1.
    var boundaries: [FrameBoundary] = []
    static let rememberedBoundaries = 32
    /// The descriptor holding the password-check lock, while it is held.
    var passwordCheckLocker: FileDescriptor?

    /// Whether an append can be tried: open for writing, and no earlier write failed.
    public var canAppend: Bool { access == .readWrite && !isUnusable }

    init(
        path: String, file: FileDescriptor, access: JournalAccess, header: JournalHeader,
        summary: ScanSummary, trimmedTail: TornTail?, frameIndex: FrameIndex, damage: JournalProblem? = nil
    ) {
        self.path = path
        self.file = file
        self.access = access
        self.header = header
        self.lastSequence = summary.lastSequence
        self.headHash = summary.headHash
        self.frameCount = summary.frameCount
        self.size = summary.validEnd
        self.trimmedTail = trimmedTail
        self.frameIndex = frameIndex
        self.damage = damage
        noteBoundary()
    }

    /// Remembers where the frames after the current head will begin.
    func noteBoundary() {
        // The oldest half dropped at once, not one on every append (each drop moves the rest).
        if boundaries.count == 2 * Self.rememberedBoundaries { boundaries.removeFirst(Self.rememberedBoundaries) }
        boundaries.append(FrameBoundary(sequence: lastSequence, offset: size, hash: headHash))
    }

    deinit {
        // Closing the descriptor also releases the flock.
        file.close()
        passwordCheckLocker?.close()
    }

    // MARK: - Creating

    /// Creates a new, empty journal at `path` (a household's with `household`) and opens it read-write, lock held.
    ///
    /// Missing parent directories are created with mode 0700 (an existing parent is left
    /// as it is). The header goes to a temporary file in the same directory, created
    /// `O_CREAT|O_EXCL|O_NOFOLLOW` with mode 0600, locked and fsynced; `link` then gives it
    /// its name, so `path` never names a half-written file and an existing file is never
    /// replaced. The directory is fsynced before this returns.
    /// - Throws: ``JournalError/Code/alreadyExists`` when `path` exists; `.io` otherwise.
    public static func create(at path: String, household: Bool = false) throws(JournalError) -> Journal {
        let directory = splitPath(path).directory  // a failure names it, not the journal file
        try mapIO(directory) { () throws(SystemCallError) in try PrivateFiles.makeDirectories(directory) }

        let journalID: [UInt8]
        do {
            journalID = try randomBytes(count: JournalFormat.journalIDSize)
        } catch {
            throw JournalError(.io(operation: "get random bytes for", errno: EIO), path: path)
        }
        let version = household ? JournalFormat.householdVersion : JournalFormat.currentVersion
        let headerBytes = JournalHeader.encode(journalID: journalID, version: version)
        let file: FileDescriptor
        do throws(SystemCallError) {
            let atomic = try AtomicFile(path: path)
            _ = try atomic.descriptor.tryLock(exclusive: true)  // a name only we know: cannot be taken
            try atomic.write(headerBytes)
            file = try atomic.commit(replacing: false)
            file.unlock()  // whole now: other processes may open it and append
        } catch {
            throw error.errno == EEXIST && error.operation == "link"
                ? JournalError(.alreadyExists, path: path) : JournalError(error, path: path)
        }
        // Once linked, the journal stays even if something below fails: it is whole.
        do throws(JournalError) {
            let header = try headerBytes.withBytes { bytes throws(JournalError) in
                try decodeHeader(bytes, path: path)
            }
            return Journal(
                path: path, file: file, access: .readWrite, header: header,
                summary: ScanSummary(headHash: header.genesisHash, validEnd: JournalFormat.headerSize),
                trimmedTail: nil, frameIndex: FrameIndex())
        } catch {
            file.close()
            throw error
        }
    }

    // MARK: - Opening

    /// Opens an existing journal, verifying its whole structure and hash chain.
    ///
    /// `.readWrite` takes the exclusive lock and trims a torn tail (reported in
    /// ``trimmedTail``); `.readOnly` takes a shared one and only reports one. Either is
    /// held only while opening: a lock held elsewhere is waited for up to ``lockPatience``,
    /// then the journal is reported ``JournalError/Code/inUse``.
    ///
    /// The same pass notes the frames' kinds and copies the key wraps into ``frameIndex``,
    /// so that nobody needs to read the file again before unlocking. `progress`, when
    /// given, is called now and then with (bytes done, bytes total).
    /// - Throws: `.notFound`, `.isDirectory`, `.notRegularFile` (symlinks included),
    ///   `.foreignOwner`, `.insecurePermissions` (any group/world bit), `.notAJournal`,
    ///   `.unsupportedVersion`, `.corrupt` for anything but a torn tail, `.io`.
    ///
    /// With `toleratingDamage` (read-only access only), a journal that does not verify
    /// still opens, holding the whole frames before the first bad one, which is reported in
    /// ``damage``: `audit` shows what verified and then names the problem.
    public static func open(
        at path: String, access: JournalAccess, progress: ((Int, Int) -> Void)? = nil,
        toleratingDamage: Bool = false
    ) throws(JournalError) -> Journal {
        let file = try openChecked(path, writable: access == .readWrite, checkOwnership: true)
        do throws(JournalError) {
            try lock(file, exclusive: access == .readWrite, path: path)
            // Held while the frames are verified (and a torn tail trimmed), then let go: other
            // processes append between this one's appends (SPEC §12).
            defer { file.unlock() }
            let fileSize = try mapIO(path) { () throws(SystemCallError) in Int(try file.status().st_size) }
            let header = try readHeader(file, fileSize: fileSize, path: path)
            var index = FrameIndex()
            let summary = try mapIO(path) {
                try JournalReader.scan(
                    file, genesisHash: header.genesisHash, from: JournalFormat.headerSize, to: fileSize,
                    progress: progress
                ) { frame, _ in
                    index.note(
                        sequence: frame.sequence, kind: frame.kind, previousHash: frame.previousHash,
                        payload: frame.payload)
                }
            }
            if let problem = summary.problem {
                guard toleratingDamage, access == .readOnly else {
                    throw JournalError(.corrupt(problem), path: path)
                }
                return Journal(
                    path: path, file: file, access: access, header: header, summary: summary,
                    trimmedTail: nil, frameIndex: index, damage: problem)
            }
            var tail = summary.tornTail
            if let torn = tail, access == .readWrite {
                tail = try trim(torn, of: file, path: path)
            }
            return Journal(
                path: path, file: file, access: access, header: header, summary: summary,
                trimmedTail: tail, frameIndex: index)
        } catch {
            file.close()
            throw error
        }
    }

    /// How long a lock held elsewhere is waited for before the journal is called in use.
    /// Writers hold it only while they append (one write and one fsync), so a wait that long
    /// means a process stopped in the middle, or a program other than giftkeeper holding it.
    static let lockPatience = 2_000

    /// Takes `file`'s lock, waiting up to ``lockPatience`` milliseconds.
    /// - Throws: ``JournalError/Code/inUse`` when another holds it that long; `.io`.
    static func lock(_ file: FileDescriptor, exclusive: Bool, path: String) throws(JournalError) {
        let locked = try mapIO(path) { () throws(SystemCallError) in
            try file.lock(exclusive: exclusive, waitingUpTo: lockPatience)
        }
        guard locked else { throw JournalError(.inUse, path: path) }
    }

    /// Saves an unfinished last frame aside (``saveAside(_:of:path:)``) unless it is all
    /// zeros, then cuts the file back to where it starts, durably. Call with the exclusive
    /// lock held. Returns the tail with where it was saved.
    static func trim(_ tail: TornTail, of file: FileDescriptor, path: String) throws(JournalError) -> TornTail {
        let saved = try saveAside(tail, of: file, path: path)
        try mapIO(path) { () throws(SystemCallError) in
            try file.truncate(to: tail.offset)
            try file.synchronize()
        }
        return TornTail(offset: tail.offset, length: tail.length, savedAs: saved)
    }

    /// Copies an unfinished tail to `<path>.torn-<offset>-<random>` beside the journal,
    /// durable before anything is trimmed. Returns its path; nil for a tail of zeros (what
    /// a crash that extended the file leaves), which holds nothing to keep.
    private static func saveAside(_ tail: TornTail, of file: FileDescriptor, path: String) throws(JournalError) -> String? {
        // A torn tail is never longer than one frame (JournalReader decides): bounded memory.
        precondition(tail.length <= JournalFormat.longestFrame, "a torn tail longer than one frame")
        var bytes = [UInt8](repeating: 0, count: tail.length)
        try mapIO(path) { () throws(SystemCallError) in
            try bytes.withMutableBytes { buffer throws(SystemCallError) in try file.readFully(into: buffer, at: tail.offset) }
        }
        if bytes.allSatisfy({ $0 == 0 }) { return nil }
        let suffix: [UInt8]
        do {
            suffix = try randomBytes(count: 6)
        } catch {
            throw JournalError(.io(operation: "get random bytes for", errno: EIO), path: path)
        }
        let name = path + ".torn-\(tail.offset)-" + suffix.map { String($0, radix: 16) }.joined()
        do throws(SystemCallError) {
            let copy = try AtomicFile(path: name)
            try copy.write(bytes)
            try copy.commit(replacing: false).close()
            return name
        } catch {
            throw JournalError(error, path: name)
        }
    }

    /// Opens `path` without following a symlink or blocking on a FIFO, and checks that it
    /// is a regular file (and, with `checkOwnership`, ours and private).
    static func openChecked(_ path: String, writable: Bool, checkOwnership: Bool) throws(JournalError) -> FileDescriptor {
        let flags = (writable ? O_RDWR : O_RDONLY) | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY
        let file: FileDescriptor
        do throws(SystemCallError) {
            file = try FileDescriptor.open(path, flags: flags)
        } catch {
            switch error.errno {
            // ENOTDIR: a part of the path is a file, so no journal can be there either.
            case ENOENT, ENOTDIR: throw JournalError(.notFound, path: path)
            case EISDIR: throw JournalError(.isDirectory, path: path)
            case ELOOP, ENXIO: throw JournalError(.notRegularFile, path: path)
            case EACCES, EPERM: throw JournalError(.unreadable, path: path)
            default: throw JournalError(error, path: path)
            }
        }
        do throws(JournalError) {
            let info = try mapIO(path) { () throws(SystemCallError) in try file.status() }
            let type = info.st_mode & S_IFMT
            if type == S_IFDIR {
                throw JournalError(.isDirectory, path: path)
            }
            if type != S_IFREG {
                throw JournalError(.notRegularFile, path: path)
            }
            if checkOwnership {
                if info.st_uid != getuid() {
                    throw JournalError(.foreignOwner(uid: info.st_uid), path: path)
                }
                if info.st_mode & 0o077 != 0 {
                    throw JournalError(.insecurePermissions(mode: UInt32(info.st_mode & 0o7777)), path: path)
                }
            }
            try mapIO(path) { () throws(SystemCallError) in try file.clearNonBlocking() }
            return file
        } catch {
            file.close()
            throw error
        }
    }

    /// Reads and checks the 60-byte header.
    static func readHeader(_ file: FileDescriptor, fileSize: Int, path: String) throws(JournalError) -> JournalHeader {
        var bytes = [UInt8](repeating: 0, count: min(fileSize, JournalFormat.headerSize))
        try mapIO(path) { () throws(SystemCallError) in
            try bytes.withMutableBytes { buffer throws(SystemCallError) in try file.readFully(into: buffer, at: 0) }
        }
        return try bytes.withBytes { buffer throws(JournalError) in try decodeHeader(buffer, path: path) }
    }

    /// The header, or the error that says why it cannot be used.
    static func decodeHeader(_ bytes: UnsafeRawBufferPointer, path: String) throws(JournalError) -> JournalHeader {
        do throws(JournalHeader.DecodingFailure) {
            return try JournalHeader.decode(bytes)
        } catch {
            switch error {
            case .notAJournal:
                throw JournalError(.notAJournal, path: path)
            case .newerVersion(let version):
                throw JournalError(.unsupportedVersion(version), path: path)
            case .hashMismatch:
                throw JournalError(.corrupt(headerProblem), path: path)
            }
        }
    }

    /// The problem reported when the header hash does not match.
    static let headerProblem = JournalProblem(
        sequence: 0, offset: 0, damage: .headerHashMismatch)

    // MARK: - Replaying

    /// Calls `body` with every frame in order, verifying structure and chain as it goes.
    ///
    /// Reads the file in blocks of about 1 MiB through the same ``FrameScanner`` as `open`;
    /// no system call or allocation per frame. With `chainCheck` ``ChainCheck/recompute``
    /// every hash is recomputed; with ``ChainCheck/trustVerifiedOnOpen`` none is (opening
    /// and each take-in did, under the lock), and each view's `previousHash` is the previous
    /// frame's stored hash — for callers that authenticate every payload together with its
    /// previous hash. `progress`, when given, is called now and then with (bytes done,
    /// bytes total). The views are valid only inside `body`.
    /// - Throws: ``JournalError`` (`.corrupt` if the file changed since it verified, `.io`,
    ///   `.unusable`), or what `body` throws.
    public func replay(
        chainCheck: ChainCheck = .recompute, progress: ((Int, Int) -> Void)? = nil,
        _ body: (FrameView) throws -> Void
    ) throws {
        try replay(from: firstBoundary, chainCheck: chainCheck, progress: progress) { frame, _ in try body(frame) }
    }

    /// Where the first frame begins.
    var firstBoundary: FrameBoundary {
        FrameBoundary(sequence: 0, offset: JournalFormat.headerSize, hash: header.genesisHash)
    }

    /// ``replay(chainCheck:progress:_:)`` of the frames after `start`, a boundary between
    /// frames this handle verified, with each frame's byte offset: the frames from there
    /// must still end at this handle's head.
    func replay(
        from start: FrameBoundary, chainCheck: ChainCheck, progress: ((Int, Int) -> Void)?,
        _ body: (FrameView, _ offset: Int) throws -> Void
    ) throws {
        guard !isUnusable else { throw JournalError(.unusable, path: path) }
        let summary = try withoutActuallyEscaping(body) { body in
            do {
                return try JournalReader.scan(
                    file, genesisHash: start.hash, from: start.offset, to: size, nextSequence: start.sequence + 1,
                    chainCheck: chainCheck, progress: progress, body: body)
            } catch let error as SystemCallError {
                throw JournalError(error, path: path)
            }
        }
        if let problem = summary.problem {
            throw JournalError(.corrupt(problem), path: path)
        }
        if let torn = summary.tornTail {
            // Bytes that verified no longer do: something ignoring the lock rewrote them.
            throw JournalError(
                .corrupt(
                    JournalProblem(
                        sequence: summary.lastSequence + 1, offset: torn.offset,
                        damage: .changedWhileOpen)),
                path: path)
        }
        if summary.lastSequence != lastSequence || summary.headHash != headHash {
            throw JournalError(
                .corrupt(
                    JournalProblem(
                        sequence: summary.lastSequence, offset: summary.validEnd,
                        damage: .changedWhileOpen)),
                path: path)
        }
    }
}

/// Runs `body`, turning a ``SystemCallError`` into ``JournalError/Code/io(operation:errno:)``
/// for `path` and letting a ``JournalError`` through.
func mapIO<T, E: Error>(_ path: String, _ body: () throws(E) -> T) throws(JournalError) -> T {
    do {
        return try body()
    } catch {
        switch error {
        case let error as JournalError:
            throw error
        case let error as SystemCallError:
            throw JournalError(error, path: path)
        default:
            throw JournalError(.io(operation: "read", errno: EIO), path: path)
        }
    }
}
