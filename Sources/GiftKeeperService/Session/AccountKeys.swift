public import GiftKeeperCrypto
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing

/// The rules a new password must meet (SPEC §2: `setup` and `passwd`).
public enum NewPassword {
    /// The fewest characters a new password may have. Journals made with shorter ones
    /// still open as before.
    public static let minimumLength = 8

    /// Refuses a new password (NFC, as typed) that is empty or shorter than
    /// ``minimumLength`` characters (Unicode scalars, counted without copying it).
    public static func check(_ password: SecureBytes) throws(ServiceError) {
        guard password.count > 0 else { throw ServiceError(.emptyPassword) }
        let characters = password.withUnsafeBytes { bytes in bytes.reduce(0) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 } }
        guard characters >= minimumLength else { throw ServiceError(.passwordTooShort(minimum: minimumLength)) }
    }
}

/// The keys' life cycle on one session: setting up, signing in (after the wait that
/// failed attempts earn, each recorded), signing out, changing the password. It sets the
/// session's keys, state and failure counts; ``GiftKeeperService`` forwards its public
/// calls here and keeps the state they change.
struct AccountKeys {
    unowned let session: GiftKeeperService

    /// Creates the journal and its account, then signs in (``GiftKeeperService/setup(name:password:parameters:currency:)``).
    func setup(
        name: String, password: SecureBytes, parameters: KDFParameters = .moderate, currency: String? = nil
    ) throws(ServiceError) {
        guard session.phase == .noAccount else {
            throw ServiceError(session.keyring == nil ? .journalExists(path: session.journalPath) : .alreadySignedIn)
        }
        guard password.count > 0 else { throw ServiceError(.emptyPassword) }
        guard parameters.isProductionStrength || session.environment.allowsTestKeyDerivationCost else {
            throw ServiceError(.weakKeyDerivation)
        }
        let parameters = session.environment.allowsTestKeyDerivationCost ? session.environment.testKeyDerivationCost ?? parameters : parameters
        let events: [Event]
        do {
            let currency = currency.map { [Command.change(.setCurrency(code: $0))] } ?? []
            events = try GiftList.decide(
                [.createAccount(name: normalized(name))] + currency, at: session.environment.now(), state: GiftList())
        } catch {
            throw ServiceError(.domain(error))
        }
        let sealed = try session.openOrCreate()
        let epoch = try sealing {
            try sealed.startEpoch(password: password, parameters: parameters, previousDataKey: nil, eventsAfter: events)
        }
        // Only this process knows the new journal's name yet: nobody can have appended first.
        guard let epoch else { throw ServiceError(.changedElsewhere) }
        session.keyring = Keyring(epochs: [epoch])
        _ = session.local?.beginSession()
        session.state = GiftList.fold(events)
        session.appliedSequence = sealed.head.sequence
        session.failuresSinceLastSuccess = 0
        session.rememberHead()
        DeviceKeys(session: session).use(password: password)
        session.notify(.signedIn(name: session.state.accountName ?? "", failedAttempts: 0, previousVisit: nil))
    }

    /// Unlocks with `password`, replays and verifies the whole journal, records the sign-in
    /// (``GiftKeeperService/login(password:)``).
    func login(password: SecureBytes) throws(ServiceError) {
        switch session.phase {
        case .noAccount: throw ServiceError(.noJournal(path: session.journalPath))
        case .signedIn: throw ServiceError(.alreadySignedIn)
        case .locked: break
        }
        let unlocked = try unlock(password: password)
        // The journal unlock saw: this handle's, or the one another process's merge put in its place.
        let sealed = try session.requireJournal()
        var replayed: GiftList
        do throws(ServiceError) {
            replayed = try session.foldCheckingRollback(sealed, keyring: unlocked)
            try session.stopIfCancelled()
            if session.refusesRollback, let finding = session.rollbackFinding { throw ServiceError(.rolledBack(finding)) }
        } catch {
            unlocked.wipe()
            throw error
        }
        session.keyring = unlocked
        session.state = replayed
        // The journal folded: this handle's, or the one at its place now (another process's merge).
        session.appliedSequence = try session.requireJournal().head.sequence
        let failedSinceLastVisit = replayed.failedSignIns.count
        let previousVisit = replayed.lastSignInAt
        // Sessions the events leave open ended in a crash only when none is live elsewhere;
        // a journal shared with other devices cannot tell theirs, so it never says so.
        let othersLive = session.local?.beginSession() ?? nil
        let endsUnclean = othersLive == false && session.remoteURL == nil
        do throws(ServiceError) {
            let events = try session.decideAndAppend(commands: endsUnclean ? [.endUncleanSession, .signIn] : [.signIn])
            session.failuresSinceLastSuccess = 0
            if events.contains(where: { $0.type == .signedOut }) { session.notify(.uncleanSessionRecorded) }
        } catch {
            session.discardSession()
            throw error
        }
        DeviceKeys(session: session).use(password: password)
        session.notify(.signedIn(name: session.state.accountName ?? "", failedAttempts: failedSinceLastVisit, previousVisit: previousVisit))
        session.rememberHead()
    }

    // MARK: The rollback check at sign-in (GiftKeeperService.foldCheckingRollback)

    /// The state `sealed` folds to, and what comparing it with the remembered head finds.
    func fold(_ sealed: SealedJournal, keyring: Keyring) throws(ServiceError) -> (GiftList, RollbackFinding?) {
        var state = GiftList()
        state.reserveCapacity(sealed.store.frameCount)
        let memory = session.memory
        var check = RollbackCheck(memory.remembered(sealed, keyring: keyring), failures: memory.rememberedFailures(sealed))
        try sealed.replaying(keyring: keyring, progress: session.onProgress) { frame, event in
            check.observe(frame)
            if let event { state.apply(event) }
        }
        return (state, check.finding(lastSequence: sealed.head.sequence, headHash: sealed.head.hash))
    }

    /// ``fold(_:keyring:)`` of the journal at its place now, under its lock (opening it
    /// again when another process replaced it); nil when it kept being replaced.
    func foldAgainUnderLock(keyring: Keyring) throws(ServiceError) -> (GiftList, RollbackFinding?)? {
        for _ in 0..<GiftKeeperService.maximumCatchUps {
            guard let local = session.local else { return nil }
            let folded = try sealing {
                try local.whileCurrent {
                    let sealed = try session.requireJournal()
                    try sealing { try sealed.takeInOthers() }
                    return try fold(sealed, keyring: keyring)
                }
            }
            if let folded { return folded }
            let store = try SyncExecutor(session: session).openedAgain()
            session.sealed = try sealing { try SealedJournal(store: store) }
        }
        return nil
    }

    /// Waits `seconds` before a password check, a second at a time, telling ``GiftKeeperService/onWaiting``
    /// how many are left; a cancellation (Ctrl-C) ends the wait at once.
    func waitBeforeChecking(_ seconds: Int) {
        guard seconds > 0 else { return }
        for left in stride(from: seconds, to: 0, by: -1) {
            if session.environment.isCancelled() { break }
            session.onWaiting?(left)
            session.environment.sleep(1)
        }
        session.onWaiting?(0)
    }

    /// Unlocks the keyring, recording a failed attempt in the journal.
    ///
    /// One check at a time on a journal, whatever the process (``LocalFrameStore/lockPasswordChecks(isCancelled:)``):
    /// the next waits for this one, sees the failure it recorded and waits its own delay.
    func unlock(password: SecureBytes) throws(ServiceError) -> Keyring {
        guard password.count > 0 else { throw ServiceError(.emptyPassword) }
        let local = session.local
        guard local?.lockPasswordChecks(isCancelled: session.environment.isCancelled) ?? true else {
            throw ServiceError(.cancelled)
        }
        defer { local?.unlockPasswordChecks() }
        // Another process may have changed the password, or recorded failures, since this
        // one opened the journal, or put a merged journal in its place (a sync): opened again.
        try session.refresh()
        let sealed = try session.requireJournal()
        // The failures recorded here stay counted when their records were cut off.
        let cut = session.memory.rememberedFailures(sealed).flatMap {
            $0.head.sequence > sealed.head.sequence ? $0.count : nil
        }
        session.failuresSinceLastSuccess = max(sealed.trailingFailures, cut ?? 0)
        waitBeforeChecking(session.nextLoginDelay)
        try session.stopIfCancelled()
        do {
            return try Keyring.unlock(password: password, wraps: sealed.wraps)
        } catch Keyring.UnlockFailure.wrongPassword {
            // Where this machine's records say the journal was altered or replaced, that is
            // the finding, not the password; and nothing is recorded into the altered file.
            if let finding = session.findingBeforeUnlocking { throw ServiceError(.rolledBack(finding)) }
            let recorded = try recordFailedLogin(in: sealed)
            session.notify(.failedAttempt(recorded: recorded, nextDelaySeconds: session.nextLoginDelay))
            throw ServiceError(.wrongPassword(recorded: recorded))
        } catch Keyring.UnlockFailure.damagedWrap(let sequence, let tampering) {
            if let finding = session.findingBeforeUnlocking { throw ServiceError(.rolledBack(finding)) }
            throw ServiceError(.tampered(sequence: sequence, tampering))
        } catch {
            throw ServiceError(sealing: SealingError(error))
        }
    }

    /// Appends a failed login, after whatever other writers appended meanwhile (it depends
    /// on no state, so it is never decided again). A journal opened read-only (`audit`) is
    /// opened again for writing for it; false when it cannot be (a file this user cannot
    /// write, damage): then nothing is recorded.
    private func recordFailedLogin(in opened: SealedJournal) throws(ServiceError) -> Bool {
        var sealed = opened
        if session.local?.canAppend == false {
            guard let store = try? session.location.open(access: .readWrite, toleratingDamage: false, progress: nil),
                let writable = try? SealedJournal(store: store)
            else { return false }
            sealed = writable
        }
        let event = Event(at: session.environment.now(), .loginFailed)
        for _ in 0..<GiftKeeperService.maximumCatchUps {
            if case .appended = try sealing({ try sealed.appendFailedLogin(event) }) {
                session.failuresSinceLastSuccess += 1
                session.memory.rememberFailures(sealed)
                return true
            }
            try sealing { try sealed.takeInOthers() }
        }
        throw ServiceError(.changedElsewhere)
    }

    /// Signs out: records it, remembers the head, wipes every key and the decrypted state.
    func signOut() throws(ServiceError) {
        guard session.keyring != nil else { throw ServiceError(.notSignedIn) }
        defer {
            session.discardSession()
            session.notify(.signedOut)
        }
        try session.decideAndAppend(.signOut)
        session.rememberHead()
        try session.saveRemoteRecord()
    }

    /// Changes the password (``GiftKeeperService/changePassword(old:newPassword:)``): checks
    /// the old one, then wraps a brand-new data key under the new one, carrying the previous
    /// data key inside the new wrap.
    func changePassword(old: SecureBytes, newPassword: () throws -> SecureBytes) throws {
        let keyring = try session.requireKeyring()
        let sealed = try session.requireJournal()
        guard let newestWrap = sealed.wraps.last, let current = keyring.newest else { throw ServiceError(.notSignedIn) }
        waitBeforeChecking(loginDelay(afterFailures: session.passwordChangeFailures))
        try session.stopIfCancelled()
        let matches = try sealing {
            try Keyring.passwordMatches(old, newest: newestWrap, dataKey: current.dataKey)
        }
        guard matches else {
            session.passwordChangeFailures += 1
            throw ServiceError(.wrongPassword(recorded: false))
        }
        session.passwordChangeFailures = 0
        let new = try newPassword()
        guard new.count > 0 else { throw ServiceError(.emptyPassword) }
        try session.stopIfCancelled()
        var started: (epoch: Keyring.Epoch, events: [Event])?
        for _ in 0..<GiftKeeperService.maximumCatchUps where started == nil {
            let events: [Event]
            do {
                events = try GiftList.decide(.changePassword, at: session.environment.now(), state: session.state)
            } catch {
                throw ServiceError(.domain(error))
            }
            let epoch = try sealing {
                try sealed.startEpoch(
                    password: new, parameters: newestWrap.payload.parameters, previousDataKey: current.dataKey,
                    eventsAfter: events)
            }
            if let epoch { started = (epoch, events) } else { try session.catchUp() }
        }
        guard let started else { throw ServiceError(.changedElsewhere) }
        keyring.append(started.epoch)
        // This device's key sealed for the new password, the old seal dropped, in the same step.
        DeviceKeys(session: session).use(password: new)
        for event in started.events { session.state.apply(event) }
        session.appliedSequence = sealed.head.sequence
        session.rememberHead()  // not while a rollback stands; then accepting it writes the head
        session.acceptRollbackAfterChange()
    }
}
