/// What a user asks for. ``GiftList/decide(_:at:state:)`` turns it into events or an error.
public enum Command: Hashable, Sendable {
    /// Set up the account of a new journal; yields `accountCreated` then `loginSucceeded`.
    case createAccount(name: String)
    /// The password unlocked the journal.
    case signIn
    /// A wrong password was given (always recorded; never idempotent).
    case recordFailedSignIn
    case signOut
    /// Before a sign-in, when no other session is live: if the state says sessions are
    /// still open (they crashed), record `signedOut(clean: false)`, ending them all;
    /// otherwise nothing. The service knows which sessions are live; the events cannot.
    case endUncleanSession
    /// A change to the gift list a person asks for: what the service's `perform` runs.
    case change(Change)
    case changePassword
    case recordExport(presentCount: Int)
    /// Reverses `change` (the events one command appended), given the state just before
    /// it: the compensating events, decided on the current state (``GiftList/compensation(for:before:at:state:)``).
    case undo(change: [Event], stateBefore: GiftList)
}

/// A change to the gift list a person asks for (add, edit, mark, remove, plan), as opposed
/// to the commands that only the service gives with keys or files in hand (sign-in,
/// password change, export, undo).
public enum Change: Hashable, Sendable {
    /// `givers`: the members (or people) who give it together, the person adding it among
    /// them (``setGivers(id:givers:)``); empty: they alone.
    case addPresent(
        recipient: String, title: String, notes: String = "", price: Money? = nil, occasion: String = "",
        url: String = "", store: String = "", givers: [String] = [])
    case editPresent(id: PresentID, changes: [PresentChange])
    case markPresent(id: PresentID, status: PresentStatus)
    case removePresent(id: PresentID)
    /// Restores a present from an export document; yields `presentImported`, which keeps
    /// its id, status and created/updated times. Texts are checked like `addPresent`'s.
    /// An id already used in this journal (current or removed) is an error
    /// (``DomainError/presentAlreadyExists(_:)``), so importing twice never duplicates.
    case importPresent(Present)
    /// Names, dates or re-dates an occasion; the same name and date again is a no-op.
    case addOccasion(Occasion)
    /// Removes an occasion no current present names.
    case removeOccasion(name: String)
    case setBudget(Budget)
    case clearBudget(BudgetScope)
    /// Brings back a removed present.
    case restorePresent(id: PresentID)
    /// Sets the journal's currency (`setup --currency`): three letters, upper-cased.
    case setCurrency(code: String)
    /// Closes a dated occasion's day `through` (SPEC §10.1): its presents not given yet
    /// count for its next date after it. With `keepingIdeas` (always for an occasion dated
    /// once, which has no next date), its ideas of that day are kept without an occasion.
    case closeOccasion(name: String, through: CalendarDate, keepingIdeas: Bool)
    /// Sets fields of a recipient's profile and their birthday (SPEC §10.1, `person set`).
    case setProfile(recipient: String, changes: [ProfileChange])
    /// Puts a wish on `wisher`'s list (SPEC §13, `wish add`); `suggestedBy`, another
    /// member, when it is their suggestion (`--for`), else empty.
    case addWish(wisher: String, title: String, notes: String = "", price: Money? = nil, url: String = "", suggestedBy: String = "")
    case removeWish(id: WishID)
    /// `claimer` claims a wish: a present for the wisher on their list stands for it.
    case claimWish(id: WishID, claimer: String)
    /// `claimer` gives up their claim: its present is removed.
    case unclaimWish(id: WishID, claimer: String)
    /// The members who give a present together (`add … --with`); empty: its planner alone.
    case setGivers(id: PresentID, givers: [String])
}

extension Change {
    /// Whether this change can take a budget over: it adds to what a scope plans and
    /// spends, or sets a budget's amount. Marking a present moves its price from planned to
    /// spent, which a budget counts together.
    public var canTakeOverABudget: Bool {
        switch self {
        case .addPresent, .editPresent, .importPresent, .restorePresent, .setBudget, .claimWish, .setGivers: true
        case .markPresent, .removePresent, .addOccasion, .removeOccasion, .clearBudget, .setCurrency, .closeOccasion,
            .setProfile, .addWish, .removeWish, .unclaimWish:
            false
        }
    }
}
