import Foundation
import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperTestSupport
import GiftKeeperWire
import Glibc
import TestProcesses
import Testing

@testable import GiftKeeperRemote
@testable import GiftKeeperSealing

/// SPEC §13, the service's part of households: a household journal is served to its members
/// and no one else; invitations are single-use and expire; admission, removal, leaving and a
/// new owner go with their frames in one request; a removed member's devices are served
/// nothing more and their live socket is closed; a household keeps an owner. Through the
/// test service (``ServiceFixture``) with three accounts — Alice, Bob and Carol, each a
/// device of their own. The frames are opaque to the service, so stand-ins do here.
@Suite(.programSlot, .needsService, .serialized)
struct HouseholdServiceTests {
    /// A person: a device of a new account on the test service, and their member identity.
    struct Person {
        let directory: TemporaryDirectory
        let remote: ServiceRemote
        let identity: MemberIdentity

        init(_ name: String) throws {
            directory = try TemporaryDirectory(prefix: "giftkeeper-household-\(name)")
            remote = try ServiceRemote.testDevice(url: try ServiceFixture.requireURL(), stateDirectory: directory.path, deviceName: name)
            identity = try MemberIdentity.generate()
        }

        var keys: [UInt8] { identity.keys.signing + identity.keys.sealing }

        /// Their view of `journalID`: nil when the service serves them none.
        func open(_ journalID: [UInt8]) throws -> ServiceFrameStore? {
            try remote.open(journalID: journalID) as? ServiceFrameStore
        }
    }

    /// Appends `count` stand-in frames to `store`, or with `change`, as that change of members.
    @discardableResult
    func append(_ count: Int = 1, to store: ServiceFrameStore, change: MembershipChange.Kind? = nil, account: String? = nil)
        throws -> AppendOutcome
    {
        var batch = store.makeBatch()
        for frame in 1...count { try batch.add(kind: .dataSealed, payload: [UInt8(truncatingIfNeeded: frame), 0x48]) }
        guard let change else { return try store.append(batch) }
        return try store.changeMembers(change, account: account, frames: batch)
    }

    /// The household refusal `body` throws, if any.
    func refusal(_ body: () throws -> Void) -> MembershipRefusal? {
        guard case .unreachable(.household(let refusal))? = caught(JournalError.self, body)?.code else { return nil }
        return refusal
    }

    /// Alice's new household journal with `frames` frames.
    func household(of alice: Person, frames: Int = 2) throws -> (id: [UInt8], store: ServiceFrameStore) {
        let header = try MemoryFrameStore(path: "household").header
        let store = try alice.remote.createHousehold(header: header, ownerKeys: alice.keys)
        try append(frames, to: store)
        return (header.journalID, store)
    }

    /// A new invitation of Alice's to household `id`; its code stays here.
    func invite(_ alice: Person, to id: [UInt8], seconds: Int = 600) throws -> InvitationCode {
        let code = try InvitationCode.make(owner: alice.identity.keys)
        let (invitationID, signing) = try code.invitationKeys()
        try alice.remote.invite(
            journalID: id, invitationID: invitationID, publicKey: signing.publicKey, ownerKeys: alice.keys, expiresInSeconds: seconds)
        return code
    }

    /// `joiner`'s request on `code`, made as `household join` makes it (the owner's keys
    /// from the service checked against the code) and sent; the request.
    @discardableResult
    func requestJoin(_ joiner: Person, _ code: InvitationCode) throws -> JoinRequest {
        let (invitationID, _) = try code.invitationKeys()
        let info = try joiner.remote.invitation(invitationID)
        let owner = try #require(MemberKeys(signing: Array(info.ownerKeys.prefix(32)), sealing: Array(info.ownerKeys.suffix(32))))
        let request = try JoinRequest.make(answering: code, joiner: joiner.identity, owner: owner)
        try joiner.remote.requestJoin(invitationID: invitationID, sealedKeys: request.sealedKeys, signature: request.signature)
        return request
    }

    /// Invites `joiner` to Alice's household and admits them, as the owner does once the
    /// safety numbers match (checked here).
    func admit(_ joiner: Person, to household: (id: [UInt8], store: ServiceFrameStore), by alice: Person) throws {
        let code = try invite(alice, to: household.id)
        try requestJoin(joiner, code)
        let (invitationID, _) = try code.invitationKeys()
        let pending = try #require(try alice.remote.invitations(journalID: household.id).first { $0.id == Data(invitationID) })
        let body = try #require(pending.request)
        let request = JoinRequest(invitationID: invitationID, sealedKeys: Array(body.sealedKeys), signature: Array(body.signature))
        let keys = try request.joinerKeys(owner: alice.identity, code: code)
        #expect(keys == joiner.identity.keys)
        #expect(
            SafetyNumber.of(household: household.id, invitationID: invitationID, owner: alice.identity.keys, joiner: keys)
                == SafetyNumber.of(household: household.id, invitationID: invitationID, owner: alice.identity.keys, joiner: joiner.identity.keys))
        var batch = household.store.makeBatch()
        try batch.add(kind: .dataSealed, payload: [0xE0])
        let outcome = try household.store.changeMembers(
            .admit, invitation: invitationID, memberKeys: keys.signing + keys.sealing, frames: batch)
        #expect(outcome == .appended(batch.head))
    }

    @Test("a household journal is served to its members and no one else; a request alone admits nobody")
    func membersOnly() throws {
        let (alice, bob, carol) = (try Person("alice"), try Person("bob"), try Person("carol"))
        let household = try household(of: alice)
        #expect(try bob.open(household.id) == nil)
        #expect(refusal { _ = try bob.remote.roster(journalID: household.id) } == .notMember)

        let code = try invite(alice, to: household.id)
        try requestJoin(bob, code)
        #expect(try bob.open(household.id) == nil, "a join request reads nothing before an admission")
        #expect(!(try bob.remote.journalIDs()).contains(household.id))

        // An admission whose frame lost the race (another process of Alice's appended first) admits nobody.
        try append(to: try #require(try alice.open(household.id)))
        var stale = household.store.makeBatch()
        try stale.add(kind: .dataSealed, payload: [0xE0])
        let (invitationID, _) = try code.invitationKeys()
        let lost = try household.store.changeMembers(.admit, invitation: invitationID, memberKeys: bob.keys, frames: stale)
        guard case .conflict = lost else {
            Issue.record("a stale admission landed: \(lost)")
            return
        }
        #expect(try bob.open(household.id) == nil)

        try household.store.fetch()
        var batch = household.store.makeBatch()
        try batch.add(kind: .dataSealed, payload: [0xE0])
        #expect(try household.store.changeMembers(.admit, invitation: invitationID, memberKeys: bob.keys, frames: batch) == .appended(batch.head))

        let bobs = try #require(try bob.open(household.id))
        #expect(bobs.head == household.store.head)
        #expect(try bob.remote.journalIDs().contains(household.id))
        try append(2, to: bobs)
        try household.store.fetch()
        #expect(household.store.head == bobs.head, "the owner reads what a member appended")

        let roster = try bob.remote.roster(journalID: household.id)
        #expect(roster.members.map(\.role) == [.owner, .member])
        #expect(roster.members.last?.account == roster.you)
        #expect(roster.members.last?.memberKeys == Data(bob.keys))

        #expect(try carol.open(household.id) == nil, "a non-member gets no frame")
        let copied = caught(JournalError.self) { _ = try carol.remote.createHousehold(header: household.store.header, ownerKeys: carol.keys) }
        #expect(copied?.code == .alreadyExists, "no second household of the same id, to be served to a member in its place")
        #expect(!(try carol.remote.journalIDs()).contains(household.id))
        #expect(refusal { _ = try carol.remote.roster(journalID: household.id) } == .notMember)
        #expect(refusal { _ = try carol.remote.invitations(journalID: household.id) } == .notMember)
    }

    @Test("an invitation is used once (a second use refused and shown to the owner), expires, and takes only its key's signature")
    func invitationRules() async throws {
        let (alice, bob, carol) = (try Person("alice"), try Person("bob"), try Person("carol"))
        let household = try household(of: alice)
        let code = try invite(alice, to: household.id)
        let (invitationID, _) = try code.invitationKeys()
        let request = try requestJoin(bob, code)
        // The same request again (its answer lost): still Bob's, no second use.
        try bob.remote.requestJoin(invitationID: invitationID, sealedKeys: request.sealedKeys, signature: request.signature)
        #expect(refusal { try requestJoin(carol, code) } == .codeUsed)
        #expect(refusal { _ = try carol.remote.invitation(invitationID) } == .codeUsed)
        let listed = try #require(try alice.remote.invitations(journalID: household.id).first)
        #expect(listed.isPending && listed.refusedUses == 2 && listed.lastRefusedAt != nil, "Carol's two tries are shown")

        let forged = try SigningKeyPair.generate()
        let other = try invite(alice, to: household.id)
        let (otherID, _) = try other.invitationKeys()
        let sealed: [UInt8] = Array(repeating: 7, count: 80)
        let signature = try forged.sign(JoinRequestBody.signedBytes(invitationID: otherID, sealedKeys: sealed))
        let unsigned = caught(JournalError.self) { try carol.remote.requestJoin(invitationID: otherID, sealedKeys: sealed, signature: signature) }
        guard case .unreachable(.rejected(let status, _))? = unsigned?.code else {
            Issue.record("a request not signed with the invitation's key was taken: \(String(describing: unsigned))")
            return
        }
        #expect(status == 400)
        #expect(try alice.remote.invitations(journalID: household.id).first { $0.id == Data(otherID) }?.request == nil)

        let short = try invite(alice, to: household.id, seconds: 1)
        try await Task.sleep(for: .milliseconds(2_100))
        #expect(refusal { try requestJoin(carol, short) } == .codeExpired)
        let (shortID, _) = try short.invitationKeys()
        #expect(refusal { _ = try carol.remote.invitation(shortID) } == .codeExpired)
        #expect(refusal { _ = try carol.remote.invitation(Array(repeating: 1, count: 16)) } == .unknownCode)

        try alice.remote.burnInvitation(otherID, journalID: household.id)
        #expect(refusal { try requestJoin(carol, other) } == .unknownCode, "a burnt invitation is gone")
        #expect(try carol.open(household.id) == nil)
    }

    @Test("a removal stops serving every device of the removed account in the same request and closes its live socket")
    func removalStopsServing() async throws {
        let (alice, bob) = (try Person("alice"), try Person("bob"))
        let household = try household(of: alice)
        try admit(bob, to: household, by: alice)
        let bobs = try #require(try bob.open(household.id))
        let bobsAccount = try bob.remote.roster(journalID: household.id).you
        // Bob's second device, enrolled in his account: a member through it too.
        let phoneDirectory = try TemporaryDirectory(prefix: "giftkeeper-household-bob-phone")
        let phone = try ServiceRemote.testDevice(
            url: try bob.remote.enrolmentAddress().address, stateDirectory: phoneDirectory.path, deviceName: "bob-phone")
        #expect(try phone.open(journalID: household.id) != nil)
        let live = LiveChanges()
        defer { live.stop() }
        #expect(bob.remote.connection.startLive(live, journalID: household.id))
        #expect(await eventually { live.isOpen }, "Bob's live socket opened")
        let heard = live.count
        try append(to: household.store)
        #expect(await eventually { live.count > heard }, "a member's socket hears the household's changes")

        #expect(refusal { try append(to: bobs, change: .remove, account: try alice.remote.roster(journalID: household.id).you) } == .notOwner)
        try household.store.fetch()
        #expect(try append(to: household.store, change: .remove, account: bobsAccount) == .appended(household.store.head))
        // At once, with no wait: the request that removed him committed both.
        #expect(try bob.open(household.id) == nil)
        #expect(try phone.open(journalID: household.id) == nil, "nor to his other device")
        let refused = caught(JournalError.self) { try append(to: bobs) }
        #expect(refused?.code == .unreachable(.journalGone), "\(String(describing: refused))")
        #expect(caught(JournalError.self) { try bobs.fetch() }?.code == .unreachable(.journalGone))
        #expect(await eventually { !live.isOpen }, "the service closed Bob's live socket")
        try append(3, to: household.store)
        #expect(try bob.open(household.id) == nil, "nothing appended afterwards reaches him")
        #expect(refusal { _ = try bob.remote.roster(journalID: household.id) } == .notMember)
    }

    @Test("a removal closes the removed account's live sockets on another service process too")
    func removalClosesSocketsOnEveryProcess() async throws {
        let (alice, bob) = (try Person("alice"), try Person("bob"))
        let household = try household(of: alice)
        try admit(bob, to: household, by: alice)
        let bobsAccount = try bob.remote.roster(journalID: household.id).you
        let certificates = ServiceFixture.certificateDirectory
        let arguments = [
            "serve", "--database", ServiceFixture.databaseURL.replacingOccurrences(of: "//giftkeeper@", with: "//giftkeeper_serve@"),
            "--listen", "127.0.0.1:0", "--tls-cert", certificates + "/server.pem", "--tls-key",
            certificates + "/server.key",
        ]
        let (_, outcome) = try await withProgram(try Self.serverBinary(), arguments, environment: ["LANG": "C.UTF-8"], timeout: .seconds(120)) {
            second in
            #expect(await second.wait(timeout: .seconds(30)) { stdout, _ in stdout.contains("serving https://") }, "\(second.stderr)")
            let line = second.stdout.split(separator: "\n").first { $0.contains("serving https://") } ?? ""
            let address = "https://127.0.0.1:\(Int(line.split(separator: ":").last ?? "") ?? 0)"
            // Bob's device, reaching the second process with its own key.
            // (The seal binds the service's address: the key opened, and sealed again for the other address.)
            let home = try ServiceAddress(url: try ServiceFixture.requireURL())
            let path = DeviceKey.path(stateDirectory: bob.directory.path, address: home)
            guard case .sealed(let seals) = try DeviceKey.read(path) else { throw JournalError(.unreachable(.deviceKey(.locked)), path: path) }
            let key = try DeviceKey.open(seals, address: home, access: try .testDevice(), path: path)
            let other = try ServiceAddress(url: address)
            let resealed = try #require(try DeviceKey.resealed([], key: key, address: other, access: try .testDevice()))
            try DeviceKey.write(resealed, to: DeviceKey.path(stateDirectory: bob.directory.path, address: other))
            let elsewhere = try ServiceRemote.testDevice(url: address, stateDirectory: bob.directory.path, deviceName: "bob")
            #expect(try elsewhere.open(journalID: household.id) != nil)
            let live = LiveChanges()
            defer { live.stop() }
            #expect(elsewhere.connection.startLive(live, journalID: household.id))
            #expect(await eventually { live.isOpen })
            let heard = live.count
            try append(to: household.store)
            #expect(await eventually { live.count > heard }, "a change through one process reaches a member's socket on the other")
            try append(to: household.store, change: .remove, account: bobsAccount)
            #expect(await eventually { !live.isOpen }, "the other process closed Bob's live socket")
            #expect(try elsewhere.open(journalID: household.id) == nil)
            second.kill(SIGTERM)
        }
        #expect(outcome.status == 0, "\(outcome)")
    }

    /// `$GIFTKEEPER_SERVER_BINARY`, else the giftkeeper-server built beside this test bundle.
    static func serverBinary() throws -> String {
        if let named = ProcessInfo.processInfo.environment["GIFTKEEPER_SERVER_BINARY"], !named.isEmpty { return named }
        let bundle = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let path = URL(fileURLWithPath: bundle).deletingLastPathComponent().path + "/giftkeeper-server"
        try #require(FileManager.default.isExecutableFile(atPath: path), "giftkeeper-server is not beside the test bundle: build it")
        return path
    }

    @Test("a member leaves with their frame; an owner makes another an owner; the last owner can neither leave nor be removed")
    func ownersAndLeaving() throws {
        let (alice, bob, carol) = (try Person("alice"), try Person("bob"), try Person("carol"))
        let household = try household(of: alice)
        try admit(bob, to: household, by: alice)
        try admit(carol, to: household, by: alice)
        let alicesAccount = try alice.remote.roster(journalID: household.id).you
        let bobs = try #require(try bob.open(household.id))
        let carols = try #require(try carol.open(household.id))
        let head = household.store.head

        #expect(refusal { try append(to: household.store, change: .leave) } == .lastOwner)
        #expect(refusal { try append(to: household.store, change: .remove, account: alicesAccount) } == .lastOwner)
        #expect(refusal { try append(to: bobs, change: .promote, account: try bob.remote.roster(journalID: household.id).you) } == .notOwner)
        #expect(refusal { _ = try invite(bob, to: household.id) } == .notOwner)
        #expect(refusal { _ = try bob.remote.invitations(journalID: household.id) } == .notOwner)
        try household.store.fetch()
        #expect(household.store.head == head, "a refused change takes its frame back with it")

        try append(to: carols, change: .leave)
        #expect(try carol.open(household.id) == nil, "Carol left")

        try household.store.fetch()
        let bobsAccount = try bob.remote.roster(journalID: household.id).you
        #expect(try append(to: household.store, change: .promote, account: bobsAccount) == .appended(household.store.head))
        #expect(try bob.remote.roster(journalID: household.id).members.map(\.role) == [.owner, .owner])
        try append(to: household.store, change: .leave)
        #expect(try alice.open(household.id) == nil, "the creator who left reads nothing more")
        try bobs.fetch()
        #expect(refusal { try append(to: bobs, change: .leave) } == .lastOwner)
        _ = try invite(bob, to: household.id)
    }

    @Test("quotas apply to a household as to any journal: it counts among each member's journals")
    func quotas() throws {
        let (alice, bob) = (try Person("alice"), try Person("bob"))
        let household = try household(of: alice)
        try admit(bob, to: household, by: alice)
        func overQuota(_ body: () throws -> Void) -> Bool {
            guard case .unreachable(.overQuota)? = caught(JournalError.self, body)?.code else { return false }
            return true
        }
        var made = 0
        while made < 64, !overQuota({ _ = try bob.remote.create(header: try MemoryFrameStore(path: "bob").header) }) { made += 1 }
        #expect(made < 64, "the service refused a journal past its quota")
        #expect(overQuota { _ = try bob.remote.createHousehold(header: try MemoryFrameStore(path: "bob").header, ownerKeys: bob.keys) })
        try append(to: try #require(try bob.open(household.id)), change: .leave)
        _ = try bob.remote.create(header: try MemoryFrameStore(path: "bob").header)
        #expect(overQuota { _ = try bob.remote.create(header: try MemoryFrameStore(path: "bob").header) }, "the household left made room for one")
    }

    @Test("row-level security: an account sees no row of a household it is not in; a dump holds no invitation code")
    func tenancyAndDump() async throws {
        let (alice, bob, carol) = (try Person("alice"), try Person("bob"), try Person("carol"))
        let household = try household(of: alice)
        try admit(bob, to: household, by: alice)
        let code = try invite(alice, to: household.id)
        let carolsJournal = try MemoryFrameStore(path: "carol").header
        _ = try carol.remote.create(header: carolsJournal)
        let owner = ServiceFixture.databaseURL
        let carolsAccount = try await psql(owner, ["SELECT account_id FROM gk_journals WHERE id = '\\x\(hexString(carolsJournal.journalID))'"])
        let bobsAccount = try bob.remote.roster(journalID: household.id).you
        let serve = owner.replacingOccurrences(of: "//giftkeeper@", with: "//giftkeeper_serve@")
        let id = "'\\x\(hexString(household.id))'"
        let counts = """
            SELECT (SELECT count(*) FROM gk_journals WHERE id = \(id)) || ' ' || (SELECT count(*) FROM gk_frames WHERE journal_id = \(id))
                || ' ' || (SELECT count(*) FROM gk_heads WHERE journal_id = \(id)) || ' ' || (SELECT count(*) FROM gk_members)
                || ' ' || (SELECT count(*) FROM gk_invitations)
            """
        let frames = household.store.head.sequence
        let asCarol = try await psql(serve, ["SELECT set_config('giftkeeper.account', '\(carolsAccount)', false)", counts])
        #expect(asCarol == "0 0 0 0 0", "Carol sees nothing of the household")
        let asBob = try await psql(serve, ["SELECT set_config('giftkeeper.account', '\(bobsAccount)', false)", counts])
        #expect(asBob == "1 \(frames) 0 1 0", "Bob sees the journal and his own membership, no invitation (he is no owner)")

        let dump = try await runProgram("/usr/bin/pg_dump", [owner])
        #expect(dump.status == 0, "\(dump)")
        #expect(dump.stdout.contains("gk_invitations"))
        let (invitationID, _) = try code.invitationKeys()
        #expect(dump.stdout.contains(hexString(invitationID)), "the invitation's id is kept")
        let text = code.text
        let secret = code.secret.withUnsafeBytes { Array($0) }
        #expect(Base32.decode(text).map { Array($0.prefix(InvitationCode.secretLength)) } == secret)
        for needle in [text, text.replacingOccurrences(of: "-", with: ""), hexString(secret)] {
            #expect(!dump.stdout.localizedCaseInsensitiveContains(needle), "the dump holds the code or its secret")
        }
    }

    /// Runs `statements` in one psql session at `url`; the last line of its output.
    func psql(_ url: String, _ statements: [String]) async throws -> String {
        let outcome = try await runProgram("/usr/bin/psql", [url, "-At", "-q", "-v", "ON_ERROR_STOP=1"] + statements.flatMap { ["-c", $0] })
        #expect(outcome.status == 0, "\(outcome)")
        return String(outcome.stdout.split(separator: "\n").last ?? "")
    }

    /// Whether `condition` holds within 60 s: the live socket is opened and closed by a task
    /// of its own, which a loaded run can keep waiting: in `make test` (the in-process suites
    /// beside these, and the suites' blocking service calls holding the cooperative threads
    /// of a 2-core machine) Bob's socket once took more than 15 s to open, while the whole
    /// process bundle alone opens it in well under one.
    func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(60)
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return condition()
    }
}
