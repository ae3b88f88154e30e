package import GiftKeeperCrypto
import GiftKeeperJournal

/// A member's other device after their `passwd` on one of them (docs/threat-model.md,
/// "Carrying a member's other devices over"): this device still holds the identity the
/// renewal replaced, which the renewal's epoch grants nothing. Its new password opens the
/// renewal's key wrap, whose earlier identities hold this device's own secret keys: that,
/// and not anything the service or another member could write, is what carries it over.
extension HouseholdMember {
    /// Whether the epoch that left this member out may be their own renewal on another
    /// device: it stands right after a key wrap holding earlier identities, as a renewal's
    /// does in its batch (a removal's epoch follows no wrap). A hint only, for asking the new
    /// password; ``renewalElsewhere(password:)`` decides.
    package var isRenewedElsewhere: Bool {
        guard !keyring.isMember, let left = keyring.leftOutAt, left > 1 else { return false }
        return store.frameIndex.memberWraps.contains { $0.sequence == left - 1 && $0.payload.first == MemberWrapPayload.renewedVersion }
    }

    /// The renewal of this member's identity that `password`, their new one, opens: the
    /// newest key wrap of a member since this one was left out that opens with it and holds
    /// this device's identity among its earlier ones — its secret keys, not only its name.
    /// Its member id and the wrap, opened (``UnlockedWrap``: this device's key for the
    /// service is sealed under it next). Nil when a wrap opens with it but is not a renewal
    /// of this identity (another member's, with the same password): nothing is taken from it.
    /// - Throws: ``HouseholdError/wrongPassword`` when no such wrap opens with `password`.
    package func renewalElsewhere(password: SecureBytes) throws(HouseholdError) -> (id: MemberID, unlocked: UnlockedWrap)? {
        guard isRenewedElsewhere, let left = keyring.leftOutAt else { throw .wrongPassword }
        let header = store.header
        var tried: Set<MemberID> = [id]
        var openedAnother = false
        for frame in store.frameIndex.memberWraps.reversed() where frame.sequence + 1 >= left {
            let binding = FrameBinding(
                formatVersion: header.formatVersion, journalID: header.journalID, sequence: frame.sequence, kind: .memberWrap,
                previousHash: frame.previousHash)
            // Each member's newest wrap only (the one their sign-in opens), and only a renewal's.
            guard let payload = try? MemberWrapPayload(parsing: frame.payload, binding: binding), tried.insert(payload.keys.id).inserted,
                payload.earlierCount > 0
            else { continue }
            let secrets: MemberSecrets
            let memberKey: SecureBytes
            do throws(HouseholdError) {
                (secrets, memberKey) = try Self.opening(binding) { try payload.unlock(password: password, recoveryCode: nil, binding: binding) }
            } catch .wrongPassword {
                continue
            }
            guard secrets.earlier.contains(where: holdsThisIdentity) else {
                memberKey.wipe()
                openedAnother = true
                continue
            }
            let unlocked = UnlockedWrap(
                binding: binding, secrets: secrets, deviceKeyEpoch: payload.deviceKeyEpoch(memberKey: memberKey, binding: binding))
            return (payload.keys.id, unlocked)
        }
        if openedAnother { return nil }
        throw .wrongPassword
    }

    /// Whether `earlier` is this device's identity: the same keys, the secret halves compared
    /// (the signing key's public half comes from its seed; the sealing key's is only stated).
    private func holdsThisIdentity(_ earlier: MemberSecrets) -> Bool {
        let mine = secrets.identity
        return earlier.id == mine.id && earlier.identity.signing.seed.constantTimeEquals(mine.signing.seed)
            && earlier.identity.sealing.secretKey.constantTimeEquals(mine.sealing.secretKey)
            && earlier.onlyMe.key.constantTimeEquals(secrets.onlyMe.key)
    }
}
