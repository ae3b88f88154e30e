/// The answer lines a shell command reads after its own line: its prompted arguments first,
/// then its passwords. In a script these are the lines that follow the command.
struct ScriptAnswers: Equatable {
    var arguments = 0
    var passwords = 0

    init(arguments: Int = 0, passwords: Int = 0) {
        self.arguments = arguments
        self.passwords = passwords
    }
}
