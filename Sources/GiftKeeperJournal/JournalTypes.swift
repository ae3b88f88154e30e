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
    /// The frame's byte offset in the file.
    public let offset: Int
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

    public init(offset: Int, length: Int) {
        self.offset = offset
        self.length = length
    }
}

/// The first thing in a journal that does not verify.
public struct JournalProblem: Sendable, Equatable {
    /// The sequence number expected where the problem is (0 for the file header).
    public let sequence: UInt64
    /// The byte offset of the bad frame (0 for the file header).
    public let offset: Int
    /// Why, in a few words: "sequence number 4, expected 3", "frame hash does not match ...".
    public let reason: String

    public init(sequence: UInt64, offset: Int, reason: String) {
        self.sequence = sequence
        self.offset = offset
        self.reason = reason
    }
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
