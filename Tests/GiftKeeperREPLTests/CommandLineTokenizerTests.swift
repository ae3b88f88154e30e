import GiftKeeperTestSupport
import Testing

@testable import GiftKeeperREPL

@Suite struct CommandLineTokenizerTests {
    @Test(arguments: [
        (#"add Mum "Blue scarf" --price 25"#, ["add", "Mum", "Blue scarf", "--price", "25"]),
        (#"add 'O'"'"'Brien' x"#, ["add", "O'Brien", "x"]),
        (#"add "" x"#, ["add", "", "x"]),
        (#"add '' """#, ["add", "", ""]),
        ("  list   \t Mum\t", ["list", "Mum"]),
        ("", []),
        ("   \t ", []),
        (#"add Mum "say \"hi\" \\ now""#, ["add", "Mum", #"say "hi" \ now"#]),
        (#"add Mum "keep \n literal""#, ["add", "Mum", #"keep \n literal"#]),
        (#"add Mum Blue\ scarf"#, ["add", "Mum", "Blue scarf"]),
        (#"add Mum it\'s"#, ["add", "Mum", "it's"]),
        (#"add 'back\slash' x"#, ["add", #"back\slash"#, "x"]),
        ("add Grand-mère 'écharpe bleue' 🎁", ["add", "Grand-mère", "écharpe bleue", "🎁"]),
        ("add 祖母 \"赤い 傘\"", ["add", "祖母", "赤い 傘"]),
        ("edit p1 title='New title' price=30", ["edit", "p1", "title=New title", "price=30"]),
        ("add\tMum\t\"tab\tinside\"", ["add", "Mum", "tab\tinside"]),
        ("a\"b\"c'd'e", ["abcde"]),
        ("add Mum \u{00A0}nbsp", ["add", "Mum", "\u{00A0}nbsp"]),
    ])
    func splits(line: String, words: [String]) throws {
        #expect(try CommandLineTokenizer.split(line) == words)
    }

    @Test func unterminatedQuotesAreErrors() {
        #expect(throws: TokenizerError(.unterminatedQuote("\""))) {
            try CommandLineTokenizer.split(#"add Mum "Blue scarf"#)
        }
        #expect(throws: TokenizerError(.unterminatedQuote("'"))) {
            try CommandLineTokenizer.split("add 'Mum")
        }
        #expect(throws: TokenizerError(.trailingBackslash)) {
            try CommandLineTokenizer.split(#"add Mum \"#)
        }
        let message = TokenizerError(.unterminatedQuote("\"")).description
        #expect(message.contains("Unterminated quote"))
    }

    @Test func partialLinesForCompletion() {
        #expect(CommandLineTokenizer.splitPartial("") == ([], ""))
        #expect(CommandLineTokenizer.splitPartial("sh") == ([], "sh"))
        #expect(CommandLineTokenizer.splitPartial("show ") == (["show"], ""))
        #expect(CommandLineTokenizer.splitPartial("list \"Aunt M") == (["list"], "Aunt M"))
    }

    @Test(arguments: ["plain", "Blue scarf", "O'Brien", "", #"a "b" \c"#, "tab\there", "$HOME", "é 🎁"])
    func quotedRoundTrips(word: String) throws {
        #expect(try CommandLineTokenizer.split("x " + CommandLineTokenizer.quoted(word)) == ["x", word])
    }

    @Test func quotedLeavesSafeWordsAlone() {
        #expect(CommandLineTokenizer.quoted("p12") == "p12")
        #expect(CommandLineTokenizer.quoted("Grand-mère") == "Grand-mère")
        #expect(CommandLineTokenizer.quoted("Blue scarf") == "'Blue scarf'")
    }
}

/// Issue 13, finding 4: `quoted` by Unicode scalar, so split(quoted(s)) == [s] always.
@Suite struct QuotingRoundTripTests {
    static let pieces: [String] = ["a", "'", "\u{301}", "\"", "\\", " ", "$", "é", "e\u{301}", "'\u{308}", "👩‍👩‍👧", "#", "\t", "x y", ""]

    @Test("quoted(s) splits back to s, for 20,000 random strings of awkward pieces")
    func roundTrip() throws {
        var generator = TestRandom()
        for _ in 0..<20_000 {
            let text = (0..<Int.random(in: 1...6, using: &generator)).map { _ in Self.pieces.randomElement(using: &generator) ?? "" }.joined()
            #expect(
                try CommandLineTokenizer.split(CommandLineTokenizer.quoted(text)) == [text],
                generator.comment("\(text.unicodeScalars.map { String($0.value, radix: 16) })"))
        }
    }

    @Test("The completion of O'̈Brien parses back to that name")
    func apostropheWithACombiningMark() throws {
        let name = "O'\u{308}Brien"
        #expect(try CommandLineTokenizer.split("add " + CommandLineTokenizer.quoted(name) + " Hat") == ["add", name, "Hat"])
    }
}
