package import GiftKeeperCrypto
package import GiftKeeperDomain
package import GiftKeeperSealing

extension HouseholdSession {
    /// Whether this member's `passwd` may have run on another device of theirs: the epoch
    /// that left them out follows a renewal's key wrap (``HouseholdMember/isRenewedElsewhere``).
    /// The device then asks for the new password (``carriedOver(password:now:)``).
    package var isRenewedElsewhere: Bool { member.isRenewedElsewhere }

    /// This device carried over to the member's identity after their `passwd` on another
    /// device (docs/threat-model.md, "Carrying a member's other devices over"): `password`,
    /// the new one, opens the renewal's wrap, which holds this device's identity among its
    /// earlier ones; the session of the new identity, every frame verified again (no mark:
    /// the one kept is the old identity's), and the wrap, opened, for this device's key for
    /// the service. Nothing is written to the journal.
    /// Nil when what the password opens is not this identity's renewal (nothing taken from it).
    /// - Throws: `.household(.wrongPassword)` when the password opens no renewal;
    ///   `.household(.notAMember)` when the renewed identity is not a member now (removed
    ///   since, or renewed again with a newer password).
    package func carriedOver(password: SecureBytes, now: @escaping @Sendable () -> Timestamp) throws(HouseholdSessionError) -> (
        session: HouseholdSession, unlocked: UnlockedWrap
    )? {
        guard let renewal = try Self.household({ () throws(HouseholdError) in try member.renewalElsewhere(password: password) }) else {
            return nil
        }
        let session = try Self.open(member.store, as: renewal.id, name: name, password: password, unlocked: renewal.unlocked, now: now)
        guard session.member.keyring.isMember, session.member.keyring.identity.id == renewal.id else { throw .household(.notAMember) }
        return (session, renewal.unlocked)
    }
}
