import ArgumentParser
import GiftKeeperCrypto
import GiftKeeperJournal
import GiftKeeperREPL
import GiftKeeperRemote
import GiftKeeperSealing
import GiftKeeperService
import GiftKeeperWire

/// `giftkeeper household passwd --journal RECORD`: `passwd` in a household as a one-shot
/// (SPEC §13; docs/threat-model.md, "`passwd` in a household"). The current password (the
/// terminal, `--password-file`, or standard input's first line), then the new one twice
/// (the terminal, or the next lines): never from argv.
struct HouseholdPasswd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "passwd",
        abstract: "Change your password: new keys for you in the household, and a new recovery code (shown once).")

    @OptionGroup var path: HouseholdPath

    func run() throws {
        try reportingFailures {
            let old = try path.password.readPassword()
            defer { old.wipe() }
            try withHousehold(path.journal, password: path.password, current: old) { session, record, _ in
                let new = try readNewPassword(from: try TerminalSession.makePasswordSource(passwordFile: nil))
                let reports = record.loginReports
                defer { new.wipe() }
                try renewHouseholdKeys(&record, at: path.journal, old: old, new: new, store: session.member.store) {
                    code, parameters, appending in
                    try session.renewKeys(new, recoveryCode: code, parameters: parameters, appending: appending)
                    _ = HouseholdLoginReports.signedIn(  // the new key, named by a new report token
                        record: path.journal, as: session.member.secrets.identity, mailbox: reports, store: session.member.store)
                    return session.id
                }
            }
        }
    }
}

/// The failed sign-ins to the household recorded on this device since the member's last
/// sign-in here, and those in the member's mailbox on the service (posted from their other
/// devices; ``HouseholdLoginReports``), told on standard error as a person's one-shot tells them.
func tellFailedLogins(at path: String, record: HouseholdRecord, session: HouseholdSession) {
    let failed = HouseholdLoginReports.signedIn(
        record: path, as: session.member.secrets.identity, mailbox: record.loginReports, store: session.member.store)
    guard failed > 0 else { return }
    Console().note(LoginNotification.signedIn(name: record.name, failedAttempts: failed, previousVisit: nil).sentence)
}

/// `passwd` in a household on this device, in the shell and as a one-shot: this device's
/// key for the service sealed under the new password and a new recovery code; the keys
/// renewed with that code (`renew`: new key pairs, a new epoch); the record naming the new
/// member id (its verified mark made again under the new keys); the old password's seal of
/// the device key dropped, so the old password opens nothing here; the code shown once.
func renewHouseholdKeys(
    at path: String, old: SecureBytes, new: SecureBytes, store: any FrameStore, renew: HouseholdShellService.Renewing
) throws {
    var record = try HouseholdRecord.read(path)
    try renewHouseholdKeys(&record, at: path, old: old, new: new, store: store, renew: renew)
}

/// ``renewHouseholdKeys(at:old:new:store:renew:)`` with the record read already. Through a
/// service, the renewal is appended with the new public keys in one request (its roster).
func renewHouseholdKeys(
    _ record: inout HouseholdRecord, at path: String, old: SecureBytes, new: SecureBytes, store: any FrameStore,
    renew: HouseholdShellService.Renewing
) throws {
    let recovery = try RecoveryCode.make()
    defer { recovery.secret.wipe() }
    // Sealed for the new password and code before the keys change, so this device reaches
    // the service whatever happens next; the old password's seal goes once they changed.
    _ = try record.service(password: old, sealingAlso: [new, recovery.secret])
    let service = store as? ServiceFrameStore
    let member = try renew(
        recovery.secret, record.parameters,
        service.map { service in
            { batch, keys in try service.changeMembers(.renew, memberKeys: keys.signing + keys.sealing, frames: batch) }
        })
    record.member = hexString(member.bytes)
    record.verified = nil
    try record.write(to: path)
    _ = try record.service(password: new, dropping: old)
    Console().print(HouseholdWords.keysRenewed)
    Console().print(HouseholdWords.recoveryCode(recovery.text))
}

/// A member's recovery code: 16 random bytes, shown as hex in groups of four.
enum RecoveryCode {
    static func make() throws -> (secret: SecureBytes, text: String) {
        let bytes = try randomBytes(count: 16)
        let secret = try SecureBytes(capacity: bytes.count, count: 0)
        for byte in bytes { secret.append(byte) }
        let hex = hexString(bytes)
        let text = stride(from: 0, to: hex.count, by: 4).map { String(hex.dropFirst($0).prefix(4)) }.joined(separator: "-")
        return (secret, text)
    }

    /// The secret of a code as typed (``make()``'s text; dashes and spaces ignored, any
    /// case), nil when it is not 32 hex digits.
    static func parse(_ typed: SecureBytes) -> SecureBytes? {
        guard let secret = try? SecureBytes(capacity: 16, count: 0) else { return nil }
        var high: UInt8?
        let read = typed.withUnsafeBytes { bytes -> Bool in
            for byte in bytes where byte != UInt8(ascii: "-") && byte != UInt8(ascii: " ") {
                guard let digit = hexDigit(byte) else { return false }
                if let first = high {
                    guard secret.append(first << 4 | digit) else { return false }
                    high = nil
                } else {
                    high = digit
                }
            }
            return high == nil && secret.count == 16
        }
        return read ? secret : nil
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}

/// Reads a new password twice; they must match.
func readNewPassword(_ password: PasswordOption) throws -> SecureBytes {
    try readNewPassword(from: try TerminalSession.makePasswordSource(passwordFile: password.passwordFile))
}

/// Reads a new password twice from `source`; they must match.
func readNewPassword(from source: any PasswordSource) throws -> SecureBytes {
    let first = try PasswordReader.normalized(try source.readPassword(prompt: "New password: "))
    let second = try PasswordReader.normalized(try source.readPassword(prompt: "Repeat it: "))
    guard first.constantTimeEquals(second) else {
        Console().error(HouseholdWords.passwordsDiffer)
        throw ExitCode(2)
    }
    try NewPassword.check(first)
    return first
}
