import ArgumentParser
import Foundation
import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperREPL
import GiftKeeperRemote
import GiftKeeperSealing
import GiftKeeperService
import GiftKeeperWire

/// `giftkeeper household device add`: a member's other device (SPEC §13, docs/households.md
/// "Adding a device"). Enrols one more device in this member's account on the service; the
/// household is served to that account, so to the new device, which signs in with the
/// member's password as this one does.
struct HouseholdDeviceCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device", abstract: "Add, list or remove your devices in the household.",
        subcommands: [HouseholdDeviceAdd.self, HouseholdDeviceList.self, HouseholdDeviceRemove.self])
}

struct HouseholdDeviceAdd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Show a one-time address that lets another device of yours clone the household (alone on standard output).",
        discussion: """
            On the other device, within ten minutes: giftkeeper household clone 'ADDRESS' --journal PATH, \
            then your password. The address enrols that device in your account on the service, once; after \
            '#' it names the household and you (the first hex digits of their ids).
            """)

    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withHousehold(path.journal, password: path.password) { session, record, remote in
            let code = try remote.enrolmentAddress()
            let address = code.address + "#" + hexString(record.id.prefix(4)) + "." + hexString(session.id.bytes.prefix(4))
            printAlone(address, note: HouseholdWords.deviceAdded(minutes: code.seconds / 60))
        }
    }
}

/// `giftkeeper household device list`: the devices of this member's account on the service.
struct HouseholdDeviceList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the devices of your account on the household's sync service.")

    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withHousehold(path.journal, password: path.password) { _, _, remote in
            Console().print(lines: try remote.devices().map(deviceLine))
        }
    }
}

/// `giftkeeper household device remove ID`: a lost phone signs in no more.
struct HouseholdDeviceRemove: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a device of yours from your account: its key no longer signs in.")

    @Argument(help: ArgumentHelp("The device's number, as 'household device list' shows it.", valueName: "id")) var id: Int64
    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withHousehold(path.journal, password: path.password) { _, _, remote in Console().print(try removeDevice(id, from: remote)) }
    }
}

/// `giftkeeper household clone ADDRESS --journal PATH`: this device becomes one more of a
/// member's, with their password: its key for the service is enrolled with the address's
/// one-time code, the household's frames read and verified as at a first sign-in, and the
/// record written (0600) with the copy and the verified mark; the device's key is sealed
/// under the password and under the member's key. A password that opens no member's wrap
/// keeps nothing (exit 3).
struct HouseholdClone: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "clone", abstract: "Make this device one more of yours in a household, with the address 'household device add' showed.")

    @Argument(help: ArgumentHelp("The one-time address 'household device add' showed.", valueName: "address")) var address: String
    @Option(help: "Password-hashing cost of this device's key: interactive, moderate (default) or sensitive.") var kdf = "moderate"
    @OptionGroup var path: HouseholdPath

    func run() throws {
        guard !FileManager.default.fileExists(atPath: path.journal) else { throw failure(JournalError(.alreadyExists, path: path.journal)) }
        let parts = address.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false)
        let base = String(parts[0])
        let named = (parts.count > 1 ? String(parts[1]) : "").split(separator: ".", omittingEmptySubsequences: false)
        let (household, member) = (named.first.map(String.init) ?? "", named.count > 1 ? String(named[1]) : "")
        // The service as it is remembered: without the one-time code, used now.
        let remembered = String(base.prefix { $0 != "?" }.reversed().drop { $0 == "/" }.reversed())
        var record = HouseholdRecord(household: "", remote: base, journalID: "", name: "", kdf: kdf)
        try reportingFailures {
            let secret = try path.password.readPassword()
            defer { secret.wipe() }
            // A new key for this device, enrolled in the member's account with the code.
            let remote = try record.service(password: secret)
            let enrolling = !remote.hasDeviceKey
            let ids = try remote.journalIDs().filter { hexString($0).hasPrefix(household.lowercased()) }
            guard ids.count == 1, let journalID = ids.first, let store = try HouseholdCopy.open(remote, journalID: journalID, copy: nil) else {
                Console().error(HouseholdWords.cloneNeedsHousehold)
                throw ExitCode(1)
            }
            let opened: (session: HouseholdSession, unlocked: UnlockedWrap)
            do {
                opened = try HouseholdSession.openOnNewDevice(store, memberPrefix: member, password: secret, now: productionEnvironment().now)
            } catch HouseholdSessionError.household(.wrongPassword) where enrolling {
                // Nothing kept: not the key this clone enrolled (sealed under that password), not its place in the account.
                if let this = try? remote.devices().first(where: \.isCurrent) { try? remote.removeDevice(this.id) }
                remote.forgetDeviceKey()
                throw HouseholdSessionError.household(.wrongPassword)
            }
            record.remote = remembered
            record.journalID = hexString(journalID)
            record.member = hexString(opened.session.id.bytes)
            record.name = opened.session.name
            // This device's key sealed under the member's key too (a sign-in's one key derivation).
            _ = try record.service(password: secret, unlocked: opened.unlocked)
            record.noteVerified(by: opened.session.member, at: path.journal)
            try record.write(to: path.journal)
            Console().print(HouseholdWords.cloned(record.name, frames: Int(store.head.sequence), path: path.journal))
        }
    }
}
