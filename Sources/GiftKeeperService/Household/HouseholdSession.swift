package import GiftKeeperCrypto
package import GiftKeeperDomain
package import GiftKeeperJournal
package import GiftKeeperSealing
import OrderedCollections

/// Why a household session refused: the journal layer's error, the list's rule, or a name.
package enum HouseholdSessionError: Error {
    case household(HouseholdError)
    case domain(DomainError)
    /// Another member already goes by this name (compared folded).
    case nameTaken(String)
    /// An invitation code that does not read, owner keys it was not made for, or a join
    /// request not made with it.
    case invitation(InvitationError)
    /// The safety number typed is not the one both devices show: nothing was granted.
    case safetyNumberMismatch
}

/// A household's journal as one member works in it (SPEC §13): signed in with their own
/// password (``HouseholdMember``), their changes decided on what they may read and sealed
/// for the audience ``HouseholdAudiences`` gives them, others' changes taken in by
/// ``catchUp()``. It differs from a person's session (``GiftKeeperService``) in three ways,
/// each because members fold different lists from one journal:
///
/// - Member names: each member signs an `accountCreated` with their own name, sealed for
///   everyone, once in every epoch they are in (a newcomer holds no older key, so names are
///   published again at each change of members, as SPEC §13's re-publishing asks); the fold
///   keeps the first account name (this member's own, in the initial state), so only this
///   directory learns the others'. A member offline since an admission is nameless to the
///   newcomer until they next catch up; a newcomer who signs a name before learning another
///   member holds it is nameless to those who knew (their directories keep the first).
/// - Numbers: new presents and wishes are numbered from the journal's next frame on
///   (``GiftList/numbering(from:)``), as one member cannot see every number another used;
///   a change is appended only after the head it was decided at, and decided again when
///   another device appended first, so two devices never take one number.
/// - Sign-ins are this device's own: the member's initial state is signed in, and no
///   sign-in or sign-out is written (they would go to *only me*).
package final class HouseholdSession {
    package let member: HouseholdMember
    /// This member's name, as they chose it when they joined.
    package let name: String
    let directory: MemberDirectory
    private let now: @Sendable () -> Timestamp

    private init(member: HouseholdMember, name: String, directory: MemberDirectory, now: @escaping @Sendable () -> Timestamp) {
        self.member = member
        self.name = name
        self.directory = directory
        self.now = now
    }

    /// How a member signs up: making a household (its first member and owner) or joining one.
    package enum SignUp: Sendable {
        /// Makes a household in a new journal of format version 3.
        case creating
        /// A new identity and its key wrap, holding no key until an owner admits ``keys``.
        case joining
    }

    /// Signs up to the household in `store` as `name` (``SignUp``), with a password and a
    /// recovery code of this member's own, and `secrets` when they were made before (a
    /// service takes the creator's public keys with the new household; a joiner's went with
    /// their join request).
    package static func signUp(
        _ kind: SignUp, in store: any FrameStore, name: String, password: SecureBytes, recoveryCode: SecureBytes,
        parameters: KDFParameters, secrets: MemberSecrets? = nil, now: @escaping @Sendable () -> Timestamp
    ) throws(HouseholdSessionError) -> HouseholdSession {
        try start(name: name, now: now, catchingUp: kind == .creating) { initial, observer throws(HouseholdError) -> HouseholdMember in
            switch kind {
            case .creating:
                try HouseholdMember.create(
                    in: store, password: password, recoveryCode: recoveryCode, parameters: parameters, initial: initial,
                    secrets: secrets, observer: observer)
            case .joining:
                try HouseholdMember.join(
                    store, password: password, recoveryCode: recoveryCode, parameters: parameters, initial: initial,
                    secrets: secrets, observer: observer)
            }
        }
    }

    /// Signs in to `store` as member `id`, known on this device as `name`, with their
    /// password (or their `recoveryCode`), and catches up, verifying no signature up to the
    /// `verifiedMark` this device kept (``HouseholdMember/verifiedMark()``); `unlocked`: the
    /// member's wrap as the device's copy opened it (``UnlockedWrap``).
    package static func open(
        _ store: any FrameStore, as id: MemberID, name: String, password: SecureBytes, recoveryCode: SecureBytes? = nil,
        verifiedMark: [UInt8]? = nil, unlocked: UnlockedWrap? = nil, now: @escaping @Sendable () -> Timestamp
    ) throws(HouseholdSessionError) -> HouseholdSession {
        try start(name: name, now: now, catchingUp: true, me: id) { initial, observer throws(HouseholdError) -> HouseholdMember in
            try HouseholdMember.open(
                store, as: id, password: password, recoveryCode: recoveryCode, verifiedMark: verifiedMark, unlocked: unlocked,
                initial: initial, observer: observer)
        }
    }

    /// This member's changes that another's offline change, after position `sequence`,
    /// overrode (SPEC §12: told to the device whose change lost), each field once, with what won last.
    package func overridden(after sequence: UInt64) -> [OverriddenChange] {
        var found: [OverriddenChange] = []
        for (at, change) in directory.overridden where at > sequence {
            found.removeAll { $0.id == change.id && $0.kind.sameField(as: change.kind) }
            found.append(change)
        }
        return found
    }

    /// A session of the member `makeMember` signs in or up, from the initial state of
    /// `name` (signed in), with a directory told of every entry they fold in.
    private static func start(
        name: String, now: @escaping @Sendable () -> Timestamp, catchingUp: Bool, me: MemberID? = nil,
        _ makeMember: (GiftList, @escaping (HouseholdEntry, GiftList) -> Void) throws(HouseholdError) -> HouseholdMember
    ) throws(HouseholdSessionError) -> HouseholdSession {
        let initial = try initialState(name: name, at: now())
        let directory = MemberDirectory(initial: initial)
        directory.me = me
        let member = try household { () throws(HouseholdError) -> HouseholdMember in try makeMember(initial, directory.takeIn) }
        directory.me = member.id
        let session = HouseholdSession(member: member, name: name, directory: directory, now: now)
        if catchingUp { try session.catchUp() }
        return session
    }

    package var id: MemberID { member.id }
    package var keys: MemberKeys { member.keys }
    /// What this member may read, folded.
    package var state: GiftList { member.state }
    /// Whether this member holds the current epoch's keys (admitted, not removed).
    package var isMember: Bool { member.keyring.isMember }
    /// The current members by id, with the names they signed (nil before they did).
    package var members: [(id: MemberID, name: String?, isOwner: Bool)] {
        member.keyring.members.ids.map { ($0, directory.names[$0], member.keyring.owners.contains($0)) }
    }

    /// Every event this member opened, oldest first, with its author's name as the
    /// household knows it (nil before they signed one this member can read).
    package var history: [(author: String?, entry: HistoryEntry)] {
        directory.history.map { (directory.names[$0.author], $0.entry) }
    }

    /// The member who goes by `name` (compared folded), if any: as they are now (not an
    /// identity a `passwd` of theirs renewed).
    package func memberID(named name: String) -> MemberID? {
        let key = state.foldedName(name)
        return directory.current.first { state.foldedName($0.value) == key }?.key
    }

    /// Takes in what the other members wrote; once admitted, signs this member's name for
    /// everyone if they have not in this epoch, with what SPEC §13 re-publishes for a new
    /// epoch (``republished``).
    package func catchUp() throws(HouseholdSessionError) {
        directory.me = id
        try Self.household { () throws(HouseholdError) in try member.catchUp() }
        directory.renew(member.keyring.successors)
        guard member.keyring.isMember, directory.signed[id] != member.keyring.epoch else { return }
        if let other = memberID(named: name), other != id { throw .nameTaken(name) }
        let events = [Event(at: now(), .accountCreated(name: name))] + republished
        try Self.household { () throws(HouseholdError) in try member.record(events, for: .everyone) }
    }

    /// What this member publishes again for everyone at a new epoch, since a newcomer reads no
    /// history (SPEC §13): their own open wishes (not suggestions others made for them, which
    /// they cannot read); and, from the owner who began the epoch, the occasions (closed as
    /// far as they are) and the currency. Those who read them before fold them to the same
    /// state: a wish's id is taken once, an occasion and the currency set again as they are.
    var republished: [Event] {
        let state = member.state
        let at = now()
        let me = state.foldedName(name)
        var bodies: [EventBody] = state.wishes.values.filter { !$0.isSuggestion && state.foldedName($0.wisher) == me }.map {
            .wishAdded($0)
        }
        if member.keyring.epochAuthor == id, member.keyring.owners.contains(id) {
            for occasion in state.occasions.values {
                bodies.append(.occasionAdded(occasion))
                if let through = state.closedThrough[occasion.key] {
                    bodies.append(.occasionClosed(name: occasion.name, through: through))
                }
            }
            if let currency = state.currency { bodies.append(.currencySet(code: currency)) }
        }
        return bodies.map { Event(at: at, $0) }
    }

    /// Decides `change` on what this member may read and records its events for the
    /// audience the rule gives (only this member when `privately`); the events, none when
    /// the change was already made.
    @discardableResult
    package func perform(_ change: Change, privately: Bool = false) throws(HouseholdSessionError) -> [Event] {
        try perform(.change(change), privately: privately)
    }

    /// ``perform(_:privately:)`` of any command of the list: a change, an undo's
    /// compensation, an export's record (for this member alone, as ``HouseholdAudiences`` says).
    @discardableResult
    package func perform(_ command: Command, privately: Bool = false) throws(HouseholdSessionError) -> [Event] {
        // Decided on the head it will be appended after: when another device appended first,
        // decided again on what it wrote (new numbers), as a person's offline work is.
        for _ in 0..<HouseholdMember.attempts {
            try catchUp()
            let head = member.store.head
            let state = member.state.numbering(from: head.sequence + 1)
            let events: [Event]
            do {
                events = try GiftList.decide(command, at: now(), state: state)
            } catch {
                throw .domain(error)
            }
            guard !events.isEmpty else { return [] }
            let unnamed = Set(member.keyring.members.ids.filter { directory.names[$0] == nil })
            let audience = HouseholdAudiences.audience(
                of: events, privately: privately, me: id, members: directory.current, unnamed: unnamed, state: state)
            if try Self.household({ () throws(HouseholdError) in try member.record(events, for: audience, decidedAt: head) }) {
                return events
            }
        }
        throw .household(.busy)
    }

    /// Admits a member who joined (an owner), then completes nothing: the first other
    /// member to write for the owner's *everyone but* completes the epoch.
    package func admit(_ keys: MemberKeys) throws(HouseholdSessionError) {
        try Self.household { () throws(HouseholdError) in try member.admit(keys) }
    }

    /// Removes member `id` (an owner): a new epoch without them, appended by `appending`
    /// when given (a service's `changeMembers(.remove, …)`, one request).
    package func remove(_ id: MemberID, appending: ((FrameBatch) throws -> AppendOutcome)? = nil) throws(HouseholdSessionError) {
        try Self.household { () throws(HouseholdError) in try member.remove(id, appending: appending) }
    }

    /// Wraps this member's keys again under a new `password` and `recoveryCode` (a member
    /// who signed in with their recovery code): sign-ins open the newest wrap.
    package func setPassword(_ password: SecureBytes, recoveryCode: SecureBytes, parameters: KDFParameters)
        throws(HouseholdSessionError)
    {
        try Self.household { () throws(HouseholdError) in
            try member.wrapKeys(password: password, recoveryCode: recoveryCode, parameters: parameters)
        }
    }

    /// `passwd` in a household: renews this member's key pairs under a new `password` and
    /// `recoveryCode` in a new epoch the old signing key vouches for
    /// (``HouseholdMember/renewKeys(password:recoveryCode:parameters:appending:)``); from
    /// there this member is known by their new id, and signs their name again for everyone.
    package func renewKeys(
        _ password: SecureBytes, recoveryCode: SecureBytes, parameters: KDFParameters,
        appending: ((FrameBatch, MemberKeys) throws -> AppendOutcome)? = nil
    ) throws(HouseholdSessionError) {
        try Self.household { () throws(HouseholdError) in
            try member.renewKeys(password: password, recoveryCode: recoveryCode, parameters: parameters, appending: appending)
        }
        try catchUp()
    }

    /// Makes member `id` an owner too (an owner): a new epoch naming them, appended by
    /// `appending` when given (a service's `changeMembers(.promote, …)`, one request).
    package func makeOwner(_ id: MemberID, appending: ((FrameBatch) throws -> AppendOutcome)? = nil) throws(HouseholdSessionError) {
        try Self.household { () throws(HouseholdError) in try member.makeOwner(id, appending: appending) }
    }

    /// Leaves the household: a signed leave (a service's `changeMembers(.leave, …)` with
    /// `appending`); the next member to write starts an epoch without this one.
    package func leave(appending: ((FrameBatch) throws -> AppendOutcome)? = nil) throws(HouseholdSessionError) {
        try Self.household { () throws(HouseholdError) in try member.leave(appending: appending) }
    }

    static func initialState(name: String, at time: Timestamp) throws(HouseholdSessionError) -> GiftList {
        do {
            return GiftList.fold(try GiftList.decide(.createAccount(name: name), at: time, state: GiftList()))
        } catch {
            throw .domain(error)
        }
    }

    @discardableResult
    static func household<T>(_ body: () throws(HouseholdError) -> T) throws(HouseholdSessionError) -> T {
        do {
            return try body()
        } catch {
            throw .household(error)
        }
    }
}

/// Members' names as they signed them: the first `accountCreated` each member wrote for
/// everyone, unless another member signed that name (folded) first; the last epoch each
/// member signed one in; and what this member could open, by author, with its history.
final class MemberDirectory {
    private(set) var names: [MemberID: String] = [:]
    private(set) var signed: [MemberID: UInt64] = [:]
    /// Every entry this member opened, in order (with its audience: offline work is replayed
    /// for it, and its ``ReplayMark`` when it is a replayed change).
    private(set) var entries: [HouseholdEntry] = []
    /// The history of the first `built.count` entries, and the state after them, folded from
    /// the member's initial state: made when `history`, `--as-of`, `audit` or the shell's
    /// news first ask for it, not at sign-in (each entry's history keeps what it changed).
    private var built: [(author: MemberID, entry: HistoryEntry)] = []
    private var builtState: GiftList
    private let initial: GiftList
    /// This member (nil while signing up): whose changes a replayed one may override.
    var me: MemberID?
    /// This member's changes that another's offline change overrode, by the position of the
    /// event that did (``GiftList/overridden(own:by:state:)``).
    private(set) var overridden: [(sequence: UInt64, change: OverriddenChange)] = []
    private var taken: Set<String> = []
    /// Ids a member's `passwd` renewed, with the id that follows each.
    private var successors: [MemberID: MemberID] = [:]

    /// A directory of a member who starts from `initial` (the state their fold starts from).
    init(initial: GiftList) {
        self.initial = initial
        builtState = initial
    }

    /// The history of what this member opened, oldest first, by author: each entry with what
    /// it changed, as the fold had it before the entry (the same fold, from the same start).
    var history: [(author: MemberID, entry: HistoryEntry)] {
        for entry in entries[built.count...] {
            built.append((entry.author, HistoryEntry(sequence: entry.sequence, event: entry.event, isReported: false, before: builtState)))
            builtState.apply(entry.event)
        }
        return built
    }

    /// The names of members as they are now: without the ids a `passwd` renewed.
    var current: [MemberID: String] { names.filter { successors[$0.key] == nil } }

    /// Carries each renewed member's name over to their new id (their old one keeps it, for
    /// the history they signed with it).
    func renew(_ renewals: [MemberID: MemberID]) {
        for (old, new) in renewals where successors[old] == nil {
            successors[old] = new
            if names[new] == nil, let name = names[old] { names[new] = name }
        }
    }

    /// Notes `entry`, opened, folded on `before` (the member's observer; the history folds its
    /// own states, when asked; `before` tells what a replayed change overrode).
    func takeIn(_ entry: HouseholdEntry, before: GiftList) {
        // A member that folds the journal again from its start (a chain that is not the one
        // it verified) hands the same entries over again: they replace those kept.
        while let last = entries.last, last.sequence >= entry.sequence { entries.removeLast() }
        if built.count > entries.count { (built, builtState) = ([], initial) }
        overridden.removeAll { $0.sequence >= entry.sequence }
        if let mark = entry.replayed, let me { overridden += overrides(of: me, by: entry, mark: mark, before: before) }
        entries.append(entry)
        guard case .accountCreated(let name) = entry.event.body, entry.audience == .everyone else { return }
        signed[entry.author] = max(signed[entry.author] ?? 0, entry.epoch)
        guard names[entry.author] == nil, taken.insert(TextFolding.key(name)).inserted else { return }
        names[entry.author] = name
    }
}

extension MemberDirectory {
    /// The events `author` sent from the offline change `mark` names, in order; nil when
    /// none reached the journal.
    func sent(_ mark: ReplayMark, by author: MemberID) -> [Event]? {
        let events = since(mark.base).filter { $0.author == author && $0.replayed?.origin == mark.origin }
        return events.isEmpty ? nil : events.map(\.event)
    }

    /// The entries after position `sequence`, oldest first.
    private func since(_ sequence: UInt64) -> ArraySlice<HouseholdEntry> {
        entries[(entries.lastIndex { $0.sequence <= sequence }.map { $0 + 1 } ?? 0)...]
    }

    /// What `entry` (an offline change `mark` says was decided at its base, on `before`)
    /// overrode of `me`'s changes after that base: theirs it never saw. The events of its own
    /// replay (one author, one base) are not another's.
    private func overrides(of me: MemberID, by entry: HouseholdEntry, mark: ReplayMark, before: GiftList)
        -> [(sequence: UInt64, change: OverriddenChange)]
    {
        let own = since(mark.base).filter { past in
            past.author == me && !(past.author == entry.author && past.replayed?.base == mark.base)
        }
        let undone = GiftList.overridden(own: own.map(\.event), by: [entry.event], state: before)
        // Who won, from the signature: this member on another device of theirs (their id, or
        // one a `passwd` renewed: the same name), or the member who signed it.
        let name = names[entry.author]
        let winner: OverriddenChange.Winner =
            entry.author == me || (name != nil && name == names[me]) ? .yourOtherDevice : name.map { .member($0) } ?? .anotherDevice
        return undone.map { change in
            var change = change
            change.winner = winner
            return (sequence: entry.sequence, change: change)
        }
    }
}
