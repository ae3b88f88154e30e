import GiftKeeperCrypto
package import GiftKeeperDomain
package import GiftKeeperJournal

/// A household event one member opened and verified: who wrote it, for whom, and the event.
package struct HouseholdEntry: Sendable {
    package let sequence: UInt64
    package let epoch: UInt64
    package let author: MemberID
    package let audience: Audience
    package let event: Event
    /// Sent from its author's offline work: what it came from, and where (``ReplayMark``).
    package var replayed: ReplayMark? = nil
}

/// What one member holds of a household's journal, and the checks every frame passes
/// before it is taken in (docs/threat-model.md, "A household event"): the chain (the store
/// verified it), then for an event the membership tag, the audience tag (no match: not for
/// this member, nothing), the AEAD, that its author is a member at this position, and the
/// signature against the key the chain holds for them there. Epoch frames, completions
/// and leaves are checked against the roster before them. Anything else is a
/// ``HouseholdRefusal`` at its position.
///
/// While the member is not in the roster (before their admission, after their removal),
/// frames are chain-checked only: they hold no key to check anything more.
package struct MemberKeyring {
    /// The current epoch as this member holds it.
    struct Current {
        let frame: EpochFrame
        /// Who may write now: the roster, less those who left.
        var writers: Roster
        let owners: Set<MemberID>
        var departed: Set<MemberID> = []
        var keyring: EpochKeyring
        var subkeys: EpochSubkeys
        var completed: Bool
    }

    /// This member's keys: their newest identity, with the earlier ones (``MemberSecrets/earlier``).
    package private(set) var me: MemberSecrets
    /// The identity this member had at this point of the journal: the oldest of theirs at
    /// first, the next one from the renewal that names it on (their `passwd`).
    private var active: MemberSecrets
    /// Every renewal taken in: a member's old id and the new one it announced.
    package private(set) var successors: [MemberID: MemberID] = [:]
    /// The epoch frame that left this member out after they held the epoch before it (a
    /// removal, or their `passwd` on another device: ``HouseholdMember/isRenewedElsewhere``).
    package private(set) var leftOutAt: UInt64?
    let journalID: [UInt8]
    let formatVersion: UInt16
    /// The household's epoch at this point of the journal (the clear epoch numbers run 1, 2, 3…).
    package private(set) var epoch: UInt64 = 0
    private var current: Current?
    /// Every epoch's keys this member held, by epoch: old keys are kept (replay, audit, `--as-of`).
    package private(set) var held: [UInt64: EpochKeyring] = [:]
    /// How many events' signatures this keyring checked (a sign-in with a ``VerifiedMark``
    /// checks only those after it).
    package private(set) var signaturesVerified = 0

    package init(me: MemberSecrets, header: JournalHeader) {
        self.me = me
        active = me.chain.last ?? me
        journalID = header.journalID
        formatVersion = header.formatVersion
    }

    /// Whether this member holds the current epoch's keys.
    package var isMember: Bool { current.map { $0.writers.contains(active.id) } ?? false }
    /// The identity this member writes as now (their newest once the journal holds its renewal).
    package var identity: MemberSecrets { active }

    /// This member's keys after their `passwd` (``MemberSecrets/renewed()``): the renewal that
    /// names the new identity switches to it when it is taken in.
    package mutating func renew(to secrets: MemberSecrets) {
        precondition(secrets.earlier.first?.id == me.id, "a renewal follows the identity it renews")
        me = secrets
    }
    /// The members who may write now, and the owners.
    package var members: Roster { current?.writers ?? Roster() }
    package var owners: Set<MemberID> { current?.owners ?? [] }
    /// Members who left in this epoch and are not closed out yet.
    package var departed: Set<MemberID> { current?.departed ?? [] }
    /// The current epoch's frame's author, and whether another member completed it.
    package var epochAuthor: MemberID? { current?.frame.body.author }
    package var isCompleted: Bool { current?.completed ?? false }
    /// The current epoch's frame, for completing it.
    package var epochFrame: EpochFrame? { current?.frame }
    /// This member's keys of the current epoch (their *only me* included).
    package var keys: EpochKeyring? { current?.keyring }

    /// Takes in one frame the store verified against the chain; without `verifyingSignature`
    /// (a frame this device verified before), an event's signature is not checked again.
    /// - Returns: the event in it when it is a household event for this member.
    package mutating func takeIn(_ frame: FrameView, verifyingSignature: Bool = true) throws(HouseholdRefusal) -> HouseholdEntry? {
        // An event is opened where it lies; the other kinds, few, are copied out.
        let payload = frame.kind == .householdEvent ? [] : Array(frame.payload)
        let position = FramePosition(
            journalID: journalID, sequence: frame.sequence, kind: frame.kind.rawValue, previousHash: Array(frame.previousHash))
        func refused(_ reason: HouseholdRefusal.Reason) -> HouseholdRefusal {
            HouseholdRefusal(sequence: frame.sequence, reason: reason)
        }
        switch frame.kind {
        case .dataSealed, .publicSealed, .keyWrap:
            throw refused(.notAHouseholdFrame(frame.kind))
        case .memberWrap:
            let binding = FrameBinding(
                formatVersion: formatVersion, journalID: journalID, sequence: frame.sequence, kind: frame.kind,
                previousHash: position.previousHash)
            do throws(MemberWrapFault) {
                _ = try MemberWrapPayload(parsing: payload, binding: binding)
            } catch {
                throw refused(.memberWrap(error))
            }
            return nil
        case .epoch:
            try takeInEpoch(payload, at: position, refused: refused)
            return nil
        case .completion:
            try takeInCompletion(payload, refused: refused)
            return nil
        case .leave:
            guard let leave = HouseholdFrames.Leave(payload) else { throw refused(.malformed(.leave)) }
            guard leave.epoch == epoch else { throw refused(.wrongEpoch(found: leave.epoch, current: epoch)) }
            guard var current else { return nil }
            guard let keys = current.writers.members[leave.member] else { throw refused(.leaverNotMember) }
            guard leave.isSigned(by: keys, at: position) else { throw refused(.leaveNotSigned) }
            current.writers.remove(leave.member)
            current.departed.insert(leave.member)
            guard !current.writers.members.isEmpty, current.owners.subtracting(current.departed).isEmpty else {
                self.current = current
                return nil
            }
            throw refused(.lastOwnerLeaving)
        case .householdEvent:
            guard frame.payload.count >= 8 else { throw refused(.malformed(.householdEvent)) }
            let found = UInt64(littleEndian: frame.payload.loadUnaligned(as: UInt64.self))
            guard found == epoch, epoch > 0 else { throw refused(.wrongEpoch(found: found, current: epoch)) }
            // The two fields it needs, not a copy of the whole epoch at every frame.
            guard let subkeys = current?.subkeys, let writers = current?.writers else { return nil }
            let opened: OpenedHouseholdEvent?
            do throws(HouseholdFrameError) {
                opened = try HouseholdEvents.open(
                    frame.payload, at: position, subkeys: subkeys, roster: writers, verifyingSignature: verifyingSignature)
            } catch {
                throw refused(.event(error.reason))
            }
            guard let opened else { return nil }
            if verifyingSignature { signaturesVerified += 1 }
            guard let marked = ReplayMark.split(opened.payload) else { throw refused(.malformed(.householdEvent)) }
            do throws(EventDecodingError) {
                let event = try EventCodec.decode(marked.event)
                return HouseholdEntry(
                    sequence: frame.sequence, epoch: epoch, author: opened.author, audience: opened.audience, event: event,
                    replayed: marked.mark)
            } catch {
                throw refused(.undecodable(error))
            }
        }
    }

    /// An epoch frame: the next epoch, checked against the roster before it when this member
    /// was in it; granted to this member, or not (not admitted, or removed).
    private mutating func takeInEpoch(
        _ payload: [UInt8], at position: FramePosition, refused: (HouseholdRefusal.Reason) -> HouseholdRefusal
    ) throws(HouseholdRefusal) {
        guard let sealed = HouseholdFrames.epoch(payload) else { throw refused(.malformed(.epoch)) }
        guard sealed.epoch == epoch + 1 else { throw refused(.wrongEpoch(found: sealed.epoch, current: epoch)) }
        let previous = current
        // This member's identity now, or a newer one of theirs (the renewal that names it).
        let chain = me.chain
        let mine = chain.prefix(through: chain.firstIndex { $0.id == active.id } ?? chain.count - 1).reversed()
        guard let identity = mine.first(where: { sealed.grants[$0.id] != nil }) else {
            // Not granted: not admitted yet, or removed. Nothing of this epoch opens here.
            if previous != nil { leftOutAt = position.sequence }
            (epoch, current) = (sealed.epoch, nil)
            return
        }
        let epoch = sealed.epoch
        let frame = try HouseholdFrames.open(sealed, as: identity.identity, at: position)
        let keys: [AudienceKey]
        do throws(GrantViolation) {
            keys = try EpochGrants.open(frame, as: identity.identity, previous: previous?.writers)
        } catch {
            throw refused(.grant(error.reason))
        }
        guard Self.mayChange(to: frame.body, from: previous, epoch: epoch) else { throw refused(.changeNotAllowed) }
        if let renewal = frame.body.renewal { successors[renewal.from] = frame.body.author }
        // A newer identity of this member's is granted only by the renewal that announces it.
        guard identity.id == active.id || frame.body.renewal?.from == active.id else { throw refused(.changeNotAllowed) }
        active = identity
        let keyring = EpochKeyring(epoch: epoch, keys: keys + [identity.onlyMe])
        guard let subkeys = try? EpochSubkeys(keyring) else { throw refused(.malformed(.epoch)) }
        current = Current(
            frame: frame, writers: frame.body.members, owners: Set(frame.body.owners), keyring: keyring, subkeys: subkeys,
            completed: frame.body.roster.count == 1)
        self.epoch = epoch
        held[epoch] = keyring
    }

    /// Whether `body`'s author may make its change (docs/threat-model.md): an owner any (the
    /// first epoch is its author's alone); any member closes out exactly those who left;
    /// owners are members, and there is one. A newcomer, who cannot read the roster before,
    /// takes the word of the owner who admitted them (their signature covers the chain). A
    /// renewal swaps one member's keys for new ones and changes nothing else.
    static func mayChange(to body: EpochBody, from previous: Current?, epoch: UInt64) -> Bool {
        let owners = Set(body.owners)
        let roster = body.members
        guard !owners.isEmpty, owners.count == body.owners.count, owners.allSatisfy(roster.contains) else { return false }
        if let renewal = body.renewal {
            guard let previous, previous.departed.isEmpty, previous.writers.contains(renewal.from),
                !previous.writers.contains(body.author), let keys = roster.members[body.author]
            else { return false }
            var expected = previous.writers
            expected.remove(renewal.from)
            expected.admit(keys)
            let renamed = previous.owners.contains(renewal.from)
            return roster == expected && owners == (renamed ? previous.owners.subtracting([renewal.from]).union([body.author]) : previous.owners)
        }
        guard let previous else {
            return owners.contains(body.author) && (epoch > 1 || roster.ids == [body.author])
        }
        if previous.owners.contains(body.author) { return true }
        return !previous.departed.isEmpty && roster == previous.writers && owners == previous.owners.subtracting(previous.departed)
    }

    /// A completion of the current epoch: the key of everyone but its author, to the others.
    private mutating func takeInCompletion(_ payload: [UInt8], refused: (HouseholdRefusal.Reason) -> HouseholdRefusal)
        throws(HouseholdRefusal)
    {
        guard let found = HouseholdFrames.completionEpoch(payload) else { throw refused(.malformed(.completion)) }
        guard found == epoch, epoch > 0 else { throw refused(.wrongEpoch(found: found, current: epoch)) }
        guard var current else { return }
        guard !current.completed else { throw refused(.alreadyCompleted) }
        guard let completion = HouseholdFrames.completion(payload, of: current.frame.body.position) else {
            throw refused(.malformed(.completion))
        }
        guard current.writers.contains(completion.completer) else { throw refused(.grant(.authorNotMember)) }
        let key: AudienceKey?
        do throws(GrantViolation) {
            key = try EpochGrants.open(completion, of: current.frame, as: active.identity)
        } catch {
            throw refused(.grant(error.reason))
        }
        if let key {
            current.keyring = EpochKeyring(epoch: epoch, keys: Array(current.keyring.keys.values) + [key])
            guard let subkeys = try? EpochSubkeys(current.keyring) else { throw refused(.malformed(.completion)) }
            current.subkeys = subkeys
            held[epoch] = current.keyring
        }
        current.completed = true
        self.current = current
    }
}
