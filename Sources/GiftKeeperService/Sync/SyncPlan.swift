import GiftKeeperJournal

/// What a sync does, decided from the two chains alone (SPEC §12): pure, no I/O, no keys.
///
/// The executor (`GiftKeeperService+Sync.swift`) reads this device's chain and the
/// server's, asks ``decide(ours:theirs:genesis:shared:restoringServer:server:)``, and
/// carries the answer out: sends, takes in, or merges. A sync service that replaces the
/// executor's transport keeps this plan.
struct SyncPlan: Equatable {
    enum Action: Equatable {
        /// Both hold the same frames: remember `head` as shared.
        case level
        /// Only this device moved: send its frames after the common ones.
        case send
        /// Only other devices moved: take in the server's frames after the common ones.
        case receive
        /// Both moved: decide this device's frames after the common ones again after the
        /// server's (``GiftList/rebase(_:onto:)``).
        case merge(pending: Int)
    }

    let action: Action
    /// The last frame both hold (sequence 0 with the genesis hash when none).
    let common: JournalHead

    /// The plan for `ours` and `theirs` (each frame's chain hash, in order), refusing a
    /// server that no longer holds what this device saw it hold (`shared`): a different
    /// frame there is a fork or a rewrite; fewer frames is an older backup, refused unless
    /// `restoringServer` (then this device's frames are sent back to it).
    ///
    /// A server that announced a restore (`serverRestored`: its epoch changed since this
    /// device last synced) is not held to what this device saw before it: whatever it holds
    /// is the shared chain now, and this device's frames that are not on it — its own and
    /// other devices' that it saw — are sent (after it) or merged (decided again after it).
    /// - Throws: ``ServiceError/Code/remoteDiverged(server:sequence:shared:)`` or
    ///   ``ServiceError/Code/remoteBehind(server:has:shared:)``, naming `server`.
    static func decide(
        ours: [[UInt8]], theirs: [[UInt8]], genesis: [UInt8], shared: JournalHead, restoringServer: Bool,
        serverRestored: Bool = false, server: String
    ) throws(ServiceError) -> SyncPlan {
        var common = 0
        while common < min(ours.count, theirs.count), ours[common] == theirs[common] { common += 1 }
        if !serverRestored {
            try checkServer(
                ours: ours, theirs: theirs, common: common, shared: shared, restoringServer: restoringServer, server: server)
        }
        let head = JournalHead(sequence: UInt64(common), hash: common == 0 ? genesis : ours[common - 1])
        let action: Action
        switch (common == ours.count, common == theirs.count) {
        case (true, true): action = .level
        case (false, true): action = .send
        case (true, false): action = .receive
        case (false, false): action = .merge(pending: ours.count - common)
        }
        return SyncPlan(action: action, common: head)
    }

    /// Refuses a server that no longer holds what this device saw it hold.
    private static func checkServer(
        ours: [[UInt8]], theirs: [[UInt8]], common: Int, shared: JournalHead, restoringServer: Bool, server: String
    ) throws(ServiceError) {
        let shared = (count: Int(shared.sequence), hash: shared.hash)
        guard shared.count > 0 else { return }
        // What this device saw there: its own frame at that position, or (when this
        // device's file is shorter now, itself restored from a backup) the remembered hash.
        let sawHash = shared.count <= ours.count ? ours[shared.count - 1] : shared.hash
        if theirs.count >= shared.count {
            guard theirs[shared.count - 1] == sawHash else {
                throw ServiceError(
                    .remoteDiverged(
                        server: server, sequence: UInt64(min(common, shared.count - 1) + 1), shared: UInt64(shared.count)))
            }
            return
        }
        // The server holds fewer frames than this device saw: honest only if what it holds
        // is a beginning of this device's journal (an older backup).
        guard common == theirs.count, shared.count <= ours.count else {
            throw ServiceError(.remoteDiverged(server: server, sequence: UInt64(common + 1), shared: UInt64(shared.count)))
        }
        if !restoringServer {
            throw ServiceError(.remoteBehind(server: server, has: UInt64(theirs.count), shared: UInt64(shared.count)))
        }
    }
}
