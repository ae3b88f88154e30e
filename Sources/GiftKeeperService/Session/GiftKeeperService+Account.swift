public import GiftKeeperCrypto
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing

/// Setting up, signing in and out, and changing the password: the keys' life cycle.
extension GiftKeeperService {
    /// The fewest characters a new password may have (SPEC §2: `setup` and `passwd`).
    /// Journals made with shorter ones still open as before.
    public static let minimumPasswordLength = 8

    /// Refuses a new password (NFC, as typed) that is empty or shorter than
    /// ``minimumPasswordLength`` characters (Unicode scalars, counted without copying it).
    public static func checkNewPassword(_ password: SecureBytes) throws(ServiceError) {
        guard password.count > 0 else { throw ServiceError(.emptyPassword) }
        let characters = password.withUnsafeBytes { bytes in bytes.reduce(0) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 } }
        guard characters >= minimumPasswordLength else {
            throw ServiceError(.passwordTooShort(minimum: minimumPasswordLength))
        }
    }

    /// Checks that `setup` could create an account named `name` here, before asking for a
    /// password: the phase, and the name's rules (non-empty, at most 200 characters).
    public func checkSetup(name: String) throws(ServiceError) {
        guard phase == .noAccount else {
            throw ServiceError(keyring == nil ? .journalExists(path: journalPath) : .alreadySignedIn)
        }
        do {
            _ = try GiftList.decide(.createAccount(name: normalized(name)), at: Timestamp(millisecondsSinceEpoch: 0), state: GiftList())
        } catch {
            throw ServiceError(.domain(error))
        }
    }

    /// Creates the journal and its account, then signs in.
    ///
    /// - Parameters:
    ///   - name: the account name (NFC-normalised here).
    ///   - password: NFC-normalised UTF-8 in guarded memory; never stored, nor any hash of it.
    ///   - parameters: the Argon2id cost; below ``KDFParameters/interactive`` only in tests.
    ///   - currency: the journal's currency code (`EUR`), if one is named.
    public func setup(
        name: String, password: SecureBytes, parameters: KDFParameters = .moderate, currency: String? = nil
    ) throws(ServiceError) {
        guard phase == .noAccount else {
            throw ServiceError(keyring == nil ? .journalExists(path: journalPath) : .alreadySignedIn)
        }
        guard password.count > 0 else { throw ServiceError(.emptyPassword) }
        guard parameters.isProductionStrength || environment.allowsTestKeyDerivationCost else {
            throw ServiceError(.weakKeyDerivation)
        }
        let parameters = environment.allowsTestKeyDerivationCost ? environment.testKeyDerivationCost ?? parameters : parameters
        let events: [Event]
        do {
            let now = environment.now()
            var created = try GiftList.decide(.createAccount(name: normalized(name)), at: now, state: GiftList())
            if let currency {
                created += try GiftList.decide(.setCurrency(code: currency), at: now, state: GiftList.fold(created))
            }
            events = created
        } catch {
            throw ServiceError(.domain(error))
        }
        let sealed = try openOrCreate()
        let epoch = try sealing {
            try sealed.startEpoch(password: password, parameters: parameters, previousDataKey: nil, eventsAfter: events)
        }
        // Only this process knows the new journal's name yet: nobody can have appended first.
        guard let epoch else { throw ServiceError(.changedElsewhere) }
        keyring = Keyring(epochs: [epoch])
        _ = local?.beginSession()
        state = GiftList.fold(events)
        appliedSequence = sealed.head.sequence
        failuresSinceLastSuccess = 0
        rememberHead()
        notify(.signedIn(name: state.accountName ?? "", failedAttempts: 0, previousVisit: nil))
    }

    /// Unlocks with `password`, replays and verifies the whole journal, records the sign-in.
    ///
    /// Waits ``nextLoginDelay`` seconds first. A wrong password is recorded as a failed
    /// login sealed to the public key, announced, and thrown as ``ServiceError/Code/wrongPassword(recorded:)``.
    public func login(password: SecureBytes) throws(ServiceError) {
        switch phase {
        case .noAccount: throw ServiceError(.noJournal(path: journalPath))
        case .signedIn: throw ServiceError(.alreadySignedIn)
        case .locked: break
        }
        let sealed = try requireJournal()
        let unlocked = try unlock(password: password)
        var replayed: GiftList
        do throws(ServiceError) {
            replayed = try foldCheckingRollback(sealed, keyring: unlocked)
            try stopIfCancelled()
            if refusesRollback, let rollbackFinding { throw ServiceError(.rolledBack(rollbackFinding)) }
        } catch {
            unlocked.wipe()
            throw error
        }
        keyring = unlocked
        state = replayed
        appliedSequence = sealed.head.sequence
        let failedSinceLastVisit = replayed.failedSignIns.count
        let previousVisit = replayed.lastSignInAt
        // Sessions the events leave open ended in a crash only when none is live elsewhere;
        // a journal shared with other devices cannot tell theirs, so it never says so.
        let othersLive = local?.beginSession() ?? nil
        let endsUnclean = othersLive == false && remoteURL == nil
        do throws(ServiceError) {
            let events = try decideAndAppend(commands: endsUnclean ? [.endUncleanSession, .signIn] : [.signIn])
            failuresSinceLastSuccess = 0
            if events.contains(where: { $0.type == .signedOut }) { notify(.uncleanSessionRecorded) }
        } catch {
            discardSession()
            throw error
        }
        notify(.signedIn(name: state.accountName ?? "", failedAttempts: failedSinceLastVisit, previousVisit: previousVisit))
        rememberHead()
    }

    /// Waits `seconds` before a password check, a second at a time, telling ``onWaiting``
    /// how many are left; a cancellation (Ctrl-C) ends the wait at once.
    func waitBeforeChecking(_ seconds: Int) {
        guard seconds > 0 else { return }
        for left in stride(from: seconds, to: 0, by: -1) {
            if environment.isCancelled() { break }
            onWaiting?(left)
            environment.sleep(1)
        }
        onWaiting?(0)
    }

    /// Unlocks the keyring, recording a failed attempt in the journal.
    ///
    /// One check at a time on a journal, whatever the process (``LocalFrameStore/lockPasswordChecks(isCancelled:)``):
    /// the next waits for this one, sees the failure it recorded and waits its own delay.
    func unlock(password: SecureBytes) throws(ServiceError) -> Keyring {
        guard password.count > 0 else { throw ServiceError(.emptyPassword) }
        let sealed = try requireJournal()
        guard local?.lockPasswordChecks(isCancelled: environment.isCancelled) ?? true else {
            throw ServiceError(.cancelled)
        }
        defer { local?.unlockPasswordChecks() }
        // Another process may have changed the password, or recorded failures, since this
        // one opened the journal.
        try sealing { try sealed.takeInOthers() }
        // The failures recorded here stay counted when their records were cut off.
        let cut = memory.rememberedFailures(sealed).flatMap { $0.head.sequence > sealed.head.sequence ? $0.count : nil }
        failuresSinceLastSuccess = max(sealed.trailingFailures, cut ?? 0)
        waitBeforeChecking(nextLoginDelay)
        try stopIfCancelled()
        do {
            return try Keyring.unlock(password: password, wraps: sealed.wraps)
        } catch Keyring.UnlockFailure.wrongPassword {
            // Where this machine's records say the journal was altered or replaced, that is
            // the finding, not the password; and nothing is recorded into the altered file.
            if let finding = findingBeforeUnlocking { throw ServiceError(.rolledBack(finding)) }
            let recorded = try recordFailedLogin(in: sealed)
            notify(.failedAttempt(recorded: recorded, nextDelaySeconds: nextLoginDelay))
            throw ServiceError(.wrongPassword(recorded: recorded))
        } catch Keyring.UnlockFailure.damagedWrap(let sequence, let tampering) {
            if let finding = findingBeforeUnlocking { throw ServiceError(.rolledBack(finding)) }
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
        if local?.canAppend == false {
            guard let store = try? location.open(access: .readWrite, toleratingDamage: false, progress: nil),
                let writable = try? SealedJournal(store: store)
            else { return false }
            sealed = writable
        }
        let event = Event(at: environment.now(), .loginFailed)
        for _ in 0..<Self.maximumCatchUps {
            if case .appended = try sealing({ try sealed.appendFailedLogin(event) }) {
                failuresSinceLastSuccess += 1
                memory.rememberFailures(sealed)
                return true
            }
            try sealing { try sealed.takeInOthers() }
        }
        throw ServiceError(.changedElsewhere)
    }

    /// Signs out: records it, remembers the head, wipes every key and the decrypted state.
    public func signOut() throws(ServiceError) {
        guard keyring != nil else { throw ServiceError(.notSignedIn) }
        defer {
            discardSession()
            notify(.signedOut)
        }
        try decideAndAppend(.signOut)
        rememberHead()
        try saveRemoteRecord()
    }

    /// Changes the password: checks the old one, wraps a brand-new data key under the new
    /// one (new salt, same cost, new key pair), and carries the previous data key inside the
    /// new wrap so history stays readable with the new password only.
    public func changePassword(old: SecureBytes, new: SecureBytes) throws(ServiceError) {
        do {
            try changePassword(old: old) { new }
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError(sealing: SealingError(error))
        }
    }

    /// Like ``changePassword(old:new:)``, but asks `newPassword` for the new password only
    /// once the old one has been checked, so a mistyped current password is said at once.
    /// `newPassword`'s errors (a cancelled prompt, two entries that differ) are rethrown.
    public func changePassword(old: SecureBytes, newPassword: () throws -> SecureBytes) throws {
        let keyring = try requireKeyring()
        let sealed = try requireJournal()
        guard let newestWrap = sealed.wraps.last, let current = keyring.newest else { throw ServiceError(.notSignedIn) }
        waitBeforeChecking(loginDelay(afterFailures: passwordChangeFailures))
        try stopIfCancelled()
        let matches = try sealing {
            try Keyring.passwordMatches(old, newest: newestWrap, dataKey: current.dataKey)
        }
        guard matches else {
            passwordChangeFailures += 1
            throw ServiceError(.wrongPassword(recorded: false))
        }
        passwordChangeFailures = 0
        let new = try newPassword()
        guard new.count > 0 else { throw ServiceError(.emptyPassword) }
        try stopIfCancelled()
        var started: (epoch: Keyring.Epoch, events: [Event])?
        for _ in 0..<Self.maximumCatchUps where started == nil {
            let events: [Event]
            do {
                events = try GiftList.decide(.changePassword, at: environment.now(), state: state)
            } catch {
                throw ServiceError(.domain(error))
            }
            let epoch = try sealing {
                try sealed.startEpoch(
                    password: new, parameters: newestWrap.payload.parameters, previousDataKey: current.dataKey,
                    eventsAfter: events)
            }
            if let epoch { started = (epoch, events) } else { try catchUp() }
        }
        guard let started else { throw ServiceError(.changedElsewhere) }
        keyring.append(started.epoch)
        for event in started.events { state.apply(event) }
        appliedSequence = sealed.head.sequence
        rememberHead()  // not while a rollback stands; then accepting it writes the head
        acceptRollbackAfterChange()
    }
}
