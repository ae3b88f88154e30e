import Foundation
import GiftKeeperCrypto
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperTestSupport
import Glibc
import OrderedCollections
import Testing

@testable import GiftKeeperService

/// The format-version promise (SPEC §5): a journal written by a released version opens in
/// every later one. `journal/golden/v1-basic.journal` was written once by format v1 and committed;
/// it is re-recorded only on purpose, with
/// `GIFTKEEPER_RECORD_GOLDEN=1 swift test --filter recordGoldenJournal` (then commit it).
@Suite struct GoldenJournalTests {
    static let journalName = "v1-basic.journal"
    static let exportName = "v1-basic.export.json"

    /// Writes the golden journal: password `golden` (testMinimum cost), presents across
    /// every status, an edit, a removal, a sign-out, a failed login, a password change to
    /// `golden2`, more events after it, an import and an export.
    @Test(.enabled(if: Golden.isRecording, "set GIFTKEEPER_RECORD_GOLDEN=1 to re-record"))
    func recordGoldenJournal() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp(name: "Golden Tester", password: "golden")
        try service.perform(
            .addPresent(
                recipient: "Mum", title: "Blue scarf", notes: "wool, not acrylic",
                price: try Money.parsePrice("25.00"), occasion: "Christmas"))
        try service.perform(
            .addPresent(
                recipient: "Dad", title: "Chess clock", price: try Money.parsePrice("42.50"), occasion: "Birthday"))
        try service.perform(.addPresent(recipient: "Sam", title: "Kite"))
        try service.perform(.addPresent(recipient: "Zoë", title: "Crème brûlée set", price: try Money.parsePrice("12")))
        try service.perform(.markPresent(id: #require(PresentID(number: 1)), status: .bought))
        try service.perform(.markPresent(id: #require(PresentID(number: 2)), status: .wrapped))
        try service.perform(.markPresent(id: #require(PresentID(number: 4)), status: .given))
        try service.perform(
            .editPresent(
                id: #require(PresentID(number: 3)),
                changes: [
                    .title("Stunt kite"), .price(try Money.parsePrice("19.99")), .notes("two lines"),
                ]))
        try service.perform(.removePresent(id: #require(PresentID(number: 4))))
        try service.signOut()
        _ = serviceError { try service.login(password: password("not golden")) }
        try service.login(password: password("golden"))
        try service.changePassword(old: password("golden"), new: password("golden2"))
        try service.perform(
            .addPresent(
                recipient: "Mum", title: "Tea sampler", price: try Money.parsePrice("15.50"), occasion: "Birthday"))
        try service.perform(.markPresent(id: #require(PresentID(number: 5)), status: .bought))
        try service.perform(.editPresent(id: #require(PresentID(number: 1)), changes: [.occasion("Christmas Eve")]))
        // An import: one present restored with its id, status and times (presentImported).
        let imported =
            #"{"format":"giftkeeper.export.v1","account":{"name":"Elsewhere"},"presents":[{"createdAt":"2026-11-01T08:00:00.000Z","id":"p9","notes":"from the old journal","occasion":"Christmas","price":"30.00","recipient":"Ann","status":"wrapped","title":"Board game","updatedAt":"2026-11-02T18:30:00.250Z"}]}"#
        _ = try service.importDocument(Array(imported.utf8))
        _ = try exportBytes(service)
        try service.signOut()
        try service.close()

        let bytes = try sandbox.journalBytes()
        try Golden.record(bytes, as: Self.journalName)

        // The export its presents give, for the always-on test below.
        let reader = try sandbox.signIn(password: "golden2")
        let state = reader.state
        try reader.close()
        try Golden.record(try ExportDocument.encode(state), as: Self.exportName)
    }

    /// Opens the committed golden journal with this build: logs in with `golden2`, checks
    /// the presents, and audits it valid.
    @Test func theCommittedV1JournalStillOpens() throws {
        let (sandbox, golden) = try Golden.sandbox(with: Self.journalName)

        let verify = try Journal.verify(at: sandbox.journalPath)
        #expect(verify.isValid)
        #expect(verify.header?.formatVersion == 1)

        let report = try JournalAudit.audit(
            journalPath: sandbox.journalPath, password: password("golden2"), environment: sandbox.environment())
        #expect(report.isValid, "\(String(describing: report.problem))")
        #expect(report.records.count == verify.frameCount)
        #expect(report.reportedFailedLogins.count == 1)
        #expect(report.records.filter { $0.type == "keyWrap" }.count == 2)
        #expect(report.records.filter { $0.type == "passwordChanged" }.count == 1)
        #expect(try sandbox.journalBytes() == golden)

        let service = sandbox.service()
        try service.open()
        #expect(service.keyDerivationParameters == .testMinimum)
        // The old password opens only what was written before the change: refused here.
        #expect(serviceError { try service.login(password: password("golden")) }?.wrongPasswordRecorded == true)
        try service.login(password: password("golden2"))
        #expect(service.accountName == "Golden Tester")
        let state = service.state
        #expect(state.presents.keys.map(\.description) == ["p1", "p2", "p3", "p5", "p9"])
        #expect(state.presents.values.map(\.status) == [.bought, .wrapped, .idea, .bought, .wrapped])
        #expect(state.presents.values.map(\.title) == ["Blue scarf", "Chess clock", "Stunt kite", "Tea sampler", "Board game"])
        #expect(state.presents.values.map { $0.price?.description } == ["25.00", "42.50", "19.99", "15.50", "30.00"])
        #expect(state.presents.values.last?.createdAt.iso8601 == "2026-11-01T08:00:00.000Z")
        #expect(state.presents.values.last?.updatedAt.iso8601 == "2026-11-02T18:30:00.250Z")
        #expect(report.records.filter { $0.type == "presentImported" }.count == 1)
        #expect(state.presents.values.first?.occasion == "Christmas Eve")
        #expect(state.removedPresents.keys.map(\.description) == ["p4"])
        #expect(state.removedPresents.values.first?.title == "Crème brûlée set")
        #expect(state.nextPresentNumber == 10)
        #expect(state.lastPasswordChangeAt != nil)
        #expect(state.lastExportAt != nil)
        // The state it gives is the one the export of format v1 held then (read by the import reader).
        let exported = try ImportDocument.parse(try Golden.bytes(Self.exportName)).presents
        #expect(exported == Array(state.presents.values))
        // And it keeps working: a new present gets the next id.
        try service.perform(.addPresent(recipient: "Dad", title: "Socks"))
        #expect(service.state.presents.keys.last?.description == "p10")
        try service.close()
    }
}
