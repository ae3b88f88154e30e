import GiftKeeperDomain
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
        print(lines: [text])
    }

    /// Writes `lines`, each as ``print(_:)`` would, in one write (a command's result and
    /// the notes that go with it).
    public func print(lines: [String]) {
        writeOutput(Array(lines.map(Self.outputLine).joined().utf8))
    }

    /// A line of output as ``print(_:)`` writes it: sanitised, newline added.
    static func outputLine(_ text: String) -> String {
        TerminalText.sanitized(text, keeping: keptInLines) + "\n"
    }

    /// The control characters a line of output keeps (made once: a set literal at each call
    /// was an allocation per line, a million for an audit of a million events).
    static let keptInLines: Set<Unicode.Scalar> = ["\n", "\t"]

    /// Writes to standard output, remembering the first failure for ``takeOutputFailure()``.
    private func writeOutput(_ bytes: [UInt8]) {
        let failure = write(bytes, to: outputDescriptor)
        if let failure { _ = Self.outputFailure.compareExchange(expected: 0, desired: failure, ordering: .relaxed) }
    }

    /// Lines for standard output gathered and written about 64 KiB at a time: the bytes
    /// ``print(_:)`` writes line by line, in far fewer system calls (an audit's line per
    /// frame). ``flush()`` before anything else is written, and at the end.
    public struct Lines {
        private let console: Console
        private var bytes: [UInt8] = []
        private static let chunk = 64 << 10

        public init(_ console: Console) {
            self.console = console
        }

        public mutating func print(_ text: String) {
            bytes += Console.outputLine(text).utf8
            if bytes.count >= Self.chunk { flush() }
        }

        public mutating func flush() {
            guard !bytes.isEmpty else { return }
            console.writeOutput(bytes)
            bytes.removeAll(keepingCapacity: true)
        }
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
