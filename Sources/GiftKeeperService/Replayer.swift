public import GiftKeeperDomain
public import GiftKeeperJournal

/// Walks an unlocked journal frame by frame, authenticating every frame under the key of
/// its epoch and decoding its event. The one replay loop shared by login, history and audit.
enum Replayer {
    /// Calls `body` with each frame and its event (nil for key wraps). Stops at the first
    /// frame that does not authenticate or decode, throwing why; nothing is skipped.
    static func replay(
        journal: Journal, keyring: Keyring, progress: ((Int, Int) -> Void)?,
        _ body: (FrameView, Event?) throws -> Void
    ) throws(ServiceError) {
        let header = journal.header
        var epochIndex = -1
        var problem: ServiceError?
        do {
            try journal.replay(progress: progress) { frame in
                let binding = FrameBinding(
                    formatVersion: header.formatVersion, journalID: header.journalID,
                    sequence: frame.sequence, kind: frame.kind, previousHash: Array(frame.previousHash))
                if frame.kind == .keyWrap {
                    epochIndex += 1
                    guard epochIndex < keyring.epochs.count,
                          keyring.epochs[epochIndex].wrapSequence == frame.sequence
                    else {
                        problem = ServiceError(.tampered(sequence: frame.sequence, reason: "unexpected key wrap"))
                        throw ReplayStop()
                    }
                    try body(frame, nil)
                    return
                }
                guard epochIndex >= 0 else {
                    problem = ServiceError(.tampered(sequence: frame.sequence, reason: "an event comes before any key wrap"))
                    throw ReplayStop()
                }
                let event: Event
                do {
                    event = try EventSealing.open(frame, binding: binding, epoch: keyring.epochs[epochIndex])
                } catch let failure as EventSealing.OpenFailure {
                    switch failure {
                    case .doesNotAuthenticate(let reason):
                        problem = ServiceError(.tampered(sequence: frame.sequence, reason: reason))
                    case .undecodable(let error):
                        switch error {
                        case .unknownEventType, .unsupportedSchemaVersion:
                            problem = ServiceError(.unsupportedEvent(sequence: frame.sequence, reason: error.message))
                        default:
                            problem = ServiceError(.tampered(
                                sequence: frame.sequence, reason: "event does not decode: \(error.message)"))
                        }
                    }
                    throw ReplayStop()
                }
                try body(frame, event)
            }
        } catch let error as JournalError {
            throw ServiceError(.journal(error))
        } catch let error as ServiceError {
            throw error
        } catch {
            if let problem { throw problem }
            throw ServiceError(.internalFailure("\(error)"))
        }
        if let problem { throw problem }
    }
}

/// One line of the audit trail: a frame, and its event when it carries one.
public struct AuditRecord: Sendable, Equatable {
    public let sequence: UInt64
    /// When it happened; nil for key wraps, which carry no time.
    public let at: Timestamp?
    /// The event type name (`presentAdded` …) or `keyWrap`.
    public let type: String
    /// A short human summary.
    public let summary: String
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
        if let event {
            self.type = event.typeName
            self.summary = event.summary
        } else {
            self.type = "keyWrap"
            self.summary = "data key wrapped under the password key"
        }
    }
}
