/// A journal's frames held in memory, each verified against the hash chain as it is taken
/// in: what the memory store keeps, and what a device keeps of what the sync service
/// sent (a server never gets to change a frame once it was verified here).
public struct VerifiedFrames: Sendable {
    public let header: JournalHeader
    /// Where the frames are said to come from, for errors.
    public let path: String
    public private(set) var head: JournalHead
    public private(set) var index = FrameIndex()
    /// Every frame's encoded bytes, back to back, in order (one buffer: a copy of 20,000
    /// frames taken in at once is kept as it came, not split into an array each).
    private var bytes: [UInt8] = []
    /// Where each frame starts in ``bytes``.
    private var starts: [Int] = []

    /// Each frame's encoded bytes, in order.
    public var frames: [[UInt8]] { starts.indices.map { Array(bytes[range(of: $0)]) } }

    /// Where frame `position + 1` lies in ``bytes``.
    private func range(of position: Int) -> Range<Int> {
        starts[position]..<(position + 1 < starts.count ? starts[position + 1] : bytes.count)
    }

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
            starts.append(bytes.count)
            bytes += frame
            head = JournalHead(sequence: verified, hash: Array(scanner.previousHash))
        }
    }

    /// Keeps `batch`, built on ``head`` and made durable by the store.
    public mutating func accept(_ batch: FrameBatch) {
        precondition(batch.base == head, "a batch is kept only on the head it was built after")
        batch.note(into: &index)
        let offset = bytes.count
        starts += batch.starts.map { offset + $0 }
        if bytes.isEmpty { bytes = batch.bytes } else { bytes += batch.bytes }  // the first: shared, not copied
        head = batch.head
    }

    /// The frames up to `last` as one batch after the genesis head, in the bytes they were
    /// taken in as: what a copy of the journal is written from, each frame verified once
    /// already (``takeIn(_:)``) and not hashed again.
    public func storedFrames(through last: UInt64 = .max) -> FrameBatch {
        let count = Int(min(last, UInt64(starts.count)))
        let stored = count == starts.count ? bytes : Array(bytes[..<starts[count]])
        guard let batch = FrameBatch(verified: stored, after: JournalHead(sequence: 0, hash: header.genesisHash), path: path) else {
            preconditionFailure("frames verified as they were taken in are whole")
        }
        return batch
    }

    /// Calls `body` with every frame after `sequence` up to `last`. Each was verified against
    /// the chain as it was taken in (``takeIn(_:)``) or built (``accept(_:)``), and nothing
    /// else writes them, so none is hashed again: a read after a recent position costs the
    /// frames after it, not the journal (a household's catch-up at each look of its shell).
    public func read(
        after sequence: UInt64, through last: UInt64 = .max, progress: ((Int, Int) -> Void)?,
        _ body: (FrameView) throws -> Void
    ) throws {
        let end = Int(min(last, UInt64(starts.count)))
        var position = Int(min(sequence, UInt64(end)))
        let size = JournalFormat.headerSize + bytes.count
        try header.genesisHash.withUnsafeBytes { genesis in
            try bytes.withUnsafeBytes { all in
                // The hash a frame chains to: the last bytes of the one before it.
                var previousHash =
                    position == 0 ? genesis : UnsafeRawBufferPointer(rebasing: all[range(of: position - 1).suffix(JournalFormat.hashSize)])
                while position < end {
                    let frame = range(of: position)
                    guard let kind = FrameKind(rawValue: all[frame.lowerBound + JournalFormat.frameCheckedSize - 1]) else {
                        throw JournalError(
                            .corrupt(JournalProblem(sequence: UInt64(position + 1), offset: nil, damage: .frameDoesNotVerify)), path: path)
                    }
                    try body(
                        FrameView(
                            sequence: UInt64(position + 1), kind: kind,
                            payload: UnsafeRawBufferPointer(
                                rebasing: all[(frame.lowerBound + JournalFormat.frameHeaderSize)..<(frame.upperBound - JournalFormat.hashSize)]),
                            previousHash: previousHash))
                    previousHash = UnsafeRawBufferPointer(rebasing: all[frame.suffix(JournalFormat.hashSize)])
                    position += 1
                    progress?(JournalFormat.headerSize + frame.upperBound, size)
                }
            }
        }
    }
}
