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
    /// `nextSequence - 1`, whose hash is then `genesisHash`) to `end`.
    ///
    /// Stops at the first problem or torn tail and reports it; never throws for what it
    /// finds in the file. - Throws: a ``SystemCallError`` when reading fails, or what
    /// `body` throws.
    static func scan(
        _ file: FileDescriptor, genesisHash: [UInt8], from start: Int, to end: Int,
        nextSequence: UInt64 = 1, chainCheck: ChainCheck = .recompute,
        progress: ((Int, Int) -> Void)? = nil,
        body: ((FrameView) throws -> Void)? = nil
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
                summary.tornTail = TornTail(offset: boundary, length: remaining)
                return summary
            case .invalidHeader(let reason):
                summary.validEnd = boundary
                summary.headHash = scanner.headHash
                if try restIsZero(file, from: boundary, to: end, buffer: buffer) {
                    summary.tornTail = TornTail(offset: boundary, length: remaining)
                } else {
                    summary.problem = JournalProblem(
                        sequence: scanner.expectedSequence, offset: boundary, reason: reason)
                }
                return summary
            case .corrupt(let reason):
                summary.validEnd = boundary
                summary.headHash = scanner.headHash
                summary.problem = JournalProblem(sequence: scanner.expectedSequence, offset: boundary, reason: reason)
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
                    try body(FrameView(
                        sequence: frame.sequence, kind: frame.kind, payload: frame.payload,
                        previousHash: UnsafeRawBufferPointer(scanner.previousHash), offset: boundary))
                }
                scanner.accept()
                summary.frameCount += 1
                summary.lastSequence = frame.sequence
                position += frame.size
            }
        }
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
