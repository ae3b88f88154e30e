import GiftKeeperCrypto
import GiftKeeperFiles
import Glibc

/// What a scan of the frames found.
struct ScanSummary {
    var frameCount = 0
    var lastSequence: UInt64 = 0
    var headHash: [UInt8]
    /// The end of the last whole, verified frame.
    var validEnd: Int
    var tornTail: TornTail?
    var problem: JournalProblem?
}

/// Reads a journal's frames in large blocks and runs them through one ``FrameScanner``.
///
/// The only loop over a file's frames: opening, replaying and verifying all call
/// ``scan(_:genesisHash:from:to:progress:body:)``, so the classification rules live in
/// ``FrameScanner`` alone. One buffer per scan; no per-frame system call or allocation.
enum JournalReader {
    /// Large enough for the biggest frame (1 MiB + 53) plus about 1 MiB of read-ahead.
    static let bufferCapacity = 2 << 20

    /// Scans frames from `start` (just after the header, or just after frame
    /// `nextSequence - 1`, whose hash is then `genesisHash`) to `end`, handing `body` each
    /// verified frame and its byte offset in the file.
    ///
    /// Stops at the first problem or torn tail and reports it; never throws for what it
    /// finds in the file. - Throws: a ``SystemCallError`` when reading fails, or what
    /// `body` throws.
    static func scan(
        _ file: FileDescriptor, genesisHash: [UInt8], from start: Int, to end: Int,
        nextSequence: UInt64 = 1, chainCheck: ChainCheck = .recompute,
        progress: ((Int, Int) -> Void)? = nil,
        body: ((FrameView, _ offset: Int) throws -> Void)? = nil
    ) throws -> ScanSummary {
        let scanner = FrameScanner(genesisHash: genesisHash, nextSequence: nextSequence, chainCheck: chainCheck)
        let capacity = max(1, min(bufferCapacity, end - start))
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: capacity, alignment: 16)
        defer { buffer.deallocate() }

        var summary = ScanSummary(lastSequence: nextSequence - 1, headHash: genesisHash, validEnd: start)
        var bufferStart = start  // file offset of buffer[0]
        var filled = 0
        var position = 0  // the current frame boundary, as an index into buffer

        while true {
            let boundary = bufferStart + position
            let remaining = end - boundary
            let available = UnsafeRawBufferPointer(rebasing: buffer[position..<filled])
            switch scanner.next(in: available, remaining: remaining) {
            case .cleanEnd:
                progress?(end, end)
                summary.validEnd = boundary
                summary.headHash = scanner.headHash
                return summary
            case .tornTail:
                summary.validEnd = boundary
                summary.headHash = scanner.headHash
                // An unfinished append holds one unfinished frame at most: an intact frame
                // header further on, chained to the hash stored before it, means frames
                // were cut off from view (a length field altered), not a crash.
                if let intact = try intactFrame(file, in: boundary..<end, after: scanner.expectedSequence, buffer: buffer) {
                    summary.problem = JournalProblem(
                        sequence: scanner.expectedSequence, offset: boundary,
                        damage: .hiddenFrames(sequence: intact.sequence, offset: intact.offset))
                } else {
                    summary.tornTail = TornTail(offset: boundary, length: remaining)
                }
                return summary
            case .invalidHeader(let damage):
                summary.validEnd = boundary
                summary.headHash = scanner.headHash
                if remaining > JournalFormat.longestFrame {
                    // Longer than any unfinished append: damage whatever it holds, so only
                    // one frame's worth is read, to name it: zeros (a file extended by
                    // hand) are a tail too long, anything else what the header check found.
                    let zeros = try restIsZero(file, from: boundary, to: boundary + JournalFormat.longestFrame, buffer: buffer)
                    summary.problem = JournalProblem(
                        sequence: scanner.expectedSequence, offset: boundary,
                        damage: zeros ? .tailTooLong(length: UInt64(remaining)) : damage)
                } else if try restIsZero(file, from: boundary, to: end, buffer: buffer) {
                    summary.tornTail = TornTail(offset: boundary, length: remaining)
                } else {
                    summary.problem = JournalProblem(
                        sequence: scanner.expectedSequence, offset: boundary, damage: damage)
                }
                return summary
            case .corrupt(let damage):
                summary.validEnd = boundary
                summary.headHash = scanner.headHash
                summary.problem = JournalProblem(sequence: scanner.expectedSequence, offset: boundary, damage: damage)
                return summary
            case .needMore(let needed):
                precondition(needed <= capacity && needed <= remaining, "frame scanner asked for bytes it cannot have")
                // Keep the unfinished frame, then fill the rest of the buffer from the file.
                let kept = filled - position
                if kept > 0, position > 0, let base = buffer.baseAddress {
                    memmove(base, base + position, kept)
                }
                bufferStart = boundary
                position = 0
                let wanted = min(capacity, end - bufferStart)
                try file.readFully(into: UnsafeMutableRawBufferPointer(rebasing: buffer[kept..<wanted]), at: bufferStart + kept)
                filled = wanted
                progress?(bufferStart, end)
            case .frame(let frame):
                if let body {
                    try body(
                        FrameView(
                            sequence: frame.sequence, kind: frame.kind, payload: frame.payload,
                            previousHash: UnsafeRawBufferPointer(scanner.previousHash)), boundary)
                }
                scanner.accept()
                summary.frameCount += 1
                summary.lastSequence = frame.sequence
                position += frame.size
            }
        }
    }

    /// The first place in `range` (after its first byte) where a whole frame header stands
    /// whose check is keyed by the 32 bytes before it -- a frame that chains to a stored
    /// frame hash -- with a sequence number after `expected`. Nil when there is none: then
    /// the range can be the unfinished end of one append.
    ///
    /// Cheap fields first (kind, length bound, a sequence number the range could hold);
    /// one BLAKE2b of 13 bytes for each candidate left.
    static func intactFrame(
        _ file: FileDescriptor, in range: Range<Int>, after expected: UInt64, buffer: UnsafeMutableRawBufferPointer
    ) throws(SystemCallError) -> (sequence: UInt64, offset: Int)? {
        let look = JournalFormat.hashSize + JournalFormat.frameHeaderSize
        let highestSequence = expected + UInt64(range.count / JournalFormat.frameOverhead) + 1
        let check = UnsafeMutableRawBufferPointer.allocate(byteCount: JournalFormat.hashSize, alignment: 8)
        defer { check.deallocate() }
        var chunkStart = range.lowerBound + 1 - JournalFormat.hashSize
        while chunkStart + look <= range.upperBound {
            let readStart = max(chunkStart, range.lowerBound)
            let chunkEnd = min(range.upperBound, readStart + buffer.count)
            let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<(chunkEnd - readStart)])
            try file.readFully(into: chunk, at: readStart)
            let bytes = UnsafeRawBufferPointer(chunk)
            // Header positions whose 32 preceding bytes are in this chunk.
            var header = max(readStart + JournalFormat.hashSize, range.lowerBound + 1)
            while header + JournalFormat.frameHeaderSize <= chunkEnd {
                let at = header - readStart
                let kind = bytes[at + 12]
                let length = Int(bytes.loadLittleEndian(UInt32.self, at: at))
                let sequence = bytes.loadLittleEndian(UInt64.self, at: at + 4)
                if FrameKind(rawValue: kind) != nil, length <= JournalFormat.maximumPayload,
                    sequence > expected, sequence <= highestSequence
                {
                    Blake2b.hash(
                        UnsafeRawBufferPointer(rebasing: bytes[at..<at + JournalFormat.frameCheckedSize]),
                        key: UnsafeRawBufferPointer(rebasing: bytes[at - JournalFormat.hashSize..<at]), into: check)
                    let stored = bytes[at + JournalFormat.frameCheckedSize..<at + JournalFormat.frameHeaderSize]
                    if check.prefix(JournalFormat.headerCheckSize).elementsEqual(stored) {
                        return (sequence, header)
                    }
                }
                header += 1
            }
            guard chunkEnd < range.upperBound else { break }
            chunkStart = chunkEnd - look + 1
        }
        return nil
    }

    /// Whether every byte from `start` to `end` is zero (a file extended by a crash).
    private static func restIsZero(
        _ file: FileDescriptor, from start: Int, to end: Int, buffer: UnsafeMutableRawBufferPointer
    ) throws(SystemCallError) -> Bool {
        var offset = start
        while offset < end {
            let chunk = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<min(buffer.count, end - offset)])
            try file.readFully(into: chunk, at: offset)
            if chunk.contains(where: { $0 != 0 }) {
                return false
            }
            offset += chunk.count
        }
        return true
    }
}
