/// One verified frame, as ``Journal/replay(progress:_:)`` hands it to its callback.
///
/// The buffers point into the reader's memory: valid only inside the callback.
public struct FrameView {
    public let sequence: UInt64
    public let kind: FrameKind
    /// The opaque payload (valid only inside the callback).
    public let payload: UnsafeRawBufferPointer
    /// The previous frame's hash, or the genesis hash for frame 1 (32 bytes; valid only
    /// inside the callback). The service binds it into the payload's additional data.
    public let previousHash: UnsafeRawBufferPointer

    /// A view of a frame whose bytes are elsewhere (a batch of frames copied out of a
    /// store's buffer to be opened on another thread).
    public init(
        sequence: UInt64, kind: FrameKind, payload: UnsafeRawBufferPointer, previousHash: UnsafeRawBufferPointer
    ) {
        self.sequence = sequence
        self.kind = kind
        self.payload = payload
        self.previousHash = previousHash
    }
}

/// A frame that ``Journal/append(_:)`` wrote and made durable.
public struct AppendedFrame: Sendable {
    public let sequence: UInt64
    public let kind: FrameKind
    /// The frame's hash: the next frame's "previous hash".
    public let hash: [UInt8]
    /// The frame's byte offset in the file.
    public let offset: Int
}

/// An unfinished last frame (a crash mid-append): `length` bytes from `offset` to the end.
public struct TornTail: Sendable, Equatable {
    public let offset: Int
    public let length: Int
    /// Where the bytes were copied before they were trimmed off the journal (mode 0600,
    /// beside it): no byte a user wrote is ever destroyed. Nil when not trimmed, and when
    /// the tail was all zeros (nothing to keep).
    public let savedAs: String?

    public init(offset: Int, length: Int, savedAs: String? = nil) {
        self.offset = offset
        self.length = length
        self.savedAs = savedAs
    }
}

/// The first thing in a journal that does not verify.
public struct JournalProblem: Sendable, Equatable {
    /// The sequence number expected where the problem is (0 for the file header).
    public let sequence: UInt64
    /// The byte offset of the bad frame in the journal file (0 for the file header); nil
    /// for a store that is not a file (a server), which has no offsets to tell.
    public let offset: Int?
    /// What is wrong there; the shell words it.
    public let damage: JournalDamage

    public init(sequence: UInt64, offset: Int?, damage: JournalDamage) {
        self.sequence = sequence
        self.offset = offset
        self.damage = damage
    }
}

/// What does not verify at one place in a journal, as data (the shell words it).
public enum JournalDamage: Sendable, Equatable {
    /// The file header's hash does not match it.
    case headerHashMismatch
    /// A frame carries sequence number `found` where `expected` belongs.
    case unexpectedSequence(found: UInt64, expected: UInt64)
    /// A frame's kind byte names no kind.
    case unknownFrameKind(UInt8)
    /// A frame's length field is over the 1 MiB bound.
    case frameTooLong(UInt64)
    /// A frame header does not verify: a bit flip, or a frame spliced, reordered,
    /// duplicated or dropped.
    case frameHeaderMismatch
    /// A frame's hash does not match: its payload altered, or the chain broken.
    case frameHashMismatch
    /// Frames that verified no longer do: something ignoring the lock changed the file.
    case changedWhileOpen
    /// An intact frame (`sequence`, at byte `offset`) follows an unfinished one: frames
    /// were hidden by an altered length, not torn by a crash.
    case hiddenFrames(sequence: UInt64, offset: Int)
    /// `length` bytes follow the last whole frame, starting with more zeros than one frame
    /// can hold: no unfinished append leaves that much (a file extended by hand).
    case tailTooLong(length: UInt64)
    /// A frame handed over by another store does not verify against the chain.
    case frameDoesNotVerify
    /// A rewrite was asked to start at a position the journal does not have.
    case noSuchPosition
    /// A server sent frame `found` where `expected` belongs.
    case misplacedFrame(found: UInt64, expected: UInt64)
    /// A server sent another journal's header.
    case foreignHeader
    /// A server said its journal holds frames up to `head` but sent none from this position
    /// on (a frame dropped, or moved out of place).
    case framesWithheld(head: UInt64)
}

/// How the file changed behind the lock while a ``Journal`` had it open for writing: a
/// program that ignores `flock` wrote to it, or gave the path to another file.
public enum JournalChange: Sendable, Equatable {
    /// The file is `actual` bytes long, not the `expected` this handle left it at. Found
    /// before writing: nothing was written, and the bytes someone else added are left alone.
    case size(expected: Int, actual: Int)
    /// The path names another file, or none. Found after the fsync: the frames went to the
    /// file that used to be the journal, were cut back off it and were not acknowledged.
    case replaced
}

/// What ``Journal/verify(at:)`` found.
public struct VerificationReport: Sendable {
    /// The file header; `nil` when the header itself does not verify.
    public let header: JournalHeader?
    /// Whole frames that verified, before any problem or torn tail.
    public let frameCount: Int
    public let lastSequence: UInt64
    /// The hash of the last verified frame (the genesis hash when none).
    public let headHash: [UInt8]
    /// An unfinished last frame, which opening for writing would trim.
    public let tornTail: TornTail?
    /// The first problem, if any.
    public let problem: JournalProblem?

    /// No problem found (a torn tail is not a problem: no acknowledged frame is lost).
    public var isValid: Bool { problem == nil }
}

/// How ``Journal/open(at:access:)`` opens the file.
public enum JournalAccess: Sendable {
    /// Shared lock; reads only; a torn tail is reported, not trimmed.
    case readOnly
    /// Exclusive lock; may append; a torn tail is trimmed.
    case readWrite
}

/// How ``Journal/replay(chainCheck:progress:_:)`` treats the hash chain.
public enum ChainCheck: Sendable {
    /// Recompute every header check and frame hash, as opening does.
    case recompute
    /// Trust the chain that opening (and each take-in) recomputed under the lock: check only what
    /// keeps the walk in bounds and in order (length, sequence number, kind, the head hash
    /// at the end) and hand each frame the previous frame's *stored* hash. For a second
    /// pass whose payloads are authenticated anyway — the service binds the previous hash
    /// into every AEAD, so a frame changed since opening fails there — it saves two
    /// BLAKE2b computations per frame without leaving anything unchecked.
    case trustVerifiedOnOpen
}

/// A frame that opening (or appending) kept a copy of: the key wraps, the only payloads
/// a caller needs before it has a key.
public struct RetainedFrame: Sendable, Equatable {
    public let sequence: UInt64
    public let kind: FrameKind
    /// The previous frame's hash (the genesis hash for frame 1).
    public let previousHash: [UInt8]
    /// A copy of the payload.
    public let payload: [UInt8]
}

/// What opening noted about the kinds of the frames, as it verified them, so that a caller
/// needs no second pass over the file before it has a key. Kept up to date by appends.
public struct FrameIndex: Sendable, Equatable {
    /// Every key-wrap frame (kind 3), in order, with copies of their payloads.
    public internal(set) var keyWraps: [RetainedFrame] = []
    /// Every member's key wrap (kind 4, a household's), in order, with copies of their payloads.
    public internal(set) var memberWraps: [RetainedFrame] = []
    /// The kind of frame 1; nil when there are no frames.
    public internal(set) var firstKind: FrameKind?
    /// The sequence number of the first frame sealed under a data key (kind 1), if any.
    public internal(set) var firstDataSealedSequence: UInt64?
    /// The kind of the last frame, and how many frames of that kind end the journal in a
    /// row (e.g. the failed logins since the last other frame).
    public internal(set) var trailingKind: FrameKind?
    public internal(set) var trailingCount = 0

    public init() {}

    /// Notes one more frame at the end of the journal.
    mutating func note(
        sequence: UInt64, kind: FrameKind, previousHash: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer
    ) {
        if firstKind == nil { firstKind = kind }
        switch kind {
        case .keyWrap:
            keyWraps.append(
                RetainedFrame(
                    sequence: sequence, kind: kind, previousHash: Array(previousHash), payload: Array(payload)))
        case .dataSealed:
            if firstDataSealedSequence == nil { firstDataSealedSequence = sequence }
        case .memberWrap:
            memberWraps.append(
                RetainedFrame(
                    sequence: sequence, kind: kind, previousHash: Array(previousHash), payload: Array(payload)))
        case .publicSealed, .epoch, .completion, .householdEvent, .leave:
            break
        }
        if trailingKind == kind {
            trailingCount += 1
        } else {
            trailingKind = kind
            trailingCount = 1
        }
    }
}

/// Where the frames after `sequence` begin in a journal file, and the hash they chain to.
struct FrameBoundary {
    let sequence: UInt64
    let offset: Int
    let hash: [UInt8]
}
