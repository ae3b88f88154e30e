/// A fact recorded in the journal: what happened and when.
///
/// Events are the storage format. Their ``EventType`` names and tags never change;
/// ``EventCodec`` writes them.
public struct Event: Hashable, Sendable {
    /// When it happened (UTC milliseconds).
    public var at: Timestamp
    public var body: EventBody

    public init(at: Timestamp, _ body: EventBody) {
        self.at = at
        self.body = body
    }

    public var type: EventType { body.type }
    /// The stable type string, e.g. `presentAdded`.
    public var typeName: String { body.type.name }
}

/// What happened, with its data. Past-tense facts (SPEC §5).
public enum EventBody: Hashable, Sendable {
    /// The account was set up (a new journal).
    case accountCreated(name: String)
    /// The journal was unlocked.
    case loginSucceeded
    /// A wrong password was reported (recorded while locked, so it carries nothing but the time).
    case loginFailed
    /// The session ended. `clean` is false when the service found a session that ended
    /// without a sign-out (a crash) and recorded it before the next sign-in.
    case signedOut(clean: Bool)
    /// A present was added with status `idea`. (`url` and `store` came with schema version 2;
    /// older payloads read as empty.)
    case presentAdded(
        id: PresentID, recipient: String, title: String, notes: String, price: Money?, occasion: String,
        url: String = "", store: String = "")
    /// Fields of a present were changed; only the fields that changed are listed.
    case presentEdited(id: PresentID, changes: [PresentChange])
    case presentStatusChanged(id: PresentID, status: PresentStatus)
    case presentRemoved(id: PresentID)
    /// A new password (and data key) is in effect for the events after this one.
    case passwordChanged
    /// The decrypted state was exported.
    case stateExported(presentCount: Int)
    /// A present was restored from an export document, with its id, status and the
    /// created/updated times it had there (the event's own time is when it was imported).
    case presentImported(Present)
    /// An occasion was named, dated or re-dated (schema version 2). An existing one (the
    /// same folded name) keeps its first spelling and takes the new date.
    case occasionAdded(Occasion)
    /// An occasion was removed by name (compared folded).
    case occasionRemoved(name: String)
    /// A budget was set for a scope (replacing one the scope had). A scope with a year is
    /// written as `budgetSetForYear` (SPEC §10.1), without one as `budgetSet`.
    case budgetSet(Budget)
    /// A scope's budget was removed (`budgetClearedForYear` when the scope has a year).
    case budgetCleared(BudgetScope)
    /// A removed present came back, as it was when removed.
    case presentRestored(id: PresentID)
    /// The journal's currency (an ISO 4217 code such as `EUR`), shown with amounts.
    case currencySet(code: String)
    /// An occasion's day `through` is over (SPEC §10.1, `occasion close`): a dated-once
    /// occasion is past, a yearly one's presents not given yet count for its next date
    /// after it. Nil reopens it (an undone close).
    case occasionClosed(name: String, through: CalendarDate?)
    /// A field of a recipient's profile was set (SPEC §10.1, `person set`); empty clears it.
    case profileFieldSet(recipient: String, field: ProfileField, value: String)
    /// A wish went on a household member's list, or was suggested for them (SPEC §13).
    case wishAdded(Wish)
    /// A wish came off its list.
    case wishRemoved(id: WishID)
    /// A member claimed a wish; `present`, on their list, stands for it. Sealed for
    /// everyone but the wisher, so nobody sees claims on their own wishes.
    case wishClaimed(id: WishID, claimer: String, present: PresentID)
    /// A member gave up their claim on a wish.
    case wishUnclaimed(id: WishID, claimer: String)
    /// The members who give a present together (`add … --with`), each counting their
    /// share; empty: whoever planned it, alone.
    case giversSet(id: PresentID, givers: [String])

    public var type: EventType {
        switch self {
        case .accountCreated: .accountCreated
        case .loginSucceeded: .loginSucceeded
        case .loginFailed: .loginFailed
        case .signedOut: .signedOut
        case .presentAdded: .presentAdded
        case .presentEdited: .presentEdited
        case .presentStatusChanged: .presentStatusChanged
        case .presentRemoved: .presentRemoved
        case .passwordChanged: .passwordChanged
        case .stateExported: .stateExported
        case .presentImported: .presentImported
        case .occasionAdded: .occasionAdded
        case .occasionRemoved: .occasionRemoved
        case .budgetSet(let budget): budget.scope.year == nil ? .budgetSet : .budgetSetForYear
        case .budgetCleared(let scope): scope.year == nil ? .budgetCleared : .budgetClearedForYear
        case .presentRestored: .presentRestored
        case .currencySet: .currencySet
        case .occasionClosed: .occasionClosed
        case .profileFieldSet: .profileFieldSet
        case .wishAdded: .wishAdded
        case .wishRemoved: .wishRemoved
        case .wishClaimed: .wishClaimed
        case .wishUnclaimed: .wishUnclaimed
        case .giversSet: .giversSet
        }
    }

    /// The present the event is about, if it is about one.
    public var presentID: PresentID? {
        switch self {
        case .presentAdded(let id, _, _, _, _, _, _, _), .presentEdited(let id, _), .presentStatusChanged(let id, _),
            .presentRemoved(let id), .presentRestored(let id), .giversSet(let id, _), .wishClaimed(_, _, let id):
            id
        case .presentImported(let present): present.id
        case .accountCreated, .loginSucceeded, .loginFailed, .signedOut, .passwordChanged, .stateExported, .occasionAdded,
            .occasionRemoved, .budgetSet, .budgetCleared, .currencySet, .occasionClosed, .profileFieldSet, .wishAdded,
            .wishRemoved, .wishUnclaimed:
            nil
        }
    }
}

/// The kind of an event: a stable name and a stable one-byte tag, neither ever changed or reused.
public enum EventType: UInt8, CaseIterable, Hashable, Sendable, CustomStringConvertible {
    case accountCreated = 1
    case loginSucceeded = 2
    case loginFailed = 3
    case signedOut = 4
    case presentAdded = 5
    case presentEdited = 6
    case presentStatusChanged = 7
    case presentRemoved = 8
    case passwordChanged = 9
    case stateExported = 10
    case presentImported = 11
    case occasionAdded = 12
    case occasionRemoved = 13
    case budgetSet = 14
    case budgetCleared = 15
    case presentRestored = 16
    case currencySet = 17
    case budgetSetForYear = 18
    case budgetClearedForYear = 19
    case occasionClosed = 20
    case profileFieldSet = 21
    case wishAdded = 22
    case wishRemoved = 23
    case wishClaimed = 24
    case wishUnclaimed = 25
    case giversSet = 26

    /// The tag written by ``EventCodec``.
    public var tag: UInt8 { rawValue }

    /// The type string of SPEC §5, e.g. `presentAdded`.
    public var name: String {
        switch self {
        case .accountCreated: "accountCreated"
        case .loginSucceeded: "loginSucceeded"
        case .loginFailed: "loginFailed"
        case .signedOut: "signedOut"
        case .presentAdded: "presentAdded"
        case .presentEdited: "presentEdited"
        case .presentStatusChanged: "presentStatusChanged"
        case .presentRemoved: "presentRemoved"
        case .passwordChanged: "passwordChanged"
        case .stateExported: "stateExported"
        case .presentImported: "presentImported"
        case .occasionAdded: "occasionAdded"
        case .occasionRemoved: "occasionRemoved"
        case .budgetSet: "budgetSet"
        case .budgetCleared: "budgetCleared"
        case .presentRestored: "presentRestored"
        case .currencySet: "currencySet"
        case .budgetSetForYear: "budgetSetForYear"
        case .budgetClearedForYear: "budgetClearedForYear"
        case .occasionClosed: "occasionClosed"
        case .profileFieldSet: "profileFieldSet"
        case .wishAdded: "wishAdded"
        case .wishRemoved: "wishRemoved"
        case .wishClaimed: "wishClaimed"
        case .wishUnclaimed: "wishUnclaimed"
        case .giversSet: "giversSet"
        }
    }

    public var description: String { name }
}
