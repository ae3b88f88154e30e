import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperTestSupport
import OrderedCollections
import Testing

@testable import GiftKeeperService

/// A device's copy of a household's journal (SPEC §13: each frame's signature verified once
/// per device and remembered), in process over a server in memory.
@Suite struct HouseholdCopyTests {
    /// A household of Alice and Bob on `remote`, and Alice's present for Bob.
    static func household(on remote: MemoryRemote) throws -> (store: any SharedFrameStore, alice: HouseholdMember, bob: HouseholdMember) {
        let header = try VerifiedFrames.newHeader(journalID: try randomBytes(count: 16), path: "household", household: true).header
        let store = try remote.create(header: header)
        let alice = try HouseholdMember.create(
            in: store, password: try HouseholdWorld.secret("alice-pw"), recoveryCode: try HouseholdWorld.secret("recovery:alice-pw"),
            parameters: .testMinimum, initial: HouseholdWorld.initial)
        let bob = try HouseholdMember.join(
            try #require(try remote.open(journalID: header.journalID)), password: try HouseholdWorld.secret("bob-pw"),
            recoveryCode: try HouseholdWorld.secret("recovery:bob-pw"), parameters: .testMinimum, initial: HouseholdWorld.initial)
        try alice.admit(bob.keys)
        try bob.completeEpoch()
        try alice.record([present(1, for: "Bob", "Telescope")], for: .everyoneBut(bob.id))
        return (store, alice, bob)
    }

    static func present(_ number: UInt64, for recipient: String, _ title: String) throws -> Event {
        Event(
            at: Timestamp(millisecondsSinceEpoch: Int64(number) * 1_000),
            .presentAdded(
                id: try #require(PresentID(number: 1_000 + number)), recipient: recipient, title: title, notes: "", price: nil,
                occasion: ""))
    }

    /// The frames of the copy at `path`, as bytes.
    static func copied(_ path: String, journalID: [UInt8]) throws -> [[UInt8]] {
        try #require(try HouseholdCopy.frames(at: path, journalID: journalID)).encodedFrames
    }

    @Test("The copy holds the service's frames byte for byte (mode 0600, no title in clear); kept again it grows; another chain's is replaced")
    func copy() throws {
        let remote = MemoryRemote()
        let (store, alice, _) = try Self.household(on: remote)
        let directory = try TemporaryDirectory()
        let path = directory.file("household.gk.frames")
        let id = store.header.journalID
        try HouseholdCopy.keep(try #require(try remote.open(journalID: id)), at: path)
        #expect(try Self.copied(path, journalID: id) == remote.frames(of: id))
        #expect(permissions(of: path) == 0o600)
        let bytes = try Data(contentsOf: URL(fileURLWithPath: path))
        #expect(bytes.range(of: Data("Telescope".utf8)) == nil && bytes.range(of: Data("Bob".utf8)) == nil)
        // Kept again after more frames: those after the copy's are appended.
        try alice.record([try Self.present(2, for: "Mum", "Scarf")], for: .everyone)
        try HouseholdCopy.keep(try #require(try remote.open(journalID: id)), at: path)
        #expect(try Self.copied(path, journalID: id) == remote.frames(of: id))
        // The service restored from a backup and written on again: the copy is of another
        // chain, so it is replaced.
        try remote.restoreBackup(of: id, keeping: remote.frames(of: id).count - 1)
        let restored = try #require(try remote.open(journalID: id))
        var batch = restored.makeBatch()
        try batch.add(kind: .memberWrap, payload: Array(repeating: 7, count: 40))
        #expect(try restored.append(batch) == .appended(batch.head))
        try HouseholdCopy.keep(try #require(try remote.open(journalID: id)), at: path)
        #expect(try Self.copied(path, journalID: id) == remote.frames(of: id))
        // A copy of another journal is not taken for this one's.
        #expect(try HouseholdCopy.frames(at: path, journalID: try randomBytes(count: 16)) == nil)
        #expect(try HouseholdCopy.open(remote, journalID: id, copy: directory.file("none"))?.head == restored.head)
    }

    @Test("Signing in from the copy with the device's mark verifies only the signatures after it, and folds what a full sign-in folds")
    func signInFromCopy() throws {
        let remote = MemoryRemote()
        let (store, alice, bob) = try Self.household(on: remote)
        let directory = try TemporaryDirectory()
        let path = directory.file("household.gk.frames")
        let id = store.header.journalID
        for number in UInt64(2)...6 { try alice.record([try Self.present(number, for: "Mum", "Gift \(number)")], for: .everyone) }
        let mark = try bob.verifiedMark()
        try HouseholdCopy.keep(bob.store, at: path)
        try alice.record([try Self.present(7, for: "Mum", "Later")], for: .everyone)
        func signIn(_ mark: [UInt8]?) throws -> HouseholdMember {
            try HouseholdMember.open(
                try #require(try HouseholdCopy.open(remote, journalID: id, copy: path)), as: bob.id,
                password: try HouseholdWorld.secret("bob-pw"), verifiedMark: mark, initial: HouseholdWorld.initial)
        }
        let quick = try signIn(mark)
        let full = try signIn(nil)
        #expect(quick.keyring.signaturesVerified == 1 && full.keyring.signaturesVerified == 6)
        #expect(quick.state == full.state && !quick.state.presents.values.contains { $0.title == "Telescope" })
    }

    @Test("The shell signs in through the device's copy: the service serves only the frames after it, and only their signatures are verified")
    func shellSignsInThroughTheCopy() throws {
        let remote = CountingRemote()
        let (store, alice, bob) = try Self.household(on: remote.server)
        let id = store.header.journalID
        let directory = try TemporaryDirectory()
        let path = directory.file("household.gk.frames")
        var mark: [UInt8]?
        let copy = HouseholdShellService.DeviceCopy(
            mark: { mark },
            keep: { member in
                mark = try? member.verifiedMark()
                try? HouseholdCopy.keep(member.store, at: path)
            })
        let shell = HouseholdShellService(
            journalPath: directory.file("household.gk"), member: bob.id, name: "Bob", now: { Timestamp(millisecondsSinceEpoch: 90_000) }, server: nil,
            copy: copy,
            openStore: { _ throws(ServiceError) -> any FrameStore in
                guard let store = try? HouseholdCopy.open(remote, journalID: id, copy: path) else { throw ServiceError(.noRemote) }
                return store
            })
        let whole = remote.server.frames(of: id).count
        try shell.login(password: try HouseholdWorld.secret("bob-pw"))
        try shell.signOut()
        #expect(remote.served == whole && mark != nil)
        for number in UInt64(2)...4 { try alice.record([try Self.present(number, for: "Mum", "Gift \(number)")], for: .everyone) }
        let before = remote.served
        try shell.login(password: try HouseholdWorld.secret("bob-pw"))
        let session = try #require(shell.household)
        // Alice's three presents alone: not the journal again, not a signature checked twice.
        #expect(remote.served - before == 3 && session.member.store.head.sequence > 3)
        #expect(session.member.keyring.signaturesVerified == 3)
        let full = try HouseholdMember.open(
            try #require(try remote.server.open(journalID: id)), as: bob.id, password: try HouseholdWorld.secret("bob-pw"),
            initial: HouseholdWorld.initial)
        #expect(shell.state.presents.map(\.value.title).sorted() == ["Gift 2", "Gift 3", "Gift 4"])
        #expect(Set(shell.state.presents.keys) == Set(full.state.presents.keys))
        try shell.close()
    }

    @Test(
        "The member's wrap opens from the copy (one key derivation): taken for the store's same wrap, not for a newer one, and a wrong password is one"
    )
    func unlockFromCopy() throws {
        let remote = MemoryRemote()
        let (store, _, bob) = try Self.household(on: remote)
        let directory = try TemporaryDirectory()
        let path = directory.file("household.gk.frames")
        let id = store.header.journalID
        try HouseholdCopy.keep(bob.store, at: path)
        let copy = try #require(HouseholdCopy.opened(at: path, journalID: id))
        #expect(HouseholdCopy.opened(at: path, journalID: try randomBytes(count: 16)) == nil)
        #expect(
            Self.isWrongPassword {
                _ = try HouseholdMember.unlock(copy, as: bob.id, password: try HouseholdWorld.secret("not-bobs"), recoveryCode: nil)
            })
        let unlocked = try #require(
            try HouseholdMember.unlock(copy, as: bob.id, password: try HouseholdWorld.secret("bob-pw"), recoveryCode: nil))
        let byCode = try #require(
            try HouseholdMember.unlock(copy, as: bob.id, password: nil, recoveryCode: try HouseholdWorld.secret("recovery:bob-pw")))
        #expect(unlocked.secrets.id == bob.id && byCode.secrets.id == bob.id)
        // Its member key opens the wrap's password slot: the device key sealed under it opens.
        #expect(unlocked.deviceKeyEpoch.journalID == id && unlocked.deviceKeyEpoch.wrapSequence > 0)
        // Its secrets are taken for the store's wrap at that place: no password is needed there.
        let signedIn = try HouseholdMember.open(
            try #require(try HouseholdCopy.open(remote, journalID: id, copy: copy)), as: bob.id, unlocked: unlocked,
            initial: HouseholdWorld.initial)
        let full = try HouseholdMember.open(
            try #require(try remote.open(journalID: id)), as: bob.id, password: try HouseholdWorld.secret("bob-pw"),
            initial: HouseholdWorld.initial)
        #expect(signedIn.state == full.state)
        // A newer wrap of Bob's on the service (a new password): the copy's is not taken for it.
        try bob.wrapKeys(
            password: try HouseholdWorld.secret("bob-new-pw"), recoveryCode: try HouseholdWorld.secret("recovery:bob-new-pw"),
            parameters: .testMinimum)
        let newer = try #require(try HouseholdCopy.open(remote, journalID: id, copy: copy))
        #expect(Self.isWrongPassword { _ = try HouseholdMember.open(newer, as: bob.id, unlocked: unlocked, initial: HouseholdWorld.initial) })
    }

    /// Whether `body` throws ``HouseholdError/wrongPassword``.
    static func isWrongPassword(_ body: () throws -> Void) -> Bool {
        do {
            try body()
        } catch HouseholdError.wrongPassword {
            return true
        } catch {}
        return false
    }
}

/// A server in memory that counts the frames it serves: every one of a journal when a
/// device opens it without a copy, those after the device's copy (the cursor) otherwise.
final class CountingRemote: RemoteLocation {
    let server = MemoryRemote()
    private(set) var served = 0
    var description: String { server.description }

    func journalIDs() throws(JournalError) -> [[UInt8]] { try server.journalIDs() }

    func open(journalID: [UInt8]) throws(JournalError) -> (any SharedFrameStore)? {
        let store = try server.open(journalID: journalID)
        served += Int(store?.head.sequence ?? 0)
        return store
    }

    func open(journalID: [UInt8], known: FrameBatch) throws(JournalError) -> (any SharedFrameStore)? {
        let store = try server.open(journalID: journalID)
        served += Int((store?.head.sequence ?? 0) - known.head.sequence)
        return store
    }

    func create(header: JournalHeader) throws(JournalError) -> any SharedFrameStore { try server.create(header: header) }
}
