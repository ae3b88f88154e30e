import ArgumentParser
import Foundation
import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperREPL
import GiftKeeperRemote
import GiftKeeperService
import GiftKeeperWire

/// `giftkeeper device add|list|remove`: the devices of the account a journal is shared
/// through on a sync service (SPEC §12). The journal's password opens this device's key
/// (it never goes to the service: the device proves itself with its own key).
struct Device: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "device",
        abstract: "Enrol, list or remove the devices that share a journal through a sync service.",
        subcommands: [DeviceAddCommand.self, DeviceListCommand.self, DeviceRemoveCommand.self])
}

/// The sync service a journal is shared through (--remote, $GIFTKEEPER_REMOTE, else the
/// remembered one), and the journal's id; this device's key for it opened with the
/// journal's password (sealed under it: docs/threat-model.md), without signing in.
private func service(for journal: JournalOption, password: PasswordOption) throws -> (remote: ServiceRemote, journalID: [UInt8]) {
    let opened = try Journal.open(at: journal.path, access: .readOnly)
    let journalID = opened.header.journalID
    let session = GiftKeeperService(journalPath: journal.path, environment: journal.environment)
    try session.openExisting(access: .readOnly)
    let url = session.remoteURL
    try session.close()
    guard let url, let open = journal.environment.remoteLocation else { throw ServiceError(.noRemote) }
    // Only a sync service's address makes a remote: any other is refused, saying why.
    guard let remote = try open(url) as? ServiceRemote else { throw ServiceError(.noRemote) }
    // Kept (guarded memory, zeroed when freed) for as long as the remote may sign in.
    let secret = try password.readPassword()
    let cost = journal.environment.allowsTestKeyDerivationCost ? journal.environment.testKeyDerivationCost : nil
    try remote.useDeviceKey(DeviceKeyAccess(epochs: [], password: secret, parameters: cost ?? .moderate))
    return (remote, journalID)
}

/// `giftkeeper device add`: a one-time code for another device.
struct DeviceAddCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add",
        abstract: "Show a one-time code that lets another device clone this journal (alone on standard output).",
        discussion: """
            On the other device, within ten minutes: giftkeeper clone 'CODE' --journal PATH. \
            The code enrols that device in this device's account on the service, once.
            """)

    @OptionGroup var journal: JournalOption
    @OptionGroup var password: PasswordOption

    func run() throws {
        let console = Console()
        do {
            let (remote, journalID) = try service(for: journal, password: password)
            let code = try remote.enrolmentAddress()
            console.print(code.address + "#" + hexString(journalID.prefix(4)))
            console.note(
                "On the other device, within \(code.seconds / 60) minutes: giftkeeper clone 'CODE' --journal PATH (the code works once).")
        } catch {
            throw failure(error, console: console)
        }
    }
}

/// `giftkeeper device list`.
struct DeviceListCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the devices enrolled in the journal's account on its sync service.")

    @OptionGroup var journal: JournalOption
    @OptionGroup var password: PasswordOption

    func run() throws {
        let console = Console()
        do {
            let (remote, _) = try service(for: journal, password: password)
            console.print(lines: try remote.devices().map(deviceLine))
        } catch {
            throw failure(error, console: console)
        }
    }
}

/// `giftkeeper device remove ID`.
struct DeviceRemoveCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a device from the account: its key no longer signs in.")

    @Argument(help: ArgumentHelp("The device's number, as 'device list' shows it.", valueName: "id"))
    var id: Int64
    @OptionGroup var journal: JournalOption
    @OptionGroup var password: PasswordOption

    func run() throws {
        let console = Console()
        do {
            let (remote, _) = try service(for: journal, password: password)
            console.print(try removeDevice(id, from: remote))
        } catch {
            throw failure(error, console: console)
        }
    }
}

/// A line of `device list`: the device's number, name, since when, and whether it is this one.
func deviceLine(_ device: DeviceList.Device) -> String {
    let since = Date(timeIntervalSince1970: TimeInterval(device.enrolledAt)).formatted(.iso8601.year().month().day())
    return "\(device.id)  \(device.name)  since \(since)\(device.isCurrent ? "  (this device)" : "")"
}

/// Removes device `id` from the account `remote` signs in to; what `device remove` says.
func removeDevice(_ id: Int64, from remote: ServiceRemote) throws -> String {
    try remote.removeDevice(id)
    return "Removed device \(id); it can no longer sign in to \(remote.description)."
}
