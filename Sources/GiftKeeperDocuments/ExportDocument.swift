public import GiftKeeperDomain
import OrderedCollections

/// The `giftkeeper.export.v2` JSON document (docs/export-format.md): the decrypted state,
/// UTF-8, keys sorted, ISO-8601 UTC times, amounts as decimal strings. Deterministic:
/// the same state always gives the same bytes.
public enum ExportDocument {
    public static let format = "giftkeeper.export.v2"
    /// The first format, which `import` still reads.
    public static let formatV1 = "giftkeeper.export.v1"

    /// The largest chunk ``write(_:chunkSize:to:)`` hands over by default: 1 MiB.
    public static let chunkSize = 1 << 20

    /// The document for `state`, pretty-printed with sorted keys and a final newline, whole.
    ///
    /// The bytes are exactly those of Foundation's `JSONEncoder` with `[.sortedKeys,
    /// .prettyPrinted, .withoutEscapingSlashes]` (the tests hold it to them). For large states prefer
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
    package static func write<Failure: Error>(
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
            // Only a budget for one year has one (SPEC §10.1): documents without years read as before.
            if let year = budget.scope.year {
                writer.raw(",\n      \"year\" : ")
                writer.string(String(year))
            }
            writer.raw("\n    }")
        }
        writer.raw(state.budgets.isEmpty ? "\n\n  ],\n  \"format\" : " : "\n  ],\n  \"format\" : ")
        writer.string(format)
        writer.raw(",\n  \"occasions\" : [")
        for (index, occasion) in state.occasions.values.enumerated() {
            writer.raw(index == 0 ? "\n    {\n      " : ",\n    {\n      ")
            if let through = state.closedThrough[occasion.key] {
                writer.raw("\"closedThrough\" : ")
                writer.string(through.description)
                writer.raw(",\n      ")
            }
            writer.raw("\"date\" : ")
            if let date = occasion.date { writer.string(date.description) } else { writer.raw("null") }
            writer.raw(",\n      \"name\" : ")
            writer.string(occasion.name)
            writer.raw(",\n      \"yearly\" : ")
            writer.raw(occasion.isYearly ? "true" : "false")
            writer.raw("\n    }")
        }
        writer.raw(state.occasions.isEmpty ? "\n\n  ]" : "\n  ]")
        // Only a journal with profiles has them (SPEC §10.1): documents without read as before.
        if !state.profiles.isEmpty {
            writer.raw(",\n  \"people\" : [")
            for (index, key) in state.profiles.keys.sorted().enumerated() {
                writer.raw(index == 0 ? "\n    {" : ",\n    {")
                let profile = state.profiles[key] ?? Profile()
                let fields = ProfileField.allCases.map { ($0.name, profile[$0]) } + [("name", state.recipientSpellings[key] ?? key)]
                for (number, (name, text)) in fields.sorted(by: { $0.0 < $1.0 }).enumerated() {
                    writer.raw(number == 0 ? "\n      " : ",\n      ")
                    writer.string(name)
                    writer.raw(" : ")
                    writer.string(text)
                }
                writer.raw("\n    }")
            }
            writer.raw("\n  ]")
        }
        writer.raw(",\n  \"presents\" : [")
        if state.presents.isEmpty {
            writer.raw("\n\n  ]\n}\n")
            try writer.emitAll(chunkSize: chunkSize, to: emit)
            return
        }
        for (index, present) in state.presents.values.enumerated() {
            writePresent(present, givers: state.givers[present.id], first: index == 0, into: &writer)
            if writer.bytes.count >= chunkSize {
                try writer.emitFullChunks(chunkSize: chunkSize, to: emit)
            }
        }
        writer.raw("\n  ]\n}\n")
        try writer.emitAll(chunkSize: chunkSize, to: emit)
    }

    /// A member of the presents, after a comma unless it is the `first` of the document;
    /// `givers` only when it is given together (documents without read as before).
    private static func writePresent(_ present: Present, givers: [String]?, first: Bool, into writer: inout JSONWriter) {
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
        if let givers {
            writer.raw(",\n      \"givers\" : [")
            for (index, giver) in givers.enumerated() {
                writer.raw(index == 0 ? "\n        " : ",\n        ")
                writer.string(giver)
            }
            writer.raw(givers.isEmpty ? "\n\n      ]" : "\n      ]")
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
}
