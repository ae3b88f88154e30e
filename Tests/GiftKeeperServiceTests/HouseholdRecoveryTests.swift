import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import Testing

/// `household recover` in the journal layer (SPEC §13): a member who forgot their password
/// opens their keys with the recovery code and wraps them again under a new password and a
/// new code; sign-ins open the newest wrap.
@Suite struct HouseholdRecoveryTests {
    static func isWrongPassword(_ signIn: () throws -> HouseholdMember) -> Bool {
        do {
            _ = try signIn()
            return false
        } catch {
            guard case .wrongPassword? = error as? HouseholdError else { return false }
            return true
        }
    }

    @Test(
        "A member who forgot their password signs in with the recovery code and wraps their keys again: the new password and code open them, the old ones no longer sign in"
    )
    func recovery() throws {
        let world = try HouseholdWorld()
        let alice = try world.create(password: "alice-pw")
        let bob = try world.join(admittedBy: alice, password: "bob-pw")
        try alice.record([try world.present(for: "Bob", "Telescope")], for: .everyoneBut(bob.id))
        try bob.catchUp()
        func open(password: String? = nil, code: String? = nil) throws -> HouseholdMember {
            try HouseholdMember.open(
                world.store.handle(), as: bob.id, password: try password.map(HouseholdWorld.secret),
                recoveryCode: try code.map(HouseholdWorld.secret), initial: HouseholdWorld.initial)
        }
        let recovered = try open(code: "recovery:bob-pw")
        try recovered.wrapKeys(
            password: try HouseholdWorld.secret("bob-new"), recoveryCode: try HouseholdWorld.secret("recovery:bob-new"),
            parameters: .testMinimum)
        let signedIn = try open(password: "bob-new")
        #expect(signedIn.id == bob.id && signedIn.state == bob.state)
        #expect(try open(code: "recovery:bob-new").id == bob.id)
        #expect(Self.isWrongPassword { try open(password: "bob-pw") })
        #expect(Self.isWrongPassword { try open(code: "recovery:bob-pw") })
        // The others read on: a new wrap is no event of theirs.
        try bob.catchUp()
        #expect(bob.keyring.isMember)
    }
}
