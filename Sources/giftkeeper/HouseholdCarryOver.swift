import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperREPL
import GiftKeeperSealing
import GiftKeeperService

/// A member's other device after their `passwd` on one of them (docs/threat-model.md,
/// "Carrying a member's other devices over"): signed in with the old password as the old
/// identity (`session`), it says so and asks the new password with `ask` (the shell's prompt;
/// a one-shot's next line). That password must open the renewal's wrap, which must hold this
/// device's identity; then this device's key for the service is sealed under the new password
/// and the new member key, the record at `path` names the new member id with a verified mark
/// made again under the new keys (files 0600), and the old password's seal is dropped.
/// Answers the new identity's session.
/// - Throws: `.householdRenewalNotOpened` (exit 3) for a wrong new password or another
///   member's renewal: nothing changed.
func carryOver(
    _ session: HouseholdSession, at path: String, old: SecureBytes, ask: (String) throws -> SecureBytes,
    now: @escaping @Sendable () -> Timestamp
) throws -> HouseholdSession {
    Console().note(HouseholdWords.renewedElsewhere)
    let new: SecureBytes
    do {
        new = try ask(HouseholdWords.renewedPasswordPrompt)
    } catch {
        throw ServiceError(.cancelled)  // no new password given (end of input, Ctrl-C): nothing changed
    }
    defer { new.wipe() }
    let carried: (session: HouseholdSession, unlocked: UnlockedWrap)
    do {
        guard let found = try session.carriedOver(password: new, now: now) else {
            throw ServiceError(.householdRenewalNotOpened(opened: true))
        }
        carried = found
    } catch HouseholdSessionError.household(.wrongPassword) {
        throw ServiceError(.householdRenewalNotOpened(opened: false))
    }
    var record = try HouseholdRecord.read(path)
    // Sealed under the new password first, then under the new member key (the old wrap's
    // seal goes with it), so this device reaches the service whatever happens next.
    _ = try record.service(password: old, sealingAlso: [new])
    _ = try record.service(password: new, unlocked: carried.unlocked)
    record.member = hexString(carried.session.id.bytes)
    record.verified = nil
    record.noteVerified(by: carried.session.member, at: path)
    try record.write(to: path)
    _ = try record.service(password: new, dropping: old)
    Console().note(HouseholdWords.carriedOver)
    return carried.session
}

/// A household command's ask for the new password after a `passwd` elsewhere: the terminal,
/// or standard input's next line (as `household passwd` reads its lines).
func askRenewedPassword(_ prompt: String) throws -> SecureBytes {
    try PasswordReader.normalized(try TerminalSession.makePasswordSource(passwordFile: nil).readPassword(prompt: prompt))
}
