public import GiftKeeperDomain

/// A change of login status, announced as it happens (SPEC §1.4).
public enum LoginNotification: Equatable, Sendable, CustomStringConvertible {
    /// Unlocked. `failedAttempts` counts the failed logins reported since the last visit.
    case signedIn(name: String, failedAttempts: Int, previousVisit: Timestamp?)
    /// Locked again; every key was wiped.
    case signedOut
    /// A wrong password; the next try waits `nextDelaySeconds`.
    case failedAttempt(recorded: Bool, nextDelaySeconds: Int)
    /// The previous session ended without a sign-out (a crash); recorded as such.
    case uncleanSessionRecorded
    /// The journal is shorter than it was at the end of the last session here.
    case eventsMissing(count: UInt64)
    /// The journal's history differs from what this machine saw last time.
    case historyDiverged(sequence: UInt64)
    /// The remembered head did not authenticate (the state file was altered).
    case rememberedHeadUnverified
    /// This machine remembers another journal at this path: this one replaced it.
    case journalReplaced
    /// After a rollback warning, a change was made in an interactive session: the journal
    /// as it is now is remembered from here on, and the warning stops.
    case rollbackAccepted

    /// What ends a rollback warning; until then it is shown at every sign-in.
    private static let untilAccepted =
        ". Restore the newer copy from a backup, or make a change in an interactive session to keep this one; until then this warning repeats."

    public var description: String {
        switch self {
        case .signedIn(let name, let failed, _):
            switch failed {
            case 0: return "🔓 Signed in as \(name)"
            case 1: return "🔓 Signed in as \(name) (1 failed attempt reported since your last visit)"
            default: return "🔓 Signed in as \(name) (\(failed) failed attempts reported since your last visit)"
            }
        case .signedOut:
            return "🔒 Signed out"
        case .failedAttempt(let recorded, let delay):
            let what = recorded ? "⚠️  Failed sign-in recorded" : "⚠️  Failed sign-in"
            return delay > 0 ? "\(what); the next try waits \(delay) s." : what + "."
        case .uncleanSessionRecorded:
            return "⚠️  Your last session ended without signing out; that is recorded in the history."
        case .eventsMissing(let count):
            return "🚨 \(count) event\(count == 1 ? "" : "s") missing since your last session: the journal was rolled back or replaced"
                + Self.untilAccepted
        case .historyDiverged(let sequence):
            return "🚨 The journal's history differs from your last session at event \(sequence): it was replaced or altered"
                + Self.untilAccepted
        case .rememberedHeadUnverified:
            return "🚨 The record of your last session does not verify: it was altered" + Self.untilAccepted
        case .journalReplaced:
            return "🚨 This is not the journal you last used at this path: it was replaced by another one" + Self.untilAccepted
        case .rollbackAccepted:
            return "⚠️  Carrying on with this journal as it is: the rollback warning will not be repeated."
        }
    }
}
