import GiftKeeperFiles
import Glibc

/// A journal operation that failed, as data; the shell words it.
public struct JournalError: Error, Sendable, Equatable {
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
        /// The journal's server could not be reached, or refused what was asked (nothing
        /// of the journal's content is in it); `path` is its address.
        case unreachable(RemoteFailure)
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
        case .unreachable(.deviceKey(.otherPassword)):
            return 3  // a wrong password, for the device's key
        case .notFound, .alreadyExists, .inUse, .isDirectory, .notRegularFile, .notAJournal,
            .unsupportedVersion, .insecurePermissions, .foreignOwner, .unreadable:
            return 4
        case .io, .readOnlyAccess, .unusable, .unreachable:
            return 5
        }
    }
}

/// Why a journal's server could not be used, as data (the shell words it).
public enum RemoteFailure: Sendable, Equatable {
    /// No connection to the server (it is down, or the link is cut).
    case noConnection
    /// The address is not an `https://HOST[:PORT]` address.
    case invalidAddress
    /// The address names a PostgreSQL database (`postgres://`): devices no longer connect
    /// to one directly, only to the sync service in front of it (`giftkeeper-server`).
    case databaseAddress
    /// The address is plain `http://` to a host other than this machine (no TLS).
    case plainHTTPAddress
    /// No answer within the deadline of `seconds`.
    case timedOut(seconds: Int)
    /// The TLS handshake failed (an untrusted or mismatched certificate, no TLS); `cause` says how.
    case tls(cause: String)
    /// The service did not accept this device: not enrolled, removed, or a code refused.
    case notAuthenticated(message: String)
    /// The service does not allow this device the request (HTTP 403); its own message.
    case permissionDenied(message: String)
    /// The account is over a quota of the service (frame size, frames a minute, journals).
    case overQuota(message: String)
    /// The service refused the request with another HTTP status and its own message.
    case rejected(status: Int, message: String)
    /// The server no longer has this journal.
    case journalGone
    /// The server sent a row of an unexpected shape.
    case unexpectedAnswer
    /// The server could not be reached; `cause` names the kind of failure.
    case couldNotConnect(cause: String)
    /// The service refused a household's request by a rule it keeps (SPEC §13).
    case household(MembershipRefusal)
    /// This device's key for the service could not be opened (docs/threat-model.md).
    case deviceKey(DeviceKeyProblem)
}

/// Why this device's key for a sync service could not be opened: it is sealed under the
/// password (SPEC §12), so a command that talks to the service must have it.
public enum DeviceKeyProblem: Sendable, Equatable {
    /// No password at hand (the command did not sign in).
    case locked
    /// The password at hand opens none of the key's seals.
    case otherPassword
    /// The key file at `path` is not a device key file, or a seal does not open with its right key.
    case damaged(path: String)
}

/// Why the service refused a household's request: the rules it can check, because it
/// records them (who is a member, who an owner, an invitation's use and expiry).
public enum MembershipRefusal: Sendable, Equatable {
    /// The invitation's code was used already (by another account).
    case codeUsed
    /// The invitation's code expired.
    case codeExpired
    /// The service knows no invitation of this code (never made, or burnt).
    case unknownCode
    /// Only an owner of the household may do that.
    case notOwner
    /// This account is not a member of the household (or no longer).
    case notMember
    /// The household's last owner cannot be removed or leave.
    case lastOwner
}

extension RemoteFailure {
    /// Whether the failure is the link's or the server's being away (a change waits here and
    /// goes at the next sync), rather than one the person must act on (an address, a
    /// certificate, this device's enrolment or rights, a quota).
    public var isOffline: Bool {
        switch self {
        case .noConnection, .timedOut, .couldNotConnect: true
        default: false
        }
    }
}
