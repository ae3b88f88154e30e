import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing

/// Taking in a journal another process's sync replaced (it merged this device's changes with
/// another device's and put the merged journal in place, SPEC §12): the session's store is
/// opened again and, signed in, its state rebuilt from it.
extension SyncExecutor {
    /// Opens the journal again after another process replaced it (seen by
    /// ``GiftKeeperService/refresh()`` or an append): signed in, the state is rebuilt from
    /// it; locked, only the store is opened again.
    func reopenReplacedJournal() throws(ServiceError) {
        if let keyring = session.keyring {
            try reopenAfterRewrite(keyring: keyring)
            return
        }
        let store = try openedAgain()
        let reopened = try sealing { try SealedJournal(store: store) }
        session.sealed = reopened
        session.failuresSinceLastSuccess = reopened.trailingFailures
    }

    /// The journal's store, opened again (the file now at its path).
    func openedAgain() throws(ServiceError) -> any LocalFrameStore {
        let store: (any LocalFrameStore)?
        do {
            store = try session.location.open(access: .readWrite, toleratingDamage: false, progress: nil)
        } catch {
            throw ServiceError(.journal(error))
        }
        guard let store else { throw ServiceError(.noJournal(path: session.journalPath)) }
        return store
    }

    /// Opens the journal file again after it was replaced, and rebuilds the state from it.
    /// The rollback memory takes the new head (the old one is no longer in the file).
    func reopenAfterRewrite(keyring: Keyring) throws(ServiceError) {
        session.local?.endSession()
        let store = try openedAgain()
        let reopened = try sealing { try SealedJournal(store: store) }
        _ = store.beginSession()
        var rebuilt = GiftList()
        rebuilt.reserveCapacity(store.frameCount)
        try reopened.replaying(keyring: keyring, progress: nil) { _, event in
            if let event { rebuilt.apply(event) }
        }
        session.sealed = reopened
        session.state = rebuilt
        session.appliedSequence = reopened.head.sequence
        session.undoable = []
        session.redoable = []
        session.rememberHead()
    }
}
