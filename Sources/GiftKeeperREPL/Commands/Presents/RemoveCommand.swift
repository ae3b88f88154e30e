import ArgumentParser
import GiftKeeperDomain
import GiftKeeperService
import OrderedCollections

/// `remove <id>`: remove a present (recorded as an event; the history keeps it).
struct RemoveCommand: PresentIDCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove", abstract: "Remove a present (the history keeps it).", usage: "remove <id>")

    @Argument(help: "A present id such as p3.") var id: String?

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        self = try shell.completing(self)
        let id = try presentID()
        try shell.service.perform(.removePresent(id: id))
        shell.console.print("Saved \(id): removed (the history keeps it).")
    }
}
