import GiftKeeperCrypto

/// Where a journal's chain stands: the last frame's sequence number and hash (0 and the
/// genesis hash when there are no frames).
public struct JournalHead: Sendable, Equatable {
    public let sequence: UInt64
    public let hash: [UInt8]

    public init(sequence: UInt64, hash: [UInt8]) {
        self.sequence = sequence
        self.hash = hash
    }
}

/// The frames of one append, encoded in memory after a known head.
///
/// Each ``add(kind:payload:)`` encodes a whole frame (header check and frame hash
/// included) and moves ``nextSequence`` and ``previousHash`` on, so the caller can bind
/// them into the next payload's additional data before sealing it. A store appends the
/// batch only while its head is still ``base``: the positions are part of what was sealed.
public struct FrameBatch: Sendable {
    /// The head this batch was built after.
    public let base: JournalHead
    /// The sequence number the next added frame gets.
    public private(set) var nextSequence: UInt64
    /// The hash the next added frame chains to.
    public private(set) var previousHash: [UInt8]

    /// For the error a payload over the bound gets.
    let path: String
    /// Every frame, back to back, exactly as they go into the file.
    public private(set) var bytes: [UInt8] = []
    private(set) var frames: [Entry] = []

    /// One frame of the batch: where it starts in ``bytes``. Its hash is its last
    /// ``JournalFormat/hashSize`` bytes, and the one before it (``base``'s for the first) is
    /// what it chains to.
    struct Entry: Sendable {
        let sequence: UInt64
        let kind: FrameKind
        let start: Int
        let length: Int
    }

    /// A batch whose first frame follows `base`; `path` names the journal in errors.
    public init(after base: JournalHead, path: String) {
        self.base = base
        self.nextSequence = base.sequence + 1
        self.previousHash = base.hash
        self.path = path
    }

    /// The frames after `base` that were verified before, from their `bytes` back to back
    /// (whole frames, as a file or a ``VerifiedFrames`` holds them): none is hashed again,
    /// each is found from the length its header gives (a frame's hash is its last bytes, the
    /// next one's previous hash). Nil when they are not whole frames numbered on from `base`
    /// (a file changed since it verified).
    init?(verified bytes: [UInt8], after base: JournalHead, path: String) {
        self.init(after: base, path: path)
        let whole = bytes.withUnsafeBytes { all in
            var start = 0
            while start < all.count {
                guard all.count - start >= JournalFormat.frameOverhead,
                    UInt64(littleEndian: all.loadUnaligned(fromByteOffset: start + 4, as: UInt64.self)) == nextSequence,
                    let kind = FrameKind(rawValue: all[start + JournalFormat.frameCheckedSize - 1])
                else { return false }
                let length = JournalFormat.frameOverhead + Int(UInt32(littleEndian: all.loadUnaligned(fromByteOffset: start, as: UInt32.self)))
                guard length <= all.count - start else { return false }
                frames.append(Entry(sequence: nextSequence, kind: kind, start: start, length: length))
                nextSequence += 1
                start += length
            }
            return true
        }
        guard whole else { return nil }
        self.bytes = bytes
        if let last = frames.last { previousHash = hash(of: last) }
    }

    /// The hash of `frame` (one of ``frames``): its last bytes.
    private func hash(of frame: Entry) -> [UInt8] {
        Array(bytes[frame.start + frame.length - JournalFormat.hashSize..<frame.start + frame.length])
    }

    /// How many frames the batch holds.
    public var count: Int { frames.count }
    public var isEmpty: Bool { frames.isEmpty }
    /// The head once the batch is appended.
    public var head: JournalHead { JournalHead(sequence: nextSequence - 1, hash: previousHash) }

    /// Adds one frame carrying `payload`.
    /// - Throws: ``JournalError/Code/frameTooLarge(_:)`` for a payload over 1 MiB (nothing added).
    public mutating func add(kind: FrameKind, payload: [UInt8]) throws(JournalError) {
        guard payload.count <= JournalFormat.maximumPayload else {
            throw JournalError(.frameTooLarge(payload.count), path: path)
        }
        let start = bytes.count
        // Room for the whole frame at once (grown piece by piece, a frame's bytes moved four
        // times), and at least twice the room there was: a reservation of just what is needed
        // would move a batch of many frames (an import's 1,024) once a frame.
        let needed = start + JournalFormat.frameOverhead + payload.count
        if bytes.capacity < needed { bytes.reserveCapacity(Swift.max(needed, 2 * bytes.capacity)) }
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
        frames.append(Entry(sequence: nextSequence, kind: kind, start: start, length: bytes.count - start))
        nextSequence += 1
        previousHash = hash
    }

    /// This batch as consecutive batches, the first after ``base``, each of at most
    /// `maximumFrames` frames and `maximumBytes` bytes (a frame larger than that alone): what
    /// a store that takes requests of bounded size sends one after another.
    public func pieces(maximumFrames: Int, maximumBytes: Int) -> [FrameBatch] {
        // The common case, one change: the batch itself, not a copy of it.
        guard count > maximumFrames || bytes.count > maximumBytes else { return [self] }
        var pieces: [FrameBatch] = []
        var piece = FrameBatch(after: base, path: path)
        for frame in frames {
            if !piece.isEmpty, piece.count >= maximumFrames || piece.bytes.count + frame.length > maximumBytes {
                pieces.append(piece)
                piece = FrameBatch(after: piece.head, path: path)
            }
            let start = piece.bytes.count
            piece.bytes += bytes[frame.start..<frame.start + frame.length]
            piece.frames.append(Entry(sequence: frame.sequence, kind: frame.kind, start: start, length: frame.length))
            piece.nextSequence = frame.sequence + 1
            piece.previousHash = hash(of: frame)
        }
        return pieces + [piece]
    }

    /// The encoded frames one by one, each a whole frame's bytes.
    public var encodedFrames: [[UInt8]] {
        frames.map { Array(bytes[$0.start..<$0.start + $0.length]) }
    }

    /// Notes every frame in `index`.
    func note(into index: inout FrameIndex) {
        base.hash.withUnsafeBytes { baseHash in
            bytes.withUnsafeBytes { all in
                var previous = baseHash
                for frame in frames {
                    let payloadStart = frame.start + JournalFormat.frameHeaderSize
                    let payloadEnd = frame.start + frame.length - JournalFormat.hashSize
                    index.note(
                        sequence: frame.sequence, kind: frame.kind,
                        previousHash: previous, payload: UnsafeRawBufferPointer(rebasing: all[payloadStart..<payloadEnd]))
                    previous = UnsafeRawBufferPointer(rebasing: all[payloadEnd..<frame.start + frame.length])
                }
            }
        }
    }

    /// What the frames became once written at byte `offset`.
    func appendedFrames(startingAt offset: Int) -> [AppendedFrame] {
        frames.map { AppendedFrame(sequence: $0.sequence, kind: $0.kind, hash: hash(of: $0), offset: offset + $0.start) }
    }

    /// Where each frame starts in ``bytes``, in order.
    var starts: [Int] { frames.map(\.start) }
}

/// What a store did with a ``FrameBatch``.
public enum AppendOutcome: Sendable, Equatable {
    /// Durable (after fsync, or a committed transaction); the store's new head.
    case appended(JournalHead)
    /// Another writer appended first: nothing was written. The head to catch up to.
    case conflict(current: JournalHead)
}
