package import GiftKeeperCrypto
import GiftKeeperJournal

/// A member's own keys, as their key wrap gives them back: their identity and their
/// *only me* key, and the identities `passwd` renewed before (docs/threat-model.md,
/// "`passwd` in a household"). They exist only on that member's devices.
package struct MemberSecrets: Sendable {
    package let identity: MemberIdentity
    /// The key of what this member writes for themselves alone (renewed by `passwd`).
    package let onlyMe: AudienceKey
    /// This member's earlier identities, newest first: what was granted to them before
    /// their last `passwd` opens with these.
    package let earlier: [MemberSecrets]

    package init(identity: MemberIdentity, onlyMe: AudienceKey, earlier: [MemberSecrets] = []) {
        self.identity = identity
        self.onlyMe = onlyMe
        self.earlier = earlier
    }

    /// A new identity and *only me* key for this member (`passwd`), this one and the
    /// earlier ones kept as its earlier identities.
    package func renewed() throws -> MemberSecrets {
        let fresh = try Self.generate()
        let current = MemberSecrets(identity: identity, onlyMe: onlyMe)
        return MemberSecrets(identity: fresh.identity, onlyMe: fresh.onlyMe, earlier: [current] + earlier)
    }

    /// This identity, then the earlier ones, newest first.
    package var chain: [MemberSecrets] { [MemberSecrets(identity: identity, onlyMe: onlyMe)] + earlier }

    /// A new member's keys: a new identity and a new *only me* key.
    package static func generate() throws -> MemberSecrets {
        let identity = try MemberIdentity.generate()
        return MemberSecrets(identity: identity, onlyMe: try AudienceKey.generate(for: .only(identity.id)))
    }

    package var id: MemberID { identity.id }
}

/// Why a member's key wrap was refused or did not open.
public enum MemberWrapFault: Error, Hashable, Sendable {
    /// Not a member's key wrap: another length, version or algorithm.
    case malformed
    /// Its derivation cost is beyond the sane bounds: refused before any work.
    case unsafeKeyDerivation(opsLimit: UInt64, memLimit: UInt64)
    /// Not signed by the member whose keys it names (a frame the server or another made).
    case notSignedByItsMember
    /// The password (or recovery code) does not open it.
    case wrongPassword
    /// It opened, but the keys inside are not the ones it names: altered by someone who
    /// held the member key.
    case damaged
}

/// A household member's key wrap (kind 4, format version 3; docs/journal-format.md): their
/// identity's secret halves and their *only me* key, sealed under a random member key that
/// their password wraps (Argon2id, as a person's wrap, SPEC §4) and their recovery code wraps
/// a second time. The member signs it, so a wrap someone else made is told before any
/// Argon2id work. Payload version 1 (below) holds one identity; version 2, made by `passwd`,
/// adds after byte 114 the number of earlier identities n (1 to 16, so the clear part is
/// 115 bytes) and after the current secrets, under the same member key, each earlier one
/// (signing seed ‖ X25519 secret key ‖ X25519 public key ‖ only-me key, 128 bytes), newest first.
///
/// ```
/// offset size
///   0     1  payload version = 1
///   1     1  KDF algorithm = 2 (Argon2id v1.3)
///   2     8  opslimit, u64 LE
///  10     8  memlimit in bytes, u64 LE
///  18    16  password salt
///  34    16  recovery-code salt
///  50    32  Ed25519 public key
///  82    32  X25519 public key
/// 114    72  member key under the password's key; AD = binding(memberKeyByPassword) ‖ bytes 0..<114
/// 186    72  member key under the recovery code's key; AD = binding(memberKeyByRecovery) ‖ bytes 0..<114
/// 258   136  signing seed ‖ X25519 secret key ‖ only-me key, under the member key;
///            AD = binding(memberSecrets) ‖ bytes 0..<114
/// 394    64  Ed25519 signature over binding(memberWrapSignature) ‖ bytes 0..<394
/// ```
package struct MemberWrapPayload: Sendable {
    package static let version: UInt8 = 1
    /// The version of a wrap that holds earlier identities.
    package static let renewedVersion: UInt8 = 2
    static let clearLength = 114
    static let sealedKeyLength = AEAD.nonceLength + 32 + AEAD.tagLength
    static let secretsLength = 96
    static let earlierLength = 128
    static let maximumEarlier = 16
    /// The length of a version 1 wrap.
    package static let length = length(earlier: 0)

    /// The length of a wrap holding `earlier` earlier identities (version 2 when more than none).
    package static func length(earlier: Int) -> Int {
        clearLength + (earlier > 0 ? 1 : 0) + 2 * sealedKeyLength + AEAD.nonceLength + secretsLength + earlier * earlierLength
            + AEAD.tagLength + SigningKeyPair.signatureLength
    }

    /// How many earlier identities it holds.
    package let earlierCount: Int

    package let parameters: KDFParameters
    package let keys: MemberKeys
    let salt: [UInt8]
    let recoverySalt: [UInt8]
    let byPassword: [UInt8]
    let byRecovery: [UInt8]
    let secrets: [UInt8]
    /// Bytes 0..<114, bound into every sealed part's additional data.
    let clearPart: [UInt8]

    /// Parses a stored payload and checks its signature (no key needed).
    package init(parsing payload: [UInt8], binding: FrameBinding) throws(MemberWrapFault) {
        var reader = ByteReader(payload)
        // The number of earlier identities is at byte 114 of a version 2 wrap (none in version 1).
        let earlier = payload.first == Self.renewedVersion && payload.count > Self.clearLength ? Int(payload[Self.clearLength]) : 0
        guard earlier <= Self.maximumEarlier, payload.count == Self.length(earlier: earlier),
            reader.readByte() == (earlier > 0 ? Self.renewedVersion : Self.version), reader.readByte() == KDFParameters.argon2id13,
            let ops = reader.readLittleEndian(UInt64.self), let mem = reader.readLittleEndian(UInt64.self)
        else { throw .malformed }
        guard let parameters = try? KDFParameters(validatingOpsLimit: ops, memLimit: mem) else {
            throw .unsafeKeyDerivation(opsLimit: ops, memLimit: mem)
        }
        guard let salt = reader.read(PasswordKDF.saltLength), let recoverySalt = reader.read(PasswordKDF.saltLength),
            let signing = reader.read(SigningKeyPair.publicKeyLength), let sealing = reader.read(BoxKeyPair.publicKeyLength),
            let keys = MemberKeys(signing: signing, sealing: sealing)
        else { throw .malformed }
        if earlier > 0 { _ = reader.readByte() }
        let clearPart = reader.consumed(from: 0)
        let sealedSecretsLength = AEAD.nonceLength + Self.secretsLength + earlier * Self.earlierLength + AEAD.tagLength
        guard let byPassword = reader.read(Self.sealedKeyLength), let byRecovery = reader.read(Self.sealedKeyLength),
            let secrets = reader.read(sealedSecretsLength)
        else { throw .malformed }
        let signed = reader.consumed(from: 0)
        guard let signature = reader.read(SigningKeyPair.signatureLength),
            SigningKeyPair.verify(signature: signature, of: binding.bytes(for: .memberWrapSignature) + signed, publicKey: signing)
        else { throw .notSignedByItsMember }
        self.parameters = parameters
        self.earlierCount = earlier
        self.keys = keys
        self.salt = salt
        self.recoverySalt = recoverySalt
        self.byPassword = byPassword
        self.byRecovery = byRecovery
        self.secrets = secrets
        self.clearPart = clearPart
    }

    /// A new wrap of `secrets` at `binding`: a fresh member key wrapped under `password` and
    /// under `recoveryCode`, each through Argon2id with `parameters` and a salt of its own.
    package static func make(
        _ secrets: MemberSecrets, password: SecureBytes, recoveryCode: SecureBytes, parameters: KDFParameters,
        binding: FrameBinding
    ) throws -> [UInt8] {
        let salt = try PasswordKDF.generateSalt()
        let recoverySalt = try PasswordKDF.generateSalt()
        let earlier = secrets.earlier
        precondition(earlier.count <= maximumEarlier, "a member renews their keys at most 16 times")
        var payload: [UInt8] = [earlier.isEmpty ? version : renewedVersion, KDFParameters.argon2id13]
        payload.appendLittleEndian(parameters.opsLimit)
        payload.appendLittleEndian(parameters.memLimit)
        payload += salt + recoverySalt + secrets.identity.keys.signing + secrets.identity.keys.sealing
        if !earlier.isEmpty { payload.append(UInt8(earlier.count)) }
        let clear = payload
        let memberKey = try AEAD.generateKey()
        defer { memberKey.wipe() }
        let wraps: [(FrameBinding.Purpose, SecureBytes, [UInt8])] = [
            (.memberKeyByPassword, password, salt), (.memberKeyByRecovery, recoveryCode, recoverySalt),
        ]
        for (purpose, secret, salt) in wraps {
            let key = try PasswordKDF.deriveKey(password: secret, salt: salt, parameters: parameters)
            defer { key.wipe() }
            payload += try AEAD.seal(memberKey, key: key, additionalData: binding.bytes(for: purpose) + clear)
        }
        let plaintext = try SecureBytes(capacity: secretsLength + earlier.count * earlierLength)
        defer { plaintext.wipe() }
        var parts = [secrets.identity.signing.seed, secrets.identity.sealing.secretKey, secrets.onlyMe.key]
        for identity in earlier {
            let sealing = try SecureBytes(capacity: 32)
            sealing.withUnsafeMutableBytes { out in identity.identity.sealing.publicKey.withUnsafeBytes { out.copyMemory(from: $0) } }
            parts += [identity.identity.signing.seed, identity.identity.sealing.secretKey, sealing, identity.onlyMe.key]
        }
        plaintext.withUnsafeMutableBytes { out in
            for (index, part) in parts.enumerated() {
                part.withUnsafeBytes { UnsafeMutableRawBufferPointer(rebasing: out[(32 * index)..<(32 * index + 32)]).copyMemory(from: $0) }
            }
        }
        payload += try AEAD.seal(plaintext, key: memberKey, additionalData: binding.bytes(for: .memberSecrets) + clear)
        return payload + (try secrets.identity.signing.sign(binding.bytes(for: .memberWrapSignature) + payload))
    }

    /// The member's keys, opened with their password.
    /// - Throws: ``MemberWrapFault/wrongPassword`` or ``MemberWrapFault/damaged``; a
    ///   `CryptoError` when guarded memory or libsodium fails.
    package func open(password: SecureBytes, binding: FrameBinding) throws -> MemberSecrets {
        try open(with: password, salt: salt, sealed: byPassword, purpose: .memberKeyByPassword, binding: binding)
    }

    /// The member's keys, opened with their recovery code (16 random bytes, shown once).
    package func open(recoveryCode: SecureBytes, binding: FrameBinding) throws -> MemberSecrets {
        try open(with: recoveryCode, salt: recoverySalt, sealed: byRecovery, purpose: .memberKeyByRecovery, binding: binding)
    }

    /// The member's keys and their member key, opened with their password or recovery code
    /// (one key derivation): what a device's key for the service is sealed under too
    /// (``DeviceKeyAccess/JournalEpoch``, with this wrap's password slot), so a sign-in
    /// derives one key for both. The caller wipes the member key.
    package func unlock(password: SecureBytes?, recoveryCode: SecureBytes?, binding: FrameBinding) throws -> (
        secrets: MemberSecrets, memberKey: SecureBytes
    ) {
        let memberKey: SecureBytes
        if let recoveryCode {
            memberKey = try self.memberKey(
                with: recoveryCode, salt: recoverySalt, sealed: byRecovery, purpose: .memberKeyByRecovery, binding: binding)
        } else {
            let password = try password ?? SecureBytes(capacity: 0)
            memberKey = try self.memberKey(with: password, salt: salt, sealed: byPassword, purpose: .memberKeyByPassword, binding: binding)
        }
        return (try open(memberKey: memberKey, binding: binding), memberKey)
    }

    /// This wrap's password slot, for a device key sealed under `memberKey` (its member key):
    /// the password alone opens that seal too, through the slot.
    package func deviceKeyEpoch(memberKey: SecureBytes, binding: FrameBinding) -> DeviceKeyAccess.JournalEpoch {
        DeviceKeyAccess.JournalEpoch(
            journalID: binding.journalID, wrapSequence: binding.sequence, parameters: parameters, salt: salt, wrappedKey: byPassword,
            additionalData: binding.bytes(for: .memberKeyByPassword) + clearPart, dataKey: memberKey)
    }

    private func memberKey(with secret: SecureBytes, salt: [UInt8], sealed: [UInt8], purpose: FrameBinding.Purpose, binding: FrameBinding)
        throws -> SecureBytes
    {
        let key = try PasswordKDF.deriveKey(password: secret, salt: salt, parameters: parameters)
        defer { key.wipe() }
        guard let memberKey = try? AEAD.openSecret(sealed, key: key, additionalData: binding.bytes(for: purpose) + clearPart) else {
            throw MemberWrapFault.wrongPassword
        }
        return memberKey
    }

    private func open(with secret: SecureBytes, salt: [UInt8], sealed: [UInt8], purpose: FrameBinding.Purpose, binding: FrameBinding)
        throws -> MemberSecrets
    {
        let memberKey = try memberKey(with: secret, salt: salt, sealed: sealed, purpose: purpose, binding: binding)
        defer { memberKey.wipe() }
        return try open(memberKey: memberKey, binding: binding)
    }

    private func open(memberKey: SecureBytes, binding: FrameBinding) throws -> MemberSecrets {
        guard
            let plaintext = try? AEAD.openSecret(secrets, key: memberKey, additionalData: binding.bytes(for: .memberSecrets) + clearPart),
            plaintext.count == Self.secretsLength + earlierCount * Self.earlierLength
        else { throw MemberWrapFault.damaged }
        defer { plaintext.wipe() }
        let parts = try (0..<(3 + 4 * earlierCount)).map { index in
            let part = try SecureBytes(capacity: 32)
            part.withUnsafeMutableBytes { out in
                plaintext.withUnsafeBytes { out.copyMemory(from: UnsafeRawBufferPointer(rebasing: $0[(32 * index)..<(32 * index + 32)])) }
            }
            return part
        }
        let signing = try SigningKeyPair(seed: parts[0])
        guard signing.publicKey == keys.signing else { throw MemberWrapFault.damaged }
        let identity = MemberIdentity(signing: signing, sealing: try BoxKeyPair(publicKey: keys.sealing, secretKey: parts[1]))
        let earlier = try stride(from: 3, to: parts.count, by: 4).map { index in
            let sealing = parts[index + 2].withUnsafeBytes { Array($0) }
            let previous = MemberIdentity(
                signing: try SigningKeyPair(seed: parts[index]), sealing: try BoxKeyPair(publicKey: sealing, secretKey: parts[index + 1]))
            return MemberSecrets(identity: previous, onlyMe: AudienceKey(audience: .only(previous.id), key: parts[index + 3]))
        }
        return MemberSecrets(identity: identity, onlyMe: AudienceKey(audience: .only(identity.id), key: parts[2]), earlier: earlier)
    }
}

extension FrameBinding {
    /// Where a joiner's wrap waits on their device before their admission (a service serves
    /// the journal to members only): position 0 of the household's journal, where no frame
    /// ever stands, so it can never pass for one of the journal's frames.
    package static func pendingMemberWrap(journalID: [UInt8]) -> FrameBinding {
        FrameBinding(
            formatVersion: JournalFormat.householdVersion, journalID: journalID, sequence: 0, kind: .memberWrap,
            previousHash: [UInt8](repeating: 0, count: 32))
    }
}
