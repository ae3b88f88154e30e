/// A password could not be read. Carries no secret; ``description`` words it.
public struct PasswordInputError: Error, Equatable, Sendable, CustomStringConvertible {
    public enum Code: Equatable, Sendable {
        /// `/dev/tty` could not be opened (no controlling terminal).
        case noTerminal(errno: Int32)
        /// The terminal's echo could not be switched off (`tcgetattr`/`tcsetattr`).
        case terminalSetupFailed(errno: Int32)
        /// End of input before any password line (Ctrl-D, an empty file, the end of a script).
        case endOfInput
        /// Ctrl-C at the password prompt: the command is cancelled, the session goes on.
        case interrupted
        /// The line is longer than `limit` bytes; it was consumed and discarded.
        case tooLong(limit: Int)
        /// The password is not valid UTF-8.
        case invalidUTF8
        /// `read` failed.
        case readFailed(errno: Int32)
        /// Guarded memory could not be allocated.
        case outOfSecureMemory
        /// The password file does not exist.
        case fileNotFound(path: String)
        /// The password file is a directory.
        case isDirectory(path: String)
        /// The password file is not a regular file (a device, a FIFO, a socket).
        case notRegularFile(path: String)
        /// The password file can be read (or written) by the group or others.
        case tooPermissive(path: String, mode: UInt32)
        /// The password file could not be opened or examined.
        case unreadable(path: String, errno: Int32)
    }

    public let code: Code

    public init(_ code: Code) {
        self.code = code
    }

    public var description: String {
        switch code {
        case .noTerminal(let error):
            return "There is no terminal to read the password from (\(SystemErrorText.describe(error))). Use --password-file FILE."
        case .terminalSetupFailed(let error):
            return "Could not switch off the terminal's echo (\(SystemErrorText.describe(error))), so no password was asked for."
        case .endOfInput:
            return "No password was given (end of input)."
        case .interrupted:
            return "Cancelled (Ctrl-C)."
        case .tooLong(let limit):
            return "The password is longer than \(limit) bytes. Use a shorter one."
        case .invalidUTF8:
            return "The password is not valid UTF-8. Check the terminal's or the file's encoding."
        case .readFailed(let error):
            return "Could not read the password (\(SystemErrorText.describe(error)))."
        case .outOfSecureMemory:
            return "Could not allocate guarded memory for the password. Check 'ulimit -l'."
        case .fileNotFound(let path):
            return "The password file '\(path)' does not exist. Check the path."
        case .isDirectory(let path):
            return "The password file '\(path)' is a directory. Give the path of a file."
        case .notRegularFile(let path):
            return "The password file '\(path)' is not a regular file. Give the path of a file."
        case .tooPermissive(let path, let mode):
            let octal = String(mode & 0o777, radix: 8)
            return "The password file '\(path)' can be read by other users (mode 0\(octal)). "
                + "To fix it, run: chmod 600 \(CommandLineTokenizer.posixShellQuoted(path))"
        case .unreadable(let path, let error):
            return "Cannot read the password file '\(path)' (\(SystemErrorText.describe(error)))."
        }
    }
}
