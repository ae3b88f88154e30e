package import GiftKeeperCrypto
package import GiftKeeperJournal

/// A member's newest key wrap as a copy of the journal holds it (the device's copy), opened
/// with their password or recovery code before the journal's store is: the one key
/// derivation of a sign-in. Its member key opens this device's key for the service too
/// (``deviceKeyEpoch``: the device key is sealed under it, as a person's is under their
/// journal's data key), and ``HouseholdMember/open(_:as:password:recoveryCode:verifiedMark:unlocked:initial:observer:)``
/// takes its secrets when the store's newest wrap of the member stands at the same place.
package struct UnlockedWrap {
    /// Where the wrap's frame stands, and the chain before it.
    let binding: FrameBinding
    package let secrets: MemberSecrets
    /// What opens this device's key for the service without a second key derivation.
    package let deviceKeyEpoch: DeviceKeyAccess.JournalEpoch
}

extension HouseholdMember {
    /// The newest wrap of `member` in `copy`, opened (nil when the copy holds none of theirs).
    /// - Throws: ``HouseholdError/wrongPassword`` when the password (or code) does not open it.
    package static func unlock(_ copy: any FrameStore, as member: MemberID, password: SecureBytes?, recoveryCode: SecureBytes?)
        throws(HouseholdError) -> UnlockedWrap?
    {
        guard copy.header.formatVersion == JournalFormat.householdVersion, let wrap = newestWrap(in: copy, of: member) else { return nil }
        let (payload, binding) = wrap
        let (secrets, memberKey) = try opening(binding) {
            try payload.unlock(password: password, recoveryCode: recoveryCode, binding: binding)
        }
        return UnlockedWrap(
            binding: binding, secrets: secrets, deviceKeyEpoch: payload.deviceKeyEpoch(memberKey: memberKey, binding: binding))
    }

    /// `body`'s opening of a wrap at `binding`, its faults as a sign-in's.
    static func opening<T>(_ binding: FrameBinding, _ body: () throws -> T) throws(HouseholdError) -> T {
        do {
            return try body()
        } catch MemberWrapFault.wrongPassword {
            throw .wrongPassword
        } catch let error as MemberWrapFault {
            throw .refused(HouseholdRefusal(sequence: binding.sequence, reason: .memberWrap(error)))
        } catch {
            throw .sealing(SealingError(error))
        }
    }
}

extension HouseholdMember {
    /// The members with a wrap of their own in `store`, newest wrap first, each once: whose
    /// wrap a password may open (a member's other device, ``unlock(_:as:password:recoveryCode:)``).
    package static func wrappedMembers(in store: any FrameStore) -> [MemberID] {
        var seen: Set<MemberID> = []
        return store.frameIndex.memberWraps.reversed().compactMap { frame -> MemberID? in
            let binding = FrameBinding(
                formatVersion: store.header.formatVersion, journalID: store.header.journalID, sequence: frame.sequence,
                kind: .memberWrap, previousHash: frame.previousHash)
            guard let payload = try? MemberWrapPayload(parsing: frame.payload, binding: binding) else { return nil }
            return seen.insert(payload.keys.id).inserted ? payload.keys.id : nil
        }
    }
}
