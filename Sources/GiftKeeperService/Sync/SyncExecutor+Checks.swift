import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing

/// What every sync checks of a server that is not trusted (SPEC §12), besides what
/// ``SyncPlan`` checks of its chain: that the heads other devices posted, and what they saw
/// of each other, lie on it, and that it hides no device's progress.
extension SyncExecutor {
    /// Compares the chain the server shows this device with the heads the other devices
    /// posted (``AuthenticatedHead``): each must be a frame of it, and so must each head a
    /// device posted it had seen of another. No device's head may be older than one another
    /// device saw it post, or than this device verified before (``RemoteRecord/seen``): the
    /// server would be hiding that device's progress (checked against a server with epochs,
    /// which keeps each device's newest head). Needs the keys (signed in); without
    /// them the heads wait for a sync that has them. While restoring a server from this
    /// device, or after a restore the server announced, heads beyond what it holds are
    /// expected (the frames it lost), and older heads too.
    func checkDeviceHeads(
        _ heads: [[UInt8]: [UInt8]], link: RemoteLink, theirs: [[UInt8]], restoringServer: Bool,
        report: inout SyncReport
    ) throws(ServiceError) {
        guard let keyring = session.keyring, let sealed = session.sealed else { return }
        let server = link.location.description
        var checked = 0
        defer { report.otherDevices = checked }
        let others = heads.filter { $0.key != link.record.device }
        var shown: [[UInt8]: UInt64] = [:]
        var unreadable: Set<[UInt8]> = []
        var verifiedHeads: [[UInt8]: JournalHead] = [:]
        var seen: [AuthenticatedHead.SeenHead] = []
        for (device, record) in others {
            let reading = AuthenticatedHead.read(record, journalID: sealed.header.journalID, device: device) { wrap in
                keyring.epochs.first { $0.wrapSequence == wrap }?.dataKey
            }
            let head: JournalHead
            switch reading {
            case .unknownLayout:
                unreadable.insert(device)
                continue
            case .forged:
                throw ServiceError(.remoteForgedDeviceHead(server: server))
            case .keyMissing(let unverified):
                // Its epoch's key wrap is a frame at or before its head: one the server does
                // not show is a frame it hides; one it shows is taken in by a later sync.
                unreadable.insert(device)
                guard unverified.epochWrapSequence > UInt64(theirs.count) else { continue }
                head = unverified.head
            case .verified(let verified):
                head = verified.head
                seen += verified.seen
            }
            checked += 1
            shown[device] = head.sequence
            guard try isOnChain(head, theirs: theirs, restoringServer: restoringServer, server: server) else { continue }
            if case .verified = reading { verifiedHeads[device] = head }
        }
        for view in seen {
            _ = try isOnChain(view.head, theirs: theirs, restoringServer: restoringServer, server: server)
        }
        // Only a server with epochs (the sync service) promises to keep each device's newest
        // head; a database two processes of one device post to directly may hold an older one.
        if !restoringServer, link.store?.epoch != nil {
            let remembered = link.record.seen.map { AuthenticatedHead.SeenHead(device: $0.key, head: $0.value) }
            for view in seen + remembered where view.device != link.record.device && !unreadable.contains(view.device) {
                let current = shown[view.device] ?? 0
                guard current >= view.head.sequence else {
                    throw ServiceError(.remoteHidesProgress(server: server, shown: current, seenElsewhere: view.head.sequence))
                }
            }
        }
        link.checkedHeads = others
        link.record.seen = verifiedHeads
    }

    /// Whether `head` is a frame of the chain the server shows (`theirs`); false for a head
    /// beyond it while restoring (expected then).
    /// - Throws: `.remoteHidesFrames` for a head beyond it, `.remoteForked` for another frame there.
    private func isOnChain(_ head: JournalHead, theirs: [[UInt8]], restoringServer: Bool, server: String) throws(ServiceError)
        -> Bool
    {
        guard head.sequence > 0 else { return true }
        guard head.sequence <= UInt64(theirs.count) else {
            if restoringServer { return false }
            throw ServiceError(.remoteHidesFrames(server: server, has: UInt64(theirs.count), seenElsewhere: head.sequence))
        }
        guard theirs[Int(head.sequence) - 1] == head.hash else {
            throw ServiceError(.remoteForked(server: server, sequence: head.sequence))
        }
        return true
    }

    /// Posts the head this device verified on the server, for the other devices to check
    /// theirs against (once per head; needs the keys).
    func postHead(_ link: RemoteLink, server: any SharedFrameStore, head: JournalHead) throws(ServiceError) {
        guard link.postedHead != head, let posting = try headRecord(link, head: head) else { return }
        try remoteCall(link) { () throws(JournalError) in try server.postDeviceHead(device: posting.device, record: posting.record) }
        link.postedHead = head
    }

    /// This device's head record for `head`, authenticated under the newest epoch's data
    /// key; nil without the keys (signed out).
    func headRecord(_ link: RemoteLink, head: JournalHead) throws(ServiceError) -> (device: [UInt8], record: [UInt8])? {
        guard let keyring = session.keyring, let epoch = keyring.newest, let sealed = session.sealed else { return nil }
        do {
            let seen = link.record.seen.sorted { $0.key.lexicographicallyPrecedes($1.key) }
                .map { AuthenticatedHead.SeenHead(device: $0.key, head: $0.value) }
            let record = try AuthenticatedHead(
                journalID: sealed.header.journalID, device: link.record.device, head: head,
                epochWrapSequence: epoch.wrapSequence, seen: seen
            ).encoded(dataKey: epoch.dataKey)
            return (link.record.device, record)
        } catch {
            throw ServiceError(sealing: SealingError(error))
        }
    }
}
