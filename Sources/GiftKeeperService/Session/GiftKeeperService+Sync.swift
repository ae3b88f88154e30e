import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing

/// Devices (SPEC §12), as the session sees them: what the shell asks, handed to the
/// executor (``SyncExecutor``).
extension GiftKeeperService {
    /// The server the journal is shared through: asked for (`--remote`,
    /// `$GIFTKEEPER_REMOTE`), else remembered for it; nil when there is none.
    public var remoteURL: String? {
        if let remote { return remote.record.url }
        if let requested = environment.requestedRemote, !requested.isEmpty { return requested }
        guard let directory = environment.stateDirectory, let sealed else { return nil }
        return RemoteRecord.read(from: directory, journalID: sealed.header.journalID, journalPath: journalPath)?.url
    }

    /// The journal's last sequence number (0 before any frame, or with no journal).
    public var headSequence: UInt64 { sealed?.head.sequence ?? 0 }

    /// Frames this device holds that it has not yet seen the server hold (0 without a server).
    public var unsentFrames: UInt64 {
        guard let remote, let sealed else { return 0 }
        return sealed.head.sequence > remote.record.shared.sequence ? sealed.head.sequence - remote.record.shared.sequence : 0
    }

    /// Brings the journal and the server's copy level: sends this device's new frames, takes
    /// in other devices' (told to ``onChangesElsewhere``), and merges offline changes when
    /// both moved (which needs a signed-in session). With `restoringServer`, a server holding
    /// fewer frames than this device saw there (a backup restored) is given them back.
    /// - Throws: ``ServiceError/Code/noRemote``; `.journal(.unreachable)` when offline
    ///   (nothing is lost: the frames wait here); `.remoteBehind`, `.remoteDiverged` or
    ///   `.journal(.corrupt)` for a server that does not hold what it should (exit 1).
    @discardableResult
    public func sync(restoringServer: Bool = false) throws(ServiceError) -> SyncReport {
        try SyncExecutor(session: self).sync(restoringServer: restoringServer)
    }

    /// For the shell while it waits for input: syncs when the server told of other devices'
    /// frames, or when frames wait to be sent; while offline, tries again now and then.
    /// Nil when there was nothing to do.
    public func syncIfNeeded() throws(ServiceError) -> SyncReport? {
        try SyncExecutor(session: self).syncIfNeeded()
    }

    /// Writes what this device remembers of its server, when a send-only sync moved it.
    func saveRemoteRecord() throws(ServiceError) {
        try SyncExecutor(session: self).saveRemoteRecord()
    }
}
