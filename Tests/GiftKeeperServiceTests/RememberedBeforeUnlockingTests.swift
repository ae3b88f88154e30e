import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperTestSupport
import OrderedCollections
import Testing

@testable import GiftKeeperService

/// Issue 13, findings 6, 7 and 10: what this machine remembers of a journal's path is
/// consulted before a password is asked for or `setup` is offered, so an altered, cut or
/// replaced journal is reported as such instead of as a wrong password or a new journal.
@Suite struct RememberedBeforeUnlockingTests {
    func rolledBack(_ error: ServiceError?) -> RollbackFinding? {
        if case .rolledBack(let finding) = error?.code { return finding }
        return nil
    }

    @Test("A journal cut inside its first frame, where this machine remembers events: reported (exit 1), no setup, the record kept")
    func cutInsideTheFirstFrameIsNotANewJournal() throws {
        let sandbox = try Sandbox()
        _ = try sandbox.journalWithOlderCopy()
        let bytes = try sandbox.journalBytes()
        let records = try sandbox.headFiles()
        let recorded = try records.map { try readBytes($0) }
        try sandbox.writeJournal(Array(bytes[0..<90]))  // the header and part of the first key wrap

        let service = sandbox.service()
        let error = serviceError { try service.open() }
        guard case .eventsMissing(let count) = rolledBack(error) else {
            Issue.record("expected eventsMissing, got \(String(describing: error))")
            return
        }
        #expect(count > 3)
        #expect(error?.exitCode == 1)
        #expect(service.phase == .noAccount)
        #expect(serviceError { try service.setup(name: "Mallory", password: password("x"), parameters: .testMinimum) } != nil)
        #expect(try sandbox.headFiles() == records)
        #expect(try records.map { try readBytes($0) } == recorded, "the evidence is kept")
    }

    @Test("Another journal the same password opens, put at the same path: announced at sign-in, refused by scripts, failed by audit")
    func anotherJournalAtTheSamePath() throws {
        let sandbox = try Sandbox()
        _ = try sandbox.journalWithOlderCopy()
        let other = try Sandbox()
        let elsewhere = try other.setUp()
        try elsewhere.perform(.addPresent(recipient: "Eve", title: "Decoy"))
        try elsewhere.close()
        try sandbox.writeJournal(try other.journalBytes())

        let audit = try JournalAudit.audit(
            journalPath: sandbox.journalPath, password: password("correct horse"), environment: sandbox.environment())
        #expect(audit.rollback == .journalReplaced)
        #expect(!audit.isValid)

        let script = sandbox.service()
        script.refusesRollback = true
        try script.open()
        #expect(rolledBack(serviceError { try script.login(password: password("correct horse")) }) == .journalReplaced)
        try script.close()

        sandbox.notifications.items.removeAll()
        let shell = sandbox.service()
        shell.acceptsRollbackOnChange = true
        try shell.open()
        try shell.login(password: password("correct horse"))
        #expect(sandbox.notifications.items.contains(.journalReplaced))
        #expect(shell.rollbackFinding == .journalReplaced)
        // A change made at the shell accepts it: from now on this journal is the one known here.
        try shell.perform(.addPresent(recipient: "Mum", title: "Socks"))
        #expect(sandbox.notifications.items.contains(.rollbackAccepted))
        try shell.close()
        #expect(try sandbox.headFiles().count == 1)
        sandbox.notifications.items.removeAll()
        let again = try sandbox.signIn()
        #expect(again.rollbackFinding == nil)
        #expect(!sandbox.notifications.items.contains(.journalReplaced))
    }

    @Test("Without a record of the path nothing is reported before unlocking: a wrong password stays a wrong password")
    func noRecordNoFinding() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp(stateDirectory: .some(nil))
        try service.close()
        let locked = sandbox.service(stateDirectory: .some(nil))
        try locked.open()
        #expect(serviceError { try locked.login(password: password("nope")) }?.wrongPasswordRecorded == true)
    }
}

/// Issue 13, finding 9: when the record of the journal's head cannot be kept, every
/// session says so (once), instead of losing rollback detection silently.
@Suite struct RollbackMemoryUnavailableTests {
    func warnings(_ sandbox: Sandbox) -> Int {
        sandbox.notifications.items.filter { if case .rollbackMemoryUnavailable = $0 { true } else { false } }.count
    }

    @Test("A state directory that is a file: setup and sign-in warn once each, and work")
    func stateDirectoryIsAFile() throws {
        let sandbox = try Sandbox()
        try writeBytes([1], to: sandbox.stateDirectory)
        let service = try sandbox.setUp()
        try service.perform(.addPresent(recipient: "Mum", title: "Scarf"))
        try service.close()
        #expect(warnings(sandbox) == 1, "\(sandbox.notifications.items)")
        sandbox.notifications.items.removeAll()
        let again = try sandbox.signIn()
        #expect(again.state.presents.count == 1)
        try again.close()
        #expect(warnings(sandbox) == 1, "\(sandbox.notifications.items)")
    }

    @Test("A directory where the record goes: the sign-in that cannot read it warns")
    func recordIsADirectory() throws {
        let sandbox = try Sandbox()
        try sandbox.setUp().close()
        let record = try #require(try sandbox.headFiles().first)
        try FileManager.default.removeItem(atPath: record)
        try FileManager.default.createDirectory(atPath: record, withIntermediateDirectories: false)
        sandbox.notifications.items.removeAll()
        let service = try sandbox.signIn()
        #expect(warnings(sandbox) == 1, "\(sandbox.notifications.items)")
        try service.close()
    }

    @Test("Where the record can be kept, nothing is said")
    func noWarningWhenAllIsWell() throws {
        let sandbox = try Sandbox()
        try sandbox.setUp().close()
        try sandbox.signIn().close()
        #expect(warnings(sandbox) == 0)
    }
}
