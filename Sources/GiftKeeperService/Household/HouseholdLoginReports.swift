import GiftKeeperCrypto
package import GiftKeeperDomain
import GiftKeeperFiles
package import GiftKeeperJournal
package import GiftKeeperSealing

/// The service's side of failed sign-in reports (``HouseholdLoginReports``), as a device
/// reaches it: a report posted with the device's report token alone, and, at a sign-in, the
/// device's new token registered and the member's mailbox taken.
package protocol LoginReportMailbox {
    /// Posts `report` with report token `token` alone (no key is open); whether the service
    /// kept it. Never throws: a service that cannot be reached keeps nothing.
    func post(token: [UInt8], report: [UInt8]) -> Bool
    /// Registers this device's new report token by its hash `tokenHash`, naming the member
    /// key `sealingKey`, on the service that `store` is, and takes the member's mailbox (read
    /// and deleted in one transaction); nil when `store` is no service's, or it was not reached.
    func take(tokenHash: [UInt8], sealingKey: [UInt8], store: any FrameStore) -> [[UInt8]]?
}

/// Failed sign-ins to a household, told to the member at their next sign-in on any of their
/// devices, as a person's journal tells them (SPEC §1, §4). A wrong password opens no key, so
/// each attempt is a sealed box (`crypto_box_seal`) to the member's X25519 public key of
/// `GKFAIL02`, a random report id and its time, which only their secret key opens. They are
/// kept beside the device's record, at `RECORD.logins` (mode 0600): the member's public key
/// in hex on the first line, kept at each sign-in, with this device's report token, then one
/// sealed attempt a line, marked `posted` once the service kept it in the member's mailbox
/// (``LoginReportMailbox``). A sign-in on any of the member's devices takes the mailbox and
/// tells what it opens, merged by report id with the device's own attempts; a posted attempt
/// is told by whichever device takes it, so once. A wrong password writes no name and no
/// key. Anyone who can write the file (or holds the token) can add or drop attempts: they are
/// *reported* attempts, as in a person's journal.
package enum HouseholdLoginReports {
    /// At most this many attempts are kept until the member next signs in.
    static let limit = 400
    static let magic = Array("GKFAIL02".utf8)
    /// The attempts of files written before reports had ids (their time alone).
    static let firstMagic = Array("GKFAIL01".utf8)
    static let postedMark = "posted "

    package static func path(_ record: String) -> String { record + ".logins" }

    /// Records a failed sign-in at `time`, sealed to the public key kept at the member's last
    /// sign-in on this device (nothing before their first), and posts it to their mailbox
    /// with this device's report token (`mailbox`); whether it was recorded here.
    @discardableResult
    package static func recordFailure(record: String, at time: Timestamp, mailbox: (any LoginReportMailbox)? = nil) -> Bool {
        guard var lines = read(record), let first = lines.first.flatMap(keyAndToken), lines.count <= limit,
            let id = try? randomBytes(count: 16)
        else { return false }
        var attempt = magic + id
        for shift in stride(from: 0, to: 64, by: 8) { attempt.append(UInt8(truncatingIfNeeded: time.millisecondsSinceEpoch >> shift)) }
        guard let sealed = try? SealedBox.seal(attempt, to: first.key) else { return false }
        lines.append(hexString(sealed))
        // Kept here first: the post may wait for the service, up to its requests' deadline.
        guard write(lines, record: record) else { return false }
        guard let token = first.token, let mailbox, mailbox.post(token: token, report: sealed) else { return true }
        lines[lines.count - 1] = postedMark + hexString(sealed)
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

    /// At a sign-in as `member` on this device: the failed attempts to tell, by report id —
    /// those recorded here that the service did not keep, and those in the member's mailbox
    /// (`mailbox`, on the service `store` is) that their key opens; this device's new report
    /// token registered with it. The file then holds their public key and the token alone.
    /// Where the mailbox cannot be reached, the attempts posted from here are told too.
    package static func signedIn(
        record: String, as member: MemberIdentity, mailbox: (any LoginReportMailbox)? = nil, store: (any FrameStore)? = nil
    ) -> Int {
        let lines = read(record) ?? []
        var told = Set<[UInt8]>()
        var posted = Set<[UInt8]>()
        for line in lines.dropFirst() {
            let isPosted = line.hasPrefix(postedMark)
            guard let sealed = unhex(String(line.dropFirst(isPosted ? postedMark.count : 0))), let id = reportID(sealed, member)
            else { continue }
            if isPosted { posted.insert(id) } else { told.insert(id) }
        }
        var token = lines.first.flatMap(keyAndToken)?.token
        let fresh = try? randomBytes(count: 32)
        let taken = fresh.flatMap { fresh in
            store.flatMap { mailbox?.take(tokenHash: Blake2b.hash(fresh), sealingKey: member.keys.sealing, store: $0) }
        }
        if let taken {
            token = fresh
            told.formUnion(taken.compactMap { reportID($0, member) })
        } else {
            told.formUnion(posted)
        }
        write([hexString(member.keys.sealing) + (token.map { " " + hexString($0) } ?? "")], record: record)
        return told.count
    }

    /// The id of the attempt `sealed`, when `member`'s key opens it: its random id, or for an
    /// attempt recorded before reports had ids, the box's own first bytes (its one-time key).
    static func reportID(_ sealed: [UInt8], _ member: MemberIdentity) -> [UInt8]? {
        guard let opened = try? SealedBox.open(sealed, with: member.sealing) else { return nil }
        if opened.count == magic.count + 24, opened.starts(with: magic) { return Array(opened[magic.count..<magic.count + 16]) }
        if opened.count == firstMagic.count + 8, opened.starts(with: firstMagic) { return Array(sealed.prefix(32)) }
        return nil
    }

    /// The member's public key and this device's report token, from the file's first line.
    static func keyAndToken(_ line: String) -> (key: [UInt8], token: [UInt8]?)? {
        let parts = line.split(separator: " ")
        guard let key = parts.first.flatMap({ unhex(String($0)) }) else { return nil }
        return (key, parts.count > 1 ? unhex(String(parts[1])) : nil)
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
