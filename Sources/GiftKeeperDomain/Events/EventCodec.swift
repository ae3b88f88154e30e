/// The binary payload of one event, as sealed into a journal frame. Compact, versioned,
/// hand-written; decoding reads straight from the buffer.
///
/// # Byte layout, schema versions 1 and 2
///
/// Every payload is:
///
/// | bytes  | field                                                           |
/// |--------|-----------------------------------------------------------------|
/// | 1      | schema version: `0x02` written, `0x01` still read               |
/// | 1      | event type tag (table below)                                    |
/// | varint | `at`: milliseconds since 1970-01-01T00:00:00Z, signed (zigzag)  |
/// | …      | the fields of the type, in the order listed, nothing after them |
///
/// Primitive encodings:
/// - **uvarint**: unsigned LEB128, 7 bits per byte, least significant group first, high bit
///   set on every byte but the last; at most 10 bytes for 64 bits. Must be minimal: a final
///   `0x00` byte after the first (e.g. `80 00`) is rejected, so every value has one encoding.
/// - **svarint**: a signed 64-bit integer zigzag-mapped (`(n << 1) ^ (n >> 63)`: 0→0, -1→1,
///   1→2, -2→3, …) then written as a uvarint.
/// - **string**: uvarint byte count, then that many bytes of valid UTF-8 (no terminator;
///   invalid UTF-8 is an error, never replaced).
/// - **bool**: one byte, `0x00` false or `0x01` true; anything else is an error.
/// - **id**: a present id's number as a uvarint, at least 1 (`p12` is `0C`).
/// - **money?**: one byte `0x00` (no price) or `0x01` followed by the amount in minor units
///   (cents) as a uvarint no larger than 2^63-1.
/// - **status**: one byte: `0x00` idea, `0x01` bought, `0x02` wrapped, `0x03` given.
///
/// Event types (tag: name — fields):
///
/// | tag    | type string            | fields after `at`                                     |
/// |--------|------------------------|-------------------------------------------------------|
/// | `0x01` | `accountCreated`       | name: string                                          |
/// | `0x02` | `loginSucceeded`       | (none)                                                |
/// | `0x03` | `loginFailed`          | (none)                                                |
/// | `0x04` | `signedOut`            | clean: bool                                           |
/// | `0x05` | `presentAdded`         | id, recipient: string, title: string, notes: string, price: money?, occasion: string |
/// | `0x06` | `presentEdited`        | id, change count: uvarint, then per change: field tag byte and value (below) |
/// | `0x07` | `presentStatusChanged` | id, status                                            |
/// | `0x08` | `presentRemoved`       | id                                                    |
/// | `0x09` | `passwordChanged`      | (none)                                                |
/// | `0x0A` | `stateExported`        | present count: svarint                                |
/// | `0x0B` | `presentImported`      | id, recipient: string, title: string, notes: string, price: money?, occasion: string, status, createdAt: svarint, updatedAt: svarint |
///
/// Schema version 2 (this table lists version 1; version 2 is the same with these changes):
///
/// | tag    | type string            | in version 2                                          |
/// |--------|------------------------|-------------------------------------------------------|
/// | `0x05` | `presentAdded`         | then url: string, store: string                       |
/// | `0x0B` | `presentImported`      | then url: string, store: string, givenAt: time? (`0x00`, or `0x01` and an svarint) |
/// | `0x0C` | `occasionAdded`        | name: string, date: day? (`0x00`, or `0x01` and days since 1970-01-01 as an svarint), yearly: bool |
/// | `0x0D` | `occasionRemoved`      | name: string                                          |
/// | `0x0E` | `budgetSet`            | recipient: string, occasion: string (empty: any), amount: uvarint cents |
/// | `0x0F` | `budgetCleared`        | recipient: string, occasion: string                   |
/// | `0x10` | `presentRestored`      | id                                                    |
/// | `0x11` | `currencySet`          | code: string                                          |
/// | `0x12` | `budgetSetForYear`     | recipient: string, occasion: string (empty: any), year: uvarint (1–9999), amount: uvarint cents |
/// | `0x13` | `budgetClearedForYear` | recipient: string, occasion: string, year: uvarint    |
/// | `0x14` | `occasionClosed`       | name: string, through: day? (`0x00`: reopened)        |
/// | `0x15` | `profileFieldSet`      | recipient: string, field: byte (`0x01` sizes, `0x02` likes, `0x03` dislikes, `0x04` address, `0x05` notes), value: string (empty: cleared) |
/// | `0x16` | `wishAdded`            | wish id, wisher: string, title: string, notes: string, price: money?, url: string, suggestedBy: string |
/// | `0x17` | `wishRemoved`          | wish id                                               |
/// | `0x18` | `wishClaimed`          | wish id, claimer: string, present id                  |
/// | `0x19` | `wishUnclaimed`        | wish id, claimer: string                              |
/// | `0x1A` | `giversSet`            | id, giver count: uvarint, then each giver: string     |
///
/// A **wish id** is written as a present id is (`w3` is `03`). The tags from `0x16` are a
/// household's (SPEC §13; ``EventWriter/household(_:)``).
///
/// Upcasting version 1: `presentAdded` has no url or store (empty); `presentImported` has
/// none either, and a `given` one's givenAt is its updatedAt. Tags from `0x0C` and change
/// fields from `0x06` are errors in a version 1 payload.
///
/// A change in `presentEdited` is a field tag byte then its new value: `0x01` title: string,
/// `0x02` recipient: string, `0x03` notes: string, `0x04` price: money? (`0x00` clears it),
/// `0x05` occasion: string, and in version 2 `0x06` url: string, `0x07` store: string.
/// Changes keep their order.
///
/// Example: `presentStatusChanged` of `p3` to `bought` at 2026-11-22T14:03:07.123Z
/// (1795356187123 ms) is `02 07 E6 E7 8A B9 C0 68 03 01` (`01 07 …` in version 1).
///
/// Tags and field orders never change. A new event type takes a new tag; a changed
/// payload takes a new schema version, and the decoder keeps reading the old ones
/// (upcasting them to the current ``Event``).
public enum EventCodec {
    /// The version written in the first byte of every payload.
    public static let schemaVersion: UInt8 = 2
    /// The oldest version still read (and upcast).
    public static let oldestSchemaVersion: UInt8 = 1

    // MARK: Encoding

    /// The payload of `event`.
    public static func encode(_ event: Event) -> [UInt8] {
        var writer = EventWriter(out: [])
        writer.out.append(schemaVersion)
        writer.out.append(event.type.tag)
        writer.signed(event.at.millisecondsSinceEpoch)
        switch event.body {
        case .accountCreated(let name):
            writer.string(name)
        case .loginSucceeded, .loginFailed, .passwordChanged:
            break
        case .signedOut(let clean):
            writer.out.append(clean ? 1 : 0)
        case .presentAdded(let id, let recipient, let title, let notes, let price, let occasion, let url, let store):
            writer.presentFields(id, recipient, title, notes, price, occasion)
            writer.string(url)
            writer.string(store)
        case .presentEdited(let id, let changes):
            writer.unsigned(id.number)
            writer.unsigned(UInt64(changes.count))
            for change in changes {
                writer.out.append(fieldTag(change.field))
                switch change {
                case .title(let value), .recipient(let value), .notes(let value), .occasion(let value), .url(let value),
                    .store(let value):
                    writer.string(value)
                case .price(let value):
                    writer.money(value)
                }
            }
        case .presentStatusChanged(let id, let status):
            writer.unsigned(id.number)
            writer.out.append(statusTag(status))
        case .presentRemoved(let id):
            writer.unsigned(id.number)
        case .stateExported(let count):
            writer.signed(Int64(count))
        case .presentImported(let present):
            writer.presentFields(
                present.id, present.recipient, present.title, present.notes, present.price, present.occasion)
            writer.out.append(statusTag(present.status))
            writer.signed(present.createdAt.millisecondsSinceEpoch)
            writer.signed(present.updatedAt.millisecondsSinceEpoch)
            writer.string(present.url)
            writer.string(present.store)
            writer.optionalSigned(present.givenAt?.millisecondsSinceEpoch)
        case .occasionAdded(let occasion):
            writer.string(occasion.name)
            writer.optionalSigned(occasion.date?.daysSinceEpoch)
            writer.out.append(occasion.isYearly ? 1 : 0)
        case .occasionRemoved(let name):
            writer.string(name)
        case .budgetSet(let budget):
            writer.string(budget.scope.recipient ?? "")
            writer.string(budget.scope.occasion ?? "")
            if let year = budget.scope.year { writer.unsigned(UInt64(max(0, year))) }
            writer.unsigned(UInt64(budget.amount.minorUnits))
        case .budgetCleared(let scope):
            writer.string(scope.recipient ?? "")
            writer.string(scope.occasion ?? "")
            if let year = scope.year { writer.unsigned(UInt64(max(0, year))) }
        case .presentRestored(let id):
            writer.unsigned(id.number)
        case .currencySet(let code):
            writer.string(code)
        case .occasionClosed(let name, let through):
            writer.string(name)
            writer.optionalSigned(through?.daysSinceEpoch)
        case .profileFieldSet(let recipient, let field, let value):
            writer.string(recipient)
            writer.out.append(field.rawValue)
            writer.string(value)
        case .wishAdded, .wishRemoved, .wishClaimed, .wishUnclaimed, .giversSet:
            writer.household(event.body)
        }
        return writer.out
    }

    // MARK: Decoding

    /// The event in `bytes`, which must hold exactly one payload.
    /// - Throws: ``EventDecodingError`` for an unknown version or type, truncation,
    ///   a bad varint, invalid UTF-8, an out-of-range value or trailing bytes. Never traps.
    public static func decode(_ bytes: UnsafeRawBufferPointer) throws(EventDecodingError) -> Event {
        var reader = EventReader(bytes: bytes)
        let version = try reader.byte()
        guard version >= oldestSchemaVersion, version <= schemaVersion else { throw .unsupportedSchemaVersion(version) }
        let isVersion1 = version == 1
        let tag = try reader.byte()
        guard let type = EventType(rawValue: tag), !isVersion1 || tag <= EventType.presentImported.rawValue else {
            throw .unknownEventType(tag)
        }
        let at = Timestamp(millisecondsSinceEpoch: try reader.signed())
        let body: EventBody
        switch type {
        case .accountCreated:
            body = .accountCreated(name: try reader.string())
        case .loginSucceeded:
            body = .loginSucceeded
        case .loginFailed:
            body = .loginFailed
        case .signedOut:
            body = .signedOut(clean: try reader.bool())
        case .presentAdded:
            let p = try reader.presentFields()
            let url = isVersion1 ? "" : try reader.string()
            let store = isVersion1 ? "" : try reader.string()
            body = .presentAdded(
                id: p.id, recipient: p.recipient, title: p.title, notes: p.notes, price: p.price, occasion: p.occasion,
                url: url, store: store)
        case .presentEdited:
            let id = try reader.presentID()
            let countOffset = reader.offset
            let count = try reader.unsigned()
            // Each change takes at least two bytes, so a count the rest cannot hold is a
            // truncation, found before any allocation.
            guard count <= UInt64(reader.remaining / 2) else { throw .truncated(offset: countOffset) }
            var changes: [PresentChange] = []
            changes.reserveCapacity(Int(count))
            for _ in 0..<count {
                let fieldOffset = reader.offset
                switch try reader.byte() {
                case 1: changes.append(.title(try reader.string()))
                case 2: changes.append(.recipient(try reader.string()))
                case 3: changes.append(.notes(try reader.string()))
                case 4: changes.append(.price(try reader.money()))
                case 5: changes.append(.occasion(try reader.string()))
                case 6 where !isVersion1: changes.append(.url(try reader.string()))
                case 7 where !isVersion1: changes.append(.store(try reader.string()))
                default: throw .invalidValue(.changeField, offset: fieldOffset)
                }
            }
            body = .presentEdited(id: id, changes: changes)
        case .presentStatusChanged:
            let id = try reader.presentID()
            body = .presentStatusChanged(id: id, status: try reader.status())
        case .presentRemoved:
            body = .presentRemoved(id: try reader.presentID())
        case .passwordChanged:
            body = .passwordChanged
        case .stateExported:
            let countOffset = reader.offset
            let count = try reader.signed()
            guard let count = Int(exactly: count) else { throw .invalidValue(.presentCount, offset: countOffset) }
            body = .stateExported(presentCount: count)
        case .presentImported:
            let p = try reader.presentFields()
            let status = try reader.status()
            let createdAt = Timestamp(millisecondsSinceEpoch: try reader.signed())
            let updatedAt = Timestamp(millisecondsSinceEpoch: try reader.signed())
            var present = Present(
                id: p.id, recipient: p.recipient, title: p.title, notes: p.notes, price: p.price, occasion: p.occasion,
                status: status, createdAt: createdAt, updatedAt: updatedAt)
            if isVersion1 {
                // Upcast: version 1 kept no given time; a given present was given when last changed.
                present.givenAt = status == .given ? updatedAt : nil
            } else {
                present.url = try reader.string()
                present.store = try reader.string()
                present.givenAt = try reader.optionalTime()
            }
            body = .presentImported(present)
        case .occasionAdded:
            let name = try reader.string()
            let date = try reader.optionalDate()
            body = .occasionAdded(Occasion(name: name, date: date, isYearly: try reader.bool()))
        case .occasionRemoved:
            body = .occasionRemoved(name: try reader.string())
        case .budgetSet, .budgetSetForYear:
            var scope = BudgetScope(recipient: try reader.string(), occasion: try reader.string())
            if type == .budgetSetForYear { scope.year = try reader.year() }
            let amountOffset = reader.offset
            let units = try reader.unsigned()
            guard let signed = Int64(exactly: units), let amount = Money(minorUnits: signed) else {
                throw .invalidValue(.price, offset: amountOffset)
            }
            body = .budgetSet(Budget(scope: scope, amount: amount))
        case .budgetCleared, .budgetClearedForYear:
            var scope = BudgetScope(recipient: try reader.string(), occasion: try reader.string())
            if type == .budgetClearedForYear { scope.year = try reader.year() }
            body = .budgetCleared(scope)
        case .presentRestored:
            body = .presentRestored(id: try reader.presentID())
        case .currencySet:
            body = .currencySet(code: try reader.string())
        case .occasionClosed:
            let name = try reader.string()
            body = .occasionClosed(name: name, through: try reader.optionalDate())
        case .profileFieldSet:
            let recipient = try reader.string()
            let offset = reader.offset
            guard let field = ProfileField(rawValue: try reader.byte()) else { throw .invalidValue(.profileField, offset: offset) }
            body = .profileFieldSet(recipient: recipient, field: field, value: try reader.string())
        case .wishAdded, .wishRemoved, .wishClaimed, .wishUnclaimed, .giversSet:
            body = try reader.household(type)
        }
        guard reader.remaining == 0 else { throw .trailingBytes(offset: reader.offset) }
        return Event(at: at, body)
    }

    /// The event in `bytes`; see ``decode(_:)-(UnsafeRawBufferPointer)``.
    public static func decode(_ bytes: [UInt8]) throws(EventDecodingError) -> Event {
        let result: Result<Event, EventDecodingError> = bytes.withUnsafeBytes { buffer in
            do throws(EventDecodingError) {
                return .success(try decode(buffer))
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    static func statusTag(_ status: PresentStatus) -> UInt8 {
        switch status {
        case .idea: 0
        case .bought: 1
        case .wrapped: 2
        case .given: 3
        }
    }

    static func fieldTag(_ field: PresentField) -> UInt8 {
        switch field {
        case .title: 1
        case .recipient: 2
        case .notes: 3
        case .price: 4
        case .occasion: 5
        case .url: 6
        case .store: 7
        }
    }
}

/// Why a payload could not be decoded. Offsets are byte offsets into the payload.
public enum EventDecodingError: Error, Hashable, Sendable {
    /// A schema version this build cannot read (written by a newer GiftKeeper).
    case unsupportedSchemaVersion(UInt8)
    /// A type tag this build does not know (written by a newer GiftKeeper).
    case unknownEventType(UInt8)
    /// The payload ends in the middle of a field (or a length runs past its end).
    case truncated(offset: Int)
    /// A varint longer than 64 bits.
    case varintOverflow(offset: Int)
    /// A varint with redundant trailing zero groups.
    case nonCanonicalVarint(offset: Int)
    /// A string whose bytes are not valid UTF-8.
    case invalidUTF8(offset: Int)
    /// A value out of its range.
    case invalidValue(Field, offset: Int)
    /// Bytes left after the last field.
    case trailingBytes(offset: Int)

    /// A field whose value can be out of range.
    public enum Field: String, Hashable, Sendable {
        case bool, presentID, price, status, changeField, presentCount, date, year, profileField, wishID, giverCount
    }
}
