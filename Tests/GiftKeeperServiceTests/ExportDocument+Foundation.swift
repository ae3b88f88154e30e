import Foundation
import GiftKeeperDocuments
import GiftKeeperDomain
import OrderedCollections

@testable import GiftKeeperService

/// The export document as Foundation's `JSONEncoder` writes it: the reference the hand
/// writer (``ExportDocument/write(_:chunkSize:to:)``) is held to, byte for byte.
extension ExportDocument {
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
        let givers: [String]?
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

        init(_ present: Present, givers: [String]?) {
            createdAt = present.createdAt.iso8601
            givenAt = present.givenAt?.iso8601
            self.givers = givers
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
            case createdAt, givenAt, givers, id, notes, occasion, price, recipient, status, store, title, updatedAt, url
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(createdAt, forKey: .createdAt)
            try container.encode(givenAt, forKey: .givenAt)  // null unless given
            try container.encodeIfPresent(givers, forKey: .givers)  // only on a present given together
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
            presents: state.presents.values.map { ExportedPresent($0, givers: state.givers[$0.id]) })
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var bytes = escapingControls([UInt8](try encoder.encode(document)))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// `JSONEncoder`'s output with what GiftKeeper's writer escapes besides it (issue 30):
    /// DEL, C1 and the bidirectional controls as `\uXXXX`. Outside strings a document is
    /// ASCII, so every such scalar is inside one.
    private static func escapingControls(_ bytes: [UInt8]) -> [UInt8] {
        var out = String.UnicodeScalarView()
        for scalar in String(decoding: bytes, as: UTF8.self).unicodeScalars {
            guard scalar.value == 0x7F || JSONWriter.escapesScalar(scalar.value) else {
                out.append(scalar)
                continue
            }
            let hex = String(scalar.value, radix: 16)
            out.append(contentsOf: ("\\u" + String(repeating: "0", count: 4 - hex.count) + hex).unicodeScalars)
        }
        return Array(String(out).utf8)
    }
}
