import OrderedCollections

/// The questions a person planning presents asks (SPEC §10), answered from the state.
/// Names compare folded (``TextFolding``) throughout.

/// What `list` shows: which presents, in which order.
public struct PresentQuery: Hashable, Sendable {
    /// The statuses wanted; empty for the default (open presents, or all with ``includesAll``).
    public var statuses: [PresentStatus] = []
    /// Recipients wanted (any of them); empty for everyone.
    public var recipients: [String] = []
    public var occasion: String?
    /// Text that the title, notes, recipient, occasion or store holds.
    public var search: String?
    public var sort: PresentSort = .created
    /// Given and removed presents too.
    public var includesAll = false

    public init(
        statuses: [PresentStatus] = [], recipients: [String] = [], occasion: String? = nil, search: String? = nil,
        sort: PresentSort = .created, includesAll: Bool = false
    ) {
        self.statuses = statuses
        self.recipients = recipients
        self.occasion = occasion
        self.search = search
        self.sort = sort
        self.includesAll = includesAll
    }
}

/// The orders `list --sort` knows.
public enum PresentSort: String, CaseIterable, Hashable, Sendable {
    case price, recipient, occasion, status, created, title

    /// Parses a sort word, ignoring case.
    /// - Throws: ``DomainError/unknownSort(_:)``.
    public init(parsing text: String) throws(DomainError) {
        guard let sort = PresentSort(rawValue: text.trimmedWhitespace().lowercased()) else { throw .unknownSort(text) }
        self = sort
    }
}

/// A present found by a query, and whether it was removed.
public struct ListedPresent: Hashable, Sendable {
    public var present: Present
    public var isRemoved: Bool
}

/// An occasion as `occasion list` shows it: named with `occasion add`, or only named by presents.
public struct OccasionEntry: Hashable, Sendable {
    public var occasion: Occasion
    /// Whether `occasion add` named it (else only presents do, and it has no date).
    public var isRecorded: Bool
    /// Current presents for it, and how many are still open.
    public var presentCount: Int
    public var openCount: Int
}

/// How a budget stands.
public struct BudgetStanding: Hashable, Sendable {
    public var budget: Budget
    /// Prices of the ideas in its scope.
    public var planned: MoneyTotal
    /// Prices of what is bought, wrapped or given in its scope.
    public var spent: MoneyTotal

    /// Planned and spent together.
    public var committed: MoneyTotal { planned + spent }
    /// The amount less planned and spent; negative when over.
    public var remaining: SignedAmount { MoneyTotal(budget.amount).minus(committed) }
    public var isOver: Bool { committed > MoneyTotal(budget.amount) }
}

/// A dated occasion coming up, and what it still needs.
public struct UpcomingOccasion: Hashable, Sendable {
    public var occasion: Occasion
    /// The day it falls on next.
    public var date: CalendarDate
    public var daysAway: Int
    /// Ideas for it: still to buy.
    public var toBuy: [Present]
    /// Bought, not yet wrapped.
    public var toWrap: [Present]
    /// Wrapped, ready to give.
    public var ready: [Present]
}

/// One recipient's line in `summary`.
public struct RecipientSummary: Hashable, Sendable {
    public var recipient: String
    public var count: Int
    public var planned: MoneyTotal
    public var spent: MoneyTotal
    /// The recipient's budget (within the occasion when the summary is for one).
    public var budget: Money?
}

extension GiftList {
    // MARK: list

    /// The presents `query` asks for, in its order (ties in id order).
    public func presents(matching query: PresentQuery) -> [ListedPresent] {
        let recipientKeys = Set(query.recipients.map(TextFolding.key))
        let occasionKey = query.occasion.map(TextFolding.key)
        let searchKey = query.search.map(TextFolding.key)
        let statuses = Set(query.statuses)
        func wanted(_ present: Present, removed: Bool) -> Bool {
            if removed && !query.includesAll { return false }
            if !statuses.isEmpty {
                if removed || !statuses.contains(present.status) { return false }
            } else if !query.includesAll && !present.status.isOpen {
                return false
            }
            if !recipientKeys.isEmpty && !recipientKeys.contains(foldedName(present.recipient)) { return false }
            if let occasionKey, !TextFolding.matches(present.occasion, key: occasionKey) { return false }
            if let searchKey, !searchKey.isEmpty {
                let fields = [present.title, present.notes, present.recipient, present.occasion, present.store]
                if !fields.contains(where: { TextFolding.contains($0, folded: searchKey) }) { return false }
            }
            return true
        }
        var found = presents.values.filter { wanted($0, removed: false) }.map { ListedPresent(present: $0, isRemoved: false) }
        if query.includesAll {
            found += removedPresents.values.filter { wanted($0, removed: true) }.map { ListedPresent(present: $0, isRemoved: true) }
        }
        func byID(_ a: ListedPresent, _ b: ListedPresent) -> Bool { a.present.id.number < b.present.id.number }
        switch query.sort {
        case .created:
            return found.sorted(by: byID)
        case .price:
            // Cheapest first; presents without a price last.
            return found.sorted { a, b in
                switch (a.present.price, b.present.price) {
                case (let x?, let y?): x != y ? x < y : byID(a, b)
                case (nil, nil): byID(a, b)
                case (nil, _): false
                case (_, nil): true
                }
            }
        case .recipient, .occasion, .title:
            let key: (Present) -> String =
                switch query.sort {
                case .recipient: { TextFolding.key($0.recipient) }
                case .occasion: { TextFolding.key($0.occasion) }
                default: { TextFolding.key($0.title) }
                }
            let keyed = found.map { (key($0.present), $0) }
            return keyed.sorted { a, b in
                // Presents without an occasion after those with one.
                if a.0.isEmpty != b.0.isEmpty { return !a.0.isEmpty }
                return a.0 != b.0 ? a.0 < b.0 : byID(a.1, b.1)
            }.map(\.1)
        case .status:
            func rank(_ listed: ListedPresent) -> Int {
                listed.isRemoved ? PresentStatus.allCases.count : PresentStatus.allCases.firstIndex(of: listed.present.status) ?? 0
            }
            return found.sorted { rank($0) != rank($1) ? rank($0) < rank($1) : byID($0, $1) }
        }
    }

    // MARK: Occasions

    /// Every occasion: those named with `occasion add` and those only presents name, dated
    /// ones first by date, then the rest by name.
    public var occasionEntries: [OccasionEntry] {
        var entries: [String: OccasionEntry] = [:]
        for (key, occasion) in occasions {
            entries[key] = OccasionEntry(occasion: occasion, isRecorded: true, presentCount: 0, openCount: 0)
        }
        for present in presents.values where !present.occasion.isEmpty {
            let key = foldedName(present.occasion)
            var entry =
                entries[key]
                ?? OccasionEntry(
                    occasion: Occasion(name: occasionSpelling(present.occasion)), isRecorded: false, presentCount: 0,
                    openCount: 0)
            entry.presentCount += 1
            if present.status.isOpen { entry.openCount += 1 }
            entries[key] = entry
        }
        return entries.values.sorted { a, b in
            switch (a.occasion.date, b.occasion.date) {
            case (let x?, let y?) where x != y: return x < y
            case (_?, nil): return true
            case (nil, _?): return false
            default: return TextFolding.key(a.occasion.name) < TextFolding.key(b.occasion.name)
            }
        }
    }

    /// The occasion called `name` (folded), recorded or only named by presents.
    public func occasion(named name: String) -> Occasion? {
        let key = TextFolding.key(name)
        if let occasion = occasions[key] { return occasion }
        guard let spelling = occasionSpellings[key], presents.values.contains(where: { TextFolding.matches($0.occasion, key: key) })
        else { return nil }
        return Occasion(name: spelling)
    }

    /// Recipients of current presents, A to Z, each once in its first spelling.
    public var recipientNames: [String] {
        var seen: [String: String] = [:]
        for present in presents.values {
            let key = foldedName(present.recipient)
            if seen[key] == nil { seen[key] = recipientSpelling(present.recipient) }
        }
        return seen.sorted { $0.key < $1.key }.map(\.value)
    }

    // MARK: Budgets

    /// How every budget stands, in the order they were first set.
    public var budgetStandings: [BudgetStanding] {
        budgets.values.map(standing)
    }

    /// How `budget` stands.
    public func standing(_ budget: Budget) -> BudgetStanding {
        var standing = BudgetStanding(budget: budget, planned: MoneyTotal(), spent: MoneyTotal())
        // The scope's names folded once, not once per present.
        let scope = budget.scope.key
        for present in presents.values {
            guard let price = ownShare(of: present), scope.covers(present) else { continue }
            if let year = scope.year, self.year(of: present) != year { continue }
            if present.status == .idea { standing.planned.add(price) } else { standing.spent.add(price) }
        }
        return standing
    }

    /// The budgets that are over now and were not in `before` (the ``budgetStandings`` of
    /// the list before a change): what the change took over. Taking the standings, not the
    /// list, lets a caller keep no copy of the list across the change.
    public func budgetsTakenOver(since before: [BudgetStanding]) -> [BudgetStanding] {
        budgetStandings.filter { now in
            guard now.isOver else { return false }
            guard let old = before.first(where: { $0.budget.scope.key == now.budget.scope.key }) else { return true }
            return !old.isOver || old.budget.amount != now.budget.amount
        }
    }

    // MARK: Upcoming

    /// Dated occasions falling on `today` or within `days` after it, soonest first, with
    /// what is still to buy, to wrap and to give for each.
    public func upcoming(today: CalendarDate, days: Int) -> [UpcomingOccasion] {
        guard let end = today.adding(days: max(0, days)) else { return [] }
        var found: [UpcomingOccasion] = []
        for occasion in occasions.values {
            guard let date = nextDate(of: occasion, onOrAfter: today), date <= end else { continue }
            let key = occasion.key
            let open = presents.values.filter { $0.status.isOpen && TextFolding.matches($0.occasion, key: key) }
            found.append(
                UpcomingOccasion(
                    occasion: occasion, date: date, daysAway: today.days(until: date),
                    toBuy: open.filter { $0.status == .idea }, toWrap: open.filter { $0.status == .bought },
                    ready: open.filter { $0.status == .wrapped }))
        }
        return found.sorted { $0.date != $1.date ? $0.date < $1.date : TextFolding.key($0.occasion.name) < TextFolding.key($1.occasion.name) }
    }

    // MARK: Summary

    /// The year a present belongs to (what `summary --year` and a budget's year count): the
    /// year it was given; else its occasion's year when that is dated once; for a yearly
    /// occasion, the year it next fell on when the present was added (a Christmas idea
    /// added on 28 December is for next Christmas); else the year it was added.
    /// `day` tells the day a time falls on where the person is (UTC when not given).
    public func year(of present: Present, day: (Timestamp) -> CalendarDate = \.utcDate) -> Int {
        if let givenAt = present.givenAt { return day(givenAt).year }
        let added = day(present.createdAt)
        if let occasion = occasions[foldedName(present.occasion)], let date = occasion.date {
            guard occasion.isYearly else { return date.year }
            return nextDate(of: occasion, onOrAfter: added)?.year ?? added.year
        }
        return added.year
    }

    /// The next day `occasion` falls on, `day` or later and after the day it was closed
    /// through (`occasion close`): nil when undated, past or closed.
    public func nextDate(of occasion: Occasion, onOrAfter day: CalendarDate) -> CalendarDate? {
        guard let closed = closedThrough[occasion.key], let after = closed.adding(days: 1), after > day else {
            return occasion.nextDate(onOrAfter: day)
        }
        return occasion.nextDate(onOrAfter: after)
    }

    /// The most recent day `occasion` fell on, `today` or before; nil when undated or not yet.
    public func lastDate(of occasion: Occasion, onOrBefore today: CalendarDate) -> CalendarDate? {
        guard let date = occasion.date, date <= today else { return nil }
        guard occasion.isYearly else { return date }
        if let thisYear = date.inYear(today.year), thisYear <= today { return thisYear }
        return date.inYear(today.year - 1)
    }

    /// The ideas for `occasion` that closing it through `through` concerns: all of a dated-
    /// once occasion's; a yearly one's that belong to the year `through` is in.
    public func ideas(closedBy occasion: Occasion, through: CalendarDate) -> [Present] {
        presents.values.filter { present in
            present.status == .idea && TextFolding.matches(present.occasion, key: occasion.key)
                && (!occasion.isYearly || year(of: present) <= through.year)
        }
    }

    /// The year a budget set now for `recipient` and `occasion` holds for when none is
    /// named (SPEC §10.1): a yearly occasion's next date's year; none for an occasion
    /// dated once, an undated one, or the whole list; else (a recipient's budget) this year.
    public func defaultBudgetYear(recipient: String?, occasion: String?, today: CalendarDate) -> Int? {
        if let occasion, !occasion.isEmpty {
            guard let found = occasions[foldedName(occasion)], found.isYearly else { return nil }
            return found.nextDate(onOrAfter: today)?.year
        }
        return recipient.map { _ in today.year }
    }

    /// Per recipient (A to Z): how many presents, planned and spent, and the budget; only
    /// presents for `occasion` and of `year` when given.
    public func summary(
        occasion: String? = nil, year: Int? = nil, day: (Timestamp) -> CalendarDate = \.utcDate
    ) -> [RecipientSummary] {
        let occasionKey = occasion.map(TextFolding.key)
        var rows: [String: RecipientSummary] = [:]
        for present in presents.values {
            if let occasionKey, !TextFolding.matches(present.occasion, key: occasionKey) { continue }
            if let year, self.year(of: present, day: day) != year { continue }
            let key = foldedName(present.recipient)
            var row =
                rows[key] ?? RecipientSummary(recipient: recipientSpelling(present.recipient), count: 0, planned: MoneyTotal(), spent: MoneyTotal())
            row.count += 1
            if let price = ownShare(of: present) {
                if present.status == .idea { row.planned.add(price) } else { row.spent.add(price) }
            }
            rows[key] = row
        }
        for key in rows.keys {
            let scope = BudgetScope.Key(recipient: key, occasion: occasionKey ?? "")
            var ofYear = scope
            ofYear.year = year
            rows[key]?.budget = (budgets[ofYear] ?? budgets[scope])?.amount
        }
        return rows.sorted { $0.key < $1.key }.map(\.value)
    }

    // MARK: Gift memory

    /// Everything given to `recipient` (folded), removed or not, oldest first.
    public func gifts(for recipient: String) -> [Present] {
        let key = foldedName(recipient)
        let all = Array(presents.values) + Array(removedPresents.values)
        return all.filter { $0.status == .given && TextFolding.matches($0.recipient, key: key) }
            .sorted { ($0.givenAt ?? $0.updatedAt, $0.id.number) < ($1.givenAt ?? $1.updatedAt, $1.id.number) }
    }

    /// The ids of the presents `recipient` got or has planned whose title is like `title`:
    /// equal when folded, or sharing most of their words (at least half of the shorter
    /// title's words, words of three letters or more). Removed presents count only when
    /// given. Most alike first: the same title, then the larger share of words, then the
    /// older present.
    public func similarPresentIDs(to title: String, for recipient: String) -> [PresentID] {
        similarPresents(to: title, for: recipient, keeping: .max).mostAlike
    }

    /// ``similarPresentIDs(to:for:)``'s first `keeping`, and how many there are in
    /// all: for `add`, which names the few most alike and counts the rest. Only the
    /// recipient's presents are compared (by folded name, through the index).
    public func similarPresents(to title: String, for recipient: String, keeping: Int) -> (mostAlike: [PresentID], count: Int) {
        let sought = TitleTerms(title)
        var matches: [(id: PresentID, likeness: Double)] = []
        var hashes: [UInt64] = []
        for id in presentIDsByRecipient[foldedName(recipient)] ?? [] {
            // The title read in place, not the present copied out.
            let title: String
            if let index = presents.index(forKey: id) {
                title = presents.values[index].title
            } else if let index = removedPresents.index(forKey: id), removedPresents.values[index].status == .given {
                title = removedPresents.values[index].title
            } else {
                continue
            }
            guard let likeness = sought.likeness(to: title, hashes: &hashes) else { continue }
            matches.append((id, likeness))
        }
        // Most alike first, then the older present.
        matches.sort { ($1.likeness, $0.id.number) < ($0.likeness, $1.id.number) }
        return (matches.prefix(keeping).map(\.id), matches.count)
    }
}
