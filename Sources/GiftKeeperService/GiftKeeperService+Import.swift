import Foundation
public import GiftKeeperDocuments
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

extension GiftKeeperService {
    /// Events per batch: one fsync each (group commit).
    static let importBatchSize = 1024

    /// Reads and checks an export document before any journal is opened or password
    /// asked for (SPEC §6), so a malformed one costs no key derivation and appends nothing
    /// (``ImportDocument/check(_:)``).
    /// - Throws: ``ServiceError/Code/importRejected(location:reason:)`` naming the bad field.
    public static func checkImport(_ bytes: [UInt8]) throws(ServiceError) -> CheckedImportDocument {
        do {
            return try ImportDocument.check(bytes)
        } catch {
            throw ServiceError(.importRejected(location: error.location, reason: error.reason))
        }
    }

    /// Appends the events that recreate the presents of an export v1 document (SPEC §6):
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
                let rejection = ImportDocument.Rejection(rule: error, present: index)
                throw ServiceError(.importRejected(location: rejection.location, reason: rejection.reason))
            }
        }
        // Occasions and budgets as the document has them (the same ones again add nothing),
        // and its currency only where the journal has none (v2).
        for (change, _) in document.contents.planning {
            if case .setCurrency = change, planned.currency != nil { continue }
            do {
                let produced = try GiftList.decide(change, at: now, state: planned)
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
