import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import GiftKeeperTestSupport
import Glibc
import OrderedCollections
import Testing

/// SPEC §7 at the service level: each bad input gets a typed error and loses nothing.
@Suite struct BadInputTests {
    /// A signed-in service with p1, p2, p3, of which p2 is removed.
    private func signedInWithPresents() throws -> (Sandbox, GiftKeeperService) {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        try addScenarioPresents(service)
        try service.perform(.removePresent(id: #require(PresentID(number: 2))))
        return (sandbox, service)
    }

    /// Runs `body`, which must throw; the journal's bytes and the state must not change.
    private func expectRefusedUnchanged(
        _ sandbox: Sandbox, _ service: GiftKeeperService, _ label: String,
        sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
    ) throws -> ServiceError? {
        let before = try sandbox.journalBytes()
        let state = service.state
        let error = serviceError(body)
        #expect(error != nil, "\(label): nothing was thrown", sourceLocation: sourceLocation)
        #expect(try sandbox.journalBytes() == before, "\(label): the journal changed", sourceLocation: sourceLocation)
        #expect(service.state == state, "\(label): the state changed", sourceLocation: sourceLocation)
        return error
    }

    @Test func aWrongPasswordAppendsExactlyOneFailedLoginFrame() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        try service.signOut()
        let before = try RawJournal(sandbox.journalBytes())
        let error = serviceError { try service.login(password: password("Correct horse")) }
        #expect(error?.wrongPasswordRecorded == true)
        #expect(error?.exitCode == 3)
        #expect(!String(describing: error).contains("Correct horse"), "the error holds no password")
        let after = try RawJournal(sandbox.journalBytes())
        #expect(after.frames.count == before.frames.count + 1)
        #expect(Array(after.frames.prefix(before.frames.count)) == before.frames)
        #expect(after.frames.last?.kind == 2)  // sealed to the public key
        #expect(after.frames.last?.sequence == UInt64(after.frames.count))
    }

    @Test func emptyOrWhitespaceNameCreatesNoJournal() throws {
        let sandbox = try Sandbox()
        for name in ["", "   ", "\t\n"] {
            let service = sandbox.service()
            try service.open()
            let error = serviceError { try service.setup(name: name, password: password("pw"), parameters: .testMinimum) }
            #expect(error?.domainError == .emptyValue(.name), "name '\(name)'")
            #expect(error?.exitCode == 2)
            #expect(!FileManager.default.fileExists(atPath: sandbox.journalPath))
            #expect(service.phase == .noAccount)
        }
        let service = sandbox.service()
        let tooLong = serviceError {
            try service.setup(name: String(repeating: "n", count: 201), password: password("pw"), parameters: .testMinimum)
        }
        #expect(tooLong?.domainError == .tooLong(.name, limit: 200, length: 201))
        #expect(!FileManager.default.fileExists(atPath: sandbox.journalPath))
        let empty = serviceError { try service.setup(name: "Alice", password: password(""), parameters: .testMinimum) }
        guard case .emptyPassword? = empty?.code else {
            Issue.record("expected emptyPassword, got \(String(describing: empty))")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.journalPath))
    }

    @Test func productionRefusesATestKeyDerivationCost() throws {
        let sandbox = try Sandbox()
        var environment = sandbox.environment()
        environment.allowsTestKeyDerivationCost = false
        let service = GiftKeeperService(journalPath: sandbox.journalPath, environment: environment)
        let error = serviceError { try service.setup(name: "Alice", password: password("pw"), parameters: .testMinimum) }
        guard case .weakKeyDerivation? = error?.code else {
            Issue.record("expected weakKeyDerivation, got \(String(describing: error))")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.journalPath))
    }

    @Test func emptyWhitespaceAndOverlongTextIsRefused() throws {
        let (sandbox, service) = try signedInWithPresents()
        let p1 = try #require(PresentID(number: 1))
        let cases: [(String, Change, DomainError)] = [
            ("empty title", .addPresent(recipient: "Mum", title: ""), .emptyValue(.title)),
            ("whitespace title", .addPresent(recipient: "Mum", title: "  \t "), .emptyValue(.title)),
            ("empty recipient", .addPresent(recipient: " ", title: "Kite"), .emptyValue(.recipient)),
            (
                "title over 1,000 characters", .addPresent(recipient: "Mum", title: String(repeating: "é", count: 1001)),
                .tooLong(.title, limit: 1000, length: 1001)
            ),
            ("edit to an empty title", .editPresent(id: p1, changes: [.title("   ")]), .emptyValue(.title)),
            (
                "edit to a title over 1,000 characters", .editPresent(id: p1, changes: [.title(String(repeating: "t", count: 1001))]),
                .tooLong(.title, limit: 1000, length: 1001)
            ),
            ("edit with no changes", .editPresent(id: p1, changes: []), .noChanges(p1)),
        ]
        for (label, command, expected) in cases {
            let error = try expectRefusedUnchanged(sandbox, service, label) { try service.perform(command) }
            #expect(error?.domainError == expected, "\(label): \(String(describing: error))")
            #expect(error?.exitCode == 2)
        }
        // 1,000 characters is allowed.
        try service.perform(.addPresent(recipient: "Mum", title: String(repeating: "t", count: 1000)))
        try service.close()
    }

    @Test func invalidPricesAreRefusedByTheDomainParsers() throws {
        let cases: [(String, MoneyParsingError)] = [
            ("", .empty), ("-1", .negative), ("-0.01", .negative), ("12.345", .tooManyFractionDigits),
            ("1,000", .invalidCharacter(",")), ("1,5,0", .invalidCharacter(",")), ("abc", .invalidCharacter("a")), (".5", .missingDigits),
            ("99999999999999999999", .tooLarge),
        ]
        for (text, reason) in cases {
            #expect(throws: DomainError.invalidPrice(text, reason: reason), "'\(text)'") { try Money.parsePrice(text) }
        }
        #expect(throws: DomainError.self) { try PresentChange(field: .price, value: "twelve") }
        #expect(try PresentChange(field: .price, value: "none") == .price(nil))
        #expect(try Money.parsePrice("25.5").description == "25.50")
    }

    @Test func unknownAndRemovedIdsAreRefused() throws {
        let (sandbox, service) = try signedInWithPresents()
        let unknown = try #require(PresentID(number: 99))
        let removed = try #require(PresentID(number: 2))
        let cases: [(String, Change, DomainError)] = [
            ("edit unknown", .editPresent(id: unknown, changes: [.title("x")]), .unknownPresent(unknown)),
            ("mark unknown", .markPresent(id: unknown, status: .bought), .unknownPresent(unknown)),
            ("remove unknown", .removePresent(id: unknown), .unknownPresent(unknown)),
            ("edit removed", .editPresent(id: removed, changes: [.title("x")]), .presentRemoved(removed)),
            ("mark removed", .markPresent(id: removed, status: .bought), .presentRemoved(removed)),
            ("remove removed", .removePresent(id: removed), .presentRemoved(removed)),
        ]
        for (label, command, expected) in cases {
            let error = try expectRefusedUnchanged(sandbox, service, label) { try service.perform(command) }
            #expect(error?.domainError == expected, "\(label): \(String(describing: error))")
        }
        #expect(throws: DomainError.invalidPresentID("12")) { try PresentID.parse("12") }
        #expect(throws: DomainError.unknownStatus("lost")) { try PresentStatus(parsing: "lost") }
        #expect(throws: DomainError.unknownField("colour")) { try PresentField(parsing: "colour") }
        try service.close()
    }

    @Test func setupOnAnExistingJournalIsRefused() throws {
        let sandbox = try Sandbox()
        let first = try sandbox.setUp()
        // Signed in: setup again is "already signed in".
        let again = try expectRefusedUnchanged(sandbox, first, "setup while signed in") {
            try first.setup(name: "Eve", password: password("pw"), parameters: .testMinimum)
        }
        guard case .alreadySignedIn? = again?.code else {
            Issue.record("expected alreadySignedIn, got \(String(describing: again))")
            return
        }
        try first.close()

        // Opened first (as the REPL does): journalExists.
        let opened = sandbox.service()
        try opened.open()
        let exists = try expectRefusedUnchanged(sandbox, opened, "setup on an existing journal") {
            try opened.setup(name: "Eve", password: password("pw"), parameters: .testMinimum)
        }
        guard case .journalExists(let path)? = exists?.code else {
            Issue.record("expected journalExists, got \(String(describing: exists))")
            return
        }
        #expect(path == sandbox.journalPath)
        try opened.close()

        // Not opened first: still journalExists, and the file is never replaced.
        let unopened = sandbox.service()
        let also = try expectRefusedUnchanged(sandbox, unopened, "setup without open") {
            try unopened.setup(name: "Eve", password: password("pw"), parameters: .testMinimum)
        }
        guard case .journalExists? = also?.code else {
            Issue.record("expected journalExists, got \(String(describing: also))")
            return
        }
    }

    @Test func everyPresentCommandNeedsASignedInSession() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        try addScenarioPresents(service)
        try service.signOut()
        let p1 = try #require(PresentID(number: 1))
        let commands: [Change] = [
            .addPresent(recipient: "Mum", title: "Hat"), .editPresent(id: p1, changes: [.title("Hat")]),
            .markPresent(id: p1, status: .given), .removePresent(id: p1),
        ]
        for command in commands {
            let error = try expectRefusedUnchanged(sandbox, service, "\(command)") { try service.perform(command) }
            #expect(error?.isNotSignedIn == true, "\(command): \(String(describing: error))")
            #expect(error?.exitCode == 2)
        }
        let others: [(String, () throws -> Void)] = [
            ("export", { _ = try exportBytes(service) }),
            ("history", { _ = try service.historyEntries() }),
            ("signOut", { try service.signOut() }),
            ("changePassword", { try service.changePassword(old: password("correct horse"), new: password("new")) }),
        ]
        for (label, body) in others {
            let error = try expectRefusedUnchanged(sandbox, service, label, body)
            #expect(error?.isNotSignedIn == true, "\(label): \(String(describing: error))")
        }
        // A fresh service that was never opened: same.
        let fresh = sandbox.service()
        #expect(serviceError { try fresh.perform(.addPresent(recipient: "Mum", title: "Hat")) }?.isNotSignedIn == true)
    }

    @Test func aWrongOldPasswordDoesNotChangeThePassword() throws {
        let sandbox = try Sandbox()
        let service = try sandbox.setUp()
        let error = try expectRefusedUnchanged(sandbox, service, "passwd with a wrong old password") {
            try service.changePassword(old: password("not it"), new: password("new"))
        }
        #expect(error?.wrongPasswordRecorded == false)
        // Further wrong current passwords wait longer, like a login: after three, 1 s, 2 s, 4 s.
        sandbox.waits.removeAll()
        for _ in 0..<5 {
            _ = serviceError { try service.changePassword(old: password("not it"), new: password("new")) }
        }
        #expect(sandbox.waits.totals == [1, 2, 4])
        let empty = try expectRefusedUnchanged(sandbox, service, "passwd to an empty password") {
            try service.changePassword(old: password("correct horse"), new: password(""))
        }
        guard case .emptyPassword? = empty?.code else {
            Issue.record("expected emptyPassword, got \(String(describing: empty))")
            return
        }
        try service.signOut()
        try service.login(password: password("correct horse"))
        try service.close()
    }

    @Test func aJournalPathThatIsADirectoryIsRefused() throws {
        let sandbox = try Sandbox()
        #expect(mkdir(sandbox.journalDirectory, 0o700) == 0)
        let service = sandbox.service(path: sandbox.journalDirectory)
        let error = serviceError { try service.open() }
        #expect(error?.journalErrorCode == .isDirectory)
        #expect(error?.exitCode == 4)
        let setup = serviceError { try service.setup(name: "Alice", password: password("pw"), parameters: .testMinimum) }
        #expect(setup != nil)
        var info = stat()
        #expect(stat(sandbox.journalDirectory, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR)
    }

    @Test func aFileThatIsNotAJournalIsRefusedAndKept() throws {
        let sandbox = try Sandbox()
        #expect(mkdir(sandbox.journalDirectory, 0o700) == 0)
        let contents = Array("my shopping list\nmilk\neggs\n".utf8) + [UInt8](repeating: 0x41, count: 100)
        try writeBytes(contents, to: sandbox.journalPath)
        let service = sandbox.service()
        let error = serviceError { try service.open() }
        #expect(error?.journalErrorCode == .notAJournal)
        #expect(error?.exitCode == 4)
        let setup = serviceError { try service.setup(name: "Alice", password: password("pw"), parameters: .testMinimum) }
        #expect(setup != nil)
        #expect(try sandbox.journalBytes() == contents)
    }

    @Test func aGroupReadableJournalIsRefused() throws {
        let sandbox = try Sandbox()
        try sandbox.setUp().close()
        #expect(chmod(sandbox.journalPath, 0o640) == 0)
        let before = try sandbox.journalBytes()
        let error = serviceError { try sandbox.service().open() }
        #expect(error?.journalErrorCode == .insecurePermissions(mode: 0o640))
        #expect(error?.exitCode == 4)
        #expect(try sandbox.journalBytes() == before)
    }

    @Test func aJournalOfANewerFormatVersionIsRefusedAndKept() throws {
        let sandbox = try Sandbox()
        try sandbox.setUp().close()
        var raw = try RawJournal(sandbox.journalBytes())
        raw.version = 3
        let newer = raw.encoded()
        try sandbox.writeJournal(newer)
        let service = sandbox.service()
        let error = serviceError { try service.open() }
        #expect(error?.journalErrorCode == .unsupportedVersion(3))
        #expect(error?.exitCode == 4)
        #expect(try sandbox.journalBytes() == newer)
        let audit = serviceError {
            _ = try JournalAudit.audit(
                journalPath: sandbox.journalPath, password: password("correct horse"), environment: sandbox.environment())
        }
        #expect(audit?.journalErrorCode == .unsupportedVersion(3))
    }

    @Test func aMissingJournalIsNotAnErrorUntilItIsNeeded() throws {
        let sandbox = try Sandbox()
        let service = sandbox.service()
        try service.open()
        #expect(service.phase == .noAccount)
        let login = serviceError { try service.login(password: password("pw")) }
        guard case .noJournal? = login?.code else {
            Issue.record("expected noJournal, got \(String(describing: login))")
            return
        }
        #expect(login?.exitCode == 4)
        let existing = serviceError { try sandbox.service().openExisting(access: .readOnly) }
        guard case .noJournal? = existing?.code else {
            Issue.record("expected noJournal, got \(String(describing: existing))")
            return
        }
        #expect(!FileManager.default.fileExists(atPath: sandbox.journalPath))
    }

    /// Root bypasses permission bits, so this check only means something for a normal user.
    @Test(.enabled(if: getuid() != 0, "root ignores directory permissions"))
    func aReadOnlyDirectoryIsAnIOError() throws {
        let sandbox = try Sandbox()
        #expect(mkdir(sandbox.journalDirectory, 0o700) == 0)
        #expect(chmod(sandbox.journalDirectory, 0o500) == 0)
        let service = sandbox.service()
        try service.open()
        let error = serviceError { try service.setup(name: "Alice", password: password("pw"), parameters: .testMinimum) }
        guard case .io? = error?.journalErrorCode else {
            Issue.record("expected an I/O error, got \(String(describing: error))")
            return
        }
        #expect(error?.exitCode == 5)
        #expect(!FileManager.default.fileExists(atPath: sandbox.journalPath))
    }
}
