import Foundation
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperService
import Glibc
import Testing

@testable import GiftKeeperREPL

/// Every sentence addressed to a person is written in the shell (Messages.swift): the
/// targets below report data. These pin the wording the other suites used to check there.
@Suite struct MessagesTests {
    @Test func journalErrorsNameThePathAndWhatToDo() {
        let problem = JournalProblem(sequence: 7, offset: 1234, damage: .frameHashMismatch)
        let cases: [(JournalError.Code, Int32, String)] = [
            (.corrupt(problem), 1, "sequence number 7"),
            (.frameTooLarge(2_000_000), 2, "1 MiB"),
            (.notFound, 4, "No journal"),
            (.alreadyExists, 4, "already exists"),
            (.inUse, 4, "in use"),
            (.isDirectory, 4, "directory"),
            (.notRegularFile, 4, "not a regular file"),
            (.notAJournal, 4, "not a GiftKeeper journal"),
            (.unsupportedVersion(3), 4, "newer format version 3"),
            (.insecurePermissions(mode: 0o644), 4, "chmod 600 '/x/j'"),
            (.foreignOwner(uid: 5), 4, "another user"),
            (.io(operation: "open", errno: EACCES), 5, "Permission denied"),
            (.io(operation: "write", errno: ENOSPC), 5, "disk is full"),
            (.io(operation: "open", errno: EROFS), 5, "read-only file system"),
            (.io(operation: "fsync", errno: EIO), 5, "Could not fsync"),
            (.readOnlyAccess, 5, "read-only"),
            (.unusable, 5, "no longer be written"),
            (.changedWhileOpen(.size(expected: 100, actual: 400)), 1, "400 bytes, not 100"),
            (.changedWhileOpen(.replaced), 1, "replaced or removed"),
        ]
        for (code, exitCode, phrase) in cases {
            let presented = PresentedError(JournalError(code, path: "/x/j"))
            #expect(presented.sentence.contains(phrase), "\(presented.sentence)")
            #expect(presented.sentence.contains("'/x/j'"), "\(presented.sentence)")
            #expect(presented.exitCode == exitCode, "\(code): \(presented.sentence)")
            #expect(!presented.isCancellation)
        }
    }

    @Test func journalErrorsInAnInsecureOrNewerJournal() {
        #expect(JournalError(.insecurePermissions(mode: 0o644), path: "/j/o").sentence.hasSuffix("To fix it, run: chmod 600 '/j/o'"))
        #expect(JournalError(.unsupportedVersion(2), path: "/j/o").sentence.contains("Upgrade giftkeeper"))
        #expect(JournalError(.changedWhileOpen(.replaced), path: "/j/o").sentence.contains("was replaced or removed while it was open"))
        #expect(JournalError(.changedWhileOpen(.size(expected: 1, actual: 2)), path: "/j/o").sentence.contains("Nothing was written"))
    }

    @Test func aNearMissOfAStatusFieldOrSortIsCorrected() {
        #expect(
            DomainError.unknownStatus("boguht").sentence
                == "Unknown status 'boguht'. Did you mean 'bought'? Type one of: idea, bought, wrapped, given.")
        #expect(DomainError.unknownField("titel").sentence.contains("Did you mean 'title'?"))
        #expect(DomainError.unknownSort("prize").sentence.contains("Did you mean 'price'?"))
        #expect(!DomainError.unknownSort("colour").sentence.contains("Did you mean"))
    }

    @Test func domainErrorsQuoteTheInputAndEndInAFullStop() {
        for field in DomainError.InputField.allCases {
            #expect(DomainError.controlCharacter(field, scalar: 0x1B).sentence.contains("U+001B"))
        }
        #expect(DomainError.tooLong(.notes, limit: 10_000, length: 10_001).sentence.hasPrefix("The notes are 10001 characters long"))
        #expect(DomainError.tooLong(.title, limit: 1000, length: 1001).sentence.hasPrefix("The title is 1001 characters long"))
        let id = PresentID(number: 9)!
        let samples: [DomainError] = [
            .accountAlreadyExists, .noAccount, .notSignedIn, .emptyValue(.title), .unknownPresent(id), .presentRemoved(id),
            .presentAlreadyExists(id), .importedIDTooLarge(id), .noChanges(id), .invalidPrice("x", reason: .empty),
            .unknownStatus("x"), .unknownField("x"), .invalidPresentID("x"), .presentIDsExhausted, .wishIDsExhausted,
        ]
        for error in samples {
            #expect(!error.sentence.isEmpty)
            #expect(error.sentence.hasSuffix("."), "\(error.sentence)")
        }
        #expect(DomainError.unknownPresent(id).sentence == "No present 'p9'. Type 'list' to see ids.")
        #expect(DomainError.invalidPrice("12,5", reason: .invalidCharacter(",")).sentence.contains("'12,5'"))
    }

    @Test func notificationsAndSummaries() {
        #expect(LoginNotification.eventsMissing(count: 3).sentence.contains("3 events missing"))
        #expect(LoginNotification.eventsMissing(count: 12).sentence.contains("12 events missing since your last session"))
        #expect(LoginNotification.signedIn(name: "Al", failedAttempts: 2, previousVisit: nil).sentence.contains("2 failed attempts"))
        for notification in [LoginNotification.eventsMissing(count: 1), .historyDiverged(sequence: 4), .rememberedHeadUnverified, .journalReplaced] {
            #expect(notification.sentence.contains("until then this warning repeats"), "\(notification)")
            #expect(!notification.sentence.contains("\n"))
        }
        #expect(ImportSummary(presentsImported: 1, batches: 1).sentence == "Imported 1 present (saved in 1 batch).")
        #expect(ImportSummary(presentsImported: 2500, batches: 3).sentence == "Imported 2500 presents (saved in 3 batches).")
        let rejected = ServiceError(.importRejected(location: "presents[0].title", reason: .rule(.emptyValue(.title))))
        #expect(rejected.sentence.contains("Nothing was imported"))
        #expect(!rejected.sentence.contains(".."), "\(rejected.sentence)")
        #expect(ServiceError(.rolledBack(.eventsMissing(count: 3))).sentence.contains("3 events are missing since your last session"))
    }
}
