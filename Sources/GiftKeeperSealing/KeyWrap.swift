package import GiftKeeperCrypto
import GiftKeeperJournal

/// The payload of a key-wrap frame (kind 3), format v1. The only part of the journal,
/// besides the header, that must be readable before unlocking.
///
/// ```
/// offset size
///   0     1  payload version = 1
///   1     1  KDF algorithm = 2 (Argon2id v1.3)
///   2     8  opslimit, u64 LE
///  10     8  memlimit in bytes, u64 LE
///  18    16  salt
///  34    32  X25519 public key of this key epoch (failed logins are sealed to it)
///  66    72  data key, sealed under the password key: nonce ‖ ciphertext ‖ tag;
///            AD = binding(wrappedDataKey) ‖ bytes 0..<66 (so the cost, salt and
///            public key cannot be altered without the unwrap failing)
/// 138    72  X25519 secret key, sealed under the data key; AD = binding(boxSecretKey)
/// 210     1  previous data keys: 0 (first wrap) or 1 (after a password change)
/// 211    72  (when 1) the previous data key, sealed under this data key;
///            AD = binding(previousDataKey)
/// ```
package struct KeyWrapPayload {
    package static let version: UInt8 = 1
    package static let clearLength = 66
    package static let sealedKeyLength = AEAD.nonceLength + 32 + AEAD.tagLength

    package let parameters: KDFParameters
    package let salt: [UInt8]
    package let publicKey: [UInt8]
    package let wrappedDataKey: [UInt8]
    package let sealedSecretKey: [UInt8]
    package let sealedPreviousDataKey: [UInt8]?
    /// Bytes 0..<66, bound into the wrapped data key's additional data.
    package let clearPart: [UInt8]

    package enum ParseFailure: Error, Equatable {
        case malformed(KeyWrapFault)
        case unsafeParameters(opsLimit: UInt64, memLimit: UInt64)
    }

    /// Parses and bounds a stored payload before any work is done with it.
    package init(parsing payload: [UInt8]) throws(ParseFailure) {
        var reader = ByteReader(payload)
        guard reader.readByte() == Self.version else { throw .malformed(.unknownVersion) }
        guard reader.readByte() == KDFParameters.argon2id13 else { throw .malformed(.unknownAlgorithm) }
        guard let ops = reader.readLittleEndian(UInt64.self), let mem = reader.readLittleEndian(UInt64.self) else {
            throw .malformed(.tooShort)
        }
        do {
            parameters = try KDFParameters(validatingOpsLimit: ops, memLimit: mem)
        } catch {
            throw .unsafeParameters(opsLimit: ops, memLimit: mem)
        }
        guard let salt = reader.read(PasswordKDF.saltLength),
            let publicKey = reader.read(BoxKeyPair.publicKeyLength)
        else { throw .malformed(.tooShort) }
        clearPart = reader.consumed(from: 0)
        guard let wrapped = reader.read(Self.sealedKeyLength),
            let sealedSecret = reader.read(Self.sealedKeyLength),
            let previousCount = reader.readByte()
        else { throw .malformed(.tooShort) }
        switch previousCount {
        case 0:
            sealedPreviousDataKey = nil
        case 1:
            guard let previous = reader.read(Self.sealedKeyLength) else { throw .malformed(.tooShort) }
            sealedPreviousDataKey = previous
        default:
            throw .malformed(.unexpectedPreviousKeyCount(previousCount))
        }
        guard reader.remaining == 0 else { throw .malformed(.trailingBytes) }
        self.salt = salt
        self.publicKey = publicKey
        self.wrappedDataKey = wrapped
        self.sealedSecretKey = sealedSecret
    }

    /// Builds a new wrap: the data key sealed under `passwordKey`, the box secret key and
    /// (after a password change) the previous data key sealed under `dataKey`.
    package static func make(
        parameters: KDFParameters, salt: [UInt8], passwordKey: SecureBytes, dataKey: SecureBytes,
        boxKeyPair: BoxKeyPair, previousDataKey: SecureBytes?, binding: FrameBinding
    ) throws -> [UInt8] {
        var payload: [UInt8] = [version, KDFParameters.argon2id13]
        payload.appendLittleEndian(parameters.opsLimit)
        payload.appendLittleEndian(parameters.memLimit)
        payload.append(contentsOf: salt)
        payload.append(contentsOf: boxKeyPair.publicKey)
        let clear = payload
        payload += try AEAD.seal(dataKey, key: passwordKey, additionalData: binding.bytes(for: .wrappedDataKey) + clear)
        payload += try AEAD.seal(boxKeyPair.secretKey, key: dataKey, additionalData: binding.bytes(for: .boxSecretKey))
        if let previousDataKey {
            payload.append(1)
            payload += try AEAD.seal(previousDataKey, key: dataKey, additionalData: binding.bytes(for: .previousDataKey))
        } else {
            payload.append(0)
        }
        return payload
    }
}

/// A key-wrap frame as found in the journal: where it stands and what it says.
package struct KeyWrapRecord {
    package let binding: FrameBinding
    package let payload: KeyWrapPayload
}

/// The data keys of every epoch of an unlocked journal, in guarded memory.
///
/// Epoch *i* starts at the *i*-th key-wrap frame; the events after it are sealed under its
/// data key and failed logins to its public key. A password change starts a new epoch whose
/// wrap also carries the previous data key, so the newest password opens all history and
/// an old one only what was written before the change.
package final class Keyring {
    package struct Epoch {
        package let wrapSequence: UInt64
        package let dataKey: SecureBytes
        package let boxKeyPair: BoxKeyPair

        package init(wrapSequence: UInt64, dataKey: SecureBytes, boxKeyPair: BoxKeyPair) {
            self.wrapSequence = wrapSequence
            self.dataKey = dataKey
            self.boxKeyPair = boxKeyPair
        }
    }

    package private(set) var epochs: [Epoch]

    package init(epochs: [Epoch]) {
        self.epochs = epochs
    }

    package enum UnlockFailure: Error {
        /// The password does not open the newest wrap.
        case wrongPassword
        /// A wrap opened but its other sealed keys did not: the journal was altered.
        case damagedWrap(sequence: UInt64, Tampering)
    }

    /// Unlocks with `password` against the newest wrap, then walks back through the chain
    /// of previous data keys. The password key is wiped before returning.
    package static func unlock(password: SecureBytes, wraps: [KeyWrapRecord]) throws -> Keyring {
        guard let newest = wraps.last else { throw UnlockFailure.damagedWrap(sequence: 0, .noKeyWrap) }
        let passwordKey = try PasswordKDF.deriveKey(
            password: password, salt: newest.payload.salt, parameters: newest.payload.parameters)
        defer { passwordKey.wipe() }
        let dataKey: SecureBytes
        do {
            dataKey = try AEAD.openSecret(
                newest.payload.wrappedDataKey, key: passwordKey,
                additionalData: newest.binding.bytes(for: .wrappedDataKey) + newest.payload.clearPart)
        } catch {
            throw UnlockFailure.wrongPassword
        }
        return try fromNewestDataKey(dataKey, wraps: wraps)
    }

    /// Checks whether `password` opens the newest wrap and yields the same data key.
    package static func passwordMatches(_ password: SecureBytes, newest: KeyWrapRecord, dataKey: SecureBytes) throws -> Bool {
        let passwordKey = try PasswordKDF.deriveKey(
            password: password, salt: newest.payload.salt, parameters: newest.payload.parameters)
        defer { passwordKey.wipe() }
        guard
            let candidate = try? AEAD.openSecret(
                newest.payload.wrappedDataKey, key: passwordKey,
                additionalData: newest.binding.bytes(for: .wrappedDataKey) + newest.payload.clearPart)
        else { return false }
        defer { candidate.wipe() }
        return candidate.constantTimeEquals(dataKey)
    }

    private static func fromNewestDataKey(_ newestKey: SecureBytes, wraps: [KeyWrapRecord]) throws -> Keyring {
        var reversed: [Epoch] = []
        var dataKey: SecureBytes? = newestKey
        for wrap in wraps.reversed() {
            guard let key = dataKey else {
                throw UnlockFailure.damagedWrap(sequence: wrap.binding.sequence, .noPreviousDataKey)
            }
            let secret: SecureBytes
            do {
                secret = try AEAD.openSecret(
                    wrap.payload.sealedSecretKey, key: key, additionalData: wrap.binding.bytes(for: .boxSecretKey))
            } catch {
                throw UnlockFailure.damagedWrap(sequence: wrap.binding.sequence, .keyWrapDoesNotAuthenticate)
            }
            let pair = try BoxKeyPair(publicKey: wrap.payload.publicKey, secretKey: secret)
            reversed.append(Epoch(wrapSequence: wrap.binding.sequence, dataKey: key, boxKeyPair: pair))
            if let sealedPrevious = wrap.payload.sealedPreviousDataKey {
                do {
                    dataKey = try AEAD.openSecret(
                        sealedPrevious, key: key, additionalData: wrap.binding.bytes(for: .previousDataKey))
                } catch {
                    throw UnlockFailure.damagedWrap(sequence: wrap.binding.sequence, .keyWrapDoesNotAuthenticate)
                }
            } else {
                dataKey = nil
            }
        }
        if dataKey != nil, let first = wraps.first {
            throw UnlockFailure.damagedWrap(sequence: first.binding.sequence, .firstKeyWrapNamesPreviousKey)
        }
        return Keyring(epochs: reversed.reversed())
    }

    package var newest: Epoch? { epochs.last }

    /// Adds the epoch a password change just started.
    package func append(_ epoch: Epoch) {
        epochs.append(epoch)
    }

    /// Zeroes every key. The keyring is unusable afterwards.
    package func wipe() {
        for epoch in epochs {
            epoch.dataKey.wipe()
            epoch.boxKeyPair.secretKey.wipe()
        }
        epochs.removeAll()
    }

    deinit {
        wipe()
    }
}
