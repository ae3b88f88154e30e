public import GiftKeeperCrypto
import Glibc

/// Where the REPL gets a password: the terminal (no echo), the next script line, a file.
public protocol PasswordSource: AnyObject {
    /// Reads one password line into guarded memory. `prompt` is shown only on a terminal.
    /// - Throws: ``PasswordInputError``.
    func readPassword(prompt: String) throws -> SecureBytes
}

/// Passwords typed at the controlling terminal (`/dev/tty`), echo off.
public final class TerminalPasswordSource: PasswordSource {
    public init() {}

    public func readPassword(prompt: String) throws -> SecureBytes {
        try PasswordReader.readFromTerminal(prompt: prompt)
    }
}

/// Successive lines of a file descriptor (e.g. standard input when it is not a terminal),
/// read byte by byte so nothing after each line is consumed. The descriptor is not closed.
public final class FileDescriptorPasswordSource: PasswordSource {
    private let fd: Int32

    public init(fileDescriptor: Int32 = 0) {
        self.fd = fileDescriptor
    }

    public func readPassword(prompt: String) throws -> SecureBytes {
        try PasswordReader.readLine(from: fd)
    }
}
