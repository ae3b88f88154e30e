import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing

/// What a sync tells the device whose change lost (SPEC §12): its own changes since it last
/// took in other devices' frames (``RemoteRecord/received``) that the frames it takes in
/// now undo, each with what won (``GiftList/overridden(own:by:state:)``).
extension SyncExecutor {
    /// This device's own changes (its frames after ``RemoteRecord/received``, up to
    /// `upTo`) that `incoming` (other devices' changes after them, on `state`) undid. Needs
    /// the keys: without them nothing is told (and nothing is kept to tell later).
    func overridden(_ link: RemoteLink, upTo: UInt64, incoming: [Event], state: GiftList) throws(ServiceError)
        -> [OverriddenChange]
    {
        guard let keyring = session.keyring, let sealed = session.sealed, !incoming.isEmpty else { return [] }
        let end = min(upTo, link.record.shared.sequence)
        guard link.record.received < end else { return [] }
        var own: [Event] = []
        try sealed.replaying(after: link.record.received, keyring: keyring, progress: nil) { frame, event in
            if frame.sequence > end { throw ReplayStop() }
            if let event { own.append(event) }
        }
        return GiftList.overridden(own: own, by: incoming, state: state)
    }

    /// The events of this device's journal after `sequence`, opened with the session's keys
    /// (none without them).
    func events(after sequence: UInt64) throws(ServiceError) -> [Event] {
        guard let keyring = session.keyring, let sealed = session.sealed else { return [] }
        var events: [Event] = []
        try sealed.replaying(after: sequence, keyring: keyring, progress: nil) { _, event in
            if let event { events.append(event) }
        }
        return events
    }
}
