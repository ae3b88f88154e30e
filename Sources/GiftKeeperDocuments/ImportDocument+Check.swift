package import GiftKeeperDomain
import OrderedCollections

/// An export document (v1 or v2) read and checked as far as it can be without the journal's keys:
/// JSON, the `format` tag, every field, unique ids, prices, statuses, lengths and empty
/// texts, its presents' texts trimmed as `decide` trims them (``GiftList/checkedImport(_:)``).
/// Only "an id already in the journal" is left, for the service's import.
public struct CheckedImportDocument: Sendable {
    package let contents: ImportDocument.Document
    /// Whether its presents take the journal's next free ids (`import --merge`, a
    /// spreadsheet) instead of keeping theirs; a spreadsheet's also take the import's time.
    public private(set) var renumbers = false

    package init(contents: ImportDocument.Document, renumbers: Bool = false) {
        self.contents = contents
        self.renumbers = renumbers
    }

    /// How many presents it holds.
    public var presentCount: Int { contents.presents.count }

    /// The same document, its presents to take the journal's next free ids (`--merge`).
    public var merging: CheckedImportDocument {
        var merged = self
        merged.renumbers = true
        return merged
    }
}

extension ImportDocument {
    /// Reads and checks an export document before any journal is opened or password asked
    /// for (SPEC §6), so a malformed one costs no key derivation and appends nothing.
    ///
    /// Every present is also put to the domain's rules against an empty signed-in list,
    /// which checks everything but the ids already in a journal.
    package static func check(_ bytes: [UInt8]) throws(Rejection) -> CheckedImportDocument {
        // One variable from the parse on: the presents are checked in place, not copied.
        var contents = try parse(bytes)
        let at = Timestamp(millisecondsSinceEpoch: 0)
        let blank: GiftList
        do {
            // Any account will do: the rules that need no state are the same for every one.
            blank = GiftList.fold(try GiftList.decide(.createAccount(name: "import"), at: at, state: GiftList()))
        } catch {
            throw Rejection(location: "the document", rule: error)
        }
        for index in contents.presents.indices {
            do {
                // What `decide` of `importPresent` checks without the journal, kept: the
                // import then decides each present once more only against the journal's ids.
                contents.presents[index] = try GiftList.checkedImport(contents.presents[index])
            } catch {
                throw Rejection(rule: error, present: index)
            }
        }
        for (index, names) in contents.givers.sorted(by: { $0.key < $1.key }) {
            do {
                _ = try blank.checkedGivers(names)
            } catch {
                throw Rejection(location: "presents[\(index)].givers", rule: error)
            }
        }
        for (change, location) in contents.planning {
            do {
                _ = try GiftList.decide(change, at: at, state: blank)
            } catch {
                throw Rejection(location: location, rule: error)
            }
        }
        return CheckedImportDocument(contents: contents)
    }
}

extension CheckedImportDocument {
    /// The events that recreate the document in `state` at `now`, and the state after them.
    /// Each present is checked against the journal's ids first (one used, removed presents
    /// included, is refused); occasions and budgets follow as the document has them (the
    /// same ones again add nothing), its currency only where the journal has none (v2).
    package func events(at now: Timestamp, onto state: GiftList) throws(ImportDocument.Rejection)
        -> (events: [Event], state: GiftList)
    {
        var planned = state
        planned.reserveCapacity(state.presents.count + contents.presents.count)
        var events: [Event] = []
        events.reserveCapacity(contents.presents.count)
        for (index, present) in contents.presents.enumerated() {
            do {
                let present = try renumbers ? renumbered(present, in: planned, at: now) : present
                let event = try GiftList.decideImport(ofChecked: present, at: now, state: planned)
                planned.apply(event)
                events.append(event)
            } catch {
                throw ImportDocument.Rejection(rule: error, present: index)
            }
        }
        // Who gives which present together, at the id it took here.
        for (index, names) in contents.givers.sorted(by: { $0.key < $1.key }) {
            guard case .presentImported(let present) = events[index].body else { continue }
            do {
                let produced = try GiftList.decide(.setGivers(id: present.id, givers: names), at: now, state: planned)
                for event in produced { planned.apply(event) }
                events += produced
            } catch {
                throw ImportDocument.Rejection(location: "presents[\(index)].givers", rule: error)
            }
        }
        for (change, _) in contents.planning {
            if case .setCurrency = change, planned.currency != nil { continue }
            do {
                let produced = try GiftList.decide(change, at: now, state: planned)
                for event in produced { planned.apply(event) }
                events += produced
            } catch {
                throw ImportDocument.Rejection(location: "the document", rule: error)
            }
        }
        for closure in contents.closures {
            do {
                guard let event = try GiftList.decideImportedClosure(closure.name, through: closure.through, at: now, state: planned)
                else { continue }
                planned.apply(event)
                events.append(event)
            } catch {
                throw ImportDocument.Rejection(location: closure.location, rule: error)
            }
        }
        return (events, planned)
    }

    /// `present` with the next id free in `state`; one read from a spreadsheet (no times of
    /// its own) also made, changed and perhaps given at `now`.
    private func renumbered(_ present: Present, in state: GiftList, at now: Timestamp) throws(DomainError) -> Present {
        guard let id = PresentID(number: state.nextPresentNumber) else { throw .presentIDsExhausted }
        var renumbered = present
        renumbered.id = id
        if present.createdAt.millisecondsSinceEpoch == 0 {
            renumbered.createdAt = now
            renumbered.updatedAt = now
            if present.status == .given { renumbered.givenAt = now }
        }
        return renumbered
    }
}

extension ImportDocument.Rejection {
    /// A domain refusal of the present at `index` of `presents`, at the field it is about.
    package init(rule error: DomainError, present index: Int) {
        self.init(location: "presents[\(index)]" + Self.field(of: error), rule: error)
    }

    /// The field a domain refusal of an imported present is about (`.title`, `.id` …), so
    /// the rejection names it like the parser's own rejections do.
    private static func field(of error: DomainError) -> String {
        switch error {
        case .emptyValue(let field), .tooLong(let field, _, _), .controlCharacter(let field, _):
            return "." + field.rawValue
        case .presentAlreadyExists, .presentRemoved, .unknownPresent, .invalidPresentID, .presentIDsExhausted, .wishIDsExhausted,
            .importedIDTooLarge:
            return ".id"
        case .invalidPrice:
            return ".price"
        case .unknownStatus:
            return ".status"
        default:
            return ""
        }
    }
}
