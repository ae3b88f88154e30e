public import GiftKeeperCrypto
import Glibc

/// Reads command lines from a file descriptor (standard input by default) when it is not
/// a terminal: no prompt, no history, no completion.
///
/// Lines end at `\n`; a trailing `\r` is removed; a last line without `\n` still counts.
/// Lines are UTF-8 and at most ``LineLimits/maximumLineBytes`` long; a longer line is
/// consumed whole and reported as ``LineInputProblem/lineTooLong(limit:)``.
///
/// Reads are buffered, so anything that reads the same descriptor after this editor
/// (a password, an answer to a prompt) must go through it: ``readPassword(prompt:)`` takes
/// the next line straight from the buffer into ``SecureBytes`` and zeroes it there.
public final class ScriptLineEditor: LineEditor, PasswordSource {
    private let fd: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    private var start = 0
    private var end = 0
    private var reachedEnd = false
    private var pendingFailure: Int32?
    /// Lines read so far, commands and answers alike (for "line N" in messages).
    public private(set) var linesRead = 0

    /// Reads from `fileDescriptor` (not closed by the editor), `bufferSize` bytes at a time.
    public init(fileDescriptor: Int32 = 0, bufferSize: Int = 64 * 1024) {
        self.fd = fileDescriptor
        self.buffer = .allocate(byteCount: max(bufferSize, 16), alignment: 1)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
    }

    deinit {
        if let base = buffer.baseAddress { explicit_bzero(base, buffer.count) }
        buffer.deallocate()
    }

    public func readLine(prompt: String) -> LineInput {
        var line: [UInt8] = []
        var tooLong = false
        // A line may carry one `\r` beyond the limit before its `\n`.
        let keepLimit = LineLimits.maximumLineBytes + 1
        let found = scanLine { chunk in
            guard !tooLong else { return }
            if line.count + chunk.count > keepLimit {
                tooLong = true
                line = []
            } else {
                line.append(contentsOf: chunk)
            }
        }
        switch found {
        case .endOfInput:
            return .endOfInput
        case .failed(let code):
            return .invalid(.readFailed(errno: code))
        case .line:
            if line.last == UInt8(ascii: "\r") { line.removeLast() }
            if tooLong || line.count > LineLimits.maximumLineBytes {
                return .invalid(.lineTooLong(limit: LineLimits.maximumLineBytes))
            }
            return LineInput.validating(line)
        }
    }

    /// Script mode keeps no history.
    public func addToHistory(_ line: String) {}

    /// Script mode keeps no history.
    public func clearHistory() {}

    /// Script mode has no completion.
    public func setCompletion(_ provider: @escaping (CompletionRequest) -> [String]) {}

    /// Reads the next line as a password into guarded memory (no prompt is written).
    /// The line's bytes are zeroed in the read buffer as they are copied.
    /// - Throws: ``PasswordInputError`` (`.endOfInput` when no line is left,
    ///   `.tooLong` beyond ``PasswordReader/capacity`` bytes; the whole line is consumed).
    public func readPassword(prompt: String) throws -> SecureBytes {
        let secret = try PasswordReader.makeBuffer()
        var tooLong = false
        let found = scanLine { chunk in
            for byte in chunk where !tooLong {
                if !secret.append(byte) { tooLong = true }
            }
        }
        switch found {
        case .endOfInput:
            secret.wipe()
            throw PasswordInputError(.endOfInput)
        case .failed(let code):
            secret.wipe()
            throw PasswordInputError(.readFailed(errno: code))
        case .line:
            if tooLong {
                secret.wipe()
                throw PasswordInputError(.tooLong(limit: PasswordReader.capacity))
            }
            PasswordReader.dropTrailingCarriageReturn(secret)
            return secret
        }
    }

    private enum ScanResult {
        case line
        case endOfInput
        case failed(Int32)
    }

    /// Hands the bytes of the next line (without `\n`) to `consume` in chunks, zeroing
    /// each chunk in the buffer afterwards.
    private func scanLine(_ consume: (UnsafeRawBufferPointer) -> Void) -> ScanResult {
        var sawBytes = false
        while true {
            if start == end {
                if !reachedEnd { refill() }
                if start == end {
                    if sawBytes {
                        linesRead += 1
                        return .line
                    }
                    if let code = pendingFailure {
                        pendingFailure = nil
                        return .failed(code)
                    }
                    return .endOfInput
                }
            }
            sawBytes = true
            let available = UnsafeMutableRawBufferPointer(rebasing: buffer[start..<end])
            // memchr: the C library's word-at-a-time search, over a line of a hundred bytes or more.
            let newline = available.baseAddress.flatMap { base in
                memchr(base, Int32(UInt8(ascii: "\n")), available.count).map { $0 - base }
            }
            let chunkEnd = newline ?? available.count
            let chunk = UnsafeMutableRawBufferPointer(rebasing: available[0..<chunkEnd])
            consume(UnsafeRawBufferPointer(chunk))
            if let base = chunk.baseAddress { explicit_bzero(base, chunk.count) }
            if let newline {
                available[newline] = 0
                start += newline + 1
                linesRead += 1
                return .line
            }
            start = end
        }
    }

    /// Reads more bytes into the empty buffer. At end of input, or on a failure
    /// (remembered in `pendingFailure` and reported once), reading stops for good.
    private func refill() {
        guard let base = buffer.baseAddress else { return }
        start = 0
        end = 0
        let count = POSIXIO.read(fd, into: base, count: buffer.count)
        if count > 0 {
            end = count
            return
        }
        reachedEnd = true
        if count < 0 { pendingFailure = Int32(-count) }
    }
}
