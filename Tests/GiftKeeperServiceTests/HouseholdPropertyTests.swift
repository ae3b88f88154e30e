import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperTestSupport
import Testing

/// The properties docs/threat-model.md promises of a household's journal ("Tests that will
/// hold it to this"), over seeded random histories of events for everyone, everyone but one
/// member and only me, admissions, removals and departures (two to six members): every
/// member's folded state equals the oracle's (which holds every key) restricted to their
/// audiences; removing a member never changes what the others see; no key a removed
/// member held opens a later frame, and none a newcomer holds opens an earlier one.
/// `GIFTKEEPER_TEST_SEED` replays a run.
@Suite struct HouseholdPropertyTests {
    /// What a history did, counted (so a run can show it had each kind of change).
    struct Changes {
        var admissions = 0
        var removals = 0
        var departures = 0
        var events = 0
    }

    /// One random history: the world, the states the others had just before and just after
    /// each removal, and what it did.
    static func history(_ random: inout TestRandom) throws -> (
        HouseholdWorld, removalsKeptViews: [(before: GiftList, after: GiftList)], changes: Changes
    ) {
        let world = try HouseholdWorld()
        var members = [try world.create()]
        for _ in 1..<Int.random(in: 2...4, using: &random) {
            members.append(try world.join(admittedBy: members[0]))
        }
        var kept: [(GiftList, GiftList)] = []
        var changes = Changes()
        let recipients = ["Mum", "Grandma", "Uncle Tom"]
        for _ in 0..<Int.random(in: 12...24, using: &random) {
            let author = members[Int.random(in: 0..<members.count, using: &random)]
            try author.catchUp()
            let owners = members.filter { author.keyring.owners.contains($0.id) }
            switch Int.random(in: 0..<20, using: &random) {
            case 0..<2 where members.count < 6:
                members.append(try world.join(admittedBy: owners.randomElement(using: &random) ?? author))
                changes.admissions += 1
            case 2..<4 where members.count > 2:
                // An owner removes another member; the others' views must not change.
                let owner = owners.randomElement(using: &random) ?? author
                let removed = members.filter { $0.id != owner.id }.randomElement(using: &random) ?? author
                let others = members.filter { $0.id != removed.id }
                let before = try others.map { member in
                    try member.catchUp()
                    return member.state
                }
                try owner.remove(removed.id)
                members.removeAll { $0.id == removed.id }
                changes.removals += 1
                for (member, state) in zip(others, before) {
                    try member.catchUp()
                    kept.append((state, member.state))
                }
            case 4..<6 where members.count > 2:
                // A member leaves (the last owner names another first); the next writer closes them out.
                if author.keyring.owners.subtracting(author.keyring.departed) == [author.id] {
                    try author.makeOwner(members.first { $0.id != author.id }?.id ?? author.id)
                } else {
                    try author.leave()
                    members.removeAll { $0.id == author.id }
                    changes.departures += 1
                }
            default:
                let others = members.filter { $0.id != author.id }
                let audience: Audience
                switch Int.random(in: 0..<3, using: &random) {
                case 0: audience = .everyone
                case 1 where !others.isEmpty: audience = .everyoneBut(others[Int.random(in: 0..<others.count, using: &random)].id)
                default: audience = .only(author.id)
                }
                let recipient = recipients[Int.random(in: 0..<recipients.count, using: &random)]
                try author.record([world.present(for: recipient, "Present \(Int.random(in: 0..<1000, using: &random))")], for: audience)
                changes.events += 1
            }
        }
        for member in world.everyone.values { try member.catchUp() }
        return (world, kept, changes)
    }

    @Test("Every member's fold equals the oracle's state restricted to their audiences; a removal changes no one else's view")
    func foldsMatchTheOracle() throws {
        var random = TestRandom()
        var total = Changes()
        for round in 0..<8 {
            let (world, kept, changes) = try Self.history(&random)
            total.admissions += changes.admissions
            total.removals += changes.removals
            total.departures += changes.departures
            total.events += changes.events
            let oracle = try HouseholdOracle(world)
            #expect(!oracle.entries.isEmpty)
            for member in world.everyone.values {
                #expect(member.state == oracle.state(of: member.id), "round \(round), \(random)")
                // No member is ever granted everyone-but-themselves.
                for keyring in member.keyring.held.values { #expect(keyring.keys[.everyoneBut(member.id)] == nil) }
            }
            // A fresh sign-in folds the same as the device that followed along.
            let someone = try #require(world.everyone.values.first { $0.keyring.isMember })
            let again = try HouseholdMember.open(
                world.store.handle(), as: someone.id, password: try HouseholdWorld.secret(world.creator == someone.id ? "owner-pw" : "member-pw"),
                initial: HouseholdWorld.initial)
            #expect(again.state == someone.state, "round \(round), \(random)")
            for (before, after) in kept { #expect(before == after, "round \(round), \(random)") }
        }
        // The runs had every kind of change, not events alone.
        #expect(total.admissions > 0 && total.removals > 0 && total.departures > 0 && total.events > 20, "\(total)")
    }

    @Test("No key a member held opens a frame of an epoch they were not in: not after their removal, not before their admission")
    func keysStayInTheirEpochs() throws {
        var random = TestRandom()
        for round in 0..<6 {
            let (world, _, _) = try Self.history(&random)
            let oracle = try HouseholdOracle(world)
            let frames = try world.frames().filter { $0.kind == .householdEvent }
            for member in world.everyone.values {
                let held = member.keyring.held
                let theirs = held.values.flatMap { $0.keys.values }
                for (position, _, payload) in frames {
                    let epoch = payload.prefix(8).reversed().reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                    guard held[epoch] == nil else { continue }
                    for key in theirs {
                        #expect(!HouseholdEvents.keyOpensForTests(payload, at: position, key: key), "round \(round), \(random)")
                    }
                }
                // Nor is any key of theirs one of another epoch's keys.
                for (epoch, keys) in oracle.keys where held[epoch] == nil {
                    for key in keys { #expect(!theirs.contains { $0.key.constantTimeEquals(key.key) }, "round \(round), \(random)") }
                }
            }
        }
    }
}

/// A test-only oracle that holds every member's identity and so every key of every epoch:
/// it opens every household event of the journal, without a member's checks, and says which
/// members the roster of its epoch lets read it.
struct HouseholdOracle {
    struct Entry {
        let sequence: UInt64
        let epoch: UInt64
        let roster: Set<MemberID>
        let audience: Audience
        let event: Event
    }

    /// Every event, and every epoch's keys.
    private(set) var entries: [Entry] = []
    private(set) var keys: [UInt64: [AudienceKey]] = [:]

    init(_ world: HouseholdWorld) throws {
        let secrets = world.everyone.values.map(\.secrets)
        let onlyMe = secrets.map(\.onlyMe)
        var frame: EpochFrame?
        var epoch: UInt64 = 0
        for (position, kind, payload) in try world.frames() {
            switch kind {
            case .epoch:
                let sealed = try #require(HouseholdFrames.epoch(payload))
                epoch = sealed.epoch
                let grantee = try #require(secrets.first { sealed.grants[$0.id] != nil })
                let opened = try HouseholdFrames.open(sealed, as: grantee.identity, at: position)
                frame = opened
                var all: [Audience: AudienceKey] = [:]
                for member in secrets where sealed.grants[member.id] != nil {
                    for key in try EpochGrants.open(opened, as: member.identity, previous: nil) { all[key.audience] = key }
                }
                keys[epoch] = Array(all.values)
            case .completion:
                let epochFrame = try #require(frame)
                let completion = try #require(HouseholdFrames.completion(payload, of: epochFrame.body.position))
                let opener = try #require(secrets.first { $0.id != epochFrame.body.author && completion.grants[$0.id] != nil })
                keys[epoch, default: []].append(try #require(try EpochGrants.open(completion, of: epochFrame, as: opener.identity)))
            case .householdEvent:
                let epochFrame = try #require(frame)
                let keyring = EpochKeyring(epoch: epoch, keys: (keys[epoch] ?? []) + onlyMe)
                let opened = try #require(
                    try HouseholdEvents.open(payload, at: position, keyring: keyring, roster: epochFrame.body.members))
                entries.append(
                    Entry(
                        sequence: position.sequence, epoch: epoch, roster: Set(epochFrame.body.members.ids), audience: opened.audience,
                        event: try EventCodec.decode(opened.payload)))
            default:
                break
            }
        }
    }

    /// Whether `member` may read `entry`: a member of its epoch, of its audience.
    static func mayRead(_ member: MemberID, _ entry: Entry) -> Bool {
        guard entry.roster.contains(member) else { return false }
        switch entry.audience {
        case .everyone: return true
        case .everyoneBut(let excluded): return excluded != member
        case .only(let reader): return reader == member
        }
    }

    /// The full state restricted to what `member`'s audiences may see.
    func state(of member: MemberID) -> GiftList {
        var state = HouseholdWorld.initial
        for entry in entries where Self.mayRead(member, entry) { state.apply(entry.event) }
        return state
    }
}
