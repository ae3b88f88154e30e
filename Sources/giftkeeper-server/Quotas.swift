/// What one account may use (SPEC §12): the largest frame, frames appended a minute
/// (counted in PostgreSQL by the append itself, so every service process counts against
/// one quota: ``Schema/cursorFunctions``), and journals. A request over a quota is refused
/// whole — nothing written — with 413 or 429 and the quota in words; the device keeps its
/// changes and sends them at a later sync.
struct Quotas: Sendable {
    var maximumFrameBytes = 1 << 20
    /// Enough for a person's whole journal (SPEC §9: 20,000 events) in its first push.
    var framesPerMinute = 120_000
    var journalsPerAccount = 16
    /// Failed sign-in reports waiting in a member's mailbox; the rest are dropped.
    var loginReportsPerMember = 400
}
