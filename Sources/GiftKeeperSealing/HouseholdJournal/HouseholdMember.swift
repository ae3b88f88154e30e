package import GiftKeeperCrypto
package import GiftKeeperDomain
package import GiftKeeperJournal

/// A household's journal (format version 3) as one member signs in to it, folds it and
/// writes to it (SPEC §13). Signing in opens this member's own key wrap with their password;
/// catching up takes every new frame in through ``MemberKeyring`` and folds the events this
/// member can open into a ``GiftList``, as a person's journal is folded. Writing seals each
/// frame at the store's head; a conflict (another writer first) catches up and tries again.
package final class HouseholdMember {
    package let store: any FrameStore
    /// This member's keys (new ones after ``renewKeys(password:recoveryCode:parameters:appending:)``).
    package private(set) var secrets: MemberSecrets
    package private(set) var keyring: MemberKeyring
    /// The fold of every event this member opened, onto the state they started from.
    package private(set) var state: GiftList
    /// The last frame taken in.
    package private(set) var sequence: UInt64 = 0
    /// Where the chain stood when this device last verified it (a ``VerifiedMark`` handed
    /// to ``open(_:as:password:recoveryCode:verifiedMark:initial:)``), until catching up passes it.
    private var trusted: JournalHead?
    /// Told of every entry folded in, with the state before it, whichever call took it in
    /// (the commands learn members' names from the events they sign, and keep the history).
    private let observer: ((HouseholdEntry, GiftList) -> Void)?

    private init(
        store: any FrameStore, secrets: MemberSecrets, initial: GiftList, observer: ((HouseholdEntry, GiftList) -> Void)? = nil
    ) throws(HouseholdError) {
        guard store.header.formatVersion == JournalFormat.householdVersion else {
            throw .notAHousehold(formatVersion: store.header.formatVersion)
        }
        self.store = store
        self.secrets = secrets
        keyring = MemberKeyring(me: secrets, header: store.header)
        state = initial
        self.observer = observer
    }

    package var id: MemberID { secrets.id }
    package var keys: MemberKeys { secrets.identity.keys }

    // MARK: Making and opening

    /// Makes a household in `store` (a new, empty journal of format version 3): the
    /// creator's key wrap, then the first epoch, of them alone, an owner.
    package static func create(
        in store: any FrameStore, password: SecureBytes, recoveryCode: SecureBytes, parameters: KDFParameters, initial: GiftList,
        secrets: MemberSecrets? = nil, observer: ((HouseholdEntry, GiftList) -> Void)? = nil
    ) throws(HouseholdError) -> HouseholdMember {
        let member = try join(
            store, password: password, recoveryCode: recoveryCode, parameters: parameters, initial: initial, secrets: secrets,
            observer: observer)
        try member.startEpoch(roster: Roster([member.keys]), owners: [member.id])
        return member
    }

    /// A joiner's new identity (or `secrets`, made before: their keys went with a join
    /// request), written into the household's journal as their key wrap; they hold no key of
    /// the household until an owner admits them (``admit(_:appending:)``).
    package static func join(
        _ store: any FrameStore, password: SecureBytes, recoveryCode: SecureBytes, parameters: KDFParameters, initial: GiftList,
        secrets: MemberSecrets? = nil, observer: ((HouseholdEntry, GiftList) -> Void)? = nil
    ) throws(HouseholdError) -> HouseholdMember {
        var secrets = secrets
        if secrets == nil { secrets = try sealing { try MemberSecrets.generate() } }
        guard let secrets else { throw .notAMember }
        let member = try HouseholdMember(store: store, secrets: secrets, initial: initial, observer: observer)
        try member.wrapKeys(password: password, recoveryCode: recoveryCode, parameters: parameters)
        return member
    }

    /// Writes this member's key wrap under `password` and `recoveryCode`: at joining, and
    /// again when they set a new password (a member who signed in with their recovery code).
    /// Their newest wrap is the one ``open(_:as:password:recoveryCode:verifiedMark:initial:observer:)`` opens.
    package func wrapKeys(password: SecureBytes, recoveryCode: SecureBytes, parameters: KDFParameters) throws(HouseholdError) {
        try write { batch in
            let wrap = try MemberWrapPayload.make(
                secrets, password: password, recoveryCode: recoveryCode, parameters: parameters,
                binding: binding(.memberWrap, in: batch))
            try batch.add(kind: .memberWrap, payload: wrap)
        }
    }

    /// Renews this member's identity (`passwd` in a household; docs/threat-model.md): new
    /// key pairs and *only me* key, wrapped with the earlier ones under `password` and
    /// `recoveryCode`, and a renewal epoch in the same batch, granted to the new keys and
    /// signed by the new signing key and the old one. Those who left are closed out first.
    /// Appended by `appending` when given, with the new public keys (a service records them with it).
    package func renewKeys(
        password: SecureBytes, recoveryCode: SecureBytes, parameters: KDFParameters,
        appending: ((FrameBatch, MemberKeys) throws -> AppendOutcome)? = nil
    ) throws(HouseholdError) {
        try catchUp()
        guard keyring.isMember else { throw .notAMember }
        if !keyring.departed.isEmpty { try closeOutDepartures() }
        let renewed = try Self.sealing { try secrets.renewed() }
        // Taken in once the new keys are the keyring's: the renewal grants nothing to the old ones.
        try write(appending: appending.map { append in { batch in try append(batch, renewed.identity.keys) } }, takingIn: false) { batch in
            guard keyring.isMember, keyring.departed.isEmpty else { throw HouseholdError.busy }
            let wrap = try MemberWrapPayload.make(
                renewed, password: password, recoveryCode: recoveryCode, parameters: parameters,
                binding: binding(.memberWrap, in: batch))
            try batch.add(kind: .memberWrap, payload: wrap)
            var roster = keyring.members
            roster.remove(id)
            roster.admit(renewed.identity.keys)
            var owners = keyring.owners
            if owners.remove(id) != nil { owners.insert(renewed.id) }
            let frame = position(.epoch, in: batch)
            let position = EpochPosition(
                journalID: frame.journalID, sequence: frame.sequence, previousHash: frame.previousHash, epoch: keyring.epoch + 1)
            let (epoch, keys) = try EpochGrants.begin(
                at: position, roster: roster, owners: owners, author: renewed.identity, renewing: secrets.identity)
            guard let everyone = keys.first(where: { $0.audience == .everyone }) else { throw HouseholdError.notAMember }
            try batch.add(kind: .epoch, payload: HouseholdFrames.encode(epoch, everyone: everyone, at: frame))
        }
        secrets = renewed
        keyring.renew(to: renewed)
        try catchUp()
    }

    /// Signs in to `store` as `member` with their password (or their recovery code), then
    /// catches up with every frame; with the ``verifiedMark()`` this device kept, checking no
    /// signature it verified before (a mark that is not this member's for this journal is
    /// passed over: every frame is verified; a journal whose chain hash at the mark's position
    /// is another's is refused as forked there, ``HouseholdError/forked(sequence:)``);
    /// with `unlocked`, the wrap the device's copy opened (``UnlockedWrap``), taken when it
    /// stands where the store's newest wrap of the member does, after the same chain.
    package static func open(
        _ store: any FrameStore, as member: MemberID, password: SecureBytes? = nil, recoveryCode: SecureBytes? = nil,
        verifiedMark: [UInt8]? = nil, unlocked: UnlockedWrap? = nil, initial: GiftList,
        observer: ((HouseholdEntry, GiftList) -> Void)? = nil
    ) throws(HouseholdError) -> HouseholdMember {
        let header = store.header
        guard header.formatVersion == JournalFormat.householdVersion else { throw .notAHousehold(formatVersion: header.formatVersion) }
        guard let wrap = newestWrap(in: store, of: member) else { throw .noKeyWrap }
        let (payload, binding) = wrap
        // The wrap the device's copy opened already, when it is this one (no second key derivation).
        let secrets: MemberSecrets
        if let unlocked, unlocked.binding == binding, unlocked.secrets.id == member {
            secrets = unlocked.secrets
        } else {
            secrets = try opening(binding) {
                if let recoveryCode { return try payload.open(recoveryCode: recoveryCode, binding: binding) }
                return try payload.open(password: password ?? SecureBytes(capacity: 0), binding: binding)
            }
        }
        let opened = try HouseholdMember(store: store, secrets: secrets, initial: initial, observer: observer)
        opened.trusted = verifiedMark.flatMap { VerifiedMark.decode($0, journalID: header.journalID, member: secrets) }
        try opened.catchUp()
        return opened
    }

    /// The newest wrap of `member` in `store` that they signed; one someone else made is passed over unopened.
    static func newestWrap(in store: any FrameStore, of member: MemberID) -> (MemberWrapPayload, FrameBinding)? {
        let header = store.header
        return store.frameIndex.memberWraps.reversed().lazy.compactMap { frame -> (MemberWrapPayload, FrameBinding)? in
            let binding = FrameBinding(
                formatVersion: header.formatVersion, journalID: header.journalID, sequence: frame.sequence, kind: .memberWrap,
                previousHash: frame.previousHash)
            guard let payload = try? MemberWrapPayload(parsing: frame.payload, binding: binding), payload.keys.id == member else {
                return nil
            }
            return (payload, binding)
        }.first
    }

    /// Whether `password` opens this member's newest key wrap (`passwd` checks the current one first).
    package func opens(password: SecureBytes) -> Bool {
        guard let (payload, binding) = Self.newestWrap(in: store, of: id) else { return false }
        return (try? payload.open(password: password, binding: binding)) != nil
    }

    /// How far this device has verified the journal, to keep outside it (``VerifiedMark``).
    package func verifiedMark() throws(HouseholdError) -> [UInt8] {
        try catchUp()
        return try Self.sealing { try VerifiedMark.encode(store.head, journalID: store.header.journalID, member: secrets) }
    }

    // MARK: Catching up

    /// Takes in what other writers appended, then every frame after the last taken in:
    /// each passes ``MemberKeyring/takeIn(_:)``, and its event, if any, is folded in and
    /// handed to `body`. A refusal stops there: nothing from that frame on is taken in.
    package func catchUp(_ body: ((HouseholdEntry) -> Void)? = nil) throws(HouseholdError) {
        do {
            _ = try store.waitForFrames(after: store.head.sequence, milliseconds: 0)
            // As long as the journal this device verified, another head: replaced or forked, refused unread.
            if let trusted, store.head.sequence == trusted.sequence, store.head != trusted { throw Forked() }
            try store.read(after: sequence, progress: nil) { frame in
                if let trusted, frame.sequence == trusted.sequence + 1 {
                    // Past the mark along another chain: the chain hash at the mark's position is
                    // not its head's, a fork there, refused before any frame past it is read.
                    guard Array(frame.previousHash) == trusted.hash else { throw Forked() }
                    self.trusted = nil
                }
                if let entry = try keyring.takeIn(frame, verifyingSignature: frame.sequence > trusted?.sequence ?? 0) {
                    observer?(entry, state)
                    state.apply(entry.event)
                    body?(entry)
                }
                sequence = frame.sequence
            }
            if let trusted {
                // Shorter than this device verified it: rolled back (a person's journal says so too).
                guard store.head.sequence >= trusted.sequence else { throw RolledBack(missing: trusted.sequence - store.head.sequence) }
                guard store.head == trusted else { throw Forked() }  // as long as the mark, ending elsewhere
                self.trusted = nil
            }
        } catch let refusal as HouseholdRefusal {
            throw .refused(refusal)
        } catch let rollback as RolledBack {
            throw .rolledBack(missing: rollback.missing)
        } catch is Forked {
            throw .forked(sequence: trusted?.sequence ?? sequence)
        } catch {
            throw .sealing(SealingError(error))
        }
    }

    /// The chain is as long as the head a ``VerifiedMark`` names, or longer, but has another hash there.
    private struct Forked: Error {}

    /// The chain ends before the head a ``VerifiedMark`` names.
    private struct RolledBack: Error {
        let missing: UInt64
    }

    // MARK: Writing

    /// Seals `events` for `audience` and appends them in one batch: everyone, everyone but
    /// another member (the one a present is for), or only this member. Those who left are
    /// closed out first (a new epoch), and the epoch completed when this member needs it.
    ///
    /// With `decidedAt` (the head the events were decided at: their numbers come from it),
    /// nothing is appended once the journal moved past that head, and the answer is false:
    /// the caller decides again on what came (two devices deciding at one head would take
    /// the same number). With `replaying`, each event carries the offline change it came from.
    @discardableResult
    package func record(_ events: [Event], for audience: Audience, decidedAt head: JournalHead? = nil, replaying mark: ReplayMark? = nil)
        throws(HouseholdError) -> Bool
    {
        try catchUp()
        if !keyring.departed.isEmpty { try closeOutDepartures() }
        if audience == .everyoneBut(keyring.epochAuthor ?? id), audience != .everyoneBut(id) { try completeEpoch() }
        var moved = false
        try write { batch in
            if let head, batch.head != head {
                moved = true
                return
            }
            guard keyring.isMember, let keys = keyring.keys, let everyone = keys.keys[.everyone] else {
                throw HouseholdError.notAMember
            }
            guard keyring.departed.isEmpty else { throw HouseholdError.busy }
            guard let key = keys.keys[audience] else { throw HouseholdError.notInAudience(audience) }
            for event in events {
                let position = self.position(.householdEvent, in: batch)
                let payload = mark.map { $0.marking(EventCodec.encode(event)) } ?? EventCodec.encode(event)
                let frame = try HouseholdEvents.seal(
                    payload, at: position, epoch: keyring.epoch, for: key, everyone: everyone, author: secrets.identity)
                try batch.add(kind: .householdEvent, payload: frame)
            }
        }
        return !moved
    }

    /// Admits a member who joined (an owner): a new epoch with them in it, appended by
    /// `appending` when given (a service makes the admission with its frame, in one request).
    package func admit(_ member: MemberKeys, appending: ((FrameBatch) throws -> AppendOutcome)? = nil) throws(HouseholdError) {
        try changeMembers(appending: appending) { roster, _ in roster.admit(member) }
    }

    /// Removes a member (an owner; not themselves: they leave): a new epoch without them,
    /// appended by `appending` when given (a service stops serving them in the same request).
    package func remove(_ member: MemberID, appending: ((FrameBatch) throws -> AppendOutcome)? = nil) throws(HouseholdError) {
        try changeMembers(appending: appending) { roster, owners in
            roster.remove(member)
            owners.remove(member)
        }
    }

    /// Makes a member an owner too (an owner), appended by `appending` when given (a service
    /// records the new owner in the same request).
    package func makeOwner(_ member: MemberID, appending: ((FrameBatch) throws -> AppendOutcome)? = nil) throws(HouseholdError) {
        try changeMembers(appending: appending) { _, owners in owners.insert(member) }
    }

    /// Leaves the household: a signed leave, with no key (a new epoch would give this member
    /// its keys); the next member to write closes them out. Refused for the last owner
    /// while others stay.
    package func leave(appending: ((FrameBatch) throws -> AppendOutcome)? = nil) throws(HouseholdError) {
        try catchUp()
        guard keyring.isMember else { throw .notAMember }
        let otherOwners = keyring.owners.subtracting(keyring.departed).subtracting([id])
        guard otherOwners.isEmpty == false || !keyring.owners.contains(id) || keyring.members.ids == [id] else { throw .lastOwner }
        // Not taken in after: a service serves a member who left nothing more.
        try write(appending: appending, takingIn: false) { batch in
            let payload = try HouseholdFrames.Leave.make(
                by: secrets.identity, epoch: keyring.epoch, at: position(.leave, in: batch))
            try batch.add(kind: .leave, payload: payload)
        }
    }

    /// A new epoch for the members who stay, without those who left (any member).
    package func closeOutDepartures() throws(HouseholdError) {
        guard keyring.isMember else { throw .notAMember }
        try startEpoch(roster: keyring.members, owners: keyring.owners.subtracting(keyring.departed))
    }

    /// Completes the current epoch (the key of everyone but its author), unless done or this
    /// member wrote it.
    package func completeEpoch() throws(HouseholdError) {
        try write { batch in
            guard !keyring.isCompleted, let frame = keyring.epochFrame, frame.body.author != id else { return }
            guard keyring.isMember else { throw HouseholdError.notAMember }
            let (completion, _) = try EpochGrants.complete(frame, by: secrets.identity)
            try batch.add(kind: .completion, payload: HouseholdFrames.encode(completion))
        }
    }

    private func changeMembers(
        appending: ((FrameBatch) throws -> AppendOutcome)? = nil, _ change: (inout Roster, inout Set<MemberID>) -> Void
    ) throws(HouseholdError) {
        try catchUp()
        guard keyring.isMember else { throw .notAMember }
        guard keyring.owners.contains(id) else { throw .notAnOwner }
        var roster = keyring.members
        var owners = keyring.owners.subtracting(keyring.departed)
        change(&roster, &owners)
        guard !owners.isEmpty, roster.contains(id) else { throw .lastOwner }
        try startEpoch(roster: roster, owners: owners, appending: appending)
    }

    /// Appends the next epoch's frame for `roster` and `owners`, written by this member.
    private func startEpoch(
        roster: Roster, owners: Set<MemberID>, appending: ((FrameBatch) throws -> AppendOutcome)? = nil
    ) throws(HouseholdError) {
        try write(appending: appending) { batch in
            let frame = position(.epoch, in: batch)
            let position = EpochPosition(
                journalID: frame.journalID, sequence: frame.sequence, previousHash: frame.previousHash, epoch: keyring.epoch + 1)
            let (epoch, keys) = try EpochGrants.begin(at: position, roster: roster, owners: owners, author: secrets.identity)
            guard let everyone = keys.first(where: { $0.audience == .everyone }) else { throw HouseholdError.notAMember }
            try batch.add(kind: .epoch, payload: HouseholdFrames.encode(epoch, everyone: everyone, at: frame))
        }
    }

    /// Builds a batch on the store's head with `build` and appends it (to the store, or with
    /// `appending`), then takes it in (unless not `takingIn`); on a conflict, catches up and
    /// builds again (a few times).
    private func write(
        appending: ((FrameBatch) throws -> AppendOutcome)? = nil, takingIn: Bool = true, _ build: (inout FrameBatch) throws -> Void
    ) throws(HouseholdError) {
        for _ in 0..<Self.attempts {
            try catchUp()
            let outcome: AppendOutcome
            do {
                outcome = try SecureBytes.whileKeysInUse {
                    var batch = store.makeBatch()
                    try build(&batch)
                    guard !batch.isEmpty else { return .appended(store.head) }
                    return try appending?(batch) ?? store.append(batch)
                }
            } catch let error as HouseholdError {
                throw error
            } catch {
                throw .sealing(SealingError(error))
            }
            if case .appended = outcome { return takingIn ? try catchUp() : () }
        }
        throw .busy
    }

    package static let attempts = 5

    private func position(_ kind: FrameKind, in batch: FrameBatch) -> FramePosition {
        FramePosition(journalID: store.header.journalID, sequence: batch.nextSequence, kind: kind.rawValue, previousHash: batch.previousHash)
    }

    private func binding(_ kind: FrameKind, in batch: FrameBatch) -> FrameBinding {
        FrameBinding(
            formatVersion: store.header.formatVersion, journalID: store.header.journalID, sequence: batch.nextSequence, kind: kind,
            previousHash: batch.previousHash)
    }

    private static func sealing<T>(_ body: () throws -> T) throws(HouseholdError) -> T {
        do {
            return try body()
        } catch {
            throw .sealing(SealingError(error))
        }
    }
}
