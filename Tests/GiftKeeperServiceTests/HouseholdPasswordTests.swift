import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperService
import OrderedCollections
import Testing

/// `passwd` in a household (SPEC §13; docs/threat-model.md, "`passwd` in a household"): a
/// member renews their key pairs in a new epoch that their old signing key vouches for. The
/// others take the change in and verify what follows with the new key; the old key can no
/// longer write; the old password and code open only what was written before.
@Suite struct HouseholdPasswordTests {
    static func open(_ world: HouseholdWorld, as id: MemberID, password: String? = nil, code: String? = nil) throws -> HouseholdMember {
        try HouseholdMember.open(
            world.store.handle(), as: id, password: try password.map(HouseholdWorld.secret), recoveryCode: try code.map(HouseholdWorld.secret),
            initial: HouseholdWorld.initial)
    }

    /// Bob renews his keys in Alice's, Bob's and Carol's household, after a present for him,
    /// one for Grandma and a note of his own; the sequence number of his renewal's epoch frame.
    static func renewed() throws -> (HouseholdWorld, alice: HouseholdMember, bob: HouseholdMember, carol: HouseholdMember, old: MemberID) {
        let (world, alice, bob, carol) = try HouseholdJournalTests.household()
        try alice.record([try world.present(for: "Bob", "Before, for Bob")], for: .everyoneBut(bob.id))
        try bob.record([try world.present(for: "Grandma", "Before")], for: .everyone)
        try bob.record([try world.present(for: "Mum", "Bob's own note")], for: .only(bob.id))
        let old = bob.id
        try bob.renewKeys(
            password: try HouseholdWorld.secret("bob-new"), recoveryCode: try HouseholdWorld.secret("recovery:bob-new"),
            parameters: .testMinimum)
        return (world, alice, bob, carol, old)
    }

    @Test("Bob's passwd: new keys in a new epoch; Alice and Carol verify his later events with them; Bob still reads what came before")
    func renewal() throws {
        let (world, alice, bob, carol, old) = try Self.renewed()
        #expect(bob.id != old && bob.keyring.isMember && bob.secrets.earlier.map(\.id) == [old])
        try bob.record([try world.present(for: "Grandma", "After")], for: .everyone)
        var authors: [String: MemberID] = [:]
        for member in [alice, carol] {
            try member.catchUp { entry in
                if case .presentAdded(_, _, let title, _, _, _, _, _) = entry.event.body { authors[title] = entry.author }
            }
            #expect(member.keyring.members.contains(bob.id) && !member.keyring.members.contains(old))
            #expect(member.keyring.successors == [old: bob.id])
            #expect(HouseholdJournalTests.titles(member).contains("After"))
        }
        #expect(authors["After"] == bob.id)
        // A present for Bob now goes to everyone but his new identity: Carol reads it, Bob does not.
        try alice.record([try world.present(for: "Bob", "After, for Bob")], for: .everyoneBut(bob.id))
        for member in [alice, bob, carol] { try member.catchUp() }
        #expect(HouseholdJournalTests.titles(carol) == ["Before, for Bob", "Before", "After", "After, for Bob"])
        #expect(HouseholdJournalTests.titles(bob) == ["Before", "Bob's own note", "After"])
        for keyring in bob.keyring.held.values {
            #expect(keyring.keys[.everyoneBut(bob.id)] == nil && keyring.keys[.everyoneBut(old)] == nil)
        }
        // Bob signs in afresh with his new password, or his new code: the same state, old and new.
        #expect(try Self.open(world, as: bob.id, password: "bob-new").state == bob.state)
        #expect(try Self.open(world, as: bob.id, code: "recovery:bob-new").state == bob.state)
        // The old password and code do not open the new identity's wrap.
        #expect(HouseholdRecoveryTests.isWrongPassword { try Self.open(world, as: bob.id, password: "bob-pw") })
        #expect(HouseholdRecoveryTests.isWrongPassword { try Self.open(world, as: bob.id, code: "recovery:bob-pw") })
    }

    @Test("The old password opens only what was written before the renewal: no key it gives opens a frame after it")
    func oldPassword() throws {
        let (world, alice, bob, carol, old) = try Self.renewed()
        let renewal = try #require(try world.frames().last { $0.kind == .epoch }).position.sequence
        try bob.record([try world.present(for: "Grandma", "After")], for: .everyone)
        try bob.record([try world.present(for: "Mum", "Bob's new note")], for: .only(bob.id))
        try alice.record([try world.present(for: "Carol", "After, for Carol")], for: .everyoneBut(carol.id))
        let stale = try Self.open(world, as: old, password: "bob-pw")
        #expect(!stale.keyring.isMember)
        #expect(HouseholdJournalTests.titles(stale) == ["Before", "Bob's own note"])
        let staleKeys = stale.keyring.held.values.flatMap { $0.keys.values } + [stale.secrets.onlyMe]
        var after = 0
        for (position, kind, payload) in try world.frames() where kind == .householdEvent && position.sequence > renewal {
            after += 1
            for key in staleKeys { #expect(!HouseholdEvents.keyOpensForTests(payload, at: position, key: key)) }
        }
        #expect(after >= 3)
        // Recovery with the old code reaches the old identity only, as the old password does.
        #expect(HouseholdJournalTests.titles(try Self.open(world, as: old, code: "recovery:bob-pw")) == ["Before", "Bob's own note"])
    }

    @Test("An event signed with Bob's old key after his renewal is refused by every member, with its position")
    func oldKeyAfterRenewal() throws {
        let (world, alice, bob, carol, old) = try Self.renewed()
        let oldIdentity = try #require(bob.secrets.earlier.first).identity
        #expect(oldIdentity.id == old)
        for member in [alice, carol] { try member.catchUp() }
        // Whoever holds the old key and the epoch's keys (here Carol's) still cannot write as Bob's old identity.
        let keys = try #require(carol.keyring.keys)
        let everyone = try #require(keys.keys[.everyone])
        let forged = try world.appendRaw(.householdEvent) { position in
            try HouseholdEvents.sealForTests(
                EventCodec.encode(world.present(for: "Mum", "Forged")), at: position, epoch: carol.keyring.epoch, for: everyone,
                everyone: everyone, signer: oldIdentity, claiming: old)
        }
        for member in [alice, bob, carol] {
            #expect(HouseholdWorld.refusal(member) == HouseholdRefusal(sequence: forged, reason: .event(.authorNotMember)))
        }
    }

    @Test("A renewal that changes more than one member's keys, or that a member's old key did not sign, is refused with its position")
    func forgedRenewals() throws {
        // Bob's old and new keys sign a renewal that also drops Carol: not a renewal.
        do {
            let (world, alice, bob, carol) = try HouseholdJournalTests.household()
            let fresh = try MemberIdentity.generate()
            var roster = Self.swapping(bob.id, for: fresh, in: alice.keyring.members)
            roster.remove(carol.id)
            let sequence = try Self.appendEpoch(world, alice, roster: roster, owners: [alice.id], author: fresh, renewing: bob.secrets.identity)
            #expect(HouseholdWorld.refusal(alice) == HouseholdRefusal(sequence: sequence, reason: .changeNotAllowed))
        }
        // A stranger's key vouches for new keys.
        do {
            let (world, alice, bob, _) = try HouseholdJournalTests.household()
            let (stranger, fresh) = (try MemberIdentity.generate(), try MemberIdentity.generate())
            let roster = Self.swapping(bob.id, for: fresh, in: alice.keyring.members)
            let sequence = try Self.appendEpoch(world, alice, roster: roster, owners: [alice.id], author: fresh, renewing: stranger)
            #expect(HouseholdWorld.refusal(alice) == HouseholdRefusal(sequence: sequence, reason: .grant(.authorNotMember)))
        }
        // Carol's key signs new keys in Bob's place, naming Bob: the signatures do not cover that.
        do {
            let (world, alice, bob, carol) = try HouseholdJournalTests.household()
            let fresh = try MemberIdentity.generate()
            let roster = Self.swapping(bob.id, for: fresh, in: alice.keyring.members)
            let sequence = try world.appendRaw(.epoch) { position in
                let at = EpochPosition(
                    journalID: position.journalID, sequence: position.sequence, previousHash: position.previousHash,
                    epoch: alice.keyring.epoch + 1)
                let (frame, keys) = try EpochGrants.begin(
                    at: at, roster: roster, owners: [alice.id], author: fresh, renewing: carol.secrets.identity)
                let renewal = try #require(frame.body.renewal)
                let body = frame.body
                let named = EpochBody(
                    position: at, author: body.author, roster: body.roster, owners: body.owners, commitments: body.commitments,
                    signature: body.signature, renewal: EpochRenewal(from: bob.id, signature: renewal.signature))
                let everyone = try #require(keys.first { $0.audience == .everyone })
                return try HouseholdFrames.encode(EpochFrame(body: named, grants: frame.grants), everyone: everyone, at: position)
            }
            #expect(HouseholdWorld.refusal(alice) == HouseholdRefusal(sequence: sequence, reason: .grant(.badSignature)))
        }
    }

    /// `roster` with `old`'s keys replaced by `new`'s.
    static func swapping(_ old: MemberID, for new: MemberIdentity, in roster: Roster) -> Roster {
        var swapped = roster
        swapped.remove(old)
        swapped.admit(new.keys)
        return swapped
    }

    /// Appends an epoch frame of `roster` and `owners` by `author` renewing `renewing`, as a
    /// member holding those keys could.
    static func appendEpoch(
        _ world: HouseholdWorld, _ member: HouseholdMember, roster: Roster, owners: Set<MemberID>, author: MemberIdentity,
        renewing: MemberIdentity
    ) throws -> UInt64 {
        try world.appendRaw(.epoch) { position in
            let at = EpochPosition(
                journalID: position.journalID, sequence: position.sequence, previousHash: position.previousHash,
                epoch: member.keyring.epoch + 1)
            let (frame, keys) = try EpochGrants.begin(at: at, roster: roster, owners: owners, author: author, renewing: renewing)
            let everyone = try #require(keys.first { $0.audience == .everyone })
            return try HouseholdFrames.encode(frame, everyone: everyone, at: position)
        }
    }

    @Test("An owner's renewal keeps them an owner; Bob's wrap of version 2 holds his earlier identity")
    func ownerRenews() throws {
        let (world, alice, bob, carol) = try HouseholdJournalTests.household()
        let old = alice.id
        try alice.renewKeys(
            password: try HouseholdWorld.secret("alice-new"), recoveryCode: try HouseholdWorld.secret("recovery:alice-new"),
            parameters: .testMinimum)
        for member in [alice, bob, carol] { try member.catchUp() }
        #expect(bob.keyring.owners == [alice.id] && alice.id != old)
        // The new owner identity admits and removes; the old one is nobody.
        try alice.remove(carol.id)
        try bob.catchUp()
        #expect(!bob.keyring.members.contains(carol.id))
        let wrap = try #require(try world.frames().last { $0.kind == .memberWrap })
        #expect(wrap.payload.first == MemberWrapPayload.renewedVersion && wrap.payload.count == MemberWrapPayload.length(earlier: 1))
        #expect(MemberWrapPayload.length(earlier: 1) == 587)
        // Twice renewed: both earlier identities, newest first.
        try alice.renewKeys(
            password: try HouseholdWorld.secret("alice-3"), recoveryCode: try HouseholdWorld.secret("recovery:alice-3"), parameters: .testMinimum)
        let again = try Self.open(world, as: alice.id, password: "alice-3")
        #expect(again.secrets.earlier.count == 2 && again.secrets.earlier.last?.id == old && again.state == alice.state)
    }

    @Test("In the sessions: Bob keeps his name after his passwd; a present for Bob goes to everyone but his new keys")
    func sessions() throws {
        let home = try HouseholdSessionTests.Household()
        let old = home.bob.id
        try home.bob.perform(.addWish(wisher: "Bob", title: "Kite"))
        try home.bob.renewKeys(
            try HouseholdSessionTests.secret("bob-new"), recoveryCode: try HouseholdSessionTests.secret("bob-rc2"), parameters: .testMinimum)
        try home.sync()
        #expect(home.bob.id != old)
        for session in [home.alice, home.bob, home.carol] {
            #expect(session.memberID(named: "Bob") == home.bob.id)
            #expect(session.members.compactMap(\.name).sorted() == ["Alice", "Bob", "Carol"])
            #expect(session.state.wishes.values.map(\.title) == ["Kite"])
        }
        try home.alice.perform(.addPresent(recipient: "Bob", title: "Surprise"))
        try home.sync()
        #expect(HouseholdSessionTests.titles(home.carol) == ["Surprise"])
        #expect(HouseholdSessionTests.titles(home.bob).isEmpty)
        #expect(home.carol.history.contains { $0.author == "Bob" })
    }
}
