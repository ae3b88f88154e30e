import OrderedCollections

/// Importing presents as a document holds them (SPEC §6): the rules that need no state,
/// checked once for a whole document, and those that need the list.
extension GiftList {
    /// The rules of ``Command/importPresent(_:)`` that need no state: its texts checked and
    /// trimmed, its id within the imported range. What `decide` imports.
    public static func checkedImport(_ present: Present) throws(DomainError) -> Present {
        var imported = present
        imported.recipient = try checked(present.recipient, .recipient, allowEmpty: false)
        imported.title = try checked(present.title, .title, allowEmpty: false)
        imported.notes = try checked(present.notes, .notes, allowEmpty: true, trim: false)
        imported.occasion = try checked(present.occasion, .occasion, allowEmpty: true)
        imported.url = try checked(present.url, .url, allowEmpty: true)
        imported.store = try checked(present.store, .store, allowEmpty: true)
        guard present.id.number <= PresentID.maximumImported else { throw .importedIDTooLarge(present.id) }
        return imported
    }

    /// ``Command/importPresent(_:)`` of a present that ``checkedImport(_:)`` returned: only
    /// the rules that need the state (an account, signed in, the id not used in it,
    /// removed presents included), so a document of presents is checked once, not twice.
    public static func decideImport(ofChecked present: Present, at: Timestamp, state: GiftList) throws(DomainError)
        -> Event
    {
        guard state.hasAccount else { throw .noAccount }
        guard state.isSignedIn else { throw .notSignedIn }
        guard state.present(present.id) == nil else { throw .presentAlreadyExists(present.id) }
        return Event(at: at, .presentImported(present))
    }

    /// An imported occasion's closure (an export's `closedThrough`): the occasion closed
    /// through `through` as the exporting journal had it, its presents as imported (an
    /// import carries over no idea), or nil when it is closed that far already.
    public static func decideImportedClosure(_ name: String, through: CalendarDate, at: Timestamp, state: GiftList)
        throws(DomainError) -> Event?
    {
        guard let occasion = state.occasions[state.foldedName(name)], occasion.date != nil else {
            throw .unknownOccasion(name)
        }
        if let closed = state.closedThrough[occasion.key], closed >= through { return nil }
        return Event(at: at, .occasionClosed(name: occasion.name, through: through))
    }
}
