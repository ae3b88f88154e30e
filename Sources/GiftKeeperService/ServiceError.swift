public import GiftKeeperDomain
import GiftKeeperFiles
public import GiftKeeperJournal

/// A failure of the application service, as data. The shell words it (`Messages.swift`
/// in GiftKeeperREPL); no case carries a secret.
public struct ServiceError: Error, Sendable {
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
        /// A new password shorter than ``GiftKeeperService/minimumPasswordLength`` characters.
        case passwordTooShort(minimum: Int)
        /// No journal exists at the path yet.
        case noJournal(path: String)
        /// `setup` on a journal that already exists.
        case journalExists(path: String)
        /// The command needs a signed-in session.
        case notSignedIn
        /// `login` or `setup` while already signed in.
        case alreadySignedIn
        /// A frame that does not authenticate: tampering or corruption.
        case tampered(sequence: UInt64, Tampering)
        /// The journal is older than, or departs from, the head remembered on this machine.
        case rolledBack(RollbackFinding)
        /// An event written by a newer GiftKeeper: a schema version or event type this
        /// version does not read.
        case unsupportedEvent(sequence: UInt64, EventDecodingError)
        /// Key derivation cost below `interactive` outside tests.
        case weakKeyDerivation
        /// A file the service writes besides the journal (export, remembered head) failed.
        case fileIO(operation: String, path: String, errno: Int32)
        /// An import document was rejected; nothing was appended.
        case importRejected(location: String, reason: ImportRejection)
        /// Guarded memory or a libsodium call failed.
        case internalFailure(String)
        /// `sodium_malloc` could not lock `bytes` more bytes of memory (the lock limit).
        case outOfGuardedMemory(bytes: Int)
        /// The user cancelled the command (Ctrl-C) before anything was recorded.
        case cancelled
        /// `export FILE` onto a file that exists, without `--force`.
        case exportTargetExists(path: String)
        /// Another writer kept appending while this one caught up: nothing was recorded.
        case changedElsewhere
        /// Another session changed the password: this one holds only the old keys.
        case passwordChangedElsewhere
        /// `undo` with no change of this session left to reverse.
        case nothingToUndo
        /// `--as-of` a time before the journal's first event (its time).
        case beforeJournalBegan(Timestamp)
        /// `sync` with no server set for the journal (`--remote URL`, `$GIFTKEEPER_REMOTE`).
        case noRemote
        /// The server's frame at `sequence` is not the one this device holds there, though
        /// this device saw the server agree up to `shared`: a server that forked or rewrote
        /// the journal. Never followed.
        case remoteDiverged(server: String, sequence: UInt64, shared: UInt64)
        /// The server holds only the first `has` frames of the `shared` this device saw
        /// there (restored from an older backup, or frames dropped); `sync --restore-server`
        /// sends this device's back.
        case remoteBehind(server: String, has: UInt64, shared: UInt64)
        /// Another device posted that it saw `seenElsewhere` frames on the server, which
        /// shows this device only `has`: the server hides frames from this device (or
        /// rolled back after showing them). Never followed.
        case remoteHidesFrames(server: String, has: UInt64, seenElsewhere: UInt64)
        /// Another device posted that it saw a different frame `sequence` on the server than
        /// the one it shows this device: a server showing devices two forks. Never followed.
        case remoteForked(server: String, sequence: UInt64)
        /// A device head on the server does not authenticate under the journal's keys: the
        /// server made or altered it.
        case remoteForgedDeviceHead(server: String)
        /// Merging offline changes needs the keys: sign in first.
        case mergeNeedsSignIn(pending: UInt64)
        /// The password was changed on another device while this one has changes to merge:
        /// they cannot be sealed under a key this session does not hold.
        case passwordChangedOnAnotherDevice
        /// A password changed on this device offline cannot be merged with another device's changes.
        case offlinePasswordChangeConflicts
        /// `clone`: the server holds no journal, or several (the URL must name one).
        case cloneNeedsJournal(server: String, found: [String])
    }

    public let code: Code

    public init(_ code: Code) {
        self.code = code
    }

    /// Whether the journal file was replaced under this handle by another process (a sync
    /// that merged): nothing was acknowledged, and the journal is to be opened again.
    var isJournalReplaced: Bool {
        guard case .journal(let failure) = code, case .changedWhileOpen(.replaced) = failure.code else { return false }
        return true
    }

    /// SPEC §2: 0 ok, 1 verification failed, 2 usage, 3 wrong password,
    /// 4 missing/locked/unreadable/unknown version, 5 I/O.
    public var exitCode: Int32 {
        switch code {
        case .domain, .passwordsDoNotMatch, .emptyPassword, .passwordTooShort, .notSignedIn, .alreadySignedIn,
            .weakKeyDerivation, .importRejected, .journalExists, .exportTargetExists, .nothingToUndo, .beforeJournalBegan:
            return 2
        case .journal(let error):
            return error.exitCode
        case .wrongPassword:
            return 3
        case .noJournal, .unsupportedEvent, .changedElsewhere, .cloneNeedsJournal:
            return 4
        case .noRemote, .mergeNeedsSignIn:
            return 2
        case .remoteDiverged, .remoteBehind, .remoteHidesFrames, .remoteForked, .remoteForgedDeviceHead:
            return 1
        case .passwordChangedOnAnotherDevice, .offlinePasswordChangeConflicts:
            return 3
        case .passwordChangedElsewhere:
            return 3
        case .tampered, .rolledBack:
            return 1
        case .fileIO, .internalFailure, .outOfGuardedMemory:
            return 5
        case .cancelled:
            return 130
        }
    }

}

/// What does not authenticate or does not belong in a journal that decrypts: tampering or
/// damage found with the keys (the keyless checks are ``JournalDamage``).
public enum Tampering: Sendable, Equatable {
    /// An event frame comes before any key wrap.
    case eventBeforeKeyWrap
    /// The first frame is not a key wrap.
    case noLeadingKeyWrap
    /// The journal has no key wrap at all.
    case noKeyWrap
    /// A key wrap's derivation cost is beyond the sane bounds: refused before any work.
    case unsafeKeyDerivation(opsLimit: UInt64, memLimit: UInt64)
    /// A key wrap's clear part cannot be read.
    case malformedKeyWrap(KeyWrapFault)
    /// A key wrap where the keyring has none.
    case unexpectedKeyWrap
    /// A key wrap given to be opened as an event.
    case keyWrapOpenedAsEvent
    /// A key wrap's sealed keys do not open under the data key its successor names.
    case keyWrapDoesNotAuthenticate
    /// A key epoch whose previous data key no later wrap gave.
    case noPreviousDataKey
    /// The first key wrap names a previous data key.
    case firstKeyWrapNamesPreviousKey
    /// An event does not authenticate under its epoch's data key.
    case eventDoesNotAuthenticate
    /// An event authenticates but is not padded as its format version requires.
    case eventNotPadded
    /// A failed-login record does not open under the epoch's key pair.
    case failedLoginDoesNotOpen
    /// A failed-login record opens but was made for another place (moved or spliced).
    case failedLoginMoved
    /// A frame sealed to the public key holds another event than a failed login.
    case notAFailedLogin
    /// An event decrypts but does not decode.
    case undecodableEvent(EventDecodingError)
    /// The journal holds no account (no key wrap to audit).
    case noAccount
}

/// What is wrong with the clear part of a key wrap.
public enum KeyWrapFault: Sendable, Equatable {
    case unknownVersion
    case unknownAlgorithm
    case tooShort
    case unexpectedPreviousKeyCount(UInt8)
    case trailingBytes
}

/// Why an import document was rejected at one place in it, as data (the shell words it).
public enum ImportRejection: Sendable, Equatable {
    /// Not JSON; `detail` is the JSON parser's own account of what and where.
    case notJSON(detail: String)
    /// The document could not be read; `detail` is the decoder's account, when it gave one.
    case unreadable(detail: String?)
    /// The document is not a JSON object.
    case notAnObject
    /// A list (`presents`, `occasions`, `budgets`) is not a list.
    case notAList(of: String)
    /// A member of `presents` is not an object.
    case presentNotAnObject
    /// A value of the wrong kind where the document's shape is fixed, as the decoder says.
    case wrongShape(detail: String)
    /// `format` is absent.
    case formatMissing
    /// `format` is not a string.
    case formatNotAString
    /// `format` names another document than an export v1 or v2.
    case unknownFormat(String)
    /// A member the document's version does not have.
    case unknownField
    /// A required member is absent.
    case missing
    /// A member that must be a string is not.
    case notAString
    /// A member that must be a string or null is neither.
    case notAStringOrNull
    /// A member that must be true or false is not.
    case notABool
    /// A date member is not a date or null.
    case notADate
    /// A time member is not an ISO-8601 UTC time.
    case notATime(String)
    /// An id member is not a present id.
    case notAPresentID(String)
    /// A price member is not a decimal string or null.
    case notAPrice
    /// A status member is not one of the statuses.
    case notAStatus(String)
    /// The same present id is given twice.
    case duplicateID(PresentID)
    /// A present breaks a rule of the gift list (an empty title, a bad price...).
    case rule(DomainError)
}
