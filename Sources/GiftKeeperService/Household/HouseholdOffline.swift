import GiftKeeperFiles
package import GiftKeeperJournal

/// Where a member's offline work waits (docs/threat-model.md, "Offline work and merge in a
/// household"): beside the device's copy (``HouseholdCopy``), a household journal of its
/// own (mode 0600) holding the copy's frames and after them this member's pending ones,
/// sealed and signed as any. The copy is left as the service sent it, so the two part at
/// the shared head the pending work was decided at (``base(pending:copy:)``).
package enum HouseholdOffline {
    /// The journal to work in offline and the shared head its pending frames follow: the
    /// pending file at `pending` when it is one of the copy's journal, else a new one made
    /// from the copy at `copy` (nothing pending); nil without a copy. Each file is opened once.
    package static func open(copy: String, pending: String) throws -> (store: any FrameStore, base: UInt64)? {
        guard let shared = try? Journal.open(at: copy, access: .readOnly) else { return nil }
        if let journal = try? Journal.open(at: pending, access: .readWrite), journal.header.journalID == shared.header.journalID {
            return (journal, try base(pending: journal, copy: shared))
        }
        try? FileSystem.unlink(pending)
        return (try Journal.createCopy(at: pending, header: shared.header, frames: try shared.frames()), shared.head.sequence)
    }

    /// Whether offline work may be waiting at `pending` (a file there; it is read when signing in).
    package static func isWaiting(_ pending: String) -> Bool {
        (try? FileSystem.linkStatus(pending)) != nil
    }

    /// The last position at which `pending` and `copy` (of one journal) hold the same frame:
    /// the same chain hash there, so the same frames up to it. Most often the copy is as it
    /// was when the pending work began, and the pending frames follow its head: one walk of
    /// the pending file to the frame after it. Else (the copy took frames in since, or was
    /// replaced) every position of both is compared.
    package static func base(pending: any FrameStore, copy: any FrameStore) throws -> UInt64 {
        if try hash(in: pending, at: copy.head.sequence) == copy.head.hash { return copy.head.sequence }
        // hashes[k]: the copy's chain hash at position k (``chainHashes(_:)`` from position 1).
        let hashes = [copy.header.genesisHash] + (try chainHashes(copy))
        func same(_ sequence: UInt64, _ hash: [UInt8]) -> Bool {
            sequence < hashes.count && hashes[Int(sequence)] == hash
        }
        var base: UInt64 = 0
        do {
            try pending.read(after: 0, progress: nil) { frame in
                guard same(frame.sequence - 1, Array(frame.previousHash)) else { throw Parted() }
                base = frame.sequence - 1
            }
            if same(pending.head.sequence, pending.head.hash) { base = pending.head.sequence }
        } catch is Parted {}
        return base
    }

    /// The chain hash of `store` at position `sequence`; nil past its head.
    private static func hash(in store: any FrameStore, at sequence: UInt64) throws -> [UInt8]? {
        guard store.head.sequence != sequence else { return store.head.hash }
        var found: [UInt8]?
        do {
            try store.read(after: sequence, progress: nil) { frame in
                found = Array(frame.previousHash)
                throw Parted()
            }
        } catch is Parted {}
        return found
    }

    /// Stops a walk.
    private struct Parted: Error {}

    /// Forgets the pending work at `pending` (sent, or there was none).
    package static func discard(_ pending: String) {
        try? FileSystem.unlink(pending)
    }
}
