import GiftKeeperCrypto
import Glibc

/// The one place that decides what the bytes at a frame boundary are.
///
/// It keeps the chain state (next expected sequence number, previous frame's hash) and
/// classifies the bytes it is shown, without allocating. ``JournalReader`` feeds it the
/// file block by block; opening, replaying and verifying all go through it.
final class FrameScanner {
    /// A whole frame that verified. Its payload points into the bytes passed to ``next``.
    struct Frame {
        let sequence: UInt64
        let kind: FrameKind
        let payload: UnsafeRawBufferPointer
        /// Header + payload + hash.
        let size: Int
    }

    enum Step {
        /// Nothing after the last whole frame.
        case cleanEnd
        /// The rest of the file is an unfinished frame: a partial header, or a header that
        /// verifies followed by less than the whole body.
        case tornTail
        /// The header did not verify. The caller decides: all-zero rest of file → torn
        /// tail; anything else → corruption with this reason.
        case invalidHeader(JournalDamage)
        /// The frame hash did not match: corruption.
        case corrupt(JournalDamage)
        /// Show at least this many bytes from the frame boundary (they exist in the file).
        case needMore(Int)
        /// A frame that verified; call ``accept()`` once done with it.
        case frame(Frame)
    }

    let chainCheck: ChainCheck
    /// The sequence number the next frame must carry.
    private(set) var expectedSequence: UInt64
    /// The previous frame's hash (the genesis hash before frame 1): 32 bytes.
    let previousHash: UnsafeMutableRawBufferPointer
    /// The hash computed for the frame last returned by ``next``.
    private let computed: UnsafeMutableRawBufferPointer

    /// A scanner at the start of a chain (`genesisHash`, sequence 1), or, with
    /// `nextSequence`, in the middle of one: `genesisHash` is then the previous frame's hash.
    init(genesisHash: [UInt8], nextSequence: UInt64 = 1, chainCheck: ChainCheck = .recompute) {
        precondition(genesisHash.count == JournalFormat.hashSize, "genesis hash must be 32 bytes")
        self.chainCheck = chainCheck
        expectedSequence = nextSequence
        previousHash = .allocate(byteCount: JournalFormat.hashSize, alignment: 8)
        computed = .allocate(byteCount: JournalFormat.hashSize, alignment: 8)
        genesisHash.withUnsafeBytes { previousHash.copyMemory(from: $0) }
        computed.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        previousHash.deallocate()
        computed.deallocate()
    }

    /// The previous hash as an array (the head of the chain once every frame is accepted).
    var headHash: [UInt8] { Array(previousHash) }

    /// Classifies the bytes at a frame boundary.
    /// - Parameters:
    ///   - bytes: the bytes from the boundary on that are in memory; never more than `remaining`.
    ///   - remaining: the bytes from the boundary to the end of the file (or of the scanned range).
    func next(in bytes: UnsafeRawBufferPointer, remaining: Int) -> Step {
        if remaining == 0 {
            return .cleanEnd
        }
        if remaining < JournalFormat.frameHeaderSize {
            return .tornTail
        }
        if bytes.count < JournalFormat.frameHeaderSize {
            return .needMore(JournalFormat.frameHeaderSize)
        }
        let length = Int(bytes.loadLittleEndian(UInt32.self, at: 0))
        let sequence = bytes.loadLittleEndian(UInt64.self, at: 4)
        let kindByte = bytes[12]
        if chainCheck == .trustVerifiedOnOpen {
            return nextTrusted(in: bytes, remaining: remaining, length: length, sequence: sequence, kindByte: kindByte)
        }

        let checkMatches = Self.headerVerifies(bytes, key: UnsafeRawBufferPointer(previousHash), computed: computed)
        let kind = FrameKind(rawValue: kindByte)

        // The precise reasons come first; the header check catches what they cannot name.
        if sequence != expectedSequence {
            return .invalidHeader(.unexpectedSequence(found: sequence, expected: expectedSequence))
        }
        guard let kind else {
            return .invalidHeader(.unknownFrameKind(kindByte))
        }
        if length > JournalFormat.maximumPayload {
            return .invalidHeader(.frameTooLong(UInt64(length)))
        }
        if !checkMatches {
            return .invalidHeader(.frameHeaderMismatch)
        }

        let size = JournalFormat.frameOverhead + length
        if let short = Self.shortfall(size: size, remaining: remaining, buffered: bytes.count) { return short }
        let hashed = JournalFormat.frameHeaderSize + length
        guard
            Self.hashVerifies(
                UnsafeRawBufferPointer(rebasing: bytes[0..<size]), key: UnsafeRawBufferPointer(previousHash),
                computed: computed)
        else {
            return .corrupt(.frameHashMismatch)
        }
        return .frame(
            Frame(
                sequence: sequence, kind: kind,
                payload: UnsafeRawBufferPointer(rebasing: bytes[JournalFormat.frameHeaderSize..<hashed]),
                size: size))
    }

    /// When a frame of `size` bytes is not all there: past the end of the file it is a torn
    /// tail; past the end of the buffer the caller must read more. Nil when it is all there.
    private static func shortfall(size: Int, remaining: Int, buffered: Int) -> Step? {
        if size > remaining { return .tornTail }
        if size > buffered { return .needMore(size) }
        return nil
    }

    /// ``next(in:remaining:)`` for ``ChainCheck/trustVerifiedOnOpen``: no hashing. Whatever
    /// does not match what the open-scan saw means the file changed under the lock.
    private func nextTrusted(
        in bytes: UnsafeRawBufferPointer, remaining: Int, length: Int, sequence: UInt64, kindByte: UInt8
    ) -> Step {
        guard sequence == expectedSequence, let kind = FrameKind(rawValue: kindByte),
            length <= JournalFormat.maximumPayload
        else {
            return .corrupt(.changedWhileOpen)
        }
        let size = JournalFormat.frameOverhead + length
        if let short = Self.shortfall(size: size, remaining: remaining, buffered: bytes.count) { return short }
        let hashed = JournalFormat.frameHeaderSize + length
        // The stored frame hash, verified on open, is the next frame's previous hash.
        computed.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[hashed..<size]))
        return .frame(
            Frame(
                sequence: sequence, kind: kind,
                payload: UnsafeRawBufferPointer(rebasing: bytes[JournalFormat.frameHeaderSize..<hashed]),
                size: size))
    }

    /// Whether the header check stored in the frame at the start of `frame` matches the one
    /// computed under `key` (the previous frame's hash) into `computed`.
    private static func headerVerifies(
        _ frame: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, computed: UnsafeMutableRawBufferPointer
    ) -> Bool {
        Blake2b.hash(UnsafeRawBufferPointer(rebasing: frame[0..<JournalFormat.frameCheckedSize]), key: key, into: computed)
        return equal(
            UnsafeRawBufferPointer(rebasing: computed[0..<JournalFormat.headerCheckSize]),
            UnsafeRawBufferPointer(rebasing: frame[JournalFormat.frameCheckedSize..<JournalFormat.frameHeaderSize]))
    }

    /// Whether the hash stored at the end of `frame` (exactly one whole frame) matches the one
    /// computed under `key` into `computed`, where it stays (the next frame's key once accepted).
    private static func hashVerifies(
        _ frame: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, computed: UnsafeMutableRawBufferPointer
    ) -> Bool {
        let hashed = frame.count - JournalFormat.hashSize
        Blake2b.hash(UnsafeRawBufferPointer(rebasing: frame[0..<hashed]), key: key, into: computed)
        return equal(UnsafeRawBufferPointer(computed), UnsafeRawBufferPointer(rebasing: frame[hashed...]))
    }

    /// Byte equality of two equally long buffers (public hashes: no need for constant time).
    private static func equal(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        guard lhs.count == rhs.count, let left = lhs.baseAddress, let right = rhs.baseAddress else {
            return lhs.count == rhs.count
        }
        return memcmp(left, right, lhs.count) == 0
    }

    /// Moves the chain past the frame ``next`` last returned.
    func accept() {
        previousHash.copyMemory(from: UnsafeRawBufferPointer(computed))
        expectedSequence += 1
    }
}
