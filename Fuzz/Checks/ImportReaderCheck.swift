import GiftKeeperDocuments

@testable import GiftKeeperDomain
@testable import GiftKeeperService

/// The import reader (an export document from anywhere): a refusal is one line naming a
/// place; a document it accepts imports into a new journal as the service does, and the
/// export of that list reads back to a list that exports to the very same bytes.
enum ImportReaderCheck {
    static func check(_ input: [UInt8]) throws(InvariantFailure) {
        let first: [UInt8]
        switch imported(input) {
        case .refused(let error):
            try requireRejection(error)
            return
        case .failed(let why):
            throw InvariantFailure(description: "an accepted document does not import: \(why)")
        case .imported(let state):
            do {
                first = try ExportDocument.encode(state)
            } catch {
                throw InvariantFailure(description: "an imported list does not export: \(error)")
            }
        }
        switch imported(first) {
        case .refused(let error):
            throw InvariantFailure(description: "an export of an imported list is refused: \(error)")
        case .failed(let why):
            throw InvariantFailure(description: "an export of an imported list does not import: \(why)")
        case .imported(let state):
            let second = try? ExportDocument.encode(state)
            try require(second == first, "export → import → export changes the document")
        }
    }

    private enum Outcome {
        case refused(ServiceError)
        case failed(String)
        case imported(GiftList)
    }

    /// The list a new journal holds after importing `bytes`, decided as
    /// `GiftKeeperService.importDocument` decides it.
    private static func imported(_ bytes: [UInt8]) -> Outcome {
        let document: CheckedImportDocument
        do {
            document = try CheckedImportDocument.checking(bytes)
        } catch {
            return .refused(error)
        }
        let at = Timestamp(millisecondsSinceEpoch: 1_790_000_000_000)
        var state = GiftList()
        do {
            for event in try GiftList.decide(.createAccount(name: "fuzz"), at: at, state: state) { state.apply(event) }
            for present in document.contents.presents {
                for event in try GiftList.decide(.importPresent(present), at: at, state: state) { state.apply(event) }
            }
            for (command, _) in document.contents.planning {
                if case .setCurrency = command, state.currency != nil { continue }
                for event in try GiftList.decide(command, at: at, state: state) { state.apply(event) }
            }
        } catch {
            return .failed("\(error)")
        }
        return .imported(state)
    }

    /// A refusal is a rejection naming a place (the console makes any message one line).
    private static func requireRejection(_ error: ServiceError) throws(InvariantFailure) {
        guard case .importRejected(let location, _) = error.code else {
            throw InvariantFailure(description: "a document is refused with something other than a rejection: \(error)")
        }
        try require(!location.isEmpty, "a rejection names no place")
    }
}
