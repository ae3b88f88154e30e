package import GiftKeeperSealing

/// A member's devices on the household's sync service (`household device add | list |
/// remove ID`, docs/households.md "Adding a device"), as a device of theirs reaches them:
/// the shell and the one-shots alike, through the desk that also serves membership
/// (``HouseholdDesk``).
package protocol HouseholdDevices: AnyObject {
    /// A one-time address that enrols another device in this member's account: the
    /// service's, then after `#` the first hex digits of the household's and `member`'s ids;
    /// and how many seconds it works.
    func deviceAddress(for member: MemberID) throws -> (address: String, seconds: Int)
    /// The devices of this member's account, one line each (number, name, since when, which is this one).
    func deviceLines() throws -> [String]
    /// Removes device `id` from this member's account (its key signs in no more); what to say.
    func dropDevice(_ id: Int64) throws -> String
}
