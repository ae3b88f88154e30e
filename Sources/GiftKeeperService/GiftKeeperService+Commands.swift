public import GiftKeeperDomain
import GiftKeeperJournal

/// Commands: decide on the state, seal at the head's next positions, append, apply; and
/// catching up with what other writers appended.
extension GiftKeeperService {
    /// Decides `command` against the current state, seals and appends the events (one fsync),
    /// then applies them. Returns the events; `[]` when the command was already satisfied.
    @discardableResult
    public func perform(_ command: Command) throws(ServiceError) -> [Event] {
        guard keyring != nil else { throw ServiceError(.notSignedIn) }
        switch command {
        case .addPresent, .editPresent, .markPresent, .removePresent, .importPresent:
            let events = try decideAndAppend(command)
            if !events.isEmpty { acceptRollbackAfterChange() }
            return events
        case .createAccount, .signIn, .recordFailedSignIn, .signOut, .endUncleanSession, .changePassword,
            .recordExport:
            // These need keys, frames or files handled with them: use setup, login, signOut,
            // changePassword, export. Going through here would record a fact that is not true.
            throw ServiceError(.internalFailure("perform(\(command)) is reserved; call the dedicated service method"))
        }
    }

    /// How often one command catches up with other writers before giving up.
    static let maximumCatchUps = 8

    /// Decides `commands` in turn, seals, appends their events as one batch (one fsync) and
    /// applies them; `[]` when every command was already satisfied.
    ///
    /// When another writer appended first, its frames are folded in and the commands are
    /// decided again on the new state, then sealed at their new positions.
    @discardableResult
    func decideAndAppend(_ commands: Command...) throws(ServiceError) -> [Event] {
        let keyring = try requireKeyring()
        guard let epoch = keyring.newest else { throw ServiceError(.notSignedIn) }
        let sealed = try requireJournal()
        let commands = commands.map(normalized)
        for _ in 0..<Self.maximumCatchUps {
            var decided = state
            var events: [Event] = []
            do {
                for command in commands {
                    let more = try GiftList.decide(command, at: environment.now(), state: decided)
                    for event in more { decided.apply(event) }
                    events += more
                }
            } catch {
                throw ServiceError(.domain(error))
            }
            guard !events.isEmpty else { return [] }
            switch try sealed.appendSealed(events, epoch: epoch) {
            case .appended(let head):
                state = decided
                appliedSequence = head.sequence
                return events
            case .conflict:
                try catchUp()
            }
        }
        throw ServiceError(.changedElsewhere)
    }

    /// Seals `events` under the newest data key and appends them as one batch (one fsync),
    /// without deciding again: a conflict records nothing and throws.
    func appendSealed(_ events: [Event]) throws(ServiceError) {
        let keyring = try requireKeyring()
        guard let epoch = keyring.newest else { throw ServiceError(.notSignedIn) }
        guard case .appended(let head) = try requireJournal().appendSealed(events, epoch: epoch) else {
            throw ServiceError(.changedElsewhere)
        }
        appliedSequence = head.sequence
    }

    /// Folds into ``state`` the frames other writers appended since ``appliedSequence``.
    ///
    /// A new key wrap among them means the password was changed elsewhere: this session's
    /// keys cannot open what follows, so it ends.
    func catchUp() throws(ServiceError) {
        let keyring = try requireKeyring()
        let sealed = try requireJournal()
        do {
            _ = try sealed.store.waitForFrames(after: appliedSequence, milliseconds: 0)
        } catch {
            throw ServiceError(.journal(error))
        }
        guard sealed.store.frameIndex.keyWraps.count == keyring.epochs.count else {
            discardSession()
            notify(.signedOut)
            throw ServiceError(.passwordChangedElsewhere)
        }
        var caughtUp = state
        try sealed.replay(after: appliedSequence, keyring: keyring, progress: nil) { _, event in
            if let event { caughtUp.apply(event) }
        }
        state = caughtUp
        appliedSequence = sealed.head.sequence
    }

    /// The full history, one record per frame, for `history` (signed in).
    public func history() throws(ServiceError) -> [AuditRecord] {
        let keyring = try requireKeyring()
        let sealed = try requireJournal()
        var records: [AuditRecord] = []
        records.reserveCapacity(sealed.store.frameCount)
        try sealed.replay(keyring: keyring, progress: onProgress) { frame, event in
            records.append(AuditRecord(sequence: frame.sequence, kind: frame.kind, event: event))
        }
        return records
    }
}
