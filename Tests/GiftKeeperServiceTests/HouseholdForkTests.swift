import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperService
import Testing

/// A device's verified mark against a household's journal as long as it (or longer) but along
/// another chain (SPEC §12, §13: rollback detection per member): refused as replaced or forked,
/// with its position, by comparing the heads before any frame is read (or, longer, the chain
/// hash at the mark's position before any frame past it is verified); and two processes of one
/// device, writing and keeping their marks in turn, never meet a false report.
@Suite struct HouseholdForkTests {
    /// A copy of `world`'s journal: each frame's kind and payload as `change` gives them.
    static func copy(
        of world: HouseholdWorld, _ change: (FrameKind, [UInt8]) throws -> [UInt8] = { $1 }
    ) throws -> MemoryFrameStore {
        let copy = MemoryFrameStore(header: world.store.header, path: "copy")
        var batch = FrameBatch(after: JournalHead(sequence: 0, hash: world.store.header.genesisHash), path: "copy")
        for frame in try world.frames() { try batch.add(kind: frame.kind, payload: try change(frame.kind, frame.payload)) }
        #expect(try copy.handle().append(batch) == .appended(batch.head))
        return copy
    }

    static func signIn(_ store: MemoryFrameStore, as member: HouseholdMember, _ mark: [UInt8]?) throws -> HouseholdMember {
        try HouseholdMember.open(
            store.handle(), as: member.id, password: try HouseholdWorld.secret("bob-pw"), verifiedMark: mark,
            initial: HouseholdWorld.initial)
    }

    /// Three presents of Alice's, Bob's mark and head after them, and the server's other
    /// history: the same frames but the last, where Alice (her member there) wrote something else.
    static func alicesOtherHistory(
        _ world: HouseholdWorld, _ alice: HouseholdMember, _ bob: HouseholdMember
    ) throws -> (mark: [UInt8], head: JournalHead, forked: MemoryFrameStore, alicesOther: HouseholdMember) {
        for number in 0..<3 { try alice.record([try world.present(for: "Mum", "Gift \(number)")], for: .everyone) }
        let mark = try bob.verifiedMark()
        let forked = MemoryFrameStore(header: world.store.header, path: "forked")
        var batch = FrameBatch(after: JournalHead(sequence: 0, hash: world.store.header.genesisHash), path: "forked")
        for frame in try world.frames().dropLast() { try batch.add(kind: frame.kind, payload: frame.payload) }
        #expect(try forked.handle().append(batch) == .appended(batch.head))
        let alicesOther = try HouseholdMember.open(
            forked.handle(), as: alice.id, password: try HouseholdWorld.secret("alice-pw"), initial: HouseholdWorld.initial)
        try alicesOther.record([try world.present(for: "Mum", "Another gift")], for: .everyone)
        return (mark, bob.store.head, forked, alicesOther)
    }

    static func forkedAt(_ body: () throws -> HouseholdMember) -> UInt64? {
        do {
            _ = try body()
            Issue.record("a forked copy was followed")
            return nil
        } catch {
            guard case .forked(let sequence)? = error as? HouseholdError else {
                Issue.record("not a fork: \(error)")
                return nil
            }
            return sequence
        }
    }

    @Test("A copy as long as Bob verified it, whose last frame another member signed instead, is refused with its position")
    func signedForkIsRefused() throws {
        let (world, alice, bob, _) = try HouseholdJournalTests.household()
        let (mark, head, forked, alicesOther) = try Self.alicesOtherHistory(world, alice, bob)
        let forkedHead = alicesOther.store.head
        #expect(forkedHead.sequence == head.sequence && forkedHead != head)
        #expect(Self.forkedAt { try Self.signIn(forked, as: bob, mark) } == head.sequence)
        #expect(ServiceError(.household(.forked(sequence: head.sequence))).exitCode == 1)
        // Without the mark there is nothing to compare: the other history verifies and opens.
        #expect(try Self.signIn(forked, as: bob, nil).store.head == forkedHead)
    }

    @Test("A journal that goes on past Bob's mark along another chain is refused as forked at the mark's position, nothing past it verified")
    func longerForkIsRefused() throws {
        let (world, alice, bob, _) = try HouseholdJournalTests.household()
        // Alice's other history goes on past the mark's position: frames of noise follow
        // (verifying any of them would refuse it, as something else).
        let (mark, head, forked, _) = try Self.alicesOtherHistory(world, alice, bob)
        let handle = forked.handle()
        _ = try handle.waitForFrames(after: 0, milliseconds: 0)
        var noise = handle.makeBatch()
        for _ in 0..<2 { try noise.add(kind: .householdEvent, payload: try randomBytes(count: 300)) }
        #expect(try handle.append(noise) == .appended(noise.head))
        #expect(handle.head.sequence == head.sequence + 2)
        #expect(Self.forkedAt { try Self.signIn(forked, as: bob, mark) } == head.sequence)
        // Without the mark the whole journal is verified, and the noise is what is refused.
        do {
            _ = try Self.signIn(forked, as: bob, nil)
            Issue.record("frames of noise were taken in")
        } catch {
            if case .forked? = error as? HouseholdError { Issue.record("refused as a fork without a mark: \(error)") }
        }
        // The one chain gone on past the mark opens with it, verifying only what came after it.
        try alice.record([try world.present(for: "Mum", "Later")], for: .everyone)
        let later = try Self.signIn(world.store, as: bob, mark)
        #expect(later.keyring.signaturesVerified == 1 && later.store.head == alice.store.head)
    }

    @Test("A lying copy of the verified length is refused before any frame is read: frames it altered earlier are never met")
    func forkIsFoundWithoutReading() throws {
        let (world, alice, bob, _) = try HouseholdJournalTests.household()
        for number in 0..<3 { try alice.record([try world.present(for: "Mum", "Gift \(number)")], for: .everyone) }
        let mark = try bob.verifiedMark()
        // Every event's bytes turned to noise: reading any of them would refuse it as tampered.
        let lying = try Self.copy(of: world) { kind, payload in
            kind == .householdEvent ? payload.map { $0 ^ 0x5A } : payload
        }
        let lyingHandle = lying.handle()
        _ = try lyingHandle.waitForFrames(after: 0, milliseconds: 0)
        #expect(lyingHandle.head.sequence == bob.store.head.sequence && lyingHandle.head != bob.store.head)
        #expect(Self.forkedAt { try Self.signIn(lying, as: bob, mark) } == bob.store.head.sequence)
        // An honest copy of the same length opens with the mark, no signature checked again.
        let honest = try Self.signIn(try Self.copy(of: world), as: bob, mark)
        #expect(honest.keyring.signaturesVerified == 0 && honest.state == bob.state)
    }

    @Test("Two processes of Bob's device, writing and keeping their marks in turn, never report a rollback or a fork")
    func twoProcessesAgree() throws {
        let (world, alice, bob, _) = try HouseholdJournalTests.household()
        let start = try bob.verifiedMark()
        let first = try Self.signIn(world.store, as: bob, start)
        let second = try Self.signIn(world.store, as: bob, start)
        for round in 0..<4 {
            let (writer, keeper) = round.isMultiple(of: 2) ? (first, second) : (second, first)
            // The keeper's mark, kept before the writer wrote: the record may end with either.
            let older = try keeper.verifiedMark()
            try writer.record([try world.present(for: "Grandma", "Round \(round)")], for: .everyone)
            if round == 2 { try alice.record([try world.present(for: "Mum", "Alice's")], for: .everyone) }
            let newer = try writer.verifiedMark()
            let fromNewer = try Self.signIn(world.store, as: bob, newer)
            #expect(fromNewer.state == writer.state && fromNewer.keyring.signaturesVerified == 0)
            // The older mark verifies only what came after it.
            let fromOlder = try Self.signIn(world.store, as: bob, older)
            #expect(fromOlder.state == writer.state && fromOlder.keyring.signaturesVerified == (round == 2 ? 2 : 1))
            try keeper.catchUp()
            #expect(keeper.state == writer.state)
        }
    }
}
