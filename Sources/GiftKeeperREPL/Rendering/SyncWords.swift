public import GiftKeeperDomain
public import GiftKeeperService

/// Sync in words (SPEC §12): what a sync did, each resolution of offline changes in one
/// line, and being offline.
public enum SyncWords {
    /// One line for a resolution: `⇄ p3 "Kite" is now p4 (p3 was taken on another device)`.
    public static func resolution(_ resolution: Resolution) -> String {
        switch resolution {
        case .renumbered(let from, let to, let title):
            return "⇄ \(from) \(HistoryWords.quoted(title)) is now \(to) (\(from) was taken on another device)"
        case .restored(let id, let title):
            return "⇄ \(id) \(HistoryWords.quoted(title)) was removed on another device; your change brought it back"
        case .alreadyDone(let body):
            return "⇄ Already done on another device: \(AuditWords.summary(body))"
        case .wishRenumbered(let from, let to, let title):
            return "⇄ Wish \(from) \(HistoryWords.quoted(title)) is now \(to) (\(from) was taken by another member's wish)"
        case .claimedFirst(let id, let claimer):
            return "⇄ \(claimer) claimed wish \(id) first; your present for it stays on your list, unclaimed"
        }
    }

    /// What a sync the shell ran by itself says: a restore announced, then ``told(_:)``.
    /// (An explicit `sync` says the restore in its ``report(_:)`` line.)
    public static func automatic(_ report: SyncReport) -> [String] {
        (report.serverRestored ? [restored(report)] : []) + told(report)
    }

    /// Every line a sync tells of how this device's changes met other devices': each
    /// resolution of its offline changes, then each of its changes another device undid.

    public static func told(_ report: SyncReport) -> [String] {
        report.resolutions.map(resolution) + report.overridden.map(overridden)
    }

    /// One line for a change of this device's that another device's undid, and what won:
    /// `⇄ p1 "Lego set": your price 30.00 gave way to 35.00 from another device`; in a
    /// household, whose change won (`… gave way to 35.00 from Bob`, `… from another device
    /// of yours`).
    public static func overridden(_ change: OverriddenChange) -> String {
        let present = "\(change.id) \(HistoryWords.quoted(change.title))"
        switch change.kind {
        case .replaced(let yours, let winning):
            return "⇄ \(present): your \(words(yours)) gave way to \(value(winning)) from \(source(change.winner))"
        case .removed(let yours):
            return "⇄ \(present) was removed \(place(change.winner)) after your change (\(words(yours)))"
        case .broughtBack:
            let by = if case .member(let name) = change.winner { name + "'s change" } else { "a change " + place(change.winner) }
            return "⇄ \(present), which you removed, was brought back by \(by)"
        }
    }

    /// `another device`, `another device of yours`, `Bob`.
    private static func source(_ winner: OverriddenChange.Winner) -> String {
        switch winner {
        case .anotherDevice: "another device"
        case .yourOtherDevice: "another device of yours"
        case .member(let name): name
        }
    }

    /// `on another device`, `on another device of yours`, `by Bob`.
    private static func place(_ winner: OverriddenChange.Winner) -> String {
        if case .member(let name) = winner { return "by " + name }
        return "on " + source(winner)
    }

    /// `price 30.00`, `status bought`.
    private static func words(_ value: PresentChangeValue) -> String {
        switch value {
        case .field(let change): "\(change.field.rawValue) \(HistoryWords.value(change))"
        case .status(let status): "status \(status)"
        }
    }

    private static func value(_ value: PresentChangeValue) -> String {
        switch value {
        case .field(let change): HistoryWords.value(change)
        case .status(let status): "\(status)"
        }
    }

    /// Said once, when a sync made the journal's copy on a server: a sync service enrols
    /// each other device with a one-time code (SPEC §12).
    public static func shared(_ report: SyncReport) -> String {
        "Shared through \(report.server). For another device: giftkeeper device add, "
            + "then there: giftkeeper clone 'CODE' --journal PATH"
    }

    /// What an explicit `sync` did, in one line.
    public static func report(_ report: SyncReport) -> String {
        if report.serverRestored { return restored(report) }
        if report.createdOnServer { return shared(report) + " (sent \(frames(report.sent)))." }
        if report.sent == 0, report.received == 0 {
            return "Up to date with \(report.server)" + checked(report) + "."
        }
        var parts: [String] = []
        if report.sent > 0 { parts.append("sent \(frames(report.sent))") }
        if report.received > 0 { parts.append("received \(frames(report.received))") }
        return "Synced with \(report.server): " + parts.joined(separator: ", ") + checked(report) + "."
    }

    /// `; checked against 2 other devices` when the other devices' posted heads were
    /// checked (signed in), so that a device missing from the count can be noticed.
    private static func checked(_ report: SyncReport) -> String {
        guard let others = report.otherDevices, others > 0 else { return "" }
        return "; checked against \(others) other device\(others == 1 ? "" : "s")"
    }

    private static func frames(_ count: Int) -> String { count == 1 ? "1 frame" : "\(count) frames" }

    /// Said when a sync found that the server announced a restore from a backup (a new
    /// epoch): what this device held beyond the backup was sent again.
    public static func restored(_ report: SyncReport) -> String {
        "↺ The server \(report.server) was restored from a backup; this device sent what it lacked "
            + "(\(frames(report.sent)))."
    }

    /// What a server caught lying did (exit 1), and that this device sends it nothing until
    /// a sync finds it consistent again.
    static func lie(_ code: ServiceError.Code) -> String {
        let untrusted = "Nothing was taken from it, and nothing is sent to it until a sync finds it consistent again."
        switch code {
        case .remoteDiverged(let server, let sequence, let shared):
            return "The server \(server) does not hold this journal's history: its frame \(sequence) differs from this device's, "
                + "though it held the same \(shared) frames before (a forked or rewritten server). " + untrusted
        case .remoteBehind(let server, let has, let shared):
            return "The server \(server) holds \(has) frames of this journal, but this device saw \(shared) there "
                + "(restored from an older backup, or frames dropped). " + untrusted
                + " If its operator restored a backup, 'giftkeeper-server restored' tells every device; "
                + "'giftkeeper sync --restore-server' sends this device's frames back."
        case .remoteHidesFrames(let server, let has, let seen):
            return "The server \(server) shows this device \(has) frames of this journal, but another device saw \(seen) there "
                + "(frames hidden from this device, or a server restored from a backup). " + untrusted
                + " On the device that saw them, 'giftkeeper sync --restore-server' sends them back."
        case .remoteHidesProgress(let server, let shown, let seen):
            return "The server \(server) shows this device an older head of another device (at frame \(shown)) than "
                + "a device saw it reach (frame \(seen)): it hides that device's progress. " + untrusted
        case .remoteForked(let server, let sequence):
            return "The server \(server) showed another device a different frame \(sequence) of this journal than it shows this one "
                + "(a forked server). " + untrusted
        case .remoteForgedDeviceHead(let server):
            return "The server \(server) holds a device's head that does not authenticate under this journal's keys "
                + "(made or altered on the server). " + untrusted
        default:
            return ""
        }
    }

    /// Said when a change could not be sent: it is kept here and goes at the next sync.
    public static func offline(unsent: UInt64, server: String, reason: String) -> String {
        "Offline (\(server): \(reason)): \(waiting(unsent)) here and will be sent at the next sync."
    }

    /// Said when the server was reached but what waits here was not sent (a quota, other
    /// devices appending while this one caught up): recorded here, it goes at the next sync.
    public static func notSent(unsent: UInt64, server: String, reason: String) -> String {
        "Not sent yet (\(server): \(reason)): \(waiting(unsent)) here and will be sent at the next sync."
    }

    /// Why a sync gave up catching up with the server.
    static let keptChanging = "other devices kept changing the journal while this one caught up"

    private static func waiting(_ unsent: UInt64) -> String {
        unsent == 1 ? "1 frame waits" : "\(unsent) frames wait"
    }
}
