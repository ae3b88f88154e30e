import Foundation
public import GiftKeeperDomain

/// Reads a `giftkeeper.export.v1` document back into presents, checking every field
/// before anything is appended. A malformed document is rejected whole, naming the field.
enum ImportDocument {
    struct Rejection: Error {
        let location: String
        let reason: String
    }

    private static let presentKeys: Set<String> = [
        "createdAt", "id", "notes", "occasion", "price", "recipient", "status", "title", "updatedAt",
    ]

    static func parse(_ bytes: [UInt8]) throws(Rejection) -> [Present] {
        let root: Any
        do {
            root = try JSONSerialization.jsonObject(with: Data(bytes), options: [])
        } catch {
            throw Rejection(location: "the document", reason: "it is not valid JSON (\(jsonErrorHint(error)))")
        }
        guard let object = root as? [String: Any] else {
            throw Rejection(location: "the document", reason: "it must be a JSON object")
        }
        guard let format = object["format"] as? String else {
            throw Rejection(location: "'format'", reason: "it is missing; expected \"\(ExportDocument.format)\"")
        }
        guard format == ExportDocument.format else {
            throw Rejection(location: "'format'", reason: "'\(format)' is not \"\(ExportDocument.format)\"")
        }
        guard let list = object["presents"] as? [Any] else {
            throw Rejection(location: "'presents'", reason: "it must be a list of presents")
        }
        var presents: [Present] = []
        presents.reserveCapacity(list.count)
        var seen: Set<PresentID> = []
        for (index, item) in list.enumerated() {
            let here = "presents[\(index)]"
            guard let fields = item as? [String: Any] else {
                throw Rejection(location: here, reason: "each present must be an object")
            }
            if fields.keys.contains(where: { !presentKeys.contains($0) }),
               let unknown = fields.keys.sorted().first(where: { !presentKeys.contains($0) }) {
                throw Rejection(location: "\(here).\(unknown)", reason: "unknown field")
            }
            func string(_ key: String, required: Bool = true) throws(Rejection) -> String {
                guard let value = fields[key] else {
                    if required { throw Rejection(location: "\(here).\(key)", reason: "it is missing") }
                    return ""
                }
                guard let text = value as? String else {
                    throw Rejection(location: "\(here).\(key)", reason: "it must be a string")
                }
                return text
            }
            func time(_ key: String) throws(Rejection) -> Timestamp {
                let text = try string(key)
                guard let value = Timestamp(iso8601: text) else {
                    throw Rejection(location: "\(here).\(key)", reason: "'\(text)' is not an ISO-8601 UTC time like 2026-11-22T14:03:07.123Z")
                }
                return value
            }
            let idText = try string("id")
            guard let id = PresentID(parsing: idText) else {
                throw Rejection(location: "\(here).id", reason: "'\(idText)' is not a present id like p12")
            }
            guard seen.insert(id).inserted else {
                throw Rejection(location: "\(here).id", reason: "'\(idText)' appears more than once")
            }
            var price: Money?
            if let rawPrice = fields["price"], !(rawPrice is NSNull) {
                guard let text = rawPrice as? String else {
                    throw Rejection(location: "\(here).price", reason: "it must be a decimal string like \"25.00\" or null")
                }
                do {
                    price = try Money(parsing: text)
                } catch {
                    throw Rejection(location: "\(here).price", reason: DomainError.invalidPrice(text, reason: error).message)
                }
            }
            let statusText = try string("status")
            guard let status = PresentStatus(rawValue: statusText) else {
                throw Rejection(location: "\(here).status", reason: "'\(statusText)' is not one of idea, bought, wrapped, given")
            }
            let createdAt = try time("createdAt")
            let updatedAt = try time("updatedAt")
            presents.append(Present(
                id: id, recipient: normalized(try string("recipient")), title: normalized(try string("title")),
                notes: normalized(try string("notes", required: false)), price: price,
                occasion: normalized(try string("occasion", required: false)), status: status,
                createdAt: createdAt, updatedAt: updatedAt))
        }
        return presents
    }

    private static func jsonErrorHint(_ error: any Error) -> String {
        let text = (error as NSError).userInfo[NSDebugDescriptionErrorKey] as? String
        return text ?? "unreadable"
    }
}

/// What an import did.
public struct ImportSummary: Sendable, Equatable {
    public let presentsImported: Int
    public let batches: Int
}

extension GiftKeeperService {
    /// Events per batch: one fsync each (group commit).
    static let importBatchSize = 1024

    /// The field a domain refusal of an imported present is about (`.title`, `.id` …), so
    /// the rejection names it like the parser's own rejections do.
    private static func field(of error: DomainError) -> String {
        switch error {
        case .emptyValue(let field), .tooLong(let field, _, _):
            return "." + field.rawValue
        case .presentAlreadyExists, .presentRemoved, .unknownPresent, .invalidPresentID, .presentIDsExhausted:
            return ".id"
        case .invalidPrice:
            return ".price"
        case .unknownStatus:
            return ".status"
        default:
            return ""
        }
    }

    /// Appends the events that recreate the presents of an export v1 document (SPEC §6).
    ///
    /// The whole document is parsed and every present checked against the current state
    /// first; a malformed document is rejected whole with nothing appended. Then the events
    /// are appended in batches, each acknowledged only after its fsync.
    public func importDocument(_ bytes: [UInt8]) throws(ServiceError) -> ImportSummary {
        guard phase == .signedIn else { throw ServiceError(.notSignedIn) }
        let presents: [Present]
        do {
            presents = try ImportDocument.parse(bytes)
        } catch {
            throw ServiceError(.importRejected(location: error.location, reason: error.reason))
        }
        let now = environment.now()
        var planned = state
        var events: [Event] = []
        events.reserveCapacity(presents.count)
        for (index, present) in presents.enumerated() {
            do {
                let produced = try GiftList.decide(.importPresent(present), at: now, state: planned)
                for event in produced { planned.apply(event) }
                events += produced
            } catch {
                throw ServiceError(.importRejected(location: "presents[\(index)]" + Self.field(of: error), reason: error.message))
            }
        }
        var batches = 0
        var start = 0
        while start < events.count {
            let end = min(start + Self.importBatchSize, events.count)
            let batch = Array(events[start..<end])
            try appendSealed(batch)
            for event in batch { state.apply(event) }
            batches += 1
            start = end
        }
        return ImportSummary(presentsImported: presents.count, batches: batches)
    }
}
