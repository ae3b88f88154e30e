import Foundation
import GiftKeeperSealing
package import GiftKeeperService

extension HouseholdMembership {
    static let deviceActions = ["add", "list", "remove"]

    /// `household device add | list | remove ID` (`list` when the action is left out): the
    /// member's devices on the service, in the shell as the `giftkeeper household device …`
    /// one-shots have them; the lines to say. `add`'s address comes first, alone on its line.
    package static func device(_ action: String?, id: String?, _ session: HouseholdSession, desk: any HouseholdDesk) throws -> [String] {
        guard let devices = desk as? any HouseholdDevices else { throw ServiceError(.noRemote) }
        switch action?.lowercased() ?? "list" {
        case "add":
            let (address, seconds) = try devices.deviceAddress(for: session.id)
            return [address, HouseholdWords.deviceAdded(minutes: seconds / 60)]
        case "list":
            return try devices.deviceLines()
        case "remove":
            guard let number = id.flatMap({ Int64($0.trimmingCharacters(in: .whitespaces)) }) else {
                throw REPLError(.invalidAnswer(HouseholdWords.deviceLabel, HouseholdWords.notADeviceNumber))
            }
            return [try devices.dropDevice(number)]
        case let word:
            throw REPLError(.unknownAction(command: "household", word: "device " + word, actions: deviceActions.map { "device " + $0 }))
        }
    }
}
