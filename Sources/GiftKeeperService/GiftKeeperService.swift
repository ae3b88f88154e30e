public import GiftKeeperCrypto
public import GiftKeeperDomain
public import GiftKeeperJournal

/// The application service: load → fold → decide → append → notify.
///
/// One instance drives one journal for one process. It holds the journal open (and its
/// exclusive lock) from ``open()`` to ``close()``, keeps every key in guarded memory while
/// signed in, and wipes them on ``signOut()``. Not thread-safe: the REPL calls it from
/// one thread.
public final class GiftKeeperService {
    /// Where the journal lives.
    public let journalPath: String
    let environment: ServiceEnvironment

    private(set) var journal: Journal?
    private var wraps: [KeyWrapRecord] = []
    private var failuresSinceLastSuccess = 0
    /// Wrong current passwords given to `changePassword` in this session: each next try
    /// waits like a login does, so a signed-in session left unattended cannot be used to
    /// guess the password quickly.
    private var passwordChangeFailures = 0
    private var keyring: Keyring?

    /// The decrypted gift list; empty while locked.
    public internal(set) var state = GiftList()

    /// Called for every change of login status, as it happens.
    public var onNotification: ((LoginNotification) -> Void)?
    /// Called now and then while a long replay runs, with (bytes done, bytes total).
    public var onProgress: ((Int, Int) -> Void)?

    /// Where a session stands.
    public enum Phase: Equatable, Sendable {
        /// No journal (or an empty one) at the path: only `setup` is possible.
        case noAccount
        /// A journal with an account, locked.
        case locked
        /// Unlocked: the keys are in memory.
        case signedIn
    }

    public var phase: Phase {
        if keyring != nil { return .signedIn }
        return wraps.isEmpty ? .noAccount : .locked
    }

    /// The account name, known only once unlocked (it is encrypted too).
    public var accountName: String? { keyring == nil ? nil : state.accountName }

    /// What opening the journal for writing trimmed off its end (a torn append).
    public private(set) var trimmedTail: TornTail?

    /// The wait, in seconds, that ``login(password:)`` will make before checking.
    public var nextLoginDelay: Int { loginDelay(afterFailures: failuresSinceLastSuccess) }

    /// The rollback this session's sign-in found (SPEC §5) and that nobody has accepted yet.
    ///
    /// While it stands the remembered head is left as it is, so every later sign-in warns
    /// again. A change the user makes (add, edit, mark, remove, import, passwd) accepts it
    /// when ``acceptsRollbackOnChange`` is set; one-shot tasks refuse to run instead.
    public private(set) var rollbackFinding: RollbackFinding?
    /// Set by one-shot tasks (`export`, `import`): a rollback found at sign-in stops the
    /// sign-in itself, before anything is appended (the warning is still announced).
    public var refusesRollback = false

    /// Whether a change made after a rollback warning accepts the journal as it is: set for
    /// an interactive session only, where the person read the warning before typing the
    /// change. Scripts and one-shot subcommands leave it false, so the evidence stays.
    public var acceptsRollbackOnChange = false

    /// The cost the journal's newest key wrap was made with.
    public var keyDerivationParameters: KDFParameters? { wraps.last?.payload.parameters }

    public init(journalPath: String, environment: ServiceEnvironment) {
        self.journalPath = journalPath
        self.environment = environment
    }

    deinit {
        keyring?.wipe()
    }

    // MARK: Opening

    /// Opens and locks the journal if it exists, verifying its structure and chain and
    /// trimming a torn last frame. A missing journal is not an error: the phase is
    /// ``Phase/noAccount`` and `setup` creates it.
    public func open(access: JournalAccess = .readWrite) throws(ServiceError) {
        try open(access: access, toleratingDamage: false)
    }

    /// Opens as ``open(access:)``; `toleratingDamage` (read-only, for audit) keeps the frames
    /// before the first bad one readable and reports the damage in ``Journal/damage``.
    func open(access: JournalAccess, toleratingDamage: Bool) throws(ServiceError) {
        guard journal == nil else { return }
        let opened: Journal
        do {
            opened = try Journal.open(
                at: journalPath, access: access, progress: onProgress, toleratingDamage: toleratingDamage)
        } catch {
            if error.code == .notFound { return }
            throw ServiceError(.journal(error))
        }
        journal = opened
        trimmedTail = opened.trimmedTail
        do {
            try scanClearFrames(opened)
        } catch {
            journal = nil
            throw error
        }
    }

    /// Opens an existing journal; a missing one is an error (for `audit`, `export`, `import`).
    public func openExisting(access: JournalAccess) throws(ServiceError) {
        try open(access: access)
        guard journal != nil else { throw ServiceError(.noJournal(path: journalPath)) }
    }

    /// Reads what is readable without a key: the key wraps and the failed logins at the end.
    ///
    /// From what opening noted (``Journal/frameIndex``), so the file is not read again:
    /// opening verified the chain and kept copies of the key wraps. The checks are those of
    /// a pass in order: an event before any key wrap, then each wrap's parameters.
    private func scanClearFrames(_ journal: Journal) throws(ServiceError) {
        let index = journal.frameIndex
        let header = journal.header
        if let firstEvent = index.firstDataSealedSequence,
           index.keyWraps.first.map({ firstEvent < $0.sequence }) ?? true {
            throw ServiceError(.tampered(sequence: firstEvent, reason: "an event comes before any key wrap"))
        }
        var found: [KeyWrapRecord] = []
        found.reserveCapacity(index.keyWraps.count)
        for frame in index.keyWraps {
            let binding = FrameBinding(
                formatVersion: header.formatVersion, journalID: header.journalID,
                sequence: frame.sequence, kind: .keyWrap, previousHash: frame.previousHash)
            do {
                let payload = try KeyWrapPayload(parsing: frame.payload)
                found.append(KeyWrapRecord(binding: binding, payload: payload))
            } catch {
                throw Self.wrapProblem(error, sequence: frame.sequence)
            }
        }
        if !found.isEmpty, found[0].binding.sequence != 1 {
            throw ServiceError(.tampered(sequence: 1, reason: "the journal does not start with a key wrap"))
        }
        wraps = found
        failuresSinceLastSuccess = index.trailingKind == .publicSealed ? index.trailingCount : 0
    }

    private static func wrapProblem(_ error: KeyWrapPayload.ParseFailure, sequence: UInt64) -> ServiceError {
        switch error {
        case .malformed(let reason):
            return ServiceError(.tampered(sequence: sequence, reason: reason))
        case .unsafeParameters(let ops, let mem):
            return ServiceError(.tampered(
                sequence: sequence,
                reason: "key-derivation cost out of bounds (opslimit \(ops), memlimit \(mem)); refused before any work"))
        }
    }

    /// Releases the journal and its lock, signing out first when signed in.
    public func close() throws(ServiceError) {
        defer {
            keyring?.wipe()
            keyring = nil
            state = GiftList()
            journal = nil
            wraps = []
        }
        if keyring != nil {
            try signOut()
        }
    }

    private func requireJournal() throws(ServiceError) -> Journal {
        guard let journal else { throw ServiceError(.noJournal(path: journalPath)) }
        return journal
    }

    /// Ctrl-C in the shell (``ServiceEnvironment/isCancelled``): stop here, nothing recorded yet.
    private func stopIfCancelled() throws(ServiceError) {
        guard !environment.isCancelled() else { throw ServiceError(.cancelled) }
    }

    /// Throws what an append would: the journal failed a write earlier in this session.
    func requireAppendable() throws(ServiceError) {
        let journal = try requireJournal()
        guard journal.canAppend else { throw ServiceError(.journal(JournalError(.unusable, path: journal.path))) }
    }

    private func requireKeyring() throws(ServiceError) -> Keyring {
        guard let keyring else { throw ServiceError(.notSignedIn) }
        return keyring
    }

    // MARK: Setup and login

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
    public func setup(name: String, password: SecureBytes, parameters: KDFParameters = .moderate) throws(ServiceError) {
        guard phase == .noAccount else {
            throw ServiceError(keyring == nil ? .journalExists(path: journalPath) : .alreadySignedIn)
        }
        guard password.count > 0 else { throw ServiceError(.emptyPassword) }
        guard parameters.isProductionStrength || environment.allowsTestKeyDerivationCost else {
            throw ServiceError(.weakKeyDerivation)
        }
        let now = environment.now()
        let events: [Event]
        do {
            events = try GiftList.decide(.createAccount(name: normalized(name)), at: now, state: GiftList())
        } catch {
            throw ServiceError(.domain(error))
        }
        let journal: Journal
        if let existing = self.journal {
            journal = existing
        } else {
            do {
                journal = try Journal.create(at: journalPath)
            } catch {
                // Not opened first (or created by someone else since): the same refusal as
                // a journal found by open(), never a replaced file.
                if error.code == .alreadyExists { throw ServiceError(.journalExists(path: journalPath)) }
                throw ServiceError(.journal(error))
            }
            self.journal = journal
        }
        let newKeyring = try crypto { () throws in
            let salt = try PasswordKDF.generateSalt()
            let passwordKey = try PasswordKDF.deriveKey(password: password, salt: salt, parameters: parameters)
            defer { passwordKey.wipe() }
            let dataKey = try AEAD.generateKey()
            let boxKeyPair = try BoxKeyPair.generate()
            let wrap = try self.appendWrap(
                to: journal, parameters: parameters, salt: salt, passwordKey: passwordKey, dataKey: dataKey,
                boxKeyPair: boxKeyPair, previousDataKey: nil, eventsAfter: events)
            self.wraps = [wrap]
            return Keyring(first: Keyring.Epoch(wrapSequence: wrap.binding.sequence, dataKey: dataKey, boxKeyPair: boxKeyPair))
        }
        keyring = newKeyring
        state = GiftList.fold(events)
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
        let journal = try requireJournal()
        let unlocked = try unlock(password: password, recordFailure: journal)
        var replayed: GiftList
        do {
            replayed = try fold(journal: journal, keyring: unlocked)
        } catch {
            unlocked.wipe()
            throw error
        }
        guard !environment.isCancelled() else {
            unlocked.wipe()
            throw ServiceError(.cancelled)
        }
        if refusesRollback, let rollbackFinding {
            unlocked.wipe()
            throw ServiceError(.rolledBack(rollbackFinding))
        }
        keyring = unlocked
        let failedSinceLastVisit = replayed.failedSignIns.count
        let previousVisit = replayed.lastSignInAt
        let now = environment.now()
        do {
            var events = try GiftList.decide(.endUncleanSession, at: now, state: replayed)
            let unclean = !events.isEmpty
            for event in events { replayed.apply(event) }
            let signIn = try GiftList.decide(.signIn, at: now, state: replayed)
            events += signIn
            for event in signIn { replayed.apply(event) }
            state = replayed
            try appendSealed(events)
            failuresSinceLastSuccess = 0
            if unclean { notify(.uncleanSessionRecorded) }
        } catch let error as DomainError {
            discardSession()
            throw ServiceError(.domain(error))
        } catch let error as ServiceError {
            discardSession()
            throw error
        } catch {
            discardSession()
            throw ServiceError(.internalFailure("\(error)"))
        }
        notify(.signedIn(name: state.accountName ?? "", failedAttempts: failedSinceLastVisit, previousVisit: previousVisit))
        rememberHead()
    }

    /// Unlocks the keyring, recording a failed attempt in `recordFailure` when given.
    func unlock(password: SecureBytes, recordFailure journal: Journal?) throws(ServiceError) -> Keyring {
        guard password.count > 0 else { throw ServiceError(.emptyPassword) }
        environment.sleep(nextLoginDelay)
        try stopIfCancelled()
        do {
            return try Keyring.unlock(password: password, wraps: wraps)
        } catch Keyring.UnlockFailure.wrongPassword {
            var recorded = false
            if let journal {
                try recordFailedLogin(in: journal)
                recorded = true
            }
            notify(.failedAttempt(recorded: recorded, nextDelaySeconds: nextLoginDelay))
            throw ServiceError(.wrongPassword(recorded: recorded))
        } catch Keyring.UnlockFailure.damagedWrap(let sequence, let reason) {
            throw ServiceError(.tampered(sequence: sequence, reason: reason))
        } catch {
            throw ServiceError(.internalFailure("\(error)"))
        }
    }

    private func recordFailedLogin(in journal: Journal) throws(ServiceError) {
        guard let newest = wraps.last else { return }
        let event = Event(at: environment.now(), .loginFailed)
        do {
            try journal.append { batch in
                let binding = FrameBinding(
                    formatVersion: journal.header.formatVersion, journalID: journal.header.journalID,
                    sequence: batch.nextSequence, kind: .publicSealed, previousHash: batch.previousHash)
                try batch.add(
                    kind: .publicSealed,
                    payload: EventSealing.sealedToPublicKey(event, publicKey: newest.payload.publicKey, binding: binding))
            }
        } catch let error as JournalError {
            throw ServiceError(.journal(error))
        } catch {
            throw ServiceError(.internalFailure("\(error)"))
        }
        failuresSinceLastSuccess += 1
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
    }

    private func discardSession() {
        keyring?.wipe()
        keyring = nil
        state = GiftList()
        rollbackFinding = nil
    }

    // MARK: Commands

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

    /// Decides, seals, appends (one fsync) and applies; `[]` when already satisfied.
    @discardableResult
    func decideAndAppend(_ command: Command) throws(ServiceError) -> [Event] {
        guard keyring != nil else { throw ServiceError(.notSignedIn) }
        let events: [Event]
        do {
            events = try GiftList.decide(normalized(command), at: environment.now(), state: state)
        } catch {
            throw ServiceError(.domain(error))
        }
        guard !events.isEmpty else { return [] }
        try appendSealed(events)
        for event in events { state.apply(event) }
        return events
    }

    /// The wait before `passwd` checks a current password, after wrong ones this session.
    public var nextPasswordChangeDelay: Int { loginDelay(afterFailures: passwordChangeFailures) }

    /// Changes the password: checks the old one, wraps a brand-new data key under the new
    /// one (new salt, same cost, new key pair), and carries the previous data key inside the
    /// new wrap so history stays readable with the new password only.
    public func changePassword(old: SecureBytes, new: SecureBytes) throws(ServiceError) {
        do {
            try changePassword(old: old) { new }
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError(.internalFailure("\(error)"))
        }
    }

    /// Like ``changePassword(old:new:)``, but asks `newPassword` for the new password only
    /// once the old one has been checked, so a mistyped current password is said at once.
    /// `newPassword`'s errors (a cancelled prompt, two entries that differ) are rethrown.
    public func changePassword(old: SecureBytes, newPassword: () throws -> SecureBytes) throws {
        let keyring = try requireKeyring()
        let journal = try requireJournal()
        guard let newestWrap = wraps.last, let current = keyring.newest else { throw ServiceError(.notSignedIn) }
        environment.sleep(loginDelay(afterFailures: passwordChangeFailures))
        try stopIfCancelled()
        let matches = try crypto { () throws in
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
        let events: [Event]
        do {
            events = try GiftList.decide(.changePassword, at: environment.now(), state: state)
        } catch {
            throw ServiceError(.domain(error))
        }
        let parameters = newestWrap.payload.parameters
        let epoch = try crypto { () throws in
            let salt = try PasswordKDF.generateSalt()
            let passwordKey = try PasswordKDF.deriveKey(password: new, salt: salt, parameters: parameters)
            defer { passwordKey.wipe() }
            let dataKey = try AEAD.generateKey()
            let boxKeyPair = try BoxKeyPair.generate()
            let wrap = try self.appendWrap(
                to: journal, parameters: parameters, salt: salt, passwordKey: passwordKey, dataKey: dataKey,
                boxKeyPair: boxKeyPair, previousDataKey: current.dataKey, eventsAfter: events)
            self.wraps.append(wrap)
            return Keyring.Epoch(wrapSequence: wrap.binding.sequence, dataKey: dataKey, boxKeyPair: boxKeyPair)
        }
        keyring.append(epoch)
        for event in events { state.apply(event) }
        rememberHead()  // not while a rollback stands; then accepting it writes the head
        acceptRollbackAfterChange()
    }

    /// Appends a key-wrap frame and the events sealed under its new data key, in one batch.
    private func appendWrap(
        to journal: Journal, parameters: KDFParameters, salt: [UInt8], passwordKey: SecureBytes,
        dataKey: SecureBytes, boxKeyPair: BoxKeyPair, previousDataKey: SecureBytes?, eventsAfter events: [Event]
    ) throws -> KeyWrapRecord {
        var record: KeyWrapRecord?
        let header = journal.header
        // A fatal signal's key wipe waits for this batch (SecureBytes.whileKeysInUse).
        try SecureBytes.whileKeysInUse { () throws in try journal.append { batch in
            let binding = FrameBinding(
                formatVersion: header.formatVersion, journalID: header.journalID,
                sequence: batch.nextSequence, kind: .keyWrap, previousHash: batch.previousHash)
            let payload = try KeyWrapPayload.make(
                parameters: parameters, salt: salt, passwordKey: passwordKey, dataKey: dataKey,
                boxKeyPair: boxKeyPair, previousDataKey: previousDataKey, binding: binding)
            try batch.add(kind: .keyWrap, payload: payload)
            record = KeyWrapRecord(binding: binding, payload: try KeyWrapPayload(parsing: payload))
            for event in events {
                let eventBinding = FrameBinding(
                    formatVersion: header.formatVersion, journalID: header.journalID,
                    sequence: batch.nextSequence, kind: .dataSealed, previousHash: batch.previousHash)
                try batch.add(kind: .dataSealed, payload: EventSealing.sealed(event, dataKey: dataKey, binding: eventBinding))
            }
        } }
        guard let record else { throw ServiceError(.internalFailure("key wrap was not written")) }
        return record
    }

    /// Seals `events` under the newest data key and appends them as one batch (one fsync).
    func appendSealed(_ events: [Event]) throws(ServiceError) {
        let keyring = try requireKeyring()
        let journal = try requireJournal()
        guard let epoch = keyring.newest else { throw ServiceError(.notSignedIn) }
        let header = journal.header
        do {
            // A fatal signal's key wipe waits for this batch (SecureBytes.whileKeysInUse).
            try SecureBytes.whileKeysInUse { () throws in
                try journal.append { batch in
                    for event in events {
                        let binding = FrameBinding(
                            formatVersion: header.formatVersion, journalID: header.journalID,
                            sequence: batch.nextSequence, kind: .dataSealed, previousHash: batch.previousHash)
                        try batch.add(kind: .dataSealed, payload: EventSealing.sealed(event, dataKey: epoch.dataKey, binding: binding))
                    }
                }
            }
        } catch let error as JournalError {
            throw ServiceError(.journal(error))
        } catch {
            throw ServiceError(.internalFailure("\(error)"))
        }
    }

    // MARK: Replay

    /// Replays and authenticates every frame into a fresh state, then compares the journal
    /// with the remembered head: a rollback found is announced and kept in ``rollbackFinding``.
    private func fold(journal: Journal, keyring: Keyring) throws(ServiceError) -> GiftList {
        var state = GiftList()
        state.reserveCapacity(journal.frameCount)
        var check = RollbackCheck(rememberedHead(journal: journal, keyring: keyring))
        try Replayer.replay(journal: journal, keyring: keyring, progress: onProgress) { frame, event in
            check.observe(frame)
            if let event { state.apply(event) }
        }
        rollbackFinding = check.finding(lastSequence: journal.lastSequence, headHash: journal.headHash)
        if let rollbackFinding { notify(rollbackFinding.notification) }
        return state
    }

    /// The full history, one record per frame, for `history` (signed in).
    public func history() throws(ServiceError) -> [AuditRecord] {
        let keyring = try requireKeyring()
        let journal = try requireJournal()
        var records: [AuditRecord] = []
        records.reserveCapacity(journal.frameCount)
        try Replayer.replay(journal: journal, keyring: keyring, progress: onProgress) { frame, event in
            records.append(AuditRecord(sequence: frame.sequence, kind: frame.kind, event: event))
        }
        return records
    }

    // MARK: Rollback memory

    func rememberedHead(journal: Journal, keyring: Keyring) -> RememberedHead.ReadResult {
        guard let directory = environment.stateDirectory else { return .none }
        return RememberedHead.read(from: directory, journalID: journal.header.journalID, journalPath: journalPath) { wrapSequence in
            keyring.epochs.first { $0.wrapSequence == wrapSequence }?.dataKey
        }
    }

    /// Remembers the current head; a failure here is not fatal (the journal is intact).
    ///
    /// Never while a rollback found at sign-in stands: the remembered head is the evidence,
    /// and overwriting it with this older or other history would silence the warning.
    private func rememberHead() {
        guard rollbackFinding == nil else { return }
        guard let directory = environment.stateDirectory, let journal, let epoch = keyring?.newest else { return }
        let head = RememberedHead(
            journalID: journal.header.journalID, lastSequence: journal.lastSequence,
            headHash: journal.headHash, epochWrapSequence: epoch.wrapSequence)
        try? head.write(to: directory, journalPath: journalPath, dataKey: epoch.dataKey)
    }

    /// After a change the user made: when a rollback warning stands and this session may
    /// accept it (``acceptsRollbackOnChange``), the journal as it is now becomes the one
    /// remembered, and the warning stops.
    func acceptRollbackAfterChange() {
        guard rollbackFinding != nil, acceptsRollbackOnChange else { return }
        rollbackFinding = nil
        rememberHead()
        notify(.rollbackAccepted)
    }

    // MARK: Helpers

    private func notify(_ notification: LoginNotification) {
        onNotification?(notification)
    }

    private func crypto<T>(_ body: () throws -> T) throws(ServiceError) -> T {
        do {
            return try body()
        } catch let error as ServiceError {
            throw error
        } catch let error as JournalError {
            throw ServiceError(.journal(error))
        } catch let error as CryptoError {
            throw ServiceError(.internalFailure(error.description))
        } catch {
            throw ServiceError(.internalFailure("\(error)"))
        }
    }
}

/// Thrown inside a replay callback to stop early; the caller has recorded why.
struct ReplayStop: Error {}

extension Keyring {
    /// A keyring with the single epoch a new account starts with.
    convenience init(first epoch: Epoch) {
        self.init(epochs: [epoch])
    }
}
