public import GiftKeeperDomain
import GiftKeeperFiles
public import GiftKeeperJournal

/// A failure of the application service, as data. ``description`` words it in one line,
/// quoting the user's input and naming what to do next; it never contains a secret.
public struct ServiceError: Error, Sendable, CustomStringConvertible {
    public enum Code: Sendable {
        /// The command broke a rule of the gift list (empty title, unknown id, …).
        case domain(DomainError)
        /// The journal file could not be used (missing, in use, corrupt, I/O).
        case journal(JournalError)
        /// The password did not unlock the journal. The attempt was recorded when `recorded`.
        case wrongPassword(recorded: Bool)
        /// The two new passwords typed differ.
        case passwordsDoNotMatch
        /// An empty password was given.
        case emptyPassword
        /// No journal exists at the path yet.
        case noJournal(path: String)
        /// `setup` on a journal that already exists.
        case journalExists(path: String)
        /// The command needs a signed-in session.
        case notSignedIn
        /// `login` or `setup` while already signed in.
        case alreadySignedIn
        /// A frame that does not authenticate: tampering or corruption.
        case tampered(sequence: UInt64, reason: String)
        /// The journal is older than, or departs from, the head remembered on this machine.
        case rolledBack(RollbackFinding)
        /// An event written by a newer GiftKeeper.
        case unsupportedEvent(sequence: UInt64, reason: String)
        /// Key derivation cost below `interactive` outside tests.
        case weakKeyDerivation
        /// A file the service writes besides the journal (export, remembered head) failed.
        case fileIO(operation: String, path: String, errno: Int32)
        /// An import document was rejected; nothing was appended.
        case importRejected(location: String, reason: String)
        /// Guarded memory or a libsodium call failed.
        case internalFailure(String)
        /// The user cancelled the command (Ctrl-C) before anything was recorded.
        case cancelled
        /// `export FILE` onto a file that exists, without `--force`.
        case exportTargetExists(path: String)
        /// Another writer kept appending while this one caught up: nothing was recorded.
        case changedElsewhere
        /// Another session changed the password: this one holds only the old keys.
        case passwordChangedElsewhere
    }

    public let code: Code

    public init(_ code: Code) {
        self.code = code
    }

    /// SPEC §2: 0 ok, 1 verification failed, 2 usage, 3 wrong password,
    /// 4 missing/locked/unreadable/unknown version, 5 I/O.
    public var exitCode: Int32 {
        switch code {
        case .domain, .passwordsDoNotMatch, .emptyPassword, .notSignedIn, .alreadySignedIn,
             .weakKeyDerivation, .importRejected, .journalExists, .exportTargetExists:
            return 2
        case .journal(let error):
            return error.exitCode
        case .wrongPassword:
            return 3
        case .noJournal, .unsupportedEvent, .changedElsewhere:
            return 4
        case .passwordChangedElsewhere:
            return 3
        case .tampered, .rolledBack:
            return 1
        case .fileIO, .internalFailure:
            return 5
        case .cancelled:
            return 130
        }
    }

    /// The one wording of a failed write to standard output (a full disk behind `>`).
    public static func standardOutputFailure(errno: Int32) -> String {
        "Could not write to standard output (\(errnoText(errno))): the output is incomplete. "
            + "Check the disk or the pipe it goes to."
    }

    public var description: String {
        switch code {
        case .domain(let error):
            return error.message
        case .journal(let error):
            return error.description
        case .wrongPassword(let recorded):
            return recorded
                ? "Wrong password. The attempt was recorded; try again."
                : "Wrong password. Try again."
        case .passwordsDoNotMatch:
            return "The passwords do not match. Nothing was changed; try again."
        case .emptyPassword:
            return "The password is empty. Type a password, then press Enter."
        case .noJournal(let path):
            return "No journal at '\(path)'. Run 'giftkeeper' and type 'setup' to create one, or pass --journal PATH."
        case .journalExists(let path):
            return "A journal already exists at '\(path)'. Type 'login' to unlock it, or choose another --journal PATH."
        case .notSignedIn:
            return "You are signed out. Type 'login' first."
        case .alreadySignedIn:
            return "You are already signed in. Type 'signout' first."
        case .tampered(let sequence, let reason):
            return "Frame \(sequence) does not verify: \(reason). The journal was altered or damaged; run 'giftkeeper audit' and restore from a backup."
        case .rolledBack(let finding):
            let what: String
            switch finding {
            case .eventsMissing(let count):
                what = "\(count) event\(count == 1 ? " is" : "s are") missing since your last session on this machine: the journal was rolled back or replaced"
            case .historyDiverged(let sequence):
                what = "the journal's history differs from your last session on this machine at sequence number \(sequence): it was replaced or altered"
            case .journalReplaced:
                what = "this machine last used another journal at this path: this one replaced it"
            case .rememberedHeadUnverified:
                what = "the record of your last session on this machine does not verify: it or the journal was altered"
            }
            return "Rollback detected: \(what). Restore the newer copy from a backup, or keep this one by making a change in an interactive 'giftkeeper' session."
        case .unsupportedEvent(let sequence, let reason):
            return "Frame \(sequence) was written by a newer GiftKeeper (\(reason)). Upgrade giftkeeper to open this journal."
        case .weakKeyDerivation:
            return "That key-derivation cost is below 'interactive'. Use --kdf interactive, moderate or sensitive."
        case .fileIO(_, let path, let errno) where path == "standard output":
            return Self.standardOutputFailure(errno: errno)
        case .fileIO(let operation, let path, let errno):
            return "Could not \(operation) '\(path)': \(errnoText(errno)). Check the path, its permissions and free space."
        case .importRejected(let location, let reason):
            // `reason` may be a whole sentence already (a domain rule's message).
            let clause = reason.hasSuffix(".") ? String(reason.dropLast()) : reason
            return "Import rejected at \(location): \(clause). Nothing was imported; fix the document and try again."
        case .cancelled:
            return "Cancelled (Ctrl-C). Nothing was recorded."
        case .exportTargetExists(let path):
            return "'\(path)' already exists. Choose another file, or add --force to replace it."
        case .changedElsewhere:
            return "The journal kept changing in another session while this one caught up. Nothing was recorded; try again."
        case .passwordChangedElsewhere:
            return "The password was changed in another session. You are signed out; type 'login' with the new password."
        case .internalFailure(let reason):
            return "Internal failure: \(reason). Nothing more was written; please report this."
        }
    }
}
