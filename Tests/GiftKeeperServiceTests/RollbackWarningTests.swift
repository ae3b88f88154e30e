import Foundation
import Testing
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService

/// The remembered head is evidence: audit checks the journal against it without writing it
/// (docs/threat-model.md, "Rollback").
@Suite struct RollbackWarningTests {
    /// Frames 1 wrap, 2 accountCreated, 3 loginSucceeded, 4 p1 (the copy is taken here),
    /// 5 p2, 6 p3, 7 signedOut; the state directory remembers sequence 7. Returns the copy.
    private func journalWithOlderCopy(_ sandbox: Sandbox) throws -> [UInt8] {
        let service = try sandbox.setUp()
        try service.perform(.addPresent(recipient: "Mum", title: "Scarf"))
        let copy = try sandbox.journalBytes()
        try service.perform(.addPresent(recipient: "Dad", title: "Clock"))
        try service.perform(.addPresent(recipient: "Sam", title: "Kite"))
        try service.close()
        return copy
    }

    /// The one remembered-head file and its bytes.
    private func headFile(_ sandbox: Sandbox) throws -> (path: String, bytes: [UInt8]) {
        let files = try sandbox.headFiles()
        #expect(files.count == 1, "\(files)")
        let path = try #require(files.first)
        return (path, try readBytes(path))
    }

    private func audit(_ sandbox: Sandbox) throws -> AuditReport {
        try GiftKeeperService.audit(
            journalPath: sandbox.journalPath, password: password("correct horse"), environment: sandbox.environment())
    }

    // MARK: Audit

    @Test func auditOfATruncatedCopyReportsTheMissingEventsAndWritesNothing() throws {
        let sandbox = try Sandbox()
        let copy = try journalWithOlderCopy(sandbox)
        let head = try headFile(sandbox)
        #expect(try audit(sandbox).isValid, "the journal as the last session left it")
        try sandbox.writeJournal(copy)

        let report = try audit(sandbox)
        #expect(report.problem == nil, "every frame of the copy verifies")
        #expect(report.records.count == 4)
        #expect(report.rollback == .eventsMissing(count: 3))
        #expect(!report.isValid)
        let failure = try #require(report.failure)
        #expect(failure.exitCode == 1)
        #expect(failure.description.contains("3 events are missing since your last session"), "\(failure)")
        #expect(!failure.description.contains("\n"))
        // Read-only: neither the journal nor the remembered head changed, even on a second run.
        _ = try audit(sandbox)
        #expect(try sandbox.journalBytes() == copy)
        #expect(try readBytes(head.path) == head.bytes)
        #expect(try sandbox.headFiles() == [head.path])
    }

    @Test func auditOfADivergedCopyReportsWhereHistoryDiffers() throws {
        let sandbox = try Sandbox()
        let copy = try journalWithOlderCopy(sandbox)
        let head = try headFile(sandbox)
        // The older copy carried on where nothing is remembered, past sequence 7.
        try sandbox.writeJournal(copy)
        let elsewhere = try sandbox.signIn(stateDirectory: .some(nil))
        try elsewhere.perform(.addPresent(recipient: "Eve", title: "Other one"))
        try elsewhere.perform(.addPresent(recipient: "Eve", title: "Other two"))
        try elsewhere.close()
        let diverged = try sandbox.journalBytes()

        let report = try audit(sandbox)
        #expect(report.problem == nil)
        #expect(report.rollback == .historyDiverged(sequence: 7))
        #expect(report.failure?.exitCode == 1)
        #expect(report.failure?.description.contains("sequence number 7") == true, "\(String(describing: report.failure))")
        #expect(try sandbox.journalBytes() == diverged)
        #expect(try readBytes(head.path) == head.bytes)
    }

    @Test func auditOfAJournalThatContinuesTheRememberedOneIsClean() throws {
        let sandbox = try Sandbox()
        _ = try journalWithOlderCopy(sandbox)
        // Appended to where nothing is remembered: still the same history, only longer.
        let elsewhere = try sandbox.signIn(stateDirectory: .some(nil))
        try elsewhere.perform(.addPresent(recipient: "Eve", title: "Later"))
        try elsewhere.close()
        let report = try audit(sandbox)
        #expect(report.rollback == nil)
        #expect(report.isValid)
    }

    @Test func auditReportsDamageBeforeAnyRollback() throws {
        let sandbox = try Sandbox()
        let copy = try journalWithOlderCopy(sandbox)
        var damaged = copy
        damaged[copy.count - 40] ^= 0x01
        try sandbox.writeJournal(damaged)
        let report = try audit(sandbox)
        #expect(report.problem != nil)
        #expect(report.rollback == nil)
        #expect(report.failure?.description == report.problem?.description)
    }
}
