import GiftKeeperFiles
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
        /// An earlier write or fsync failed, or the file changed while open; this handle
        /// writes nothing more.
        case unusable
        /// The file changed behind the lock while this handle had it open; nothing was
        /// acknowledged, and this handle writes nothing more.
        case changedWhileOpen(JournalChange)
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

    /// Sentences naming the path and what to do next (capitalised, ending in a full stop,
    /// like every other message GiftKeeper shows).
    public var description: String {
        let quoted = "'\(path)'"
        switch code {
        case .notFound:
            return "No journal at \(quoted). Check the path, or run setup to create one."
        case .alreadyExists:
            return "A file already exists at \(quoted). Open it, or choose another path for a new journal."
        case .inUse:
            return "The journal \(quoted) is in use by another giftkeeper. Close that one and try again."
        case .isDirectory:
            return "\(quoted) is a directory. Give the path of the journal file itself."
        case .notRegularFile:
            return "\(quoted) is not a regular file (a symlink, device or pipe). Give the path of the journal file itself."
        case .notAJournal:
            return "\(quoted) is not a GiftKeeper journal this version can read. Check the path."
        case .unsupportedVersion(let version):
            return "\(quoted) has newer format version \(version). Upgrade giftkeeper to open it."
        case .insecurePermissions(let mode):
            let octal = String(mode & 0o7777, radix: 8)
            return "\(quoted) can be read or written by other users (mode 0\(octal)). Run 'chmod 600 \(path)' and try again."
        case .unreadable:
            return "The journal \(quoted) cannot be opened: permission denied. Check its owner and mode (it should be yours, mode 600)."
        case .foreignOwner(let uid):
            return "\(quoted) belongs to another user (uid \(uid)). Only its owner may open it: ask them, or use your own journal."
        case .corrupt(let problem):
            let place = problem.sequence == 0
                ? "in its header"
                : "at sequence number \(problem.sequence) (byte offset \(problem.offset))"
            return "The journal \(quoted) fails verification \(place): \(problem.reason). "
                + "It is damaged or was tampered with: restore it from a backup."
        case .frameTooLarge(let size):
            return "A frame of \(size) bytes exceeds the 1 MiB bound of \(quoted). Nothing was written."
        case .readOnlyAccess:
            return "The journal \(quoted) is open read-only. Open it for writing to append."
        case .unusable:
            return "The journal \(quoted) can no longer be written after an earlier failure. Restart giftkeeper."
        case .changedWhileOpen(.size(let expected, let actual)):
            return "The journal \(quoted) was changed by another program while it was open (it is \(actual) bytes, not \(expected)). "
                + "Nothing was written; quit giftkeeper and run 'giftkeeper verify --journal \(path)' to check it."
        case .changedWhileOpen(.replaced):
            return "The journal \(quoted) was replaced or removed while it was open, so the last change was not saved. "
                + "Quit giftkeeper and run 'giftkeeper verify --journal \(path)' to check the file now at that path."
        case .io(let operation, let code):
            switch code {
            case EACCES, EPERM:
                return "Permission denied on \(quoted) (\(operation)). Check the file's and its directory's owner and mode."
            case ENOSPC, EDQUOT:
                return "The disk is full: could not \(operation) \(quoted). Free some space and try again (nothing unsaved was acknowledged)."
            case ENOTDIR, ENAMETOOLONG, ELOOP:
                return "Could not \(operation) \(quoted): \(errnoText(code)). "
                    + "Check the path: every part before the file name must be a directory."
            case EROFS:
                return "\(quoted) is on a read-only file system (\(operation)). Move the journal to a writable place."
            default:
                return "Could not \(operation) \(quoted): \(errnoText(code)). Check the disk and try again."
            }
        }
    }

    /// The process exit code for this error (SPEC §2).
    public var exitCode: Int32 {
        switch code {
        case .corrupt:
            return 1
        case .changedWhileOpen:
            // Not 5 (I/O failure): every system call succeeded and trying again cannot help.
            // The file is no longer the one this handle verified and wrote, which is what 1
            // reports (tampering or corruption found), as does a replay that finds "the
            // journal changed while it was open".
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
