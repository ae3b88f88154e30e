import Foundation
import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperTestSupport
import GiftKeeperWire
import Glibc
import Testing

@testable import GiftKeeperRemote

/// This device's signing key for a sync service, sealed under the password (SPEC §12 "kept
/// encrypted like every key"; docs/threat-model.md): never in clear on disk, opened with a
/// signed-in journal's data keys (no key derivation) or with the password alone.
@Suite("The device key, sealed under the password")
struct DeviceKeyTests {
    let address: ServiceAddress

    init() throws {
        address = try ServiceAddress(url: "https://gifts.home")
    }

    /// The seals of the key file at `path`; throws when it holds none.
    func sealsInFile(at path: String) throws -> [DeviceKey.Seal] {
        guard case .sealed(let seals) = try DeviceKey.read(path) else { throw JournalError(.notAJournal, path: path) }
        return seals
    }

    static func secret(_ text: String) throws -> SecureBytes {
        let bytes = Array(text.utf8)
        let secure = try SecureBytes(capacity: bytes.count)
        secure.withUnsafeMutableBytes { $0.copyBytes(from: bytes) }
        return secure
    }

    /// A journal's key epoch as a sign-in leaves it: a data key wrapped under `password`.
    static func epoch(_ journalID: [UInt8], sequence: UInt64, password: String) throws -> DeviceKeyAccess.JournalEpoch {
        let salt = try randomBytes(count: PasswordKDF.saltLength)
        let passwordKey = try PasswordKDF.deriveKey(password: try secret(password), salt: salt, parameters: .testMinimum)
        let dataKey = try AEAD.generateKey()
        let additional = Array("wrap \(sequence)".utf8) + salt
        return DeviceKeyAccess.JournalEpoch(
            journalID: journalID, wrapSequence: sequence, parameters: .testMinimum, salt: salt,
            wrappedKey: try AEAD.seal(dataKey, key: passwordKey, additionalData: additional), additionalData: additional,
            dataKey: dataKey)
    }

    func access(_ epochs: [DeviceKeyAccess.JournalEpoch], password: String? = nil) throws -> DeviceKeyAccess {
        DeviceKeyAccess(epochs: epochs, password: try password.map(Self.secret), parameters: .testMinimum)
    }

    func seed(of key: SigningKeyPair) -> [UInt8] { key.seed.withUnsafeBytes { Array($0) } }

    /// Writes `text` at `path` as a key file is kept (0600 in a 0700 directory).
    func writePrivate(_ path: String, _ text: String) throws {
        let folder = String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)])
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        chmod(path, 0o600)
    }

    func fileBytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    /// Whether `haystack` holds `needle` anywhere.
    func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    @Test("sealed for a journal's epoch: the file holds neither the seed nor its hex, 0600; the data key opens it, the password alone too")
    func sealedForAJournal() throws {
        let directory = try TemporaryDirectory(prefix: "giftkeeper-device-key")
        let path = DeviceKey.path(stateDirectory: directory.path, address: address)
        let key = try SigningKeyPair.generate()
        let journal = try randomBytes(count: 16)
        let epoch = try Self.epoch(journal, sequence: 2, password: "secret-pw")
        let seals = try #require(try DeviceKey.resealed([], key: key, address: address, access: access([epoch])))
        try DeviceKey.write(seals, to: path)

        let bytes = try fileBytes(path)
        #expect(!contains(bytes, seed(of: key)), "the seed is in the file")
        #expect(!contains(bytes, Array(Wire.hex(seed(of: key)).utf8)), "the seed's hex is in the file")
        var info = stat()
        #expect(stat(path, &info) == 0 && info.st_mode & 0o777 == 0o600)

        let read = try sealsInFile(at: path)
        #expect(read == seals)
        let byDataKey = try DeviceKey.open(read, address: address, access: access([epoch]), path: path)
        #expect(byDataKey.publicKey == key.publicKey)
        let byPassword = try DeviceKey.open(read, address: address, access: access([], password: "secret-pw"), path: path)
        #expect(byPassword.publicKey == key.publicKey)
        // Another service's address does not open it.
        let other = try ServiceAddress(url: "https://other.home")
        #expect(throws: JournalError.self) { try DeviceKey.open(read, address: other, access: access([epoch]), path: path) }
    }

    @Test("a wrong password is told as such, no password as a sign-in needed; neither opens the key")
    func wrongOrNoPassword() throws {
        let key = try SigningKeyPair.generate()
        let epoch = try Self.epoch(try randomBytes(count: 16), sequence: 2, password: "secret-pw")
        let seals = try #require(try DeviceKey.resealed([], key: key, address: address, access: access([epoch])))
        let wrong = try #require(throws: JournalError.self) {
            try DeviceKey.open(seals, address: address, access: access([], password: "not-the-pw"), path: "k")
        }
        #expect(wrong.code == .unreachable(.deviceKey(.otherPassword)))
        let none = try #require(throws: JournalError.self) { try DeviceKey.open(seals, address: address, access: nil, path: "k") }
        #expect(none.code == .unreachable(.deviceKey(.locked)))
    }

    @Test("a new password's epoch: sealed for it, the old seal dropped; a second journal keeps its own seal")
    func passwordChangeReseals() throws {
        let key = try SigningKeyPair.generate()
        let journal = try randomBytes(count: 16)
        let old = try Self.epoch(journal, sequence: 2, password: "secret-pw")
        let other = try Self.epoch(try randomBytes(count: 16), sequence: 2, password: "secret-pw")
        var seals = try #require(try DeviceKey.resealed([], key: key, address: address, access: access([other])))
        seals = try #require(try DeviceKey.resealed(seals, key: key, address: address, access: access([old])))
        #expect(seals.count == 2)
        #expect(try DeviceKey.resealed(seals, key: key, address: address, access: access([old])) == nil)

        let new = try Self.epoch(journal, sequence: 9, password: "new-password")
        let opened = try DeviceKey.open(seals, address: address, access: access([old, new]), path: "k")
        let resealed = try #require(try DeviceKey.resealed(seals, key: opened, address: address, access: access([old, new])))
        #expect(resealed.count == 2)
        #expect(resealed.contains { $0.journalID == journal && $0.wrapSequence == 9 })
        #expect(!resealed.contains { $0.journalID == journal && $0.wrapSequence == 2 })
        let byNew = try DeviceKey.open(resealed, address: address, access: access([], password: "new-password"), path: "k")
        #expect(byNew.publicKey == key.publicKey)
        // The old password still opens the other journal's seal (its own password), not this one's.
        #expect(try DeviceKey.open(resealed, address: address, access: access([other]), path: "k").publicKey == key.publicKey)
    }

    @Test("without a journal, a seal of its own under the password; a journal's seal replaces it")
    func sealOfItsOwn() throws {
        let key = try SigningKeyPair.generate()
        let own = try #require(try DeviceKey.resealed([], key: key, address: address, access: access([], password: "secret-pw")))
        #expect(own.count == 1 && own[0].journalID == nil)
        let opened = try DeviceKey.open(own, address: address, access: access([], password: "secret-pw"), path: "k")
        #expect(opened.publicKey == key.publicKey)
        let epoch = try Self.epoch(try randomBytes(count: 16), sequence: 2, password: "secret-pw")
        let replaced = try #require(try DeviceKey.resealed(own, key: opened, address: address, access: access([epoch])))
        #expect(replaced.count == 1 && replaced[0].journalID == epoch.journalID)
    }

    @Test(
        "a household member's: a wrap's seal joins the seals of its own (the recovery code still opens the key); dropping the old password drops both"
    )
    func householdKeepsItsOwnSeals() throws {
        let key = try SigningKeyPair.generate()
        let household = { (epochs: [DeviceKeyAccess.JournalEpoch], password: String?, dropping: String?) throws -> DeviceKeyAccess in
            DeviceKeyAccess(
                epochs: epochs, password: try password.map(Self.secret), parameters: .testMinimum, dropping: try dropping.map(Self.secret),
                keepsOwnSeals: true)
        }
        var seals = try #require(try DeviceKey.resealed([], key: key, address: address, access: access([], password: "secret-pw")))
        seals = try #require(
            try DeviceKey.resealed(
                seals, key: key, address: address,
                access: DeviceKeyAccess(epochs: [], password: nil, parameters: .testMinimum, sealingAlso: [try Self.secret("recovery-code")])))
        let wrap = try Self.epoch(try randomBytes(count: 16), sequence: 3, password: "secret-pw")
        seals = try #require(try DeviceKey.resealed(seals, key: key, address: address, access: household([wrap], "secret-pw", nil)))
        #expect(seals.count == 3)
        #expect(try DeviceKey.resealed(seals, key: key, address: address, access: household([wrap], "secret-pw", nil)) == nil)
        // The wrap's member key opens it with no password; the recovery code through its own seal.
        #expect(try DeviceKey.open(seals, address: address, access: household([wrap], nil, nil), path: "k").publicKey == key.publicKey)
        let byCode = try DeviceKey.open(seals, address: address, access: access([], password: "recovery-code"), path: "k")
        #expect(byCode.publicKey == key.publicKey)

        // `passwd`: the old password is to open nothing more, through its own seal or the wrap's.
        let dropped = try #require(try DeviceKey.resealed(seals, key: key, address: address, access: household([], "new-pw", "secret-pw")))
        #expect(dropped.count == 1)
        let old = try #require(throws: JournalError.self) {
            try DeviceKey.open(dropped, address: address, access: access([], password: "secret-pw"), path: "k")
        }
        #expect(old.code == .unreachable(.deviceKey(.otherPassword)))
    }

    @Test("a clear key file of the old format (GKDEVICEKEY1) is sealed at the first use that has the password, atomically")
    func clearFileIsSealed() throws {
        let directory = try TemporaryDirectory(prefix: "giftkeeper-device-key")
        let path = DeviceKey.path(stateDirectory: directory.path, address: address)
        let key = try SigningKeyPair.generate()
        try writePrivate(path, "GKDEVICEKEY1\n\(Wire.hex(seed(of: key)))\n")
        guard case .clear(let clear) = try DeviceKey.read(path) else { throw JournalError(.notAJournal, path: path) }
        #expect(clear.publicKey == key.publicKey)

        let connection = ServiceConnection(address: address, stateDirectory: directory.path, deviceName: "test")
        let epoch = try Self.epoch(try randomBytes(count: 16), sequence: 2, password: "secret-pw")
        try connection.useDeviceKey(access([epoch]))
        let bytes = try fileBytes(path)
        #expect(!contains(bytes, Array(Wire.hex(seed(of: key)).utf8)), "the clear seed is still in the file")
        let left = try FileManager.default.contentsOfDirectory(atPath: directory.path + "/devices")
        #expect(left == [String(path.split(separator: "/").last ?? "")], "a partial file was left: \(left)")
        #expect(try DeviceKey.open(try sealsInFile(at: path), address: address, access: access([epoch]), path: path).publicKey == key.publicKey)
    }

    @Test("a damaged file is one clear error; a file others may read is refused")
    func damagedAndExposedFiles() throws {
        let directory = try TemporaryDirectory(prefix: "giftkeeper-device-key")
        let path = DeviceKey.path(stateDirectory: directory.path, address: address)
        #expect(try { if case .none = try DeviceKey.read(path) { true } else { false } }())
        try writePrivate(path, "GKDEVICEKEY2\nnot a seal\n")
        let damaged = try #require(throws: JournalError.self) { try DeviceKey.read(path) }
        #expect(damaged.code == .unreachable(.deviceKey(.damaged(path: path))))
        chmod(path, 0o644)
        let exposed = try #require(throws: JournalError.self) { try DeviceKey.read(path) }
        #expect(exposed.code == .insecurePermissions(mode: 0o644))
    }
}

extension DeviceKeyAccess {
    /// What opens a test device's key: the password `secret-pw`, at the cheapest cost.
    static func testDevice() throws -> DeviceKeyAccess {
        DeviceKeyAccess(epochs: [], password: try DeviceKeyTests.secret("secret-pw"), parameters: .testMinimum)
    }
}

extension ServiceRemote {
    /// A test device on the service at `url`, its key in `stateDirectory` sealed under the password `secret-pw`.
    static func testDevice(url: String, stateDirectory: String, deviceName: String) throws -> ServiceRemote {
        let remote = try ServiceRemote(url: url, stateDirectory: stateDirectory, deviceName: deviceName)
        try remote.useDeviceKey(try .testDevice())
        return remote
    }
}
