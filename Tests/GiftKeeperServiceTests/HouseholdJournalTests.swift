import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import OrderedCollections
import Testing

/// A household's journal (format version 3) as each member signs in to it, folds it and
/// writes to it, in process over the memory store (issue 28; docs/threat-model.md,
/// "Households: the design"): issue 28's scenario, and each frame a member must refuse,
/// refused with its position.
@Suite struct HouseholdJournalTests {
    /// Alice (the owner), Bob and Carol, each admitted and the epoch completed.
    static func household() throws -> (HouseholdWorld, alice: HouseholdMember, bob: HouseholdMember, carol: HouseholdMember) {
        let world = try HouseholdWorld()
        let alice = try world.create(password: "alice-pw")
        let bob = try world.join(admittedBy: alice, password: "bob-pw")
        let carol = try world.join(admittedBy: alice, password: "carol-pw")
        for member in [alice, bob, carol] { try member.catchUp() }
        return (world, alice, bob, carol)
    }

    static func titles(_ member: HouseholdMember) -> Set<String> {
        Set(member.state.presents.values.map(\.title))
    }

    @Test("A present for Bob is Alice's and Carol's only; wishes reach everyone; only-me stays its author's")
    func audiences() throws {
        let (world, alice, bob, carol) = try Self.household()
        #expect(world.store.header.formatVersion == 3)
        try alice.record([world.present(for: "Bob", "Telescope")], for: .everyoneBut(bob.id))
        try bob.record([world.present(for: "Grandma", "Scarf")], for: .everyone)
        try carol.record([world.present(for: "Alice", "Secret note")], for: .only(carol.id))
        for member in [alice, bob, carol] { try member.catchUp() }
        #expect(Self.titles(alice) == ["Telescope", "Scarf"])
        #expect(Self.titles(carol) == ["Telescope", "Scarf", "Secret note"])
        #expect(Self.titles(bob) == ["Scarf"])
        // Bob's keyring holds no key of everyone-but-Bob in any epoch it has.
        for keyring in bob.keyring.held.values { #expect(keyring.keys[.everyoneBut(bob.id)] == nil) }
        // A member cannot write for an audience whose key they lack.
        #expect(throws: HouseholdError.self) { try bob.record([world.present(for: "Bob", "x")], for: .everyoneBut(bob.id)) }
        #expect(throws: HouseholdError.self) { try bob.record([world.present(for: "Bob", "x")], for: .only(carol.id)) }
        // Signing in afresh, with the password or the recovery code, folds the same state.
        let again = try HouseholdMember.open(
            world.store.handle(), as: carol.id, password: try HouseholdWorld.secret("carol-pw"), initial: HouseholdWorld.initial)
        #expect(again.state == carol.state)
        let recovered = try HouseholdMember.open(
            world.store.handle(), as: bob.id, recoveryCode: try HouseholdWorld.secret("recovery:bob-pw"), initial: HouseholdWorld.initial)
        #expect(recovered.state == bob.state)
        #expect(throws: HouseholdError.self) {
            try HouseholdMember.open(
                world.store.handle(), as: bob.id, password: try HouseholdWorld.secret("carol-pw"), initial: HouseholdWorld.initial)
        }
    }

    @Test("After Alice removes Carol, nothing appended opens with any key Carol held; Carol keeps what she read")
    func removal() throws {
        let (world, alice, bob, carol) = try Self.household()
        try alice.record([world.present(for: "Mum", "Before")], for: .everyone)
        try carol.catchUp()
        let carolsBefore = carol.state
        try alice.remove(carol.id)
        try bob.record([world.present(for: "Mum", "After")], for: .everyone)
        try alice.record([world.present(for: "Bob", "After, for Bob")], for: .everyoneBut(bob.id))
        try carol.catchUp()
        #expect(carol.state == carolsBefore && !carol.keyring.isMember)
        #expect(Self.titles(carol) == ["Before"])
        let carolsKeys = carol.keyring.held.values.flatMap { $0.keys.values }
        for (position, kind, payload) in try world.frames() where kind == .householdEvent && position.sequence > 0 {
            let epoch = payload.prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
            guard carol.keyring.held[epoch] == nil else { continue }
            for key in carolsKeys { #expect(!HouseholdEvents.keyOpensForTests(payload, at: position, key: key)) }
        }
        try alice.catchUp()
        #expect(Self.titles(alice) == ["Before", "After", "After, for Bob"])
        // Carol cannot write any more: her device holds no key of the new epoch.
        #expect(throws: HouseholdError.self) { try carol.record([world.present(for: "Mum", "x")], for: .everyone) }
    }

    @Test("A member who leaves is closed out by the next writer; the last owner cannot leave while others stay")
    func leaving() throws {
        let (world, alice, bob, carol) = try Self.household()
        #expect(throws: HouseholdError.self) { try alice.leave() }
        try carol.leave()
        let epoch = bob.keyring.epoch
        try bob.record([world.present(for: "Mum", "Tea")], for: .everyone)
        #expect(bob.keyring.epoch == epoch + 1 && !bob.keyring.members.contains(carol.id))
        try carol.catchUp()
        try alice.catchUp()
        #expect(Self.titles(alice) == ["Tea"] && Self.titles(carol).isEmpty)
        // A non-owner may not admit, an owner may name another.
        #expect(throws: HouseholdError.self) { try bob.admit(try MemberIdentity.generate().keys) }
        try alice.makeOwner(bob.id)
        try alice.leave()
        try bob.record([world.present(for: "Mum", "Cake")], for: .everyone)
        #expect(bob.keyring.owners == [bob.id] && bob.keyring.members.ids == [bob.id])
    }

    @Test("A frame moved, re-signed as another member, re-addressed, made by the server or by a removed member is refused with its position")
    func forgeries() throws {
        // Moved: Alice's frame appended again further on.
        do {
            let (world, alice, bob, carol) = try Self.household()
            try alice.record([world.present(for: "Mum", "Scarf")], for: .everyone)
            let original = try #require(try world.frames().last)
            let moved = try world.appendRaw(.householdEvent) { _ in original.payload }
            for member in [alice, bob, carol] {
                #expect(HouseholdWorld.refusal(member) == HouseholdRefusal(sequence: moved, reason: .event(.notFromAMember)))
            }
        }
        // Re-signed: Bob signs a present and names Alice its author.
        do {
            let (world, alice, bob, carol) = try Self.household()
            let keys = try #require(bob.keyring.keys)
            let everyone = try #require(keys.keys[.everyone])
            let forged = try world.appendRaw(.householdEvent) { position in
                try HouseholdEvents.sealForTests(
                    EventCodec.encode(world.present(for: "Mum", "Forged")), at: position, epoch: bob.keyring.epoch, for: everyone,
                    everyone: everyone, signer: bob.secrets.identity, claiming: alice.id)
            }
            for member in [alice, bob, carol] {
                #expect(HouseholdWorld.refusal(member) == HouseholdRefusal(sequence: forged, reason: .event(.badSignature)))
            }
        }
        // Re-addressed: Carol shows Alice's surprise for Bob to everyone, at its own place (the
        // signature covers the audience, so only the audience differs).
        do {
            let (world, alice, bob, carol) = try Self.household()
            let alices = try #require(alice.keyring.keys)
            let carols = try #require(carol.keyring.keys)
            let shown = try world.appendRaw(.householdEvent) { position in
                let surprise = try HouseholdEvents.seal(
                    EventCodec.encode(world.present(for: "Bob", "Surprise")), at: position, epoch: alice.keyring.epoch,
                    for: try #require(alices.keys[.everyoneBut(bob.id)]), everyone: try #require(alices.keys[.everyone]),
                    author: alice.secrets.identity)
                let everyone = try #require(carols.keys[.everyone])
                return try HouseholdEvents.readdressedForTests(
                    surprise, at: position, from: try #require(carols.keys[.everyoneBut(bob.id)]), to: everyone, everyone: everyone,
                    at: position)
            }
            for member in [alice, bob, carol] {
                #expect(HouseholdWorld.refusal(member) == HouseholdRefusal(sequence: shown, reason: .event(.badSignature)))
            }
        }
        // Made by the server, which holds no key.
        do {
            let (world, alice, bob, carol) = try Self.household()
            let serverKey = try AudienceKey.generate(for: .everyone)
            let made = try world.appendRaw(.householdEvent) { position in
                try HouseholdEvents.seal(
                    EventCodec.encode(world.present(for: "Mum", "x")), at: position, epoch: alice.keyring.epoch, for: serverKey,
                    everyone: serverKey, author: try MemberIdentity.generate())
            }
            for member in [alice, bob, carol] {
                #expect(HouseholdWorld.refusal(member) == HouseholdRefusal(sequence: made, reason: .event(.notFromAMember)))
            }
        }
        // A removed member writing with the keys they kept: the old epoch's, or the new epoch's number.
        for sameNumber in [false, true] {
            let (world, alice, bob, carol) = try Self.household()
            let kept = try #require(carol.keyring.keys)
            let everyone = try #require(kept.keys[.everyone])
            try alice.remove(carol.id)
            try bob.completeEpoch()
            let current = alice.keyring.epoch
            let written = try world.appendRaw(.householdEvent) { position in
                try HouseholdEvents.seal(
                    EventCodec.encode(world.present(for: "Mum", "x")), at: position, epoch: sameNumber ? current : kept.epoch,
                    for: everyone, everyone: everyone, author: carol.secrets.identity)
            }
            let reason: HouseholdRefusal.Reason =
                sameNumber ? .event(.notFromAMember) : .wrongEpoch(found: kept.epoch, current: current)
            for member in [alice, bob] { #expect(HouseholdWorld.refusal(member) == HouseholdRefusal(sequence: written, reason: reason)) }
        }
    }

    @Test("An epoch change a non-owner makes, a person's frame in a household and a wrap its member did not sign are refused")
    func refusedChanges() throws {
        let (world, alice, bob, carol) = try Self.household()
        let epoch = bob.keyring.epoch
        let roster = bob.keyring.members
        let admitted = try world.appendRaw(.epoch) { position in
            var grown = roster
            grown.admit(try MemberIdentity.generate().keys)
            let at = EpochPosition(
                journalID: position.journalID, sequence: position.sequence, previousHash: position.previousHash, epoch: epoch + 1)
            let (frame, keys) = try EpochGrants.begin(at: at, roster: grown, owners: [alice.id], author: bob.secrets.identity)
            return try HouseholdFrames.encode(frame, everyone: try #require(keys.first { $0.audience == .everyone }), at: position)
        }
        for member in [alice, bob, carol] {
            #expect(HouseholdWorld.refusal(member) == HouseholdRefusal(sequence: admitted, reason: .changeNotAllowed))
        }

        let (other, owner, _, _) = try Self.household()
        let personal = try other.appendRaw(.dataSealed) { _ in Array(repeating: 1, count: 80) }
        #expect(HouseholdWorld.refusal(owner) == HouseholdRefusal(sequence: personal, reason: .notAHouseholdFrame(.dataSealed)))

        let (third, member, _, _) = try Self.household()
        let wrap = try #require(try third.frames().first)
        var unsigned = wrap.payload
        unsigned[unsigned.count - 1] ^= 1
        let copied = try third.appendRaw(.memberWrap) { _ in unsigned }
        #expect(HouseholdWorld.refusal(member) == HouseholdRefusal(sequence: copied, reason: .memberWrap(.notSignedByItsMember)))
    }

    @Test("A leave by someone else or a non-member, a second completion and an epoch out of turn are refused with their position")
    func refusedMembershipFrames() throws {
        // A leave of Bob's that Carol signed; one by someone who is not a member.
        for signer in ["carol", "stranger"] {
            let (world, alice, bob, carol) = try Self.household()
            let stranger = try MemberIdentity.generate()
            let leave = try world.appendRaw(.leave) { position in
                let identity = signer == "carol" ? carol.secrets.identity : stranger
                var payload = try HouseholdFrames.Leave.make(by: identity, epoch: alice.keyring.epoch, at: position)
                if signer == "carol" { payload.replaceSubrange(8..<24, with: bob.id.bytes) }
                return payload
            }
            let reason: HouseholdRefusal.Reason = signer == "carol" ? .leaveNotSigned : .leaverNotMember
            for member in [alice, bob, carol] { #expect(HouseholdWorld.refusal(member) == HouseholdRefusal(sequence: leave, reason: reason)) }
        }
        // A second completion of an epoch Carol already completed.
        do {
            let (world, alice, bob, carol) = try Self.household()
            let frame = try #require(bob.keyring.epochFrame)
            let second = try world.appendRaw(.completion) { _ in
                HouseholdFrames.encode(try EpochGrants.complete(frame, by: bob.secrets.identity).0)
            }
            for member in [alice, bob, carol] {
                #expect(HouseholdWorld.refusal(member) == HouseholdRefusal(sequence: second, reason: .alreadyCompleted))
            }
        }
        // An epoch that skips a number.
        let (world, alice, bob, carol) = try Self.household()
        let epoch = alice.keyring.epoch
        let skipped = try world.appendRaw(.epoch) { position in
            let at = EpochPosition(
                journalID: position.journalID, sequence: position.sequence, previousHash: position.previousHash, epoch: epoch + 2)
            let (frame, keys) = try EpochGrants.begin(at: at, roster: alice.keyring.members, owners: [alice.id], author: alice.secrets.identity)
            return try HouseholdFrames.encode(frame, everyone: try #require(keys.first { $0.audience == .everyone }), at: position)
        }
        for member in [alice, bob, carol] {
            #expect(HouseholdWorld.refusal(member) == HouseholdRefusal(sequence: skipped, reason: .wrongEpoch(found: epoch + 2, current: epoch)))
        }
    }

    @Test(
        "Signing in with the device's verified mark checks only the signatures after it; another's mark or an altered one is passed over, another chain's refused"
    )
    func verifiedMark() throws {
        let (world, alice, bob, carol) = try Self.household()
        for number in 0..<6 { try alice.record([world.present(for: "Mum", "Gift \(number)")], for: .everyone) }
        let mark = try bob.verifiedMark()
        func signIn(_ mark: [UInt8]?) throws -> HouseholdMember {
            try HouseholdMember.open(
                world.store.handle(), as: bob.id, password: try HouseholdWorld.secret("bob-pw"), verifiedMark: mark,
                initial: HouseholdWorld.initial)
        }
        let full = try signIn(nil)
        #expect(full.keyring.signaturesVerified == 6)
        let quick = try signIn(mark)
        #expect(quick.keyring.signaturesVerified == 0 && quick.state == full.state)
        try carol.record([world.present(for: "Mum", "Later")], for: .everyone)
        let later = try signIn(mark)
        let fresh = try signIn(nil)
        #expect(later.keyring.signaturesVerified == 1 && later.state == fresh.state)
        let carols = try signIn(try carol.verifiedMark())
        #expect(carols.keyring.signaturesVerified == 7)
        var altered = mark
        altered[altered.count - 1] ^= 1
        let alteredSignIn = try signIn(altered)
        #expect(alteredSignIn.keyring.signaturesVerified == 7)
        // The last frame replaced by another (a fork): the mark made after it no longer holds.
        let markAfterLater = try bob.verifiedMark()
        let last = try #require(try world.frames().last)
        let handle = world.store.handle()
        var batch = FrameBatch(after: JournalHead(sequence: last.position.sequence - 1, hash: last.position.previousHash), path: "household")
        let keys = try #require(carol.keyring.keys)
        let everyone = try #require(keys.keys[.everyone])
        try batch.add(
            kind: .householdEvent,
            payload: try HouseholdEvents.seal(
                EventCodec.encode(world.present(for: "Mum", "Replaced")), at: last.position, epoch: carol.keyring.epoch, for: everyone,
                everyone: everyone, author: carol.secrets.identity))
        let rewritten = try handle.rewrite(expecting: handle.head, with: batch) {}
        #expect(rewritten == .appended(batch.head))
        // As long as the mark's chain but ending elsewhere: refused with its position, read no further (HouseholdForkTests).
        #expect(throws: HouseholdError.self) { try signIn(markAfterLater) }
        #expect(HouseholdForkTests.forkedAt { try signIn(markAfterLater) } == last.position.sequence)
        #expect(try signIn(nil).keyring.signaturesVerified == 7 && Self.titles(try signIn(nil)).contains("Replaced"))
    }
}
