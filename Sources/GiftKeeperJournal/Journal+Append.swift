import GiftKeeperCrypto
import Glibc

/// The frames of one append, built in memory; ``Journal/append(_:)`` passes it `inout`.
///
/// Each ``add(kind:payload:)`` encodes a whole frame (header check and frame hash
/// included) and moves ``nextSequence`` and ``previousHash`` on, so the caller can bind
/// them into the next payload's additional data before sealing it.
public struct AppendBatch {
    /// The sequence number the next added frame gets.
    public private(set) var nextSequence: UInt64
    /// The hash the next added frame chains to.
    public private(set) var previousHash: [UInt8]
    public let journalID: [UInt8]

    let path: String
    let startOffset: Int
    private(set) var bytes: [UInt8] = []
    private(set) var frames: [AppendedFrame] = []
    /// The journal's frame index as it will be once this batch is durable.
    var index: FrameIndex

    init(
        nextSequence: UInt64, previousHash: [UInt8], journalID: [UInt8], path: String, startOffset: Int,
        index: FrameIndex
    ) {
        self.index = index
        self.nextSequence = nextSequence
        self.previousHash = previousHash
        self.journalID = journalID
        self.path = path
        self.startOffset = startOffset
    }

    /// Adds one frame carrying `payload`.
    /// - Throws: ``JournalError/Code/frameTooLarge(_:)`` for a payload over 1 MiB (nothing added).
    public mutating func add(kind: FrameKind, payload: [UInt8]) throws(JournalError) {
        guard payload.count <= JournalFormat.maximumPayload else {
            throw JournalError(.frameTooLarge(payload.count), path: path)
        }
        let start = bytes.count
        bytes.appendLittleEndian(UInt32(payload.count))
        bytes.appendLittleEndian(nextSequence)
        bytes.append(kind.rawValue)
        let check = bytes.withUnsafeBytes { all in
            previousHash.withUnsafeBytes { key in
                Blake2b.hash(UnsafeRawBufferPointer(rebasing: all[start..<start + JournalFormat.frameCheckedSize]), key: key)
            }
        }
        bytes += check.prefix(JournalFormat.headerCheckSize)
        bytes += payload
        let hash = bytes.withUnsafeBytes { all in
            previousHash.withUnsafeBytes { key in
                Blake2b.hash(UnsafeRawBufferPointer(rebasing: all[start...]), key: key)
            }
        }
        bytes += hash
        previousHash.withUnsafeBytes { previous in
            payload.withUnsafeBytes { payload in
                index.note(
                    sequence: nextSequence, kind: kind, offset: startOffset + start, previousHash: previous,
                    payload: payload)
            }
        }
        frames.append(AppendedFrame(sequence: nextSequence, kind: kind, hash: hash, offset: startOffset + start))
        nextSequence += 1
        previousHash = hash
    }
}

extension Journal {
    /// Appends the frames `build` adds as one write and one fsync; returns after the fsync.
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
    public func append(_ build: (inout AppendBatch) throws -> Void) throws -> [AppendedFrame] {
        guard !isUnusable else { throw JournalError(.unusable, path: path) }
        guard access == .readWrite else { throw JournalError(.readOnlyAccess, path: path) }
        var batch = AppendBatch(
            nextSequence: lastSequence + 1, previousHash: headHash, journalID: header.journalID,
            path: path, startOffset: size, index: frameIndex)
        try build(&batch)
        guard !batch.frames.isEmpty else { return [] }

        let opened = try statusOfUnchangedFile()
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
        size += batch.bytes.count
        frameCount += batch.frames.count
        lastSequence = batch.nextSequence - 1
        headHash = batch.previousHash
        frameIndex = batch.index
        return batch.frames
    }

    /// The file's status (`fstat`), once it is known to be exactly ``size`` bytes long.
    ///
    /// Any other size means a program that ignores the lock added or cut bytes: writing at
    /// ``size`` would overwrite theirs or leave a hole, so nothing is written and this
    /// handle becomes unusable.
    private func statusOfUnchangedFile() throws(JournalError) -> stat {
        let info = try mapIO(path) { () throws(SystemCallError) in try file.status() }
        guard Int(info.st_size) == size else {
            isUnusable = true
            throw JournalError(.changedWhileOpen(.size(expected: size, actual: Int(info.st_size))), path: path)
        }
        return info
    }

    /// Nil when ``path`` still names the file `opened` describes (same device and inode,
    /// `lstat`: a symlink put in its place is another file); else the error to report.
    private func errorUnlessPathNamesFile(_ opened: stat) -> JournalError? {
        do throws(SystemCallError) {
            let named = try FileSystem.linkStatus(path)
            guard named.st_dev == opened.st_dev, named.st_ino == opened.st_ino else {
                return JournalError(.changedWhileOpen(.replaced), path: path)
            }
            return nil
        } catch where error.errno == ENOENT || error.errno == ENOTDIR {
            return JournalError(.changedWhileOpen(.replaced), path: path)
        } catch {
            // Cannot tell which file the path names, so the frames cannot be acknowledged.
            return JournalError(error, path: path)
        }
    }
}
