import ArgumentParser
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `restore <id>`: bring back a removed present, as it was when removed.
struct RestoreCommand: PresentIDCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore", abstract: "Bring back a removed present.", usage: "restore <id>")

    @Argument(help: "The id of a removed present, such as p3.") var id: String?

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        request.wordIndex == 1 ? shell.service.state.removedPresents.keys.map(\.description) : []
    }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        self = try shell.completing(self)
        let id = try presentID()
        let result = try shell.service.perform(.restorePresent(id: id))
        if let present = shell.service.state[id: id] {
            shell.console.print("Saved \(id): \"\(present.title)\" for \(present.recipient) is back (\(present.status)).")
        }
        shell.warnOverBudget(result.budgetsCrossed)
    }
}

/// `undo`: reverse this session's last change, as new events (repeatable).
struct UndoCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo", abstract: "Reverse this session's last change (repeatable).", usage: "undo",
        discussion: "The reversal is recorded as new events: the history keeps both.")

    /// A new session has nothing to undo.
    static var runsOneShot: Bool { false }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        let (undone, before, _) = try shell.service.undo()
        var state = before
        var said: [String] = []
        for event in undone {
            said.append(HistoryWords.sentence(for: event, before: state))
            state.apply(event)
        }
        shell.console.print("Undone: \(said.joined(separator: "; ")).")
    }
}
