/// A REPL-level failure (not the service's), as data. Public for the executable, whose
/// one-shot subcommands read some arguments the shell's way (`--as-of`).
public struct REPLError: Error, CustomStringConvertible {
    enum Code {
        case noAnswer(String)
        case invalidAnswer(String, String)
        case noAccountYet
        case setupWhileSignedIn
        case expectedAssignment(String)
        /// `person set` with a word that is not field=value (empty: none given).
        case expectedProfileAssignment(String)
        case invalidCount(Int)
        /// An `--as-of`, `--since` or `--until` that is no date (or date and time).
        case invalidTime(option: String, text: String)
        /// `upcoming --days` below 0 or not a number.
        case invalidDays(String)
        /// `--year` that is not a year.
        case invalidYear(String)
        /// A first word that is none of the command's actions (`occasion`, `budget`).
        case unknownAction(command: String, word: String, actions: [String])
        /// `occasion add --yearly` without `--date`.
        case yearlyWithoutDate
        /// Words a command does not take.
        case unexpectedWords(command: String, words: [String])
        /// `budget set` without an amount.
        case missingAmount
        /// Two options that exclude each other (`--json` and `--csv`).
        case conflictingOptions(String, String)
        /// `export --output ''`.
        case emptyOutput
        /// `occasion close` of an occasion whose first day is still to come.
        case occasionNotOver(String, next: String)
        /// Two flags that ask for opposite things (`--carry-over` and `--keep`).
        case conflictingChoices(String, String)
        /// A spreadsheet none of whose rows could be imported (each named already).
        case noRowToImport
        /// A household's command (`wish`, `claim`) in a person's journal.
        case householdOnly(String)
        /// Words that are not a wish id (`w1`, `w2`, …).
        case notAWish(String)
        /// `household admit` with no join request waiting on an invitation of this device's.
        case noJoinRequest
        /// `household admit` with a number that is not the joiner's safety number (the
        /// invitation burned when it was the only one waiting).
        case safetyNumberMismatch(burned: Bool)
        /// `household remove|owner` of a name no other member goes by.
        case noSuchMember(String)
        /// `household owner` of an owner.
        case ownerAlready(String)
        /// `household admit --recipient` naming a member (they need no link).
        case recipientIsAMember(String)
        /// `household unlink` of a person linked to no member.
        case notLinked(String)
    }

    let code: Code

    init(_ code: Code) {
        self.code = code
    }

    /// 2 (usage), but 1 for an admission refused: nothing to admit, or a safety number that
    /// does not match (SPEC §13).
    public var exitCode: Int32 {
        switch code {
        case .noJoinRequest, .safetyNumberMismatch: 1
        default: 2
        }
    }

    public var description: String {
        switch code {
        case .noAnswer(let label):
            return "No answer for '\(label)'; the command was cancelled."
        case .invalidAnswer(let label, let problem):
            return "The answer for '\(label)' was unusable: \(problem)."
        case .noAccountYet:
            return "There is no account yet. Type 'setup <your name>' first."
        case .setupWhileSignedIn:
            return "This journal already has an account, and you are signed in to it. "
                + "For a new journal, quit and start giftkeeper with --journal NEW-PATH."
        case .expectedAssignment(let text):
            return "Expected field=value, not '\(text)'. Fields: title, recipient, notes, price, occasion, url, store."
        case .expectedProfileAssignment(let text):
            let fields = PersonCommand.fields.joined(separator: ", ")
            guard !text.isEmpty else { return "Say what to set as field=value, e.g. 'person set Mum likes=\"tea, gardening\"'. Fields: \(fields)." }
            return "Expected field=value, not '\(text)'. Fields: \(fields)."
        case .invalidCount(let count):
            return "'--last \(count)' must be 1 or more. Type e.g. 'history --last 10'."
        case .invalidTime(let option, let text):
            return
                "'\(text)' is not a date for \(option). Type YYYY-MM-DD, YYYY-MM-DDTHH:MM[:SS], today, yesterday or -7d, e.g. 2025-12-24 or 2025-12-24T18:00."
        case .invalidDays(let text):
            return "'--days \(text)' must be a number of days, 0 or more. Type e.g. 'upcoming --days 30'."
        case .invalidYear(let text):
            return "'--year \(text)' is not a year. Type e.g. 'summary --year 2026' or 'budget set 100 --for Mum --year 2027'."
        case .unknownAction(let command, let word, let actions):
            return "'\(command) \(word)' is not a command: '\(command)' takes \(actions.map { "'\($0)'" }.joined(separator: ", ")). "
                + "Type 'help \(command)' for its usage."
        case .yearlyWithoutDate:
            return "A yearly occasion needs its date: add --date YYYY-MM-DD (for a birthday, the date of birth)."
        case .unexpectedWords(let command, let words):
            return
                "'\(command)' does not take '\(words.joined(separator: " "))'. Type 'help \(command.split(separator: " ").first ?? "")' for its usage."
        case .missingAmount:
            return "'budget set' needs an amount, e.g. 'budget set 100 --for Mum'."
        case .emptyOutput:
            return "--output needs a file name, e.g. --output gifts.json (or - for standard output)."
        case .occasionNotOver(let name, let next):
            return "'\(name)' is not over yet: it falls on \(next). Close it once that day has come."
        case .conflictingChoices(let first, let second):
            return "\(first) and \(second) cannot be used together: choose one."
        case .noRowToImport:
            return "No row of the spreadsheet could be imported (each is named above). Nothing was imported."
        case .householdOnly(let command):
            return HouseholdWords.householdOnly(command)
        case .notAWish(let text):
            return HouseholdWords.notAWish(text)
        case .noJoinRequest:
            return HouseholdWords.noInvitation
        case .safetyNumberMismatch(let burned):
            return HouseholdWords.mismatch(burned: burned)
        case .noSuchMember(let name):
            return HouseholdWords.noSuchMember(name)
        case .ownerAlready(let name):
            return HouseholdWords.ownerAlready(name)
        case .recipientIsAMember(let name):
            return HouseholdWords.recipientIsAMember(name)
        case .notLinked(let name):
            return HouseholdWords.notLinked(name)
        case .conflictingOptions(let first, let second):
            return "\(first) and \(second) cannot be used together: choose one output format."
        }
    }
}
