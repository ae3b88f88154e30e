import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing

/// The rollback memory (SPEC §5): the head remembered on this machine after each session,
/// compared with the journal at every sign-in.
extension GiftKeeperService {
    /// Replays and authenticates every frame into a fresh state, then compares the journal
    /// with the remembered head: a rollback found is announced and kept in ``rollbackFinding``.
    func foldCheckingRollback(_ sealed: SealedJournal, keyring: Keyring) throws(ServiceError) -> GiftList {
        var state = GiftList()
        state.reserveCapacity(sealed.store.frameCount)
        var check = RollbackCheck(memory.remembered(sealed, keyring: keyring), failures: memory.rememberedFailures(sealed))
        try sealed.replaying(keyring: keyring, progress: onProgress) { frame, event in
            check.observe(frame)
            if let event { state.apply(event) }
        }
        rollbackFinding =
            check.finding(lastSequence: sealed.head.sequence, headHash: sealed.head.hash)
            ?? (findingBeforeUnlocking == .journalReplaced ? .journalReplaced : nil)
        if let rollbackFinding { notify(rollbackFinding.notification) }
        return state
    }

    /// Remembers the current head; a failure here is not fatal (the journal is intact).
    ///
    /// Never while a rollback found at sign-in stands: the remembered head is the evidence,
    /// and overwriting it with this older or other history would silence the warning.
    func rememberHead() {
        guard rollbackFinding == nil, let sealed, let epoch = keyring?.newest else { return }
        // This journal is now the one this machine knows at this path.
        if memory.remember(sealed, epoch: epoch) { findingBeforeUnlocking = nil }
    }

    /// After a change the user made: when a rollback warning stands and this session may
    /// accept it (``acceptsRollbackOnChange``), the journal as it is now becomes the one
    /// remembered, and the warning stops.
    func acceptRollbackAfterChange() {
        guard rollbackFinding != nil, acceptsRollbackOnChange else { return }
        rollbackFinding = nil
        rememberHead()
        notify(.rollbackAccepted)
    }
}
