public import GiftKeeperService
import Glibc
import Synchronization

/// Where the REPL writes: results to standard output, errors and warnings to standard
/// error, each line flushed at once so interleaving with prompts stays readable.
public struct Console: Sendable, ExportWriting {
    let outputDescriptor: Int32
    let errorDescriptor: Int32

    public init(output: Int32 = 1, error: Int32 = 2) {
        self.outputDescriptor = output
        self.errorDescriptor = error
    }

    /// Writes `text` and a newline to standard output. Control characters other than
    /// newlines and tabs are shown as `�`: stored text (a title, a name, an old journal's
    /// data) can never send a terminal an escape sequence.
    public func print(_ text: String) {
        let failure = write(Array((TerminalText.sanitized(text, keeping: ["\n", "\t"]) + "\n").utf8), to: outputDescriptor)
        if let failure { _ = Self.outputFailure.compareExchange(expected: 0, desired: failure, ordering: .relaxed) }
    }

    /// The errno of the first failed write to standard output since the last call (a full
    /// disk behind `> file`), or nil; the caller reports it once.
    public func takeOutputFailure() -> Int32? {
        let failure = Self.outputFailure.exchange(0, ordering: .relaxed)
        return failure == 0 ? nil : failure
    }

    private static let outputFailure = Atomic<Int32>(0)

    /// Writes raw bytes to standard output (an export to the screen).
    public func write(_ bytes: [UInt8]) {
        write(bytes, to: outputDescriptor)
    }

    /// Writes the next chunk of an export to standard output (`ExportWriting`). Unlike
    /// the other output, a failure is an error (standard output redirected to a full disk):
    /// the export is then not recorded.
    public func write(_ chunk: ArraySlice<UInt8>) throws(ServiceError) {
        let failure = chunk.withUnsafeBytes { write($0, descriptor: outputDescriptor) }
        if let failure { throw ServiceError(.fileIO(operation: "write", path: "standard output", errno: failure)) }
    }

    /// Nothing to make durable on standard output (`ExportWriting`).
    public func finish() {}

    /// Writes `giftkeeper: error: <message>` to standard error: one line.
    public func error(_ message: String) {
        writeAll("giftkeeper: error: " + oneLine(message) + "\n", to: errorDescriptor)
    }

    /// Writes `giftkeeper: warning: <message>` to standard error: one line.
    public func warning(_ message: String) {
        writeAll("giftkeeper: warning: " + oneLine(message) + "\n", to: errorDescriptor)
    }

    /// Writes a note to standard error (prompts' companions such as "Waiting 2 s…").
    public func note(_ message: String) {
        writeAll(TerminalText.sanitized(message, keeping: ["\n"]) + "\n", to: errorDescriptor)
    }

    private func oneLine(_ text: String) -> String {
        TerminalText.sanitized(String(text.map { $0 == "\n" || $0 == "\r" ? " " : $0 }))
    }

    private func writeAll(_ text: String, to descriptor: Int32) {
        write(Array(text.utf8), to: descriptor)
    }

    /// Returns the errno of a failed write, or nil.
    @discardableResult
    private func write(_ bytes: [UInt8], to descriptor: Int32) -> Int32? {
        bytes.withUnsafeBytes { write($0, descriptor: descriptor) }
    }

    private func write(_ buffer: UnsafeRawBufferPointer, descriptor: Int32) -> Int32? {
        let failure = POSIXIO.writeAll(descriptor, buffer)
        return failure == 0 ? nil : failure
    }
}
