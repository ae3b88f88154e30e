public import GiftKeeperCrypto
import Foundation
import Glibc

/// Reads passwords into ``SecureBytes`` (guarded memory); never into a `String` or `[UInt8]`.
public enum PasswordReader {
    /// The longest password accepted, in bytes.
    public static let capacity = 1024

    /// Reads a password from the controlling terminal with echo off.
    ///
    /// Opens `/dev/tty` (`O_RDWR | O_NOCTTY`), writes `prompt` to it, switches `ECHO` off
    /// (canonical mode stays on, so backspace works), reads one line and writes a newline.
    /// The saved terminal state is restored on every path: normally by `defer`, and by the
    /// signal handler if SIGINT/SIGTERM arrives meanwhile (the process then exits 130/143
    /// after ``SecretWiping``).
    /// - Throws: ``PasswordInputError``.
    public static func readFromTerminal(prompt: String) throws -> SecureBytes {
        SignalRouter.install()
        let fd = open("/dev/tty", O_RDWR | O_NOCTTY | O_CLOEXEC)
        guard fd >= 0 else { throw PasswordInputError(.noTerminal(errno: errno)) }
        defer { _ = close(fd) }

        var saved = termios()
        guard tcgetattr(fd, &saved) == 0 else {
            throw PasswordInputError(.terminalSetupFailed(errno: errno))
        }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL)
        POSIXIO.writeAll(fd, prompt)

        TerminalRestoration.remember(saved, for: fd)
        guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else {
            let error = errno
            TerminalRestoration.clear()
            throw PasswordInputError(.terminalSetupFailed(errno: error))
        }
        defer {
            _ = tcsetattr(fd, TCSANOW, &saved)
            TerminalRestoration.clear()
            POSIXIO.writeAll(fd, "\n")
        }
        return try readLine(from: fd)
    }

    /// Reads one line from `fd` byte by byte (so nothing after its `\n` is consumed),
    /// straight into guarded memory; a trailing `\r` is removed. An empty line gives an
    /// empty password; end of input before any byte throws ``PasswordInputError/Code/endOfInput``.
    /// - Throws: ``PasswordInputError``; a line over ``capacity`` bytes is consumed whole first.
    public static func readLine(from fd: Int32) throws -> SecureBytes {
        let secret = try makeBuffer()
        var outcome = LineOutcome.line
        secret.fill { buffer in
            readLine(from: fd, into: buffer, outcome: &outcome)
        }
        switch outcome {
        case .line:
            dropTrailingCarriageReturn(secret)
            return secret
        case .endOfInput:
            secret.wipe()
            throw PasswordInputError(.endOfInput)
        case .tooLong:
            secret.wipe()
            throw PasswordInputError(.tooLong(limit: capacity))
        case .failed(let code):
            secret.wipe()
            throw PasswordInputError(.readFailed(errno: code))
        }
    }

    /// NFC-normalises a password (SPEC §4), as UTF-8.
    ///
    /// ASCII is already normal: `secret` itself is returned. Otherwise the result is new
    /// guarded memory and `secret` is wiped. Known limitation: the normalisation goes
    /// through a temporary Swift `String` (Foundation's
    /// `precomposedStringWithCanonicalMapping`), which cannot be wiped; this happens only
    /// for non-ASCII passwords, and the copy dies with the call.
    /// - Throws: ``PasswordInputError/Code/invalidUTF8`` (and wipes `secret`).
    public static func normalized(_ secret: SecureBytes) throws -> SecureBytes {
        if secret.isASCII { return secret }
        defer { secret.wipe() }
        guard let text = secret.withUnsafeBytes({ String(validating: $0, as: UTF8.self) }) else {
            throw PasswordInputError(.invalidUTF8)
        }
        let composed = text.precomposedStringWithCanonicalMapping
        let result: SecureBytes
        do {
            result = try SecureBytes(capacity: composed.utf8.count, count: 0)
        } catch {
            throw PasswordInputError(.outOfSecureMemory)
        }
        for byte in composed.utf8 {
            result.append(byte)
        }
        return result
    }

    // MARK: - Shared with ScriptLineEditor

    static func makeBuffer() throws -> SecureBytes {
        do {
            return try SecureBytes(capacity: capacity, count: 0)
        } catch {
            throw PasswordInputError(.outOfSecureMemory)
        }
    }

    static func dropTrailingCarriageReturn(_ secret: SecureBytes) {
        if secret.withUnsafeBytes({ $0.last == UInt8(ascii: "\r") }) {
            secret.removeLast()
        }
    }

    private enum LineOutcome {
        case line, endOfInput, tooLong
        case failed(Int32)
    }

    /// Reads one byte at a time straight into `buffer`; returns the bytes used.
    private static func readLine(
        from fd: Int32, into buffer: UnsafeMutableRawBufferPointer, outcome: inout LineOutcome
    ) -> Int {
        guard let base = buffer.baseAddress else {
            outcome = .failed(EINVAL)
            return 0
        }
        var used = 0
        while used < buffer.count {
            let count = POSIXIO.read(fd, into: base + used, count: 1)
            if count == 0 {
                outcome = used == 0 ? .endOfInput : .line
                return used
            }
            if count < 0 {
                outcome = .failed(Int32(-count))
                return used
            }
            if buffer[used] == UInt8(ascii: "\n") {
                buffer[used] = 0
                outcome = .line
                return used
            }
            used += 1
        }
        // Full: the line fits only if a newline (or the end) comes next. Consume the rest.
        var scratch: UInt8 = 0
        defer { scratch = 0 }
        var extra = 0
        while true {
            let count = POSIXIO.read(fd, into: &scratch, count: 1)
            if count <= 0 || scratch == UInt8(ascii: "\n") {
                outcome = extra == 0 ? .line : .tooLong
                if count < 0 && extra == 0 { outcome = .failed(Int32(-count)) }
                return used
            }
            extra += 1
        }
    }
}
