import GiftKeeperCrypto
public import GiftKeeperDomain
public import GiftKeeperJournal

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
    /// The other devices whose posted heads this sync found in the server's chain (checked
    /// only when signed in; nil when not checked).
    public var otherDevices: Int?
}

/// The server a journal is shared through: where it is, the connection while one is open,
/// and what this device remembers of it.
final class RemoteLink {
    let location: any RemoteLocation
    var record: RemoteRecord
    /// The server's copy, open; nil until connected, and again after a failure.
    var store: (any SharedFrameStore)?
    /// The head this device last posted there (``DeviceHead``).
    var postedHead: JournalHead?
    /// Whether ``record`` moved since it was last written (a send-only sync keeps it in
    /// memory until sign-out, closing, or the next full sync).
    var recordIsUnsaved = false
    /// The other devices' heads as last checked (a send-only sync checks only when they moved).
    var checkedHeads: [[UInt8]: [UInt8]] = [:]
    /// When a connection last failed: while offline, the shell tries again only now and then.
    var lastFailure: ContinuousClock.Instant?

    init(location: any RemoteLocation, record: RemoteRecord) {
        self.location = location
        self.record = record
    }
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
extension GiftKeeperService {
    /// The server the journal is shared through: asked for (`--remote`,
    /// `$GIFTKEEPER_REMOTE`), else remembered for it; nil when there is none.
    public var remoteURL: String? {
        if let remote { return remote.record.url }
        if let requested = environment.requestedRemote, !requested.isEmpty { return requested }
        guard let directory = environment.stateDirectory, let sealed else { return nil }
        return RemoteRecord.read(from: directory, journalID: sealed.header.journalID, journalPath: journalPath)?.url
    }

    /// The journal's last sequence number (0 before any frame, or with no journal).
    public var headSequence: UInt64 { sealed?.head.sequence ?? 0 }

    /// Frames this device holds that it has not yet seen the server hold (0 without a server).
    public var unsentFrames: UInt64 {
        guard let remote, let sealed else { return 0 }
        return sealed.head.sequence > remote.record.shared.sequence ? sealed.head.sequence - remote.record.shared.sequence : 0
    }

    /// Brings the journal and the server's copy level (see the extension's summary): sends
    /// this device's new frames, takes in other devices' (told to ``onChangesElsewhere``),
    /// and merges offline changes when both moved (which needs a signed-in session).
    ///
    /// With `restoringServer`, a server holding fewer frames than this device saw there (a
    /// backup restored) is given this device's frames back instead of being reported.
    /// - Throws: ``ServiceError/Code/noRemote``; ``JournalError/Code/unreachable(reason:)``
    ///   when offline (nothing is lost: the frames wait here); `.remoteBehind`,
    ///   `.remoteDiverged` or `.journal(.corrupt)` for a server that does not hold what it
    ///   should (exit 1).
    @discardableResult
    public func sync(restoringServer: Bool = false) throws(ServiceError) -> SyncReport {
        let link = try requireRemote()
        var report = SyncReport(server: link.location.description)
        do {
            if !restoringServer, try sendOnly(link, report: &report) { return report }
            for _ in 0..<Self.maximumCatchUps {
                if try syncStep(link, restoringServer: restoringServer, report: &report) { return report }
            }
        } catch {
            if case .journal(let failure) = error.code, case .unreachable = failure.code {
                link.store = nil
                link.lastFailure = .now
            }
            throw error
        }
        throw ServiceError(.changedElsewhere)
    }

    /// For the shell while it waits for input: syncs when the server told of other devices'
    /// frames (or the poll interval passed), or when frames wait to be sent; while offline,
    /// tries again every ``offlineRetry``. Nil when there was nothing to do.
    public func syncIfNeeded() throws(ServiceError) -> SyncReport? {
        guard let link = remote else {
            guard remoteURL != nil else { return nil }
            return try sync()
        }
        guard let store = link.store else {
            if let failed = link.lastFailure, ContinuousClock.now - failed < Self.offlineRetry { return nil }
            return try sync()
        }
        let moved: Bool
        do {
            moved = try store.waitForFrames(after: link.record.shared.sequence, milliseconds: 0)
        } catch {
            link.store = nil
            link.lastFailure = .now
            throw ServiceError(.journal(error))
        }
        guard moved || unsentFrames > 0 else { return nil }
        return try sync()
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
    private func sendOnly(_ link: RemoteLink, report: inout SyncReport) throws(ServiceError) -> Bool {
        guard let server = link.store, server.head == link.record.shared else { return false }
        try refresh()
        let sealed = try requireJournal()
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
        report.server = server.path
        report.sent += batch.count
        link.record.shared = head
        link.recordIsUnsaved = true
        if posting != nil { link.postedHead = head }
        // The other devices' heads came with the append: checked against the chain the
        // server now holds, this device's (read again only when one of them moved).
        if keyring != nil, heads.filter({ $0.key != link.record.device }) != link.checkedHeads {
            let theirs: [[UInt8]]
            do {
                theirs = try chainHashes(sealed.store)
            } catch {
                throw ServiceError(.journal(error))
            }
            try checkDeviceHeads(heads, link: link, theirs: theirs, restoringServer: false, report: &report)
        }
        return true
    }

    /// Writes what this device remembers of its server, when a send-only sync moved it.
    func saveRemoteRecord() throws(ServiceError) {
        guard let link = remote, link.recordIsUnsaved else { return }
        try remember(link, shared: link.record.shared)
    }

    /// One pass: returns true once the journal and the server hold the same frames.
    private func syncStep(_ link: RemoteLink, restoringServer: Bool, report: inout SyncReport) throws(ServiceError) -> Bool {
        try refresh()
        let sealed = try requireJournal()
        let server = try connect(link, restoringServer: restoringServer, report: &report)
        report.server = server.path
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
        var common = 0
        while common < min(ours.count, theirs.count), ours[common] == theirs[common] { common += 1 }
        try checkServer(link, ours: ours, theirs: theirs, common: common, restoringServer: restoringServer)
        try checkDeviceHeads(heads, link: link, theirs: theirs, restoringServer: restoringServer, report: &report)
        let commonHead = JournalHead(
            sequence: UInt64(common), hash: common == 0 ? sealed.header.genesisHash : ours[common - 1])

        if common == ours.count, common == theirs.count {
            try remember(link, shared: commonHead)
            try postHead(link, server: server, head: commonHead)
            return true
        }
        if common == theirs.count {
            // Only this device moved: send its frames.
            var batch = server.makeBatch()
            try copyFrames(of: sealed.store, after: common, into: &batch)
            guard case .appended(let head) = try remoteCall(link, { () throws(JournalError) in try server.append(batch) })
            else { return false }  // another device appended first: read again
            report.sent += batch.count
            // Appended right after the head the server showed: it holds this device's frames.
            try remember(link, shared: head)
            try postHead(link, server: server, head: head)
            return true
        }
        if common == ours.count {
            // Only other devices moved: take their frames in.
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
            try remember(link, shared: head)
            if keyring != nil { try catchUp() }
            try postHead(link, server: server, head: head)
            return true
        }
        try merge(link, server: server, common: commonHead, pendingCount: ours.count - common, report: &report)
        return false
    }

    /// The server's copy, connecting (or making it, the first push) when not connected.
    private func connect(_ link: RemoteLink, restoringServer: Bool, report: inout SyncReport) throws(ServiceError)
        -> any SharedFrameStore
    {
        if let store = link.store { return store }
        let sealed = try requireJournal()
        let opened = try remoteCall(link) { () throws(JournalError) in
            try link.location.open(journalID: sealed.header.journalID)
        }
        let store: any SharedFrameStore
        if let opened {
            store = opened
        } else {
            // No copy there: the first push, or a server that lost it.
            guard link.record.shared.sequence == 0 || restoringServer else {
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

    /// Refuses a server that no longer holds what this device saw it hold.
    private func checkServer(
        _ link: RemoteLink, ours: [[UInt8]], theirs: [[UInt8]], common: Int, restoringServer: Bool
    ) throws(ServiceError) {
        let shared = Int(link.record.shared.sequence)
        guard shared > 0 else { return }
        let server = link.location.description
        // What this device saw there: its own frame at that position, or (when this
        // device's file is shorter now, itself restored from a backup) the remembered hash.
        let sawHash = shared <= ours.count ? ours[shared - 1] : link.record.shared.hash
        if theirs.count >= shared {
            guard theirs[shared - 1] == sawHash else {
                throw ServiceError(
                    .remoteDiverged(server: server, sequence: UInt64(min(common, shared - 1) + 1), shared: UInt64(shared)))
            }
            return
        }
        // The server holds fewer frames than this device saw: honest only if what it holds
        // is a beginning of this device's journal (an older backup).
        guard common == theirs.count, shared <= ours.count else {
            throw ServiceError(.remoteDiverged(server: server, sequence: UInt64(common + 1), shared: UInt64(shared)))
        }
        if !restoringServer {
            throw ServiceError(.remoteBehind(server: server, has: UInt64(theirs.count), shared: UInt64(shared)))
        }
    }

    /// Compares the chain the server shows this device with the heads the other devices
    /// posted (``DeviceHead``): each must be a frame of it. Needs the keys (signed in);
    /// without them the heads wait for a sync that has them. While restoring a server from
    /// this device, heads beyond what it holds are expected (the frames it lost).
    private func checkDeviceHeads(
        _ heads: [[UInt8]: [UInt8]], link: RemoteLink, theirs: [[UInt8]], restoringServer: Bool,
        report: inout SyncReport
    ) throws(ServiceError) {
        guard let keyring, let sealed else { return }
        let server = link.location.description
        var checked = 0
        defer { report.otherDevices = checked }
        let others = heads.filter { $0.key != link.record.device }
        for (device, record) in others {
            let reading = DeviceHead.read(record, device: device, journalID: sealed.header.journalID) { wrap in
                keyring.epochs.first { $0.wrapSequence == wrap }?.dataKey
            }
            let head: JournalHead
            switch reading {
            case .unknownLayout:
                continue
            case .forged:
                throw ServiceError(.remoteForgedDeviceHead(server: server))
            case .keyMissing(let unverified):
                // Its epoch's key wrap is a frame at or before its head: one the server does
                // not show is a frame it hides; one it shows is taken in by a later sync.
                guard unverified.epochWrapSequence > UInt64(theirs.count) else { continue }
                head = unverified.head
            case .verified(let verified):
                head = verified.head
            }
            checked += 1
            guard head.sequence > 0 else { continue }
            guard head.sequence <= UInt64(theirs.count) else {
                if restoringServer { continue }
                throw ServiceError(.remoteHidesFrames(server: server, has: UInt64(theirs.count), seenElsewhere: head.sequence))
            }
            guard theirs[Int(head.sequence) - 1] == head.hash else {
                throw ServiceError(.remoteForked(server: server, sequence: head.sequence))
            }
        }
        link.checkedHeads = others
    }

    /// Posts the head this device verified on the server, for the other devices to check
    /// theirs against (once per head; needs the keys).
    private func postHead(_ link: RemoteLink, server: any SharedFrameStore, head: JournalHead) throws(ServiceError) {
        guard link.postedHead != head, let posting = try headRecord(link, head: head) else { return }
        try remoteCall(link) { () throws(JournalError) in try server.postDeviceHead(device: posting.device, record: posting.record) }
        link.postedHead = head
    }

    /// This device's head record for `head`, authenticated under the newest epoch's data
    /// key; nil without the keys (signed out).
    private func headRecord(_ link: RemoteLink, head: JournalHead) throws(ServiceError) -> (device: [UInt8], record: [UInt8])? {
        guard let keyring, let epoch = keyring.newest, let sealed else { return nil }
        do {
            let record = try DeviceHead(
                journalID: sealed.header.journalID, device: link.record.device, head: head,
                epochWrapSequence: epoch.wrapSequence
            ).encoded(dataKey: epoch.dataKey)
            return (link.record.device, record)
        } catch {
            throw ServiceError(.internalFailure("\(error)"))
        }
    }

    /// This device's frames after `common` decided again after the server's, the journal
    /// file replaced by the shared frames plus them (at once), and the session rebuilt on it.
    private func merge(
        _ link: RemoteLink, server: any FrameStore, common: JournalHead, pendingCount: Int, report: inout SyncReport
    ) throws(ServiceError) {
        let sealed = try requireJournal()
        guard let keyring, let epoch = keyring.newest else {
            throw ServiceError(.mergeNeedsSignIn(pending: UInt64(pendingCount)))
        }
        if let newest = sealed.wraps.last, newest.binding.sequence > common.sequence {
            throw ServiceError(.offlinePasswordChangeConflicts)
        }
        let shared = try SealedJournal(store: server)
        guard shared.wraps.count <= keyring.epochs.count else { throw ServiceError(.passwordChangedOnAnotherDevice) }

        var pending: [Event] = []
        try sealed.replay(after: common.sequence, keyring: keyring, progress: nil) { _, event in
            if let event { pending.append(event) }
        }
        var merged = GiftList()
        try sealed.replay(keyring: keyring, progress: nil) { frame, event in
            if frame.sequence > common.sequence { throw ReplayStop() }
            if let event { merged.apply(event) }
        }
        var changes: [HistoryEntry] = []
        try shared.replay(after: common.sequence, keyring: keyring, progress: nil) { frame, event in
            guard let event else { return }
            changes.append(HistoryEntry(sequence: frame.sequence, event: event, isReported: frame.kind == .publicSealed, before: merged))
            merged.apply(event)
        }
        let (events, resolutions) = GiftList.rebase(pending, onto: merged)

        var batch = FrameBatch(after: common, path: sealed.path)
        try copyFrames(of: server, after: Int(common.sequence), into: &batch)
        let received = batch.count
        guard case .appended = try sealed.replaceTail(with: batch, sealing: events, epoch: epoch) else {
            return  // another process appended: again
        }
        try reopenAfterRewrite(keyring: keyring)
        report.received += received
        report.resolutions += resolutions
        if !changes.isEmpty { onChangesElsewhere?(changes) }
    }

    /// Opens the journal again after another process replaced it (``refresh()``): signed
    /// in, the state is rebuilt from it; locked, only the store is opened again.
    func reopenReplacedJournal() throws(ServiceError) {
        if let keyring {
            try reopenAfterRewrite(keyring: keyring)
            return
        }
        let reopened = try SealedJournal(store: try openedAgain())
        sealed = reopened
        failuresSinceLastSuccess = reopened.trailingFailures
    }

    /// The journal's store, opened again (the file now at its path).
    private func openedAgain() throws(ServiceError) -> any FrameStore {
        let store: (any FrameStore)?
        do {
            store = try location.open(access: .readWrite, toleratingDamage: false, progress: nil)
        } catch {
            throw ServiceError(.journal(error))
        }
        guard let store else { throw ServiceError(.noJournal(path: journalPath)) }
        return store
    }

    /// Opens the journal file again after it was replaced, and rebuilds the state from it.
    /// The rollback memory takes the new head (the old one is no longer in the file).
    func reopenAfterRewrite(keyring: Keyring) throws(ServiceError) {
        sealed?.store.endSession()
        let store = try openedAgain()
        let reopened = try SealedJournal(store: store)
        _ = store.beginSession()
        var rebuilt = GiftList()
        rebuilt.reserveCapacity(store.frameCount)
        try reopened.replay(keyring: keyring, progress: nil) { _, event in
            if let event { rebuilt.apply(event) }
        }
        sealed = reopened
        state = rebuilt
        appliedSequence = reopened.head.sequence
        undoable = []
        rememberHead()
    }

    /// The link to the journal's server, made on first use.
    private func requireRemote() throws(ServiceError) -> RemoteLink {
        if let remote { return remote }
        let sealed = try requireJournal()
        guard let url = remoteURL, let open = environment.remoteLocation else { throw ServiceError(.noRemote) }
        let location: any RemoteLocation
        do {
            location = try open(url)
        } catch {
            throw ServiceError(.journal(error))
        }
        let remembered = environment.stateDirectory.flatMap {
            RemoteRecord.read(from: $0, journalID: sealed.header.journalID, journalPath: journalPath)
        }
        let record =
            try remembered?.url == url
            ? remembered!.withDeviceID() : RemoteRecord.new(url: url, shared: JournalHead(sequence: 0, hash: sealed.header.genesisHash))
        let link = RemoteLink(location: location, record: record)
        remote = link
        return link
    }

    /// Remembers `shared` as the position this device last saw the server hold.
    private func remember(_ link: RemoteLink, shared: JournalHead) throws(ServiceError) {
        link.record.shared = shared
        link.recordIsUnsaved = false
        guard let directory = environment.stateDirectory, let sealed else { return }
        try link.record.write(to: directory, journalID: sealed.header.journalID, journalPath: journalPath)
    }

    /// Runs a call to the server; a failure drops the connection (the next sync connects again).
    private func remoteCall<T>(_ link: RemoteLink, _ body: () throws(JournalError) -> T) throws(ServiceError) -> T {
        do {
            return try body()
        } catch {
            link.store = nil
            if case .unreachable = error.code { link.lastFailure = .now }
            throw ServiceError(.journal(error))
        }
    }
}

/// The hash of each frame of `store`, in order (index i holds frame i + 1's).
func chainHashes(_ store: any FrameStore) throws(JournalError) -> [[UInt8]] {
    var hashes: [[UInt8]] = []
    hashes.reserveCapacity(store.frameCount)
    do {
        try store.read(after: 0, progress: nil) { frame in
            if frame.sequence > 1 { hashes.append(Array(frame.previousHash)) }
        }
    } catch let error as JournalError {
        throw error
    } catch {
        throw JournalError(.io(operation: "read", errno: 5), path: store.path)
    }
    if store.head.sequence > 0 { hashes.append(store.head.hash) }
    return hashes
}

/// Adds `store`'s frames after `sequence` to `batch` as they are: the same kinds and
/// payloads at the same positions after the same hashes make the same bytes.
func copyFrames(of store: any FrameStore, after sequence: Int, into batch: inout FrameBatch) throws(ServiceError) {
    do {
        try store.read(after: UInt64(sequence), progress: nil) { frame in
            try batch.add(kind: frame.kind, payload: Array(frame.payload))
        }
    } catch let error as JournalError {
        throw ServiceError(.journal(error))
    } catch {
        throw ServiceError(.internalFailure("\(error)"))
    }
}

/// What `clone` made.
public struct CloneReport: Sendable, Equatable {
    public let server: String
    /// The journal's id in hex (the part after `#` that names it on a server holding several).
    public let journalID: String
    public let frames: Int
}

extension GiftKeeperService {
    /// `giftkeeper clone URL --journal PATH`: makes this device's copy of a journal another
    /// device pushed to the server at `url` (`postgres://…`, with `#<id>` — the first hex
    /// digits of its id — when the server holds several). Every frame is verified against
    /// the chain on the way; the copy pins the journal's id and first frame, which every
    /// later sync compares the server with. No key is needed: sign in afterwards with the
    /// journal's password.
    /// - Throws: ``ServiceError/Code/journalExists(path:)`` when `path` exists;
    ///   `.cloneNeedsJournal` when the URL names no journal the server holds, or several.
    public static func clone(url: String, to path: String, environment: ServiceEnvironment) throws(ServiceError)
        -> CloneReport
    {
        guard let open = environment.remoteLocation else { throw ServiceError(.noRemote) }
        let parts = url.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let base = String(parts[0])
        let wanted = parts.count > 1 ? parts[1].lowercased() : ""
        let location: any RemoteLocation
        let ids: [[UInt8]]
        do {
            location = try open(base)
            ids = try location.journalIDs()
        } catch {
            throw ServiceError(.journal(error))
        }
        let matching = ids.filter { hexString($0).hasPrefix(wanted) }
        guard matching.count == 1, let journalID = matching.first else {
            throw ServiceError(
                .cloneNeedsJournal(server: location.description, found: matching.map { base + "#" + hexString($0.prefix(4)) }))
        }
        let server: (any SharedFrameStore)?
        do {
            server = try location.open(journalID: journalID)
        } catch {
            throw ServiceError(.journal(error))
        }
        guard let server else { throw ServiceError(.cloneNeedsJournal(server: location.description, found: [])) }
        var batch = FrameBatch(after: JournalHead(sequence: 0, hash: server.header.genesisHash), path: path)
        try copyFrames(of: server, after: 0, into: &batch)
        let copy: Journal
        do {
            copy = try Journal.createCopy(at: path, header: server.header, frames: batch)
        } catch {
            if error.code == .alreadyExists { throw ServiceError(.journalExists(path: path)) }
            throw ServiceError(.journal(error))
        }
        if let directory = environment.stateDirectory {
            try RemoteRecord.new(url: base, shared: copy.head).write(to: directory, journalID: journalID, journalPath: path)
        }
        return CloneReport(server: location.description, journalID: hexString(journalID), frames: batch.count)
    }
}
