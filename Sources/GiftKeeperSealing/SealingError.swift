public import GiftKeeperCrypto
public import GiftKeeperDomain
public import GiftKeeperJournal

/// A failure of the sealed layer, as data: the service passes each case on in a
/// ``ServiceError``-shaped error of its own, and the shell words it.
public enum SealingError: Error, Sendable {
    /// A frame that does not authenticate or does not belong: tampering or corruption.
    case tampered(sequence: UInt64, Tampering)
    /// An event written by a newer GiftKeeper: a schema version or event type this version
    /// does not read.
    case unsupportedEvent(sequence: UInt64, EventDecodingError)
    /// The store failed (missing, in use, corrupt, I/O, a conflict).
    case journal(JournalError)
    /// Guarded memory or a libsodium call failed.
    case crypto(CryptoError)
}

/// What does not authenticate or does not belong in a journal that decrypts: tampering or
/// damage found with the keys (the keyless checks are ``JournalDamage``).
public enum Tampering: Sendable, Equatable {
    /// An event frame comes before any key wrap.
    case eventBeforeKeyWrap
    /// The first frame is not a key wrap.
    case noLeadingKeyWrap
    /// The journal has no key wrap at all.
    case noKeyWrap
    /// A key wrap's derivation cost is beyond the sane bounds: refused before any work.
    case unsafeKeyDerivation(opsLimit: UInt64, memLimit: UInt64)
    /// A key wrap's clear part cannot be read.
    case malformedKeyWrap(KeyWrapFault)
    /// A key wrap where the keyring has none.
    case unexpectedKeyWrap
    /// A key wrap given to be opened as an event.
    case keyWrapOpenedAsEvent
    /// A key wrap's sealed keys do not open under the data key its successor names.
    case keyWrapDoesNotAuthenticate
    /// A key epoch whose previous data key no later wrap gave.
    case noPreviousDataKey
    /// The first key wrap names a previous data key.
    case firstKeyWrapNamesPreviousKey
    /// An event does not authenticate under its epoch's data key.
    case eventDoesNotAuthenticate
    /// An event authenticates but is not padded as its format version requires.
    case eventNotPadded
    /// A failed-login record does not open under the epoch's key pair.
    case failedLoginDoesNotOpen
    /// A failed-login record opens but was made for another place (moved or spliced).
    case failedLoginMoved
    /// A frame sealed to the public key holds another event than a failed login.
    case notAFailedLogin
    /// An event decrypts but does not decode.
    case undecodableEvent(EventDecodingError)
    /// The journal holds no account (no key wrap to audit).
    case noAccount
    /// A household's frame (format version 3) in a person's journal.
    case householdFrame
}

/// What is wrong with the clear part of a key wrap.
public enum KeyWrapFault: Sendable, Equatable {
    case unknownVersion
    case unknownAlgorithm
    case tooShort
    case unexpectedPreviousKeyCount(UInt8)
    case trailingBytes
}

extension SealingError {
    /// What a sealing step threw, as a sealing error: the failures of the layers below it
    /// (the store, libsodium) keep their own data.
    package init(_ error: any Error) {
        switch error {
        case let error as SealingError: self = error
        case let error as JournalError: self = .journal(error)
        case let error as CryptoError: self = .crypto(error)
        // Nothing else is thrown in a sealing step; should a new call throw something else,
        // its type is named (never its description, which could carry data).
        default: self = .crypto(CryptoError(.operationFailed(function: String(describing: type(of: error)))))
        }
    }
}
