import ArgumentParser
import GiftKeeperDomain

/// An argument a command asks for when its line leaves it out (SPEC §3), declared once
/// beside the command's syntax: on a terminal a prompt that Tab completes as the command
/// line does at that argument, cancelled by Ctrl-C; in a script the next line. The script
/// answers a command reads, its prompts and their completion all come from these.
struct ArgumentPrompt<Command: ShellCommand> {
    /// The property the answer sets, and how an answer becomes its value.
    enum Answer {
        /// The line as typed, spaces and quotes included (a title).
        case whole(WritableKeyPath<Command, String?>)
        /// The line split like a command line (edit's `price=5 notes="wool, red"`).
        case words(WritableKeyPath<Command, [String]>)
    }

    let answer: Answer
    /// What the prompt says before `: `.
    let label: String
    /// The option whose value it is (`--price`); nil for an argument.
    var option: String?
    /// The arguments declared before it, whose words a command line has before its own:
    /// completion at the prompt answers as it would after them.
    var after: [KeyPath<Command, String?>] = []
    /// Asked only on a terminal, once a required argument was asked for (the `add` wizard's
    /// price, occasion…), and never read from a script; an empty answer skips it.
    var isOptional = false
    /// When the command needs it at all (occasion's name: for add and remove); nil always.
    var neededWhen: ((Command) -> Bool)?
    /// A check of the answer on a terminal, against the list as it is: a wrong one is said
    /// and asked again. A script's answer is checked where the command reads it, its error
    /// the same.
    var check: ((String, GiftList) throws -> Void)?

    init(
        _ property: WritableKeyPath<Command, String?>, _ label: String, option: String? = nil,
        after: [KeyPath<Command, String?>] = [], isOptional: Bool = false, neededWhen: ((Command) -> Bool)? = nil,
        check: ((String, GiftList) throws -> Void)? = nil
    ) {
        self.answer = .whole(property)
        self.label = label
        self.option = option
        self.after = after
        self.isOptional = isOptional
        self.neededWhen = neededWhen
        self.check = check
    }

    /// A prompt whose answer is split into words (a repeating argument).
    init(words property: WritableKeyPath<Command, [String]>, _ label: String, after: [KeyPath<Command, String?>] = []) {
        self.answer = .words(property)
        self.label = label
        self.after = after
    }

    /// Whether the answer is split into words (completed as a command line is).
    var splitsIntoWords: Bool {
        if case .words = answer { return true }
        return false
    }

    /// Whether `command` leaves out this argument and will ask for it.
    func isAsked(by command: Command) -> Bool {
        let missing =
            switch answer {
            case .whole(let property): command[keyPath: property] == nil
            case .words(let property): command[keyPath: property].isEmpty
            }
        return missing && (neededWhen?(command) ?? true)
    }

    /// Sets the argument to `text`, an answer.
    func set(_ text: String, in command: inout Command) throws {
        switch answer {
        case .whole(let property): command[keyPath: property] = text
        case .words(let property): command[keyPath: property] = try CommandLineTokenizer.split(text)
        }
    }

    /// The words a command line would have before the answer: the command's name, the
    /// arguments declared before it and, for an option, its name. What completion at the
    /// prompt is asked with.
    func words(before command: Command) -> [String] {
        [Command._commandName] + after.map { command[keyPath: $0] ?? "" } + (option.map { [$0] } ?? [])
    }
}
