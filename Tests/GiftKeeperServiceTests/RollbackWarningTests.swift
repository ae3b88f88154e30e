import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import GiftKeeperTestSupport
import Testing

/// The remembered head is evidence: audit checks the journal against it without writing it,
/// and a rollback found at sign-in keeps being reported until someone at the terminal
/// carries on knowingly (docs/threat-model.md, "Rollback").
@Suite struct RollbackWarningTests {
    /// Signs in as a person at the terminal would: a change then accepts a standing rollback.
    private func interactiveSignIn(_ sandbox: Sandbox) throws -> GiftKeeperService {
        let service = sandbox.service()
        service.acceptsRollbackOnChange = true
        try service.open()
        try service.login(password: password("correct horse"))
        return service
    }

    /// The one remembered-head file and its bytes.
    private func headFile(_ sandbox: Sandbox) throws -> (path: String, bytes: [UInt8]) {
        let files = try sandbox.headFiles()
        #expect(files.count == 1, "\(files)")
        let path = try #require(files.first)
        return (path, try readBytes(path))
    }

    private func alarms(_ sandbox: Sandbox) -> [LoginNotification] {
        sandbox.notifications.items.filter {
            switch $0 {
            case .eventsMissing, .historyDiverged, .rememberedHeadUnverified: return true
            default: return false
            }
        }
    }

    private func audit(_ sandbox: Sandbox) throws -> AuditReport {
        try JournalAudit.audit(
            journalPath: sandbox.journalPath, password: password("correct horse"), environment: sandbox.environment())
    }

    // MARK: Audit

    @Test func auditOfATruncatedCopyReportsTheMissingEventsAndWritesNothing() throws {
        let sandbox = try Sandbox()
        let copy = try sandbox.journalWithOlderCopy()
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
        #expect(String(describing: failure.code) == "rolledBack(GiftKeeperService.RollbackFinding.eventsMissing(count: 3))")
        // Read-only: neither the journal nor the remembered head changed, even on a second run.
        _ = try audit(sandbox)
        #expect(try sandbox.journalBytes() == copy)
        #expect(try readBytes(head.path) == head.bytes)
        #expect(try sandbox.headFiles() == [head.path])
    }

    @Test func auditOfADivergedCopyReportsWhereHistoryDiffers() throws {
        let sandbox = try Sandbox()
        let copy = try sandbox.journalWithOlderCopy()
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
        #expect(try sandbox.journalBytes() == diverged)
        #expect(try readBytes(head.path) == head.bytes)
    }

    @Test func auditOfAJournalThatContinuesTheRememberedOneIsClean() throws {
        let sandbox = try Sandbox()
        _ = try sandbox.journalWithOlderCopy()
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
        let copy = try sandbox.journalWithOlderCopy()
        var damaged = copy
        damaged[copy.count - 40] ^= 0x01
        try sandbox.writeJournal(damaged)
        let report = try audit(sandbox)
        #expect(report.problem != nil)
        #expect(report.rollback == nil)
        #expect(String(describing: report.failure) == String(describing: report.problem))
    }

    // MARK: Sign-in

    @Test func everySignInOnARolledBackJournalWarnsAndTheEvidenceStays() throws {
        let sandbox = try Sandbox()
        let copy = try sandbox.journalWithOlderCopy()
        let head = try headFile(sandbox)
        try sandbox.writeJournal(copy)

        sandbox.notifications.items.removeAll()
        let first = try sandbox.signIn()
        #expect(alarms(sandbox) == [.eventsMissing(count: 3)], "\(sandbox.notifications.items)")
        #expect(first.rollbackFinding == .eventsMissing(count: 3))
        try first.close()
        #expect(try readBytes(head.path) == head.bytes, "sign-in and sign-out left the evidence alone")

        // The first session appended its own records (the copy's unclean end, sign-in,
        // sign-out: frames 5 to 7), so the journal now reaches the remembered sequence 7
        // with another history: still reported, as diverged, at every sign-in.
        for _ in 0..<2 {
            sandbox.notifications.items.removeAll()
            let again = try sandbox.signIn()
            #expect(alarms(sandbox) == [.historyDiverged(sequence: 7)], "\(sandbox.notifications.items)")
            #expect(again.rollbackFinding == .historyDiverged(sequence: 7))
            try again.close()
            #expect(try readBytes(head.path) == head.bytes)
        }
        #expect(try audit(sandbox).rollback == .historyDiverged(sequence: 7))
    }

    @Test func aChangeWhereAcceptingIsNotAllowedKeepsTheWarning() throws {
        let sandbox = try Sandbox()
        let copy = try sandbox.journalWithOlderCopy()
        let head = try headFile(sandbox)
        try sandbox.writeJournal(copy)

        // A script or a one-shot task: acceptsRollbackOnChange stays false.
        let service = try sandbox.signIn()
        #expect(service.acceptsRollbackOnChange == false)
        try service.perform(.addPresent(recipient: "Ann", title: "Book"))
        #expect(service.rollbackFinding == .eventsMissing(count: 3))
        #expect(!sandbox.notifications.items.contains(.rollbackAccepted))
        try service.close()
        #expect(try readBytes(head.path) == head.bytes)

        sandbox.notifications.items.removeAll()
        let again = try sandbox.signIn()
        #expect(!alarms(sandbox).isEmpty, "\(sandbox.notifications.items)")
        try again.close()
    }

    @Test func aChangeInAnInteractiveSessionAcceptsTheJournalAndTheWarningStops() throws {
        let sandbox = try Sandbox()
        let copy = try sandbox.journalWithOlderCopy()
        let head = try headFile(sandbox)
        try sandbox.writeJournal(copy)

        let service = try interactiveSignIn(sandbox)
        #expect(alarms(sandbox) == [.eventsMissing(count: 3)])
        // Reading is not carrying on: no change, no acceptance.
        _ = try service.historyEntries()
        #expect(service.rollbackFinding != nil)
        #expect(try readBytes(head.path) == head.bytes)

        try service.perform(.addPresent(recipient: "Ann", title: "Book"))
        #expect(service.rollbackFinding == nil)
        #expect(sandbox.notifications.items.last == .rollbackAccepted)
        #expect(try readBytes(head.path) != head.bytes, "the journal as it is now is remembered")
        try service.close()

        sandbox.notifications.items.removeAll()
        let later = try sandbox.signIn()
        #expect(alarms(sandbox).isEmpty, "\(sandbox.notifications.items)")
        #expect(later.rollbackFinding == nil)
        try later.close()
        #expect(try audit(sandbox).isValid)
    }

    @Test func aChangeThatChangesNothingAcceptsNothing() throws {
        let sandbox = try Sandbox()
        let copy = try sandbox.journalWithOlderCopy()
        try sandbox.writeJournal(copy)
        let service = try interactiveSignIn(sandbox)
        // p1 is already an idea: decide returns no event, so nothing was carried on.
        #expect(try service.perform(.markPresent(id: #require(PresentID(number: 1)), status: .idea)).events.isEmpty)
        #expect(service.rollbackFinding == .eventsMissing(count: 3))
        try service.close()
    }

    @Test func anImportOrAPasswordChangeAcceptsLikeAnyOtherChange() throws {
        for step in ["import", "passwd"] {
            let sandbox = try Sandbox()
            let copy = try sandbox.journalWithOlderCopy()
            try sandbox.writeJournal(copy)
            let service = try interactiveSignIn(sandbox)
            var secret = "correct horse"
            if step == "import" {
                let document =
                    #"{"format":"giftkeeper.export.v1","presents":[{"createdAt":"2026-12-01T09:00:01.000Z","id":"p9","recipient":"Ann","status":"idea","title":"Book","updatedAt":"2026-12-01T09:00:01.000Z"}]}"#
                _ = try service.importDocument(Array(document.utf8))
            } else {
                try service.changePassword(old: password("correct horse"), new: password("new horse"))
                secret = "new horse"
            }
            #expect(service.rollbackFinding == nil, "\(step)")
            try service.close()
            sandbox.notifications.items.removeAll()
            let later = try sandbox.signIn(password: secret)
            #expect(alarms(sandbox).isEmpty, "\(step): \(sandbox.notifications.items)")
            try later.close()
        }
    }

}
