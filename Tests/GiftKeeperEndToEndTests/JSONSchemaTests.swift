import Foundation
import GiftKeeperTestSupport
import TestProcesses
import Testing

/// docs/json-output.schema.json against the built binary: every `--json` output and the
/// export follow it (``Sandbox/run(_:bytes:environment:timeout:)`` checks each one any
/// end-to-end test produces), and the checker does reject what breaks it.
@Suite("JSON outputs against their schema", .programSlot)
struct JSONSchemaTests {
    @Test("Every --json output validates: present fields null and filled, budgets per year and for ever, audit lines, the export")
    func everyOutput() async throws {
        let sandbox = try Sandbox()
        try await sandbox.createJournal(presents: [
            #"Mum "Blue scarf" --price 25 --occasion Christmas --notes "the blue one" --url https://example.org --store Harrods"#,
            "Dad Book --price 12.50", #"Mum Slippers --occasion "Mum's birthday""#, #"Dad Kayak --price 300 --with "Bob, Carol""#,
        ])
        let planned = try await sandbox.script([
            "login", "secret-pw", "occasion add Christmas --date 2099-12-24 --yearly",
            #"occasion add "Mum's birthday" --date 1961-12-10 --yearly"#, "occasion add Someday", "budget set 30 --for Mum",
            "budget set 100 --occasion Christmas", "budget set 500", "mark p1 wrapped", "mark p2 given", "remove p3",
            #"person set Mum sizes=M likes="tea, gardening" birthday=1961-12-10"#, "quit",
        ])
        #expect(planned.status == 0, "\(planned)")
        let passwordFile = sandbox.home + "/password"
        try writeNewFile(Array("secret-pw\n".utf8), to: passwordFile)
        var checked: [String] = []
        for words in [
            ["list", "--json"], ["list", "--all", "--json"], ["show", "p1", "--json"], ["show", "p2", "--json"], ["show", "p4", "--json"],
            ["upcoming", "--days", "36600", "--json"], ["budget", "--json"], ["summary", "--json"],
            ["summary", "--year", "all", "--json"], ["history", "--json"], ["history", "--logins", "--json"],
            ["history", "p1", "--json"], ["gifts", "Dad", "--json"], ["occasion", "list", "--json"], ["audit", "--json"],
            ["person", "Mum", "--json"], ["person", "Dad", "--json"], ["export"],
        ] {
            let outcome = try await sandbox.run(words + ["--journal", sandbox.journal, "--password-file", passwordFile])
            #expect(outcome.status == 0 && !outcome.stdoutBytes.isEmpty, "\(words): \(outcome)")
            checked.append(try #require(JSONOutputSchema.definition(of: words), "\(words)"))
        }
        #expect(Set(checked).count == 10, "each of the schema's ten outputs checked: \(checked)")
    }

    @Test("The shell transcripts' --json outputs (PlanningTranscriptTests.jsonShape) through the binary, on their day, validate")
    func transcriptOutputs() async throws {
        let sandbox = try Sandbox()
        let lines = [
            #"occasion add "Christmas 2026" --date 2026-12-24"#, #"occasion add "Mum's birthday" --date 1961-12-10 --yearly"#,
            #"add Mum "Blue scarf" --price 25 --occasion "christmas 2026" --notes "wool, blue" --store "Harrods""#,
            #"add mum "Tea sampler" --price 12,50 --occasion "Mum's Birthday""#,
            #"add Zoë Kite --price 30 --occasion "Christmas 2026" --url https://example.org/kite"#,
            #"add zoe "Book of knots" --occasion "Christmas 2026""#, #"add Dad "Chess clock" --price 42.50"#, "mark p1 bought",
            #"budget set 100 --occasion "Christmas 2026""#,
        ]
        let planned = try await sandbox.script(
            at: "2026-11-24 09:00:00", ["setup Alice --kdf interactive", "secret-pw", "secret-pw"] + lines + ["quit"])
        #expect(planned.status == 0, "\(planned)")
        let passwordFile = sandbox.home + "/password"
        try writeNewFile(Array("secret-pw\n".utf8), to: passwordFile)
        for (words, definition) in [(["show", "p4", "--json"], "present"), (["upcoming", "--json"], "upcoming")] {
            let outcome = try await runProgram(
                Sandbox.faketime,
                ["-f", "@2026-11-24 10:00:00", sandbox.binary] + words + ["--journal", sandbox.journal, "--password-file", passwordFile],
                environment: sandbox.environment.merging(["TZ": "UTC"]) { $1 })
            #expect(outcome.status == 0 && outcome.stdout.contains("Christmas 2026"), "\(words): \(outcome)")
            let check = try await JSONOutputSchema.check(outcome.stdoutBytes, against: definition)
            #expect(check.status == 0, "\(words): \(check)")
        }
    }

    @Test("The checker rejects what breaks the schema: \"\" for an absent value, a number for an amount, a missing field")
    func rejects() async throws {
        let present = #"""
            {"id":"p1","recipient":"Mum","title":"Hat","notes":null,"price":"25.00","occasion":null,"url":null,"store":null,
             "status":"idea","removed":false,"createdAt":"2026-11-25T03:52:40.044Z","updatedAt":"2026-11-25T03:52:40.044Z","givenAt":null,
             "givers":null}
            """#
        let good = try await JSONOutputSchema.check(Array(present.utf8), against: "present")
        #expect(good.status == 0, "\(good)")
        for (broken, words) in [
            (present.replacingOccurrences(of: #""notes":null"#, with: #""notes":"""#), "notes"),
            (present.replacingOccurrences(of: #""25.00""#, with: "25"), "price"),
            (present.replacingOccurrences(of: #","givenAt":null"#, with: ""), "givenAt"),
            (present.replacingOccurrences(of: #""givers":null"#, with: #""givers":[]"#), "givers"),
        ] {
            let outcome = try await JSONOutputSchema.check(Array(broken.utf8), against: "present")
            #expect(outcome.status == 1 && outcome.stdout.contains(words), "\(words): \(outcome)")
        }
    }
}
