/// What may open this device's signing key for a sync service (SPEC §12: "kept encrypted
/// like every key"; docs/threat-model.md): the key epochs of a signed-in journal, whose data
/// keys the sign-in has already unwrapped, and — for a command that has no journal open
/// (`clone`, the household commands) or a journal this device's key was never sealed for —
/// the password itself. The device key file seals the key's seed under a subkey of a data
/// key (or of a key of its own, for a password without a journal), so opening it with a
/// signed-in journal costs no key derivation; with the password alone it costs one.
public final class DeviceKeyAccess: @unchecked Sendable {
    /// One key epoch of a signed-in journal: the journal's key wrap that opens its data key
    /// with the password (copied into the device key file, so that the password alone opens
    /// the key again without the journal), and the data key itself.
    public struct JournalEpoch {
        public let journalID: [UInt8]
        /// The sequence number of the key-wrap frame that starts the epoch.
        public let wrapSequence: UInt64
        public let parameters: KDFParameters
        public let salt: [UInt8]
        /// The data key sealed under the password's key, and that seal's additional data.
        public let wrappedKey: [UInt8]
        public let additionalData: [UInt8]
        public let dataKey: SecureBytes

        public init(
            journalID: [UInt8], wrapSequence: UInt64, parameters: KDFParameters, salt: [UInt8], wrappedKey: [UInt8],
            additionalData: [UInt8], dataKey: SecureBytes
        ) {
            self.journalID = journalID
            self.wrapSequence = wrapSequence
            self.parameters = parameters
            self.salt = salt
            self.wrappedKey = wrappedKey
            self.additionalData = additionalData
            self.dataKey = dataKey
        }
    }

    /// The signed-in journal's epochs, oldest first (empty without one).
    public let epochs: [JournalEpoch]
    /// The password, NFC-normalised, when the command has it at hand.
    public let password: SecureBytes?
    /// The cost of a wrap made for the password alone (no journal to ride on).
    public let parameters: KDFParameters
    /// Other secrets the key is to open with from now on, without a journal: a household
    /// member's recovery code when it is made, their new password after a recovery.
    public let sealingAlso: [SecureBytes]
    /// A secret whose seals of the key's own are dropped: a household member's old password
    /// after their `passwd` (it is to open nothing on this device any more).
    public let dropping: SecureBytes?
    /// Whether the key's seals of its own stay beside a journal's: a household member's
    /// epoch is their key wrap's password slot, which their recovery code's seal cannot ride on.
    public let keepsOwnSeals: Bool

    public init(
        epochs: [JournalEpoch], password: SecureBytes?, parameters: KDFParameters, sealingAlso: [SecureBytes] = [],
        dropping: SecureBytes? = nil, keepsOwnSeals: Bool = false
    ) {
        self.epochs = epochs
        self.password = password
        self.parameters = parameters
        self.sealingAlso = sealingAlso
        self.dropping = dropping
        self.keepsOwnSeals = keepsOwnSeals
    }

    /// The newest epoch of the signed-in journal: the one a new seal is made for.
    public var newest: JournalEpoch? { epochs.last }
}

/// The sealing of a device key's seed (32 bytes) under a key-encryption key: a subkey of it
/// (`crypto_kdf_derive_from_key`, context `GKDEVKEY`), so the data key it comes from never
/// seals anything but events and keys of its own journal directly.
public enum DeviceSeedSeal {
    public static func seal(_ seed: SecureBytes, under key: SecureBytes, additionalData: [UInt8]) throws -> [UInt8] {
        let subkey = try SubkeyDerivation.derive(from: key, id: 1, context: "GKDEVKEY")
        defer { subkey.wipe() }
        return try AEAD.seal(seed, key: subkey, additionalData: additionalData)
    }

    /// The seed; throws when `key` or `additionalData` is not the one it was sealed with.
    public static func open(_ sealed: [UInt8], under key: SecureBytes, additionalData: [UInt8]) throws -> SecureBytes {
        let subkey = try SubkeyDerivation.derive(from: key, id: 1, context: "GKDEVKEY")
        defer { subkey.wipe() }
        return try AEAD.openSecret(sealed, key: subkey, additionalData: additionalData)
    }
}
