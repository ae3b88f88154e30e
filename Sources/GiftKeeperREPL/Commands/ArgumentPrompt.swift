/// An argument a command asks for when its line leaves it out (SPEC §3), declared once
/// beside the command's syntax: on a terminal a prompt that Tab completes as the command
/// line does at that argument, cancelled by Ctrl-C; in a script the next line. The script
/// answers a command reads, its prompts and their completion all come from these.
struct ArgumentPrompt: Sendable {
    /// How an answer becomes the argument's value.
    enum Answer: Sendable {
        /// The line as typed, spaces and quotes included (a title).
        case whole
        /// The line split like a command line (edit's `price=5 notes="wool, red"`).
        case words
    }

    /// The declaration it answers (the property's name).
    let key: String
    /// What the prompt says before `: `.
    let label: String
    var answer = Answer.whole
    /// Asked only on a terminal, once a required argument was asked for (the `add` wizard's
    /// price, occasion…), and never read from a script; an empty answer skips it.
    var isOptional = false
    /// When the command needs it at all (occasion's name: for add and remove); nil always.
    var neededWhen: (@Sendable (BoundLine) -> Bool)?
    /// A check of the answer on a terminal: a wrong one is said and asked again. A script's
    /// answer is checked where the command reads it, its error the same.
    var check: (@Sendable (String) throws -> Void)?

    init(
        _ key: String, _ label: String, answer: Answer = .whole, isOptional: Bool = false,
        neededWhen: (@Sendable (BoundLine) -> Bool)? = nil, check: (@Sendable (String) throws -> Void)? = nil
    ) {
        self.key = key
        self.label = label
        self.answer = answer
        self.isOptional = isOptional
        self.neededWhen = neededWhen
        self.check = check
    }

    /// Whether `line` leaves out this argument and the command will ask for it.
    func isAsked(by line: BoundLine) -> Bool {
        line.missing(key) == 1 && (neededWhen?(line) ?? true)
    }
}
