public import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import OrderedCollections

/// Reading the past: the history in words and the state at a time, each a replay.
extension SealedJournal {
    /// The history in words (`history`): each event with what it changed from, computed by
    /// replaying the journal; only the events about `present` when given. Key wraps and
    /// facts about sessions are included (the shell words them too).
    func history(of present: PresentID?, keyring: Keyring, progress: ((Int, Int) -> Void)?) throws(ServiceError)
        -> [HistoryEntry]
    {
        var entries: [HistoryEntry] = []
        var replayed = GiftList()
        try replaying(keyring: keyring, progress: progress) { frame, event in
            // What each event changed from is read before it is applied: no copy of the state.
            if present == nil || (event != nil && event?.body.presentID == present) {
                entries.append(
                    HistoryEntry(sequence: frame.sequence, event: event, isReported: frame.kind == .publicSealed, before: replayed))
            }
            if let event { replayed.apply(event) }
        }
        return entries
    }

    /// The state the journal held at `time`: its events up to the first one after `time`
    /// folded (`--as-of`).
    /// - Throws: ``ServiceError/Code/beforeJournalBegan(_:)`` when its first event is later.
    func state(asOf time: Timestamp, keyring: Keyring, progress: ((Int, Int) -> Void)?) throws(ServiceError) -> GiftList {
        var replayed = GiftList()
        var first: Timestamp?
        try replaying(keyring: keyring, progress: progress) { _, event in
            guard let event else { return }
            if first == nil { first = event.at }
            // The first event after `time` ends it: nothing later is decrypted.
            if event.at > time { throw ReplayStop() }
            replayed.apply(event)
        }
        if let first, first > time { throw ServiceError(.beforeJournalBegan(first)) }
        return replayed
    }
}

/// One event of the history, with what it changed from, so that it can be said in words
/// (`p2 price 25.00 → 22.50`).
public struct HistoryEntry: Sendable {
    public let sequence: UInt64
    /// The event; nil for a key wrap.
    public let event: Event?
    /// Written while locked (a failed sign-in): only reported.
    public let isReported: Bool
    /// The present the event is about, as it was before it (nil when new).
    public let presentBefore: Present?
    /// The budget of the event's scope before it (a `budgetSet` or `budgetCleared`).
    public let budgetBefore: Budget?
    /// The occasion of the event before it (an `occasionAdded` or `occasionRemoved`).
    public let occasionBefore: Occasion?
    /// The profile field's text before a `profileFieldSet` (empty when it had none).
    public let profileValueBefore: String?
    /// In a household (SPEC §13): the member who signed the event, by the name they signed
    /// (nil before this member could read one, and always in a person's journal).
    public var author: String?

    /// The entry for `event` applied to `before` (only what it is about is kept, not the state).
    public init(sequence: UInt64, event: Event?, isReported: Bool, before: GiftList) {
        self.sequence = sequence
        self.event = event
        self.isReported = isReported
        presentBefore = event?.body.presentID.flatMap { before.present($0)?.present }
        switch event?.body {
        case .budgetSet(let budget): budgetBefore = before.budgets[budget.scope.key]
        case .budgetCleared(let scope): budgetBefore = before.budgets[scope.key]
        default: budgetBefore = nil
        }
        switch event?.body {
        case .occasionAdded(let occasion): occasionBefore = before.occasions[occasion.key]
        case .occasionRemoved(let name): occasionBefore = before.occasions[TextFolding.key(name)]
        default: occasionBefore = nil
        }
        if case .profileFieldSet(let recipient, let field, _) = event?.body {
            profileValueBefore = before.profiles[before.foldedName(recipient)]?[field] ?? ""
        } else {
            profileValueBefore = nil
        }
    }
}
