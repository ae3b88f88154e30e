public import Foundation

/// The paths of failed sign-in reports (SPEC §13; docs/threat-model.md, "Failed sign-ins on
/// a member's other devices"): a device registers a report token at each sign-in and takes
/// its member's mailbox; a wrong password posts one sealed report with the token alone.
extension Route {
    /// `POST` (no device key, no bearer token): one report, with the token (``LoginReportPost``).
    public static let loginReports = "/v1/login-reports"
    /// `POST` (signed in): this device's new token registered, the member's mailbox taken
    /// (``LoginTokenRegistration``, answered with ``TakenLoginReports``).
    public static func mailbox(_ journal: [UInt8]) -> String { "\(Route.journal(journal))/login-reports" }
}

/// `POST /v1/login-reports`: a failed sign-in, posted with the device's report token alone
/// (a wrong password opens no key for the service). The report is a sealed box to the
/// member's public key, of one fixed size. 201 kept; 404 no such token; 409 sealed to a
/// key the member no longer has; 429 one a second per token, or the mailbox is full.
public struct LoginReportPost: Codable, Sendable {
    public var token: Data
    public var report: Data

    /// A report's size: `crypto_box_seal` (48 bytes) of `GKFAIL02`, a 16-byte id and the time.
    public static let reportBytes = 80
    /// A report token's size.
    public static let tokenBytes = 32

    public init(token: Data, report: Data) {
        self.token = token
        self.report = report
    }
}

/// `POST /v1/journals/ID/login-reports` (a member's device, signed in): the BLAKE2b hash of
/// this device's new report token, replacing its last, and the member public key (X25519)
/// the reports posted with it are sealed to.
public struct LoginTokenRegistration: Codable, Sendable {
    public var tokenHash: Data
    public var sealingKey: Data

    public init(tokenHash: Data, sealingKey: Data) {
        self.tokenHash = tokenHash
        self.sealingKey = sealingKey
    }
}

/// The answer to a ``LoginTokenRegistration``: the reports in the member's mailbox, which
/// the service deleted as it read them (one transaction).
public struct TakenLoginReports: Codable, Sendable {
    public var reports: [Data]

    public init(reports: [Data]) {
        self.reports = reports
    }
}
