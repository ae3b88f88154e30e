public import GiftKeeperCrypto
public import GiftKeeperDomain
public import GiftKeeperJournal
import GiftKeeperSealing

/// The application service: load → fold → decide → append → apply → notify.
///
/// One instance drives one journal for one process. It holds the journal's store open
/// (the file's lock with it) from ``open()`` to ``close()``, keeps every key in guarded
/// memory while signed in, and wipes them on ``signOut()``. The sessions and keys state
/// machine is here; sign-in, sign-out and password changes are in
/// `GiftKeeperService+Account.swift`, the rollback memory in `+Rollback.swift`, and the
/// sealing of frames in ``SealedJournal``. Not thread-safe: the shell calls it from one thread.
public final class GiftKeeperService {
    /// Where the journal lives.
    public var journalPath: String { location.path }
    let location: any FrameStoreLocation
    let environment: ServiceEnvironment

    /// The open journal, seen through its keys; nil before ``open()`` or when none exists.
    var sealed: SealedJournal?
    /// The same journal as this device's own store: what only a local copy has (whether it
    /// can be appended to, the sessions live on it). The service opens only local copies
    /// (``FrameStoreLocation``), so this is nil only when ``sealed`` is.
    var local: (any LocalFrameStore)? { sealed?.store as? any LocalFrameStore }
    /// The server the journal is shared through, once a sync looked for it (``sync(restoringServer:)``).
    var remote: RemoteLink?
    var failuresSinceLastSuccess = 0
    /// Wrong current passwords given to `changePassword` in this session: each next try
    /// waits like a login does, so a signed-in session left unattended cannot be used to
    /// guess the password quickly.
    var passwordChangeFailures = 0
    var keyring: Keyring?
    /// What opens this device's key for the journal's server while signed in (``DeviceKeys``).
    var deviceAccess: DeviceKeyAccess?
    /// The last sequence number folded into ``state``.
    var appliedSequence: UInt64 = 0
    /// What this machine remembers of the journal's head (SPEC §5).
    private(set) lazy var memory = RollbackMemory(directory: environment.stateDirectory, journalPath: journalPath) {
        [unowned self] notification in notify(notification)
    }

    /// The changes this session made, oldest first, that `undo` can still reverse.
    var undoable: [UndoableChange] = []
    /// The reversals this session's `undo` made, oldest first, that `redo` can still
    /// reverse in turn; a new change empties it.
    var redoable: [UndoableChange] = []

    /// The decrypted gift list; empty while locked.
    public internal(set) var state = GiftList()

    /// Called for every change of login status, as it happens.
    public var onNotification: ((LoginNotification) -> Void)?
    /// Called once a second while a password check waits after failed attempts, with the
    /// seconds left, and with 0 when the wait is over (SPEC §1: the wait counts down).
    public var onWaiting: ((Int) -> Void)?
    /// Called with what other processes (or devices) changed, as this session takes it in
    /// (``refresh()``, or an append that found others had appended first): each event with
    /// what it changed from, to be told in words (SPEC §12).
    public var onChangesElsewhere: (([HistoryEntry]) -> Void)?
    /// Called now and then while a long replay runs, with (bytes done, bytes total).
    public var onProgress: ((Int, Int) -> Void)?

    /// Where a session stands.
    public enum Phase: Equatable, Sendable {
        /// No journal (or an empty one) at the path: only `setup` is possible.
        case noAccount
        /// A journal with an account, locked.
        case locked
        /// Unlocked: the keys are in memory.
        case signedIn
    }

    public var phase: Phase {
        if keyring != nil { return .signedIn }
        return (sealed?.wraps.isEmpty ?? true) ? .noAccount : .locked
    }

    /// The time now, by the service's clock (injected in tests).
    public var now: Timestamp { environment.now() }

    /// The account name, known only once unlocked (it is encrypted too).
    public var accountName: String? { keyring == nil ? nil : state.accountName }

    /// What opening the journal for writing trimmed off its end (a torn append).
    public private(set) var trimmedTail: TornTail?

    /// The wait, in seconds, that ``login(password:)`` will make before checking.
    public var nextLoginDelay: Int { loginDelay(afterFailures: failuresSinceLastSuccess) }

    /// The rollback this session's sign-in found (SPEC §5) and that nobody has accepted yet.
    ///
    /// While it stands the remembered head is left as it is, so every later sign-in warns
    /// again. A change the user makes (add, edit, mark, remove, import, passwd) accepts it
    /// when ``acceptsRollbackOnChange`` is set; one-shot tasks refuse to run instead.
    public internal(set) var rollbackFinding: RollbackFinding?
    /// Set by one-shot tasks (`export`, `import`): a rollback found at sign-in stops the
    /// sign-in itself, before anything is appended (the warning is still announced).
    public var refusesRollback = false

    /// Whether a change made after a rollback warning accepts the journal as it is: set for
    /// an interactive session only, where the person read the warning before typing the
    /// change. Scripts and one-shot subcommands leave it false, so the evidence stays.
    public var acceptsRollbackOnChange = false

    /// What this machine's records of the journal's path said before any key (unauthenticated):
    /// reported instead of a wrong password, and instead of offering `setup`.
    var findingBeforeUnlocking: RollbackFinding?

    /// The cost the journal's newest key wrap was made with.
    public var keyDerivationParameters: KDFParameters? { sealed?.wraps.last?.payload.parameters }

    /// A service for the journal file at `journalPath`.
    public convenience init(journalPath: String, environment: ServiceEnvironment) {
        self.init(location: FileStoreLocation(path: journalPath), environment: environment)
    }

    /// A service for the journal `location` finds (a file, or memory in tests).
    public init(location: any FrameStoreLocation, environment: ServiceEnvironment) {
        self.location = location
        self.environment = environment
    }

    deinit {
        keyring?.wipe()
    }

    // MARK: Opening

    /// Opens (and locks) the journal if it exists, verifying its structure and chain and
    /// trimming a torn last frame. A missing journal is not an error: the phase is
    /// ``Phase/noAccount`` and `setup` creates it.
    public func open(access: JournalAccess = .readWrite) throws(ServiceError) {
        try open(access: access, toleratingDamage: false)
    }

    /// Opens as ``open(access:)``; `toleratingDamage` (read-only, for audit) keeps the frames
    /// before the first bad one readable and reports the damage in ``FrameStore/damage``.
    func open(access: JournalAccess, toleratingDamage: Bool) throws(ServiceError) {
        guard sealed == nil else { return }
        let store: (any LocalFrameStore)?
        do {
            store = try location.open(access: access, toleratingDamage: toleratingDamage, progress: onProgress)
        } catch {
            throw ServiceError(.journal(error))
        }
        guard let store else { return }
        let finding = RollbackFinding.beforeUnlocking(
            store, stateDirectory: environment.stateDirectory, journalPath: journalPath)
        let opened = try sealing { try SealedJournal(store: store) }
        if opened.wraps.isEmpty, let finding {
            // Cut before its first key wrap, where this machine remembers more: no `setup` here.
            throw ServiceError(.rolledBack(finding))
        }
        trimmedTail = store.trimmedTail
        findingBeforeUnlocking = finding
        sealed = opened
        failuresSinceLastSuccess = opened.trailingFailures
    }

    /// Opens an existing journal; a missing one is an error (for `audit`, `export`, `import`).
    public func openExisting(access: JournalAccess) throws(ServiceError) {
        try open(access: access)
        guard sealed != nil else { throw ServiceError(.noJournal(path: journalPath)) }
    }

    /// Creates the journal for `setup` (or takes the empty one opened), never replacing a file.
    func openOrCreate() throws(ServiceError) -> SealedJournal {
        if let sealed { return sealed }
        let store: any LocalFrameStore
        do {
            store = try location.create()
        } catch {
            // Not opened first (or created by someone else since): the same refusal as a
            // journal found by open(), never a replaced file.
            if error.code == .alreadyExists { throw ServiceError(.journalExists(path: journalPath)) }
            throw ServiceError(.journal(error))
        }
        let created = try sealing { try SealedJournal(store: store) }
        sealed = created
        return created
    }

    /// Releases the journal and its lock, signing out first when signed in.
    public func close() throws(ServiceError) {
        defer {
            keyring?.wipe()
            keyring = nil
            state = GiftList()
            sealed = nil
            remote = nil
        }
        if keyring != nil {
            try signOut()
        } else {
            try saveRemoteRecord()
        }
    }

    func requireJournal() throws(ServiceError) -> SealedJournal {
        guard let sealed else { throw ServiceError(.noJournal(path: journalPath)) }
        return sealed
    }

    /// Ctrl-C in the shell (``ServiceEnvironment/isCancelled``): stop here, nothing recorded yet.
    func stopIfCancelled() throws(ServiceError) {
        guard !environment.isCancelled() else { throw ServiceError(.cancelled) }
    }

    /// Throws what an append would: the journal failed a write earlier in this session.
    func requireAppendable() throws(ServiceError) {
        let sealed = try requireJournal()
        guard local?.canAppend == true else { throw ServiceError(.journal(JournalError(.unusable, path: sealed.path))) }
    }

    func requireKeyring() throws(ServiceError) -> Keyring {
        guard let keyring else { throw ServiceError(.notSignedIn) }
        return keyring
    }

    // MARK: Helpers

    func notify(_ notification: LoginNotification) {
        onNotification?(notification)
    }

    /// Wipes the keys and the decrypted state; the journal stays open.
    func discardSession() {
        if keyring != nil { local?.endSession() }
        DeviceKeys(session: self).forget()
        keyring?.wipe()
        keyring = nil
        state = GiftList()
        undoable = []
        redoable = []
        rollbackFinding = nil
    }
}

/// One command's events and what they changed, as it was before them: what `undo` reverses.
struct UndoableChange {
    let events: [Event]
    /// The state before the events, only as far as they touched it (``GiftList/undoSnapshot(for:)``).
    let stateBefore: GiftList
    /// For a reversal: the change it reversed (its events and the state before them), which
    /// a `redo` makes again; empty otherwise.
    let reverses: [Event]
    let reversedStateBefore: GiftList

    init(events: [Event], stateBefore: GiftList, reverses: UndoableChange? = nil) {
        self.events = events
        self.stateBefore = stateBefore
        self.reverses = reverses?.events ?? []
        reversedStateBefore = reverses?.stateBefore ?? GiftList()
    }
}

/// The stack a change's reversal is kept on: `undo` reverses the undo stack's last entry
/// (and keeps its reversal for `redo`), `redo` the redo stack's.
enum ReversalStack {
    case undo, redo
}
