public import GiftKeeperCrypto
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperSealing

/// Setting up, signing in and out, and changing the password: the session's side of the
/// keys' life cycle, which ``AccountKeys`` carries out.
extension GiftKeeperService {
    /// Checks that `setup` could create an account named `name` here, before asking for a
    /// password: the phase, and the name's rules (non-empty, at most 200 characters).
    public func checkSetup(name: String) throws(ServiceError) {
        guard phase == .noAccount else {
            throw ServiceError(keyring == nil ? .journalExists(path: journalPath) : .alreadySignedIn)
        }
        do {
            _ = try GiftList.decide(.createAccount(name: normalized(name)), at: Timestamp(millisecondsSinceEpoch: 0), state: GiftList())
        } catch {
            throw ServiceError(.domain(error))
        }
    }

    /// Creates the journal and its account, then signs in.
    ///
    /// - Parameters:
    ///   - name: the account name (NFC-normalised here).
    ///   - password: NFC-normalised UTF-8 in guarded memory; never stored, nor any hash of it.
    ///   - parameters: the Argon2id cost; below ``KDFParameters/interactive`` only in tests.
    ///   - currency: the journal's currency code (`EUR`), if one is named.
    public func setup(
        name: String, password: SecureBytes, parameters: KDFParameters = .moderate, currency: String? = nil
    ) throws(ServiceError) {
        try AccountKeys(session: self).setup(name: name, password: password, parameters: parameters, currency: currency)
    }

    /// Unlocks with `password`, replays and verifies the whole journal, records the sign-in.
    ///
    /// Waits ``nextLoginDelay`` seconds first. A wrong password is recorded as a failed
    /// login sealed to the public key, announced, and thrown as ``ServiceError/Code/wrongPassword(recorded:)``.
    public func login(password: SecureBytes) throws(ServiceError) {
        try AccountKeys(session: self).login(password: password)
    }

    /// Signs out: records it, remembers the head, wipes every key and the decrypted state.
    public func signOut() throws(ServiceError) {
        try AccountKeys(session: self).signOut()
    }

    /// Changes the password: checks the old one, wraps a brand-new data key under the new
    /// one (new salt, same cost, new key pair), and carries the previous data key inside the
    /// new wrap so history stays readable with the new password only.
    public func changePassword(old: SecureBytes, new: SecureBytes) throws(ServiceError) {
        do {
            try AccountKeys(session: self).changePassword(old: old) { new }
        } catch let error as ServiceError {
            throw error
        } catch {
            throw ServiceError(sealing: SealingError(error))
        }
    }

    /// Like ``changePassword(old:new:)``, but asks `newPassword` for the new password only
    /// once the old one has been checked, so a mistyped current password is said at once.
    /// `newPassword`'s errors (a cancelled prompt, two entries that differ) are rethrown.
    public func changePassword(old: SecureBytes, newPassword: () throws -> SecureBytes) throws {
        try AccountKeys(session: self).changePassword(old: old, newPassword: newPassword)
    }
}
