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
            let code = try ServiceDesk(remote, record: record, path: path.journal).deviceAddress(for: session.id)
            printAlone(code.address, note: HouseholdWords.deviceAdded(minutes: code.seconds / 60))
        }
    }
}

/// `giftkeeper household device list`: the devices of this member's account on the service.
struct HouseholdDeviceList: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the devices of your account on the household's sync service.")

    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withHousehold(path.journal, password: path.password) { _, record, remote in
            Console().print(lines: try ServiceDesk(remote, record: record, path: path.journal).deviceLines())
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
        try withHousehold(path.journal, password: path.password) { _, record, remote in
            Console().print(try ServiceDesk(remote, record: record, path: path.journal).dropDevice(id))
        }
    }
}

/// A member's devices through the service's desk (``HouseholdDevices``): the one-shots above
/// and the shell's `household device …` alike.
extension ServiceDesk: HouseholdDevices {
    func deviceAddress(for member: MemberID) throws -> (address: String, seconds: Int) {
        let code = try account().enrolmentAddress()
        return (code.address + "#" + hexString(record.id.prefix(4)) + "." + hexString(member.bytes.prefix(4)), code.seconds)
    }

    func deviceLines() throws -> [String] { try account().devices().map(deviceLine) }

    func dropDevice(_ id: Int64) throws -> String { try removeDevice(id, from: try account()) }

    private func account() throws -> ServiceRemote {
        guard let remote else { throw ServiceError(.noRemote) }
        return remote
    }
}

/// `giftkeeper household clone ADDRESS --journal PATH`: this device becomes one more of a
/// member's, with their password: its key for the service is enrolled with the address's
/// one-time code, the household's frames read and verified as at a first sign-in, and the
/// record written (0600) with the copy and the verified mark; the device's key is sealed
/// under the password and under the member's key. A device that holds a key for the service
/// already (another record's, another account's) gets a second one, this record's own.
/// A clone that fails once the code is spent (a wrong password, exit 3; the service gone, a
/// frame refused, the record not writable, Ctrl-C) keeps nothing: the device it enrolled is
/// removed from the account (or, the service out of reach, a line says how), its key and
/// anything written at `PATH` deleted.
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
        var undone = CloneUndo(path: path.journal)
        do {
            try reportingFailures {
                let secret = try path.password.readPassword()
                defer { secret.wipe() }
                // A new key for this device, enrolled in the member's account with the code: a
                // key of this record's own when the device holds one for the service already.
                if try record.account().hasDeviceKey { record.deviceKey = hexString(try randomBytes(count: 8)) }
                let remote = try record.service(password: secret)
                undone.remote = remote.hasDeviceKey ? nil : remote
                try CommandInterruption.whileRunning {
                    do {
                        try enrol(&record, remote: remote, household: household, member: member, secret: secret, remembered: remembered)
                    } catch {
                        undone.undo()
                        throw error
                    }
                }
            }
        } catch {
            if undone.mayRemain { Console().note(HouseholdWords.cloneMayRemainListed) }
            throw error
        }
    }

    /// The clone's work once the password is read: the code redeemed at the first call.
    private func enrol(
        _ record: inout HouseholdRecord, remote: ServiceRemote, household: String, member: String, secret: SecureBytes, remembered: String
    ) throws {
        let ids = try remote.journalIDs().filter { hexString($0).hasPrefix(household.lowercased()) }
        try CloneUndo.stopIfCancelled()
        guard ids.count == 1, let journalID = ids.first, let store = try HouseholdCopy.open(remote, journalID: journalID, copy: nil) else {
            Console().error(HouseholdWords.cloneNeedsHousehold)
            throw ExitCode(1)
        }
        let opened = try HouseholdSession.openOnNewDevice(store, memberPrefix: member, password: secret, now: productionEnvironment().now)
        try CloneUndo.stopIfCancelled()
        record.remote = remembered
        record.journalID = hexString(journalID)
        record.member = hexString(opened.session.id.bytes)
        record.name = opened.session.name
        // This device's key sealed under the member's key too (a sign-in's one key derivation).
        _ = try record.service(password: secret, unlocked: opened.unlocked)
        record.noteVerified(by: opened.session.member, at: path.journal)
        try CloneUndo.stopIfCancelled()
        try record.write(to: path.journal)
        Console().print(HouseholdWords.cloned(record.name, frames: Int(store.head.sequence), path: path.journal))
    }
}

/// What a failed `household clone` undoes: the device it enrolled in the account (removed
/// there, best effort), its key for the service, and what it wrote at the record's path.
struct CloneUndo {
    let path: String
    /// The service, when this clone makes the device's key for it (nil: a key it did not make).
    var remote: ServiceRemote?
    /// The device may still be listed in the account: the service could not be told.
    private(set) var mayRemain = false
    private let written: [String]

    init(path: String) {
        self.path = path
        written = [path, HouseholdRecord.copyPath(path), HouseholdRecord.pendingPath(path)].filter {
            !FileManager.default.fileExists(atPath: $0)
        }
    }

    /// Ctrl-C pressed since the clone's work began: it stops there (and is undone).
    static func stopIfCancelled() throws {
        if CommandInterruption.isRequested { throw ServiceError(.cancelled) }
    }

    mutating func undo() {
        for file in written { unlink(file) }
        guard let remote, remote.hasDeviceKey else { return }
        // Not signed in (the code never redeemed): nothing in the account to remove.
        do {
            if let this = try remote.devices().first(where: \.isCurrent) { try remote.removeDevice(this.id) }
        } catch {
            mayRemain = true
        }
        remote.forgetDeviceKey()
    }
}
