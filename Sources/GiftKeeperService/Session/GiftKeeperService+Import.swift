import Foundation
public import GiftKeeperDocuments
public import GiftKeeperDomain
import OrderedCollections

/// What an import did.
public struct ImportSummary: Sendable, Equatable {
    public let presentsImported: Int
    public let batches: Int
    /// The ids the presents took, first and last, when they took the journal's next free
    /// ones (`import --merge`, a spreadsheet); nil when they kept their own.
    public var renumbered: ClosedRange<PresentID>?

    public init(presentsImported: Int, batches: Int, renumbered: ClosedRange<PresentID>? = nil) {
        self.presentsImported = presentsImported
        self.batches = batches
        self.renumbered = renumbered
    }
}

extension ServiceError {
    /// A document or spreadsheet refused at one place of it (exit 2, naming the place).
    init(_ rejection: ImportDocument.Rejection) {
        self.init(.importRejected(location: rejection.location, reason: rejection.reason))
    }
}

extension CheckedImportDocument {
    /// Reads and checks an export document before any journal is opened or password
    /// asked for (SPEC §6), so a malformed one costs no key derivation and appends nothing
    /// (``ImportDocument/check(_:)``).
    /// - Throws: ``ServiceError/Code/importRejected(location:reason:)`` naming the bad field.
    public static func checking(_ bytes: [UInt8]) throws(ServiceError) -> CheckedImportDocument {
        do {
            return try ImportDocument.check(bytes)
        } catch {
            throw ServiceError(error)
        }
    }
}

extension CheckedSpreadsheet {
    /// Reads and checks a spreadsheet row by row before any journal is opened or password
    /// asked for (SPEC §10.1), setting aside each row that breaks a rule with its line.
    /// - Throws: ``ServiceError/Code/importRejected(location:reason:)`` for a file that is no
    ///   spreadsheet of presents (not text, no `recipient` or `title` column…).
    public static func checking(_ bytes: [UInt8]) throws(ServiceError) -> CheckedSpreadsheet {
        do {
            return try ImportDocument.checkSpreadsheet(bytes)
        } catch {
            throw ServiceError(error)
        }
    }
}

extension GiftKeeperService {
    /// Events per batch: one fsync each (group commit).
    static let importBatchSize = 1024

    /// Appends the events that recreate the presents of a checked document.
    ///
    /// Every present is checked against the current state first (an id already used in
    /// this journal, removed presents included); a rejected document appends nothing. Then
    /// the events are appended in batches, each acknowledged only after its fsync.
    public func importDocument(_ document: CheckedImportDocument) throws(ServiceError) -> ImportSummary {
        guard phase == .signedIn else { throw ServiceError(.notSignedIn) }
        let (events, planned): ([Event], GiftList)
        do {
            (events, planned) = try document.events(at: environment.now(), onto: state)
        } catch {
            throw ServiceError(error)
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
        var summary = ImportSummary(presentsImported: document.presentCount, batches: batches)
        if document.renumbers {
            let ids = events.compactMap { event -> PresentID? in
                if case .presentImported(let present) = event.body { return present.id }
                return nil
            }
            if let first = ids.first, let last = ids.last { summary.renumbered = first...last }
        }
        return summary
    }
}
