import GiftKeeperDocuments
public import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import OrderedCollections

/// Commands: decide on the state, seal at the head's next positions, append, apply; and
/// catching up with what other writers appended.
extension GiftKeeperService {
    /// Decides `change` against the current state, seals and appends the events (one fsync),
    /// then applies them, and says what that did (``ChangeResult``): no events when the
    /// change was already made.
    @discardableResult
    public func perform(_ change: Change) throws(ServiceError) -> ChangeResult {
        guard keyring != nil else { throw ServiceError(.notSignedIn) }
        // The budgets are weighed (every present against every budget) only for a change
        // that can take one over.
        let standings = change.canTakeOverABudget ? state.budgetStandings : nil
        var similar: [PresentID] = []
        if case .addPresent(let recipient, let title, _, _, _, _, _, _) = change {
            similar = state.similarPresentIDs(to: normalized(title), for: normalized(recipient))
        }
        var isUndoable = true
        if case .importPresent = change { isUndoable = false }
        let events = try decideAndAppend(.change(change), keeping: isUndoable ? .undo : nil)
        guard !events.isEmpty else { return ChangeResult(events: [], budgetsCrossed: [], similar: similar) }
        // A new change: what was undone before it can no longer be made again.
        if isUndoable { redoable = [] }
        acceptRollbackAfterChange()
        let crossed = standings.map { state.budgetsTakenOver(since: $0) } ?? []
        return ChangeResult(events: events, budgetsCrossed: crossed, similar: similar)
    }

    /// Reverses the last change this session made and has not undone yet (SPEC §10.1),
    /// appending the compensating events, which `redo` can reverse in turn. Repeatable: each
    /// call goes one change further back.
    /// - Returns: what was reversed and the events that reversed it.
    /// - Throws: ``ServiceError/Code/nothingToUndo`` when this session has made no change left to undo.
    public func undo() throws(ServiceError) -> (undone: [Event], stateBefore: GiftList, compensation: [Event]) {
        guard let last = undoable.last else {
            guard keyring != nil else { throw ServiceError(.notSignedIn) }
            throw ServiceError(.nothingToUndo)
        }
        let events = try reverse(last, from: \.undoable, keeping: .redo)
        return (last.events, last.stateBefore, events)
    }

    /// Makes again the change the last `undo` reversed, by reversing that reversal: the
    /// change goes back on the undo stack. Repeatable until a new change is made.
    /// - Returns: the events appended and the state before them (as far as they touch it).
    /// - Throws: ``ServiceError/Code/nothingToRedo`` when nothing undone is left to make again.
    public func redo() throws(ServiceError) -> (redone: [Event], stateBefore: GiftList) {
        guard let last = redoable.last else {
            guard keyring != nil else { throw ServiceError(.notSignedIn) }
            throw ServiceError(.nothingToRedo)
        }
        let events = try reverse(last, from: \.redoable, keeping: .undo)
        return (events, undoable.last?.stateBefore ?? GiftList())
    }

    /// What the next `undo` would reverse, and the state before it; nil when nothing is left.
    public var nextUndo: (events: [Event], stateBefore: GiftList)? {
        undoable.last.map { ($0.events, $0.stateBefore) }
    }

    /// What the next `redo` would make again (the change an `undo` reversed, and the state
    /// before that change); nil when nothing is left.
    public var nextRedo: (events: [Event], stateBefore: GiftList)? {
        redoable.last.map { ($0.reverses, $0.reversedStateBefore) }
    }

    /// Appends the reversal of `change`, the last entry of `stack`, and moves it from there
    /// onto the other stack; an entry that was already reversed elsewhere is dropped.
    private func reverse(
        _ change: UndoableChange, from stack: ReferenceWritableKeyPath<GiftKeeperService, [UndoableChange]>,
        keeping other: ReversalStack
    ) throws(ServiceError) -> [Event] {
        guard keyring != nil else { throw ServiceError(.notSignedIn) }
        do {
            let events = try decideAndAppend(.undo(change: change.events, stateBefore: change.stateBefore), keeping: other, reversing: change)
            self[keyPath: stack].removeLast()
            acceptRollbackAfterChange()
            return events
        } catch {
            if case .domain(.nothingLeftToUndo) = error.code { self[keyPath: stack].removeLast() }
            throw error
        }
    }

    /// How often one command catches up with other writers before giving up.
    static let maximumCatchUps = 8

    /// Decides `commands` in turn, seals, appends their events as one batch (one fsync) and
    /// applies them; `[]` when every command was already satisfied.
    ///
    /// When another writer appended first, its frames are folded in and the commands are
    /// decided again on the new state, then sealed at their new positions.
    ///
    /// With `keeping`, what the events touch of the state before them is kept on the undo
    /// (or redo) stack (taken before they are applied: no copy of the list is held across
    /// them); `reversing` is the change they reverse, if they do.
    @discardableResult
    func decideAndAppend(
        _ commands: Command..., keeping stack: ReversalStack? = nil, reversing: UndoableChange? = nil
    ) throws(ServiceError) -> [Event] {
        try decideAndAppend(commands: commands, keeping: stack, reversing: reversing)
    }

    /// ``decideAndAppend(_:keeping:reversing:)`` for a list of commands.
    @discardableResult
    func decideAndAppend(
        commands: [Command], keeping stack: ReversalStack? = nil, reversing: UndoableChange? = nil
    ) throws(ServiceError) -> [Event] {
        let keyring = try requireKeyring()
        guard let epoch = keyring.newest else { throw ServiceError(.notSignedIn) }
        let commands = commands.map(normalized)
        for _ in 0..<Self.maximumCatchUps {
            let sealed = try requireJournal()
            let events: [Event]
            do {
                events = try GiftList.decide(commands, at: environment.now(), state: state)
            } catch {
                throw ServiceError(.domain(error))
            }
            guard !events.isEmpty else { return [] }
            let outcome: AppendOutcome
            do {
                outcome = try sealing { try sealed.appendSealed(events, epoch: epoch) }
            } catch {
                guard error.isJournalReplaced else { throw error }
                // Nothing was acknowledged: another process put a merged journal in place
                // (a sync). Open it, and decide again on what it holds.
                try SyncExecutor(session: self).reopenReplacedJournal()
                continue
            }
            switch outcome {
            case .appended(let head):
                if let stack {
                    let kept = UndoableChange(events: events, stateBefore: state.undoSnapshot(for: events), reverses: reversing)
                    switch stack {
                    case .undo: undoable.append(kept)
                    case .redo: redoable.append(kept)
                    }
                }
                // In place (the fold is deterministic: the same state the decision saw).
                for event in events { state.apply(event) }
                appliedSequence = head.sequence
                return events
            case .conflict:
                // Takes in the frames that won (or the merged journal another process put
                // in place) before deciding again.
                try refresh()
            }
        }
        throw ServiceError(.changedElsewhere)
    }

    /// Seals `events` under the newest data key and appends them as one batch (one fsync),
    /// without deciding again: a conflict records nothing and throws.
    func appendSealed(_ events: [Event]) throws(ServiceError) {
        let keyring = try requireKeyring()
        guard let epoch = keyring.newest else { throw ServiceError(.notSignedIn) }
        guard case .appended(let head) = try sealing({ try requireJournal().appendSealed(events, epoch: epoch) }) else {
            throw ServiceError(.changedElsewhere)
        }
        appliedSequence = head.sequence
    }

    /// Takes in what other processes appended since this session last looked (SPEC §12) and,
    /// when signed in, folds it into ``state``; ``onChangesElsewhere`` hears each change.
    /// Cheap when nothing is new: one `fstat` for a file. The shell calls it before each
    /// command and while it waits for input.
    public func refresh() throws(ServiceError) {
        guard let sealed else { return }
        do {
            try sealing { try sealed.takeInOthers() }
        } catch {
            guard error.isJournalReplaced else { throw error }
            // Another process merged this device's changes with another device's (a sync)
            // and put the merged journal in place: open it and carry on from it.
            try SyncExecutor(session: self).reopenReplacedJournal()
            return
        }
        if keyring != nil, sealed.head.sequence > appliedSequence {
            try catchUp()
        } else if keyring == nil {
            failuresSinceLastSuccess = sealed.trailingFailures
        }
    }

    /// Folds into ``state`` the frames other writers appended since ``appliedSequence``,
    /// telling ``onChangesElsewhere`` what they changed.
    ///
    /// A new key wrap among them means the password was changed elsewhere: this session's
    /// keys cannot open what follows, so it ends.
    func catchUp() throws(ServiceError) {
        let keyring = try requireKeyring()
        let sealed = try requireJournal()
        try sealing { try sealed.takeInOthers() }
        guard sealed.wraps.count == keyring.epochs.count else {
            discardSession()
            notify(.signedOut)
            throw ServiceError(.passwordChangedElsewhere)
        }
        var caughtUp = state
        var changes: [HistoryEntry] = []
        let telling = onChangesElsewhere != nil
        try sealed.replaying(after: appliedSequence, keyring: keyring, progress: nil) { frame, event in
            guard let event else { return }
            if telling {
                changes.append(
                    HistoryEntry(sequence: frame.sequence, event: event, isReported: frame.kind == .publicSealed, before: caughtUp))
            }
            caughtUp.apply(event)
        }
        state = caughtUp
        appliedSequence = sealed.head.sequence
        if !changes.isEmpty { onChangesElsewhere?(changes) }
    }

    /// The history in words (`history`): each event with what it changed from; only the
    /// events about `present` when given (``SealedJournal/history(of:keyring:progress:)``).
    public func historyEntries(of present: PresentID? = nil) throws(ServiceError) -> [HistoryEntry] {
        try requireJournal().history(of: present, keyring: requireKeyring(), progress: onProgress)
    }

    /// The state the journal held at `time` (`--as-of`).
    /// - Throws: ``ServiceError/Code/beforeJournalBegan(_:)`` when its first event is later.
    public func state(asOf time: Timestamp) throws(ServiceError) -> GiftList {
        try requireJournal().state(asOf: time, keyring: requireKeyring(), progress: onProgress)
    }
}

/// What a change did, for the shell to tell (SPEC §10): its events (none when it was
/// already made), the budgets it took over, and for a new present, the presents of that
/// person most like it that the list already held (gift memory), most alike first.
public struct ChangeResult: Sendable {
    public let events: [Event]
    /// Budgets planned and spent beyond their amount after the change, and not before it.
    public let budgetsCrossed: [BudgetStanding]
    /// For an added present: the similar presents the list held before it.
    public let similar: [PresentID]
}
