import Foundation
import GiftKeeperCrypto
import GiftKeeperTestSupport
import GiftKeeperWire
import Glibc
import TestProcesses
import Testing

/// This device's key for the service, sealed under the journal's password (SPEC §12 "kept
/// encrypted like every key"; docs/threat-model.md), through the real binaries and
/// `giftkeeper-server`.
extension ServiceEndToEndTests {
    /// The one key file of `device`, as bytes.
    func keyFile(of device: Sandbox) throws -> [UInt8] {
        let folder = device.state + "/giftkeeper/devices"
        let names = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".key") }
        let file = try #require(names.count == 1 ? names.first : nil, "\(names)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: folder + "/" + file)))
    }

    func holds(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<($0 + needle.count)]) == needle }
    }

    func sync(_ device: Sandbox, password: String = "secret-pw", journal: String? = nil) async throws -> Outcome {
        try await device.run(["sync", "--journal", journal ?? device.journal], input: password + "\n", environment: trust)
    }

    @Test("the key file never holds the seed nor its hex; a wrong password opens nothing and is exit 3; passwd reseals it, then sync")
    func sealedKeyAndPasswd() async throws {
        let laptop = try Sandbox()
        _ = try await sharedLaptop(laptop)
        let key = try deviceKey(of: laptop, service: url)
        let seed = key.seed.withUnsafeBytes { Array($0) }
        let bytes = try keyFile(of: laptop)
        #expect(Array(bytes.prefix(13)) == Array("GKDEVICEKEY2\n".utf8))
        #expect(!holds(bytes, seed), "the seed is in the key file")
        #expect(!holds(bytes, Array(Wire.hex(seed).utf8)), "the seed's hex is in the key file")
        #expect(!holds(bytes, Array(Wire.hex(seed).uppercased().utf8)))

        let wrong = try await laptop.run(["device", "list", "--journal", laptop.journal], input: "not-the-pw\n", environment: trust)
        #expect(wrong.status == 3, "\(wrong)")
        #expect(!wrong.stdout.contains("(this device)"), "\(wrong)")
        let wrongSync = try await sync(laptop, password: "not-the-pw")
        #expect(wrongSync.status == 3, "\(wrongSync)")

        let changed = try await laptop.run(
            ["--journal", laptop.journal], input: "login\nsecret-pw\npasswd\nsecret-pw\nnew-password\nnew-password\nquit\n",
            environment: trust)
        #expect(changed.status == 0 && !changed.stderr.contains("error"), "\(changed)")
        #expect(try deviceKey(of: laptop, service: url, password: "new-password").publicKey == key.publicKey)
        #expect(throws: (any Error).self, "the old password still opens the device key") {
            try deviceKey(of: laptop, service: url, password: "secret-pw")
        }
        let synced = try await sync(laptop, password: "new-password")
        #expect(synced.status == 0, "\(synced)")
        let devices = try await laptop.run(["device", "list", "--journal", laptop.journal], input: "new-password\n", environment: trust)
        #expect(devices.status == 0 && devices.stdoutLines.filter { !$0.isEmpty }.count == 1, "\(devices)")
        #expect(!holds(try keyFile(of: laptop), Array(Wire.hex(seed).utf8)))
    }

    @Test(
        "a second journal on the device uses the same account (one key, two seals); an enrolled device that lost its journal clones it back by URL with the password"
    )
    func secondJournalAndCloneByURL() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        let copy = try await sharedLaptop(laptop)
        let key = try deviceKey(of: laptop, service: url)
        let second = laptop.root + "/journals/second.journal"
        let made = try await laptop.run(
            ["--journal", second, "--remote", url],
            input: "setup Alice --kdf interactive\nsecret-pw\nsecret-pw\nadd Mum Scarf\nquit\n", environment: trust)
        #expect(made.status == 0 && made.stderr.contains("Shared through "), "\(made)")
        let lines = String(decoding: try keyFile(of: laptop), as: UTF8.self).split(separator: "\n")
        #expect(lines.count == 3, "one seal per journal: \(lines.count - 1)")
        #expect(try deviceKey(of: laptop, service: url).publicKey == key.publicKey)
        let devices = try await laptop.run(["device", "list", "--journal", second], input: "secret-pw\n", environment: trust)
        #expect(devices.stdoutLines.filter { !$0.isEmpty }.count == 1 && devices.stdout.contains("(this device)"), "\(devices)")

        try await enrolAndClone(from: laptop, to: desktop)
        // The clone checked the password against the copy and sealed the new key for its key epoch.
        let sealedFor = String(decoding: try keyFile(of: desktop), as: UTF8.self).split(separator: "\n")
        #expect(sealedFor.count == 2 && copy.split(separator: "#").last.map { sealedFor[1].hasPrefix($0) } == true, "\(sealedFor)")
        #expect(try deviceKey(of: desktop, service: url).publicKey != key.publicKey, "a device of its own")
        let signedIn = try await sync(desktop)
        #expect(signedIn.status == 0, "\(signedIn)")
        try FileManager.default.removeItem(atPath: desktop.journal)
        let wrong = try await desktop.run(["clone", copy, "--journal", desktop.journal], input: "not-the-pw\n", environment: trust)
        #expect(wrong.status == 3, "\(wrong)")
        #expect(!FileManager.default.fileExists(atPath: desktop.journal))
        let back = try await desktop.run(["clone", copy, "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
        #expect(back.status == 0, "\(back)")
        let list = try await desktop.run(["list", "--journal", desktop.journal], input: "secret-pw\n", environment: trust)
        #expect(list.stdout.contains("Lego set"), "\(list)")
    }

    @Test("a clone with a one-time code and a wrong password keeps no copy (exit 3)")
    func cloneWithWrongPassword() async throws {
        let laptop = try Sandbox()
        let desktop = try Sandbox()
        _ = try await sharedLaptop(laptop)
        let code = try await laptop.run(["device", "add", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
        let address = code.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let cloned = try await desktop.run(["clone", address, "--journal", desktop.journal], input: "not-the-pw\n", environment: trust)
        #expect(cloned.status == 3, "\(cloned)")
        #expect(!FileManager.default.fileExists(atPath: desktop.journal), "a copy was kept")
    }

    @Test("a clear key file of the old format (GKDEVICEKEY1) is sealed at the first sign-in, the same device signing in")
    func clearKeyFileMigrates() async throws {
        let laptop = try Sandbox()
        _ = try await sharedLaptop(laptop)
        let key = try deviceKey(of: laptop, service: url)
        let seedHex = Wire.hex(key.seed.withUnsafeBytes { Array($0) })
        let folder = laptop.state + "/giftkeeper/devices"
        let name = try #require(try FileManager.default.contentsOfDirectory(atPath: folder).first { $0.hasSuffix(".key") })
        try Data("GKDEVICEKEY1\n\(seedHex)\n".utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
        chmod(folder + "/" + name, 0o600)

        let synced = try await sync(laptop)
        #expect(synced.status == 0, "\(synced)")
        let bytes = try keyFile(of: laptop)
        #expect(Array(bytes.prefix(13)) == Array("GKDEVICEKEY2\n".utf8))
        #expect(!holds(bytes, Array(seedHex.utf8)), "the clear seed is still in the key file")
        #expect(try deviceKey(of: laptop, service: url).publicKey == key.publicKey)
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder) == [name], "a partial file was left")
        let devices = try await laptop.run(["device", "list", "--journal", laptop.journal], input: "secret-pw\n", environment: trust)
        #expect(devices.stdoutLines.filter { !$0.isEmpty }.count == 1, "the same device, not a new one: \(devices)")

        try Data("GKDEVICEKEY2\nnot a seal\n".utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
        let damaged = try await sync(laptop)
        #expect(damaged.status != 0 && damaged.stderr.contains("is damaged"), "\(damaged)")
        #expect(damaged.stderr.split(separator: "\n").filter { $0.hasPrefix("giftkeeper: error:") }.count == 1, "\(damaged)")
    }
}
