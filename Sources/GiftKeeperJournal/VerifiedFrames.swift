/// A journal's frames held in memory, each verified against the hash chain as it is taken
/// in: what the memory store keeps, and what a device keeps of what the sync service
/// sent (a server never gets to change a frame once it was verified here).
public struct VerifiedFrames: Sendable {
    public let header: JournalHeader
    /// Where the frames are said to come from, for errors.
    public let path: String
    public private(set) var head: JournalHead
    public private(set) var index = FrameIndex()
    /// Each frame's encoded bytes, in order.
    public private(set) var frames: [[UInt8]] = []
    /// The header's size plus every frame's: the offset a frame would have in a file.
    private var size = JournalFormat.headerSize

    public init(header: JournalHeader, path: String) {
        self.header = header
        self.path = path
        head = JournalHead(sequence: 0, hash: header.genesisHash)
    }

    /// A new journal's header for `journalID` (random, 16 bytes), as a file starts with it:
    /// a person's (the current version), or a household's (``JournalFormat/householdVersion``).
    public static func newHeader(journalID: [UInt8], path: String, household: Bool = false) throws(JournalError)
        -> (bytes: [UInt8], header: JournalHeader)
    {
        let bytes = JournalHeader.encode(
            journalID: journalID, version: household ? JournalFormat.householdVersion : JournalFormat.currentVersion)
        return (bytes, try header(bytes, path: path))
    }

    /// Decodes and checks a stored header (its hash included): exactly a header's bytes, so
    /// that one accepted is its own encoding (a file's header is followed by its frames; this
    /// one, as a service sends it, by nothing).
    public static func header(_ bytes: [UInt8], path: String) throws(JournalError) -> JournalHeader {
        guard bytes.count == JournalFormat.headerSize else { throw JournalError(.notAJournal, path: path) }
        return try bytes.withBytes { buffer throws(JournalError) in try Journal.decodeHeader(buffer, path: path) }
    }

    /// Takes in `frames`, the ones after ``head`` in order: each must be one whole frame
    /// with the next sequence number, a known kind and the hash that chains it to the one
    /// before. One scanner walks them all; those before a bad one are kept (they verified).
    /// - Throws: ``JournalError/Code/corrupt(_:)`` naming the first that does not verify.
    public mutating func takeIn(_ frames: some Sequence<[UInt8]>) throws(JournalError) {
        let scanner = FrameScanner(genesisHash: head.hash, nextSequence: head.sequence + 1)
        for frame in frames {
            let verified: UInt64? = frame.withUnsafeBytes { bytes in
                guard case .frame(let found) = scanner.next(in: bytes, remaining: bytes.count), found.size == bytes.count
                else { return nil }
                index.note(
                    sequence: found.sequence, kind: found.kind,
                    previousHash: UnsafeRawBufferPointer(scanner.previousHash), payload: found.payload)
                scanner.accept()
                return found.sequence
            }
            guard let verified else {
                throw JournalError(
                    .corrupt(JournalProblem(sequence: head.sequence + 1, offset: nil, damage: .frameDoesNotVerify)),
                    path: path)
            }
            self.frames.append(frame)
            size += frame.count
            head = JournalHead(sequence: verified, hash: Array(scanner.previousHash))
        }
    }

    /// Keeps `batch`, built on ``head`` and made durable by the store.
    public mutating func accept(_ batch: FrameBatch) {
        precondition(batch.base == head, "a batch is kept only on the head it was built after")
        batch.note(into: &index)
        frames += batch.encodedFrames
        size += batch.bytes.count
        head = batch.head
    }

    /// The frames up to `last` as one batch after the genesis head, in the bytes they were
    /// taken in as: what a copy of the journal is written from, each frame verified once
    /// already (``takeIn(_:)``) and not hashed again.
    public func storedFrames(through last: UInt64 = .max) -> FrameBatch {
        let stored = frames.prefix(Int(min(last, UInt64(frames.count))))
        var bytes: [UInt8] = []
        bytes.reserveCapacity(stored.reduce(0) { $0 + $1.count })
        var entries: [(kind: FrameKind, start: Int, previousHash: [UInt8])] = []
        entries.reserveCapacity(stored.count)
        var previousHash = header.genesisHash
        for frame in stored {
            guard let kind = FrameKind(rawValue: frame[JournalFormat.frameCheckedSize - 1]) else {
                preconditionFailure("a verified frame's kind is one this build knows")
            }
            entries.append((kind, bytes.count, previousHash))
            bytes += frame
            previousHash = Array(frame.suffix(JournalFormat.hashSize))
        }
        return FrameBatch(
            verified: bytes, after: JournalHead(sequence: 0, hash: header.genesisHash), frames: entries,
            head: JournalHead(sequence: UInt64(stored.count), hash: previousHash), path: path)
    }

    /// Calls `body` with every frame after `sequence` up to `last`. Each was verified against
    /// the chain as it was taken in (``takeIn(_:)``) or built (``accept(_:)``), and nothing
    /// else writes them, so none is hashed again: a read after a recent position costs the
    /// frames after it, not the journal (a household's catch-up at each look of its shell).
    public func read(
        after sequence: UInt64, through last: UInt64 = .max, progress: ((Int, Int) -> Void)?,
        _ body: (FrameView) throws -> Void
    ) throws {
        let end = Int(min(last, UInt64(frames.count)))
        var position = Int(min(sequence, UInt64(end)))
        var offset = JournalFormat.headerSize + frames.prefix(position).reduce(0) { $0 + $1.count }
        var previousHash = position == 0 ? header.genesisHash : Array(frames[position - 1].suffix(JournalFormat.hashSize))
        while position < end {
            let frame = frames[position]
            try frame.withUnsafeBytes { bytes in
                guard let kind = FrameKind(rawValue: bytes[JournalFormat.frameCheckedSize - 1]) else {
                    throw JournalError(
                        .corrupt(JournalProblem(sequence: UInt64(position + 1), offset: nil, damage: .frameDoesNotVerify)), path: path)
                }
                try previousHash.withUnsafeBytes { previous in
                    try body(
                        FrameView(
                            sequence: UInt64(position + 1), kind: kind,
                            payload: UnsafeRawBufferPointer(rebasing: bytes[JournalFormat.frameHeaderSize..<bytes.count - JournalFormat.hashSize]),
                            previousHash: previous))
                }
            }
            previousHash = Array(frame.suffix(JournalFormat.hashSize))
            position += 1
            offset += frame.count
            progress?(offset, size)
        }
    }
}
