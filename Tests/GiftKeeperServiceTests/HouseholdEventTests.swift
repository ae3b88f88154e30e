import GiftKeeperCrypto
import GiftKeeperSealing
import GiftKeeperTestSupport
import Testing

/// Household event frames (issue 28; docs/threat-model.md, "A household event"): over
/// seeded households and events, each member opens exactly the events of the audiences
/// they hold, the member a present is for opens none of theirs, and a frame the server
/// made, one moved to another place, or one whose author is not a member is refused.
@Suite struct HouseholdEventTests {
    /// A household of `people` in epoch 1, each member's keyring from their grant and the completion.
    static func household(_ people: [MemberIdentity]) throws -> (roster: Roster, keyrings: [MemberID: EpochKeyring]) {
        let roster = Roster(people.map(\.keys))
        let position = EpochPosition(journalID: journalID, sequence: 2, previousHash: Array(repeating: 1, count: 32), epoch: 1)
        let (frame, _) = try EpochGrants.begin(at: position, roster: roster, author: people[0])
        let completion = try people.dropFirst().first.map { try EpochGrants.complete(frame, by: $0).0 }
        var keyrings: [MemberID: EpochKeyring] = [:]
        for member in people {
            var keys = try EpochGrants.open(frame, as: member, previous: nil)
            if let completion, let key = try EpochGrants.open(completion, of: frame, as: member) { keys.append(key) }
            keyrings[member.id] = EpochKeyring(epoch: 1, keys: keys)
        }
        return (roster, keyrings)
    }

    static let journalID = Array(repeating: UInt8(9), count: 16)

    static func position(_ sequence: UInt64) -> FramePosition {
        FramePosition(journalID: journalID, sequence: sequence, kind: 2, previousHash: Array(repeating: UInt8(sequence % 200), count: 32))
    }

    @Test("Each member opens exactly the events of their audiences; the one a present is for opens none of theirs")
    func audiencesDecideWhoReads() throws {
        var random = TestRandom()
        for round in 0..<6 {
            let people = try (0..<Int.random(in: 2...5, using: &random)).map { _ in try MemberIdentity.generate() }
            let (roster, keyrings) = try Self.household(people)
            for sequence in UInt64(3)...12 {
                let author = people[Int.random(in: 0..<people.count, using: &random)]
                let mine = try #require(keyrings[author.id])
                let audiences = mine.keys.keys.sorted()
                let audience = try #require(mine.keys[audiences[Int.random(in: 0..<audiences.count, using: &random)]])
                let payload = (0..<Int.random(in: 1...200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
                let frame = try HouseholdEvents.seal(
                    payload, at: Self.position(sequence), epoch: 1, for: audience, everyone: try #require(mine.keys[.everyone]),
                    author: author)
                // Epoch, audience tag, nonce, AEAD tag, author, signature, membership tag: 160 bytes
                // around the event padded to 64-byte blocks, so its size says nothing finer.
                #expect((frame.count - 160) % 64 == 0 && frame.count > 160, "\(random)")
                for member in people {
                    let opened = try HouseholdEvents.open(
                        frame, at: Self.position(sequence), keyring: try #require(keyrings[member.id]), roster: roster)
                    let shouldRead = audience.audience == .everyone || audience.audience != .everyoneBut(member.id)
                    #expect((opened != nil) == shouldRead, "round \(round), \(sequence), \(random)")
                    if let opened {
                        #expect(opened.payload == payload && opened.author == author.id && opened.audience == audience.audience)
                    }
                }
            }
        }
    }

    @Test("A frame the server made, one moved to another position, and one by a non-member are refused")
    func forgeriesAreRefused() throws {
        let people = try (0..<3).map { _ in try MemberIdentity.generate() }
        let (roster, keyrings) = try Self.household(people)
        let alice = try #require(keyrings[people[0].id])
        let everyone = try #require(alice.keys[.everyone])
        let frame = try HouseholdEvents.seal(
            Array("a wish".utf8), at: Self.position(5), epoch: 1, for: everyone, everyone: everyone, author: people[0])
        func reason(_ frame: [UInt8], at sequence: UInt64 = 5, roster: Roster = roster) -> HouseholdFrameError.Reason? {
            do {
                _ = try HouseholdEvents.open(frame, at: Self.position(sequence), keyring: alice, roster: roster)
                return nil
            } catch {
                return error.reason
            }
        }
        #expect(reason(frame) == nil)
        // The server holds no key: its frame cannot carry a member's tag.
        let serverKey = try AudienceKey.generate(for: .everyone)
        let forged = try HouseholdEvents.seal(Array("x".utf8), at: Self.position(5), epoch: 1, for: serverKey, everyone: serverKey, author: people[1])
        #expect(reason(forged) == .notFromAMember)
        // Moved to another position, or a byte changed.
        #expect(reason(frame, at: 6) == .notFromAMember)
        var flipped = frame
        flipped[30] ^= 1
        #expect(reason(flipped) == .notFromAMember)
        // Written by someone no longer a member at this position.
        #expect(reason(frame, roster: Roster(people.dropFirst().map(\.keys))) == .authorNotMember)
    }
}
