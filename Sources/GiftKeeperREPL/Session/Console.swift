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
        var bytes: [UInt8] = []
        bytes.reserveCapacity(lines.reduce(0) { $0 + $1.utf8.count + 1 })
        for line in lines { Self.appendOutputLine(line, to: &bytes) }
        writeOutput(bytes)
    }

    /// A line of output as ``print(_:)`` writes it: sanitised, newline added.
    static func outputLine(_ text: String) -> String {
        TerminalText.sanitized(text, keeping: keptInLines) + "\n"
    }

    /// Appends ``outputLine(_:)`` of `text` to `bytes`; a line sanitising keeps as it is
    /// (printable ASCII, most output, and accented names) is copied without making the
    /// sanitised string.
    static func appendOutputLine(_ text: String, to bytes: inout [UInt8]) {
        var text = text
        let keptAsIs = text.withUTF8 { text in
            guard keepsAsIs(text) else { return false }
            bytes.append(contentsOf: text)
            return true
        }
        if keptAsIs {
            bytes.append(0x0A)
        } else {
            bytes += outputLine(text).utf8
        }
    }

    /// Whether sanitising keeps this byte as it is, whatever surrounds it: printable ASCII,
    /// tabs and newlines (nearly every byte of output).
    static func isKeptAsIs(_ byte: UInt8) -> Bool { (byte >= 0x20 && byte < 0x7F) || byte == 0x09 || byte == 0x0A }

    /// Whether every byte is ``isKeptAsIs(_:)``, eight at a time: a word with no byte below
    /// 0x20 and none at 0x7F or above is printable ASCII as a whole, and only a word that
    /// has one (a tab, a newline, or a byte to sanitise) is looked at byte by byte. Every
    /// line of output goes through here.
    static func allKeptAsIs(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = 0
        if let base = bytes.baseAddress {
            let raw = UnsafeRawPointer(base)
            let ones: UInt64 = 0x0101_0101_0101_0101
            let highBits: UInt64 = 0x8080_8080_8080_8080
            while index + 8 <= bytes.count {
                let word = raw.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                // A byte below 0x20 borrows into its own high bit (and is below 0x80); a byte
                // at 0x7F or above has its high bit set, or gets it by adding one. Either
                // test may also flag a byte above a flagged one, never a word with neither.
                let below = (word &- 0x20 &* ones) & ~word & highBits
                let above = (word | (word &+ ones)) & highBits
                if below | above != 0, !bytes[index..<index + 8].allSatisfy(isKeptAsIs) { return false }
                index += 8
            }
        }
        return bytes[index...].allSatisfy(isKeptAsIs)
    }

    /// Whether sanitising keeps a line's bytes as they are: printable ASCII (nearly every
    /// line) checked eight bytes at a time, anything else by its UTF-8.
    static func keepsAsIs(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        allKeptAsIs(bytes) || keepsUTF8AsIs(bytes)
    }

    /// Whether sanitising keeps the UTF-8 of a string as it is (``TerminalText/sanitized(_:keeping:)``
    /// with tabs and newlines kept), read from its bytes without decoding it: no byte of
    /// ASCII but ``isKeptAsIs(_:)`` ones, and none of the other controls' encodings, which
    /// all begin with 0xC2 or 0xE2: C1 (U+0080–U+009F, 0xC2 0x80–0x9F) and the bidirectional
    /// ones (U+202A–U+202E, 0xE2 0x80 0xAA–0xAE; U+2066–U+2069, 0xE2 0x81 0xA6–0xA9).
    static func keepsUTF8AsIs(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte < 0x80 {
                guard isKeptAsIs(byte) else { return false }
            } else if byte == 0xC2, index + 1 < bytes.endIndex, bytes[index + 1] <= 0x9F {
                return false
            } else if byte == 0xE2, index + 2 < bytes.endIndex {
                let (second, third) = (bytes[index + 1], bytes[index + 2])
                if (second == 0x80 && (0xAA...0xAE).contains(third)) || (second == 0x81 && (0xA6...0xA9).contains(third)) {
                    return false
                }
            }
            index += 1
        }
        return true
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

        /// Lines for `console`, with room for `reserving` bytes before the buffer grows (by
        /// default a chunk and a line).
        public init(_ console: Console, reserving: Int? = nil) {
            self.console = console
            bytes.reserveCapacity(reserving ?? Self.chunk + 4096)
        }

        public mutating func print(_ text: String) {
            Console.appendOutputLine(text, to: &bytes)
            if bytes.count >= Self.chunk { flush() }
        }

        /// Appends the line `write` puts straight into the buffer (no string is made for
        /// it), then a newline: the bytes ``print(_:)`` would append for that text.
        public mutating func print(writing write: (inout [UInt8]) -> Void) {
            let start = bytes.count
            write(&bytes)
            if bytes.withUnsafeBufferPointer({ Console.keepsAsIs(UnsafeBufferPointer(rebasing: $0[start...])) }) {
                bytes.append(UInt8(ascii: "\n"))
            } else {
                let text = String(decoding: bytes[start...], as: UTF8.self)
                bytes.removeSubrange(start...)
                bytes.append(contentsOf: Console.outputLine(text).utf8)
            }
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

extension [UInt8] {
    /// Appends the bytes of `text`, a literal, as one copy.
    mutating func append(_ text: StaticString) {
        text.withUTF8Buffer { append(contentsOf: $0) }
    }

    /// Appends the UTF-8 bytes of `text` as one copy of its own bytes: the lines `add`
    /// writes each take a dozen pieces, and `append(contentsOf: text.utf8)` costs about
    /// three times as much a piece.
    mutating func append(utf8Of text: String) {
        var text = text
        text.withUTF8 { append(contentsOf: $0) }
    }

    /// Appends `number` in decimal digits: ids and counts in a line of output, without
    /// making a string of each.
    mutating func append(decimal number: UInt64) {
        var divisor: UInt64 = 1
        while number / divisor >= 10 { divisor *= 10 }
        var rest = number
        while true {
            append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            guard divisor > 1 else { return }
            divisor /= 10
        }
    }
}
