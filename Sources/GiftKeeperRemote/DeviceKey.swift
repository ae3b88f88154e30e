import GiftKeeperCrypto
import GiftKeeperFiles
import GiftKeeperJournal
import GiftKeeperWire
import Glibc

/// This device's signing key for one sync service (SPEC §12): made when the device first
/// signs up or enrols there, kept in the state directory (`devices/<service>.key`, mode
/// 0600 in a 0700 directory), and used to sign the service's challenges. The service
/// keeps only the public key. The seed is never on disk in clear (docs/threat-model.md):
/// the file holds it sealed (XChaCha20-Poly1305 under a subkey, ``DeviceSeedSeal``), once
/// per key epoch of a journal that uses the service on this device — under that epoch's
/// data key, beside a copy of the journal's key wrap that opens the data key with the
/// password — or, on a device with no journal, under a key of its own wrapped with the
/// password (and the recovery code of a household member, whose wraps' member keys seal it
/// too, beside their password slots: `UnlockedWrap`).
///
/// ```
/// GKDEVICEKEY2
/// <journal id hex, or - for a seal of its own> <wrap sequence> <opslimit> <memlimit>
///     <salt hex> <wrapped key hex> <its additional data hex> <sealed seed hex>     (one line each)
/// ```
enum DeviceKey {
    static let magic = "GKDEVICEKEY2"
    /// The format before the seed was sealed: the seed in hex. Read once more, then sealed.
    static let clearMagic = "GKDEVICEKEY1"

    /// One seal of the seed.
    struct Seal: Equatable {
        /// The journal whose key epoch it rides on; nil for a seal with a key of its own.
        var journalID: [UInt8]?
        var wrapSequence: UInt64
        var parameters: KDFParameters
        var salt: [UInt8]
        /// The key the seed is sealed under, sealed under the password's key; and that
        /// seal's additional data (the journal's own, or ``ownAdditionalData(address:salt:parameters:)``).
        var wrappedKey: [UInt8]
        var additionalData: [UInt8]
        var sealedSeed: [UInt8]
    }

    /// What the key file holds.
    enum Stored {
        case none
        case clear(SigningKeyPair)
        case sealed([Seal])
    }

    /// The key file for the service at `address` in `stateDirectory`; `named`: a second key
    /// for the same service, of one household record's (``ServiceConnection/useKey(named:)``).
    static func path(stateDirectory: String, address: ServiceAddress, named: String? = nil) -> String {
        let name = Wire.hex(Blake2b.hash(Array(address.description.utf8)).prefix(12))
        return stateDirectory + "/devices/" + name + (named.map { "-" + $0 } ?? "") + ".key"
    }

    /// What the file at `path` holds.
    /// - Throws: ``JournalError/Code/insecurePermissions(mode:)`` for a file others may read
    ///   or write (as `~/.ssh` keys and `~/.pgpass` are refused); `.deviceKey(.damaged)`.
    static func read(_ path: String) throws(JournalError) -> Stored {
        var info = stat()
        if lstat(path, &info) == 0, info.st_mode & 0o077 != 0 {
            throw JournalError(.insecurePermissions(mode: UInt32(info.st_mode & 0o7777)), path: path)
        }
        guard let bytes = PrivateFiles.readSmallFile(path, limit: 1 << 16) else { return .none }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        let damaged = JournalError(.unreachable(.deviceKey(.damaged(path: path))), path: path)
        if lines.first == Substring(clearMagic) {
            guard lines.count >= 2, let seed = Wire.unhex(lines[1]), seed.count == SigningKeyPair.seedLength else { throw damaged }
            do {
                let secure = try SecureBytes(capacity: seed.count)
                seed.withUnsafeBytes { source in secure.withUnsafeMutableBytes { $0.copyMemory(from: source) } }
                return .clear(try SigningKeyPair(seed: secure))
            } catch {
                throw JournalError(.io(operation: "make the device key from", errno: EIO), path: path)
            }
        }
        guard lines.first == Substring(magic), lines.count >= 2 else { throw damaged }
        var seals: [Seal] = []
        for line in lines.dropFirst() {
            guard let seal = parse(line) else { throw damaged }
            seals.append(seal)
        }
        return .sealed(seals)
    }

    private static func parse(_ line: Substring) -> Seal? {
        let fields = line.split(separator: " ")
        guard fields.count == 8, let sequence = UInt64(fields[1]), let ops = UInt64(fields[2]), let mem = UInt64(fields[3]),
            let parameters = try? KDFParameters(validatingOpsLimit: ops, memLimit: mem),
            let salt = Wire.unhex(fields[4]), salt.count == PasswordKDF.saltLength,
            let wrapped = Wire.unhex(fields[5]), let additional = Wire.unhex(fields[6]), let sealed = Wire.unhex(fields[7])
        else { return nil }
        let journalID = fields[0] == "-" ? nil : Wire.unhex(fields[0])
        guard fields[0] == "-" || journalID != nil else { return nil }
        return Seal(
            journalID: journalID, wrapSequence: sequence, parameters: parameters, salt: salt, wrappedKey: wrapped,
            additionalData: additional, sealedSeed: sealed)
    }

    /// Keeps `seals` at `path` (atomically, mode 0600 in a 0700 directory).
    static func write(_ seals: [Seal], to path: String) throws(JournalError) {
        var text = magic + "\n"
        for seal in seals {
            let fields = [
                seal.journalID.map { Wire.hex($0) } ?? "-", String(seal.wrapSequence), String(seal.parameters.opsLimit),
                String(seal.parameters.memLimit), Wire.hex(seal.salt), Wire.hex(seal.wrappedKey), Wire.hex(seal.additionalData),
                Wire.hex(seal.sealedSeed),
            ]
            text += fields.joined(separator: " ") + "\n"
        }
        do throws(SystemCallError) {
            try PrivateFiles.makeDirectories(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]))
            try PrivateFiles.replace(path, with: Array(text.utf8))
        } catch {
            throw JournalError(.io(operation: error.operation, errno: error.errno), path: path)
        }
    }

    // MARK: Opening and sealing

    /// The additional data of the seed's seal: the file's purpose, the service's address and
    /// what the seal rides on, so a seal cannot pass for another service's or another epoch's.
    static func seedAdditionalData(address: ServiceAddress, seal: Seal) -> [UInt8] {
        var bytes = Array((magic + " seed " + address.description + "\n").utf8)
        bytes += seal.journalID ?? []
        bytes.appendLittleEndianWord(seal.wrapSequence)
        return bytes + seal.salt
    }

    /// The additional data of a seal of its own's wrapped key (its cost bound in, so a
    /// doctored file cannot lower it).
    static func ownAdditionalData(address: ServiceAddress, salt: [UInt8], parameters: KDFParameters) -> [UInt8] {
        var bytes = Array((magic + " own " + address.description + "\n").utf8) + salt
        bytes.appendLittleEndianWord(parameters.opsLimit)
        bytes.appendLittleEndianWord(parameters.memLimit)
        return bytes
    }

    /// The key `seals` hold, opened with `access`: by a journal epoch's data key when the
    /// signed-in journal has a seal (no key derivation), else with the password (one
    /// derivation per distinct salt tried). The seed lives only in guarded memory.
    /// - Throws: `.deviceKey(.locked)` without a password to try, `.deviceKey(.otherPassword)`
    ///   when the password opens none of them, `.deviceKey(.damaged)` for a seal that does not open
    ///   with the right key.
    static func open(_ seals: [Seal], address: ServiceAddress, access: DeviceKeyAccess?, path: String)
        throws(JournalError) -> SigningKeyPair
    {
        let damaged = JournalError(.unreachable(.deviceKey(.damaged(path: path))), path: path)
        for seal in seals {
            guard
                let epoch = access?.epochs.first(where: { $0.journalID == seal.journalID && $0.wrapSequence == seal.wrapSequence })
            else { continue }
            guard let key = try? pair(seal, key: epoch.dataKey, address: address) else { throw damaged }
            return key
        }
        guard let password = access?.password else {
            throw JournalError(.unreachable(.deviceKey(.locked)), path: address.description)
        }
        for seal in seals {
            guard let passwordKey = try? PasswordKDF.deriveKey(password: password, salt: seal.salt, parameters: seal.parameters)
            else { continue }
            defer { passwordKey.wipe() }
            guard let sealKey = try? AEAD.openSecret(seal.wrappedKey, key: passwordKey, additionalData: seal.additionalData)
            else { continue }
            defer { sealKey.wipe() }
            guard let key = try? pair(seal, key: sealKey, address: address) else { throw damaged }
            return key
        }
        throw JournalError(.unreachable(.deviceKey(.otherPassword)), path: address.description)
    }

    private static func pair(_ seal: Seal, key: SecureBytes, address: ServiceAddress) throws -> SigningKeyPair {
        let seed = try DeviceSeedSeal.open(seal.sealedSeed, under: key, additionalData: seedAdditionalData(address: address, seal: seal))
        return try SigningKeyPair(seed: seed)
    }

    /// The seals the file should hold for `key` given `access`: one for the signed-in
    /// journal's newest epoch (older epochs of that journal dropped: a changed password no
    /// longer opens the key; a seal of its own dropped too, as the journal's opens with
    /// the password as well, unless ``DeviceKeyAccess/keepsOwnSeals``); without a journal, one of its own under the password when
    /// there is no seal yet, and one more for each of ``DeviceKeyAccess/sealingAlso``, less
    /// the seals ``DeviceKeyAccess/dropping`` opens. Nil when `seals` are already
    /// those, or nothing can seal.
    static func resealed(_ seals: [Seal], key: SigningKeyPair, address: ServiceAddress, access: DeviceKeyAccess?)
        throws -> [Seal]?
    {
        if let newest = access?.newest {
            if seals.contains(where: { $0.journalID == newest.journalID && $0.wrapSequence == newest.wrapSequence }) {
                return nil
            }
            var seal = Seal(
                journalID: newest.journalID, wrapSequence: newest.wrapSequence, parameters: newest.parameters,
                salt: newest.salt, wrappedKey: newest.wrappedKey, additionalData: newest.additionalData, sealedSeed: [])
            seal.sealedSeed = try DeviceSeedSeal.seal(
                key.seed, under: newest.dataKey, additionalData: seedAdditionalData(address: address, seal: seal))
            return seals.filter { ($0.journalID != nil || access?.keepsOwnSeals == true) && $0.journalID != newest.journalID } + [seal]
        }
        guard let access else { return nil }
        var secrets = access.sealingAlso
        if seals.isEmpty, let password = access.password { secrets.insert(password, at: 0) }
        // A household member's seals on their wraps' password slots open with the password too.
        let kept = access.dropping.map { dropped in seals.filter { !opens($0, with: dropped) } } ?? seals
        guard !secrets.isEmpty || kept.count != seals.count else { return nil }
        return kept + (try secrets.map { secret in try ownSeal(key, for: secret, address: address, parameters: access.parameters) })
    }

    /// Whether `secret` opens the wrapped key of `seal`, a seal of the key's own.
    private static func opens(_ seal: Seal, with secret: SecureBytes) -> Bool {
        guard let key = try? PasswordKDF.deriveKey(password: secret, salt: seal.salt, parameters: seal.parameters) else { return false }
        defer { key.wipe() }
        guard let opened = try? AEAD.openSecret(seal.wrappedKey, key: key, additionalData: seal.additionalData) else { return false }
        opened.wipe()
        return true
    }

    /// A seal of the key's own for `secret`: a random key wrapped under Argon2id of it.
    private static func ownSeal(_ key: SigningKeyPair, for password: SecureBytes, address: ServiceAddress, parameters: KDFParameters)
        throws -> Seal
    {
        let salt = try randomBytes(count: PasswordKDF.saltLength)
        let passwordKey = try PasswordKDF.deriveKey(password: password, salt: salt, parameters: parameters)
        defer { passwordKey.wipe() }
        let ownKey = try AEAD.generateKey()
        defer { ownKey.wipe() }
        var seal = Seal(
            journalID: nil, wrapSequence: 0, parameters: parameters, salt: salt, wrappedKey: [],
            additionalData: ownAdditionalData(address: address, salt: salt, parameters: parameters), sealedSeed: [])
        seal.wrappedKey = try AEAD.seal(ownKey, key: passwordKey, additionalData: seal.additionalData)
        seal.sealedSeed = try DeviceSeedSeal.seal(key.seed, under: ownKey, additionalData: seedAdditionalData(address: address, seal: seal))
        return seal
    }
}

extension [UInt8] {
    fileprivate mutating func appendLittleEndianWord(_ value: UInt64) {
        for shift in stride(from: 0, to: 64, by: 8) { append(UInt8(truncatingIfNeeded: value >> UInt64(shift))) }
    }
}
