import Foundation
import GiftKeeperDomain

/// The members of the objects an import reads by name: occasions' and budgets' as they
/// stand (``Fields``), a present's into fixed members (``PresentFields``).
extension ImportDocument {
    /// An object's members as they stand, by name (occasions and budgets): each a string,
    /// null, or something else.
    struct Fields: Decodable {
        enum Value {
            case string(String)
            case null
            case other
        }

        var values: [String: Value] = [:]
        /// The members that held `true` or `false`.
        var flags: [String: Bool] = [:]

        init(from decoder: any Decoder) throws {
            let object = try decoder.container(keyedBy: Key.self)
            for key in object.allKeys {
                let name = key.stringValue
                values[name] = try Self.value(of: key, in: object) { flags[name] = $0 }
            }
        }

        /// The member `key` of `object`: a string, null, something else (read through all
        /// the same, so that nothing in it escapes the checks; `flag` hears a `true` or
        /// `false`), or nil when it is absent.
        static func value<Name: CodingKey>(
            of key: Name, in object: KeyedDecodingContainer<Name>, flag: (Bool) -> Void = { _ in }
        ) throws -> Value? {
            do {
                if let text = try object.decodeIfPresent(String.self, forKey: key) { return .string(text) }
                return object.contains(key) ? .null : nil
            } catch DecodingError.typeMismatch {
                if let value = try? object.decode(Bool.self, forKey: key) {
                    flag(value)
                } else {
                    _ = try object.decode(AnyValue.self, forKey: key)
                }
                return .other
            }
        }

        /// Rejects the first member (A to Z) that is not in `known`.
        func checkKnown(_ known: Set<String>, at: @autoclosure () -> String) throws(Rejection) {
            if values.keys.allSatisfy(known.contains) { return }
            if let name = values.keys.filter({ !known.contains($0) }).sorted().first {
                throw Rejection(location: "\(at()).\(name)", reason: .unknownField)
            }
        }

        /// A string member ("it is missing" / "it must be a string" otherwise).
        func text(_ name: String, _ at: @autoclosure () -> String, required: Bool = true) throws(Rejection) -> String {
            try Self.text(values[name], name, at(), required: required)
        }

        /// `value`, the member `name` (nil: absent), as a string ("it is missing" / "it must
        /// be a string" otherwise).
        static func text(_ value: Value?, _ name: String, _ at: @autoclosure () -> String, required: Bool = true)
            throws(Rejection) -> String
        {
            switch value {
            case nil:
                if required { throw Rejection(location: "\(at()).\(name)", reason: .missing) }
                return ""
            case .null, .other:
                throw Rejection(location: "\(at()).\(name)", reason: .notAString)
            case .string(let text):
                return text
            }
        }

        /// `value`, the member `name`, as an ISO-8601 UTC time.
        static func time(_ value: Value?, _ name: String, _ at: @autoclosure () -> String) throws(Rejection) -> Timestamp {
            let text = try text(value, name, at())
            guard let time = Timestamp(iso8601: text) else {
                throw Rejection(
                    location: "\(at()).\(name)", reason: .notATime(text))
            }
            return time
        }
    }

    /// The name of a present's member. A name a present has in some version (a ``Member``)
    /// is made only here; the decoder makes one only for any other name, so `allKeys` lists
    /// just the members a present does not know, and nothing for a good present.
    struct PresentKey: CodingKey {
        /// The members of a present in export v2; `givenAt`, `store` and `url` are not in v1.
        enum Member: String {
            case createdAt, givenAt, givers, id, notes, occasion, price, recipient, status, store, title, updatedAt, url
        }

        let stringValue: String
        var intValue: Int? { nil }

        init(_ member: Member) { stringValue = member.rawValue }

        init?(stringValue: String) {
            if Self.isMember(stringValue) { return nil }
            self.stringValue = stringValue
        }

        init?(intValue: Int) { nil }

        /// Whether `name` is a ``Member``'s, its length picking the one to four names it can
        /// be (`Member(rawValue:)` compares it with every name in turn: 3 % of an import).
        private static func isMember(_ name: String) -> Bool {
            switch name.utf8.count {
            case 2: name == "id"
            case 3: name == "url"
            case 5: name == "notes" || name == "price" || name == "store" || name == "title"
            case 6: name == "status" || name == "givers"
            case 7: name == "givenAt"
            case 8: name == "occasion"
            case 9: name == "createdAt" || name == "recipient" || name == "updatedAt"
            default: false
            }
        }
    }

    /// One present's members, each a string, null, something else, or absent (nil), read
    /// by name into fixed members: no dictionary per present.
    struct PresentFields: Decodable {
        typealias Value = Fields.Value

        var id, recipient, title, notes, price, occasion, status, createdAt, updatedAt: Value?
        var givenAt, store, url: Value?
        /// Who gives it together (v2, only on a present given together); nil when absent.
        var givers: [String]?
        /// Whether `givers` was there but not a list of strings.
        var giversMalformed = false
        /// The names of the members no present has, in any version.
        var unknown: [String] = []

        init(from decoder: any Decoder) throws {
            let object = try decoder.container(keyedBy: PresentKey.self)
            func read(_ member: PresentKey.Member) throws -> Value? {
                try Fields.value(of: PresentKey(member), in: object)
            }
            id = try read(.id)
            recipient = try read(.recipient)
            title = try read(.title)
            notes = try read(.notes)
            price = try read(.price)
            occasion = try read(.occasion)
            status = try read(.status)
            createdAt = try read(.createdAt)
            updatedAt = try read(.updatedAt)
            givenAt = try read(.givenAt)
            store = try read(.store)
            url = try read(.url)
            let giversKey = PresentKey(.givers)
            if object.contains(giversKey) {
                givers = try? object.decode([String].self, forKey: giversKey)
                giversMalformed = givers == nil
            }
            for key in object.allKeys {
                _ = try object.decode(AnyValue.self, forKey: key)
                unknown.append(key.stringValue)
            }
        }

        /// The present these fields describe, or the rejection of the first bad one.
        func present(_ index: Int, isV2: Bool) throws(Rejection) -> Present {
            // Words only for a rejection: a present that passes builds no string.
            var at: String { "presents[\(index)]" }
            // The first member (A to Z) the document's version does not know.
            var unknown = self.unknown
            if !isV2 {
                if self.givenAt != nil { unknown.append(PresentKey.Member.givenAt.rawValue) }
                if self.store != nil { unknown.append(PresentKey.Member.store.rawValue) }
                if self.url != nil { unknown.append(PresentKey.Member.url.rawValue) }
                if self.givers != nil || giversMalformed { unknown.append(PresentKey.Member.givers.rawValue) }
            }
            if let name = unknown.min() {
                throw Rejection(location: "\(at).\(name)", reason: .unknownField)
            }
            if giversMalformed { throw Rejection(location: "\(at).givers", reason: .notAList(of: "names")) }
            let idText = try Fields.text(self.id, "id", at)
            guard let id = PresentID(parsing: idText) else {
                throw Rejection(location: "\(at).id", reason: .notAPresentID(idText))
            }
            var price: Money?
            switch self.price {
            case nil, .null:
                break
            case .other:
                throw Rejection(location: "\(at).price", reason: .notAPrice)
            case .string(let priceText):
                do {
                    price = try Money(parsing: priceText)
                } catch {
                    throw Rejection(location: "\(at).price", rule: .invalidPrice(priceText, reason: error))
                }
            }
            let statusText = try Fields.text(self.status, "status", at)
            guard let status = PresentStatus(rawValue: statusText) else {
                throw Rejection(location: "\(at).status", reason: .notAStatus(statusText))
            }
            let createdAt = try Fields.time(self.createdAt, "createdAt", at)
            let updatedAt = try Fields.time(self.updatedAt, "updatedAt", at)
            // A given present was given at `givenAt` (v2) or, in v1, when it was last changed.
            var givenAt: Timestamp?
            if status == .given {
                if case .string = self.givenAt { givenAt = try Fields.time(self.givenAt, "givenAt", at) } else { givenAt = updatedAt }
            }
            return Present(
                id: id, recipient: normalized(try Fields.text(self.recipient, "recipient", at)),
                title: normalized(try Fields.text(self.title, "title", at)),
                notes: normalized(try Fields.text(self.notes, "notes", at, required: false)), price: price,
                occasion: normalized(try Fields.text(self.occasion, "occasion", at, required: false)),
                url: normalized(try Fields.text(self.url, "url", at, required: false)),
                store: normalized(try Fields.text(self.store, "store", at, required: false)),
                status: status, givenAt: givenAt, createdAt: createdAt, updatedAt: updatedAt)
        }
    }
}
