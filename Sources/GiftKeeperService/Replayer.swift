import GiftKeeperCrypto
public import GiftKeeperDomain
import GiftKeeperJournal

/// Walks an unlocked journal frame by frame, authenticating every frame under the key of
/// its epoch and decoding its event. The one replay loop shared by login, history and audit.
enum Replayer {
    /// Calls `body` with each frame and its event (nil for key wraps). Stops at the first
    /// frame that does not authenticate or decode, throwing why; nothing is skipped.
    ///
    /// Trusts the hash chain that opening verified (the lock is held since) and binds each
    /// frame's *stored* previous hash into its additional data: a frame changed, moved or
    /// spliced since opening fails to authenticate, so nothing goes unchecked. No
    /// allocation per kind-1 frame: see ``EventOpener``.
    static func replay(
        journal: Journal, keyring: Keyring, progress: ((Int, Int) -> Void)?,
        _ body: (FrameView, Event?) throws -> Void
    ) throws(ServiceError) {
        let header = journal.header
        let opener = EventOpener(formatVersion: header.formatVersion, journalID: header.journalID)
        let epochs = keyring.epochs
        var epochIndex = -1
        var dataKey: SecureBytes?
        var problem: ServiceError?
        do {
            try journal.replay(chainCheck: .trustVerifiedOnOpen, progress: progress) { frame in
                if frame.kind == .keyWrap {
                    epochIndex += 1
                    guard epochIndex < epochs.count, epochs[epochIndex].wrapSequence == frame.sequence else {
                        problem = ServiceError(.tampered(sequence: frame.sequence, reason: "unexpected key wrap"))
                        throw ReplayStop()
                    }
                    dataKey = epochs[epochIndex].dataKey
                    try body(frame, nil)
                    return
                }
                guard let key = dataKey else {
                    problem = ServiceError(.tampered(sequence: frame.sequence, reason: "an event comes before any key wrap"))
                    throw ReplayStop()
                }
                let event: Event
                do throws(EventSealing.OpenFailure) {
                    if frame.kind == .dataSealed {
                        event = try opener.open(frame, dataKey: key)
                    } else {
                        let binding = FrameBinding(
                            formatVersion: header.formatVersion, journalID: header.journalID,
                            sequence: frame.sequence, kind: frame.kind, previousHash: Array(frame.previousHash))
                        event = try EventSealing.open(frame, binding: binding, epoch: epochs[epochIndex])
                    }
                } catch {
                    problem = Self.problem(error, sequence: frame.sequence)
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

    private static func problem(_ failure: EventSealing.OpenFailure, sequence: UInt64) -> ServiceError {
        switch failure {
        case .doesNotAuthenticate(let reason):
            return ServiceError(.tampered(sequence: sequence, reason: reason))
        case .undecodable(let error):
            switch error {
            case .unknownEventType, .unsupportedSchemaVersion:
                return ServiceError(.unsupportedEvent(sequence: sequence, reason: error.message))
            default:
                return ServiceError(.tampered(sequence: sequence, reason: "event does not decode: \(error.message)"))
            }
        }
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
