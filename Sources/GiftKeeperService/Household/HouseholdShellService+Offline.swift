import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing

/// Offline work and merge in a household's shell and one-shots (docs/threat-model.md,
/// "Offline work and merge in a household"): signed in from the device's copy while the
/// service cannot be reached, the member's changes wait in the pending file beside it
/// (``HouseholdOffline``); the next sync that reaches the service sends them, each decided
/// again at the shared head (``HouseholdSession/replay(_:)``).
extension HouseholdShellService {
    // MARK: Syncing (the shell's `sync` and idle look)

    /// Catches up with the service, after sending the offline work when there is some
    /// (``reconnect()``); what sending it changed is told.
    @discardableResult
    public func sync(restoringServer: Bool) throws(ServiceError) -> SyncReport {
        var report = SyncReport(server: server ?? journalPath)
        report.sent = try reconnect()
        let before = headSequence
        try refresh()
        report.received = Int(headSequence - before)
        (report.resolutions, report.overridden) = (replayed, overridden)
        (replayed, overridden) = ([], [])
        // What was told is marked at once: a shell that ends without signing out (a crash,
        // a kill) does not tell it again at the next sign-in.
        if !report.overridden.isEmpty { keepCopy() }
        return report
    }

    /// Offline: tries the service again (the shell's idle look); online, tells what another
    /// member's offline change overrode of this member's.
    public func syncIfNeeded() throws(ServiceError) -> SyncReport? {
        offlineSince == nil && replayed.isEmpty && overridden.isEmpty ? nil : try sync(restoringServer: false)
    }

    /// Where a device keeps its copy of the household's frames and its offline work.
    package struct OfflineWork: Sendable {
        let copy: String
        let pending: String

        package init(copy: String, pending: String) {
            self.copy = copy
            self.pending = pending
        }
    }

    /// The member's session: through the service, with the offline work waiting here sent
    /// first; from the device's copy when the service cannot be reached (or, with offline
    /// work waiting, no longer serves a member removed meanwhile: it stays theirs, here).
    func signIn(_ password: SecureBytes) throws(ServiceError) -> HouseholdSession {
        // The member's wrap in the device's copy, opened by the one key derivation of the
        // sign-in: it also opens the device's key for the service (`openStore`).
        let unlocked = try Self.household { () throws(HouseholdSessionError) in
            try HouseholdSession.household { () throws(HouseholdError) in try copy?.unlock(password) }
        }
        let waiting = offline.map { HouseholdOffline.isWaiting($0.pending) } ?? false
        do {
            let online = try open(try openStore(password), password: password, unlocked: unlocked)
            if let offline, waiting {
                let (pending, base) = try openPending(offline, password: password)
                try send(from: pending, after: base, to: online, offline)
            }
            return online
        } catch {
            guard let offline, Self.worksOffline(error, waiting: waiting) else { throw error }
            return try signInFromCopy(offline, password: password, reconnecting: !Self.isRemoval(error))
        }
    }

    /// Offline: reaches the service again and sends the offline work, taking the member's
    /// session there; answers how many changes were sent. A service still away throws (the
    /// shell says it is offline, once); a member removed meanwhile keeps it.
    func reconnect() throws(ServiceError) -> Int {
        guard let offline, let pending = session, let since = offlineSince else { return 0 }
        // Removed meanwhile: nothing to send to, ever (told at the sign-in).
        guard let password = since.password else { return 0 }
        let online = try open(try openStore(password), password: password)
        let sent = try send(from: pending, after: since.base, to: online, offline)
        password.wipe()
        (session, offlineSince, undoable, redoable) = (online, nil, [], [])
        toldThrough = online.member.store.head.sequence
        keptAt = nil
        keepCopy()
        return sent
    }

    /// Where this device last verified the journal for `session`'s member (the mark kept
    /// beside its copy, before the sign-in keeps it again): what another member's offline
    /// change overrode after it is told at the sign-in's sync.
    func markedThrough(_ session: HouseholdSession) -> UInt64? {
        let journalID = session.member.store.header.journalID
        return copy?.mark().flatMap { VerifiedMark.decode($0, journalID: journalID, member: session.member.secrets) }?.sequence
    }

    /// The changes waiting here (offline).
    var unsentChanges: Int {
        guard let session, let since = offlineSince else { return 0 }
        return (try? session.pendingChanges(after: since.base).count) ?? 0
    }

    private func open(_ store: any FrameStore, password: SecureBytes, unlocked: UnlockedWrap? = nil) throws(ServiceError)
        -> HouseholdSession
    {
        let mark = copy?.mark()
        return try Self.household { () throws(HouseholdSessionError) in
            try HouseholdSession.open(
                store, as: memberID, name: name, password: password, verifiedMark: mark, unlocked: unlocked, now: clock)
        }
    }

    /// The member signed in to the pending file (made from the copy when there is none),
    /// and the shared head its pending work follows.
    private func openPending(_ offline: OfflineWork, password: SecureBytes) throws(ServiceError) -> (HouseholdSession, UInt64) {
        let (store, base) = try Self.reaching { () throws -> (any FrameStore, UInt64) in
            guard let opened = try HouseholdOffline.open(copy: offline.copy, pending: offline.pending) else { throw ServiceError(.noRemote) }
            return opened
        }
        return (try open(store, password: password), base)
    }

    /// `body`'s answer, what it throws as the shell's error: a service's or journal's as
    /// itself, anything else as no service to reach.
    package static func reaching<T>(_ body: () throws -> T) throws(ServiceError) -> T {
        do {
            return try body()
        } catch let error as ServiceError {
            throw error
        } catch let error as JournalError {
            throw ServiceError(.journal(error))
        } catch {
            throw ServiceError(.noRemote)
        }
    }

    private func signInFromCopy(_ offline: OfflineWork, password: SecureBytes, reconnecting: Bool) throws(ServiceError)
        -> HouseholdSession
    {
        let (session, base) = try openPending(offline, password: password)
        offlineSince = (base, reconnecting ? try? password.copy() : nil)
        if !reconnecting { removedWhileOffline = true }
        return session
    }

    /// Sends `pending`'s changes after `base` to `online` (none twice: ``HouseholdSession/replay(_:)``);
    /// the pending file is forgotten once they are all there; answers how many there were. A
    /// member removed meanwhile keeps them (nothing sent).
    @discardableResult
    private func send(from pending: HouseholdSession, after base: UInt64, to online: HouseholdSession, _ offline: OfflineWork)
        throws(ServiceError) -> Int
    {
        let changes = try Self.household { () throws(HouseholdSessionError) in try pending.pendingChanges(after: base) }
        do {
            replayed += try online.replay(changes)
        } catch .household(.notAMember) {
            throw ServiceError(.householdKeptOffline(changes: changes.count))
        } catch {
            throw ServiceError(household: error)
        }
        HouseholdOffline.discard(offline.pending)
        return changes.count
    }

    /// Whether `error` leaves the member to work from the device's copy: the service away,
    /// or no longer serving a member whose offline work waits here.
    static func worksOffline(_ error: ServiceError, waiting: Bool) -> Bool {
        if case .journal(let failure) = error.code, case .unreachable(let reason) = failure.code, reason.isOffline { return true }
        return waiting && isRemoval(error)
    }

    static func isRemoval(_ error: ServiceError) -> Bool {
        switch error.code {
        case .household(.notAMember), .householdKeptOffline: true
        case .journal(let failure): failure.code == .unreachable(.household(.notMember))
        default: false
        }
    }
}
