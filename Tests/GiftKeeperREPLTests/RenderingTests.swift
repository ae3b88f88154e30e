import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperService
import GiftKeeperTestSupport
import Glibc
import Testing

@testable import GiftKeeperREPL

@Suite struct RenderingTests {
    @Test func alignsColumnsLeftAndRight() {
        let table = TableRenderer(columns: [
            .init("ID"), .init("RECIPIENT"), .init("TITLE"), .init("PRICE", alignment: .right), .init("STATUS"),
        ])
        let text = table.render([
            ["p1", "Mum", "Blue scarf", "25.00", "idea"],
            ["p12", "Grand-mère", "Livre", "7.50", "bought"],
        ])
        #expect(
            text == """
                ID   RECIPIENT   TITLE       PRICE  STATUS
                ---  ----------  ----------  -----  ------
                p1   Mum         Blue scarf  25.00  idea
                p12  Grand-mère  Livre        7.50  bought
                """)
    }

    @Test func wideCharactersTakeTwoColumns() {
        #expect(TerminalText.width("abc") == 3)
        #expect(TerminalText.width("é") == 1)
        #expect(TerminalText.width("e\u{0301}") == 1)
        #expect(TerminalText.width("祖母") == 4)
        #expect(TerminalText.width("🎁") == 2)
        #expect(TerminalText.width("👨‍👩‍👧") == 2)
        // ASCII counts a column a byte, as a character each; CR LF is one character, one column.
        #expect(TerminalText.width("Blue scarf, size M") == "Blue scarf, size M".count)
        #expect(TerminalText.width("a\r\nb") == 3 && TerminalText.width("a\tb") == 3)
        let table = TableRenderer(columns: [.init("WHO"), .init("N", alignment: .right)], showsRule: false)
        #expect(
            table.renderLines([["祖母", "1"], ["🎁x", "22"], ["ab", "3"]]) == [
                "WHO    N",
                "祖母   1",
                "🎁x   22",
                "ab     3",
            ])
    }

    @Test func controlCharactersAreNeutralised() {
        #expect(TerminalText.sanitized("a\u{1B}[31mb\nc") == "a\u{FFFD}[31mb\u{FFFD}c")
        #expect(TerminalText.sanitized("plain") == "plain")
        let table = TableRenderer(columns: [.init("T")], showsRule: false)
        #expect(table.renderLines([["x\ty"]]) == ["T", "x\u{FFFD}y"])
    }

    @Test func missingCellsAreEmptyAndNoTrailingSpaces() {
        let table = TableRenderer(columns: [.init("A"), .init("B")])
        #expect(
            table.renderLines([["long value"], ["x", "y"]]) == [
                "A           B", "----------  -", "long value", "x           y",
            ])
    }

    @Test func progressIsSilentOffTerminal() {
        var fds: [Int32] = [-1, -1]
        #expect(pipe(&fds) == 0)
        defer { _ = close(fds[0]) }
        let progress = Progress(label: "Opening", output: fds[1])
        #expect(!progress.isEnabled)
        progress.update(completed: 5, total: 10)
        progress.finish()
        _ = close(fds[1])
        var byte: UInt8 = 0
        #expect(read(fds[0], &byte, 1) == 0)
    }

    @Test func progressDrawsWhenEnabled() {
        let text = written { fd in
            let progress = Progress(label: "Opening", output: fd, isEnabled: true, showAfter: .zero)
            progress.update(completed: 5, total: 10)
            progress.update(completed: 6, total: 10)  // throttled
            progress.update(completed: 10, total: 10)  // the last one always shows
            progress.finish()
        }
        #expect(text == "\rOpening: 50% (5/10)\u{1B}[K\rOpening: 100% (10/10)\u{1B}[K\r\u{1B}[K")
    }

    /// On a terminal a row never wraps: the widest shrinking column gives way first, cut with
    /// `…`; the others, and the header, stay whole; without a width nothing is cut.
    @Test func tablesFitTheTerminalByCuttingTheWidestShrinkingColumn() {
        let columns: [TableRenderer.Column] = [
            .init("ID"), .init("RECIPIENT", shrinks: true), .init("TITLE", shrinks: true), .init("PRICE", alignment: .right),
        ]
        let rows = [["p1", "Mum", String(repeating: "t", count: 60), "25.00"], ["p2", "Grandma Josephine", "Hat", "-"]]
        let fitted = TableRenderer(columns: columns, maxWidth: 50).renderLines(rows)
        #expect(fitted.allSatisfy { TerminalText.width($0) <= 50 }, "\(fitted)")
        #expect(fitted[2].hasPrefix("p1  Mum                ttt") && fitted[2].contains("…  25.00"), "\(fitted)")
        #expect(fitted[3].hasPrefix("p2  Grandma Josephine  Hat"), "\(fitted)")
        let narrow = TableRenderer(columns: columns, maxWidth: 30).renderLines(rows)
        #expect(narrow[3].contains("Grandma…"), "\(narrow)")
        let whole = TableRenderer(columns: columns).renderLines(rows)
        #expect(whole[2].contains(String(repeating: "t", count: 60)))
        #expect(TerminalText.truncated("日本語テキスト", toWidth: 7) == "日本語…")
    }

    /// Work that ends within `showAfter` draws nothing at all, not even its 100 %.
    @Test func quickWorkShowsNoProgress() {
        let text = written { fd in
            let progress = Progress(label: "Reading", output: fd, isEnabled: true, showAfter: .seconds(60))
            progress.update(completed: 1, total: 2)
            progress.update(completed: 2, total: 2)
            progress.finish()
        }
        #expect(text.isEmpty)
    }

    /// A prompt or a message after a progress line starts on a clean line: `clear()` erases
    /// the line and later updates draw again; after `finish()` nothing more is drawn.
    @Test func progressClearsForAPromptAndDrawsAgain() {
        let text = written { fd in
            let progress = Progress(label: "Reading", output: fd, isEnabled: true, showAfter: .zero)
            progress.update(completed: 10, total: 10)
            progress.clear()
            progress.clear()  // nothing drawn: nothing to erase
            progress.update(completed: 10, total: 10)
            progress.finish()
            progress.update(completed: 3, total: 10)
            progress.clear()
        }
        #expect(text == "\rReading: 100% (10/10)\u{1B}[K\r\u{1B}[K\rReading: 100% (10/10)\u{1B}[K\r\u{1B}[K")
    }

    /// Stored text reaches the terminal without its escape sequences: controls and
    /// bidirectional overrides become �, the program's own newlines and tabs stay.
    @Test func consoleOutputCarriesNoControlCharacters() throws {
        let text = written { fd in
            let console = Console(output: fd, error: fd)
            console.print("a\u{1B}[31mb\tc\nd\r\u{202E}e")
            console.error("bad \u{1B}]0;title\u{7} line\nbreak")
            // Lines written together: printable ASCII as it is, the others sanitised.
            console.print(lines: ["Saved p1: \"Kite\" for Sam.", "Note: Zoë\u{1B}[2J got it.", "\u{7F}"])
        }
        #expect(
            text
                == "a\u{FFFD}[31mb\tc\nd\u{FFFD}\u{FFFD}e\ngiftkeeper: error: bad \u{FFFD}]0;title\u{FFFD} line break\n"
                + "Saved p1: \"Kite\" for Sam.\nNote: Zoë\u{FFFD}[2J got it.\n\u{FFFD}\n")
    }

    /// Lines gathered for one write (audit's) are the bytes `print` writes line by line:
    /// sanitised the same way, tabs and newlines kept, one newline added.
    @Test func gatheredLinesAreTheBytesOfPrint() throws {
        let lines = [
            "1\t2026-11-25T20:55:00.000Z\tpresentImported\timported p1 \"Scarf\" for Mum (idea, 25.00)", "",
            "a\u{1B}[31mb\tc\nd\r\u{202E}e", "Zoë\u{7F} café 👩‍👩‍👧", "\u{85}next line",
        ]
        let printed = written { fd in
            let console = Console(output: fd, error: fd)
            for line in lines { console.print(line) }
        }
        let gathered = written { fd in
            var gathering = Console.Lines(Console(output: fd, error: fd))
            for line in lines { gathering.print(line) }
            gathering.flush()
        }
        #expect(gathered == printed)
        #expect(printed.hasPrefix("1\t2026-11-25T20:55:00.000Z\tpresentImported\t"))
    }

    /// The lines `add` writes, word for word: the `Saved` line (a long title, an accented
    /// name) and the count notes (one present, several, a recipient that needs quotes),
    /// each a line of its own, written together.
    @Test func addsLinesAreWrittenWordForWord() throws {
        let long = String(repeating: "Wooden board game ", count: 9)
        let id = try #require(PresentID(number: 12))
        let text = written { fd in
            Console(output: fd, error: fd).print(
                lines: [GiftMemory.saved(id, title: long, for: "Zoë")]
                    + GiftMemory([], of: 4, for: "Aunt May", in: GiftList()).notes
                    + GiftMemory([], of: 20, for: "Mum", in: GiftList()).notes
                    + GiftMemory([], of: 3, for: "Mum", in: GiftList()).notes)
        }
        #expect(
            text == "Saved p12: \"\(long)\" for Zoë.\n"
                + "Note: 1 more of Aunt May's present has a similar title ('gifts 'Aunt May'' lists what was given).\n"
                + "Note: 17 more of Mum's presents have a similar title ('gifts Mum' lists what was given).\n")
    }

    /// A write to standard output that fails (a full disk) is remembered for the caller to
    /// report once, then forgotten.
    @Test func aFailedWriteToStandardOutputIsReported() throws {
        let full = open("/dev/full", O_WRONLY)
        try #require(full >= 0)
        defer { _ = close(full) }
        let console = Console(output: full, error: full)
        _ = console.takeOutputFailure()
        console.print("lost")
        #expect(console.takeOutputFailure() == ENOSPC)
        #expect(console.takeOutputFailure() == nil)
    }

    @Test func zeroWidthFormatCharactersTakeNoColumn() {
        #expect(TerminalText.width("a\u{200B}b") == 2)
        #expect(TerminalText.width("👩‍👩‍👧") == 2)
        let table = TableRenderer(columns: [.init("T"), .init("X")], showsRule: false)
        #expect(table.renderLines([["a\u{200B}b", "1"], ["ab", "2"]]) == ["T   X", "a\u{200B}b  1", "ab  2"])
    }

    /// What `body` writes to a file descriptor (a pipe; at most 4 KiB).
    private func written(_ body: (Int32) -> Void) -> String {
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return "" }
        defer { _ = close(fds[0]) }
        body(fds[1])
        _ = close(fds[1])
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(fds[0], &buffer, buffer.count)
        return String(decoding: buffer[0..<max(count, 0)], as: UTF8.self)
    }
}

/// The `--json` and `--csv` forms (SPEC §11).
@Suite struct StructuredOutputTests {
    @Test func csvQuotesWhatItMustAndNeutralisesFormulas() {
        let bytes = StructuredOutput.csv(
            header: ["id", "title"], rows: [["p1", "Scarf, \"blue\""], ["p2", "two\nlines"], ["p3", "@cmd"], ["p4", "plain"]])
        #expect(
            String(decoding: bytes, as: UTF8.self)
                == "id,title\r\np1,\"Scarf, \"\"blue\"\"\"\r\np2,\"two\nlines\"\r\np3,'@cmd\r\np4,plain\r\n")
    }

    @Test func jsonDocumentsAreIndentedLikeTheExport() {
        let document = JSONWriter.document(
            .object([("a", .array([.string("x\n"), .number(-2)])), ("b", .object([])), ("c", .null), ("d", .array([]))]))
        #expect(
            String(decoding: document, as: UTF8.self)
                == "{\n  \"a\" : [\n    \"x\\n\",\n    -2\n  ],\n  \"b\" : {},\n  \"c\" : null,\n  \"d\" : []\n}\n")
    }
}
