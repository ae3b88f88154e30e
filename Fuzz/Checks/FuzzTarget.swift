/// The fuzz harnesses: each checks the invariants of one reader of untrusted bytes.
///
/// The same checks run twice: under libFuzzer (`make fuzz`, built by `scripts/fuzz.sh` with
/// `Fuzz/Entry`), and in `make test` over every file of `Fuzz/Corpus/<name>/` (the seeds
/// and every input a fuzzer ever found), so a finding stays fixed.
enum FuzzTarget: String, CaseIterable, Sendable {
    case eventCodec = "event-codec"
    case frameReader = "frame-reader"
    case importReader = "import-reader"
    case keyWrap = "key-wrap"
    case rememberedHead = "remembered-head"
    case tokenizer
    case passwordReader = "password-reader"
    case csvReader = "csv-reader"
    case icsWriter = "ics-writer"
    case wireMessages = "wire-messages"
    case householdFrames = "household-frames"
    case binaryFramePage = "binary-frame-page"

    func check(_ input: [UInt8]) throws(InvariantFailure) {
        switch self {
        case .eventCodec: try EventCodecCheck.check(input)
        case .frameReader: try FrameReaderCheck.check(input)
        case .importReader: try ImportReaderCheck.check(input)
        case .keyWrap: try KeyWrapCheck.check(input)
        case .rememberedHead: try RememberedHeadCheck.check(input)
        case .tokenizer: try TokenizerCheck.check(input)
        case .passwordReader: try PasswordReaderCheck.check(input)
        case .csvReader: try CSVReaderCheck.check(input)
        case .icsWriter: try CalendarWriterCheck.check(input)
        case .wireMessages: try WireMessagesCheck.check(input)
        case .householdFrames: try HouseholdFramesCheck.check(input)
        case .binaryFramePage: try BinaryFramePageCheck.check(input)
        }
    }
}

/// An invariant an input broke, in one line.
struct InvariantFailure: Error, CustomStringConvertible {
    let description: String
}

/// Throws `message` unless `condition` holds.
func require(_ condition: Bool, _ message: @autoclosure () -> String) throws(InvariantFailure) {
    if !condition { throw InvariantFailure(description: message()) }
}
