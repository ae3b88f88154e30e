package import GiftKeeperDomain
import GiftKeeperJournal
package import GiftKeeperSealing

/// A change a member made offline (docs/threat-model.md, "Offline work and merge in a
/// household"): its events as they were decided on the device's copy, and whether it was
/// sealed for its author alone (kept so: a narrower audience never spoils a surprise), and
/// what it carries when sent: where it came from (``ReplayMark``), so it is sent once.
package struct PendingChange: Sendable {
    package let events: [Event]
    package let privately: Bool
    package let mark: ReplayMark?

    package init(events: [Event], privately: Bool, mark: ReplayMark? = nil) {
        self.events = events
        self.privately = privately
        self.mark = mark
    }
}

extension HouseholdSession {
    /// This member's changes after position `base` (the shared head their offline work was
    /// decided at), oldest first: one change per run of their events with one audience and
    /// one time, marked with its last frame's chain hash here (``ReplayMark``). Their name
    /// signed again offline is left out (the shared chain gets it when they catch up there,
    /// if it needs it).
    package func pendingChanges(after base: UInt64) throws(HouseholdSessionError) -> [PendingChange] {
        var changes: [(events: [Event], audience: Audience, last: UInt64)] = []
        for entry in directory.entries where entry.sequence > base && entry.author == id {
            let (event, audience) = (entry.event, entry.audience)
            if let last = changes.last, last.audience == audience, last.events.last?.at == event.at {
                changes[changes.count - 1].events.append(event)
                changes[changes.count - 1].last = entry.sequence
            } else {
                changes.append(([event], audience, entry.sequence))
            }
        }
        let hashes = try chainHashes(after: base)
        return changes.filter {
            if case .accountCreated = $0.events.first?.body { return false }
            return true
        }.map { change in
            let mark = hashes[change.last].map { ReplayMark(origin: $0, base: base) }
            return PendingChange(events: change.events, privately: change.audience == .only(id), mark: mark)
        }
    }

    /// The chain hash of each frame after `sequence` in this session's store, by position.
    private func chainHashes(after sequence: UInt64) throws(HouseholdSessionError) -> [UInt64: [UInt8]] {
        let store = member.store
        var hashes = [store.head.sequence: store.head.hash]
        do {
            try store.read(after: sequence, progress: nil) { hashes[$0.sequence - 1] = Array($0.previousHash) }
        } catch {
            throw .household(.sealing(SealingError(error)))
        }
        return hashes
    }

    /// Sends `pending` (``pendingChanges(after:)`` of this member's offline session), each
    /// change decided again on this member's state at the shared head as a person's offline
    /// work is (``GiftList/rebase(_:onto:hiddenThrough:renumbering:)``: numbers up to the head
    /// count as taken, since this member does not see every one), sealed for the audience the
    /// rule gives it there and signed at its new position; what the rebase changed, in order,
    /// to be told. A change whose mark this member's own events in the shared journal carry
    /// went before (its answer lost, or another process of this device sent it): it is not
    /// sent again, and the later changes follow the ids it was given. A member removed
    /// meanwhile sends nothing (``HouseholdError/notAMember``).
    package func replay(_ pending: [PendingChange]) throws(HouseholdSessionError) -> [Resolution] {
        var renumbering = GiftList.Renumbering()
        var told: [Resolution] = []
        try catchUp()
        guard isMember || pending.isEmpty else { throw .household(.notAMember) }
        for change in pending {
            var sent = false
            for _ in 0..<HouseholdMember.attempts where !sent {
                try catchUp()
                if let mark = change.mark, let events = directory.sent(mark, by: id) {
                    renumbering.learn(pending: change.events, sent: events)
                    sent = true
                    continue
                }
                let head = member.store.head
                var carried = renumbering
                let (events, resolutions) = GiftList.rebase(
                    change.events, onto: member.state.numbering(from: head.sequence + 1), hiddenThrough: head.sequence,
                    renumbering: &carried)
                if !events.isEmpty {
                    let unnamed = Set(member.keyring.members.ids.filter { directory.names[$0] == nil })
                    let audience = HouseholdAudiences.audience(
                        of: events, privately: change.privately, me: id, members: directory.current, unnamed: unnamed,
                        state: member.state)
                    let recorded = try Self.household { () throws(HouseholdError) in
                        try member.record(events, for: audience, decidedAt: head, replaying: change.mark)
                    }
                    guard recorded else { continue }
                }
                (sent, renumbering) = (true, carried)
                told += resolutions
            }
            guard sent else { throw .household(.busy) }
        }
        return told
    }
}
