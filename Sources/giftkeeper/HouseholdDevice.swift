import ArgumentParser
import Foundation
import GiftKeeperCrypto
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperFiles
import GiftKeeperJournal
import GiftKeeperREPL
import GiftKeeperRemote
import GiftKeeperSealing
import GiftKeeperService

/// What a device keeps of a household at `--journal PATH` (mode 0600): the service and the
/// journal it keeps there, this member's name and id, the identity that waits for its
/// admission, the codes of the invitations this owner made, and how far this member
/// verified the journal (``HouseholdMember/verifiedMark()``). No key: the household's
/// journal lives on the service and every key is in it, under each member's password.
/// Beside it, at `PATH.frames`, the frames read so far (``HouseholdCopy``), so a sign-in
/// reads and verifies only the new ones; at `PATH.pending`, the member's offline work until
/// it is sent (the shell and the one-shots work from the copy while the service is away).
struct HouseholdRecord: Codable {
    static let kind = "giftkeeper household device record 1"
    var format = kind
    var household: String
    var remote: String
    var journalID: String
    var name: String
    var member: String?
    var pending: String?
    var kdf: String
    var invitations: [String] = []
    var verified: String?
    /// The name of this record's own key for the service, when the device held one for it already.
    var deviceKey: String?

    /// Where this device keeps its copy of the journal's frames, beside the record at `path`.
    static func copyPath(_ path: String) -> String { path + ".frames" }
    /// Where this device keeps its member's offline work until it is sent (``HouseholdOffline``).
    static func pendingPath(_ path: String) -> String { path + ".pending" }

    static func read(_ path: String) throws -> HouseholdRecord {
        guard let bytes = PrivateFiles.readSmallFile(path),
            let record = try? JSONDecoder().decode(HouseholdRecord.self, from: Data(bytes)), record.format == kind
        else { throw ValidationError("\(path) is not a household's record on this device (giftkeeper household create or join makes one).") }
        return record
    }

    func write(to path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        do {
            try PrivateFiles.replace(path, with: Array(try encoder.encode(self)))
        } catch {
            let io = error as? SystemCallError  // said as the I/O failure it is, with the path
            throw failure(io.map { JournalError(.io(operation: $0.operation, errno: $0.errno), path: path) as any Error } ?? error)
        }
    }

    var parameters: KDFParameters {
        switch kdf {
        case "interactive": .interactive
        case "sensitive": .sensitive
        default: .moderate
        }
    }

    /// The service, as this device's account there; this device's key for it opened (or a
    /// new one sealed) with the member's `password` (docs/threat-model.md).
    /// `sealingAlso`: secrets it is to open with from now on too (the recovery code when it
    /// is made; the new password after a recovery).
    /// `dropping`: a secret it is to open with no more (the old password after `passwd`).
    /// `unlocked`: the member's wrap, opened from the device's copy already: the key is sealed
    /// under its member key too, and opens with it (no second key derivation).
    /// `account`: ``account()``, made already (its challenge asked ahead).
    func service(
        password: SecureBytes, sealingAlso: [SecureBytes] = [], dropping: SecureBytes? = nil, unlocked: UnlockedWrap? = nil,
        account made: ServiceRemote? = nil
    ) throws -> ServiceRemote {
        let remote = try made ?? account()
        try remote.useDeviceKey(
            DeviceKeyAccess(
                epochs: unlocked.map { [$0.deviceKeyEpoch] } ?? [], password: password, parameters: parameters, sealingAlso: sealingAlso,
                dropping: dropping, keepsOwnSeals: true))
        return remote
    }

    /// The service, as this device's account there (this record's key, if it has its own), the key not opened yet.
    func account() throws -> ServiceRemote {
        guard let open = productionEnvironment(remote: remote).remoteLocation, let remote = try open(remote) as? ServiceRemote else {
            throw failure(ServiceError(.noRemote))
        }
        if let deviceKey { remote.useKey(named: deviceKey) }
        return remote
    }

    var id: [UInt8] { unhex(journalID) ?? [] }
    var memberID: MemberID? { member.flatMap { unhex($0) }.flatMap { MemberID(bytes: $0) } }

    /// The device's copy beside the record at `path`, opened for a sign-in (``HouseholdCopy``).
    func copy(at path: String) -> Journal? { HouseholdCopy.opened(at: Self.copyPath(path), journalID: id) }

    /// This member's wrap in the device's `copy`, opened with their password (or
    /// `recoveryCode`): the sign-in's one key derivation (``UnlockedWrap``); nil without a copy.
    func unlock(_ copy: Journal?, password: SecureBytes, recoveryCode: SecureBytes? = nil) throws(HouseholdError) -> UnlockedWrap? {
        guard let copy, let memberID else { return nil }
        return try HouseholdMember.unlock(copy, as: memberID, password: password, recoveryCode: recoveryCode)
    }

    /// How far this device verified the journal (``HouseholdMember/verifiedMark()``), as kept.
    var verifiedMark: [UInt8]? { verified.flatMap { unhex($0) } }

    /// Notes what `member` verified: the mark, and their frames in the copy beside the record
    /// at `path` (a head start only: without it the next sign-in reads more). Nothing after a
    /// `leave` (there is nothing more to read). `copy`: the copy as the sign-in opened it.
    mutating func noteVerified(by member: HouseholdMember, at path: String, copy: Journal? = nil) {
        guard let mark = try? member.verifiedMark() else { return }
        verified = hexString(mark)
        try? HouseholdCopy.keep(member.store, at: Self.copyPath(path), opened: copy)
    }
}

/// What the shell's sign-in holds of the device's copy: the copy opened once, and the
/// member's wrap in it opened with the password (``HouseholdRecord/unlock(_:password:recoveryCode:)``),
/// for this device's key for the service and the member's session alike.
final class CopyAtHand {
    var copy: Journal?
    var unlocked: UnlockedWrap?
}

/// The device's copy for the shell (``HouseholdShellService/DeviceCopy``) of the household
/// whose record is at `path`: opened, and the member's wrap in it, at each sign-in (into
/// `hand`, for the store); the mark read from the record; and what the member verified noted
/// in it (the record read again: a command may have changed it since).
func householdDeviceCopy(at path: String, hand: CopyAtHand) -> HouseholdShellService.DeviceCopy {
    HouseholdShellService.DeviceCopy(
        mark: { (try? HouseholdRecord.read(path))?.verifiedMark },
        keep: { member in
            guard var record = try? HouseholdRecord.read(path) else { return }
            record.noteVerified(by: member, at: path, copy: hand.copy)
            try? record.write(to: path)
        },
        unlock: { (password: SecureBytes) throws(HouseholdError) -> UnlockedWrap? in
            hand.unlocked = nil
            let record = try? HouseholdRecord.read(path)
            hand.copy = record?.copy(at: path)
            hand.unlocked = try record?.unlock(hand.copy, password: password)
            return hand.unlocked
        })
}

/// The shell's session for `journalPath`: a household member's when it is a household's
/// record on this device, else a person's journal. `listening`: whether a household's
/// journal starts the service's live socket (a shell's; a one-shot's need not).
/// - Throws: a record that cannot be used yet (not admitted).
func shellService(journalPath: String, environment: ServiceEnvironment, listening: Bool = true) throws(ServiceError) -> any ShellService {
    if let household = try householdShellService(at: journalPath, listening: listening) { return household }
    return GiftKeeperService(journalPath: journalPath, environment: environment)
}

/// The shell's session when `path` is a household's record on this device (it starts with
/// `{`; a journal never does): the member signs in through the service, online
/// (``HouseholdShellService``), reading from it only the frames after the device's copy,
/// and verifying only those after its mark. Nil for anything else (a person's journal, or
/// nothing yet). `listening`: ``ServiceRemote/listensForChanges``.
func householdShellService(at path: String, listening: Bool = true) throws(ServiceError) -> HouseholdShellService? {
    guard let bytes = PrivateFiles.readSmallFile(path), bytes.first == UInt8(ascii: "{"),
        let record = try? HouseholdRecord.read(path)
    else { return nil }
    guard let member = record.member.flatMap({ unhex($0) }).flatMap({ MemberID(bytes: $0) }) else {
        // Admitted since? A `household` command completes the join first (it shows the recovery code).
        throw ServiceError(.household(.notAMember))
    }
    let desk = ServiceDesk(nil, record: record, path: path)
    let hand = CopyAtHand()
    let system = productionEnvironment()
    let service = HouseholdShellService(
        journalPath: path, member: member, name: record.name, now: system.now, server: record.remote,
        copy: householdDeviceCopy(at: path, hand: hand), sleep: system.sleep, isCancelled: system.isCancelled
    ) { (password: SecureBytes) throws(ServiceError) -> any FrameStore in
        try HouseholdShellService.reaching { () throws -> any FrameStore in
            // This device's key for the service is sealed under the member's password, and
            // under their member key (the wrap the copy opened, `hand`).
            let remote = try record.service(password: password, unlocked: hand.unlocked)
            remote.listensForChanges = listening
            desk.remote = remote
            guard let store = try HouseholdCopy.open(remote, journalID: record.id, copy: hand.copy) else {
                throw ServiceError(.household(.notAMember))
            }
            return store
        }
    }
    service.desk = desk
    service.loginReports = record.loginReports
    service.offline = .init(copy: HouseholdRecord.copyPath(path), pending: HouseholdRecord.pendingPath(path))
    service.onPasswordChange = { old, new, store, renew in try renewHouseholdKeys(at: path, old: old, new: new, store: store, renew: renew) }
    service.carryOver = { session, old, ask throws(ServiceError) in
        try HouseholdShellService.reaching { try carryOver(session, at: path, old: old, ask: ask, now: system.now) }
    }
    return service
}

extension Audit {
    /// `audit` of a household's record: signs in as its member, which verifies the chain and
    /// every frame's author signature (a forged one is refused with its position, exit 1),
    /// then says who did what among the events this member may read.
    func auditHousehold(_ household: HouseholdShellService) throws {
        try reportingFailures {
            let secret = try password.readPassword()
            defer { secret.wipe() }
            try household.login(password: secret)
        }
        defer { try? household.close() }
        guard let session = household.household else { return }
        let console = Console()
        var lines = Console.Lines(console)
        var readable = 0
        for (author, entry) in session.history {
            guard let event = entry.event else { continue }
            readable += 1
            if json {
                lines.print(
                    JSONWriter.line([
                        ("seq", .number(Int64(entry.sequence))), ("time", .string(event.at.iso8601)),
                        ("event", .string(event.typeName)), ("summary", .string(AuditWords.summary(event.body))),
                        ("reported", .bool(false)), ("author", author.map { .string($0) } ?? .null),
                    ]))
            } else {
                lines.print(AuditWords.householdLine(sequence: entry.sequence, at: event.at, author: author, event.body))
            }
        }
        lines.flush()
        let frames = household.headSequence
        if json {
            console.print(
                JSONWriter.line([
                    ("verdict", .string("ok")), ("events", .number(Int64(readable))), ("failedLoginsReported", .number(0)),
                    ("frames", .number(Int64(frames))),
                ]))
        } else {
            console.print(AuditWords.householdVerdict(frames: frames, readable: readable))
        }
    }
}

/// A household command's work: the record at `path`, signed in as its member with the
/// password `password` gives, or `current` (a joiner admitted since their last command completes their
/// join first, and is shown their recovery code once), then `body`.
func withHousehold(
    _ path: String, password: PasswordOption, recoveryCode: SecureBytes? = nil, current: SecureBytes? = nil,
    _ body: (HouseholdSession, inout HouseholdRecord, ServiceRemote) throws -> Void
) throws {
    var record = try HouseholdRecord.read(path)
    let system = productionEnvironment()
    let now = system.now
    try reportingFailures {
        // `current`: the password, read already (`household passwd` needs it again after).
        let secret = recoveryCode == nil ? try current ?? password.readPassword() : try SecureBytes(capacity: 0)
        // The failures recorded here make the wait before the check, counted down, as in the shell (SPEC §1).
        let countdown = WaitCountdown(console: Console(), progress: GiftKeeperREPL.Progress(label: "Waiting"))
        guard
            HouseholdLoginReports.waitBeforeChecking(
                record: path, sleep: system.sleep, isCancelled: system.isCancelled, onWaiting: countdown.update)
        else { throw ServiceError(.cancelled) }
        // The member's wrap in the device's copy opens with the password (or code): the one
        // key derivation, as this device's key for the service is sealed under its member key
        // too. Without a copy, that key opens with the password or recovery code itself
        // (sealed under both when they were made), and the wrap with it after.
        let copy = record.member == nil ? nil : record.copy(at: path)
        // The service's challenge is asked for now: its connection is made during the key derivation.
        let account = try? record.account()
        account?.askChallengeAhead()
        let unlocked: UnlockedWrap?
        do throws(HouseholdError) {
            unlocked = try record.unlock(copy, password: secret, recoveryCode: recoveryCode)
        } catch .wrongPassword where recoveryCode != nil {
            Console().error(HouseholdWords.wrongRecoveryCode)
            throw ExitCode(3)
        } catch .wrongPassword {
            HouseholdLoginReports.recordFailure(record: path, at: now(), mailbox: record.loginReports)
            throw HouseholdSessionError.household(.wrongPassword)
        } catch {
            throw HouseholdSessionError.household(error)
        }
        let remote: ServiceRemote
        do {
            remote = try record.service(password: recoveryCode ?? secret, unlocked: unlocked, account: account)
        } catch let error as JournalError where recoveryCode == nil && error.code == .unreachable(.deviceKey(.otherPassword)) {
            HouseholdLoginReports.recordFailure(record: path, at: now(), mailbox: record.loginReports)  // told at the next sign-in
            throw error
        } catch let error as JournalError where recoveryCode != nil {
            guard case .unreachable(.deviceKey(.otherPassword)) = error.code else { throw error }
            Console().error(HouseholdWords.wrongRecoveryCode)
            throw ExitCode(3)
        }
        remote.listensForChanges = false  // a command catches up, then ends: no live socket
        guard let store = try HouseholdCopy.open(remote, journalID: record.id, copy: copy) else {
            throw HouseholdSessionError.household(.notAMember)
        }
        let session: HouseholdSession
        if let member = record.memberID {
            do {
                session = try HouseholdSession.open(
                    store, as: member, name: record.name, password: secret, recoveryCode: recoveryCode,
                    verifiedMark: record.verifiedMark, unlocked: unlocked, now: now)
            } catch HouseholdSessionError.household(.wrongPassword) where recoveryCode != nil {
                Console().error(HouseholdWords.wrongRecoveryCode)
                throw ExitCode(3)
            } catch HouseholdSessionError.household(.wrongPassword) {
                HouseholdLoginReports.recordFailure(record: path, at: now(), mailbox: record.loginReports)
                throw HouseholdSessionError.household(.wrongPassword)
            }
        } else {
            guard recoveryCode == nil else { throw HouseholdSessionError.household(.notAMember) }
            let pending = HouseholdSession.PendingJoin(journalID: record.id, wrap: unhex(record.pending ?? "") ?? [])
            let recovery = try RecoveryCode.make()
            session = try HouseholdSession.completeJoin(
                pending, in: store, name: record.name, password: secret, recoveryCode: recovery.secret,
                parameters: record.parameters, now: now)
            record.member = hexString(session.id.bytes)
            record.pending = nil
            try record.write(to: path)
            _ = try record.service(password: secret, sealingAlso: [recovery.secret])  // the recovery code opens this device's key too
            Console().note(HouseholdWords.recoveryCode(recovery.text))
        }
        var signedIn = session
        if session.isRenewedElsewhere && recoveryCode == nil {  // the member's `passwd` ran on another device
            tellFailedLogins(at: path, record: record, session: session)  // sealed to the old keys
            signedIn = try carryOver(session, at: path, old: secret, ask: askRenewedPassword, now: now)
            record = try HouseholdRecord.read(path)
        }
        tellFailedLogins(at: path, record: record, session: signedIn)
        try body(signedIn, &record, remote)
        record.noteVerified(by: signedIn.member, at: path, copy: copy)
        try record.write(to: path)
    }
}

/// Runs `body`, each failure said in one line and turned into its exit code (SPEC §2).
func reportingFailures(_ body: () throws -> Void) throws {
    do {
        try body()
    } catch let error as HouseholdSessionError {
        throw householdFailure(error)
    } catch let error as InvitationError {
        throw householdFailure(.invitation(error))
    } catch let error as ExitCode {
        throw error
    } catch {
        throw failure(error)
    }
}

/// Prints `error` as one line and turns it into its exit code.
func householdFailure(_ error: HouseholdSessionError) -> ExitCode {
    if case .domain(let domain) = error { return failure(domain) }
    let (sentence, code) = HouseholdWords.refusal(error)
    Console().error(sentence)
    return ExitCode(code)
}
