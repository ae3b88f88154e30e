import ArgumentParser

/// `help [command]`: the commands, or how to use one.
struct HelpCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "help", abstract: "Show the commands, or how to use one.", usage: "help [command]")

    @Argument(help: "A command name.") var command: String?

    static var runsOneShot: Bool { false }

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        request.wordIndex == 1 ? ShellCommands.names.sorted() : []
    }

    mutating func run(in shell: any Shell) throws {
        guard let command else {
            shell.console.print("Commands (type 'help <command>' for details):")
            let rows = ShellCommands.all.map { type -> [String] in
                [type.names.joined(separator: ", "), type.configuration.abstract]
            }
            shell.console.print(
                TableRenderer(columns: [.init(""), .init("")], showsRule: false).renderLines(rows).dropFirst()
                    .map { "  " + $0 }.joined(separator: "\n"))
            shell.console.print("Arguments follow shell quoting: add Mum \"Blue scarf\" --price 25")
            return
        }
        guard let type = ShellCommands.named(command) else {
            shell.fail("Unknown command '\(command)'. Type 'help' to see the commands.", code: 2)
            return
        }
        shell.console.print(ShellCommandTree.helpMessage(for: type))
    }
}
