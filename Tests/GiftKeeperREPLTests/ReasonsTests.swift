import GiftKeeperCrypto
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import Testing

@testable import GiftKeeperREPL
@testable import GiftKeeperSealing

/// The reasons below the shell are data; the shell words them (Reasons.swift), and the
/// sentences that quote them read as they did when the reasons were strings.
@Suite struct ReasonsTests {
    @Test func journalDamageInWords() {
        #expect(JournalDamage.unexpectedSequence(found: 4, expected: 3).words == "sequence number 4, expected 3")
        #expect(JournalDamage.frameTooLong(2_147_483_648).words == "frame length 2147483648 exceeds the 1 MiB bound")
        #expect(JournalDamage.hiddenFrames(sequence: 5, offset: 900).words.hasPrefix("an intact frame (sequence number 5, byte offset 900)"))
        let error = JournalError(.corrupt(JournalProblem(sequence: 7, offset: 1234, damage: .frameHashMismatch)), path: "/x/j")
        #expect(
            error.sentence
                == "The journal '/x/j' fails verification at sequence number 7 (byte offset 1234): "
                + "frame hash does not match (payload altered, or chain broken). "
                + "It is damaged or was tampered with: restore it from a backup.")
    }

    @Test func tamperingInWords() {
        let cost = ServiceError(.tampered(sequence: 1, .unsafeKeyDerivation(opsLimit: 0, memLimit: 1024)))
        #expect(cost.sentence.hasPrefix("Frame 1 does not verify: key-derivation cost out of bounds (opslimit 0, memlimit 1024)"))
        #expect(Tampering.undecodableEvent(.truncated(offset: 3)).words == "event does not decode: event payload truncated at byte 3")
        #expect(Tampering.malformedKeyWrap(.unexpectedPreviousKeyCount(2)).words == "unexpected previous-key count 2")
        let newer = ServiceError(.unsupportedEvent(sequence: 9, .unknownEventType(200)))
        #expect(newer.sentence.contains("(unknown event type 200, newer than this version reads)"))
    }

    @Test func everyDecodingErrorHasWords() {
        let errors: [EventDecodingError] = [
            .unsupportedSchemaVersion(2), .unknownEventType(99), .truncated(offset: 3), .varintOverflow(offset: 2),
            .nonCanonicalVarint(offset: 2), .invalidUTF8(offset: 4), .invalidValue(.status, offset: 1), .trailingBytes(offset: 9),
        ]
        for error in errors { #expect(!error.words.isEmpty) }
    }

    @Test func importRejectionsInWords() {
        let format = ServiceError(.importRejected(location: "'format'", reason: .unknownFormat("x")))
        #expect(
            format.sentence
                == "Import rejected at 'format': 'x' is not \"giftkeeper.export.v2\" or \"giftkeeper.export.v1\". "
                + "Nothing was imported; fix the document and try again.")
        #expect(ImportRejection.notJSON(detail: "unexpected end of file").words == "it is not valid JSON: unexpected end of file")
        #expect(ImportRejection.duplicateID(PresentID(number: 3)!).words == "'p3' appears more than once")
        #expect(ImportRejection.notAList(of: "budgets").words == "it must be a list of budgets")
    }

    @Test func remoteFailuresInWords() {
        let error = JournalError(.unreachable(.partlyStored(stored: 1, sent: 3)), path: "postgres://a@h/db")
        #expect(error.sentence.contains("cannot be used: the server stored 1 of 3 frames."))
        #expect(RemoteFailure.refused(message: "permission denied", state: "42501").words == "the server said permission denied (SQLSTATE 42501)")
    }

    @Test("libsodium failures are worded without secrets")
    func cryptoErrorWords() {
        #expect(CryptoError(.authenticationFailed).words == "authentication failed")
        #expect(CryptoError(.invalidLength(what: "salt", expected: 16, actual: 3)).words == "salt must be 16 bytes, not 3")
        #expect(
            CryptoError(.unsafeKDFParameters(opsLimit: 0, memLimit: 1)).words
                == "key derivation cost out of bounds (opslimit 0, memlimit 1 bytes)")
        #expect(CryptoError(.operationFailed(function: "f")).words == "f failed")
    }
}
