import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing

/// What every sync checks of a server that is not trusted (SPEC §12), besides what
/// ``SyncPlan`` checks of its chain: that the heads other devices posted lie on it.
extension SyncExecutor {
    /// Compares the chain the server shows this device with the heads the other devices
    /// posted (``AuthenticatedHead``): each must be a frame of it. Needs the keys (signed in);
    /// without them the heads wait for a sync that has them. While restoring a server from
    /// this device, heads beyond what it holds are expected (the frames it lost).
    func checkDeviceHeads(
        _ heads: [[UInt8]: [UInt8]], link: RemoteLink, theirs: [[UInt8]], restoringServer: Bool,
        report: inout SyncReport
    ) throws(ServiceError) {
        guard let keyring = session.keyring, let sealed = session.sealed else { return }
        let server = link.location.description
        var checked = 0
        defer { report.otherDevices = checked }
        let others = heads.filter { $0.key != link.record.device }
        for (device, record) in others {
            let reading = AuthenticatedHead.read(record, journalID: sealed.header.journalID, device: device) { wrap in
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
            let record = try AuthenticatedHead(
                journalID: sealed.header.journalID, device: link.record.device, head: head,
                epochWrapSequence: epoch.wrapSequence
            ).encoded(dataKey: epoch.dataKey)
            return (link.record.device, record)
        } catch {
            throw ServiceError(sealing: SealingError(error))
        }
    }
}
