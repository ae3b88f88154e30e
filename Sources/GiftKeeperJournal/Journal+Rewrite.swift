import GiftKeeperFiles
import Glibc

/// The two ways a device's journal file is written other than by appending (SPEC §12):
/// a copy made from a server's (`clone`), and the frames after a shared position replaced
/// when this device's offline changes are decided again after another device's.
extension Journal: LocalFrameStore {
    /// Creates a journal at `path` holding `header` and `frames` (a server's copy, for
    /// `clone`): written to a temporary file, fsynced and linked into place (an existing
    /// file is never replaced), and kept open for writing. The batch's frames chain from
    /// its base (it hashed them, or took them in verified), so the file is not read back.
    /// - Throws: ``JournalError/Code/alreadyExists`` when `path` exists; `.corrupt` when the
    ///   frames do not start at the header's genesis hash; `.io`.
    public static func createCopy(at path: String, header: JournalHeader, frames: FrameBatch) throws(JournalError)
        -> Journal
    {
        guard frames.base == JournalHead(sequence: 0, hash: header.genesisHash) else {
            throw JournalError(.corrupt(JournalProblem(sequence: 1, offset: nil, damage: .frameDoesNotVerify)), path: path)
        }
        let directory = splitPath(path).directory
        try mapIO(directory) { () throws(SystemCallError) in try PrivateFiles.makeDirectories(directory) }
        let file: FileDescriptor
        do throws(SystemCallError) {
            let atomic = try AtomicFile(path: path)
            _ = try atomic.descriptor.tryLock(exclusive: true)  // a name only we know: cannot be taken
            try atomic.write(header.encoded)
            try atomic.write(frames.bytes)
            file = try atomic.commit(replacing: false)
            file.unlock()  // whole now: other processes may open it and append
        } catch {
            throw error.errno == EEXIST && error.operation == "link"
                ? JournalError(.alreadyExists, path: path) : JournalError(error, path: path)
        }
        var index = FrameIndex()
        frames.note(into: &index)
        let summary = ScanSummary(
            frameCount: frames.count, lastSequence: frames.head.sequence, headHash: frames.head.hash,
            validEnd: JournalFormat.headerSize + frames.bytes.count)
        return Journal(
            path: path, file: file, access: .readWrite, header: header, summary: summary, trimmedTail: nil, frameIndex: index)
    }

    /// Replaces the frames after `batch`'s base with `batch`, if this journal's head is
    /// still `expected` (no other process appended meanwhile); otherwise writes nothing and
    /// returns the current head.
    ///
    /// The new journal — the header and frames up to the base copied, then the batch — is
    /// written to a temporary file, fsynced and renamed over the journal under the
    /// exclusive lock, so a crash leaves either the old journal or the new one, whole. This
    /// handle then names the old file and takes no more appends; open the journal again.
    /// Another process still holding the old file finds it replaced (an append it makes is
    /// not acknowledged; a wait for frames says so) and opens the journal again.
    public func rewrite(expecting expected: JournalHead, with batch: FrameBatch, whileReplacing: () -> Void)
        throws(JournalError) -> AppendOutcome
    {
        guard !isUnusable else { throw JournalError(.unusable, path: path) }
        guard access == .readWrite else { throw JournalError(.readOnlyAccess, path: path) }
        guard expected == head else { return .conflict(current: head) }
        try Self.lock(file, exclusive: true, path: path)
        defer { file.unlock() }
        let opened = try statusAfterTakingInOthers()
        guard expected == head else { return .conflict(current: head) }
        // Another process's merge put a journal in its place meanwhile: renaming over it
        // would lose that one. Nothing written; the caller opens the journal again.
        guard errorUnlessPathNamesFile(opened) == nil else { return .conflict(current: head) }
        guard batch.base.sequence <= lastSequence else {
            throw JournalError(.corrupt(JournalProblem(sequence: batch.base.sequence, offset: size, damage: .noSuchPosition)), path: path)
        }
        let keptEnd = try offset(after: batch.base.sequence)
        var kept = [UInt8](repeating: 0, count: keptEnd)
        do throws(SystemCallError) {
            try kept.withMutableBytes { buffer throws(SystemCallError) in try file.readFully(into: buffer, at: 0) }
            let atomic = try AtomicFile(path: path)
            _ = try atomic.descriptor.tryLock(exclusive: true)  // a name only we know: cannot be taken
            try atomic.write(kept)
            try atomic.write(batch.bytes)
            let replaced = try atomic.commit(replacing: true)
            whileReplacing()
            replaced.close()
        } catch {
            throw JournalError(error, path: path)
        }
        isUnusable = true
        return .appended(batch.head)
    }

    /// ``LocalFrameStore/whileCurrent(_:)``: under the exclusive lock (the shared one for a
    /// read-only handle, which takes nothing in), nil when the path names another file now.
    public func whileCurrent<T>(_ body: () throws -> T) throws -> T? {
        guard !isUnusable else { throw JournalError(.unusable, path: path) }
        let writable = access == .readWrite
        try Self.lock(file, exclusive: writable, path: path)
        defer { file.unlock() }
        let opened = writable ? try statusAfterTakingInOthers() : try mapIO(path) { () throws(SystemCallError) in try file.status() }
        if let error = errorUnlessPathNamesFile(opened) {
            guard case .changedWhileOpen(.replaced) = error.code else { throw error }
            return nil
        }
        return try body()
    }

    /// Where the frame after `sequence` starts (the end of the frames for the last one).
    private func offset(after sequence: UInt64) throws(JournalError) -> Int {
        guard sequence < lastSequence else { return size }
        if let boundary = boundaries.last(where: { $0.sequence == sequence }) { return boundary.offset }
        var found: Int?
        do {
            try replay(from: firstBoundary, chainCheck: .trustVerifiedOnOpen, progress: nil) { frame, offset in
                guard frame.sequence > sequence else { return }
                found = offset
                throw ReplayStopped()
            }
        } catch let error as JournalError {
            throw error
        } catch {}
        guard let found else { throw JournalError(.io(operation: "read", errno: EIO), path: path) }
        return found
    }
}

/// Ends a read early on purpose.
private struct ReplayStopped: Error {}
