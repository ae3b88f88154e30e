/// The primitive encodings of ``EventCodec`` (the table in its documentation).

struct EventWriter {
    var out: [UInt8]

    mutating func unsigned(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            out.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        out.append(UInt8(value))
    }

    mutating func signed(_ value: Int64) {
        unsigned(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// `0x00` for nil, else `0x01` and the svarint (a time? or a day?).
    mutating func optionalSigned(_ value: Int64?) {
        guard let value else {
            out.append(0)
            return
        }
        out.append(1)
        signed(value)
    }

    mutating func string(_ value: String) {
        var value = value
        value.withUTF8 { utf8 in
            unsigned(UInt64(utf8.count))
            out.append(contentsOf: utf8)
        }
    }

    /// The fields `presentAdded` and `presentImported` share, in their order.
    mutating func presentFields(
        _ id: PresentID, _ recipient: String, _ title: String, _ notes: String, _ price: Money?, _ occasion: String
    ) {
        unsigned(id.number)
        string(recipient)
        string(title)
        string(notes)
        money(price)
        string(occasion)
    }

    mutating func money(_ value: Money?) {
        if let value {
            out.append(1)
            unsigned(UInt64(value.minorUnits))
        } else {
            out.append(0)
        }
    }
}

/// Whether every byte is below 0x80, eight bytes at a time.
@inline(__always)
private func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
    var index = 0
    let count = bytes.count
    let raw = UnsafeRawBufferPointer(bytes)
    while index + 8 <= count {
        if raw.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 { return false }
        index += 8
    }
    while index < count {
        if bytes[index] >= 0x80 { return false }
        index += 1
    }
    return true
}

struct EventReader {
    let bytes: UnsafeRawBufferPointer
    var offset = 0

    init(bytes: UnsafeRawBufferPointer) {
        self.bytes = bytes
    }

    var remaining: Int { bytes.count - offset }

    @inline(__always)
    mutating func byte() throws(EventDecodingError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated(offset: offset) }
        defer { offset += 1 }
        return bytes[offset]
    }

    mutating func unsigned() throws(EventDecodingError) -> UInt64 {
        let start = offset
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard offset < bytes.count else { throw .truncated(offset: offset) }
            let byte = bytes[offset]
            offset += 1
            // The tenth byte holds only bit 63.
            if shift == 63 && byte > 1 { throw .varintOverflow(offset: start) }
            result |= UInt64(byte & 0x7F) << shift
            if byte & 0x80 == 0 {
                if byte == 0 && shift > 0 { throw .nonCanonicalVarint(offset: start) }
                return result
            }
            shift += 7
        }
    }

    mutating func signed() throws(EventDecodingError) -> Int64 {
        let zigzag = try unsigned()
        return Int64(bitPattern: (zigzag >> 1) ^ (0 &- (zigzag & 1)))
    }

    mutating func bool() throws(EventDecodingError) -> Bool {
        let start = offset
        switch try byte() {
        case 0: return false
        case 1: return true
        default: throw .invalidValue(.bool, offset: start)
        }
    }

    mutating func presentID() throws(EventDecodingError) -> PresentID {
        let start = offset
        guard let id = PresentID(number: try unsigned()) else { throw .invalidValue(.presentID, offset: start) }
        return id
    }

    /// The fields `presentAdded` and `presentImported` share, in their order.
    mutating func presentFields() throws(EventDecodingError) -> (
        id: PresentID, recipient: String, title: String, notes: String, price: Money?, occasion: String
    ) {
        (try presentID(), try string(), try string(), try string(), try money(), try string())
    }

    /// `0x00`, or `0x01` and milliseconds since the epoch as an svarint.
    mutating func optionalTime() throws(EventDecodingError) -> Timestamp? {
        try bool() ? Timestamp(millisecondsSinceEpoch: try signed()) : nil
    }

    /// `0x00`, or `0x01` and days since 1970-01-01 as an svarint (a date in years 1…9999).
    mutating func optionalDate() throws(EventDecodingError) -> CalendarDate? {
        guard try bool() else { return nil }
        let start = offset
        guard let date = CalendarDate(daysSinceEpoch: try signed()) else { throw .invalidValue(.date, offset: start) }
        return date
    }

    /// A budget's year: a uvarint in 1…9999.
    mutating func year() throws(EventDecodingError) -> Int {
        let start = offset
        let value = try unsigned()
        guard let year = Int(exactly: value), BudgetScope.years.contains(year) else { throw .invalidValue(.year, offset: start) }
        return year
    }

    mutating func status() throws(EventDecodingError) -> PresentStatus {
        let start = offset
        switch try byte() {
        case 0: return .idea
        case 1: return .bought
        case 2: return .wrapped
        case 3: return .given
        default: throw .invalidValue(.status, offset: start)
        }
    }

    mutating func money() throws(EventDecodingError) -> Money? {
        let start = offset
        switch try byte() {
        case 0:
            return nil
        case 1:
            let amountOffset = offset
            let units = try unsigned()
            guard let signed = Int64(exactly: units), let money = Money(minorUnits: signed) else {
                throw .invalidValue(.price, offset: amountOffset)
            }
            return money
        default:
            throw .invalidValue(.price, offset: start)
        }
    }

    mutating func string() throws(EventDecodingError) -> String {
        let lengthOffset = offset
        let length = try unsigned()
        guard length <= UInt64(remaining) else { throw .truncated(offset: lengthOffset) }
        let start = offset
        let end = start + Int(length)
        offset = end
        if start == end { return "" }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[start..<end])
        let string = slice.withMemoryRebound(to: UInt8.self) { utf8 -> String? in
            // Most text is ASCII, which is valid UTF-8 as it stands; the rest is validated
            // in full (`String(validating:)` never substitutes replacement characters).
            isASCII(utf8) ? String(decoding: utf8, as: UTF8.self) : String(validating: utf8, as: UTF8.self)
        }
        guard let string else { throw .invalidUTF8(offset: start) }
        return string
    }
}
