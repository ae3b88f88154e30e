public import GiftKeeperCrypto
public import GiftKeeperDocuments
public import GiftKeeperDomain
import GiftKeeperFiles
public import GiftKeeperJournal
public import GiftKeeperSealing

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
        /// A new password shorter than ``NewPassword/minimumLength`` characters.
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
        /// A document to read (`import FILE`) is not a regular file: a FIFO, a device, a
        /// socket, a directory. Refused without reading it (nothing blocks).
        case notRegularFile(path: String)
        /// An import document was rejected; nothing was appended.
        case importRejected(location: String, reason: ImportRejection)
        /// A libsodium call failed.
        case crypto(CryptoError)
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
        /// `redo` with nothing undone left to make again (or a change made since).
        case nothingToRedo
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
        /// Another device posted that it saw a device's head at `seenElsewhere`, but the
        /// server shows this device an older head of that device (at `shown`, 0 for none):
        /// the server hides that device's progress from this one. Never followed.
        case remoteHidesProgress(server: String, shown: UInt64, seenElsewhere: UInt64)
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
        /// A household's journal refused (SPEC §13): not admitted (or removed), not an
        /// owner, a frame that fails verification at its position.
        case household(HouseholdError)
        /// Another member of the household already goes by this name.
        case householdNameTaken(String)
        /// A member removed from the household while offline: their `changes` made offline
        /// stay on this device, readable, and are not sent.
        case householdKeptOffline(changes: Int)
        /// A command a household's shell does not have (``HouseholdShellService``).
        case notInAHousehold(command: String)
        /// After the member's `passwd` on another device, the password given for it opens no
        /// renewal of this device's identity (`opened`: it opened another member's).
        case householdRenewalNotOpened(opened: Bool)
    }

    public let code: Code

    public init(_ code: Code) {
        self.code = code
    }

    /// A failure of the sealed layer, passed on.
    init(sealing error: SealingError) {
        switch error {
        case .tampered(let sequence, let tampering): code = .tampered(sequence: sequence, tampering)
        case .unsupportedEvent(let sequence, let decoding): code = .unsupportedEvent(sequence: sequence, decoding)
        case .journal(let failure): code = .journal(failure)
        case .crypto(let failure):
            if case .outOfSecureMemory(let bytes) = failure.code {
                code = .outOfGuardedMemory(bytes: bytes)
            } else {
                code = .crypto(failure)
            }
        }
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
            .weakKeyDerivation, .importRejected, .journalExists, .exportTargetExists, .nothingToUndo, .nothingToRedo,
            .beforeJournalBegan:
            return 2
        case .journal(let error):
            return error.exitCode
        case .wrongPassword:
            return 3
        case .noJournal, .unsupportedEvent, .changedElsewhere, .cloneNeedsJournal:
            return 4
        case .noRemote, .mergeNeedsSignIn:
            return 2
        case .remoteDiverged, .remoteBehind, .remoteHidesFrames, .remoteHidesProgress, .remoteForked, .remoteForgedDeviceHead:
            return 1
        case .passwordChangedOnAnotherDevice, .offlinePasswordChangeConflicts:
            return 3
        case .passwordChangedElsewhere:
            return 3
        case .tampered, .rolledBack:
            return 1
        case .fileIO, .notRegularFile, .crypto, .outOfGuardedMemory:
            return 5
        case .cancelled:
            return 130
        case .householdNameTaken, .notInAHousehold:
            return 2
        case .householdKeptOffline:
            return 1
        case .householdRenewalNotOpened:
            return 3
        case .household(let refusal):
            switch refusal {
            case .refused, .notAMember, .rolledBack, .forked: return 1
            case .notAnOwner, .lastOwner: return 2
            case .wrongPassword: return 3
            case .noKeyWrap, .notAHousehold: return 4
            case .notInAudience, .busy, .sealing: return 5
            }
        }
    }

}

/// Runs `body`, a call into the layers below (the sealed journal, the store, libsodium):
/// their failures as service errors, each keeping its data.
func sealing<T>(_ body: () throws -> T) throws(ServiceError) -> T {
    do {
        return try body()
    } catch let error as ServiceError {
        throw error
    } catch {
        throw ServiceError(sealing: SealingError(error))
    }
}

extension SealedJournal {
    /// ``replay(after:keyring:progress:_:)``, its failures as service errors.
    func replaying(
        after sequence: UInt64 = 0, keyring: Keyring, progress: ((Int, Int) -> Void)?, _ body: (FrameView, Event?) throws -> Void
    ) throws(ServiceError) {
        try sealing { try replay(after: sequence, keyring: keyring, progress: progress, body) }
    }
}
