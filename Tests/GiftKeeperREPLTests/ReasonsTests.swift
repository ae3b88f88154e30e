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

    @Test("a household's refusals worded as themselves, with what to do, none offline")
    func householdRefusalsInWords() {
        func sentence(_ refusal: MembershipRefusal) -> String {
            JournalError(.unreachable(.household(refusal)), path: "https://gifts.home:443").sentence
        }
        #expect(
            sentence(.codeUsed)
                == "The journal server 'https://gifts.home:443' cannot be used: this invitation code was used already. "
                + "Ask an owner of the household for a new code ('household invite').")
        #expect(sentence(.codeExpired).contains("this invitation code has expired. Ask an owner of the household for a new code"))
        #expect(sentence(.unknownCode).contains("it knows no invitation with this code. Ask an owner"))
        #expect(sentence(.notOwner).contains("only an owner of the household may do that. Ask an owner of the household to do it"))
        #expect(sentence(.notMember).contains("this account is not a member of the household. Ask an owner of the household to invite you"))
        #expect(sentence(.lastOwner).contains("the household's last owner cannot be removed or leave. Make another member an owner first."))
        let all: [MembershipRefusal] = [.codeUsed, .codeExpired, .unknownCode, .notOwner, .notMember, .lastOwner]
        #expect(all.allSatisfy { !RemoteFailure.household($0).isOffline })
    }

    @Test("each sync failure worded as itself, with what to do; only a server away is offline")
    func remoteFailuresInWords() {
        func sentence(_ failure: RemoteFailure) -> String {
            JournalError(.unreachable(failure), path: "https://gifts.home:443").sentence
        }
        #expect(
            sentence(.databaseAddress)
                == "The journal server 'https://gifts.home:443' cannot be used: devices no longer connect to a PostgreSQL "
                + "database directly, only to the sync service in front of it. Run giftkeeper-server in front of the "
                + "database and give its address: --remote https://HOST (docs/sync.md).")
        #expect(
            sentence(.permissionDenied(message: "this device may not remove devices")).contains(
                "it does not allow this device that: this device may not remove devices. Ask whoever runs the service"))
        #expect(
            sentence(.notAuthenticated(message: "this device is not enrolled (or was removed)")).contains(
                "it did not accept this device: this device is not enrolled (or was removed). Enrol this device again"))
        #expect(
            sentence(.tls(cause: "the certificate is not for this host")).contains(
                "the secure connection failed (the certificate is not for this host). Check the service's certificate"))
        #expect(sentence(.plainHTTPAddress).contains("http:// is refused for a host other than this machine; use https://."))
        #expect(
            sentence(.couldNotConnect(cause: "connection refused")).contains(
                "it could not be reached (connection refused). Check the address and that the server is running."))
        #expect(sentence(.timedOut(seconds: 10)).contains("it did not answer within 10 s."))
        #expect(
            RemoteFailure.overQuota(message: "over the quota of 1200 frames a minute; try again in a minute").words
                == "the account is over the quota of 1200 frames a minute; try again in a minute")
        let offline: [RemoteFailure] = [.noConnection, .timedOut(seconds: 10), .couldNotConnect(cause: "connection refused")]
        let acted: [RemoteFailure] = [
            .invalidAddress, .databaseAddress, .plainHTTPAddress, .tls(cause: "x"), .notAuthenticated(message: "x"),
            .permissionDenied(message: "x"), .overQuota(message: "x"), .rejected(status: 400, message: "x"), .journalGone,
            .unexpectedAnswer,
        ]
        #expect(offline.allSatisfy(\.isOffline) && !acted.contains(where: \.isOffline))
        for failure in offline + acted {
            #expect(!failure.words.contains("RemoteFailure") && !failure.words.contains("Error"), "\(failure.words)")
        }
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
