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

    /// A removed present's id.
    static func checkAnswered(_ id: PresentID, in state: GiftList) throws {
        guard state.removedPresent(id) == nil else { return }
        throw state[id: id] == nil ? DomainError.unknownPresent(id) : DomainError.presentNotRemoved(id)
    }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        self = try shell.completing(self)
        let id = try presentID()
        let result = try shell.service.perform(.restorePresent(id: id))
        if let present = shell.service.state[id: id] {
            shell.console.print("Saved \(id): \(TerminalText.quoted(present.title)) for \(present.recipient) is back (\(present.status)).")
        }
        shell.warnOverBudget(result.budgetsCrossed)
    }
}

/// `undo`: reverse this session's last change, as new events (repeatable), and say what
/// the next `undo` would reverse.
struct UndoCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "undo", abstract: "Reverse this session's last change (repeatable); says what the next undo would reverse.",
        usage: "undo",
        discussion: "The reversal is recorded as new events: the history keeps both. 'redo' makes the change again.")

    /// A new session has nothing to undo.
    static var runsOneShot: Bool { false }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        let (undone, before, _) = try shell.service.undo()
        shell.console.print(UndoWords.undone(undone, before: before))
        shell.console.print(UndoWords.next(shell.service.nextUndo))
    }
}

/// `redo`: make again the change the last `undo` reversed (repeatable, until a new change).
struct RedoCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "redo", abstract: "Make again the change the last undo reversed (repeatable).", usage: "redo",
        discussion: "Recorded as new events, like undo. A new change ends what redo can make again.")

    /// A new session has nothing to redo.
    static var runsOneShot: Bool { false }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        // Worded as the change was first made (an undone 'add' is "Added p1 …" again).
        let change = shell.service.nextRedo
        _ = try shell.service.redo()
        if let change { shell.console.print(UndoWords.redone(change.events, before: change.stateBefore)) }
        if let next = shell.service.nextRedo { shell.console.print(UndoWords.nextRedo(next.events, before: next.stateBefore)) }
    }
}
