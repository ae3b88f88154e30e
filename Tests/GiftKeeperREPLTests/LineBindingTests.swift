import ArgumentParser
import GiftKeeperTestSupport
import Testing

@testable import GiftKeeperREPL

/// The shell binds plain lines without argument-parser's parse (LineBinding): whenever it
/// does, the values must be exactly those argument-parser would have parsed from the line.
@Suite struct LineBindingTests {
    /// Words a line may hold: arguments, values, every option of every command, and traps.
    static let vocabulary = [
        "Mum", "Blue scarf", "p1", "p12", "bought", "idea", "25", "-5", "-1", "3", "title=Hat", "price=",
        "--price", "--notes", "--occasion", "--status", "--last", "--kdf", "--force", "interactive", "sensitive",
        "-- fragile", "--", "-x", "--price=5", "--unknown", "", "0", "x y", "--all", "--as-of", "2025-12-24", "--search",
        "--sort", "--date", "--yearly", "--for", "--days", "--year", "--url", "--store", "set", "add", "list",
    ]

    /// true when bound and equal, nil when the line is left to argument-parser.
    func sameAsArgumentParser<Command: ShellCommand>(_ type: Command.Type, _ words: [String]) -> Bool? {
        guard let bound = LineBinding.bind(type, words) else { return nil }
        guard let parsed = try? Command.parse(words), let read = LineBinding.bound(from: parsed) else {
            Issue.record(
                "bound \(words) that argument-parser refuses, for \(type): \(String(describing: (try? Command.parse(words)).map { _ in "ok" }))")
            return false
        }
        #expect(effective(bound) == effective(read), "\(type) \(words)")
        return effective(bound) == effective(read)
    }

    /// What each declaration reads as, defaults applied.
    func effective(_ line: BoundLine) -> [String: String] {
        var values: [String: String] = [:]
        for declaration in line.declarations {
            let key = declaration.key
            switch declaration.kind {
            case .flag: values[key] = String(line.flag(key))
            case .positional where declaration.isRepeating: values[key] = line.texts(key).joined(separator: "\u{0}")
            default: values[key] = line.text(key) ?? "<none>"
            }
        }
        return values
    }

    /// In four parts of 750 lines that run side by side: argument-parser's own parse of
    /// each bound line, in a debug build, is what this test spends its time on.
    @Test("Every line it binds, for every command, gives what argument-parser parses from it (3,000 random lines)", arguments: 0..<4)
    func agreesWithArgumentParser(part: Int) {
        var generator = TestRandom(seed: TestRandom.seed &+ UInt64(part))
        var boundCount = 0
        for _ in 0..<750 {
            let length = Int.random(in: 0...5, using: &generator)
            let words = (0..<length).map { _ in Self.vocabulary.randomElement(using: &generator) ?? "" }
            for type in ShellCommands.all {
                func check<C: ShellCommand>(_ type: C.Type) -> Bool? { sameAsArgumentParser(type, words) }
                if check(type) == true { boundCount += 1 }
            }
        }
        #expect(boundCount > 150, generator.comment("the plain case should be common: \(boundCount) in part \(part)"))
    }

    @Test("The plain lines a person types are bound directly, defaults included")
    func plainLinesAreBound() {
        let add = LineBinding.bind(AddCommand.self, ["Mum", "Blue scarf", "--price", "25", "--notes", "-- fragile"])
        #expect(add?.text("recipient") == "Mum")
        #expect(add?.text("notes") == "-- fragile")
        #expect(add?.text("occasion") == nil)
        #expect(LineBinding.bind(AddCommand.self, ["Mum", "Scarf", "--price", "-5"])?.text("price") == "-5")
        #expect(LineBinding.bind(EditCommand.self, ["p1", "title=Hat", "price="])?.texts("changes") == ["title=Hat", "price="])
        #expect(LineBinding.bind(MarkCommand.self, ["p1", "bought"])?.text("status") == "bought")
        #expect(LineBinding.bind(ExportCommand.self, ["out.json", "--force"])?.flag("force") == true)
        #expect(LineBinding.bind(ExportCommand.self, ["out.json"])?.flag("force") == false)
        #expect(LineBinding.bind(SetupCommand.self, ["Alice"])?.text("kdf") == "moderate")
        #expect(LineBinding.bind(ListCommand.self, [])?.texts("recipients") == [])
        #expect(LineBinding.bind(ListCommand.self, ["Mum", "Zoë", "--all"])?.texts("recipients") == ["Mum", "Zoë"])
        #expect(LineBinding.bind(BudgetCommand.self, ["set", "100", "--for", "Mum"])?.text("recipient") == "Mum")
        #expect(LineBinding.bind(OccasionCommand.self, ["add", "Xmas", "--yearly"])?.flag("yearly") == true)
    }

    @Test("Anything unusual goes to argument-parser, which parses it or words the error")
    func unusualLinesFallBack() throws {
        #expect(LineBinding.bind(AddCommand.self, ["Mum", "Scarf", "extra"]) == nil)
        #expect(LineBinding.bind(AddCommand.self, ["--price=5", "Mum"]) == nil)
        #expect(LineBinding.bind(AddCommand.self, ["Mum", "--colour", "red"]) == nil)
        #expect(LineBinding.bind(AddCommand.self, ["Mum", "--price", "1", "--price", "2"]) == nil)
        #expect(LineBinding.bind(ListCommand.self, ["--status"]) == nil)
        #expect(LineBinding.bind(ShowCommand.self, ["-1"]) == nil)
        #expect(LineBinding.bind(AddCommand.self, ["Mum", "--", "-5"]) == nil)
        // Numbers and choices are argument-parser's to convert and check.
        #expect(LineBinding.bind(HistoryCommand.self, ["--last", "3"]) == nil)
        #expect(LineBinding.bind(SetupCommand.self, ["Alice", "--kdf", "sensitive"]) == nil)
        #expect(LineBinding.bound(from: try SetupCommand.parse(["Alice", "--kdf", "sensitive"]))?.text("kdf") == "sensitive")
        // What argument-parser accepts of those, the shell reads back from its result.
        let parsed = try AddCommand.parse(["--price=5", "Mum"])
        #expect(LineBinding.bound(from: parsed)?.text("price") == "5")
        #expect(LineBinding.bound(from: parsed)?.text("recipient") == "Mum")
        #expect(LineBinding.bound(from: try HistoryCommand.parse(["--last=7"]))?.text("last") == "7")
        #expect(LineBinding.bound(from: try SetupCommand.parse(["Al", "--kdf=interactive"]))?.text("kdf") == "interactive")
    }
}
