import Foundation
import OrderedCollections
public import GiftKeeperDomain

/// The `giftkeeper.export.v1` JSON document (docs/export-format.md): the decrypted state,
/// UTF-8, keys sorted, ISO-8601 UTC times, amounts as decimal strings. Deterministic:
/// the same state always gives the same bytes.
public enum ExportDocument {
    public static let format = "giftkeeper.export.v1"

    struct Document: Encodable {
        let account: Account
        let format: String
        let presents: [ExportedPresent]
    }

    struct Account: Encodable {
        let name: String
    }

    struct ExportedPresent: Encodable {
        let createdAt: String
        let id: String
        let notes: String
        let occasion: String
        let price: String?
        let recipient: String
        let status: String
        let title: String
        let updatedAt: String

        init(_ present: Present) {
            createdAt = present.createdAt.iso8601
            id = present.id.description
            notes = present.notes
            occasion = present.occasion
            price = present.price?.description
            recipient = present.recipient
            status = present.status.rawValue
            title = present.title
            updatedAt = present.updatedAt.iso8601
        }

        private enum CodingKeys: String, CodingKey {
            case createdAt, id, notes, occasion, price, recipient, status, title, updatedAt
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(id, forKey: .id)
            try container.encode(notes, forKey: .notes)
            try container.encode(occasion, forKey: .occasion)
            try container.encode(price, forKey: .price)  // null when no price is set
            try container.encode(recipient, forKey: .recipient)
            try container.encode(status, forKey: .status)
            try container.encode(title, forKey: .title)
            try container.encode(updatedAt, forKey: .updatedAt)
        }
    }

    /// The document for `state`, pretty-printed with sorted keys and a final newline.
    public static func encode(_ state: GiftList) throws -> [UInt8] {
        let document = Document(
            account: Account(name: state.accountName ?? ""),
            format: format,
            presents: state.presents.values.map(ExportedPresent.init))
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var bytes = [UInt8](try encoder.encode(document))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }
}

extension GiftKeeperService {
    /// Exports the decrypted state as an export v1 document: hands the bytes to `write`
    /// and, once that succeeded, records a `stateExported` event (acknowledged after fsync).
    /// A failed write records nothing.
    public func export(to write: ([UInt8]) throws(ServiceError) -> Void) throws(ServiceError) {
        guard phase == .signedIn else { throw ServiceError(.notSignedIn) }
        let bytes: [UInt8]
        do {
            bytes = try ExportDocument.encode(state)
        } catch {
            throw ServiceError(.internalFailure("could not encode the export: \(error)"))
        }
        try write(bytes)
        try perform(.recordExport(presentCount: state.presents.count))
    }
}
