import Foundation
public import GiftKeeperJournal
import GiftKeeperWire
import NIOHTTP1

/// Failed sign-in reports on the service (SPEC §13; docs/threat-model.md, "Failed sign-ins
/// on a member's other devices"), seen from a member's device: the report token registered
/// and the mailbox taken at a sign-in; a report posted with the token alone.
extension ServiceFrameStore {
    /// Registers this device's new report token (its BLAKE2b hash `tokenHash`), naming the
    /// member key `sealingKey` reports are sealed to, and takes the member's mailbox: the
    /// sealed reports in it, which the service deletes as it answers.
    public func takeLoginReports(tokenHash: [UInt8], sealingKey: [UInt8]) throws(JournalError) -> [[UInt8]] {
        let registration = LoginTokenRegistration(tokenHash: Data(tokenHash), sealingKey: Data(sealingKey))
        let taken = try connection.call(.POST, Route.mailbox(journalID), body: registration, answer: TakenLoginReports.self)
        return (taken?.reports ?? []).map { Array($0) }
    }
}

extension ServiceRemote {
    /// Posts `report` (sealed to the member) to the service at `url` with report token `token`
    /// alone: no device key is opened, nothing is signed in. Whether the service kept it;
    /// false for any refusal or failure (a service that cannot be reached included), within
    /// the requests' deadline.
    public static func postLoginReport(url: String, token: [UInt8], report: [UInt8]) -> Bool {
        guard let address = try? ServiceAddress(url: url),
            let body = try? JSONEncoder().encode(LoginReportPost(token: Data(token), report: Data(report)))
        else { return false }
        let connection = ServiceConnection(address: address, stateDirectory: nil, deviceName: "")
        guard let answer = try? connection.exchange(.POST, Route.loginReports, body: body, token: nil, deadline: connection.deadline) else {
            return false
        }
        return answer.status == 201
    }
}
