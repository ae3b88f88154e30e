import GiftKeeperCrypto
public import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing

/// What one ``GiftKeeperService/sync(restoringServer:)`` did.
public struct SyncReport: Sendable, Equatable {
    /// The journal's copy on the server: its address and `#` the first digits of the
    /// journal's id (what `clone` takes).
    public var server: String
    /// Whether this sync made the server's copy of the journal (its first push).
    public var createdOnServer = false
    /// Frames sent to the server, and received from it.
    public var sent = 0
    public var received = 0
    /// How this device's offline changes met other devices' (each told in one line).
    public var resolutions: [Resolution] = []
    /// This device's changes that other devices' changes, taken in now, undid (each told).
    public var overridden: [OverriddenChange] = []
    /// The other devices whose posted heads this sync found in the server's chain (checked
    /// only when signed in; nil when not checked).
    public var otherDevices: Int?
    /// Whether the server announced that it was restored from a backup since this device
    /// last synced (a new epoch): what this device held beyond it was sent again.
    public var serverRestored = false
}

/// The server a journal is shared through: where it is, the connection while one is open,
/// and what this device remembers of it.
final class RemoteLink {
    let location: any RemoteLocation
    var record: RemoteRecord
    /// The server's copy, open; nil until connected, and again after a failure.
    var store: (any SharedFrameStore)?
    /// The head this device last posted there (``AuthenticatedHead``).
    var postedHead: JournalHead?
    /// Whether ``record`` moved since it was last written (a send-only sync keeps it in
    /// memory until sign-out, closing, or the next full sync).
    var recordIsUnsaved = false
    /// The other devices' heads as last checked (a send-only sync checks only when they moved).
    var checkedHeads: [[UInt8]: [UInt8]] = [:]
    /// When a connection last failed: while offline, the shell tries again only now and then.
    var lastFailure: ContinuousClock.Instant?
    /// Whether ``record`` holds frames received and not yet written (written at the next look).
    var receivedIsUnsaved = false

    init(location: any RemoteLocation, record: RemoteRecord) {
        self.location = location
        self.record = record
    }
}

/// Sync's executor (SPEC §12): connects, reads, sends and merges as ``SyncPlan`` decides,
/// for one session (whose journal, keys and state it reads and rebuilds). The sync service
/// to come replaces this type; the planner stays.
struct SyncExecutor {
    let session: GiftKeeperService
}

/// Devices (SPEC §12): the journal file stays this device's journal; a server holds a
/// shared copy, which `sync` brings level with it, frame for frame (the frames are the same
/// bytes in both, their binding being the journal id and the position).
///
/// - Nothing new on the server: this device's new frames are sent (one transaction).
/// - Nothing new here: the server's new frames are appended here, and told.
/// - Both: this device's frames since the shared position are opened, decided again after
///   the server's (``GiftList/rebase(_:onto:)``), sealed at their new positions, and the
///   journal file is replaced at once by the shared frames plus them; they are sent next.
///
/// A server is not trusted: every frame it sends is verified against the chain, and the
/// position this device last saw it hold (``RemoteRecord/shared``) must still hold the
/// same frame — a server that forked, rewrote or lost frames is reported, never followed.
extension SyncExecutor {
    /// Brings the journal and the server's copy level (see the summary above): sends
    /// this device's new frames, takes in other devices' (told to ``onChangesElsewhere``),
    /// and merges offline changes when both moved (which needs a signed-in session).
    ///
    /// With `restoringServer`, a server holding fewer frames than this device saw there (a
    /// backup restored) is given this device's frames back instead of being reported.
    /// - Throws: ``ServiceError/Code/noRemote``; ``JournalError/Code/unreachable(reason:)``
    ///   when offline (nothing is lost: the frames wait here); `.remoteBehind`,
    ///   `.remoteDiverged` or `.journal(.corrupt)` for a server that does not hold what it
    ///   should (exit 1).
    func sync(restoringServer: Bool) throws(ServiceError) -> SyncReport {
        let link = try requireRemote()
        var report = SyncReport(server: link.location.description)
        do {
            if !restoringServer, try sendOnly(link, report: &report) { return report }
            for _ in 0..<GiftKeeperService.maximumCatchUps {
                if try syncStep(link, restoringServer: restoringServer, report: &report) { return report }
            }
        } catch {
            if case .journal(let failure) = error.code, case .unreachable = failure.code {
                link.store = nil
                link.lastFailure = .now
            }
            distrustIfLie(link, error)
            throw error
        }
        throw ServiceError(.changedElsewhere)
    }

    /// For the shell while it waits for input: syncs when the server told of other devices'
    /// frames (or the poll interval passed), when frames wait to be sent, or when a read found
    /// the server no longer at the shared head; while offline, tries again every
    /// ``offlineRetry``. Nil when there was nothing to do.
    func syncIfNeeded() throws(ServiceError) -> SyncReport? {
        if let link = session.remote, link.receivedIsUnsaved { try remember(link, shared: link.record.shared) }
        guard let link = session.remote else {
            guard session.remoteURL != nil else { return nil }
            return try sync(restoringServer: false)
        }
        guard let store = link.store else {
            if let failed = link.lastFailure, ContinuousClock.now - failed < Self.offlineRetry { return nil }
            return try sync(restoringServer: false)
        }
        let moved: Bool
        do {
            moved = try store.waitForFrames(after: link.record.shared.sequence, milliseconds: 0)
        } catch {
            link.store = nil
            link.lastFailure = .now
            throw ServiceError(.journal(error))
        }
        // A server now behind or beside what this device shared (restored, or lying) is
        // synced with too: its restore announced and what it lacks sent, or its lie reported.
        guard moved || session.unsentFrames > 0 || store.head != link.record.shared else { return nil }
        return try sync(restoringServer: false)
    }

    /// How often a shell offline tries to reach the server again.
    static let offlineRetry = Duration.seconds(15)

    /// The common case after a change: connected, level with the server at the last sync,
    /// nothing heard from it since. This device's new frames are sent with its head in one
    /// request, and nothing is read (a server that forks or hides frames is caught by the
    /// next sync that reads, as every read checks the chain and the other devices' heads).
    /// The shared head is remembered in memory, written at sign-out, on closing, or by the
    /// next full sync: lost in a crash, the older one it leaves makes the next sync send
    /// frames the server has already, nothing more. False when a full sync must decide.
    /// Never while the server is distrusted (caught lying, and no full sync checked out since),
    /// nor when it announced a restore.
    private func sendOnly(_ link: RemoteLink, report: inout SyncReport) throws(ServiceError) -> Bool {
        guard !link.record.distrusted, let server = link.store, server.head == link.record.shared,
            !serverRestored(link, server)
        else { return false }
        try session.refresh()
        let sealed = try session.requireJournal()
        guard sealed.head.sequence > server.head.sequence else { return false }
        let heard = try remoteCall(link) { () throws(JournalError) in
            try server.waitForFrames(after: server.head.sequence, milliseconds: 0)
        }
        guard !heard else { return false }
        var batch = server.makeBatch()
        try copyFrames(of: sealed.store, after: Int(server.head.sequence), into: &batch)
        guard batch.head == sealed.head else { return false }  // not built on what was shared
        let posting = try headRecord(link, head: batch.head)
        let (outcome, heads) = try remoteCall(link) { () throws(JournalError) in try server.append(batch, posting: posting) }
        guard case .appended(let head) = outcome else { return false }
        report.server = server.name
        report.sent += batch.count
        link.record.shared = head
        link.recordIsUnsaved = true
        if posting != nil { link.postedHead = head }
        // The other devices' heads came with the append: checked against the chain the
        // server now holds, this device's (read again only when one of them moved). A server
        // that says it was restored matched this device's frames up to the base; a full sync
        // now says so and takes its epoch.
        let restored = serverRestored(link, server)
        if session.keyring != nil, heads.filter({ $0.key != link.record.device }) != link.checkedHeads {
            let theirs: [[UInt8]]
            do {
                theirs = try chainHashes(sealed.store)
            } catch {
                throw ServiceError(.journal(error))
            }
            try checkDeviceHeads(heads, link: link, theirs: theirs, restoringServer: restored, report: &report)
        }
        return !restored
    }

    /// Writes what this device remembers of its server, when a send-only sync moved it.
    func saveRemoteRecord() throws(ServiceError) {
        guard let link = session.remote, link.recordIsUnsaved else { return }
        try remember(link, shared: link.record.shared)
    }

    /// One pass: returns true once the journal and the server hold the same frames.
    private func syncStep(_ link: RemoteLink, restoringServer: Bool, report: inout SyncReport) throws(ServiceError) -> Bool {
        try session.refresh()
        let sealed = try session.requireJournal()
        let server = try connect(link, restoringServer: restoringServer, report: &report)
        report.server = server.name
        let ours: [[UInt8]]
        do {
            ours = try chainHashes(sealed.store)
        } catch {
            throw ServiceError(.journal(error))
        }
        // The devices' heads first, then every frame the server holds: a head was posted
        // after its frames were, so an honest server's chain read now holds them all.
        let (heads, theirs) = try remoteCall(link) { () throws(JournalError) in
            let heads = try server.deviceHeads()
            try server.fetch()
            return (heads, try chainHashes(server))
        }
        // A server that announced a restore holds an older state honestly: what this device
        // holds beyond it is sent or merged, not reported.
        let restored = serverRestored(link, server)
        report.serverRestored = report.serverRestored || restored
        let plan = try SyncPlan.decide(
            ours: ours, theirs: theirs, genesis: sealed.header.genesisHash, shared: link.record.shared,
            restoringServer: restoringServer, serverRestored: restored, server: link.location.description)
        try checkDeviceHeads(heads, link: link, theirs: theirs, restoringServer: restoringServer || restored, report: &report)
        let common = Int(plan.common.sequence)
        switch plan.action {
        case .level:
            checkedOut(link, server)
            try remember(link, shared: plan.common)
            try postHead(link, server: server, head: plan.common)
            return true
        case .send:
            var batch = server.makeBatch()
            try copyFrames(of: sealed.store, after: common, into: &batch)
            guard case .appended(let head) = try remoteCall(link, { () throws(JournalError) in try server.append(batch) })
            else { return false }  // another device appended first: read again
            report.sent += batch.count
            // Appended right after the head the server showed: it holds this device's frames.
            checkedOut(link, server)
            try remember(link, shared: head)
            try postHead(link, server: server, head: head)
            return true
        case .receive:
            var batch = sealed.store.makeBatch()
            try copyFrames(of: server, after: common, into: &batch)
            let outcome: AppendOutcome
            do {
                outcome = try sealed.store.append(batch)
            } catch {
                throw ServiceError(.journal(error))
            }
            guard case .appended(let head) = outcome else { return false }  // another process appended: again
            report.received += batch.count
            checkedOut(link, server)
            if session.appliedSequence == plan.common.sequence {
                let incoming = try events(after: plan.common.sequence)
                report.overridden += try overridden(link, upTo: plan.common.sequence, incoming: incoming, state: session.state)
            }
            link.record.received = head.sequence
            // Written after the change is shown: by the shell's next look (25 ms on), or at
            // sign-out, on closing, or by the next sync. The frames are in the journal, fsync'd.
            link.record.shared = head
            link.recordIsUnsaved = true
            link.receivedIsUnsaved = true
            if session.keyring != nil { try session.catchUp() }
            try postHead(link, server: server, head: head)
            return true
        case .merge(let pending):
            try merge(link, server: server, common: plan.common, pendingCount: pending, report: &report)
            return false
        }
    }

    /// This device's frames up to `shared`, the position it last saw the server hold: what
    /// a cursor read starts after. Nil when there are none, or when this device's journal no
    /// longer holds them (then the server's copy is read whole).
    private func sharedFrames(_ store: any FrameStore, shared: JournalHead) throws(ServiceError) -> FrameBatch? {
        guard shared.sequence > 0, shared.sequence <= store.head.sequence else { return nil }
        var batch = FrameBatch(after: JournalHead(sequence: 0, hash: store.header.genesisHash), path: store.name)
        do {
            try store.read(after: 0, progress: nil) { frame in
                if frame.sequence <= shared.sequence { try batch.add(kind: frame.kind, payload: Array(frame.payload)) }
            }
        } catch let error as JournalError {
            throw ServiceError(.journal(error))
        } catch {
            throw ServiceError(sealing: SealingError(error))
        }
        return batch.head == shared ? batch : nil
    }

    /// The server's copy, connecting (or making it, the first push) when not connected.
    private func connect(_ link: RemoteLink, restoringServer: Bool, report: inout SyncReport) throws(ServiceError)
        -> any SharedFrameStore
    {
        if let store = link.store { return store }
        let sealed = try session.requireJournal()
        let known = try sharedFrames(sealed.store, shared: link.record.shared)
        let opened = try remoteCall(link) { () throws(JournalError) in
            if let known { return try link.location.open(journalID: sealed.header.journalID, known: known) }
            return try link.location.open(journalID: sealed.header.journalID)
        }
        let store: any SharedFrameStore
        if let opened {
            store = opened
        } else {
            // No copy there: the first push, or a server that lost it (restored from a backup
            // made before the journal was pushed, when it announces a restore).
            var mayMake = link.record.shared.sequence == 0 || restoringServer
            if !mayMake { mayMake = try lostInARestore(link) }
            guard mayMake else {
                throw ServiceError(
                    .remoteBehind(server: link.location.description, has: 0, shared: link.record.shared.sequence))
            }
            store = try remoteCall(link) { () throws(JournalError) in try link.location.create(header: sealed.header) }
            report.createdOnServer = true
        }
        link.store = store
        link.lastFailure = nil
        return store
    }
}
