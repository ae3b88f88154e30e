import GiftKeeperJournal
import GiftKeeperSealing

/// What comparing a journal with the head remembered on this machine found (SPEC §5):
/// the journal was rolled back, replaced, or the record of it altered.
public enum RollbackFinding: Equatable, Sendable {
    /// The journal ends `count` events before the remembered head: an older copy.
    case eventsMissing(count: UInt64)
    /// At the remembered sequence number the journal's chain hash differs: another history.
    case historyDiverged(sequence: UInt64)
    /// The remembered head does not authenticate with this journal's keys: the state file
    /// was altered, or the journal no longer has the key epoch that wrote it.
    case rememberedHeadUnverified
    /// This machine remembers another journal at this path, and none of this one: the
    /// journal was replaced (by one the same password may well open).
    case journalReplaced

    /// The sign-in warning that announces it.
    var notification: LoginNotification {
        switch self {
        case .eventsMissing(let count): .eventsMissing(count: count)
        case .historyDiverged(let sequence): .historyDiverged(sequence: sequence)
        case .rememberedHeadUnverified: .rememberedHeadUnverified
        case .journalReplaced: .journalReplaced
        }
    }
}

/// Compares a journal being replayed with the head remembered on this machine. The one
/// comparison shared by sign-in and audit: feed it every frame, then ask for the finding.
struct RollbackCheck {
    /// What reading the remembered head found; nil when none is kept.
    let remembered: AuthenticatedHead.Reading?
    /// The failed sign-ins recorded here since (``RememberedFailures``); nil when none.
    let failures: RememberedFailures?
    /// The chain hash just after the remembered last frame (the next frame's previous hash).
    private var hashAtRemembered: [UInt8]?
    /// The chain hash just after the last remembered failure.
    private var hashAtFailures: [UInt8]?

    init(_ remembered: AuthenticatedHead.Reading?, failures: RememberedFailures? = nil) {
        self.remembered = remembered
        self.failures = failures
    }

    /// Notes the chain hash at the remembered points when `frame` is the one just after one.
    mutating func observe(_ frame: FrameView) {
        if case .verified(let remembered) = remembered, frame.sequence == remembered.head.sequence + 1 {
            hashAtRemembered = Array(frame.previousHash)
        }
        if let failures, frame.sequence == failures.head.sequence + 1 {
            hashAtFailures = Array(frame.previousHash)
        }
    }

    /// What the whole journal, replayed up to `lastSequence` with head hash `headHash`,
    /// says against the remembered head, then against the failures recorded since; nil
    /// when it continues both (or nothing is remembered).
    func finding(lastSequence: UInt64, headHash: [UInt8]) -> RollbackFinding? {
        headFinding(lastSequence: lastSequence, headHash: headHash)
            ?? failures?.finding(
                lastSequence: lastSequence,
                hashThere: failures?.head.sequence == lastSequence ? headHash : hashAtFailures)
    }

    private func headFinding(lastSequence: UInt64, headHash: [UInt8]) -> RollbackFinding? {
        guard let remembered else { return nil }
        switch remembered {
        case .forged, .unknownLayout:
            return .rememberedHeadUnverified
        case .keyMissing(let record):
            let head = record.head
            // The key epoch that wrote it is gone from this journal: either the journal was
            // rolled back past a password change (then it is also shorter), or the file was
            // altered. Say which, as far as the unauthenticated length tells.
            if head.sequence > lastSequence { return .eventsMissing(count: head.sequence - lastSequence) }
            return .rememberedHeadUnverified
        case .verified(let record):
            let head = record.head
            if head.sequence > lastSequence { return .eventsMissing(count: head.sequence - lastSequence) }
            let actual = head.sequence == lastSequence ? headHash : hashAtRemembered
            return actual == head.hash ? nil : .historyDiverged(sequence: head.sequence)
        }
    }
}

extension RollbackFinding {
    /// What the records this machine keeps for `journalPath` say of `store` before any key:
    /// unauthenticated, so only evidence to report instead of a wrong password or a `setup`
    /// offer, never a reason to trust anything. Nil when they agree (or there are none).
    static func beforeUnlocking(_ store: any FrameStore, stateDirectory: String?, journalPath: String) -> RollbackFinding? {
        guard let stateDirectory else { return nil }
        let records = HeadMemory.unverifiedRecords(in: stateDirectory, journalPath: journalPath)
        let failures = RememberedFailures.read(
            from: stateDirectory, journalID: store.header.journalID, journalPath: journalPath)
        guard !records.isEmpty else {
            return failures?.finding(lastSequence: store.head.sequence, hashThere: hash(of: store, at: failures?.head.sequence))
        }
        guard let record = records.first(where: { $0.journalID == store.header.journalID })?.head else {
            return .journalReplaced
        }
        let head = store.head
        if record.sequence > head.sequence { return .eventsMissing(count: record.sequence - head.sequence) }
        // Unreadable there: nothing to say.
        guard let hashThere = hash(of: store, at: record.sequence) else { return nil }
        if hashThere != record.hash { return .historyDiverged(sequence: record.sequence) }
        return failures?.finding(lastSequence: head.sequence, hashThere: hash(of: store, at: failures?.head.sequence))
    }

    /// The chain hash of `store` just after frame `sequence`: the head's, or the previous
    /// hash the next frame binds; nil past the head (or unreadable).
    private static func hash(of store: any FrameStore, at sequence: UInt64?) -> [UInt8]? {
        guard let sequence, sequence <= store.head.sequence else { return nil }
        if sequence == store.head.sequence { return store.head.hash }
        var found: [UInt8]?
        try? store.read(after: sequence, progress: nil) { frame in
            if found == nil { found = Array(frame.previousHash) }
            throw ReplayStop()
        }
        return found
    }
}
