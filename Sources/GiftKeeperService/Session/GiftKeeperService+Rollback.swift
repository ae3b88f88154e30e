import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing

/// The rollback memory (SPEC §5): the head remembered on this machine after each session,
/// compared with the journal at every sign-in.
extension GiftKeeperService {
    /// Replays and authenticates every frame into a fresh state, then compares the journal
    /// with the remembered head: a rollback found is announced and kept in ``rollbackFinding``.
    ///
    /// Another process of this device may have appended, or replaced the journal (a sync's
    /// merge), and remembered its head since this one opened it: a finding stands only if
    /// the comparison made again under the journal's lock, on the journal at its place now,
    /// finds it too (every writer of the memory holds that lock while it writes).
    func foldCheckingRollback(_ sealed: SealedJournal, keyring: Keyring) throws(ServiceError) -> GiftList {
        let keys = AccountKeys(session: self)
        var (state, finding) = try keys.fold(sealed, keyring: keyring)
        if finding != nil, let again = try keys.foldAgainUnderLock(keyring: keyring) { (state, finding) = again }
        rollbackFinding = finding ?? (findingBeforeUnlocking == .journalReplaced ? .journalReplaced : nil)
        if let rollbackFinding { notify(rollbackFinding.notification) }
        return state
    }

    /// Remembers the current head; a failure here is not fatal (the journal is intact).
    ///
    /// Never while a rollback found at sign-in stands: the remembered head is the evidence,
    /// and overwriting it with this older or other history would silence the warning.
    /// Written under the journal's lock, and only while the journal at its place is still
    /// this session's: a head of a journal another process of this device has since
    /// replaced (a sync's merge, which remembers its own) would be a false rollback at the
    /// next sign-in.
    func rememberHead() {
        guard rollbackFinding == nil, let sealed, let local, let epoch = keyring?.newest else { return }
        // This journal is now the one this machine knows at this path.
        let remembered = try? local.whileCurrent { memory.remember(sealed, epoch: epoch) }
        if remembered == true { findingBeforeUnlocking = nil }
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
