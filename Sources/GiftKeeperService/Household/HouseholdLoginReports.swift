import GiftKeeperCrypto
package import GiftKeeperDomain
import GiftKeeperFiles
import GiftKeeperJournal
package import GiftKeeperSealing

/// Failed sign-ins to a household on this device, told to the member at their next sign-in
/// as a person's journal tells them (SPEC §1, §4). A wrong password opens no key, so each
/// attempt is a sealed box (`crypto_box_seal`) of its time to the member's X25519 public key,
/// which only their secret key opens. They are kept beside the device's record, at
/// `RECORD.logins` (mode 0600): the member's public key in hex on the first line, kept at each
/// sign-in, then one sealed attempt a line. A wrong password writes no name and no key, and
/// only the member who signs in on this device is told. Anyone who can write the file can add
/// or drop attempts: they are *reported* attempts, as in a person's journal.
package enum HouseholdLoginReports {
    /// At most this many attempts are kept until the member next signs in.
    static let limit = 400
    static let magic = Array("GKFAIL01".utf8)

    package static func path(_ record: String) -> String { record + ".logins" }

    /// Records a failed sign-in at `time`, sealed to the public key kept at the member's last
    /// sign-in on this device (nothing before their first); whether it was recorded.
    @discardableResult
    package static func recordFailure(record: String, at time: Timestamp) -> Bool {
        guard var lines = read(record), let key = lines.first.flatMap({ unhex($0) }), lines.count <= limit else { return false }
        var attempt = magic
        for shift in stride(from: 0, to: 64, by: 8) { attempt.append(UInt8(truncatingIfNeeded: time.millisecondsSinceEpoch >> shift)) }
        guard let sealed = try? SealedBox.seal(attempt, to: key) else { return false }
        lines.append(hexString(sealed))
        return write(lines, record: record)
    }

    /// How many failed sign-ins were recorded on this device since the member's last sign-in
    /// here: the wait before the next password check grows with them (SPEC §1,
    /// ``loginDelay(afterFailures:)``). Counted without opening them (no key is held yet).
    package static func pending(record: String) -> Int {
        max((read(record)?.count ?? 0) - 1, 0)
    }

    /// Waits before a password check on this device as SPEC §1 says, in the shell and in the
    /// one-shot `household` commands alike (as a person's journal waits in both): the failures
    /// recorded here since the member's last sign-in make the wait (``loginDelay(afterFailures:)``),
    /// a second at a time by `sleep`, `onWaiting` told the seconds left (0 at the end).
    /// Whether the check may go on: false when `isCancelled` (Ctrl-C) ended the wait.
    package static func waitBeforeChecking(
        record: String, sleep: (Int) -> Void, isCancelled: () -> Bool, onWaiting: ((Int) -> Void)?
    ) -> Bool {
        let seconds = loginDelay(afterFailures: pending(record: record))
        guard seconds > 0 else { return true }
        for left in stride(from: seconds, to: 0, by: -1) {
            if isCancelled() { break }
            onWaiting?(left)
            sleep(1)
        }
        onWaiting?(0)
        return !isCancelled()
    }

    /// Whether `error`, met signing in, is a wrong password: the member's wrap did not open,
    /// or this device's key for the service did not (it is sealed under the password).
    package static func isWrongPassword(_ error: ServiceError) -> Bool {
        switch error.code {
        case .wrongPassword: true
        case .journal(let journal): journal.code == .unreachable(.deviceKey(.otherPassword))
        default: false
        }
    }

    /// At a sign-in as `member` on this device: the failed attempts recorded since their last
    /// one (those their key opens); the file then holds their public key alone.
    package static func signedIn(record: String, as member: MemberIdentity) -> Int {
        let attempts = (read(record) ?? []).dropFirst().filter { line in
            guard let sealed = unhex(line), let opened = try? SealedBox.open(sealed, with: member.sealing) else { return false }
            return opened.count == magic.count + 8 && opened.starts(with: magic)
        }
        write([hexString(member.keys.sealing)], record: record)
        return attempts.count
    }

    private static func read(_ record: String) -> [String]? {
        PrivateFiles.readSmallFile(path(record)).map { bytes in
            String(decoding: bytes, as: UTF8.self).split(separator: "\n").map(String.init)
        }
    }

    @discardableResult
    private static func write(_ lines: [String], record: String) -> Bool {
        (try? PrivateFiles.replace(path(record), with: Array(lines.map { $0 + "\n" }.joined().utf8))) != nil
    }
}
