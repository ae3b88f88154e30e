import GiftKeeperCrypto
import GiftKeeperFiles
import Glibc

extension Journal {
    /// Appends the frames `build` adds to a batch made on this journal's head, as one write
    /// and one fsync; returns after the fsync.
    ///
    /// The frames are written with `pwrite` at ``size`` (short writes continued) and made
    /// durable with one `fsync`: only then are they acknowledged by returning. A failed
    /// write or fsync is fatal: the file is cut back to its previous size (best effort, so
    /// that unacknowledged frames do not appear later), this handle becomes unusable and
    /// the error is thrown; nothing is retried. An empty batch writes nothing.
    ///
    /// The lock only keeps out programs that take it, so each append also checks, once per
    /// batch, that nobody else changed the file: before writing, that it is exactly
    /// ``size`` bytes (`fstat`; otherwise nothing is written, so bytes someone else added
    /// are never overwritten); after the fsync, that ``path`` still names it (`lstat`,
    /// device and inode; otherwise the frames went to a file that is no longer the
    /// journal and are cut back off it). Either way this handle becomes unusable.
    /// - Throws: what `build` throws (nothing written), or ``JournalError`` with
    ///   `.readOnlyAccess`, `.unusable`, `.frameTooLarge`, `.changedWhileOpen` or `.io`
    ///   (`ENOSPC`, `EIO`...).
    @discardableResult
    public func append(_ build: (inout FrameBatch) throws -> Void) throws -> [AppendedFrame] {
        guard !isUnusable else { throw JournalError(.unusable, path: path) }
        guard access == .readWrite else { throw JournalError(.readOnlyAccess, path: path) }
        var batch = makeBatch()
        try build(&batch)
        switch try append(batch) {
        case .appended:
            return batch.appendedFrames(startingAt: size - batch.bytes.count)
        case .conflict(let current):
            // Another process appended first; this low-level API does not decide again (the
            // service does: it folds their frames in and builds a new batch).
            throw JournalError(
                .corrupt(
                    JournalProblem(
                        sequence: current.sequence, offset: size, damage: .changedWhileOpen)),
                path: path)
        }
    }

    /// Appends `batch` as one write and one fsync, if this journal's head is still the one
    /// the batch was built after; otherwise writes nothing and returns the current head.
    ///
    /// The exclusive lock is taken for this append only (SPEC §12: several processes share
    /// one file). Under it, frames another process appended since this handle last looked
    /// are verified and taken in: then the batch is stale and the new head is returned as a
    /// conflict. An unfinished frame past them can only be a writer that died mid-append
    /// (writers hold the lock until their fsync): it is saved aside and trimmed, as opening
    /// does. The same durability and checks as ``append(_:)-(FrameBatch)``; the file
    /// store's half of ``FrameStore/append(_:)``.
    public func append(_ batch: FrameBatch) throws(JournalError) -> AppendOutcome {
        guard !isUnusable else { throw JournalError(.unusable, path: path) }
        guard access == .readWrite else { throw JournalError(.readOnlyAccess, path: path) }
        guard batch.base == head else { return .conflict(current: head) }
        guard !batch.isEmpty else { return .appended(head) }

        try Self.lock(file, exclusive: true, path: path)
        defer { file.unlock() }
        let opened = try statusAfterTakingInOthers()
        guard batch.base == head else { return .conflict(current: head) }
        do throws(SystemCallError) {
            try batch.bytes.withBytes { bytes throws(SystemCallError) in try file.writeFully(bytes, at: size) }
            try file.synchronize()
        } catch {
            isUnusable = true
            // Best effort: the error below is what the caller must see.
            try? file.truncate(to: size)
            throw JournalError(error, path: path)
        }
        if let error = errorUnlessPathNamesFile(opened) {
            isUnusable = true
            // Best effort, as above; this file's fsync works, so the cut is made durable too.
            try? file.truncate(to: size)
            try? file.synchronize()
            throw error
        }
        batch.note(into: &frameIndex)
        size += batch.bytes.count
        frameCount += batch.count
        lastSequence = batch.head.sequence
        headHash = batch.head.hash
        noteBoundary()
        return .appended(head)
    }

    /// Under the exclusive lock: takes in the whole frames other processes appended since
    /// this handle last looked, trims what a writer that died mid-append left after them,
    /// and returns the file's status (`fstat`), now exactly ``size`` bytes long.
    ///
    /// A file shorter than ``size`` was cut by a program that ignores the lock: nothing is
    /// written and this handle becomes unusable. Bytes after ``size`` that do not verify
    /// are corruption, reported as such.
    func statusAfterTakingInOthers() throws(JournalError) -> stat {
        var info = try mapIO(path) { () throws(SystemCallError) in try file.status() }
        if Int(info.st_size) < size {
            isUnusable = true
            throw JournalError(.changedWhileOpen(.size(expected: size, actual: Int(info.st_size))), path: path)
        }
        guard Int(info.st_size) > size else { return info }
        let torn: TornTail?
        do {
            torn = try takeInFrames(to: Int(info.st_size))
        } catch {
            // Bytes after ours that do not verify: nothing is ever appended after damage.
            isUnusable = true
            throw error
        }
        if let torn {
            _ = try Self.trim(torn, of: file, path: path)
            info = try mapIO(path) { () throws(SystemCallError) in try file.status() }
        }
        return info
    }

    /// Nil when ``path`` still names the file `opened` describes (same device and inode,
    /// `lstat`: a symlink put in its place is another file); else the error to report.
    func errorUnlessPathNamesFile(_ opened: stat) -> JournalError? {
        do throws(SystemCallError) {
            let named = try FileSystem.linkStatus(path)
            guard named.st_dev == opened.st_dev, named.st_ino == opened.st_ino else {
                return JournalError(.changedWhileOpen(.replaced), path: path)
            }
            return nil
        } catch  where error.errno == ENOENT || error.errno == ENOTDIR {
            return JournalError(.changedWhileOpen(.replaced), path: path)
        } catch {
            // Cannot tell which file the path names, so the frames cannot be acknowledged.
            return JournalError(error, path: path)
        }
    }
}
