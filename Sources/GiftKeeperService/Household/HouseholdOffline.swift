import GiftKeeperFiles
package import GiftKeeperJournal

/// Where a member's offline work waits (docs/threat-model.md, "Offline work and merge in a
/// household"): beside the device's copy (``HouseholdCopy``), a household journal of its
/// own (mode 0600) holding the copy's frames and after them this member's pending ones,
/// sealed and signed as any. The copy is left as the service sent it, so the two part at
/// the shared head the pending work was decided at (``base(pending:copy:)``).
package enum HouseholdOffline {
    /// The journal to work in offline: the pending file at `pending` when it is one of the
    /// copy's journal, else a new one made from the copy at `copy`; nil without a copy.
    package static func open(copy: String, pending: String) throws -> (any FrameStore)? {
        guard let shared = try? Journal.open(at: copy, access: .readOnly) else { return nil }
        if let journal = try? Journal.open(at: pending, access: .readWrite), journal.header.journalID == shared.header.journalID {
            return journal
        }
        try? FileSystem.unlink(pending)
        return try Journal.createCopy(at: pending, header: shared.header, frames: try shared.frames())
    }

    /// Whether offline work may be waiting at `pending`.
    package static func isWaiting(_ pending: String) -> Bool {
        (try? Journal.open(at: pending, access: .readOnly)) != nil
    }

    /// The last position at which the journals at `pending` and `copy` hold the same frame
    /// (the shared head the pending frames follow); nil when they share none.
    package static func base(pending: any FrameStore, copy: String) throws -> UInt64? {
        let shared = try Journal.open(at: copy, access: .readOnly)
        guard shared.header.journalID == pending.header.journalID else { return nil }
        var hashes: [UInt64: [UInt8]] = [shared.head.sequence: shared.head.hash]
        try shared.read(after: 0, progress: nil) { hashes[$0.sequence - 1] = Array($0.previousHash) }
        var base: UInt64?
        func compare(_ sequence: UInt64, _ hash: [UInt8]) {
            if hashes[sequence] == hash { base = max(base ?? 0, sequence) }
        }
        try pending.read(after: 0, progress: nil) { compare($0.sequence - 1, Array($0.previousHash)) }
        compare(pending.head.sequence, pending.head.hash)
        return base
    }

    /// Forgets the pending work at `pending` (sent, or there was none).
    package static func discard(_ pending: String) {
        try? FileSystem.unlink(pending)
    }
}
