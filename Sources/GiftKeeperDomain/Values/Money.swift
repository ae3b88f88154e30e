/// An exact, non-negative amount of money in minor units (cents). No floating point.
///
/// Currency is not modelled: a gift list is kept in one currency.
public struct Money: Hashable, Comparable, Sendable, CustomStringConvertible {
    /// Minor units (hundredths); never negative.
    public let minorUnits: Int64

    public static let zero = Money(unchecked: 0)
    /// The largest amount: 92233720368547758.07 (what a journal written before the
    /// price limit may hold).
    public static let max = Money(unchecked: .max)
    /// The largest price a person can give: 1,000,000,000.00. Far above any present, and
    /// low enough that a total never nears the largest amount.
    public static let maximumPrice = Money(unchecked: 100_000_000_000)

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

    /// A price a person typed: parsed like ``init(parsing:)``, at most ``maximumPrice``;
    /// a failure wrapped in ``DomainError/invalidPrice(_:reason:)``. (An import restores
    /// what a journal held, whatever it was, so that export and import round-trip.)
    /// A decimal comma is read as the dot (`1,50` is 1.50) when the text has no dot and at
    /// most two digits follow the comma; `1,000` stays an error (a thousands separator).
    public static func parsePrice(_ text: String) throws(DomainError) -> Money {
        let price: Money
        var typed = Substring(text)
        var commaForm = ""
        // A price with a point, the usual case, has no comma form. In ASCII a byte is a
        // Character, so the point is looked for by byte there.
        let hasPoint = text.allUTF8Bytes { $0 < 0x80 } ? text.utf8.contains(UInt8(ascii: ".")) : text.contains(".")
        if !hasPoint, let comma = text.firstIndex(of: ","), text[text.index(after: comma)...].count <= 2 {
            commaForm = text.replacingCharacter(at: comma, with: ".")
            typed = Substring(commaForm)
        }
        do {
            price = try Money(parsing: typed)
        } catch {
            throw .invalidPrice(text, reason: error)
        }
        guard price <= maximumPrice else { throw .invalidPrice(text, reason: .tooLarge) }
        return price
    }

    public static func < (lhs: Money, rhs: Money) -> Bool { lhs.minorUnits < rhs.minorUnits }

    /// Always two decimals: `25.00`, `0.99`.
    public var description: String {
        Money.decimal(Int128(minorUnits))
    }

    /// `units` minor units as a decimal with two decimals.
    static func decimal(_ units: Int128) -> String {
        let cents = units % 100
        return "\(units / 100).\(cents < 10 ? "0" : "")\(cents)"
    }
}

/// A sum of amounts that cannot overflow (128 bits of minor units), for totals: exact
/// even over a journal written before the price limit, with prices up to ``Money/max``.
extension String {
    fileprivate func replacingCharacter(at index: Index, with replacement: Character) -> String {
        var copy = self
        copy.replaceSubrange(index...index, with: String(replacement))
        return copy
    }
}

public struct MoneyTotal: Hashable, Comparable, Sendable, CustomStringConvertible {
    public private(set) var minorUnits: Int128 = 0

    public init() {}

    public init(_ amount: Money) {
        minorUnits = Int128(amount.minorUnits)
    }

    public mutating func add(_ amount: Money) {
        minorUnits += Int128(amount.minorUnits)
    }

    public static func < (lhs: MoneyTotal, rhs: MoneyTotal) -> Bool { lhs.minorUnits < rhs.minorUnits }

    public static func + (lhs: MoneyTotal, rhs: MoneyTotal) -> MoneyTotal {
        var sum = lhs
        sum.minorUnits += rhs.minorUnits
        return sum
    }

    /// `self` minus `other`, which may be negative (a budget's remaining when over).
    public func minus(_ other: MoneyTotal) -> SignedAmount { SignedAmount(minorUnits: minorUnits - other.minorUnits) }

    public var description: String { Money.decimal(minorUnits) }
}

/// A difference of amounts, which may be negative: `-25.00`.
public struct SignedAmount: Hashable, Comparable, Sendable, CustomStringConvertible {
    public let minorUnits: Int128

    /// The amount without its sign.
    public var magnitude: String { Money.decimal(minorUnits < 0 ? -minorUnits : minorUnits) }
    public var description: String { (minorUnits < 0 ? "-" : "") + magnitude }

    public static func < (lhs: SignedAmount, rhs: SignedAmount) -> Bool { lhs.minorUnits < rhs.minorUnits }
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
