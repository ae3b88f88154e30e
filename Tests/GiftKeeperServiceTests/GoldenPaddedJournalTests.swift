import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperTestSupport
import Glibc
import OrderedCollections
import Testing

@testable import GiftKeeperService

/// The journal format version 2 wrote (events padded to 64-byte blocks, SPEC §12), kept
/// byte for byte like the version-1 ones: every later GiftKeeper must open it to the same
/// state. Re-recorded only on purpose, with
/// `GIFTKEEPER_RECORD_GOLDEN=1 swift test --filter recordGoldenPaddedJournal`.
@Suite struct GoldenPaddedJournalTests {
    static let journalName = "v3-padded.journal"

    /// Password `golden` then `golden3`, test-minimum cost, times from 2026-12-01T09:00:00Z
    /// a second apart: titles and notes of very different lengths, a failed login (sealed
    /// to the public key, padded too), a password change, more after it.
    @Test(.enabled(if: Golden.isRecording, "set GIFTKEEPER_RECORD_GOLDEN=1 to re-record"))
    func recordGoldenPaddedJournal() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp(name: "Golden Padder", password: "golden")
        try service.perform(.addPresent(recipient: "Mum", title: "Tea"))
        try service.perform(
            .addPresent(
                recipient: "Mum", title: "An illustrated history of the British seaside, signed",
                notes: String(repeating: "wool, not acrylic; ", count: 7), price: try Money.parsePrice("35.00")))
        try service.perform(.addPresent(recipient: "Zoë", title: "Crème brûlée set", occasion: "Zoë's birthday"))
        try service.perform(.markPresent(id: #require(PresentID(number: 1)), status: .bought))
        try service.signOut()
        _ = serviceError { try service.login(password: password("not golden")) }
        try service.login(password: password("golden"))
        try service.changePassword(old: password("golden"), new: password("golden3"))
        try service.perform(.editPresent(id: #require(PresentID(number: 3)), changes: [.notes("the small one")]))
        try service.signOut()
        try service.close()
        let bytes = try sandbox.journalBytes()
        try Golden.record(bytes, as: Self.journalName)
    }

    @Test func theCommittedPaddedJournalStillOpensToTheSameState() throws {
        let (sandbox, _) = try Golden.sandbox(with: Self.journalName)
        let verify = try Journal.verify(at: sandbox.journalPath)
        #expect(verify.isValid)
        #expect(verify.header?.formatVersion == 2)
        let report = try JournalAudit.audit(
            journalPath: sandbox.journalPath, password: password("golden3"), environment: sandbox.environment())
        #expect(report.isValid, "\(String(describing: report.problem))")
        #expect(report.reportedFailedLogins.count == 1)
        #expect(report.records.filter { $0.type == "keyWrap" }.count == 2)

        let service = try sandbox.signIn(password: "golden3")
        let state = service.state
        #expect(service.accountName == "Golden Padder")
        #expect(state.presents.keys.map(\.description) == ["p1", "p2", "p3"])
        #expect(state.presents.values.map(\.title) == ["Tea", "An illustrated history of the British seaside, signed", "Crème brûlée set"])
        #expect(state.presents.values.map(\.status) == [.bought, .idea, .idea])
        #expect(state.presents.values.dropFirst().first?.notes == String(repeating: "wool, not acrylic; ", count: 7))
        #expect(state.presents.values.last?.notes == "the small one")
        #expect(state.presents.values.last?.recipient == "Zoë")
        // It keeps working in its version: a new present is padded like the others.
        try service.perform(.addPresent(recipient: "Dad", title: "Socks"))
        #expect(service.state.presents.keys.last?.description == "p4")
        try service.close()
        #expect(try Journal.verify(at: sandbox.journalPath).header?.formatVersion == 2)
        try expectPadded(sandbox.journalPath)
    }
}

/// Every event frame of the journal at `path` is padded: kind 1 payloads are 24 + 16 +
/// 64·k bytes, kind 2 (a sealed box) 48 + 64·k.
func expectPadded(_ path: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
    let journal = try Journal.open(at: path, access: .readOnly)
    var events = 0
    try journal.read(after: 0, progress: nil) { frame in
        switch frame.kind {
        case .dataSealed:
            events += 1
            #expect((frame.payload.count - 40) % 64 == 0, "frame \(frame.sequence): \(frame.payload.count) bytes", sourceLocation: sourceLocation)
        case .publicSealed:
            events += 1
            #expect((frame.payload.count - 48) % 64 == 0, "frame \(frame.sequence): \(frame.payload.count) bytes", sourceLocation: sourceLocation)
        case .keyWrap:
            break
        case .memberWrap, .epoch, .completion, .householdEvent, .leave:
            Issue.record("frame \(frame.sequence): a household's frame in a person's journal", sourceLocation: sourceLocation)
        }
    }
    #expect(events > 0, sourceLocation: sourceLocation)
}
