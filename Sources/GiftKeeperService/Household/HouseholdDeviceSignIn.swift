package import GiftKeeperCrypto
package import GiftKeeperDomain
package import GiftKeeperJournal
package import GiftKeeperSealing

extension HouseholdSession {
    /// The first sign-in of a member's other device (`household clone`): the member whose
    /// newest wrap in `store` the `password` opens — of those whose id starts with
    /// `memberPrefix` (hex, what `household device add` shows) — signed in as the name they
    /// signed for everyone. Every frame's chain and signature is verified, as at a first
    /// sign-in; the store is then folded again from that verified mark (no signature twice)
    /// as the session of that name.
    /// - Throws: `.household(.wrongPassword)` when it opens no such wrap;
    ///   `.household(.notAMember)` when the member it opens is no longer one.
    package static func openOnNewDevice(
        _ store: any FrameStore, memberPrefix: String, password: SecureBytes, now: @escaping @Sendable () -> Timestamp
    ) throws(HouseholdSessionError) -> (session: HouseholdSession, unlocked: UnlockedWrap) {
        let members = HouseholdMember.wrappedMembers(in: store)
        let named = members.filter { hexString($0.bytes).hasPrefix(memberPrefix.lowercased()) }
        var found: (MemberID, UnlockedWrap)?
        for id in named.isEmpty ? members : named where found == nil {
            do throws(HouseholdError) {
                if let unlocked = try HouseholdMember.unlock(store, as: id, password: password, recoveryCode: nil) { found = (id, unlocked) }
            } catch .wrongPassword {
                continue
            } catch {
                throw .household(error)
            }
        }
        guard let (id, unlocked) = found else { throw .household(.wrongPassword) }
        // The first pass verifies every frame and learns the name this member signed.
        let initial = try initialState(name: "member", at: now())
        let directory = MemberDirectory(initial: initial)
        let verified = try household { () throws(HouseholdError) -> HouseholdMember in
            try HouseholdMember.open(store, as: id, unlocked: unlocked, initial: initial, observer: directory.takeIn)
        }
        // A member whose `passwd` renewed their identity signs their name again at their
        // next sign-in: until then, the name of the identity it renewed.
        directory.renew(verified.keyring.successors)
        guard verified.keyring.isMember, let name = directory.current[id] ?? directory.names[id] else {
            throw .household(.notAMember)
        }
        let mark = try household { () throws(HouseholdError) -> [UInt8] in try verified.verifiedMark() }
        let session = try open(store, as: id, name: name, password: password, verifiedMark: mark, unlocked: unlocked, now: now)
        return (session, unlocked)
    }
}
