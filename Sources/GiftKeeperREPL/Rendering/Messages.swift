import GiftKeeperCrypto
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperFiles
public import GiftKeeperJournal
public import GiftKeeperService
import Glibc

// Every sentence GiftKeeper addresses to a person, written in one place. The targets below
// the shell report errors and notifications as data; this file words them: capitalised,
// the user's input quoted in '…', what to do next, never a secret.

extension JournalError {
    /// Sentences naming the path and what to do next (capitalised, ending in a full stop,
    /// like every other message GiftKeeper shows).
    var sentence: String {
        let quoted = "'\(path)'"
        switch code {
        case .notFound:
            return "No journal at \(quoted). Check the path, or run setup to create one."
        case .alreadyExists:
            return "A file already exists at \(quoted). Open it, or choose another path for a new journal."
        case .unreachable(let failure):
            return "The journal server \(quoted) cannot be used: \(failure.words).\(failure.advice)"
        case .inUse:
            return "The journal \(quoted) is in use by another giftkeeper. Close that one and try again."
        case .isDirectory:
            return "\(quoted) is a directory. Give the path of the journal file itself."
        case .notRegularFile:
            return "\(quoted) is not a regular file (a symlink, device or pipe). Give the path of the journal file itself."
        case .notAJournal:
            return "\(quoted) is not a GiftKeeper journal this version can read. Check the path."
        case .unsupportedVersion(let version):
            return "\(quoted) has newer format version \(version). Upgrade giftkeeper to open it."
        case .insecurePermissions(let mode):
            let octal = String(mode & 0o7777, radix: 8)
            return
                "\(quoted) can be read or written by other users (mode 0\(octal)). To fix it, run: chmod 600 \(CommandLineTokenizer.posixShellQuoted(path))"
        case .unreadable:
            return "The journal \(quoted) cannot be opened: permission denied. Check its owner and mode (it should be yours, mode 600)."
        case .foreignOwner(let uid):
            return "\(quoted) belongs to another user (uid \(uid)). Only its owner may open it: ask them, or use your own journal."
        case .corrupt(let problem):
            return "The journal \(quoted) fails verification \(problem.place): \(problem.damage.words). "
                + "It is damaged or was tampered with: restore it from a backup."
        case .frameTooLarge(let size):
            return "A frame of \(size) bytes exceeds the 1 MiB bound of \(quoted). Nothing was written."
        case .readOnlyAccess:
            return "The journal \(quoted) is open read-only. Open it for writing to append."
        case .unusable:
            return "The journal \(quoted) can no longer be written after an earlier failure. Restart giftkeeper."
        case .changedWhileOpen(.size(let expected, let actual)):
            return "The journal \(quoted) was changed by another program while it was open (it is \(actual) bytes, not \(expected)). "
                + "Nothing was written; quit giftkeeper and check it: giftkeeper verify --journal \(CommandLineTokenizer.posixShellQuoted(path))"
        case .changedWhileOpen(.replaced):
            return "The journal \(quoted) was replaced or removed while it was open, so the last change was not saved. "
                + "Quit giftkeeper and check the file now at that path: giftkeeper verify --journal \(CommandLineTokenizer.posixShellQuoted(path))"
        case .io(let operation, let code):
            switch code {
            case EACCES, EPERM:
                return "Permission denied on \(quoted) (\(operation)). Check the file's and its directory's owner and mode."
            case EFBIG:
                return "The journal \(quoted) cannot grow: the file size limit ('ulimit -f') was reached (\(operation)). "
                    + "Raise the limit and try again (nothing unsaved was acknowledged)."
            case ENOSPC, EDQUOT:
                return "The disk is full: could not \(operation) \(quoted). Free some space and try again (nothing unsaved was acknowledged)."
            case ENOTDIR, ENAMETOOLONG, ELOOP:
                return "Could not \(operation) \(quoted): \(errnoText(code)). "
                    + "Check the path: every part before the file name must be a directory."
            case EROFS:
                return "\(quoted) is on a read-only file system (\(operation)). Move the journal to a writable place."
            default:
                return "Could not \(operation) \(quoted): \(errnoText(code)). Check the disk and try again."
            }
        }
    }
}

extension DomainError {
    /// One line for the user, quoting their input in '…' and saying what to do next.
    var sentence: String {
        switch self {
        case .accountAlreadyExists:
            return "This journal already has an account. Type 'login' to unlock it, or use another --journal for a new one."
        case .noAccount:
            return "There is no account in this journal yet. Type 'setup <name>' to create one."
        case .notSignedIn:
            return "You are not signed in. Type 'login' first."
        case .emptyValue(let field):
            return "The \(field.rawValue) cannot be empty. Type a \(field.rawValue) with at least one visible character."
        case .tooLong(let field, let limit, let length):
            return "The \(field.rawValue) \(field.isPlural ? "are" : "is") \(length) characters long; the limit is \(limit). "
                + "Shorten \(field.isPlural ? "them" : "it") and try again."
        case .controlCharacter(let field, let scalar):
            let code = String(scalar, radix: 16, uppercase: true)
            let padded = String(repeating: "0", count: max(0, 4 - code.count)) + code
            return "The \(field.rawValue) \(field.isPlural ? "contain" : "contains") the control character U+\(padded), "
                + "which a terminal would act on "
                + "instead of showing. Remove it and try again."
        case .unknownPresent(let id):
            return "No present '\(id)'. Type 'list' to see ids."
        case .presentRemoved(let id):
            return "Present '\(id)' was removed. Type 'list' to see current ids, or 'history' to see what happened."
        case .importedIDTooLarge(let id):
            return "Present id '\(id)' is too large to import: the largest is 'p\(PresentID.maximumImported)'. "
                + "Number the presents from p1."
        case .presentAlreadyExists(let id):
            return "The id '\(id)' is already used in this journal (ids are never reused, even after 'remove'). "
                + "Import into a new journal instead (--journal PATH)."
        case .noChanges(let id):
            return "Nothing to change for '\(id)'. Type 'edit \(id) <field>=<value>', e.g. 'edit \(id) price=25.00'."
        case .invalidPrice(let input, let reason):
            let why =
                switch reason {
                case .empty: "it is empty"
                case .negative: "it is negative"
                // A comma is taken as the decimal comma only with one or two decimals after it.
                case .invalidCharacter(","):
                    "a comma is read as the decimal comma, with one or two decimals after it (12,50), and thousands take no separator (1000)"
                case .invalidCharacter(let character): "'\(character)' is not allowed"
                case .tooManyFractionDigits: "it has more than two decimals"
                case .missingDigits: "it needs digits on both sides of the dot"
                case .tooLarge: "it is over the largest price, \(Money.maximumPrice)"
                }
            return "'\(input)' is not a price: \(why). Type an amount such as 25, 25.50 or 25,50."
        case .unknownStatus(let input):
            let names = PresentStatus.allCases.map(\.rawValue)
            return "Unknown status '\(input)'.\(didYouMean(input, names)) Type one of: \(names.joined(separator: ", "))."
        case .unknownField(let input):
            let words = PresentField.allCases.map(\.rawValue).joined(separator: ", ")
            if input.lowercased() == "status" {
                return "The status is changed with 'mark <id> <status>', e.g. 'mark p3 bought'. The fields 'edit' changes are: \(words)."
            }
            return "Unknown field '\(input)'.\(didYouMean(input, PresentField.allCases.map(\.rawValue))) Type one of: \(words)."
        case .invalidPresentID(let input):
            return "'\(input)' is not a present id. Ids look like 'p3'; type 'list' to see them."
        case .presentIDsExhausted:
            return "No present ids are left in this journal. Export it and import into a new journal."
        case .wishIDsExhausted:
            return "No wish ids are left in this journal."
        case .invalidDate(let input):
            return "'\(input)' is not a date. Type it as YYYY-MM-DD, e.g. 2026-12-24."
        case .invalidYear(let year):
            return "'\(year)' is not a year for a budget. Type a year from 1 to 9999, e.g. --year 2027."
        case .unknownOccasion(let name):
            return "No occasion '\(name)'. Type 'occasion list' to see them."
        case .occasionInUse(let name, let presents):
            let ids = presents.prefix(5).map(\.description).joined(separator: ", ") + (presents.count > 5 ? ", …" : "")
            return "\(presents.count) present\(presents.count == 1 ? " is" : "s are") for '\(name)' (\(ids)). "
                + "Give \(presents.count == 1 ? "it" : "them") another occasion first, e.g. 'edit \(presents[0]) occasion=…'."
        case .noBudget(let scope):
            return "There is no budget for \(scope.words). Type 'budget' to see the budgets."
        case .presentNotRemoved(let id):
            return "Present '\(id)' is not removed, so there is nothing to restore. Type 'show \(id)' to see it."
        case .invalidCurrency(let input):
            return "'\(input)' is not a currency code. Type three letters, e.g. EUR, USD or GBP."
        case .nothingLeftToUndo:
            return "That change was already reversed since (here or on another device); nothing was undone."
        case .unknownSort(let input):
            let names = PresentSort.allCases.map(\.rawValue)
            return "Unknown sort '\(input)'.\(didYouMean(input, names)) Type one of: \(names.joined(separator: ", "))."
        case .unknownProfileField(let input):
            let names = ProfileField.allCases.map(\.name) + ["birthday"]
            return "Unknown field '\(input)'.\(didYouMean(input, names)) A profile's fields are: \(names.joined(separator: ", "))."
        case .unknownPerson(let name):
            return "No one named '\(name)' on this list. Type 'person' to see everyone, "
                + "or 'person set \(name) likes=…' to start a profile."
        case .unknownWish(let id):
            return "There is no wish \(id). Type 'wishes' to see the wish lists."
        case .invalidWishID(let input):
            return "'\(input)' is not a wish id. Wish ids look like 'w3'; type 'wishes' to see them."
        case .ownWish(let id):
            return "Wish \(id) is your own: the others claim it, and you will not see who."
        case .wishAlreadyClaimed(let id, let claimer):
            return "\(claimer) claimed wish \(id) already. Type 'wishes' for the ones nobody has claimed."
        case .notYourClaim(let id):
            return "You have not claimed wish \(id), so there is nothing to give up."
        }
    }
}

extension ServiceError {
    /// The one wording of a failed write to standard output (a full disk behind `>`).
    public static func standardOutputFailure(errno: Int32) -> String {
        "Could not write to standard output (\(errnoText(errno))): the output is incomplete. "
            + "Check the disk or the pipe it goes to."
    }

    /// One line, quoting the user's input and naming what to do next; never a secret.
    public var sentence: String {
        switch code {
        case .domain(let error):
            return error.sentence
        case .journal(let error):
            return error.sentence
        case .wrongPassword(let recorded):
            return recorded
                ? "Wrong password. The attempt was recorded; try again."
                : "Wrong password. Try again."
        case .passwordsDoNotMatch:
            return "The passwords do not match. Nothing was changed; try again."
        case .emptyPassword:
            return "The password is empty. Type a password, then press Enter."
        case .passwordTooShort(let minimum):
            return
                "That password is too short: a new password has at least \(minimum) characters. Nothing was changed; try a longer one, such as a few words."
        case .noJournal(let path):
            return "No journal at '\(path)'. Run 'giftkeeper' and type 'setup' to create one, or pass --journal PATH."
        case .journalExists(let path):
            return "A journal already exists at '\(path)'. Type 'login' to unlock it, or choose another --journal PATH."
        case .notSignedIn:
            return "You are signed out. Type 'login' first."
        case .alreadySignedIn:
            return "You are already signed in. Type 'signout' first."
        case .tampered(let sequence, let tampering):
            return
                "Frame \(sequence) does not verify: \(tampering.words). The journal was altered or damaged; run 'giftkeeper audit' and restore from a backup."
        case .rolledBack(let finding):
            let what: String
            switch finding {
            case .eventsMissing(let count):
                what =
                    "\(count) event\(count == 1 ? " is" : "s are") missing since your last session on this machine: the journal was rolled back or replaced"
            case .historyDiverged(let sequence):
                what =
                    "the journal's history differs from your last session on this machine at sequence number \(sequence): it was replaced or altered"
            case .journalReplaced:
                what = "this machine last used another journal at this path: this one replaced it"
            case .rememberedHeadUnverified:
                what = "the record of your last session on this machine does not verify: it or the journal was altered"
            }
            return
                "Rollback detected: \(what). Restore the newer copy from a backup, or keep this one by making a change in an interactive 'giftkeeper' session."
        case .unsupportedEvent(let sequence, let error):
            return "Frame \(sequence) was written by a newer GiftKeeper (\(error.words)). Upgrade giftkeeper to open this journal."
        case .weakKeyDerivation:
            return "That key-derivation cost is below 'interactive'. Use --kdf interactive, moderate or sensitive."
        case .fileIO(_, let path, let errno) where path == "standard output":
            return Self.standardOutputFailure(errno: errno)
        case .fileIO(let operation, let path, let errno):
            return "Could not \(operation) '\(path)': \(errnoText(errno)). Check the path, its permissions and free space."
        case .nothingToUndo:
            return "Nothing to undo: this session has made no change that is not undone yet."
        case .nothingToRedo:
            return "Nothing to redo: 'redo' makes again what 'undo' reversed, until a new change is made."
        case .beforeJournalBegan(let first):
            return "The journal began on \(LocalTime.dateAndMinute(first)); there is nothing before it. Choose a later --as-of date."
        case .importRejected(let location, let reason):
            let clause: String
            if case .rule(let rule) = reason {
                // A rule's sentence, as a clause: its own full stop dropped.
                clause = rule.sentence.hasSuffix(".") ? String(rule.sentence.dropLast()) : rule.sentence
            } else {
                clause = reason.words
            }
            return "Import rejected at \(location): \(clause). Nothing was imported; fix the document and try again."
        case .cancelled:
            return "Cancelled (Ctrl-C). Nothing was recorded."
        case .notRegularFile(let path):
            return "'\(path)' is not a regular file (a FIFO, device, socket or directory): nothing was read from it."
        case .exportTargetExists(let path):
            return "'\(path)' already exists. Choose another file, or add --force to replace it."
        case .changedElsewhere:
            return "The journal kept changing in another session while this one caught up. Nothing was recorded; try again."
        case .passwordChangedElsewhere:
            return "The password was changed in another session. You are signed out; type 'login' with the new password."
        case .noRemote:
            return "No server is set for this journal. Give one with --remote https://HOST (or $GIFTKEEPER_REMOTE)."
        case .remoteDiverged, .remoteBehind, .remoteHidesFrames, .remoteHidesProgress, .remoteForked,
            .remoteForgedDeviceHead:
            return SyncWords.lie(code)
        case .mergeNeedsSignIn(let pending):
            return "\(pending) change\(pending == 1 ? "" : "s") on this device must be merged with another device's: sign in to sync."
        case .passwordChangedOnAnotherDevice:
            return "The password was changed on another device while this one has changes to merge; they stay here. "
                + "Export them ('giftkeeper export'), clone the shared journal into a new file and import them there."
        case .offlinePasswordChangeConflicts:
            return "The password was changed on this device while another device changed the journal. "
                + "Nothing was sent; clone the shared journal into a new file and change the password there."
        case .cloneNeedsJournal(let server, let found):
            if found.isEmpty { return "The server \(server) holds no journal yet. Push one first: 'giftkeeper sync --remote URL'." }
            return "The server \(server) holds \(found.count) journals; name one: " + found.joined(separator: ", ") + "."
        case .household(let refusal):
            return HouseholdWords.refusal(.household(refusal)).sentence
        case .householdNameTaken(let name):
            return HouseholdWords.refusal(.nameTaken(name)).sentence
        case .householdKeptOffline(let changes):
            return HouseholdWords.keptOffline(changes: changes)
        case .notInAHousehold(let command):
            return HouseholdWords.notInAHousehold(command)
        case .householdRenewalNotOpened(let opened):
            return opened ? HouseholdWords.notYourRenewal : HouseholdWords.notTheNewPassword
        case .crypto(let failure):
            return "Internal failure: \(failure.words). Nothing more was written; please report this."
        case .outOfGuardedMemory(let bytes):
            return "Could not lock \(bytes) more bytes of memory for the keys. Nothing more was written; "
                + "raise the limit of locked memory ('ulimit -l') and try again."
        }
    }
}

extension LoginNotification {
    /// What ends a rollback warning; until then it is shown at every sign-in.
    private static let untilAccepted =
        ". Restore the newer copy from a backup, or make a change in an interactive session to keep this one; until then this warning repeats."

    /// The sign-in of a one-shot with no failed attempt to report, and the sign-out: what
    /// the person did, with nothing to warn of.
    var isRoutine: Bool {
        switch self {
        case .signedIn(_, let failed, _): failed == 0
        case .signedOut: true
        default: false
        }
    }

    public var sentence: String {
        switch self {
        case .signedIn(let name, let failed, _):
            switch failed {
            case 0: return "🔓 Signed in as \(name)"
            case 1: return "🔓 Signed in as \(name) (1 failed attempt reported since your last visit)"
            default: return "🔓 Signed in as \(name) (\(failed) failed attempts reported since your last visit)"
            }
        case .signedOut:
            return "🔒 Signed out"
        case .failedAttempt(let recorded, let delay):
            let what = recorded ? "⚠️  Failed sign-in recorded" : "⚠️  Failed sign-in"
            return delay > 0 ? "\(what); the next try waits \(delay) s." : what + "."
        case .uncleanSessionRecorded:
            return "⚠️  Your last session ended without signing out; that is recorded in the history."
        case .eventsMissing(let count):
            return "🚨 \(count) event\(count == 1 ? "" : "s") missing since your last session: the journal was rolled back or replaced"
                + Self.untilAccepted
        case .historyDiverged(let sequence):
            return "🚨 The journal's history differs from your last session at event \(sequence): it was replaced or altered"
                + Self.untilAccepted
        case .rememberedHeadUnverified:
            return "🚨 The record of your last session does not verify: it was altered" + Self.untilAccepted
        case .journalReplaced:
            return "🚨 This is not the journal you last used at this path: it was replaced by another one" + Self.untilAccepted
        case .rollbackMemoryUnavailable(let directory):
            return "⚠️  The record of this journal's last state cannot be kept in '\(directory)' (check that it is a "
                + "directory you can write): until it can, a rolled-back journal would go unnoticed."
        case .rollbackAccepted:
            return "⚠️  Carrying on with this journal as it is: the rollback warning will not be repeated."
        case .keptOffline(let changes):
            return "⚠️  " + HouseholdWords.keptOffline(changes: changes)
        case .householdPasswordMayBeNew:
            return HouseholdWords.signInOnceWithTheOld
        }
    }
}

/// ` Did you mean 'idea'?` when `typed` is within two edits of one of `names` (or starts
/// one), else nothing: the same rule as for command names.
private func didYouMean(_ typed: String, _ names: [String]) -> String {
    ShellCommands.closestName(to: typed, among: names).map { " Did you mean '\($0)'?" } ?? ""
}

extension JournalProblem {
    /// Where the problem is, as a phrase: "in its header", "at sequence number 7 (byte offset 880)".
    public var place: String {
        guard sequence > 0 else { return "in its header" }
        guard let offset else { return "at sequence number \(sequence)" }
        return "at sequence number \(sequence) (byte offset \(offset))"
    }
}

/// Sentences of the shell's own that belong to no error or command.
enum Messages {
    /// On a terminal, before the password prompt a signed-out command opens.
    static func signInToRun(_ command: String) -> String {
        "You are signed out. Sign in to run '\(command)' (Ctrl-C cancels)."
    }
}

/// "1 frame", "2 frames".
public func counted(_ count: Int, _ noun: String) -> String {
    "\(count) \(noun)\(count == 1 ? "" : "s")"
}
