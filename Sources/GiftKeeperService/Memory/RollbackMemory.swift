import GiftKeeperJournal
import GiftKeeperSealing

/// The rollback memory of the journal at one path on this machine (SPEC §5): the head
/// written after each session, read back at sign-in and compared with the journal
/// (``RollbackCheck``). Said once a session when it cannot be kept: silently losing it
/// would silently lose rollback detection.
final class RollbackMemory {
    let directory: String?
    let journalPath: String
    private let tell: (LoginNotification) -> Void
    private var saidUnavailable = false

    init(directory: String?, journalPath: String, tell: @escaping (LoginNotification) -> Void) {
        self.directory = directory
        self.journalPath = journalPath
        self.tell = tell
    }

    /// The head remembered for `sealed`'s journal, authenticated under `keyring`; nil when
    /// there is none (or none readable, which is said).
    func remembered(_ sealed: SealedJournal, keyring: Keyring) -> AuthenticatedHead.Reading? {
        guard let directory else { return nil }
        let journalID = sealed.header.journalID
        let result = HeadMemory.read(from: directory, journalID: journalID, journalPath: journalPath) { wrapSequence in
            keyring.epochs.first { $0.wrapSequence == wrapSequence }?.dataKey
        }
        if result == nil, HeadMemory.somethingElseIsThere(in: directory, journalID: journalID, journalPath: journalPath) {
            unavailable(directory)
        }
        return result
    }

    /// Writes `sealed`'s head under `epoch`, and forgets any other journal remembered at
    /// this path; false when it could not be written (which is said).
    func remember(_ sealed: SealedJournal, epoch: Keyring.Epoch) -> Bool {
        remember(journalID: sealed.header.journalID, head: sealed.head, epoch: epoch)
    }

    /// Writes `head` of journal `journalID` under `epoch` (``remember(_:epoch:)``).
    func remember(journalID: [UInt8], head: JournalHead, epoch: Keyring.Epoch) -> Bool {
        guard let directory else { return false }
        let head = AuthenticatedHead(journalID: journalID, device: nil, head: head, epochWrapSequence: epoch.wrapSequence)
        do {
            try HeadMemory.write(head, to: directory, journalPath: journalPath, dataKey: epoch.dataKey)
        } catch {
            unavailable(directory)
            return false
        }
        HeadMemory.forgetOthers(in: directory, journalID: journalID, journalPath: journalPath)
        // The authenticated head now covers the failures recorded before it.
        RememberedFailures.forget(in: directory, journalID: journalID, journalPath: journalPath)
        return true
    }

    /// The failed sign-ins this machine recorded in `sealed`'s journal since its last
    /// remembered head (``RememberedFailures``, unauthenticated); nil when none.
    func rememberedFailures(_ sealed: SealedJournal) -> RememberedFailures? {
        guard let directory else { return nil }
        return RememberedFailures.read(from: directory, journalID: sealed.header.journalID, journalPath: journalPath)
    }

    /// Notes that `sealed`'s journal now ends with `count` failed sign-ins recorded here.
    func rememberFailures(_ sealed: SealedJournal) {
        guard let directory else { return }
        RememberedFailures(head: sealed.head, count: sealed.trailingFailures)
            .write(to: directory, journalID: sealed.header.journalID, journalPath: journalPath)
    }

    private func unavailable(_ directory: String) {
        guard !saidUnavailable else { return }
        saidUnavailable = true
        tell(.rollbackMemoryUnavailable(directory: directory))
    }
}
