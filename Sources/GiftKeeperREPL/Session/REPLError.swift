/// A REPL-level failure (not the service's), as data.
struct REPLError: Error, CustomStringConvertible {
    enum Code {
        case noAnswer(String)
        case invalidAnswer(String, String)
        case noAccountYet
        case setupWhileSignedIn
        case expectedAssignment(String)
        case invalidCount(Int)
        /// A command whose parsed values could not be read back (a programming error).
        case unreadableDeclarations(String)
    }

    let code: Code

    init(_ code: Code) {
        self.code = code
    }

    var exitCode: Int32 { 2 }

    var description: String {
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
            return "Expected field=value, not '\(text)'. Fields: title, recipient, notes, price, occasion."
        case .invalidCount(let count):
            return "'--last \(count)' must be 1 or more. Type e.g. 'history --last 10'."
        case .unreadableDeclarations(let command):
            return "Internal failure: the arguments of '\(command)' could not be read. Nothing was done; please report this."
        }
    }
}
