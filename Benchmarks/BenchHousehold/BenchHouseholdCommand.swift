import ArgumentParser
import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperRemote
import GiftKeeperSealing
import GiftKeeperService

/// `giftkeeper-bench-household`: what `make bench-household` needs besides the giftkeeper
/// binary (scripts/bench-household.sh, docs/performance.md): a member's share of a large
/// household written in batches through the household's own code (one one-shot `add` a
/// present would sign in once an event), and the key derivation a member's sign-in costs,
/// alone, timed in the same run as the sign-ins it bounds.
@main
struct BenchHouseholdCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "giftkeeper-bench-household", abstract: "A large household for make bench-household, and its key derivation.",
        subcommands: [SeedCommand.self, KeyDerivationCommand.self])
}

/// The fields of a device's household record (giftkeeper's `HouseholdRecord`) read here.
struct DeviceRecord: Decodable {
    let remote: String
    let journalID: String
    let name: String
    let member: String?
    let kdf: String
}

/// `--journal PATH --password-file F`: a member's device record and password.
struct MemberOptions: ParsableArguments {
    @Option(help: "The member's device record (giftkeeper household … --journal PATH).") var journal: String
    @Option(name: .customLong("password-file"), help: "Their password, on its first line.") var passwordFile: String

    func record() throws -> DeviceRecord {
        try JSONDecoder().decode(DeviceRecord.self, from: Data(contentsOf: URL(fileURLWithPath: journal)))
    }

    /// The key derivation's cost the member chose (`--kdf`).
    func parameters() throws -> KDFParameters {
        switch try record().kdf {
        case "interactive": .interactive
        case "sensitive": .sensitive
        default: .moderate
        }
    }

    func password() throws -> SecureBytes {
        let line = try String(contentsOfFile: passwordFile, encoding: .utf8).prefix { $0 != "\n" }
        let secret = try SecureBytes(capacity: line.utf8.count, count: 0)
        for byte in line.utf8 { _ = secret.append(byte) }
        return secret
    }
}

/// `seed`: signs in as the record's member (this device's account: `$XDG_STATE_HOME`) and
/// appends `--events` presents in batches, alternating a batch for someone outside the
/// household (sealed for everyone) with one for another member (for everyone but them).
struct SeedCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "seed", abstract: "Append a member's presents in batches.")

    @OptionGroup var member: MemberOptions
    @Option(help: "Presents to add.") var events = 5_000
    @Option(help: "Presents a batch (one append).") var batch = 250
    @Option(help: "The other members' names, comma separated.") var others = ""

    func run() throws {
        try Sodium.ensureInitialized()
        let record = try member.record()
        let home = ProcessInfo.processInfo.environment["XDG_STATE_HOME"] ?? NSHomeDirectory() + "/.local/state"
        let remote = try ServiceRemote(url: record.remote, stateDirectory: home + "/giftkeeper", deviceName: "bench")
        // This device's key for the service is sealed under the member's password.
        try remote.useDeviceKey(DeviceKeyAccess(epochs: [], password: try member.password(), parameters: try member.parameters()))
        guard let id = record.member.flatMap({ unhex($0) }).flatMap({ MemberID(bytes: $0) }),
            let store = try remote.open(journalID: unhex(record.journalID) ?? [])
        else { throw ValidationError("\(member.journal): not a member's record of a household on its service") }
        let now: @Sendable () -> Timestamp = { Timestamp(millisecondsSinceEpoch: Int64(Date().timeIntervalSince1970 * 1000)) }
        let session = try HouseholdSession.open(store, as: id, name: record.name, password: try member.password(), now: now)
        let recipients = ["Grandma"] + others.split(separator: ",").map(String.init)
        var (done, round) = (0, 0)
        while done < events {
            let recipient = recipients[round % recipients.count]
            round += 1
            let audience: Audience = session.memberID(named: recipient).map { .everyoneBut($0) } ?? .everyone
            var state = session.state.numbering(from: store.head.sequence + 1)
            var decided: [Event] = []
            for _ in 0..<min(batch, events - done) {
                let change = Change.addPresent(recipient: recipient, title: "\(record.name)'s present \(done)", price: nil)
                for event in try GiftList.decide(change, at: now(), state: state) {
                    state.apply(event)
                    decided.append(event)
                }
                done += 1
            }
            try session.member.record(decided, for: audience)
            FileHandle.standardError.write(Data("\(record.name): \(done) presents\n".utf8))
        }
    }
}

/// `key-derivation`: Argon2id at the cost of the record's members (`--kdf` at create/join),
/// alone, with the member's password; prints the least of `--runs` times, in microseconds.
struct KeyDerivationCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "key-derivation", abstract: "Time a member's key derivation alone.")

    @OptionGroup var member: MemberOptions
    @Option(help: "Runs; the least is printed.") var runs = 5

    func run() throws {
        try Sodium.ensureInitialized()
        let parameters = try member.parameters()
        let password = try member.password()
        var least = Duration.seconds(3_600)
        for _ in 0..<runs {
            let salt = try PasswordKDF.generateSalt()
            let start = ContinuousClock.now
            _ = try PasswordKDF.deriveKey(password: password, salt: salt, parameters: parameters)
            least = min(least, ContinuousClock.now - start)
        }
        print(least.components.seconds * 1_000_000 + least.components.attoseconds / 1_000_000_000_000)
    }
}
