public import GiftKeeperCrypto
public import GiftKeeperDocuments
public import GiftKeeperDomain
public import GiftKeeperJournal
package import GiftKeeperSealing
import OrderedCollections

/// A household's journal as the shell sees it (``ShellService``): the member signs in
/// with their own password (``HouseholdSession``), and every command of a person's shell
/// works on what this member may read: `add`, `list`, `show`, planning, `history`,
/// `--as-of`, `undo`/`redo`, `export`. Each change is decided on the member's state and
/// sealed for the audience ``HouseholdAudiences`` gives it, so a present for Bob never
/// reaches Bob's keys, and so never his views.
///
/// The household's journal lives on the sync service (the store
/// ``init(journalPath:member:name:now:server:copy:openStore:)`` opens at sign-in). The device keeps
/// its record, and with a ``DeviceCopy`` the frames it read and how far it verified them,
/// so a sign-in reads and verifies only what is new. With ``offline`` a member works from
/// that copy while the service cannot be reached, and their changes are sent when it can
/// (``HouseholdShellService+Offline``).
/// `setup` and `import` are a person's journal's; they throw
/// ``ServiceError/Code/notInAHousehold(command:)``. `passwd` renews the member's keys
/// (``HouseholdSession/renewKeys(_:recoveryCode:parameters:appending:)``) through ``onPasswordChange``.
public final class HouseholdShellService: ShellService {
    public let journalPath: String
    var memberID: MemberID
    let name: String
    let clock: @Sendable () -> Timestamp
    /// Sleeps a second at a time through the wait before a password check; cut short by `isCancelled`.
    private let sleep: @Sendable (Int) -> Void
    private let isCancelled: @Sendable () -> Bool
    let server: String?
    let openStore: (SecureBytes) throws(ServiceError) -> any FrameStore
    let copy: DeviceCopy?
    /// The head ``copy`` was last told of (the sign-in's, then each sign-out's).
    var keptAt: JournalHead?
    /// The member's session while signed in; nil signed out (its keys released with it).
    var session: HouseholdSession?
    /// The last position whose changes were told (``onChangesElsewhere``) or were this
    /// session's own.
    var toldThrough: UInt64 = 0
    /// The member's changes to undo and redo, each with whether it was theirs alone (`add
    /// --private`: its reversal is too).
    var undoable: [(change: UndoableChange, privately: Bool)] = []
    var redoable: [(change: UndoableChange, privately: Bool)] = []
    /// Where offline work waits beside the device's copy; nil: online only.
    package var offline: OfflineWork?
    /// Signed in from the device's copy: the shared head the pending work follows, and the
    /// password that reaches the service again (nil once the member was removed).
    var offlineSince: (base: UInt64, password: SecureBytes?)?
    /// What sending offline work changed, told by the next sync.
    var replayed: [Resolution] = []
    /// This member's changes that another's offline change overrode, told by the next sync.
    var overridden: [OverriddenChange] = []
    /// Signed in from the device's copy because the member was removed while offline.
    var removedWhileOffline = false

    public var refusesRollback = false
    public var acceptsRollbackOnChange = false
    public var onNotification: ((LoginNotification) -> Void)?
    public var onWaiting: ((Int) -> Void)?
    public var onChangesElsewhere: (([HistoryEntry]) -> Void)?
    public var onProgress: ((Int, Int) -> Void)?
    /// What `passwd` asks of the device, with the current and the new password and the
    /// household's store: it hands `renew` a new recovery code, the record's cost and how the
    /// store appends a renewal (which renews the keys and answers the new member id), then
    /// keeps what the device keeps (its record, its key for the service) and shows the code.
    /// Without it, `passwd` is refused.
    package var onPasswordChange: ((_ old: SecureBytes, _ new: SecureBytes, _ store: any FrameStore, _ renew: Renewing) throws -> Void)?

    /// What carries this device over after the member's `passwd` on another device (the
    /// device's record and key; ``HouseholdSession/carriedOver(password:now:)``): given the
    /// old identity's session, the old password and ``askPassword``; answers the new session.
    package var carryOver: ((HouseholdSession, _ old: SecureBytes, _ ask: (String) throws -> SecureBytes) throws(ServiceError) -> HouseholdSession)?
    /// How the shell asks for a password with a prompt (a one-shot: the next line), set by it before it signs in.
    package var askPassword: ((String) throws -> SecureBytes)?

    /// Renews the member's keys with a recovery code and a cost, appended as given; answers the new member id.
    package typealias Renewing = (SecureBytes, KDFParameters, ((FrameBatch, MemberKeys) throws -> AppendOutcome)?) throws -> MemberID

    /// What a device keeps of what its member verified (``HouseholdCopy``): the
    /// ``HouseholdMember/verifiedMark()`` it kept, read at each sign-in, and `keep`, told of
    /// the member after the sign-in and at sign-out when the journal moved (it keeps the
    /// frames and the mark for the next sign-in).
    package struct DeviceCopy {
        let mark: () -> [UInt8]?
        let keep: (HouseholdMember) -> Void
        /// The member's wrap in the copy, opened with the password at each sign-in before
        /// `openStore` (``UnlockedWrap``: the sign-in's one key derivation); nil without one.
        let unlock: (SecureBytes) throws(HouseholdError) -> UnlockedWrap?

        package init(
            mark: @escaping () -> [UInt8]?, keep: @escaping (HouseholdMember) -> Void,
            unlock: @escaping (SecureBytes) throws(HouseholdError) -> UnlockedWrap? = { _ in nil }
        ) {
            self.mark = mark
            self.keep = keep
            self.unlock = unlock
        }
    }

    /// The household whose record on this device is `journalPath`, as member `member`
    /// (known here as `name`), its journal opened by `openStore` at each sign-in, with the
    /// member's password (this device's key for the service is sealed under it) (the
    /// service's copy, read after the device's `copy` when it keeps one; `server` names it
    /// in `sync`'s report). `sleep` and `isCancelled` make the wait after failed sign-ins
    /// (the system's by default; a test's clock in-process).
    package init(
        journalPath: String, member: MemberID, name: String, now: @escaping @Sendable () -> Timestamp, server: String?,
        copy: DeviceCopy? = nil, sleep: @escaping @Sendable (Int) -> Void = ServiceEnvironment.system(stateDirectory: nil).sleep,
        isCancelled: @escaping @Sendable () -> Bool = { false },
        openStore: @escaping (SecureBytes) throws(ServiceError) -> any FrameStore
    ) {
        self.journalPath = journalPath
        memberID = member
        self.name = name
        clock = now
        self.sleep = sleep
        self.isCancelled = isCancelled
        self.server = server
        self.copy = copy
        self.openStore = openStore
    }

    public var phase: GiftKeeperService.Phase { session == nil ? .locked : .signedIn }
    public var state: GiftList { session?.state ?? GiftList() }
    public var now: Timestamp { clock() }
    public var headSequence: UInt64 { session?.member.store.head.sequence ?? 0 }
    /// None: the journal is the service's own copy, every change is on it once made.
    /// The service, when this device works offline too (its syncs send the offline work).
    public var remoteURL: String? { offline == nil ? nil : server ?? journalPath }
    public var unsentFrames: UInt64 { offlineSince.map { headSequence - min(headSequence, $0.base) } ?? 0 }
    public var trimmedTail: TornTail? { nil }
    public var nextUndo: (events: [Event], stateBefore: GiftList)? { undoable.last.map { ($0.change.events, $0.change.stateBefore) } }
    public var nextRedo: (events: [Event], stateBefore: GiftList)? {
        redoable.last.map { ($0.change.reverses, $0.change.reversedStateBefore) }
    }
    /// The member's household session while signed in (for `audit`'s authors and members).
    package var household: HouseholdSession? { session }
    /// The service's side of the household's membership, for the `household` commands in
    /// the shell (``changingMembers(_:)``); nil where there is none.
    package var desk: (any HouseholdDesk)?
    /// Where failed sign-ins are posted and taken (``HouseholdLoginReports``); nil: told on this device only.
    package var loginReports: (any LoginReportMailbox)?

    public func open(access: JournalAccess) throws(ServiceError) {}

    public func close() throws(ServiceError) {
        if session != nil { try signOut() }
    }

    // MARK: Signing in and out

    public func login(password: SecureBytes) throws(ServiceError) {
        guard session == nil else { throw ServiceError(.alreadySignedIn) }
        // As a person's journal: the failures recorded on this device since the member's last
        // sign-in here make the wait before the password is checked (SPEC §1).
        guard HouseholdLoginReports.waitBeforeChecking(record: journalPath, sleep: sleep, isCancelled: isCancelled, onWaiting: onWaiting)
        else { throw ServiceError(.cancelled) }
        var opened: HouseholdSession
        do throws(ServiceError) {
            opened = try signIn(password)
        } catch {
            // Told to the member at their next sign-in on any of their devices (HouseholdLoginReports).
            if HouseholdLoginReports.isWrongPassword(error),
                HouseholdLoginReports.recordFailure(record: journalPath, at: clock(), mailbox: loginReports)
            {
                let next = loginDelay(afterFailures: HouseholdLoginReports.pending(record: journalPath))
                onNotification?(.failedAttempt(recorded: true, nextDelaySeconds: next))
            }
            if HouseholdLoginReports.isWrongPassword(error) { onNotification?(.householdPasswordMayBeNew) }
            throw error
        }
        // The member's `passwd` ran on another device: this one carries itself over (the
        // failures recorded before, here and in the mailbox, were sealed to the old keys:
        // counted with them, as a one-shot's carry-over does).
        var failed = 0
        if opened.isRenewedElsewhere, let carryOver, let askPassword {
            let before = opened.member
            opened = try carryOver(opened, password, askPassword)
            memberID = opened.id
            failed = HouseholdLoginReports.signedIn(
                record: journalPath, as: before.secrets.identity, mailbox: loginReports, store: before.store)
        }
        session = opened
        toldThrough = opened.member.store.head.sequence
        overridden += opened.overridden(after: markedThrough(opened) ?? toldThrough)
        keptAt = nil
        keepCopy()
        failed += HouseholdLoginReports.signedIn(
            record: journalPath, as: opened.member.secrets.identity, mailbox: loginReports, store: opened.member.store)
        onNotification?(.signedIn(name: name, failedAttempts: failed, previousVisit: nil))
        if removedWhileOffline { onNotification?(.keptOffline(changes: unsentChanges)) }
    }

    /// Releases the member's keys and what they read, the device's copy kept first; nothing
    /// is written to the journal (a household's sign-ins are the device's own, ``HouseholdSession``).
    public func signOut() throws(ServiceError) {
        guard session != nil else { return }
        keepCopy()
        offlineSince?.password?.wipe()
        offlineSince = nil
        removedWhileOffline = false
        session = nil
        undoable = []
        redoable = []
        onNotification?(.signedOut)
    }

    public func checkSetup(name: String) throws(ServiceError) { throw ServiceError(.notInAHousehold(command: "setup")) }

    public func setup(name: String, password: SecureBytes, parameters: KDFParameters, currency: String?) throws(ServiceError) {
        throw ServiceError(.notInAHousehold(command: "setup"))
    }

    /// `passwd` in a household: the current password checked against the member's wrap, then
    /// new key pairs under the new one, in a new epoch (docs/threat-model.md).
    public func changePassword(old: SecureBytes, newPassword: () throws -> SecureBytes) throws {
        guard let session else { throw ServiceError(.notSignedIn) }
        guard let onPasswordChange else { throw ServiceError(.notInAHousehold(command: "passwd")) }
        guard session.member.opens(password: old) else { throw ServiceError(.wrongPassword(recorded: false)) }
        let new = try newPassword()
        try onPasswordChange(old, new, session.member.store) { code, parameters, appending in
            try Self.household { () throws(HouseholdSessionError) in
                try session.renewKeys(new, recoveryCode: code, parameters: parameters, appending: appending)
            }
            memberID = session.id
            toldThrough = session.member.store.head.sequence
            _ = HouseholdLoginReports.signedIn(  // the new key, named by a new report token
                record: journalPath, as: session.member.secrets.identity, mailbox: loginReports, store: session.member.store)
            return session.id
        }
    }

    public func importDocument(_ document: CheckedImportDocument) throws(ServiceError) -> ImportSummary {
        throw ServiceError(.notInAHousehold(command: "import"))
    }

    // MARK: Changes

    /// Takes in what the other members wrote and tells it (``onChangesElsewhere``); a look
    /// costs a counter read while the service's live socket is open (``FrameStore/waitForFrames(after:milliseconds:)``).
    public func refresh() throws(ServiceError) {
        guard let session else { return }
        try Self.household { () throws(HouseholdSessionError) in try session.catchUp() }
        let (told, head) = (toldThrough, session.member.store.head.sequence)
        // Most looks find nothing new: the history is read only when the journal moved.
        guard head > told else { return }
        toldThrough = head
        overridden += session.overridden(after: told)
        let news = session.history.reversed().prefix { $0.entry.sequence > told }.reversed().compactMap { Self.signed($0.author, $0.entry) }
        if !news.isEmpty { onChangesElsewhere?(news) }
    }

    @discardableResult
    public func perform(_ change: Change) throws(ServiceError) -> ChangeResult {
        try perform(change, privately: false)
    }

    /// `change`, sealed for this member alone when `privately` (`add --private`).
    @discardableResult
    public func perform(_ change: Change, privately: Bool) throws(ServiceError) -> ChangeResult {
        let change = normalized(change)
        let before = state
        let standings = change.canTakeOverABudget ? before.budgetStandings : nil
        var similar: [PresentID] = []
        if case .addPresent(let recipient, let title, _, _, _, _, _, _) = change {
            similar = before.similarPresentIDs(to: title, for: recipient)
        }
        let events = try record(.change(change), privately: privately, keeping: .undo)
        guard !events.isEmpty else { return ChangeResult(events: [], budgetsCrossed: [], similar: similar) }
        redoable = []
        let crossed = standings.map { state.budgetsTakenOver(since: $0) } ?? []
        return ChangeResult(events: events, budgetsCrossed: crossed, similar: similar)
    }

    public func undo() throws(ServiceError) -> (undone: [Event], stateBefore: GiftList, compensation: [Event]) {
        guard let (last, privately) = undoable.last else {
            throw ServiceError(session == nil ? .notSignedIn : .nothingToUndo)
        }
        let events = try record(
            .undo(change: last.events, stateBefore: last.stateBefore), privately: privately, keeping: .redo, reversing: last)
        undoable.removeLast()
        return (last.events, last.stateBefore, events)
    }

    public func redo() throws(ServiceError) -> (redone: [Event], stateBefore: GiftList) {
        guard let (last, privately) = redoable.last else {
            throw ServiceError(session == nil ? .notSignedIn : .nothingToRedo)
        }
        let events = try record(
            .undo(change: last.events, stateBefore: last.stateBefore), privately: privately, keeping: .undo, reversing: last)
        redoable.removeLast()
        return (events, undoable.last?.change.stateBefore ?? GiftList())
    }

    /// Decides `command` on the member's state (what others wrote told first) and records it
    /// for its audience (this member alone when `privately`); kept on `stack` for `undo` or
    /// `redo` when given.
    private func record(
        _ command: Command, privately: Bool = false, keeping stack: ReversalStack? = nil, reversing: UndoableChange? = nil
    ) throws(ServiceError) -> [Event] {
        guard let session else { throw ServiceError(.notSignedIn) }
        try refresh()
        let before = session.state
        let events = try Self.household { () throws(HouseholdSessionError) in try session.perform(command, privately: privately) }
        toldThrough = session.member.store.head.sequence
        if !events.isEmpty, let stack {
            let kept = UndoableChange(events: events, stateBefore: before.undoSnapshot(for: events), reverses: reversing)
            switch stack {
            case .undo: undoable.append((kept, privately))
            case .redo: redoable.append((kept, privately))
            }
        }
        return events
    }

    /// Runs a membership command (`household invite|admit|…`) on the member's session and
    /// ``desk``, what the others wrote taken in first; the frames it writes are this
    /// session's own, not told back as changes made elsewhere.
    package func changingMembers<T>(_ body: (HouseholdSession, any HouseholdDesk) throws -> T) throws -> T {
        guard let session else { throw ServiceError(.notSignedIn) }
        guard let desk else { throw ServiceError(.noRemote) }
        try refresh()
        defer { toldThrough = session.member.store.head.sequence }
        return try body(session, desk)
    }

    // MARK: Reading the past

    /// What this member opened, oldest first, each with its author (members signing their
    /// names left out): never an event sealed for an audience they are not in.
    public func historyEntries(of present: PresentID?) throws(ServiceError) -> [HistoryEntry] {
        guard let session else { throw ServiceError(.notSignedIn) }
        return session.history.compactMap { Self.signed($0.author, $0.entry) }.filter { present == nil || $0.event?.body.presentID == present }
    }

    /// The member's state at `time`: what they opened up to then, folded in order.
    public func state(asOf time: Timestamp) throws(ServiceError) -> GiftList {
        guard let session else { throw ServiceError(.notSignedIn) }
        let events = session.history.compactMap { $0.entry.event }
        guard let first = events.first else { return session.state }
        guard first.at <= time else { throw ServiceError(.beforeJournalBegan(first.at)) }
        var replayed = try Self.household { () throws(HouseholdSessionError) in
            try HouseholdSession.initialState(name: name, at: first.at)
        }
        for event in events {
            guard event.at <= time else { break }
            replayed.apply(event)
        }
        return replayed
    }

    /// Exports what this member may read (or read at `asOf`), then records the export for
    /// this member alone.
    public func export(to destination: inout some ExportWriting, asOf: GiftList?) throws(ServiceError) {
        guard session != nil else { throw ServiceError(.notSignedIn) }
        let exported = asOf ?? state
        try ExportDocument.write(exported) { chunk throws(ServiceError) in try destination.write(chunk) }
        try destination.finish()
        _ = try record(.recordExport(presentCount: exported.presents.count))
    }

    // MARK: Helpers

    /// Tells the device's copy what the member verified, when the journal moved since it was last told.
    func keepCopy() {
        // Offline the store is the pending file: the copy stays as the service sent it.
        guard offlineSince == nil, let copy, let member = session?.member, member.store.head != keptAt else { return }
        copy.keep(member)
        keptAt = member.store.head
    }

    /// `entry` with its author's name; nil for a member signing their name for the
    /// household (bookkeeping, not a change to tell).
    private static func signed(_ author: String?, _ entry: HistoryEntry) -> HistoryEntry? {
        if case .accountCreated? = entry.event?.body { return nil }
        var signed = entry
        signed.author = author
        return signed
    }

    static func household<T>(_ body: () throws(HouseholdSessionError) -> T) throws(ServiceError) -> T {
        do {
            return try body()
        } catch {
            throw ServiceError(household: error)
        }
    }
}
