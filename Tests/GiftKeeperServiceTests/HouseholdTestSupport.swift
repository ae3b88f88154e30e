import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import Testing

/// A household's journal in memory and its members' devices, for the tests of issue 28's
/// journal layer: each member has a handle of their own on the one chain (their device).
final class HouseholdWorld {
    /// What every member's fold starts from (the household's naming is the commands' part).
    static let initial = GiftList.fold([Event(at: Timestamp(millisecondsSinceEpoch: 0), .accountCreated(name: "The Household"))])

    let store: MemoryFrameStore
    /// Every member who ever joined, by id, with their secrets (what the oracle holds).
    private(set) var everyone: [MemberID: HouseholdMember] = [:]
    /// The household's creator (password `owner-pw` unless given another).
    private(set) var creator: MemberID?
    private var clock: Int64 = 1_000

    init() throws {
        let header = try VerifiedFrames.newHeader(journalID: try randomBytes(count: 16), path: "household", household: true).header
        store = MemoryFrameStore(header: header, path: "household")
    }

    static func secret(_ text: String) throws -> SecureBytes {
        let bytes = Array(text.utf8)
        let secret = try SecureBytes(capacity: max(bytes.count, 1), count: 0)
        for byte in bytes { secret.append(byte) }
        return secret
    }

    /// The household's creator: the first epoch, of them alone.
    func create(password: String = "owner-pw") throws -> HouseholdMember {
        let member = try HouseholdMember.create(
            in: store.handle(), password: try Self.secret(password), recoveryCode: try Self.secret("recovery:" + password),
            parameters: .testMinimum, initial: Self.initial)
        everyone[member.id] = member
        creator = member.id
        return member
    }

    /// A joiner, admitted by `owner`; the first other member completes the new epoch.
    func join(admittedBy owner: HouseholdMember, password: String = "member-pw") throws -> HouseholdMember {
        let member = try HouseholdMember.join(
            store.handle(), password: try Self.secret(password), recoveryCode: try Self.secret("recovery:" + password),
            parameters: .testMinimum, initial: Self.initial)
        everyone[member.id] = member
        try owner.admit(member.keys)
        try member.completeEpoch()
        return member
    }

    /// A present added, with a fresh time and number.
    func present(for recipient: String, _ title: String) throws -> Event {
        clock += 1
        return Event(
            at: Timestamp(millisecondsSinceEpoch: clock),
            .presentAdded(
                id: try #require(PresentID(number: UInt64(clock))), recipient: recipient, title: title, notes: "", price: nil,
                occasion: ""))
    }

    /// Appends `payload` as a frame of `kind` at the head, as a hostile writer (or the server) can.
    func appendRaw(_ kind: FrameKind, _ payload: (FramePosition) throws -> [UInt8]) throws -> UInt64 {
        let handle = store.handle()
        var batch = handle.makeBatch()
        let position = FramePosition(
            journalID: store.header.journalID, sequence: batch.nextSequence, kind: kind.rawValue, previousHash: batch.previousHash)
        try batch.add(kind: kind, payload: try payload(position))
        #expect(try handle.append(batch) == .appended(batch.head))
        return position.sequence
    }

    /// Every frame's position and payload, in order.
    func frames() throws -> [(position: FramePosition, kind: FrameKind, payload: [UInt8])] {
        var frames: [(FramePosition, FrameKind, [UInt8])] = []
        let handle = store.handle()
        _ = try handle.waitForFrames(after: 0, milliseconds: 0)
        try handle.read(after: 0, progress: nil) { frame in
            let position = FramePosition(
                journalID: store.header.journalID, sequence: frame.sequence, kind: frame.kind.rawValue,
                previousHash: Array(frame.previousHash))
            frames.append((position, frame.kind, Array(frame.payload)))
        }
        return frames
    }

    /// The refusal `member` meets catching up, if any.
    static func refusal(_ member: HouseholdMember) -> HouseholdRefusal? {
        do {
            try member.catchUp()
            return nil
        } catch {
            guard case .refused(let refusal) = error else {
                Issue.record("not a refusal: \(error)")
                return nil
            }
            return refusal
        }
    }
}
