import ArgumentParser
import Foundation

/// Binds a command line's words to its command's declarations: a ``BoundLine``.
///
/// Written here because argument-parser rebuilds a command's declarations by reflection on
/// every parse (about a million instructions a line, several times a fsync'd append), so a
/// script of a thousand `add` lines would spend most of its time there. The syntax comes
/// from the same declarations (argument-parser's own help dump, read once per command).
/// Anything but the plain case -- an unknown or repeated option, `--name=value`, `--`, a
/// word starting with `-` that is no option, too many arguments, a value that is not text
/// (a number, a choice) -- is left to argument-parser,
/// which parses the line (``bound(from:)`` reads its result) or words the error.
enum LineBinding {
    /// One declared argument, as the help dump describes it, with its property's name.
    /// Made once per command and read on every line: a class, so that reading one out of
    /// the list is one reference counted, not each of its strings.
    final class Declaration: Sendable {
        enum Kind: String, Decodable {
            case positional, option, flag
        }
        let key: String
        let kind: Kind
        let longName: String?
        let isRepeating: Bool
        let takesAnyValue: Bool
        let defaultValue: String?
        /// Whether its value is text as typed (String, String?, [String], a flag); any other
        /// type (a number, a choice) is converted and checked by argument-parser.
        let isText: Bool

        init(
            key: String, kind: Kind, longName: String?, isRepeating: Bool, takesAnyValue: Bool, defaultValue: String?,
            isText: Bool
        ) {
            self.key = key
            self.kind = kind
            self.longName = longName
            self.isRepeating = isRepeating
            self.takesAnyValue = takesAnyValue
            self.defaultValue = defaultValue
            self.isText = isText
        }
    }

    /// What the command's line gave for one declaration.
    enum Given: Equatable {
        case text(String)
        case texts([String])
        case flag

        /// A parsed property's value (nil for nothing: an absent option, a flag off).
        init?(_ value: Any) {
            switch value {
            case let text as String: self = .text(text)
            case let texts as [String]: self = texts.isEmpty ? .texts([]) : .texts(texts)
            case let flag as Bool: if flag { self = .flag } else { return nil }
            case let number as Int: self = .text(String(number))
            case let choice as any RawRepresentable:
                guard let raw = choice.rawValue as? String else { return nil }
                self = .text(raw)
            default:
                // An Optional: its wrapped value, or nothing.
                guard let wrapped = Mirror(reflecting: value).children.first?.value else { return nil }
                self.init(wrapped)
            }
        }
    }

    /// The line bound from `arguments` (the words after the command's name), or nil to let
    /// argument-parser parse them.
    static func bind(_ type: any ShellCommand.Type, _ arguments: [String]) -> BoundLine? {
        guard let declarations = declarations(of: type), let given = match(arguments, declarations) else { return nil }
        return BoundLine(given: given, declarations: declarations, command: type)
    }

    /// What argument-parser parsed, as a line: each declared property's value, read from
    /// its wrapper (`_parsedValue`, case `value`).
    static func bound(from parsed: any ShellCommand) -> BoundLine? {
        guard let declarations = declarations(of: type(of: parsed)) else { return nil }
        var line = BoundLine(declarations: declarations, command: type(of: parsed))
        for child in Mirror(reflecting: parsed).children {
            guard let label = child.label else { continue }
            let key = String(label.dropFirst())
            guard
                let value = Mirror(reflecting: child.value).children.first.flatMap({ storage in
                    Mirror(reflecting: storage.value).children.first { $0.label == "value" }?.value
                })
            else { return nil }
            line[key] = Given(value)
        }
        return line
    }

    /// Assigns the words to the declarations: what each was given, in their order; nil for
    /// anything but the plain case.
    static func match(_ words: [String], _ declarations: [Declaration]) -> [Given?]? {
        // `--` ends the options for argument-parser, wherever it stands.
        guard !words.contains("--") else { return nil }
        // A copy of repeated nils, which the compiler specializes; init(repeating:count:) stays
        // generic in the standard library and looks the array's type up at run time.
        var given = Array(repeatElement(Given?.none, count: declarations.count))
        var positional = declarations.firstIndex { $0.kind == .positional }
        var index = words.startIndex
        while index < words.endIndex {
            let word = words[index]
            index += 1
            if looksLikeOption(word) {
                guard let option = declarations.firstIndex(where: { $0.kind != .positional && $0.longName == word }),
                    given[option] == nil
                else { return nil }
                if declarations[option].kind == .flag {
                    given[option] = .flag
                    continue
                }
                guard declarations[option].isText, index < words.endIndex,
                    declarations[option].takesAnyValue || !looksLikeOption(words[index])
                else { return nil }
                given[option] = .text(words[index])
                index += 1
            } else {
                guard let argument = positional, declarations[argument].isText else { return nil }
                if declarations[argument].isRepeating {
                    if case .texts(let earlier) = given[argument] {
                        given[argument] = .texts(earlier + [word])
                    } else {
                        given[argument] = .texts([word])
                    }
                } else {
                    given[argument] = .text(word)
                    positional = declarations[(argument + 1)...].firstIndex { $0.kind == .positional }
                }
            }
        }
        return given
    }

    /// Whether a word may be an option: it starts with `-`. By its first byte: a word whose
    /// `-` carries a combining mark is then left to argument-parser, which words the outcome.
    private static func looksLikeOption(_ word: String) -> Bool { word.utf8.first == UInt8(ascii: "-") }

    // MARK: Declarations, read once per command

    private struct Dump: Decodable {
        struct Command: Decodable {
            let arguments: [Argument]?
        }
        struct Argument: Decodable {
            let kind: Declaration.Kind
            let names: [Name]?
            let isRepeating: Bool?
            let parsingStrategy: String?
            let defaultValue: String?
        }
        struct Name: Decodable {
            let kind: String
            let name: String
        }
        let command: Command
    }

    private final class Cache: @unchecked Sendable {
        // @unchecked: `byType` is only touched under `lock`.
        let lock = NSLock()
        var byType: [ObjectIdentifier: [Declaration]?] = [:]
    }

    private static let cache = Cache()

    /// The command's declarations in order, each with its property's name; nil when they
    /// cannot be matched up (then every line of it goes to argument-parser).
    static func declarations(of type: any ParsableCommand.Type) -> [Declaration]? {
        let key = ObjectIdentifier(type)
        cache.lock.lock()
        defer { cache.lock.unlock() }
        if let known = cache.byType[key] { return known }
        let found = readDeclarations(of: type)
        cache.byType[key] = found
        return found
    }

    private static func readDeclarations(of type: any ParsableCommand.Type) -> [Declaration]? {
        guard let dump = try? JSONDecoder().decode(Dump.self, from: Data(type._dumpHelp().utf8)) else { return nil }
        // The generated --help flag is no property.
        let arguments = (dump.command.arguments ?? []).filter { argument in
            !(argument.names ?? []).contains { $0.kind == "long" && $0.name == "help" }
        }
        // The properties, in declaration order (their wrappers' backing storage, `_name`),
        // the order argument-parser reads them in too.
        let properties = Mirror(reflecting: type.init()).children.compactMap { child in
            child.label.map { (key: String($0.dropFirst()), wrapper: String(describing: Swift.type(of: child.value))) }
        }
        guard properties.count == arguments.count else { return nil }
        let textWrappers: Set = [
            "Argument<Optional<String>>", "Argument<String>", "Argument<Array<String>>",
            "Option<Optional<String>>", "Option<String>", "Flag<Bool>",
        ]
        return zip(properties, arguments).map { property, argument in
            Declaration(
                key: property.key, kind: argument.kind,
                longName: (argument.names ?? []).first { $0.kind == "long" }.map { "--" + $0.name },
                isRepeating: argument.isRepeating ?? false,
                takesAnyValue: argument.parsingStrategy == "unconditional",
                defaultValue: argument.defaultValue,
                isText: textWrappers.contains(property.wrapper))
        }
    }
}

/// A command line's values, by the name of the property that declares each one.
///
/// Reading a name the command does not declare is a programming error (it stops the
/// program): every command's transcript tests read each of its names.
struct BoundLine {
    let declarations: [LineBinding.Declaration]
    /// What each declaration was given on the line, or answered at a prompt
    /// (``Shell/completing(_:)``), in the declarations' order: found by a declaration's
    /// place, without hashing its name, on every line of a script.
    private var given: [LineBinding.Given?]
    /// The command whose declarations these are (nil for a line made up in code).
    var command: (any ShellCommand.Type)?

    init(given: [LineBinding.Given?]? = nil, declarations: [LineBinding.Declaration], command: (any ShellCommand.Type)? = nil) {
        self.given = given ?? Array(repeating: nil, count: declarations.count)
        self.declarations = declarations
        self.command = command
    }

    private func place(_ key: String) -> Int {
        guard let place = declarations.firstIndex(where: { $0.key == key }) else {
            preconditionFailure("'\(key)' is not declared by this command")
        }
        return place
    }

    private func declared(_ key: String) -> LineBinding.Declaration { declarations[place(key)] }

    /// What `key`'s declaration was given (nil: nothing).
    subscript(key: String) -> LineBinding.Given? {
        get { given[place(key)] }
        set { given[place(key)] = newValue }
    }

    /// An argument's or option's word, or its declared default; nil when neither.
    func text(_ key: String) -> String? {
        let place = place(key)
        if case .text(let text) = given[place] { return text }
        return declarations[place].defaultValue
    }

    /// A repeating argument's words (empty when none).
    func texts(_ key: String) -> [String] {
        if case .texts(let texts) = self[key] { return texts }
        return []
    }

    /// Whether the command declares `key` at all (the flags a shared helper may ask about).
    func declares(_ key: String) -> Bool {
        declarations.contains { $0.key == key }
    }

    /// Whether a flag was given.
    func flag(_ key: String) -> Bool {
        self[key] == .flag
    }

    /// 1 when an argument was left out, so the command will ask for it.
    func missing(_ key: String) -> Int {
        if declared(key).isRepeating { return texts(key).isEmpty ? 1 : 0 }
        return text(key) == nil ? 1 : 0
    }

    /// The words a command line would have before `key`'s value: the command's name, the
    /// positional arguments declared before it (for an option, all of them) and, for an
    /// option, its name. What completion at `key`'s prompt is asked with.
    func words(before key: String) -> [String] {
        let declaration = declared(key)
        var words = [command?._commandName ?? ""]
        for positional in declarations where positional.kind == .positional {
            if positional.key == key { break }
            words += positional.isRepeating ? texts(positional.key) : [text(positional.key) ?? ""]
        }
        if declaration.kind != .positional, let name = declaration.longName { words.append(name) }
        return words
    }
}
