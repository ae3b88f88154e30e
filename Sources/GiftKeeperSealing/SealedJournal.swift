package import GiftKeeperCrypto
package import GiftKeeperDomain
package import GiftKeeperJournal

/// A frame store seen through the journal's keys: the layer between the store and the
/// service that seals events into frames and opens them again.
///
/// It is the one place that binds a frame to its position (``binding(sequence:kind:previousHash:)``),
/// reads the key wraps before sign-in, appends sealed events, failed logins and new key
/// epochs, and replays the chain under a keyring. It knows nothing of sessions or rules.
package final class SealedJournal {
    package let store: any FrameStore

    /// The key wraps, in order; read when opened, kept up to date by appends.
    package private(set) var wraps: [KeyWrapRecord] = []

    /// Opens the sealed view of `store`: parses and checks its key wraps (no key needed).
    /// - Throws: ``JournalError/Code/unsupportedVersion(_:)`` for a household's journal
    ///   (format version 3), which only a household's member opens (``HouseholdMember``).
    package init(store: any FrameStore) throws(SealingError) {
        guard store.header.formatVersion <= JournalFormat.currentVersion else {
            throw .journal(JournalError(.unsupportedVersion(store.header.formatVersion), path: store.name))
        }
        self.store = store
        try readWraps()
    }

    package var header: JournalHeader { store.header }
    package var head: JournalHead { store.head }
    package var path: String { store.name }

    /// The failed logins recorded since the last other frame (they end the journal).
    package var trailingFailures: Int {
        let index = store.frameIndex
        return index.trailingKind == .publicSealed ? index.trailingCount : 0
    }

    /// What every sealed item of the frame at `sequence` is bound to. The only place a
    /// ``FrameBinding`` is made.
    package func binding(sequence: UInt64, kind: FrameKind, previousHash: [UInt8]) -> FrameBinding {
        FrameBinding(
            formatVersion: header.formatVersion, journalID: header.journalID, sequence: sequence, kind: kind,
            previousHash: previousHash)
    }

    // MARK: Key wraps

    /// Reads what is readable without a key, from what the store noted (``FrameIndex``): no
    /// second pass over the frames. Checks those of a pass in order: an event before any
    /// key wrap, then each wrap's parameters.
    private func readWraps() throws(SealingError) {
        let index = store.frameIndex
        if let firstEvent = index.firstDataSealedSequence,
            index.keyWraps.first.map({ firstEvent < $0.sequence }) ?? true
        {
            throw SealingError.tampered(sequence: firstEvent, .eventBeforeKeyWrap)
        }
        var found: [KeyWrapRecord] = []
        found.reserveCapacity(index.keyWraps.count)
        for frame in index.keyWraps {
            let binding = binding(sequence: frame.sequence, kind: .keyWrap, previousHash: frame.previousHash)
            do {
                found.append(KeyWrapRecord(binding: binding, payload: try KeyWrapPayload(parsing: frame.payload)))
            } catch {
                throw Self.wrapProblem(error, sequence: frame.sequence)
            }
        }
        if !found.isEmpty, found[0].binding.sequence != 1 {
            throw .tampered(sequence: 1, .noLeadingKeyWrap)
        }
        wraps = found
    }

    private static func wrapProblem(_ error: KeyWrapPayload.ParseFailure, sequence: UInt64) -> SealingError {
        switch error {
        case .malformed(let fault):
            return .tampered(sequence: sequence, .malformedKeyWrap(fault))
        case .unsafeParameters(let ops, let mem):
            return .tampered(sequence: sequence, .unsafeKeyDerivation(opsLimit: ops, memLimit: mem))
        }
    }

    /// Takes in the frames other writers appended since this handle last looked, and the
    /// key wraps among them (a password changed elsewhere).
    package func takeInOthers() throws(SealingError) {
        do {
            _ = try store.waitForFrames(after: store.head.sequence, milliseconds: 0)
        } catch {
            throw .journal(error)
        }
        if store.frameIndex.keyWraps.count != wraps.count { try readWraps() }
    }

    // MARK: Appending

    /// Seals `events` under `epoch`'s data key at the positions after the head and appends
    /// them as one batch (one fsync). A conflict (another writer first) writes nothing.
    package func appendSealed(_ events: [Event], epoch: Keyring.Epoch) throws(SealingError) -> AppendOutcome {
        try append { batch in
            for event in events { try addSealed(event, dataKey: epoch.dataKey, to: &batch) }
        }
    }

    /// Seals `event` under `dataKey` at `batch`'s next position.
    private func addSealed(_ event: Event, dataKey: SecureBytes, to batch: inout FrameBatch) throws {
        let binding = binding(sequence: batch.nextSequence, kind: .dataSealed, previousHash: batch.previousHash)
        try batch.add(kind: .dataSealed, payload: EventSealing.sealed(event, dataKey: dataKey, binding: binding))
    }

    /// Seals a failed login to `publicKey` at `batch`'s next position.
    private func addSealedToPublicKey(_ event: Event, publicKey: [UInt8], to batch: inout FrameBatch) throws {
        let binding = binding(sequence: batch.nextSequence, kind: .publicSealed, previousHash: batch.previousHash)
        try batch.add(kind: .publicSealed, payload: EventSealing.sealedToPublicKey(event, publicKey: publicKey, binding: binding))
    }

    /// A merge (SPEC §12): `batch` (the server's frames after the position shared with it),
    /// then `events` sealed after them, each as it was first recorded (a failed sign-in to
    /// the newest public key, every other event under `epoch`'s data key), replace this
    /// journal's frames after `batch`'s base at once, if its head is still this handle's.
    /// `whileReplacing` gets the new head once the frames are in place, before another
    /// process can lock them (``LocalFrameStore/rewrite(expecting:with:whileReplacing:)``).
    package func replaceTail(
        with batch: FrameBatch, sealing events: [Event], epoch: Keyring.Epoch, whileReplacing: (JournalHead) -> Void
    ) throws(SealingError) -> AppendOutcome {
        guard let local = store as? any LocalFrameStore else {
            throw .journal(JournalError(.unusable, path: path))
        }
        return try sealing {
            var batch = batch
            for event in events {
                if case .loginFailed = event.body, let newest = wraps.last {
                    try addSealedToPublicKey(event, publicKey: newest.payload.publicKey, to: &batch)
                } else {
                    try addSealed(event, dataKey: epoch.dataKey, to: &batch)
                }
            }
            return try local.rewrite(expecting: head, with: batch) { whileReplacing(batch.head) }
        }
    }

    /// Records a failed login without the password: sealed to the newest epoch's public key.
    package func appendFailedLogin(_ event: Event) throws(SealingError) -> AppendOutcome {
        guard let newest = wraps.last else { return .appended(head) }
        return try append { batch in try addSealedToPublicKey(event, publicKey: newest.payload.publicKey, to: &batch) }
    }

    /// A new key epoch: a fresh data key and key pair wrapped under `password` (new salt), in
    /// a key-wrap frame appended with `events` sealed under the new data key, in one batch;
    /// nil (nothing written) when another writer appended first.
    package func startEpoch(
        password: SecureBytes, parameters: KDFParameters, previousDataKey: SecureBytes?, eventsAfter events: [Event]
    ) throws(SealingError) -> Keyring.Epoch? {
        let (salt, passwordKey, dataKey, boxKeyPair): ([UInt8], SecureBytes, SecureBytes, BoxKeyPair)
        do {
            salt = try PasswordKDF.generateSalt()
            passwordKey = try PasswordKDF.deriveKey(password: password, salt: salt, parameters: parameters)
            dataKey = try AEAD.generateKey()
            boxKeyPair = try BoxKeyPair.generate()
        } catch {
            throw SealingError(error)
        }
        defer { passwordKey.wipe() }
        var record: KeyWrapRecord?
        let outcome = try append { batch in
            let binding = self.binding(sequence: batch.nextSequence, kind: .keyWrap, previousHash: batch.previousHash)
            let payload = try KeyWrapPayload.make(
                parameters: parameters, salt: salt, passwordKey: passwordKey, dataKey: dataKey,
                boxKeyPair: boxKeyPair, previousDataKey: previousDataKey, binding: binding)
            try batch.add(kind: .keyWrap, payload: payload)
            record = KeyWrapRecord(binding: binding, payload: try KeyWrapPayload(parsing: payload))
            for event in events { try addSealed(event, dataKey: dataKey, to: &batch) }
        }
        // The wrap is kept in ``wraps`` once durable.
        guard case .appended = outcome, let record else { return nil }
        wraps.append(record)
        return Keyring.Epoch(wrapSequence: record.binding.sequence, dataKey: dataKey, boxKeyPair: boxKeyPair)
    }

    /// Builds a batch on the store's head with `build` and appends it. A fatal signal's key
    /// wipe waits for the batch (``SecureBytes/whileKeysInUse(_:)``), so no frame sealed
    /// under a zeroed key reaches the store.
    private func append(_ build: (inout FrameBatch) throws -> Void) throws(SealingError) -> AppendOutcome {
        try sealing {
            var batch = store.makeBatch()
            try build(&batch)
            return try store.append(batch)
        }
    }

    /// Runs `body`, which seals with keys and writes what it sealed, while a fatal signal's
    /// key wipe waits; its failures as sealing errors.
    private func sealing<T>(_ body: () throws -> T) throws(SealingError) -> T {
        do {
            return try SecureBytes.whileKeysInUse(body)
        } catch {
            throw SealingError(error)
        }
    }

    // MARK: Replaying

    /// Calls `body` with each frame after `sequence` and its event (nil for key wraps),
    /// authenticating every frame under the key of its epoch. Stops at the first frame
    /// that does not authenticate or decode, throwing why; nothing is skipped. `body` may
    /// throw ``ReplayStop`` to end the replay there (`--as-of` reads no further than it needs).
    ///
    /// Each frame's previous hash is bound into its additional data, so a frame changed,
    /// moved or spliced fails to authenticate.
    package func replay(
        after sequence: UInt64 = 0, keyring: Keyring, progress: ((Int, Int) -> Void)?,
        _ body: (FrameView, Event?) throws -> Void
    ) throws(SealingError) {
        let epochs = keyring.epochs
        // The epoch in force after `sequence`: the newest whose wrap is at or before it.
        var epochIndex = epochs.lastIndex { $0.wrapSequence <= sequence } ?? -1
        do {
            try store.read(after: sequence, progress: progress) { frame in
                if frame.kind == .keyWrap {
                    epochIndex += 1
                    guard epochIndex < epochs.count, epochs[epochIndex].wrapSequence == frame.sequence else {
                        throw SealingError.tampered(sequence: frame.sequence, .unexpectedKeyWrap)
                    }
                    try body(frame, nil)
                    return
                }
                guard epochIndex >= 0 else {
                    throw SealingError.tampered(sequence: frame.sequence, .eventBeforeKeyWrap)
                }
                let event: Event
                do throws(EventSealing.OpenFailure) {
                    let binding = binding(sequence: frame.sequence, kind: frame.kind, previousHash: Array(frame.previousHash))
                    event = try EventSealing.open(frame, binding: binding, epoch: epochs[epochIndex])
                } catch {
                    throw Self.problem(error, sequence: frame.sequence)
                }
                try body(frame, event)
            }
        } catch {
            // The body stopped the replay early, on purpose: what it read is its answer.
            if error is ReplayStop { return }
            throw SealingError(error)
        }
    }

    package static func problem(_ failure: EventSealing.OpenFailure, sequence: UInt64) -> SealingError {
        switch failure {
        case .doesNotAuthenticate(let tampering):
            return .tampered(sequence: sequence, tampering)
        case .undecodable(let error):
            switch error {
            case .unknownEventType, .unsupportedSchemaVersion:
                return .unsupportedEvent(sequence: sequence, error)
            case .truncated, .varintOverflow, .nonCanonicalVarint, .invalidUTF8, .invalidValue, .trailingBytes:
                return .tampered(sequence: sequence, .undecodableEvent(error))
            }
        }
    }
}

/// Thrown inside a replay callback to stop early: after a problem (recorded by the caller,
/// and thrown), or because the body has read all it needs (the replay then just ends).
package struct ReplayStop: Error {
    package init() {}
}
