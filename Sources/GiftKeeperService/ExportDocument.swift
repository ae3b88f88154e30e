import Foundation
public import GiftKeeperDomain
import GiftKeeperJournal
import OrderedCollections

/// The `giftkeeper.export.v2` JSON document (docs/export-format.md): the decrypted state,
/// UTF-8, keys sorted, ISO-8601 UTC times, amounts as decimal strings. Deterministic:
/// the same state always gives the same bytes.
public enum ExportDocument {
    public static let format = "giftkeeper.export.v2"
    /// The first format, which `import` still reads.
    public static let formatV1 = "giftkeeper.export.v1"

    struct Document: Encodable {
        let account: Account
        let budgets: [ExportedBudget]
        let format: String
        let occasions: [ExportedOccasion]
        let presents: [ExportedPresent]
    }

    struct Account: Encodable {
        let currency: String?
        let name: String

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(currency, forKey: .currency)  // null when none is set
            try container.encode(name, forKey: .name)
        }

        private enum CodingKeys: String, CodingKey { case currency, name }
    }

    struct ExportedBudget: Encodable {
        let amount: String
        let occasion: String?
        let recipient: String?

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(amount, forKey: .amount)
            try container.encode(occasion, forKey: .occasion)
            try container.encode(recipient, forKey: .recipient)
        }

        private enum CodingKeys: String, CodingKey { case amount, occasion, recipient }
    }

    struct ExportedOccasion: Encodable {
        let date: String?
        let name: String
        let yearly: Bool

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(date, forKey: .date)
            try container.encode(name, forKey: .name)
            try container.encode(yearly, forKey: .yearly)
        }

        private enum CodingKeys: String, CodingKey { case date, name, yearly }
    }

    struct ExportedPresent: Encodable {
        let createdAt: String
        let givenAt: String?
        let id: String
        let notes: String
        let occasion: String
        let price: String?
        let recipient: String
        let status: String
        let store: String
        let title: String
        let updatedAt: String
        let url: String

        init(_ present: Present) {
            createdAt = present.createdAt.iso8601
            givenAt = present.givenAt?.iso8601
            id = present.id.description
            notes = present.notes
            occasion = present.occasion
            price = present.price?.description
            recipient = present.recipient
            status = present.status.rawValue
            store = present.store
            title = present.title
            updatedAt = present.updatedAt.iso8601
            url = present.url
        }

        private enum CodingKeys: String, CodingKey {
            case createdAt, givenAt, id, notes, occasion, price, recipient, status, store, title, updatedAt, url
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(givenAt, forKey: .givenAt)  // null unless given
            try container.encode(id, forKey: .id)
            try container.encode(notes, forKey: .notes)
            try container.encode(occasion, forKey: .occasion)
            try container.encode(price, forKey: .price)  // null when no price is set
            try container.encode(recipient, forKey: .recipient)
            try container.encode(status, forKey: .status)
            try container.encode(store, forKey: .store)
            try container.encode(title, forKey: .title)
            try container.encode(updatedAt, forKey: .updatedAt)
            try container.encode(url, forKey: .url)
        }
    }

    /// The largest chunk ``write(_:chunkSize:to:)`` hands over by default: 1 MiB.
    public static let chunkSize = 1 << 20

    /// The document for `state`, pretty-printed with sorted keys and a final newline, whole.
    ///
    /// The bytes are exactly those of ``encodeWithFoundation(_:)``. For large states prefer
    /// ``GiftKeeperService/export(to:)``, which never holds more than one chunk.
    public static func encode(_ state: GiftList) throws -> [UInt8] {
        var document: [UInt8] = []
        document.reserveCapacity(128 + state.presents.count * 320)
        write(state, chunkSize: .max) { chunk in document += chunk }
        return document
    }

    /// Writes the document for `state` to `emit` in successive chunks of at most
    /// `chunkSize` bytes (their concatenation is ``encode(_:)``).
    ///
    /// Written straight into one reused byte buffer: about 0.5 µs and no allocation per
    /// present, against ~10 µs and ~2 KB for `JSONEncoder`, which builds a tree of the
    /// whole document first. Memory is one chunk plus one present, whatever the state's size.
    static func write<Failure: Error>(
        _ state: GiftList, chunkSize: Int = chunkSize, to emit: (ArraySlice<UInt8>) throws(Failure) -> Void
    ) throws(Failure) {
        precondition(chunkSize > 0)
        var writer = JSONWriter()
        writer.bytes.reserveCapacity(min(chunkSize, 128 + state.presents.count * 320) + 64 * 1024)
        writer.raw("{\n  \"account\" : {\n    \"currency\" : ")
        if let currency = state.currency { writer.string(currency) } else { writer.raw("null") }
        writer.raw(",\n    \"name\" : ")
        writer.string(state.accountName ?? "")
        writer.raw("\n  },\n  \"budgets\" : [")
        for (index, budget) in state.budgets.values.enumerated() {
            writer.raw(index == 0 ? "\n    {\n      \"amount\" : " : ",\n    {\n      \"amount\" : ")
            writer.price(budget.amount)
            writer.raw(",\n      \"occasion\" : ")
            if let occasion = budget.scope.occasion { writer.string(occasion) } else { writer.raw("null") }
            writer.raw(",\n      \"recipient\" : ")
            if let recipient = budget.scope.recipient { writer.string(recipient) } else { writer.raw("null") }
            writer.raw("\n    }")
        }
        writer.raw(state.budgets.isEmpty ? "\n\n  ],\n  \"format\" : " : "\n  ],\n  \"format\" : ")
        writer.string(format)
        writer.raw(",\n  \"occasions\" : [")
        for (index, occasion) in state.occasions.values.enumerated() {
            writer.raw(index == 0 ? "\n    {\n      \"date\" : " : ",\n    {\n      \"date\" : ")
            if let date = occasion.date { writer.string(date.description) } else { writer.raw("null") }
            writer.raw(",\n      \"name\" : ")
            writer.string(occasion.name)
            writer.raw(",\n      \"yearly\" : ")
            writer.raw(occasion.isYearly ? "true" : "false")
            writer.raw("\n    }")
        }
        writer.raw(state.occasions.isEmpty ? "\n\n  ],\n  \"presents\" : [" : "\n  ],\n  \"presents\" : [")
        if state.presents.isEmpty {
            writer.raw("\n\n  ]\n}\n")
            try writer.emitAll(chunkSize: chunkSize, to: emit)
            return
        }
        for (index, present) in state.presents.values.enumerated() {
            writePresent(present, first: index == 0, into: &writer)
            if writer.bytes.count >= chunkSize {
                try writer.emitFullChunks(chunkSize: chunkSize, to: emit)
            }
        }
        writer.raw("\n  ]\n}\n")
        try writer.emitAll(chunkSize: chunkSize, to: emit)
    }

    /// A member of the presents, after a comma unless it is the `first` of the document.
    private static func writePresent(_ present: Present, first: Bool, into writer: inout JSONWriter) {
        writer.raw(first ? "\n    {\n      \"createdAt\" : \"" : ",\n    {\n      \"createdAt\" : \"")
        present.createdAt.writeISO8601(into: &writer.bytes)
        writer.raw("\",\n      \"givenAt\" : ")
        if let givenAt = present.givenAt {
            writer.raw("\"")
            givenAt.writeISO8601(into: &writer.bytes)
            writer.raw("\"")
        } else {
            writer.raw("null")
        }
        writer.raw(",\n      \"id\" : \"p")
        writer.decimal(present.id.number)
        writer.raw("\",\n      \"notes\" : ")
        writer.string(present.notes)
        writer.raw(",\n      \"occasion\" : ")
        writer.string(present.occasion)
        writer.raw(",\n      \"price\" : ")
        if let price = present.price {
            writer.price(price)
        } else {
            writer.raw("null")
        }
        writer.raw(",\n      \"recipient\" : ")
        writer.string(present.recipient)
        writer.raw(",\n      \"status\" : ")
        writer.string(present.status.rawValue)
        writer.raw(",\n      \"store\" : ")
        writer.string(present.store)
        writer.raw(",\n      \"title\" : ")
        writer.string(present.title)
        writer.raw(",\n      \"updatedAt\" : \"")
        present.updatedAt.writeISO8601(into: &writer.bytes)
        writer.raw("\",\n      \"url\" : ")
        writer.string(present.url)
        writer.raw("\n    }")
    }

    /// The reference encoding with Foundation's `JSONEncoder` (what ``encode(_:)`` matches).
    static func encodeWithFoundation(_ state: GiftList) throws -> [UInt8] {
        let document = Document(
            account: Account(currency: state.currency, name: state.accountName ?? ""),
            budgets: state.budgets.values.map {
                ExportedBudget(amount: $0.amount.description, occasion: $0.scope.occasion, recipient: $0.scope.recipient)
            },
            format: format,
            occasions: state.occasions.values.map {
                ExportedOccasion(date: $0.date?.description, name: $0.name, yearly: $0.isYearly)
            },
            presents: state.presents.values.map(ExportedPresent.init))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var bytes = [UInt8](try encoder.encode(document))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}

/// Where ``GiftKeeperService/export(to:)`` writes the document: standard output, a file.
public protocol ExportWriting {
    /// Writes the next piece of the document (at most ``ExportDocument/chunkSize`` bytes).
    mutating func write(_ chunk: ArraySlice<UInt8>) throws(ServiceError)

    /// Called once after the last chunk, before the export is recorded: make the document
    /// durable (fsync a file). A failure here records nothing.
    mutating func finish() throws(ServiceError)
}

extension GiftKeeperService {
    /// Exports the decrypted state as an export v1 document: hands it to `destination` in
    /// successive chunks of at most ``ExportDocument/chunkSize`` bytes, calls its
    /// `finish()`, and only once all of that succeeded records a `stateExported` event
    /// (acknowledged after fsync). A failed write records nothing; a journal that can no
    /// longer be written gets no export.
    ///
    /// Never holds more of the document than one chunk and one present, so an export's
    /// memory is the state's plus about 1 MB.
    ///
    /// `asOf` exports the state the journal had then (``state(asOf:)``) instead of today's.
    public func export(to destination: inout some ExportWriting, asOf: GiftList? = nil) throws(ServiceError) {
        guard phase == .signedIn else { throw ServiceError(.notSignedIn) }
        // An export is recorded; one that could not be is not made (the journal failed a
        // write earlier in this session, e.g. on a full disk).
        try requireAppendable()
        let exported = asOf ?? state
        try ExportDocument.write(exported) { chunk throws(ServiceError) in try destination.write(chunk) }
        try destination.finish()
        try decideAndAppend(.recordExport(presentCount: exported.presents.count))
    }
}
