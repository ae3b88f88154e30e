public import GiftKeeperCrypto
public import GiftKeeperDomain
public import GiftKeeperJournal

/// The result of replaying and verifying a whole journal with its password.
public struct AuditReport: Sendable {
    /// One record per frame that verified, in order.
    public let records: [AuditRecord]
    /// The first problem, if any: nothing after it was read or shown.
    public let problem: ServiceError?
    /// A torn last frame found (not trimmed: auditing never changes the journal).
    public let tornTail: TornTail?
    /// What comparing the journal with the head remembered on this machine found: events
    /// missing or another history (a rollback). Checked only when every frame verified.
    public let rollback: RollbackFinding?
    /// The failed logins recorded in the journal ("reported": anyone who can write the
    /// file could forge one).
    public var reportedFailedLogins: [Timestamp] {
        records.compactMap { $0.isReported && $0.type == EventType.loginFailed.name ? $0.at : nil }
    }
    /// Why the journal failed verification: the first bad frame, else a rollback.
    public var failure: ServiceError? {
        problem ?? rollback.map { ServiceError(.rolledBack($0)) }
    }
    public var isValid: Bool { failure == nil }
}

extension GiftKeeperService {
    /// Replays and authenticates every frame of the journal at `journalPath` (SPEC §6).
    ///
    /// Read-only: it takes a shared lock, records nothing (not even a wrong password),
    /// never trims a torn tail and never writes the remembered head. A wrong password
    /// throws; everything else that does not verify ends the report with its sequence
    /// number and reason. A journal that verifies whole is then compared with the head
    /// remembered on this machine (``AuditReport/rollback``).
    public static func audit(
        journalPath: String, password: SecureBytes, environment: ServiceEnvironment,
        progress: ((Int, Int) -> Void)? = nil
    ) throws(ServiceError) -> AuditReport {
        let service = GiftKeeperService(journalPath: journalPath, environment: environment)
        service.onProgress = progress
        try service.open(access: .readOnly, toleratingDamage: true)
        guard let journal = service.journal else { throw ServiceError(.noJournal(path: journalPath)) }
        // Damage found while opening: shown after the frames that verified before it.
        let damage = journal.damage.map { ServiceError(.journal(JournalError(.corrupt($0), path: journalPath))) }
        guard service.phase == .locked else {
            throw damage ?? ServiceError(.tampered(sequence: 1, reason: "the journal holds no account"))
        }
        let keyring: Keyring
        do {
            keyring = try service.unlock(password: password, recordFailure: nil)
        } catch {
            // The newest key wrap before the damage may predate a password change written
            // after it: then the damage, not the password, is what to report.
            if let damage, case .wrongPassword = error.code { throw damage }
            throw error
        }
        defer { keyring.wipe() }
        var records: [AuditRecord] = []
        records.reserveCapacity(journal.frameCount)
        var problem: ServiceError?
        var check = RollbackCheck(service.rememberedHead(journal: journal, keyring: keyring))
        do {
            try Replayer.replay(journal: journal, keyring: keyring, progress: progress) { frame, event in
                check.observe(frame)
                records.append(AuditRecord(sequence: frame.sequence, kind: frame.kind, event: event))
            }
        } catch {
            problem = error
        }
        problem = problem ?? damage
        // Against a damaged journal the comparison means nothing: the damage is the finding.
        let rollback = problem == nil ? check.finding(lastSequence: journal.lastSequence, headHash: journal.headHash) : nil
        return AuditReport(records: records, problem: problem, tornTail: journal.trimmedTail, rollback: rollback)
    }
}
