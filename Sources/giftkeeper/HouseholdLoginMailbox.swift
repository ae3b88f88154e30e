import GiftKeeperJournal
import GiftKeeperRemote
import GiftKeeperService

/// Failed sign-in reports through the household's sync service (``HouseholdLoginReports``;
/// docs/threat-model.md, "Failed sign-ins on a member's other devices"): a wrong password
/// posts with this device's report token alone; a sign-in registers a new token and takes
/// the member's mailbox through the store it signed in to.
struct ServiceLoginMailbox: LoginReportMailbox {
    let url: String

    func post(token: [UInt8], report: [UInt8]) -> Bool {
        ServiceRemote.postLoginReport(url: url, token: token, report: report)
    }

    func take(tokenHash: [UInt8], sealingKey: [UInt8], store: any FrameStore) -> [[UInt8]]? {
        guard let service = store as? ServiceFrameStore else { return nil }  // signed in from the device's copy
        return try? service.takeLoginReports(tokenHash: tokenHash, sealingKey: sealingKey)
    }
}

extension HouseholdRecord {
    /// Where this device posts and takes failed sign-in reports: the household's service.
    var loginReports: ServiceLoginMailbox { ServiceLoginMailbox(url: remote) }
}
