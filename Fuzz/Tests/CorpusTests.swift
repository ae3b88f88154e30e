import Foundation
import Testing

/// Every file of `Fuzz/Corpus/<target>/` — the seeds and each input a fuzzer found —
/// through the check `make fuzz` runs under libFuzzer. A finding, once fixed, stays fixed.
/// Serialized: the file checks share one scratch directory.
@Suite(.serialized)
struct CorpusTests {
    static let corpus = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Corpus")

    static func inputs(of target: FuzzTarget) throws -> [URL] {
        try FileManager.default.contentsOfDirectory(
            at: corpus.appendingPathComponent(target.rawValue), includingPropertiesForKeys: nil
        ).sorted { $0.lastPathComponent < $1.lastPathComponent }
    }

    @Test(arguments: FuzzTarget.allCases)
    func corpusKeepsEveryInvariant(_ target: FuzzTarget) throws {
        let inputs = try Self.inputs(of: target)
        #expect(inputs.count >= 3, "\(target.rawValue) has a seed corpus")
        for input in inputs {
            let bytes = try [UInt8](Data(contentsOf: input))
            #expect(throws: Never.self, "\(target.rawValue)/\(input.lastPathComponent)") {
                try target.check(bytes)
            }
        }
    }

    /// The checks check: an input that breaks an invariant is caught, not waved through.
    @Test func aBrokenInvariantIsReported() {
        #expect(throws: InvariantFailure.self) { try require(false, "caught") }
        #expect(TokenizerCheck.posixWord("'it'\\''s'") == "it's")
        #expect(TokenizerCheck.posixWord("'a' 'b'") == nil)
        #expect(TokenizerCheck.posixWord("'open") == nil)
    }

    /// The household seeds reach past their readers' refusals, so the fuzzer starts from
    /// inputs each reader accepts (a seed every reader refused would check nothing).
    @Test func householdSeedsAreAccepted() throws {
        for input in try Self.inputs(of: .householdFrames) where input.lastPathComponent.hasPrefix("seed-") {
            let bytes = try [UInt8](Data(contentsOf: input))
            #expect(HouseholdFramesCheck.accepts(bytes), "\(input.lastPathComponent) is accepted by its reader")
        }
    }
}
