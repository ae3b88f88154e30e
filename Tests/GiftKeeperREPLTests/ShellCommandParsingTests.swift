import ArgumentParser
import Testing

@testable import GiftKeeperREPL

/// Commands read their own properties, as argument-parser parses them from a line; a
/// prompt's answer sets the property it names.
@Suite struct ShellCommandParsingTests {
    @Test("The lines a person types give the commands' typed properties, defaults included")
    func linesGiveTypedProperties() throws {
        let add = try AddCommand.parse(["Mum", "Blue scarf", "--price", "25", "--notes", "-- fragile"])
        #expect(add.recipient == "Mum" && add.title == "Blue scarf" && add.price == "25")
        #expect(add.notes == "-- fragile" && add.occasion == nil)
        #expect(try AddCommand.parse(["Mum", "Scarf", "--price", "-5"]).price == "-5")
        #expect(try AddCommand.parse(["--price=5", "Mum"]).price == "5")
        #expect(try EditCommand.parse(["p1", "title=Hat", "price="]).changes == ["title=Hat", "price="])
        #expect(try MarkCommand.parse(["p1", "bought"]).status == "bought")
        #expect(try ExportCommand.parse(["out.json", "--force"]).force)
        #expect(try !ExportCommand.parse(["out.json"]).force)
        #expect(try SetupCommand.parse(["Alice"]).kdf == .moderate)
        #expect(try SetupCommand.parse(["Al", "--kdf=interactive"]).kdf == .interactive)
        #expect(try ListCommand.parse(["Mum", "Zoë", "--all"]).recipients == ["Mum", "Zoë"])
        #expect(try BudgetCommand.parse(["set", "100", "--for", "Mum"]).recipient == "Mum")
        #expect(try OccasionCommand.parse(["add", "Xmas", "--yearly"]).yearly)
        #expect(try HistoryCommand.parse(["--last=7"]).last == 7)
        #expect(throws: (any Error).self) { try AddCommand.parse(["Mum", "Scarf", "extra"]) }
        #expect(throws: (any Error).self) { try SetupCommand.parse(["Al", "--kdf", "slow"]) }
    }

    @Test("A line that leaves arguments out is asked for them, in order; answers set them")
    func promptsSetTheirProperties() throws {
        var add = try AddCommand.parse([])
        #expect(add.answers == ScriptAnswers(arguments: 2, passwords: 0))
        let prompts = AddCommand.prompts
        try prompts[0].set("Mum", in: &add)
        try prompts[1].set("Blue scarf", in: &add)
        #expect(add.recipient == "Mum" && add.title == "Blue scarf" && add.answers == ScriptAnswers())
        // Completion at the price prompt answers as after `add Mum "Blue scarf" --price`.
        #expect(prompts[2].words(before: add) == ["add", "Mum", "Blue scarf", "--price"])
        var edit = try EditCommand.parse(["p1"])
        try EditCommand.prompts[1].set(#"price=5 notes="wool, red""#, in: &edit)
        #expect(edit.changes == ["price=5", "notes=wool, red"])
        #expect(try OccasionCommand.parse(["add"]).answers.arguments == 1)
        #expect(try OccasionCommand.parse(["list"]).answers.arguments == 0)
        #expect(try OccasionCommand.prompts[0].words(before: OccasionCommand.parse(["add"])) == ["occasion", "add"])
        #expect(try SetupCommand.parse([]).answers == ScriptAnswers(arguments: 1, passwords: 2))
    }

    /// For a line argument-parser refuses, the words that look like arguments are counted
    /// (the answers its command would have read are skipped): an option's value is none.
    @Test func theOptionsThatTakeAValueAreThoseItsHelpShowsWithOne() {
        #expect(AddCommand.valueOptions == ["--price", "--notes", "--occasion", "--url", "--store", "--with"])
        #expect(SetupCommand.valueOptions == ["--kdf", "--currency"])
        #expect(ShowCommand.valueOptions == ["--as-of"])
        #expect(OccasionCommand.valueOptions == ["--date"])
        #expect(BudgetCommand.valueOptions == ["--for", "--occasion", "--year", "--as-of"])
        #expect(LoginCommand.valueOptions.isEmpty)
        #expect(ShellCommands.positionalWords(["setup", "Alice", "--kdf", "slow"], of: SetupCommand.self) == ["Alice"])
        #expect(ShellCommands.positionalWords(["show", "--json", "p1", "x"], of: ShowCommand.self) == ["p1", "x"])
    }

    @Test("The one-shot commands are the shell's, in its order, less the account and session ones")
    func oneShotsComeFromTheShellsList() {
        #expect(
            OneShot.names == [
                "add", "list", "show", "edit", "mark", "remove", "restore", "occasion", "budget", "upcoming", "summary",
                "gifts", "person", "history", "wish", "wishes", "claim", "unclaim",
            ])
        #expect(OneShot.isCommand("list") && !OneShot.isCommand("login") && !OneShot.isCommand("export"))
    }
}
