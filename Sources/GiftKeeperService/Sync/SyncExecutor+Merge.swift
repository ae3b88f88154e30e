import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing

/// Offline changes decided again after other devices' (SPEC §12), and what a sync does
/// with the journal file and the server link.
extension SyncExecutor {
    /// This device's frames after `common` decided again after the server's, the journal
    /// file replaced by the shared frames plus them (at once), and the session rebuilt on it.
    func merge(
        _ link: RemoteLink, server: any FrameStore, common: JournalHead, pendingCount: Int, report: inout SyncReport
    ) throws(ServiceError) {
        let sealed = try session.requireJournal()
        guard let keyring = session.keyring, let epoch = keyring.newest else {
            throw ServiceError(.mergeNeedsSignIn(pending: UInt64(pendingCount)))
        }
        if let newest = sealed.wraps.last, newest.binding.sequence > common.sequence {
            throw ServiceError(.offlinePasswordChangeConflicts)
        }
        let shared = try sealing { try SealedJournal(store: server) }
        guard shared.wraps.count <= keyring.epochs.count else { throw ServiceError(.passwordChangedOnAnotherDevice) }

        var pending: [Event] = []
        try sealed.replaying(after: common.sequence, keyring: keyring, progress: nil) { _, event in
            if let event { pending.append(event) }
        }
        var merged = GiftList()
        try sealed.replaying(keyring: keyring, progress: nil) { frame, event in
            if frame.sequence > common.sequence { throw ReplayStop() }
            if let event { merged.apply(event) }
        }
        let atCommon = merged
        var changes: [HistoryEntry] = []
        try shared.replaying(after: common.sequence, keyring: keyring, progress: nil) { frame, event in
            guard let event else { return }
            changes.append(HistoryEntry(sequence: frame.sequence, event: event, isReported: frame.kind == .publicSealed, before: merged))
            merged.apply(event)
        }
        let (events, resolutions) = GiftList.rebase(pending, onto: merged)

        var batch = FrameBatch(after: common, path: sealed.path)
        try copyFrames(of: server, after: Int(common.sequence), into: &batch)
        let received = batch.count
        let replaced = try sealing {
            try sealed.replaceTail(with: batch, sealing: events, epoch: epoch) { head in
                // What this device remembers of the journal moves with its frames, before
                // another process can see them (a false rollback otherwise).
                if session.rollbackFinding == nil {
                    _ = session.memory.remember(journalID: sealed.header.journalID, head: head, epoch: epoch)
                }
            }
        }
        guard case .appended = replaced else { return }  // another process appended: again
        try reopenAfterRewrite(keyring: keyring)
        report.received += received
        report.resolutions += resolutions
        report.overridden += try overridden(
            link, upTo: common.sequence, incoming: changes.compactMap(\.event), state: atCommon)
        link.record.received = common.sequence + UInt64(received)
        if !changes.isEmpty { session.onChangesElsewhere?(changes) }
    }

    /// The link to the journal's server, made on first use.
    func requireRemote() throws(ServiceError) -> RemoteLink {
        if let remote = session.remote { return remote }
        let sealed = try session.requireJournal()
        guard let url = session.remoteURL, let open = session.environment.remoteLocation else { throw ServiceError(.noRemote) }
        let location: any RemoteLocation
        do {
            location = try open(url)
        } catch {
            throw ServiceError(.journal(error))
        }
        let remembered = session.environment.stateDirectory.flatMap {
            RemoteRecord.read(from: $0, journalID: sealed.header.journalID, journalPath: session.journalPath)
        }
        let record: RemoteRecord
        if let remembered, remembered.url == url {
            record = try remembered.withDeviceID()
        } else {
            record = try RemoteRecord.new(url: url, shared: JournalHead(sequence: 0, hash: sealed.header.genesisHash))
        }
        // What opens this device's key there (signed in); a key file it cannot bring up to
        // date now is said by the first request that needs the key.
        try? location.useDeviceKey(session.deviceAccess)
        let link = RemoteLink(location: location, record: record)
        session.remote = link
        return link
    }

    /// Remembers `shared` as the position this device last saw the server hold.
    func remember(_ link: RemoteLink, shared: JournalHead) throws(ServiceError) {
        link.record.shared = shared
        link.recordIsUnsaved = false
        link.receivedIsUnsaved = false
        guard let directory = session.environment.stateDirectory, let sealed = session.sealed else { return }
        try link.record.write(to: directory, journalID: sealed.header.journalID, journalPath: session.journalPath)
    }

    /// Runs a call to the server; a failure drops the connection (the next sync connects again).
    func remoteCall<T>(_ link: RemoteLink, _ body: () throws(JournalError) -> T) throws(ServiceError) -> T {
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
        throw JournalError(.io(operation: "read", errno: 5), path: store.name)
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
        throw ServiceError(sealing: SealingError(error))
    }
}
