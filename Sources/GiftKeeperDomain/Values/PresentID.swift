/// A present's short, stable, typeable id: `p1`, `p2`, …; a number is never reused.
public struct PresentID: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The number after the `p`; always at least 1.
    public let number: UInt64

    /// The largest number an imported present may carry. New ids count up from the
    /// largest one used, so a document with `p18446744073709551615` would leave none.
    public static let maximumImported: UInt64 = 999_999_999

    /// An id for `number`; nil for 0, which is never an id.
    public init?(number: UInt64) {
        guard number > 0 else { return nil }
        self.number = number
    }

    /// Parses `p12` or `P12`. Rejects a missing or zero number, signs, leading zeros
    /// (`p07`), spaces, and numbers beyond `UInt64`.
    public init?(parsing text: some StringProtocol) {
        guard let number = ShortIDNumber.parse(text, prefix: "p") else { return nil }
        self.init(number: number)
    }

    /// Parses like ``init(parsing:)`` and throws ``DomainError/invalidPresentID(_:)`` for bad input.
    public static func parse(_ text: String) throws(DomainError) -> PresentID {
        guard let id = PresentID(parsing: text) else { throw .invalidPresentID(text) }
        return id
    }

    public static func < (lhs: PresentID, rhs: PresentID) -> Bool { lhs.number < rhs.number }

    public var description: String { "p\(number)" }
}

/// The number of a short id such as `p12` or `w3`: its prefix letter (either case), then a
/// positive decimal number without leading zeros that fits `UInt64`; nil for anything else.
enum ShortIDNumber {
    static func parse(_ text: some StringProtocol, prefix: Character) -> UInt64? {
        var utf8 = text.utf8.makeIterator()
        guard let first = utf8.next(), let letter = prefix.asciiValue,
            first == letter || first == Character(String(prefix).uppercased()).asciiValue
        else { return nil }
        var value: UInt64 = 0
        var digitCount = 0
        while let byte = utf8.next() {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            if digitCount == 0 && byte == UInt8(ascii: "0") { return nil }  // p0, p07
            let (times10, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
            digitCount += 1
        }
        return value == 0 ? nil : value
    }
}
