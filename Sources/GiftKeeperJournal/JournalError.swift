import Glibc

/// A journal operation that failed, as data; ``description`` words it.
public struct JournalError: Error, Sendable, Equatable, CustomStringConvertible {
    public enum Code: Sendable, Equatable {
        /// No file at the path.
        case notFound
        /// `create` found a file already at the path.
        case alreadyExists
        /// Another process (or another open in this one) holds a conflicting lock.
        case inUse
        /// The path is a directory.
        case isDirectory
        /// The path is a symlink, a device, a FIFO or a socket.
        case notRegularFile
        /// Too short, wrong magic, or an unknown format (version 0, non-zero flags).
        case notAJournal
        /// Written by a newer version of GiftKeeper.
        case unsupportedVersion(UInt16)
        /// Group or world may read or write the file; `mode` is its permission bits.
        case insecurePermissions(mode: UInt32)
        /// The file belongs to another user.
        case foreignOwner(uid: UInt32)
        /// The journal exists but this user may not open it (`EACCES`/`EPERM` on open).
        case unreadable
        /// Something does not verify: damage or tampering.
        case corrupt(JournalProblem)
        /// A payload over the 1 MiB bound (a programming error in the caller).
        case frameTooLarge(Int)
        /// `append` on a journal opened read-only.
        case readOnlyAccess
        /// An earlier write or fsync failed; this handle writes nothing more.
        case unusable
        /// A system call failed (`errno`): disk full, permission denied, read-only file system...
        case io(operation: String, errno: Int32)
    }

    public let code: Code
    /// The journal's path, as the caller gave it.
    public let path: String

    public init(_ code: Code, path: String) {
        self.code = code
        self.path = path
    }

    init(_ error: SystemCallError, path: String) {
        self.init(.io(operation: error.operation, errno: error.errno), path: path)
    }

    /// One sentence naming the path and what to do next.
    public var description: String {
        let quoted = "'\(path)'"
        switch code {
        case .notFound:
            return "no journal at \(quoted); check the path, or run setup to create one"
        case .alreadyExists:
            return "a file already exists at \(quoted); open it, or choose another path for a new journal"
        case .inUse:
            return "the journal \(quoted) is in use by another giftkeeper; close that one and try again"
        case .isDirectory:
            return "\(quoted) is a directory; give the path of the journal file itself"
        case .notRegularFile:
            return "\(quoted) is not a regular file (a symlink, device or pipe); give the path of the journal file itself"
        case .notAJournal:
            return "\(quoted) is not a GiftKeeper journal this version can read; check the path"
        case .unsupportedVersion(let version):
            return "\(quoted) has newer format version \(version); upgrade giftkeeper"
        case .insecurePermissions(let mode):
            let octal = String(mode & 0o7777, radix: 8)
            return "\(quoted) can be read or written by other users (mode 0\(octal)); run 'chmod 600 \(path)' and try again"
        case .unreadable:
            return "the journal \(quoted) cannot be opened: permission denied; check its owner and mode (it should be yours, mode 600)"
        case .foreignOwner(let uid):
            return "\(quoted) belongs to another user (uid \(uid)); only its owner may open it: ask them, or use your own journal"
        case .corrupt(let problem):
            let place = problem.sequence == 0
                ? "in its header"
                : "at sequence number \(problem.sequence) (byte offset \(problem.offset))"
            return "the journal \(quoted) fails verification \(place): \(problem.reason); "
                + "it is damaged or was tampered with: restore it from a backup"
        case .frameTooLarge(let size):
            return "a frame of \(size) bytes exceeds the 1 MiB bound of \(quoted); nothing was written"
        case .readOnlyAccess:
            return "the journal \(quoted) is open read-only; open it for writing to append"
        case .unusable:
            return "the journal \(quoted) can no longer be written after an earlier write failure; restart giftkeeper"
        case .io(let operation, let code):
            switch code {
            case EACCES, EPERM:
                return "permission denied on \(quoted) (\(operation)); check the file's and its directory's owner and mode"
            case ENOSPC, EDQUOT:
                return "the disk is full: could not \(operation) \(quoted); free some space and try again (nothing unsaved was acknowledged)"
            case EROFS:
                return "\(quoted) is on a read-only file system (\(operation)); move the journal to a writable place"
            default:
                return "could not \(operation) \(quoted): \(String(cString: strerror(code))); check the disk and try again"
            }
        }
    }

    /// The process exit code for this error (SPEC §2).
    public var exitCode: Int32 {
        switch code {
        case .corrupt:
            return 1
        case .frameTooLarge:
            return 2
        case .notFound, .alreadyExists, .inUse, .isDirectory, .notRegularFile, .notAJournal,
             .unsupportedVersion, .insecurePermissions, .foreignOwner, .unreadable:
            return 4
        case .io, .readOnlyAccess, .unusable:
            return 5
        }
    }
}
