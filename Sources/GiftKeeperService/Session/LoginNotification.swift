public import GiftKeeperDomain

/// A change of login status, announced as it happens (SPEC §1.4).
public enum LoginNotification: Equatable, Sendable {
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
    /// The record of the journal's head cannot be read or written in `directory` (not
    /// writable, or something else in the record's place): rollback detection is off.
    case rollbackMemoryUnavailable(directory: String)
    /// After a rollback warning, a change was made in an interactive session: the journal
    /// as it is now is remembered from here on, and the warning stops.
    case rollbackAccepted
    /// A household member removed while this device was offline: their `changes` made
    /// offline stay on this device, readable, and are never sent.
    case keptOffline(changes: Int)
    /// A wrong password for a household's record on this device: perhaps the member's new
    /// one, after their `passwd` on another device (the old one signs in once to carry it over).
    case householdPasswordMayBeNew

}
