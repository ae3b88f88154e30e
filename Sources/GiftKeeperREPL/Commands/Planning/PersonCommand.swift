import ArgumentParser
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperService

/// `person` (everyone), `person <name> [--json]` (a profile with their presents and
/// budgets), `person set <name> field=value ...` (SPEC §10.1).
struct PersonCommand: ShellCommand, StructuredOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "person",
        abstract: "People you give to: a profile (sizes, likes, address...) with their presents and budgets.",
        usage: "person [<name> [--json]] | person set <name> <field>=<value> ...",
        discussion: "Fields: sizes, likes, dislikes, address, notes, and birthday (YYYY-MM-DD, a yearly occasion "
            + "named \"<name>'s birthday\"). field= clears a field. Names ignore case and accents. "
            + "Without a name, lists everyone the list knows.")

    @Argument(help: "A name, or 'set' to change a profile.") var name: String?
    @Argument(help: ArgumentHelp("person set: the name, then changes such as likes=\"tea, gardening\".", valueName: "field=value"))
    var words: [String] = []
    @Flag(help: "One JSON document (the profile, presents and budgets) instead of the text.") var json = false

    static let fields = ProfileField.allCases.map(\.name) + ["birthday"]

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        if request.wordIndex == 1 { return ["set"] + shell.service.state.people }
        if request.wordIndex == 2, request.precedingWords.last?.lowercased() == "set" { return shell.service.state.people }
        return request.precedingWords.dropFirst().first?.lowercased() == "set" ? fields.map { $0 + "=" } : []
    }

    mutating func run(in shell: any Shell) throws {
        try shell.requireSignedIn()
        let format = try StructuredOutput.format(self)
        guard let name = name?.trimmedWhitespace(), !name.isEmpty else {
            if json { throw REPLError(.unexpectedWords(command: "person", words: ["--json"])) }
            return PersonWords.everyone(shell)
        }
        if name.lowercased() == "set" {
            if json { throw REPLError(.unexpectedWords(command: "person set", words: ["--json"])) }
            return try set(shell)
        }
        if let extra = words.first { throw REPLError(.unexpectedWords(command: "person", words: [extra])) }
        let state = shell.service.state
        guard state.knowsPerson(name) || state.birthday(of: name) != nil else { throw DomainError.unknownPerson(name) }
        if format == .json {
            shell.console.write(JSONWriter.document(PersonWords.document(name, in: state, today: LocalTime.date(shell.service.now))))
        } else {
            shell.console.print(PersonWords.profile(name, shell: shell))
        }
    }

    /// `person set <name> field=value ...`.
    private func set(_ shell: any Shell) throws {
        guard let name = words.first?.trimmedWhitespace(), !name.isEmpty else { throw REPLError(.noAnswer("Name")) }
        let assignments = words.dropFirst()
        guard !assignments.isEmpty else { throw REPLError(.expectedProfileAssignment("")) }
        let changes = try assignments.map { assignment throws -> ProfileChange in
            guard let equals = assignment.firstIndex(of: "=") else { throw REPLError(.expectedProfileAssignment(assignment)) }
            let field = assignment[..<equals].trimmedWhitespace()
            let value = String(assignment[assignment.index(after: equals)...])
            if field.lowercased() == "birthday" {
                let text = value.trimmedWhitespace()
                return .birthday(text.isEmpty ? nil : try CalendarDate(parsing: text))
            }
            guard let profileField = ProfileField(name: field) else { throw DomainError.unknownProfileField(field) }
            return .field(profileField, value)
        }
        let events = try shell.service.perform(.setProfile(recipient: name, changes: changes)).events
        shell.console.print(PersonWords.saved(events, name: shell.service.state.recipientSpelling(name)))
    }
}
