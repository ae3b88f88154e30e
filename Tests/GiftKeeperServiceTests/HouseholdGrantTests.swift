import GiftKeeperCrypto
import GiftKeeperSealing
import GiftKeeperTestSupport
import Testing

/// Household epoch grants (issue 28; docs/threat-model.md, "Audiences, epochs and keys"):
/// the first property the design lists — no member ever holds the key of *everyone but
/// me* — over seeded histories of admissions and removals, and each check a member makes
/// on a grant, each broken on purpose.
@Suite struct HouseholdGrantTests {
    /// A position in a made-up journal.
    static func position(_ sequence: UInt64, epoch: UInt64) -> EpochPosition {
        EpochPosition(
            journalID: Array(repeating: 7, count: 16), sequence: sequence, previousHash: Array(repeating: UInt8(sequence % 251), count: 32),
            epoch: epoch)
    }

    @Test("Over seeded histories, every member holds exactly everyone and everyone-but-each-other, never everyone-but-me")
    func noMemberHoldsEveryoneButThemselves() throws {
        var random = TestRandom()
        for history in 0..<12 {
            var people = try (0..<(1 + Int.random(in: 0...3, using: &random))).map { _ in try MemberIdentity.generate() }
            var roster = Roster(people.map(\.keys))
            var previous: Roster?
            for epoch in 1...UInt64(4) {
                // An admission or a removal (never of the last member), by a member of the roster before.
                if epoch > 1 {
                    if people.count > 1, Bool.random(using: &random) {
                        let removed = people.remove(at: Int.random(in: 0..<people.count, using: &random))
                        roster.remove(removed.id)
                    } else {
                        let joined = try MemberIdentity.generate()
                        people.append(joined)
                        roster.admit(joined.keys)
                    }
                }
                // The author is a member before the change (the one who admits or removes).
                let authors = people.filter { (previous ?? roster).contains($0.id) }
                let author = authors[Int.random(in: 0..<authors.count, using: &random)]
                let position = Self.position(epoch * 10, epoch: epoch)
                let (frame, _) = try EpochGrants.begin(at: position, roster: roster, author: author)
                let completer = people.first { $0.id != author.id }
                let completion = try completer.map { try EpochGrants.complete(frame, by: $0).0 }
                for member in people {
                    var held = Set(try EpochGrants.open(frame, as: member, previous: previous).map(\.audience))
                    if let completion, let key = try EpochGrants.open(completion, of: frame, as: member) {
                        held.insert(key.audience)
                    }
                    // Everyone-but-the-author arrives with the completion (never to the author);
                    // a household of one has nobody to complete it, and needs none.
                    let missing: Set<Audience> = completion == nil ? [.everyoneBut(author.id)] : []
                    #expect(held == roster.audiences(of: member.id).subtracting(missing), "history \(history), epoch \(epoch), \(random)")
                    #expect(!held.contains(.everyoneBut(member.id)), "history \(history), epoch \(epoch), \(random)")
                }
                previous = roster
            }
        }
    }

    @Test("A grant that hands a member everyone-but-them, a key off its commitment, or another place's grant is refused")
    func brokenGrantsAreRefused() throws {
        let (alice, bob, carol) = try (MemberIdentity.generate(), MemberIdentity.generate(), MemberIdentity.generate())
        let roster = Roster([alice.keys, bob.keys, carol.keys])
        let position = Self.position(5, epoch: 2)
        let (frame, keys) = try EpochGrants.begin(at: position, roster: roster, author: alice)
        func reason(_ frame: EpochFrame, as member: MemberIdentity) -> GrantViolation.Reason? {
            do {
                _ = try EpochGrants.open(frame, as: member, previous: roster)
                return nil
            } catch {
                return error.reason
            }
        }
        #expect(reason(frame, as: bob) == nil)

        // Alice (a member gone rogue) adds the key of everyone but Bob to Bob's grant.
        let butBob = try AudienceKey.generate(for: .everyoneBut(bob.id))
        let bobsOwn = keys.filter { roster.audiences(of: bob.id).contains($0.audience) } + [butBob]
        var grants = frame.grants
        grants[bob.id] = try SealedBox.seal(try EpochGrants.grantForTests(bobsOwn, at: position, for: bob.id), to: bob.keys.sealing)
        #expect(reason(EpochFrame(body: frame.body, grants: grants), as: bob) == .keyNotForThisMember(.everyoneBut(bob.id)))

        // A key swapped for another: it no longer matches its commitment.
        let swapped = keys.map { $0.audience == .everyone ? (try? AudienceKey.generate(for: .everyone)) ?? $0 : $0 }
        grants[bob.id] = try SealedBox.seal(
            try EpochGrants.grantForTests(swapped.filter { roster.audiences(of: bob.id).contains($0.audience) }, at: position, for: bob.id),
            to: bob.keys.sealing)
        #expect(reason(EpochFrame(body: frame.body, grants: grants), as: bob) == .commitmentMismatch(.everyone))

        // Carol's grant put in Bob's place; a grant made for another position.
        grants[bob.id] = frame.grants[carol.id]
        #expect(reason(EpochFrame(body: frame.body, grants: grants), as: bob) == .noGrant)
        let elsewhere = try EpochGrants.begin(at: Self.position(6, epoch: 2), roster: roster, author: alice).frame
        grants[bob.id] = elsewhere.grants[bob.id]
        #expect(reason(EpochFrame(body: frame.body, grants: grants), as: bob) == .misbound)

        // A body signed by someone who is not a member before, or altered after signing.
        let mallory = try MemberIdentity.generate()
        let forged = try EpochGrants.begin(at: position, roster: Roster([mallory.keys, bob.keys]), author: mallory).frame
        #expect(reason(forged, as: bob) == .authorNotMember)
        let altered = EpochBody(
            position: frame.body.position, author: frame.body.author, roster: frame.body.roster.filter { $0.id != carol.id },
            owners: frame.body.owners, commitments: frame.body.commitments, signature: frame.body.signature)
        #expect(reason(EpochFrame(body: altered, grants: frame.grants), as: bob) == .badSignature)
    }

    @Test("The author gets no key of everyone-but-the-author; a completion by another member brings it to the others")
    func completionExcludesTheAuthor() throws {
        let (alice, bob, carol) = try (MemberIdentity.generate(), MemberIdentity.generate(), MemberIdentity.generate())
        let roster = Roster([alice.keys, bob.keys, carol.keys])
        let (frame, _) = try EpochGrants.begin(at: Self.position(9, epoch: 3), roster: roster, author: alice)
        #expect(try !EpochGrants.open(frame, as: bob, previous: roster).contains { $0.audience == .everyoneBut(alice.id) })
        let (completion, made) = try EpochGrants.complete(frame, by: bob)
        #expect(completion.grants[alice.id] == nil)
        #expect(try EpochGrants.open(completion, of: frame, as: alice) == nil)
        let carols = try #require(try EpochGrants.open(completion, of: frame, as: carol))
        #expect(carols.audience == .everyoneBut(alice.id) && carols.key.constantTimeEquals(made.key))
        // A completion Carol did not sign, or for another audience, is refused.
        let unsigned = EpochCompletion(
            position: completion.position, completer: completion.completer, audience: .everyoneBut(carol.id),
            commitment: completion.commitment, grants: completion.grants, signature: completion.signature)
        #expect(throws: GrantViolation.self) { try EpochGrants.open(unsigned, of: frame, as: carol) }
    }
}
