import GiftKeeperFiles
import Glibc

/// The file store's half of ``FrameStore``: its head, reads after a position, waiting
/// for other processes' appends and taking them in.
extension Journal: FrameStore {
    public var name: String { path }
    public var head: JournalHead { JournalHead(sequence: lastSequence, hash: headHash) }

    /// Frames after `sequence`, from the chain that opening and each take-in verified under
    /// the lock (``ChainCheck/trustVerifiedOnOpen``; frames before ``size`` are never
    /// rewritten by a writer that takes it): every caller authenticates each payload
    /// together with its previous hash, so nothing goes unchecked.
    public func read(after sequence: UInt64, progress: ((Int, Int) -> Void)?, _ body: (FrameView) throws -> Void) throws {
        guard sequence < lastSequence else { return }
        if let start = boundaries.last(where: { $0.sequence == sequence }) {
            try replay(from: start, chainCheck: .trustVerifiedOnOpen, progress: progress) { frame, _ in try body(frame) }
            return
        }
        try replay(chainCheck: .trustVerifiedOnOpen, progress: progress) { frame in
            if frame.sequence > sequence { try body(frame) }
        }
    }

    /// Every frame as one batch after the genesis hash, byte for byte as the file holds them,
    /// read in one piece: verified on opening, so none is hashed again (a device's copy of a
    /// household's journal, handed to the service as the frames it knows).
    public func frames() throws -> FrameBatch {
        var bytes = [UInt8](repeating: 0, count: size - JournalFormat.headerSize)
        try mapIO(path) { try bytes.withUnsafeMutableBytes { buffer in try file.readFully(into: buffer, at: JournalFormat.headerSize) } }
        guard let batch = FrameBatch(verified: bytes, after: JournalHead(sequence: 0, hash: header.genesisHash), path: path),
            batch.head == head
        else { throw JournalError(.corrupt(JournalProblem(sequence: 1, offset: nil, damage: .changedWhileOpen)), path: path) }
        return batch
    }

    /// A shared record lock on this byte (past any journal's end, never written) marks a
    /// live session; record locks are independent of the `flock` appends take.
    static let sessionMarkOffset: Int64 = 1 << 62

    public func beginSession() -> Bool? {
        guard file.setRecordLock(shared: true, at: Self.sessionMarkOffset) else { return nil }
        return file.recordLockHeldElsewhere(at: Self.sessionMarkOffset)
    }

    public func endSession() {
        file.setRecordLock(shared: false, at: Self.sessionMarkOffset)
    }

    /// The byte after ``sessionMarkOffset``: an exclusive record lock on it is the
    /// password-check lock.
    static let passwordCheckOffset: Int64 = sessionMarkOffset + 1

    /// An exclusive record lock needs a descriptor open for writing: a second open of the
    /// same file (`audit` reads through a read-only one), kept while the lock is held.
    public func lockPasswordChecks(isCancelled: () -> Bool) -> Bool {
        unlockPasswordChecks()
        guard let locker = try? FileDescriptor.open(path, flags: O_RDWR | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY)
        else { return true }
        guard let opened = try? locker.status(), let mine = try? file.status(),
            opened.st_dev == mine.st_dev, opened.st_ino == mine.st_ino
        else {
            locker.close()
            return true
        }
        // A holder stopped in the middle (Ctrl-Z at its countdown) is waited for a minute at
        // most: longer than the longest delay and a key derivation.
        for _ in 0..<Self.passwordCheckPatience / 50 {
            switch locker.tryExclusiveRecordLock(at: Self.passwordCheckOffset) {
            case true?:
                passwordCheckLocker = locker
                return true
            case nil:
                locker.close()
                return true
            case false?:
                if isCancelled() {
                    locker.close()
                    return false
                }
                usleep(50_000)
            }
        }
        locker.close()
        return true
    }

    /// How long, in milliseconds, another process's password check is waited for.
    static let passwordCheckPatience = 60_000

    public func unlockPasswordChecks() {
        // Closing the description releases its record locks.
        passwordCheckLocker?.close()
        passwordCheckLocker = nil
    }

    /// Polls the file's size every 20 ms (no lock: `fstat`, and `lstat` of the path to
    /// notice a journal put in its place, ``JournalChange/replaced``); when it grew, takes the
    /// shared lock and takes in the whole frames that verify against this handle's head
    /// (head, size and index move on). An unfinished frame is left for the next look (or
    /// for the next appender, which trims it); one that does not verify is corruption.
    public func waitForFrames(after sequence: UInt64, milliseconds: Int) throws(JournalError) -> Bool {
        guard !isUnusable else { throw JournalError(.unusable, path: path) }
        // Opened for audit past damage: what follows the damage is not taken in.
        guard damage == nil else { return sequence < lastSequence }
        var waited = 0
        while true {
            if sequence < lastSequence { return true }
            let fileSize = try currentSize()
            if fileSize > size {
                try Self.lock(file, exclusive: false, path: path)
                defer { file.unlock() }
                let current = try mapIO(path) { () throws(SystemCallError) in Int(try file.status().st_size) }
                _ = try takeInFrames(to: current)
                if sequence < lastSequence { return true }
            }
            guard waited < milliseconds else { return false }
            usleep(20_000)
            waited += 20
        }
    }

    /// The file's size, for a look without the lock. While the path names this handle's
    /// file, one `lstat` of the path tells both (the same device and inode: its status is the
    /// file's); otherwise `fstat`, and when the file has not grown and is open for writing,
    /// the error of a journal put in its place.
    private func currentSize() throws(JournalError) -> Int {
        if access == .readWrite, let identity = fileIdentity,
            let named = try? FileSystem.linkStatus(path), named.st_dev == identity.device, named.st_ino == identity.inode
        {
            return Int(named.st_size)
        }
        let status = try mapIO(path) { () throws(SystemCallError) in try file.status() }
        fileIdentity = (status.st_dev, status.st_ino)
        let fileSize = Int(status.st_size)
        if fileSize == size, access == .readWrite, let replaced = errorUnlessPathNamesFile(status) {
            // Another process put a new journal in its place (a sync deciding offline
            // changes again): this handle's file will never grow again.
            isUnusable = true
            throw replaced
        }
        return fileSize
    }

    /// Verifies the frames between ``size`` and `end` against the head and takes in the
    /// whole ones; returns the unfinished frame after them, if any. Call with the lock held.
    func takeInFrames(to end: Int) throws(JournalError) -> TornTail? {
        var index = frameIndex
        let summary = try mapIO(path) {
            try JournalReader.scan(
                file, genesisHash: headHash, from: size, to: end, nextSequence: lastSequence + 1,
                body: { frame, _ in
                    index.note(
                        sequence: frame.sequence, kind: frame.kind, previousHash: frame.previousHash,
                        payload: frame.payload)
                })
        }
        if let problem = summary.problem {
            throw JournalError(.corrupt(problem), path: path)
        }
        frameIndex = index
        frameCount += Int(summary.lastSequence - lastSequence)
        lastSequence = summary.lastSequence
        headHash = summary.headHash
        size = summary.validEnd
        noteBoundary()
        return summary.tornTail
    }
}
