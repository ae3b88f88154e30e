import GiftKeeperCrypto
import GiftKeeperFiles
import GiftKeeperJournal
import GiftKeeperWire
import Glibc

/// This device's signing key for one sync service (SPEC §12): made when the device first
/// signs up or enrols there, kept in the state directory (`devices/<service>.key`, mode
/// 0600 in a 0700 directory), and used to sign the service's challenges. The service
/// keeps only the public key; the seed never leaves this file.
///
/// The seed is kept as the key of an SSH client without a passphrase is: readable by this
/// user only. It is not sealed under the journal's key, because `sync` works without
/// signing in (the frames are ciphertext) and must still prove the device.
enum DeviceKey {
    static let magic = "GKDEVICEKEY1"

    /// The key file for the service at `address` in `stateDirectory`.
    static func path(stateDirectory: String, address: ServiceAddress) -> String {
        let name = Wire.hex(Blake2b.hash(Array(address.description.utf8)).prefix(12))
        return stateDirectory + "/devices/" + name + ".key"
    }

    /// The key kept at `path`; nil when there is none.
    static func read(_ path: String) throws(JournalError) -> SigningKeyPair? {
        guard let bytes = PrivateFiles.readSmallFile(path, limit: 256) else { return nil }
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\n")
        guard lines.count >= 2, lines[0] == magic, let seed = Wire.unhex(lines[1]), seed.count == SigningKeyPair.seedLength
        else { throw JournalError(.unreachable(.notAuthenticated(message: "the device key file \(path) is damaged")), path: path) }
        do {
            let secure = try SecureBytes(capacity: seed.count)
            seed.withUnsafeBytes { source in
                secure.withUnsafeMutableBytes { $0.copyMemory(from: source) }
            }
            return try SigningKeyPair(seed: secure)
        } catch {
            throw JournalError(.io(operation: "make the device key from", errno: EIO), path: path)
        }
    }

    /// Keeps `key` at `path` (atomically, mode 0600).
    static func write(_ key: SigningKeyPair, to path: String) throws(JournalError) {
        let seed = key.seed.withUnsafeBytes { Array($0) }
        let text = "\(magic)\n\(Wire.hex(seed))\n"
        do throws(SystemCallError) {
            try PrivateFiles.makeDirectories(String(path[..<(path.lastIndex(of: "/") ?? path.endIndex)]))
            try PrivateFiles.replace(path, with: Array(text.utf8))
        } catch {
            throw JournalError(.io(operation: error.operation, errno: error.errno), path: path)
        }
    }
}
