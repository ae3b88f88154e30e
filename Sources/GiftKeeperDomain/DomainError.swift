/// Why ``GiftList/decide(_:at:state:)`` or a parsing helper refused: data only; the shell
/// words it.
public enum DomainError: Error, Hashable, Sendable {
    /// `setup` on a journal that already has an account.
    case accountAlreadyExists
    /// A command other than `setup` before the account exists.
    case noAccount
    /// A command that needs a signed-in session while locked.
    case notSignedIn
    /// A name, title or recipient that is empty or only whitespace.
    case emptyValue(InputField)
    /// Text longer than the field allows, counted in characters.
    case tooLong(InputField, limit: Int, length: Int)
    /// Text holding a control character (ESC, CR, TAB…) or a bidirectional override,
    /// which a terminal would act on instead of showing: the scalar's value.
    case controlCharacter(InputField, scalar: UInt32)
    case unknownPresent(PresentID)
    /// The id belonged to a present that has been removed.
    case presentRemoved(PresentID)
    /// An imported present whose id this journal already used.
    case presentAlreadyExists(PresentID)
    /// An imported present whose id is beyond ``PresentID/maximumImported``.
    case importedIDTooLarge(PresentID)
    /// `edit` without any change.
    case noChanges(PresentID)
    case invalidPrice(String, reason: MoneyParsingError)
    case unknownStatus(String)
    case unknownField(String)
    /// Text that is not a present id such as `p3`.
    case invalidPresentID(String)
    /// Every present number has been used (only a doctored journal gets here).
    case presentIDsExhausted
    /// Every wish number has been used (only a doctored journal gets here).
    case wishIDsExhausted
    /// Text that is not a date `YYYY-MM-DD` (or no such day).
    case invalidDate(String)
    /// A budget's year outside 1…9999.
    case invalidYear(Int)
    /// An occasion nobody named.
    case unknownOccasion(String)
    /// `occasion remove` of an occasion current presents still name: those presents.
    case occasionInUse(String, presents: [PresentID])
    /// `budget clear` where no budget is set.
    case noBudget(BudgetScope)
    /// `restore` of a present that is not removed.
    case presentNotRemoved(PresentID)
    /// A currency that is not three letters.
    case invalidCurrency(String)
    /// `undo` of a change whose effects are already gone (changed back since).
    case nothingLeftToUndo
    /// A `--sort` word that is none of the orders.
    case unknownSort(String)
    /// `person set` of a field no profile has (the word as typed).
    case unknownProfileField(String)
    /// `person NAME` of a name that is no recipient and has no profile.
    case unknownPerson(String)
    /// A wish id no current wish has.
    case unknownWish(WishID)
    /// Text that is not a wish id such as `w3`.
    case invalidWishID(String)
    /// `claim` of one's own wish.
    case ownWish(WishID)
    /// `claim` of a wish another member claimed first.
    case wishAlreadyClaimed(WishID, by: String)
    /// `unclaim` of a wish this member has not claimed.
    case notYourClaim(WishID)

    /// A field of user text that ``decide`` checks.
    public enum InputField: String, Hashable, Sendable, CaseIterable {
        case name, recipient, title, notes, occasion, url, store
        /// A recipient's profile (``ProfileField``); its notes are ``notes``.
        case sizes, likes, dislikes, address

        /// The most characters the field may hold.
        public var limit: Int {
            switch self {
            case .name, .recipient, .occasion, .store: 200
            case .url, .sizes, .likes, .dislikes, .address: 2000
            case .title: 1000
            case .notes: 10_000
            }
        }

        /// Whether its name is a plural (`the notes are`).
        public var isPlural: Bool { [.notes, .sizes, .likes, .dislikes].contains(self) }
    }

}
