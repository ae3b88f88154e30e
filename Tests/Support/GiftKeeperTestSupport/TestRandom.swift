import Foundation
public import Testing

/// The one random generator of the tests: SplitMix64, seeded, so a failure can be run
/// again exactly. The seed is `GIFTKEEPER_TEST_SEED` (decimal, or hex after `0x`) when set,
/// else a fixed default: every run checks the same inputs unless asked to explore others.
/// Say ``comment`` (or interpolate the generator) in a random test's expectations, so a
/// failure prints the seed that reproduces it.
public struct TestRandom: RandomNumberGenerator, Sendable, CustomStringConvertible {
    /// The seed of this run: `GIFTKEEPER_TEST_SEED`, or the default.
    public static let seed: UInt64 = {
        guard let text = ProcessInfo.processInfo.environment["GIFTKEEPER_TEST_SEED"], !text.isEmpty else {
            return defaultSeed
        }
        let parsed = text.hasPrefix("0x") ? UInt64(text.dropFirst(2), radix: 16) : UInt64(text)
        guard let parsed else { preconditionFailure("GIFTKEEPER_TEST_SEED '\(text)' is not a number") }
        return parsed
    }()

    /// The seed when `GIFTKEEPER_TEST_SEED` is not set.
    public static let defaultSeed: UInt64 = 0x5EED_2026

    /// The seed this generator started from.
    public let seed: UInt64
    private var state: UInt64

    /// A generator from `seed` (by default the run's).
    public init(seed: UInt64 = TestRandom.seed) {
        self.seed = seed
        state = seed
    }

    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// How to get these inputs again: the generator's seed, and the run's (set
    /// `GIFTKEEPER_TEST_SEED` to it and run the test again).
    public var description: String { "random seed \(seed), of the run with GIFTKEEPER_TEST_SEED=\(Self.seed)" }

    /// The seed, and `detail` (the input that failed), for an expectation's comment.
    public func comment(_ detail: String = "") -> Comment {
        Comment(rawValue: detail.isEmpty ? description : "\(detail); \(description)")
    }
}
