import Foundation
package import GiftKeeperDomain

/// Reads a `giftkeeper.export.v1` or `v2` document back into presents (and, from v2,
/// occasions, budgets and the currency), checking every field
/// before anything is appended. A malformed document is rejected whole: JSON that does not
/// parse, then the `format` tag, then `presents`, then the first bad present, at the first
/// bad field in the order: unknown field, id, price, status, times, texts. Each rejection
/// names its place (`presents[3].price`).
///
/// Foundation's `JSONDecoder` reads the JSON: invalid UTF-8, raw control characters, bad
/// escapes, lone surrogates and bad numbers are refused (every value is read through, so
/// none escapes the check), nesting is bounded. It is more lenient than RFC 8259 in two
/// ways, both harmless here: a trailing comma is accepted, and of a key given twice in
/// one object the first is read. The `Decodable` types below read the fields loosely, so
/// that a value of the wrong kind is named by this reader, in words.
package enum ImportDocument {
    package struct Rejection: Error, Equatable {
        package let location: String
        /// What is wrong there, or a rule of the list.
        package let reason: ImportRejection

        package init(location: String, reason: ImportRejection) {
            self.location = location
            self.reason = reason
        }

        package init(location: String, rule: DomainError) {
            self.location = location
            self.reason = .rule(rule)
        }
    }

    package static func parse(_ bytes: [UInt8]) throws(Rejection) -> Document {
        // The decoder reads the caller's bytes where they are: a copy into a new `Data`
        // would be the document's size again (500 MB for a million presents).
        let result: Result<Document, Rejection> = bytes.withUnsafeBytes { raw in
            guard let base = raw.baseAddress else { return parse(Data()) }
            return parse(Data(bytesNoCopy: UnsafeMutableRawPointer(mutating: base), count: raw.count, deallocator: .none))
        }
        return try result.get()
    }

    /// `data` decoded, or its rejection; `data` is not kept.
    private static func parse(_ data: Data) -> Result<Document, Rejection> {
        do {
            return .success(try JSONDecoder().decode(Document.self, from: data))
        } catch let rejection as Rejection {
            return .failure(rejection)
        } catch {
            // JSONDecoder says only that the data is not valid JSON; JSONSerialization,
            // asked on this failure path alone, says what and where.
            if let syntax = syntaxError(data) { return .failure(syntax) }
            if let error = error as? DecodingError { return .failure(rejection(error)) }
            return .failure(Rejection(location: "the document", reason: .unreadable(detail: "\(error)")))
        }
    }

    /// Where and why `data` is not JSON, as JSONSerialization words it; nil when it is.
    private static func syntaxError(_ data: Data) -> Rejection? {
        do {
            _ = try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
            return nil
        } catch let error as NSError {
            let words = (error.userInfo[NSDebugDescriptionErrorKey] as? String) ?? "it does not parse"
            var reason = words.hasSuffix(".") ? String(words.dropLast()) : words
            if let first = reason.first { reason = first.lowercased() + reason.dropFirst() }
            return Rejection(location: location(in: data, reason: reason), reason: .notJSON(detail: reason))
        }
    }

    /// "line 3, column 7" for "… character N" (a byte offset), or for where the data ends
    /// when it ends too soon; else "the document".
    private static func location(in data: Data, reason: String) -> String {
        let offset: Int
        if let range = reason.range(of: "character "), let number = Int(reason[range.upperBound...].prefix { $0.isNumber }),
            number <= data.count
        {
            offset = number
        } else if reason.contains("end of file") {
            offset = data.count
        } else {
            return "the document"
        }
        var line = 1
        var lineStart = 0
        for (index, byte) in data.prefix(offset).enumerated() where byte == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        let column = data[lineStart..<offset].reduce(1) { $1 & 0xC0 == 0x80 ? $0 : $0 + 1 }
        return "line \(line), column \(column)"
    }

    /// Any JSON value, read through so that every string in it is checked (the decoder
    /// checks a string's escapes and UTF-8 only when it is read): for `account` and the
    /// members a present does not know.
    struct AnyValue: Decodable {
        init(from decoder: any Decoder) throws {
            if var list = try? decoder.unkeyedContainer() {
                while !list.isAtEnd { _ = try list.decode(AnyValue.self) }
            } else if let object = try? decoder.container(keyedBy: Key.self) {
                for key in object.allKeys { _ = try object.decode(AnyValue.self, forKey: key) }
            } else {
                let value = try decoder.singleValueContainer()
                if value.decodeNil() { return }
                // A string's escapes and UTF-8, a number's digits: checked when read.
                if (try? value.decode(Bool.self)) == nil, (try? value.decode(String.self)) == nil {
                    _ = try value.decode(Double.self)
                }
            }
        }
    }

    /// What the decoder itself refused: JSON that does not parse, or the wrong kind of value
    /// where the document's shape is fixed.
    private static func rejection(_ error: DecodingError) -> Rejection {
        switch error {
        case .dataCorrupted(let context) where context.codingPath.isEmpty:
            let detail = context.underlyingError.map { "\($0)" } ?? context.debugDescription
            return Rejection(location: "the document", reason: .notJSON(detail: detail))
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            switch place(context.codingPath) {
            case "the document": return Rejection(location: "the document", reason: .notAnObject)
            case "'presents'": return Rejection(location: "'presents'", reason: .notAList(of: "presents"))
            case let place where place.hasPrefix("presents["):
                return Rejection(location: place, reason: .presentNotAnObject)
            case let place: return Rejection(location: place, reason: .wrongShape(detail: context.debugDescription))
            }
        @unknown default:
            return Rejection(location: "the document", reason: .unreadable(detail: nil))
        }
    }

    /// `presents[3].price` for a coding path.
    package static func place(_ path: [any CodingKey]) -> String {
        guard let first = path.first else { return "the document" }
        let lists = ["presents", "occasions", "budgets", "people"]
        guard lists.contains(first.stringValue) else { return "'\(first.stringValue)'" }
        guard path.count > 1 else { return "'\(first.stringValue)'" }
        return first.stringValue + path.dropFirst().map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }.joined()
    }

    /// Any key, for reading what an object holds.
    struct Key: CodingKey {
        let stringValue: String
        let intValue: Int? = nil
        init(_ name: String) { stringValue = name }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// A closed occasion of a document: its name, the last day closed, and where it was.
    struct Closure: Sendable {
        var name: String
        var through: CalendarDate
        var location: String
    }

    /// The top-level object: `format`, then `presents` (and in v2 `occasions`, `budgets`
    /// and `account.currency`); anything else (`account.name`) is JSON the decoder has read
    /// and checked, and is ignored.
    package struct Document: Decodable {
        package var presents: [Present] = []
        /// Who gives each present given together, by its place in ``presents`` (v2).
        package var givers: [Int: [String]] = [:]
        var occasions: [Occasion] = []
        /// The occasions closed (`occasion close`), with the last day closed and where.
        var closures: [Closure] = []
        var budgets: [Budget] = []
        /// Recipients' profiles (`people`), each a name and its fields.
        var profiles: [(name: String, fields: [ProfileChange])] = []
        var currency: String?

        /// A document of `presents` alone (a spreadsheet's rows).
        package init(presents: [Present]) {
            self.presents = presents
        }

        package init(from decoder: any Decoder) throws {
            let object = try decoder.container(keyedBy: Key.self)
            for key in object.allKeys where key.stringValue != "presents" {
                _ = try object.decode(AnyValue.self, forKey: key)
            }
            let format = Key("format")
            guard object.contains(format) else {
                throw Rejection(location: "'format'", reason: .formatMissing)
            }
            guard let text = try? object.decode(String.self, forKey: format) else {
                throw Rejection(location: "'format'", reason: .formatNotAString)
            }
            guard text == ExportDocument.format || text == ExportDocument.formatV1 else {
                throw Rejection(location: "'format'", reason: .unknownFormat(text))
            }
            let isV2 = text == ExportDocument.format
            if isV2 {
                try readVersion2Lists(object)
            }
            guard let list = try? object.nestedUnkeyedContainer(forKey: Key("presents")) else {
                throw Rejection(location: "'presents'", reason: .notAList(of: "presents"))
            }
            var elements = list
            var presents: [Present] = []
            presents.reserveCapacity(elements.count ?? 0)
            var seen: Set<PresentID> = []
            while !elements.isAtEnd {
                let index = elements.currentIndex
                let fields: PresentFields
                do {
                    fields = try elements.decode(PresentFields.self)
                } catch DecodingError.typeMismatch {
                    throw Rejection(location: "presents[\(index)]", reason: .presentNotAnObject)
                }
                let present = try fields.present(index, isV2: isV2)
                guard seen.insert(present.id).inserted else {
                    throw Rejection(location: "presents[\(index)].id", reason: .duplicateID(present.id))
                }
                if let names = fields.givers { givers[presents.count] = names }
                presents.append(present)
            }
            self.presents = presents
        }

        /// The commands that recreate the occasions, budgets and currency, each with the
        /// place in the document it came from (for a rejection).
        package var planning: [(change: Change, location: String)] {
            occasions.enumerated().map { (.addOccasion($0.element), "occasions[\($0.offset)].name") }
                + budgets.enumerated().map { (.setBudget($0.element), "budgets[\($0.offset)]") }
                + profiles.enumerated().map {
                    (.setProfile(recipient: $0.element.name, changes: $0.element.fields), "people[\($0.offset)]")
                }
                + (currency.map { [(.setCurrency(code: $0), "account.currency")] } ?? [])
        }

        /// An occasion's `closedThrough` (absent or null: open); only a dated one is closed.
        private func closedThrough(_ fields: Fields, at: String, dated: Bool) throws(Rejection) -> CalendarDate? {
            switch fields.values["closedThrough"] {
            case nil, .null?:
                return nil
            case .string(let text)?:
                guard dated else { throw Rejection(location: "\(at).date", reason: .missing) }
                do {
                    return try CalendarDate(parsing: text)
                } catch {
                    throw Rejection(location: "\(at).closedThrough", rule: error)
                }
            case .other?:
                throw Rejection(location: "\(at).closedThrough", reason: .notADate)
            }
        }

        /// Each object of the list `name` of `object` (absent: none), with its place (`people[2]`).
        private static func forEachObject(
            in object: KeyedDecodingContainer<Key>, _ name: String, _ body: (Fields, String) throws -> Void
        ) throws {
            guard object.contains(Key(name)) else { return }
            guard var list = try? object.nestedUnkeyedContainer(forKey: Key(name)) else {
                throw Rejection(location: "'\(name)'", reason: .notAList(of: name))
            }
            while !list.isAtEnd {
                let at = "\(name)[\(list.currentIndex)]"
                try body(try list.decode(Fields.self), at)
            }
        }

        /// `occasions`, `budgets`, `people` and `account.currency` of a v2 document (each may be absent).
        private mutating func readVersion2Lists(_ object: KeyedDecodingContainer<Key>) throws {
            try Self.forEachObject(in: object, "occasions") { fields, at in
                try fields.checkKnown(["closedThrough", "date", "name", "yearly"], at: at)
                let name = try fields.text("name", at)
                var date: CalendarDate?
                if case .string(let dateText) = fields.values["date"] {
                    do throws(DomainError) {
                        date = try CalendarDate(parsing: dateText)
                    } catch {
                        throw Rejection(location: "\(at).date", rule: error)
                    }
                } else if case .other = fields.values["date"] {
                    throw Rejection(location: "\(at).date", reason: .notADate)
                }
                if fields.values["yearly"] != nil && fields.flags["yearly"] == nil {
                    throw Rejection(location: "\(at).yearly", reason: .notABool)
                }
                occasions.append(Occasion(name: normalized(name), date: date, isYearly: fields.flags["yearly"] ?? false))
                if let through = try closedThrough(fields, at: at, dated: date != nil) {
                    closures.append(Closure(name: normalized(name), through: through, location: "\(at).closedThrough"))
                }
            }
            try Self.forEachObject(in: object, "budgets") { fields, at in
                try fields.checkKnown(["amount", "occasion", "recipient", "year"], at: at)
                let amountText = try fields.text("amount", at)
                let amount: Money
                do throws(MoneyParsingError) {
                    amount = try Money(parsing: amountText)
                } catch {
                    throw Rejection(location: "\(at).amount", rule: .invalidPrice(amountText, reason: error))
                }
                func name(_ key: String) throws(Rejection) -> String? {
                    if case .string(let text) = fields.values[key] { return normalized(text) }
                    if case .other = fields.values[key] { throw Rejection(location: "\(at).\(key)", reason: .notAStringOrNull) }
                    return nil
                }
                var scope = BudgetScope(recipient: try name("recipient"), occasion: try name("occasion"))
                if let text = try name("year") {
                    guard let year = Int(text), BudgetScope.years.contains(year) else {
                        throw Rejection(location: "\(at).year", reason: .invalidYear(text))
                    }
                    scope.year = year
                }
                budgets.append(Budget(scope: scope, amount: amount))
            }
            try Self.forEachObject(in: object, "people") { fields, at in
                try fields.checkKnown(Set(ProfileField.allCases.map(\.name) + ["name"]), at: at)
                let name = normalized(try fields.text("name", at))
                var changes: [ProfileChange] = []
                for field in ProfileField.allCases {
                    let text = try fields.text(field.name, at, required: false)
                    if !text.isEmpty { changes.append(.field(field, normalized(text))) }
                }
                profiles.append((name, changes))
            }
            if let account = try? object.nestedContainer(keyedBy: Key.self, forKey: Key("account")),
                let code = try? account.decodeIfPresent(String.self, forKey: Key("currency"))
            {
                currency = code
            }
        }
    }
}
