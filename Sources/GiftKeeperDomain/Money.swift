/// An exact, non-negative amount of money in minor units (cents). No floating point.
///
/// Currency is not modelled: a gift list is kept in one currency.
public struct Money: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Minor units (hundredths); never negative.
    public let minorUnits: Int64

    public static let zero = Money(unchecked: 0)
    /// The largest amount: 92233720368547758.07.
    public static let max = Money(unchecked: .max)

    /// An amount of `minorUnits` cents; nil if negative.
    public init?(minorUnits: Int64) {
        guard minorUnits >= 0 else { return nil }
        self.minorUnits = minorUnits
    }

    init(unchecked minorUnits: Int64) {
        self.minorUnits = minorUnits
    }

    /// Parses a plain decimal amount: one or more ASCII digits, optionally a dot and one
    /// or two digits (`25`, `25.5`, `25.50`, `0.99`).
    ///
    /// Strict on purpose: no sign, no surrounding spaces, no thousands separators, no
    /// exponent, no currency symbol, no leading or trailing dot (`.5`, `25.`).
    /// - Throws: ``MoneyParsingError`` saying what is wrong.
    public init(parsing text: some StringProtocol) throws(MoneyParsingError) {
        var units: Int64 = 0
        var integerDigits = 0
        var fractionDigits = 0
        var sawDot = false
        var isFirst = true
        for scalar in text.unicodeScalars {
            defer { isFirst = false }
            if scalar == "." {
                guard !sawDot else { throw .invalidCharacter(".") }
                sawDot = true
                continue
            }
            guard scalar.isASCII, scalar.value >= 0x30, scalar.value <= 0x39 else {
                if isFirst && scalar == "-" { throw .negative }
                throw .invalidCharacter(Character(scalar))
            }
            if sawDot {
                fractionDigits += 1
                guard fractionDigits <= 2 else { throw .tooManyFractionDigits }
            } else {
                integerDigits += 1
            }
            let (times10, overflow1) = units.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(Int64(scalar.value - 0x30))
            guard !overflow1, !overflow2 else { throw .tooLarge }
            units = sum
        }
        guard integerDigits > 0 || sawDot else { throw .empty }
        guard integerDigits > 0, !sawDot || fractionDigits > 0 else { throw .missingDigits }
        for _ in fractionDigits..<2 {
            let (scaled, overflow) = units.multipliedReportingOverflow(by: 10)
            guard !overflow else { throw .tooLarge }
            units = scaled
        }
        self.minorUnits = units
    }

    /// Parses like ``init(parsing:)`` and wraps a failure in ``DomainError/invalidPrice(_:reason:)``.
    public static func parsePrice(_ text: String) throws(DomainError) -> Money {
        do {
            return try Money(parsing: text)
        } catch {
            throw .invalidPrice(text, reason: error)
        }
    }

    public static func < (lhs: Money, rhs: Money) -> Bool { lhs.minorUnits < rhs.minorUnits }

    /// The sum, saturating at ``max`` so totals over hostile journals never trap.
    public func addingSaturating(_ other: Money) -> Money {
        let (sum, overflow) = minorUnits.addingReportingOverflow(other.minorUnits)
        return overflow ? .max : Money(unchecked: sum)
    }

    /// Always two decimals: `25.00`, `0.99`.
    public var description: String {
        let cents = minorUnits % 100
        return "\(minorUnits / 100).\(cents < 10 ? "0" : "")\(cents)"
    }
}

/// Why a price could not be read; ``DomainError/message`` words it.
public enum MoneyParsingError: Error, Hashable, Sendable {
    case empty
    case negative
    /// A character that is not a digit or the decimal dot (letters, `e`, `,`, spaces, a second dot).
    case invalidCharacter(Character)
    case tooManyFractionDigits
    /// No digit before the dot, or none after it (`.5`, `25.`).
    case missingDigits
    case tooLarge
}
