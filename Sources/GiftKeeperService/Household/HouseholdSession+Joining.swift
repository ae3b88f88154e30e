package import GiftKeeperCrypto
package import GiftKeeperDomain
package import GiftKeeperJournal
package import GiftKeeperSealing

/// Joining through a service (SPEC §13): the service serves a household's journal to its
/// members only, so a joiner writes nothing into it before an owner admits them. Their new
/// identity waits on their device meanwhile as a ``PendingJoin``; their first sign-in after
/// the admission writes their key wrap into the journal and signs their name.
extension HouseholdSession {
    /// A joiner's identity before their admission: a member key wrap (docs/journal-format.md,
    /// kind 4) under their password, bound to position 0 of the household's journal, where no
    /// frame ever stands, so it can never pass for a frame of the journal. It holds only
    /// public keys and sealed bytes: the device keeps it in a private file (mode 0600).
    package struct PendingJoin: Sendable {
        /// The household's journal id.
        package let journalID: [UInt8]
        /// The wrap's bytes.
        package let wrap: [UInt8]

        package init(journalID: [UInt8], wrap: [UInt8]) {
            self.journalID = journalID
            self.wrap = wrap
        }

        static func binding(_ journalID: [UInt8]) -> FrameBinding { .pendingMemberWrap(journalID: journalID) }

        /// The joiner's public keys (what their join request carries).
        package func keys() throws(HouseholdSessionError) -> MemberKeys {
            do {
                return try MemberWrapPayload(parsing: wrap, binding: Self.binding(journalID)).keys
            } catch {
                throw .household(.refused(HouseholdRefusal(sequence: 0, reason: .memberWrap(error))))
            }
        }
    }

    /// A new identity for joining household `journalID`, kept under `password` until the
    /// admission, and its secrets for the join request (``answer(_:owner:joiner:household:)``).
    package static func prepareJoin(household journalID: [UInt8], password: SecureBytes, parameters: KDFParameters)
        throws(HouseholdSessionError) -> (pending: PendingJoin, secrets: MemberSecrets)
    {
        do {
            let secrets = try MemberSecrets.generate()
            // The pending wrap's recovery half is under a code nobody keeps: the recovery code
            // is made, and shown, when the wrap goes into the journal.
            let unused = try SecureBytes.random(count: 16)
            let wrap = try MemberWrapPayload.make(
                secrets, password: password, recoveryCode: unused, parameters: parameters, binding: PendingJoin.binding(journalID))
            return (PendingJoin(journalID: journalID, wrap: wrap), secrets)
        } catch {
            throw .household(.sealing(SealingError(error)))
        }
    }

    /// The first sign-in of a joiner an owner admitted: `password` opens `pending`, their key
    /// wrap goes into `store` (the household's journal) with a new `recoveryCode` (show it
    /// once), and they catch up, signing their name. Refused, nothing written, with the wrong
    /// password, or before the admission (``HouseholdError/notAMember``).
    package static func completeJoin(
        _ pending: PendingJoin, in store: any FrameStore, name: String, password: SecureBytes, recoveryCode: SecureBytes,
        parameters: KDFParameters, now: @escaping @Sendable () -> Timestamp
    ) throws(HouseholdSessionError) -> HouseholdSession {
        guard store.header.journalID == pending.journalID else { throw .household(.noKeyWrap) }
        let secrets: MemberSecrets
        do {
            let binding = PendingJoin.binding(pending.journalID)
            secrets = try MemberWrapPayload(parsing: pending.wrap, binding: binding).open(password: password, binding: binding)
        } catch MemberWrapFault.wrongPassword {
            throw .household(.wrongPassword)
        } catch {
            throw .household(.sealing(SealingError(error)))
        }
        // Admitted yet? A keyring of the joiner's own takes in the journal as it stands.
        var keyring = MemberKeyring(me: secrets, header: store.header)
        do {
            _ = try store.waitForFrames(after: store.head.sequence, milliseconds: 0)
            try store.read(after: 0, progress: nil) { frame in _ = try keyring.takeIn(frame) }
        } catch let refusal as HouseholdRefusal {
            throw .household(.refused(refusal))
        } catch {
            throw .household(.sealing(SealingError(error)))
        }
        guard keyring.isMember else { throw .household(.notAMember) }
        return try signUp(
            .joining, in: store, name: name, password: password, recoveryCode: recoveryCode, parameters: parameters,
            secrets: secrets, now: now
        ).caughtUp()
    }

    private func caughtUp() throws(HouseholdSessionError) -> HouseholdSession {
        try catchUp()
        return self
    }
}
