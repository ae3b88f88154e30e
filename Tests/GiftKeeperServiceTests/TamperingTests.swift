import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import OrderedCollections
import Testing

@testable import GiftKeeperSealing

/// The threat model's "writes the journal file" attacker, through the service: every change
/// is made with the keyless chain recomputed, so `verify` passes and only the keys catch it.
@Suite struct TamperingTests {
    /// Frames: 1 wrap, 2 accountCreated, 3 loginSucceeded, 4–6 presentAdded, 7 signedOut.
    private func journalWithPresents(_ sandbox: Sandbox, password secret: String = "correct horse") throws {
        let service = try sandbox.setUp(password: secret)
        try addScenarioPresents(service)
        try service.close()
    }

    /// Asserts that the journal at `sandbox.journalPath` passes the keyless verify, that
    /// audit stops at `sequence` as tampered, and that login refuses it with exit code 1
    /// appending nothing.
    private func expectTampered(
        _ sandbox: Sandbox, at sequence: UInt64, password secret: String = "correct horse",
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let verify = try Journal.verify(at: sandbox.journalPath)
        #expect(verify.isValid, "the forger recomputed the chain", sourceLocation: sourceLocation)
        let before = try sandbox.journalBytes()

        let report = try JournalAudit.audit(
            journalPath: sandbox.journalPath, password: password(secret), environment: sandbox.environment())
        #expect(!report.isValid, sourceLocation: sourceLocation)
        #expect(
            report.problem?.tampered?.sequence == sequence,
            "\(String(describing: report.problem))", sourceLocation: sourceLocation)
        #expect(report.problem?.exitCode == 1, sourceLocation: sourceLocation)
        #expect(report.records.map(\.sequence) == Array(1..<sequence), sourceLocation: sourceLocation)

        let service = sandbox.service()
        try service.open()
        let error = serviceError { try service.login(password: password(secret)) }
        #expect(error?.tampered?.sequence == sequence, "\(String(describing: error))", sourceLocation: sourceLocation)
        #expect(error?.exitCode == 1, sourceLocation: sourceLocation)
        #expect(service.phase == .locked, sourceLocation: sourceLocation)
        #expect(service.state.presents.isEmpty, sourceLocation: sourceLocation)
        #expect(try sandbox.journalBytes() == before, "login appended to a tampered journal", sourceLocation: sourceLocation)
    }

    @Test func aFlippedCiphertextBitWithARecomputedChainIsTampering() throws {
        let sandbox = try Sandbox()
        try journalWithPresents(sandbox)
        var raw = try RawJournal(sandbox.journalBytes())
        #expect(raw[sequence: 5].kind == 1)
        raw[sequence: 5].payload[30] ^= 0x10  // past the 24-byte nonce: the ciphertext
        try sandbox.writeJournal(raw.encoded())
        try expectTampered(sandbox, at: 5)
    }

    @Test func aFlippedBitWithoutTheChainRecomputedIsCorruption() throws {
        let sandbox = try Sandbox()
        try journalWithPresents(sandbox)
        var bytes = try sandbox.journalBytes()
        bytes[bytes.count - 40] ^= 0x01
        try sandbox.writeJournal(bytes)
        let error = serviceError { try sandbox.service().open() }
        guard case .corrupt(let problem)? = error?.journalErrorCode else {
            Issue.record("expected corrupt, got \(String(describing: error))")
            return
        }
        #expect(problem.sequence == 7)
        #expect(error?.exitCode == 1)
        #expect(try sandbox.journalBytes() == bytes)
    }

    @Test func aDoctoredKeyDerivationCostFailsTheUnwrapWithoutHanging() throws {
        let sandbox = try Sandbox()
        try journalWithPresents(sandbox)
        var raw = try RawJournal(sandbox.journalBytes())
        #expect(raw[sequence: 1].kind == 3)
        var ops: [UInt8] = []
        ops.appendLittleEndian(KDFParameters.maximumOpsLimit)
        raw[sequence: 1].payload.replaceSubrange(2..<10, with: ops)
        try sandbox.writeJournal(raw.encoded())
        #expect(try Journal.verify(at: sandbox.journalPath).isValid)

        let service = sandbox.service()
        try service.open()
        #expect(service.keyDerivationParameters?.opsLimit == KDFParameters.maximumOpsLimit)
        let before = try sandbox.journalBytes()
        let error = serviceError { try service.login(password: password("correct horse")) }
        // The chain was recomputed, so this machine's record of the head no longer matches:
        // reported as the alteration it is (exit 1), not as a wrong password, and nothing is
        // recorded into the altered file (issue 13, finding 7).
        guard case .rolledBack(.historyDiverged) = error?.code else {
            Issue.record("expected historyDiverged, got \(String(describing: error))")
            return
        }
        #expect(error?.exitCode == 1)
        #expect(try sandbox.journalBytes() == before)
        #expect(service.phase == .locked)
        #expect(sandbox.sleeps.delays.isEmpty, "no wait before the refusal")
    }

    @Test(arguments: [
        (UInt64(1_000_000), KDFParameters.testMinimum.memLimit),
        (KDFParameters.testMinimum.opsLimit, UInt64(1) << 40),
        (UInt64(0), KDFParameters.testMinimum.memLimit),
        (KDFParameters.testMinimum.opsLimit, UInt64(1024)),
    ])
    func anOutOfBoundsCostIsRefusedBeforeAnyWork(opsLimit: UInt64, memLimit: UInt64) throws {
        let sandbox = try Sandbox()
        try journalWithPresents(sandbox)
        var raw = try RawJournal(sandbox.journalBytes())
        var cost: [UInt8] = []
        cost.appendLittleEndian(opsLimit)
        cost.appendLittleEndian(memLimit)
        raw[sequence: 1].payload.replaceSubrange(2..<18, with: cost)
        let doctored = raw.encoded()
        try sandbox.writeJournal(doctored)

        // Refused on opening, before any password: no key is derived at that cost.
        let service = sandbox.service()
        let error = serviceError { try service.open() }
        #expect(error?.tampered?.sequence == 1, "\(String(describing: error))")
        #expect(error?.tampered?.tampering == .unsafeKeyDerivation(opsLimit: opsLimit, memLimit: memLimit))
        #expect(error?.exitCode == 1)
        let audit = serviceError {
            _ = try JournalAudit.audit(
                journalPath: sandbox.journalPath, password: password("correct horse"), environment: sandbox.environment())
        }
        #expect(audit?.tampered?.sequence == 1)
        #expect(try sandbox.journalBytes() == doctored)
    }

    @Test func aFrameFromAnotherJournalAtTheSameSequenceIsTampering() throws {
        let sandbox = try Sandbox()
        try journalWithPresents(sandbox)
        let other = try Sandbox()
        try journalWithPresents(other)
        var raw = try RawJournal(sandbox.journalBytes())
        let foreign = try RawJournal(other.journalBytes())
        #expect(raw.frames.count == foreign.frames.count)
        raw[sequence: 4] = foreign[sequence: 4]
        try sandbox.writeJournal(raw.encoded())
        try expectTampered(sandbox, at: 4)
    }

    @Test func anotherJournalsKeyWrapDoesNotOpenThisJournal() throws {
        let sandbox = try Sandbox()
        try journalWithPresents(sandbox)
        let other = try Sandbox()
        try journalWithPresents(other, password: "other password")
        var raw = try RawJournal(sandbox.journalBytes())
        raw[sequence: 1] = try RawJournal(other.journalBytes())[sequence: 1]
        try sandbox.writeJournal(raw.encoded())
        let spliced = raw.encoded()
        try sandbox.writeJournal(spliced)
        #expect(try Journal.verify(at: sandbox.journalPath).isValid)
        // The wrap's additional data binds this journal's id: neither password unwraps it.
        for secret in ["correct horse", "other password"] {
            let audit = serviceError {
                _ = try JournalAudit.audit(
                    journalPath: sandbox.journalPath, password: password(secret), environment: sandbox.environment())
            }
            // This machine remembers the journal's head: the splice shows as altered history.
            #expect(audit.map { "\($0.code)" }?.hasPrefix("rolledBack(") == true, "\(secret): \(String(describing: audit))")
        }
        #expect(try sandbox.journalBytes() == spliced)
        let service = sandbox.service()
        try service.open()
        let login = serviceError { try service.login(password: password("other password")) }
        #expect(login.map { "\($0.code)" }?.hasPrefix("rolledBack(") == true, "\(String(describing: login))")
        #expect(try sandbox.journalBytes() == spliced, "no failed login recorded into the altered file")
        #expect(service.state.presents.isEmpty)
        try service.close()

        // Without this machine's record, the same splice is only a password that does not open it.
        let elsewhere = sandbox.service(stateDirectory: .some(nil))
        try elsewhere.open()
        #expect(serviceError { try elsewhere.login(password: password("other password")) }?.wrongPasswordRecorded == true)
    }

    /// Frames are opened in batches on a second thread while the fold takes the batch
    /// before: wherever the altered frame lies (a batch's first or last frame, deep in a
    /// later batch, the last frame), the replay stops there with every frame before it
    /// shown, and a second alteration further on changes nothing.
    @Test func aFlippedBitDeepInALongJournalIsTamperingAtItsFrame() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp(password: "correct horse")
        for index in 0..<1_200 {
            try service.perform(.addPresent(recipient: index % 2 == 0 ? "Mum" : "Dad", title: "Present \(index)"))
        }
        try service.close()
        let original = try RawJournal(sandbox.journalBytes())
        let last = UInt64(original.frames.count)
        for sequence in [4, 512, 513, 600, 1_025, 1_100, last] {
            var raw = original
            raw[sequence: sequence].payload[30] ^= 0x10
            try sandbox.writeJournal(raw.encoded())
            try expectTampered(sandbox, at: sequence)
            raw[sequence: last].payload[30] ^= sequence == last ? 0 : 0x10
            try sandbox.writeJournal(raw.encoded())
            try expectTampered(sandbox, at: sequence)
        }
    }

    /// A long journal (events of many sizes, the opener's buffer grown on the way) replays
    /// to the state its changes made, and audit lists every frame once, in order.
    @Test func aLongJournalReplaysToTheStateItsChangesMade() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp(password: "correct horse")
        for index in 0..<1_600 {
            try service.perform(
                .addPresent(recipient: ["Mum", "Dad", "Zoë"][index % 3], title: "Present \(index)", notes: String(repeating: "n", count: index % 97)))
            if index % 7 == 0 { try service.perform(.markPresent(id: PresentID(number: UInt64(index + 1))!, status: .bought)) }
        }
        let made = service.state
        try service.close()
        let reopened = try sandbox.signIn(password: "correct horse")
        #expect(reopened.state.presents == made.presents)
        #expect(reopened.state.presentIDsByRecipient == made.presentIDsByRecipient)
        try reopened.close()
        let report = try JournalAudit.audit(
            journalPath: sandbox.journalPath, password: password("correct horse"), environment: sandbox.environment())
        #expect(report.isValid)
        #expect(report.records.map(\.sequence) == Array(1...UInt64(report.records.count)))
        #expect(report.records.count > 1_600)
    }

    @Test func reorderedDroppedAndDuplicatedFramesAreTampering() throws {
        let sandbox = try Sandbox()
        try journalWithPresents(sandbox)
        let original = try RawJournal(sandbox.journalBytes())

        var swapped = original
        let fourth = swapped.frames[3].payload  // frames 4 and 5 change places
        swapped.frames[3].payload = swapped.frames[4].payload
        swapped.frames[4].payload = fourth
        try sandbox.writeJournal(swapped.encoded())
        try expectTampered(sandbox, at: 4)

        var dropped = original
        dropped.frames.remove(at: 4)  // frame 5; later frames renumbered
        for index in dropped.frames.indices { dropped.frames[index].sequence = UInt64(index + 1) }
        try sandbox.writeJournal(dropped.encoded())
        try expectTampered(sandbox, at: 5)

        var duplicated = original
        duplicated.frames.insert(original.frames[3], at: 4)
        for index in duplicated.frames.indices { duplicated.frames[index].sequence = UInt64(index + 1) }
        try sandbox.writeJournal(duplicated.encoded())
        try expectTampered(sandbox, at: 5)
    }

    /// Anyone with the file has the public key, so a failed-login record can be forged:
    /// it is accepted, and shown as "reported" (threat model).
    @Test func aForgedFailedLoginIsShownAsReported() throws {
        let sandbox = try Sandbox()
        try journalWithPresents(sandbox)
        var raw = try RawJournal(sandbox.journalBytes())
        let forgedAt = Timestamp(millisecondsSinceEpoch: CounterClock.start + 3_600_000)
        raw.frames.append(try forgedPublicFrame(raw, Event(at: forgedAt, .loginFailed)))
        try sandbox.writeJournal(raw.encoded())
        #expect(try Journal.verify(at: sandbox.journalPath).isValid)

        let report = try JournalAudit.audit(
            journalPath: sandbox.journalPath, password: password("correct horse"), environment: sandbox.environment())
        #expect(report.isValid)
        #expect(report.reportedFailedLogins == [forgedAt])
        #expect(report.records.last?.isReported == true)
        #expect(report.records.filter(\.isReported).count == 1)

        let service = sandbox.service()
        try service.open()
        #expect(service.nextLoginDelay == 0, "one forged failure is within the three free ones")
        try service.login(password: password("correct horse"))
        guard case .signedIn(_, 1, _)? = sandbox.notifications.items.last else {
            Issue.record("expected 1 reported failed attempt: \(sandbox.notifications.items)")
            return
        }
        #expect(service.state.presents.count == 3)
        try service.close()
    }

    /// Only failed logins may be sealed to the public key: a forged present is tampering.
    @Test func aForgedEventSealedToThePublicKeyIsTampering() throws {
        let sandbox = try Sandbox()
        try journalWithPresents(sandbox)
        var raw = try RawJournal(sandbox.journalBytes())
        let forged = Event(
            at: Timestamp(millisecondsSinceEpoch: CounterClock.start),
            .presentAdded(
                id: PresentID(number: 9)!, recipient: "Mallory", title: "Trojan horse", notes: "", price: nil, occasion: ""))
        raw.frames.append(try forgedPublicFrame(raw, forged))
        try sandbox.writeJournal(raw.encoded())
        try expectTampered(sandbox, at: 8)
    }

    /// Format version 2 pads what it seals: a record that opens but is not padded was not
    /// written by GiftKeeper, and is refused with its position rather than read.
    @Test func anUnpaddedRecordInAPaddedJournalIsTampering() throws {
        let sandbox = try Sandbox()
        try journalWithPresents(sandbox)
        var raw = try RawJournal(sandbox.journalBytes())
        #expect(raw.version == 2)
        let event = Event(at: Timestamp(millisecondsSinceEpoch: CounterClock.start + 3_600_000), .loginFailed)
        raw.frames.append(try forgedPublicFrame(raw, event, padded: false))
        try sandbox.writeJournal(raw.encoded())
        try expectTampered(sandbox, at: 8)
    }

    /// A household's frame (kinds 4 to 8, journal format version 3) has no place in a person's
    /// journal: refused at its position, as tampering.
    @Test(arguments: [UInt8(4), 5, 7, 8])
    func aHouseholdFrameInAPersonsJournalIsTampering(kind: UInt8) throws {
        let sandbox = try Sandbox()
        try journalWithPresents(sandbox)
        var raw = try RawJournal(sandbox.journalBytes())
        raw.frames.append(RawJournal.Frame(sequence: UInt64(raw.frames.count + 1), kind: kind, payload: Array(repeating: 7, count: 160)))
        try sandbox.writeJournal(raw.encoded())
        try expectTampered(sandbox, at: 8)
    }

    /// A frame sealed to the newest wrap's public key, bound where it will be appended.
    /// Padded to 64-byte blocks as format version 2 writes it (`padded` nil: as the journal's version says).
    private func forgedPublicFrame(_ raw: RawJournal, _ event: Event, padded: Bool? = nil) throws -> RawJournal.Frame {
        let wrap = try #require(raw.frames.last { $0.kind == 3 })
        let publicKey = Array(wrap.payload[34..<66])
        let sequence = UInt64(raw.frames.count + 1)
        var binding: [UInt8] = [5]  // purpose: failed-login record
        binding.appendLittleEndian(raw.version)
        binding += raw.journalID
        binding.appendLittleEndian(sequence)
        binding.append(2)  // kind: sealed to the public key
        binding += raw.headHash
        var plaintext = binding + EventCodec.encode(event)
        if padded ?? (raw.version >= 2) { plaintext = try Padding.padded(plaintext, blockSize: 64) }
        let payload = try SealedBox.seal(plaintext, to: publicKey)
        return RawJournal.Frame(sequence: sequence, kind: 2, payload: payload)
    }
}
