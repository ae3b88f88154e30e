import GiftKeeperCrypto
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperService

// The reasons the targets below the shell give as data (what does not verify, what does
// not authenticate, why a server or an import document cannot be used), in a few words
// each: the clause a sentence in Messages.swift puts after its colon.

extension JournalDamage {
    /// What does not verify, in a few words ("frame hash does not match (…)").
    package var words: String {
        switch self {
        case .headerHashMismatch:
            return "file header does not verify (header hash does not match)"
        case .unexpectedSequence(let found, let expected):
            return "sequence number \(found), expected \(expected)"
        case .unknownFrameKind(let kind):
            return "unknown frame kind \(kind)"
        case .frameTooLong(let length):
            return "frame length \(length) exceeds the 1 MiB bound"
        case .frameHeaderMismatch:
            return "frame header does not verify (bit flip, or a frame spliced, reordered, duplicated or dropped)"
        case .frameHashMismatch:
            return "frame hash does not match (payload altered, or chain broken)"
        case .changedWhileOpen:
            return "the journal changed while it was open"
        case .hiddenFrames(let sequence, let offset):
            return "an intact frame (sequence number \(sequence), byte offset \(offset)) "
                + "follows an unfinished one: frames were hidden, not torn by a crash"
        case .tailTooLong(let length):
            return "\(length) bytes follow the last whole frame, more than an unfinished write leaves "
                + "(one frame, at most 1 MiB + 53 bytes): the file was extended or cut, not torn by a crash"
        case .frameDoesNotVerify:
            return "frame does not verify"
        case .noSuchPosition:
            return "no such position"
        case .misplacedFrame(let found, let expected):
            return "the server sent frame \(found) where \(expected) belongs"
        case .foreignHeader:
            return "the server sent another journal's header"
        case .framesWithheld(let head):
            return "the server holds frames up to \(head) but sent none from here on"
        }
    }
}

extension Tampering {
    /// What does not authenticate, in a few words.
    var words: String {
        switch self {
        case .eventBeforeKeyWrap: return "an event comes before any key wrap"
        case .noLeadingKeyWrap: return "the journal does not start with a key wrap"
        case .noKeyWrap: return "no key-wrap frame"
        case .unsafeKeyDerivation(let ops, let mem):
            return "key-derivation cost out of bounds (opslimit \(ops), memlimit \(mem)); refused before any work"
        case .malformedKeyWrap(.unknownVersion): return "unknown key-wrap version"
        case .malformedKeyWrap(.unknownAlgorithm): return "unknown key derivation algorithm"
        case .malformedKeyWrap(.tooShort): return "key-wrap frame too short"
        case .malformedKeyWrap(.unexpectedPreviousKeyCount(let count)): return "unexpected previous-key count \(count)"
        case .malformedKeyWrap(.trailingBytes): return "trailing bytes in key-wrap frame"
        case .unexpectedKeyWrap: return "unexpected key wrap"
        case .keyWrapOpenedAsEvent: return "a key wrap is not an event"
        case .keyWrapDoesNotAuthenticate: return "key wrap does not authenticate"
        case .noPreviousDataKey: return "no previous data key for this key epoch"
        case .firstKeyWrapNamesPreviousKey: return "first key wrap names a previous key"
        case .eventDoesNotAuthenticate: return "event does not authenticate under its data key"
        case .eventNotPadded: return "event authenticates but is not padded as its format version requires"
        case .failedLoginDoesNotOpen: return "failed-login record does not open"
        case .failedLoginMoved: return "failed-login record belongs elsewhere (moved or spliced)"
        case .notAFailedLogin: return "only failed logins may be sealed to the public key"
        case .undecodableEvent(let error): return "event does not decode: \(error.words)"
        case .noAccount: return "the journal holds no account"
        case .householdFrame: return "a household's frame in a person's journal"
        }
    }
}

extension EventDecodingError {
    /// What is wrong with an event's payload, in a few words.
    var words: String {
        switch self {
        case .unsupportedSchemaVersion(let version): return "event schema version \(version), newer than this version reads"
        case .unknownEventType(let tag): return "unknown event type \(tag), newer than this version reads"
        case .truncated(let offset): return "event payload truncated at byte \(offset)"
        case .varintOverflow(let offset): return "integer too large at byte \(offset)"
        case .nonCanonicalVarint(let offset): return "integer not minimally encoded at byte \(offset)"
        case .invalidUTF8(let offset): return "text at byte \(offset) is not valid UTF-8"
        case .invalidValue(let field, let offset): return "invalid \(field.rawValue) at byte \(offset)"
        case .trailingBytes(let offset): return "unexpected bytes after the event at byte \(offset)"
        }
    }
}

extension RemoteFailure {
    /// Why the server cannot be used, in a few words, with nothing of the journal in them.
    var words: String {
        switch self {
        case .noConnection:
            return "no connection"
        case .invalidAddress:
            return "not an https://HOST[:PORT] address"
        case .databaseAddress:
            return "devices no longer connect to a PostgreSQL database directly, only to the sync service in front of it"
        case .plainHTTPAddress:
            return "http:// is refused for a host other than this machine; use https://"
        case .timedOut(let seconds):
            return "it did not answer within \(seconds) s"
        case .tls(let cause):
            return "the secure connection failed (\(cause))"
        case .notAuthenticated(let message):
            return "it did not accept this device: \(message)"
        case .permissionDenied(let message):
            return "it does not allow this device that: \(message)"
        case .overQuota(let message):
            return "the account is \(message.hasPrefix("over ") ? message : "over its quota: " + message)"
        case .rejected(let status, let message):
            return "it refused the request: \(message) (HTTP \(status))"
        case .journalGone:
            return "the server no longer has this journal"
        case .unexpectedAnswer:
            return "the service sent an answer of an unexpected shape"
        case .couldNotConnect(let cause):
            return "it could not be reached (\(cause))"
        case .household(let refusal):
            return refusal.words
        case .deviceKey(.locked):
            return "this device's key for it is sealed under the journal's password, and this command did not sign in"
        case .deviceKey(.otherPassword):
            return "this password does not open this device's key for it"
        case .deviceKey(.damaged(let path)):
            return "this device's key file \(path) is damaged"
        }
    }

    /// What to do about it, as a sentence after the failure's (empty when the failure says it).
    var advice: String {
        switch self {
        case .noConnection, .timedOut, .couldNotConnect:
            return " Check the address and that the server is running."
        case .invalidAddress, .plainHTTPAddress:
            return " Check the address."
        case .databaseAddress:
            return " Run giftkeeper-server in front of the database and give its address: --remote https://HOST (docs/sync.md)."
        case .tls:
            return " Check the service's certificate, or trust its authority with $GIFTKEEPER_CA_FILE."
        case .notAuthenticated:
            return " Enrol this device again: 'giftkeeper device add' on a device of the account, then 'giftkeeper clone CODE'."
        case .permissionDenied:
            return " Ask whoever runs the service, or use a device of the account that may."
        case .overQuota:
            return " The changes are kept here; sync again later, or ask whoever runs the service for a larger quota."
        case .rejected, .journalGone, .unexpectedAnswer:
            return ""
        case .household(let refusal):
            return refusal.advice
        case .deviceKey(.locked):
            return " Sign in: give the password (--password-file, or at the prompt)."
        case .deviceKey(.otherPassword):
            return " Use the password of a journal this device syncs with that service (docs/sync.md)."
        case .deviceKey(.damaged):
            return " Move it aside and enrol this device again: 'giftkeeper device add' on a device of the account, then 'giftkeeper clone CODE'."
        }
    }

}

extension MembershipRefusal {
    /// Why the service refused, in a few words.
    var words: String {
        switch self {
        case .codeUsed: "this invitation code was used already"
        case .codeExpired: "this invitation code has expired"
        case .unknownCode: "it knows no invitation with this code"
        case .notOwner: "only an owner of the household may do that"
        case .notMember: "this account is not a member of the household"
        case .lastOwner: "the household's last owner cannot be removed or leave"
        }
    }

    /// What to do about it, as a sentence after the refusal's.
    var advice: String {
        switch self {
        case .codeUsed, .codeExpired, .unknownCode: " Ask an owner of the household for a new code ('household invite')."
        case .notOwner: " Ask an owner of the household to do it, or to make you an owner."
        case .notMember: " Ask an owner of the household to invite you again."
        case .lastOwner: " Make another member an owner first."
        }
    }
}

extension ImportRejection {
    /// What is wrong at one place of an import document, in a few words (a rule of the list
    /// is worded by its own sentence).
    var words: String {
        let formats = "\"\(ExportDocument.format)\" or \"\(ExportDocument.formatV1)\""
        switch self {
        case .notJSON(let detail): return "it is not valid JSON: \(detail)"
        case .unreadable(let detail?): return "it could not be read (\(detail))"
        case .unreadable(nil): return "it could not be read"
        case .notAnObject: return "it must be a JSON object"
        case .notAList(let items): return "it must be a list of \(items)"
        case .presentNotAnObject: return "each present must be an object"
        case .wrongShape(let detail): return detail
        case .formatMissing: return "it is missing; expected \(formats)"
        case .formatNotAString: return "it must be the string \(formats)"
        case .unknownFormat(let text): return "'\(text)' is not \(formats)"
        case .unknownField: return "unknown field"
        case .missing: return "it is missing"
        case .notAString: return "it must be a string"
        case .notAStringOrNull: return "it must be a string or null"
        case .invalidYear(let text): return "'\(text)' is not a year (a string such as \"2027\")"
        case .notABool: return "it must be true or false"
        case .notADate: return "it must be a date like \"2026-12-24\" or null"
        case .notATime(let text): return "'\(text)' is not an ISO-8601 UTC time like 2026-11-22T14:03:07.123Z"
        case .notAPresentID(let text): return "'\(text)' is not a present id like p12"
        case .notAPrice: return "it must be a decimal string like \"25.00\" or null"
        case .notAStatus(let text): return "'\(text)' is not one of idea, bought, wrapped, given"
        case .duplicateID(let id): return "'\(id)' appears more than once"
        case .rule(let rule): return rule.sentence
        case .notText: return "it is not UTF-8 text (save the spreadsheet as CSV, UTF-8)"
        case .unterminatedQuote: return "a quoted field begins here and is never closed"
        case .noHeader: return "it has no header row naming the columns (recipient, title, price, …)"
        case .missingColumn(let name): return "the header has no '\(name)' column"
        case .tooManyFields(let found, let header): return "\(found) fields, where the header names \(header)"
        }
    }
}

extension CryptoError {
    /// What failed in libsodium or guarded memory, as a clause.
    var words: String {
        switch code {
        case .initializationFailed:
            return "libsodium could not be initialised"
        case .outOfSecureMemory(let bytes):
            return "could not allocate \(bytes) bytes of guarded memory"
        case .authenticationFailed:
            return "authentication failed"
        case .invalidLength(let what, let expected, let actual):
            return "\(what) must be \(expected) bytes, not \(actual)"
        case .unsafeKDFParameters(let ops, let mem):
            return "key derivation cost out of bounds (opslimit \(ops), memlimit \(mem) bytes)"
        case .keyDerivationFailed:
            return "key derivation failed (not enough memory for the requested cost?)"
        case .operationFailed(let function):
            return "\(function) failed"
        }
    }
}
