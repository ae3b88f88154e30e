import Foundation
import GiftKeeperDomain
import OrderedCollections

/// What an import did.
public struct ImportSummary: Sendable, Equatable {
    public let presentsImported: Int
    public let batches: Int

    public init(presentsImported: Int, batches: Int) {
        self.presentsImported = presentsImported
        self.batches = batches
    }

}

/// An export document (v1 or v2) read and checked as far as it can be without the journal's keys:
/// JSON, the `format` tag, every field, unique ids, prices, statuses, lengths and empty
/// texts, its presents' texts trimmed as `decide` trims them (``GiftList/checkedImport(_:)``).
/// Only "an id already in the journal" is left, for ``GiftKeeperService/importDocument(_:)-(CheckedImportDocument)``.
public struct CheckedImportDocument: Sendable {
    let contents: ImportDocument.Document

    /// How many presents it holds.
    public var presentCount: Int { contents.presents.count }
}

extension GiftKeeperService {
    /// Events per batch: one fsync each (group commit).
    static let importBatchSize = 1024

    /// The field a domain refusal of an imported present is about (`.title`, `.id` …), so
    /// the rejection names it like the parser's own rejections do.
    private static func field(of error: DomainError) -> String {
        switch error {
        case .emptyValue(let field), .tooLong(let field, _, _), .controlCharacter(let field, _):
            return "." + field.rawValue
        case .presentAlreadyExists, .presentRemoved, .unknownPresent, .invalidPresentID, .presentIDsExhausted,
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

    private static func rejection(_ error: DomainError, at index: Int) -> ServiceError {
        ServiceError(.importRejected(location: "presents[\(index)]" + field(of: error), reason: .rule(error)))
    }

    /// Reads and checks an export document (v1 or v2) before any journal is opened or password
    /// asked for (SPEC §6), so a malformed one costs no key derivation and appends nothing.
    ///
    /// Every present is also put to the domain's rules against an empty signed-in list,
    /// which checks everything but the ids already in a journal.
    /// - Throws: ``ServiceError/Code/importRejected(location:reason:)`` naming the bad field.
    public static func checkImport(_ bytes: [UInt8]) throws(ServiceError) -> CheckedImportDocument {
        // One variable from the parse on: the presents are checked in place, not copied.
        var contents: ImportDocument.Document
        do {
            contents = try ImportDocument.parse(bytes)
        } catch {
            throw ServiceError(.importRejected(location: error.location, reason: error.reason))
        }
        let blank: GiftList
        do {
            // Any account will do: the rules that need no state are the same for every one.
            blank = GiftList.fold(
                try GiftList.decide(
                    .createAccount(name: "import"), at: Timestamp(millisecondsSinceEpoch: 0), state: GiftList()))
        } catch {
            throw ServiceError(.internalFailure("an empty list to check the import against: \(error)"))
        }
        let at = Timestamp(millisecondsSinceEpoch: 0)
        for index in contents.presents.indices {
            do {
                // What `decide` of `importPresent` checks without the journal, kept: the
                // import then decides each present once more only against the journal's ids.
                contents.presents[index] = try GiftList.checkedImport(contents.presents[index])
            } catch {
                throw rejection(error, at: index)
            }
        }
        for (command, location) in contents.planning {
            do {
                _ = try GiftList.decide(command, at: at, state: blank)
            } catch {
                throw ServiceError(.importRejected(location: location, reason: .rule(error)))
            }
        }
        return CheckedImportDocument(contents: contents)
    }

    /// Appends the events that recreate the presents of an export document, v1 or v2 (SPEC §6):
    /// ``checkImport(_:)``, then ``importDocument(_:)-(CheckedImportDocument)``. For a
    /// session already signed in (the REPL's `import FILE`).
    public func importDocument(_ bytes: [UInt8]) throws(ServiceError) -> ImportSummary {
        guard phase == .signedIn else { throw ServiceError(.notSignedIn) }
        return try importDocument(Self.checkImport(bytes))
    }

    /// Appends the events that recreate the presents of a checked document.
    ///
    /// Every present is checked against the current state first (an id already used in
    /// this journal, removed presents included); a rejected document appends nothing. Then
    /// the events are appended in batches, each acknowledged only after its fsync.
    public func importDocument(_ document: CheckedImportDocument) throws(ServiceError) -> ImportSummary {
        guard phase == .signedIn else { throw ServiceError(.notSignedIn) }
        let presents = document.contents.presents
        let now = environment.now()
        var planned = state
        planned.reserveCapacity(state.presents.count + presents.count)
        var events: [Event] = []
        events.reserveCapacity(presents.count)
        for (index, present) in presents.enumerated() {
            do {
                let event = try GiftList.decideImport(ofChecked: present, at: now, state: planned)
                planned.apply(event)
                events.append(event)
            } catch {
                throw Self.rejection(error, at: index)
            }
        }
        // Occasions and budgets as the document has them (the same ones again add nothing),
        // and its currency only where the journal has none (v2).
        for (command, _) in document.contents.planning {
            if case .setCurrency = command, planned.currency != nil { continue }
            do {
                let produced = try GiftList.decide(command, at: now, state: planned)
                for event in produced { planned.apply(event) }
                events += produced
            } catch {
                throw ServiceError(.importRejected(location: "the document", reason: .rule(error)))
            }
        }
        var batches = 0
        var appended = 0
        do {
            while appended < events.count {
                let end = min(appended + Self.importBatchSize, events.count)
                try appendSealed(Array(events[appended..<end]))
                batches += 1
                appended = end
            }
        } catch {
            // The batches before the one that failed are in the journal: the state holds
            // exactly those.
            for event in events[..<appended] { state.apply(event) }
            throw error
        }
        // Every event is in the journal now, and the planned state is their fold (the fold
        // is deterministic): it becomes the state, instead of folding them all again.
        state = planned
        if !events.isEmpty { acceptRollbackAfterChange() }
        return ImportSummary(presentsImported: presents.count, batches: batches)
    }
}
