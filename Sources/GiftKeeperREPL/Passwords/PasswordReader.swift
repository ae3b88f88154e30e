import Foundation
public import GiftKeeperCrypto
import Glibc

/// Reads passwords into ``SecureBytes`` (guarded memory); never into a `String` or `[UInt8]`.
public enum PasswordReader {
    /// The longest password accepted, in bytes.
    public static let capacity = 1024

    /// Reads a password from the controlling terminal with echo off.
    ///
    /// Opens `/dev/tty` (`O_RDWR | O_NOCTTY`), switches echo, canonical mode and signal
    /// keys off (discarding keys typed ahead), then writes `prompt` to it and edits the
    /// line itself, byte by byte into guarded memory: Backspace and Ctrl-U erase, Enter
    /// ends, **Ctrl-C** (and Ctrl-\) **cancels** (throws ``PasswordInputError/Code/interrupted``,
    /// so a REPL command is cancelled and the session goes on), Ctrl-D on an empty line is
    /// the end of input, Ctrl-Z suspends the program, other control keys are dropped. The
    /// saved terminal state is restored on every path: normally by `defer`, and by the
    /// signal handler if SIGTERM/SIGHUP arrives meanwhile (the process then exits after
    /// ``SecretWiping``).
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
        // No echo; no canonical mode and no signal keys: the bytes of Ctrl-C, Ctrl-D,
        // Backspace and Ctrl-U reach us, so the line is edited in guarded memory and
        // Ctrl-C can cancel the prompt instead of killing the process.
        quiet.c_lflag &= ~tcflag_t(ECHO | ECHONL | ICANON | ISIG | IEXTEN)
        withUnsafeMutableBytes(of: &quiet.c_cc) { controls in
            controls[Int(VMIN)] = 1
            controls[Int(VTIME)] = 0
        }
        // Echo goes off before the prompt is shown, so whatever is typed once "Password:" is
        // on screen stays hidden; TCSAFLUSH drops keys typed ahead of the prompt (the kernel
        // has already echoed those, so they are not taken as the password).
        TerminalRestoration.remember(saved, for: fd)
        guard tcsetattr(fd, TCSAFLUSH, &quiet) == 0 else {
            let error = errno
            TerminalRestoration.clear()
            throw PasswordInputError(.terminalSetupFailed(errno: error))
        }
        POSIXIO.writeAll(fd, prompt)
        defer {
            _ = tcsetattr(fd, TCSANOW, &saved)
            TerminalRestoration.clear()
            POSIXIO.writeAll(fd, "\n")
        }
        let erase = withUnsafeBytes(of: saved.c_cc) { $0[Int(VERASE)] }
        return try readEditedLine(from: fd, erase: erase) {
            // Signal keys are off here, so Ctrl-Z arrives as a byte: do what the terminal
            // would have done, with the terminal as the user left it while stopped.
            _ = tcsetattr(fd, TCSANOW, &saved)
            POSIXIO.writeAll(fd, "\n")
            _ = kill(getpid(), SIGTSTP)
            _ = tcsetattr(fd, TCSAFLUSH, &quiet)
            POSIXIO.writeAll(fd, prompt)
        }
    }

    /// What a key typed at the raw password prompt does.
    enum PromptKey: Equatable {
        case character(UInt8)
        case enter, eraseCharacter, eraseLine, cancel, endOfInput, suspend
        /// Any other control key (Tab, Esc and the bytes of arrow keys, …): dropped, never
        /// part of a password, where it would be invisible and untypeable next time.
        case ignored

        /// Classifies a byte; `erase` is the terminal's own erase character (usually DEL).
        init(_ byte: UInt8, erase: UInt8) {
            switch byte {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"): self = .enter
            case 0x03, 0x1C: self = .cancel  // Ctrl-C, Ctrl-\ (no quit signal: the prompt is cancelled)
            case 0x04: self = .endOfInput  // Ctrl-D
            case 0x15: self = .eraseLine  // Ctrl-U
            case 0x1A: self = .suspend  // Ctrl-Z
            case 0x08, 0x7F, erase: self = .eraseCharacter
            case 0x00..<0x20: self = .ignored
            default: self = .character(byte)
            }
        }
    }

    /// Reads keys from a raw terminal into guarded memory, applying ``PromptKey``s.
    /// Ctrl-Z calls `suspend` (on a terminal: restore it, stop the process, and on `fg`
    /// turn echo off again and show the prompt anew); what was typed is kept.
    static func readEditedLine(from fd: Int32, erase: UInt8, suspend: () -> Void = {}) throws -> SecureBytes {
        let secret = try makeBuffer()
        var byte: UInt8 = 0
        defer { byte = 0 }
        var overflowed = false
        while true {
            let count = POSIXIO.read(fd, into: &byte, count: 1)
            if count < 0 {
                secret.wipe()
                throw PasswordInputError(.readFailed(errno: Int32(-count)))
            }
            if count == 0 {
                // The terminal went away (a hang-up): what was typed is not a password, and
                // reading on would return nothing forever.
                secret.wipe()
                throw PasswordInputError(.endOfInput)
            }
            let key = PromptKey(byte, erase: erase)
            switch key {
            case .character(let value):
                if !secret.append(value) { overflowed = true }
            case .eraseCharacter:
                // One character, as it looks: a UTF-8 lead byte and its continuation bytes.
                while secret.withUnsafeBytes({ $0.last.map { $0 & 0xC0 == 0x80 } ?? false }) { secret.removeLast() }
                secret.removeLast()
            case .eraseLine:
                secret.wipe()
                overflowed = false
            case .cancel:
                secret.wipe()
                throw PasswordInputError(.interrupted)
            case .suspend:
                suspend()
            case .ignored:
                continue
            case .endOfInput:
                guard secret.count == 0 else { continue }  // Ctrl-D mid-line does nothing, as in a shell
                secret.wipe()
                throw PasswordInputError(.endOfInput)
            case .enter:
                guard !overflowed else {
                    secret.wipe()
                    throw PasswordInputError(.tooLong(limit: capacity))
                }
                return secret
            }
        }
    }

    /// Reads one line from `fd` byte by byte (so nothing after its `\n` is consumed),
    /// straight into guarded memory; a trailing `\r` is removed. An empty line gives an
    /// empty password; end of input before any byte throws ``PasswordInputError/Code/endOfInput``.
    /// - Throws: ``PasswordInputError``; a line over ``capacity`` bytes is refused as soon as
    ///   its byte ``capacity`` + 1 is read, never read to its end.
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
        // Full: the line fits only if a newline (or the end) comes next. Nothing more is
        // read: an unbounded line (`< /dev/zero`, a 200 MB file) is refused at once.
        var next: UInt8 = 0
        defer { next = 0 }
        let count = POSIXIO.read(fd, into: &next, count: 1)
        if count < 0 {
            outcome = .failed(Int32(-count))
        } else {
            outcome = count == 0 || next == UInt8(ascii: "\n") ? .line : .tooLong
        }
        return used
    }
}
