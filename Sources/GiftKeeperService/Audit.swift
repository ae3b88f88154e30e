public import GiftKeeperCrypto
public import GiftKeeperDomain
public import GiftKeeperJournal
import GiftKeeperSealing

/// The result of replaying and verifying a whole journal with its password.
public struct AuditReport: Sendable {
    /// One record per frame that verified, in order; empty when the audit handed each
    /// record to its `onRecord` instead (nothing is kept then).
    public let records: [AuditRecord]
    /// How many frames verified (the records made).
    public let verifiedCount: Int
    /// When each failed login recorded in the journal happened ("reported": anyone who can
    /// write the file could forge one).
    public let reportedFailedLogins: [Timestamp]
    /// The events whose stored text breaks a rule typed input obeys (a control character,
    /// an empty or over-long field), in order: written by a program holding the key that
    /// does not obey this one's rules. Warnings: the events authenticate.
    public let textRuleBreaks: [StoredTextRuleBreak]
    /// The first problem, if any: nothing after it was read or shown.
    public let problem: ServiceError?
    /// A torn last frame found (not trimmed: auditing never changes the journal).
    public let tornTail: TornTail?
    /// What comparing the journal with the head remembered on this machine found: events
    /// missing or another history (a rollback). Checked only when every frame verified.
    public let rollback: RollbackFinding?
    /// Why the journal failed verification: the first bad frame, else a rollback.
    public var failure: ServiceError? {
        problem ?? rollback.map { ServiceError(.rolledBack($0)) }
    }
    public var isValid: Bool { failure == nil }
}

/// The audit (SPEC §6): a journal replayed and verified whole with its password, read-only.
public enum JournalAudit {
    /// Replays and authenticates every frame of the journal at `journalPath` (SPEC §6).
    ///
    /// Read-only: it takes a shared lock, records nothing (not even a wrong password),
    /// never trims a torn tail and never writes the remembered head. A wrong password
    /// throws; everything else that does not verify ends the report with its sequence
    /// number and reason. A journal that verifies whole is then compared with the head
    /// remembered on this machine (``AuditReport/rollback``).
    ///
    /// With `onRecord`, each record is handed to it as soon as its frame verifies and
    /// nothing is kept (the report's `records` is empty): an audit then holds no more than
    /// a replay. Without it, the report holds them all.
    public static func audit(
        journalPath: String, password: SecureBytes, environment: ServiceEnvironment,
        progress: ((Int, Int) -> Void)? = nil, onRecord: ((AuditRecord) -> Void)? = nil
    ) throws(ServiceError) -> AuditReport {
        let service = GiftKeeperService(journalPath: journalPath, environment: environment)
        service.onProgress = progress
        try service.open(access: .readOnly, toleratingDamage: true)
        guard let sealed = service.sealed else { throw ServiceError(.noJournal(path: journalPath)) }
        let store = sealed.store
        // Damage found while opening: shown after the frames that verified before it.
        let damage = service.local?.damage.map { ServiceError(.journal(JournalError(.corrupt($0), path: journalPath))) }
        guard service.phase == .locked else {
            throw damage ?? ServiceError(.tampered(sequence: 1, .noAccount))
        }
        let keyring: Keyring
        do {
            keyring = try AccountKeys(session: service).unlock(password: password, recordFailure: false)
        } catch {
            // The newest key wrap before the damage may predate a password change written
            // after it: then the damage, not the password, is what to report.
            if let damage, case .wrongPassword = error.code { throw damage }
            throw error
        }
        defer { keyring.wipe() }
        var records: [AuditRecord] = []
        if onRecord == nil { records.reserveCapacity(store.frameCount) }
        var verifiedCount = 0
        var failedLogins: [Timestamp] = []
        var textRuleBreaks: [StoredTextRuleBreak] = []
        var problem: ServiceError?
        var check = RollbackCheck(service.memory.remembered(sealed, keyring: keyring))
        do {
            try sealed.replaying(keyring: keyring, progress: progress) { frame, event in
                check.observe(frame)
                let record = AuditRecord(sequence: frame.sequence, kind: frame.kind, event: event)
                verifiedCount += 1
                if let event, record.isReported, event.type == .loginFailed { failedLogins.append(event.at) }
                if let event, let rule = GiftList.ruleBroken(by: event) {
                    textRuleBreaks.append(StoredTextRuleBreak(sequence: frame.sequence, type: event.typeName, rule: rule))
                }
                if let onRecord { onRecord(record) } else { records.append(record) }
            }
        } catch {
            problem = error
        }
        problem = problem ?? damage
        // Against a damaged journal the comparison means nothing: the damage is the finding.
        let rollback =
            problem == nil
            ? check.finding(lastSequence: store.head.sequence, headHash: store.head.hash)
                ?? (service.findingBeforeUnlocking == .journalReplaced ? .journalReplaced : nil)
            : nil
        return AuditReport(
            records: records, verifiedCount: verifiedCount, reportedFailedLogins: failedLogins,
            textRuleBreaks: textRuleBreaks, problem: problem,
            tornTail: service.local?.trimmedTail, rollback: rollback)
    }
}

/// An event whose stored text breaks a rule typed input obeys (``GiftList/ruleBroken(by:)``).
public struct StoredTextRuleBreak: Sendable, Equatable {
    public let sequence: UInt64
    /// The event type name (`presentAdded` …).
    public let type: String
    /// The rule, as typed input would have been refused.
    public let rule: DomainError
}

/// One line of the audit trail: a frame, and its event when it carries one.
public struct AuditRecord: Sendable, Equatable {
    public let sequence: UInt64
    /// When it happened; nil for key wraps, which carry no time.
    public let at: Timestamp?
    /// The event type name (`presentAdded` …) or `keyWrap`.
    public let type: String
    /// Whether the record was sealed to the public key, i.e. written while locked and so
    /// only "reported" (anyone who can write the file could forge one).
    public let isReported: Bool
    /// The event itself (nil for key wraps).
    public let event: Event?

    init(sequence: UInt64, kind: FrameKind, event: Event?) {
        self.sequence = sequence
        self.at = event?.at
        self.event = event
        self.isReported = kind == .publicSealed
        self.type = event?.typeName ?? "keyWrap"
    }
}
