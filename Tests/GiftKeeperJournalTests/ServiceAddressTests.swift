import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperTestSupport
import GiftKeeperWire
import Glibc
import Testing

@testable import GiftKeeperRemote

/// A sync service's address (SPEC §12): TLS everywhere but loopback, nothing secret kept or
/// repeated, and the wire format's hex.
@Suite("Sync service addresses")
struct ServiceAddressTests {
    @Test(
        "https anywhere; http only to this machine's loopback",
        arguments: [
            ("https://gifts.home", true), ("https://gifts.home:8443", true), ("http://127.0.0.1:8080", true),
            ("http://localhost", true), ("http://[::1]:8080", true), ("http://gifts.home:8080", false),
            ("http://10.0.0.2", false),
        ])
    func plainHTTPOnlyOnLoopback(url: String, accepted: Bool) {
        do {
            _ = try ServiceAddress(url: url)
            #expect(accepted, "\(url) was accepted")
        } catch {
            #expect(!accepted, "\(url) was refused: \(error.code)")
            #expect(error.code == .unreachable(.plainHTTPAddress))
        }
    }

    @Test("an address with a user, a password or a path is refused, and the password is not repeated")
    func credentialsAreRefused() throws {
        for url in ["https://alice:hunter2@gifts.home", "https://alice@gifts.home", "https://gifts.home/giftkeeper", "gifts.home"] {
            let error = try #require(throws: JournalError.self) { try ServiceAddress(url: url) }
            #expect(error.code == .unreachable(.invalidAddress))
            #expect(!error.path.contains("hunter2"), "\(error.path)")
        }
    }

    @Test("the origin names the service; an enrolment code rides in the query and is not part of it")
    func originAndEnrolmentCode() throws {
        let address = try ServiceAddress(url: "https://gifts.home/?enrol=3F2A9-0C1D4")
        #expect(address.description == "https://gifts.home:443")
        #expect(address.enrolmentCode == "3F2A9-0C1D4")
        #expect(address.enrolling(code: "AB") == "https://gifts.home:443/?enrol=AB")
        #expect(try ServiceAddress(url: address.enrolling(code: "AB")).enrolmentCode == "AB")
        #expect(try ServiceAddress(url: "http://[::1]:8080").description == "http://[::1]:8080")
    }

    @Test("a postgres:// address is refused as retired (devices speak only to the service), its password not repeated")
    func databaseAddressesAreRetired() throws {
        for url in ["postgres://alice:hunter2@db.home:5432/gifts", "postgresql://alice@db.home/gifts", "POSTGRES://db.home/gifts"] {
            let error = try #require(throws: JournalError.self) { try ServiceAddress(url: url) }
            #expect(error.code == .unreachable(.databaseAddress), "\(url)")
            #expect(!error.path.contains("hunter2"), "\(error.path)")
        }
    }

    @Test("hex goes both ways, in either case; anything else is refused")
    func hexRoundTrips() {
        let bytes: [UInt8] = [0, 1, 0x7F, 0x80, 0xAB, 0xFF]
        #expect(Wire.hex(bytes) == "00017f80abff")
        #expect(Wire.unhex("00017F80ABFF") == bytes)
        #expect(Wire.unhex("0") == nil)
        #expect(Wire.unhex("zz") == nil)
        #expect(Wire.unhex("") == [])
    }
}
