import Foundation
import GiftKeeperTestSupport
import Glibc
import TestProcesses
import Testing

/// Issue 28's "the rest of the product works in a household", through `giftkeeper-server`
/// on loopback: each member's record on their device (`--journal RECORD`) opens the plain
/// commands and the shell as that member. Alice plans a present for Bob; Carol sees it in
/// every view, Bob in none, nor is it in his shell's memory.
extension HouseholdEndToEndTests {
    /// `giftkeeper WORDS --journal RECORD` as `member`: the plain commands and the shell,
    /// their password on standard input.
    func plain(_ member: Member, _ words: [String], input: String? = nil) async throws -> Outcome {
        try await member.sandbox.run(words + ["--journal", member.record], input: input ?? member.password + "\n", environment: trust)
    }

    /// Alice (her password alice-pw) makes household `name`, its owner.
    func aliceCreates(_ name: String) async throws -> Member {
        let alice = try Member("alice-pw")
        let created = try await run(
            alice, ["create", name, "--name", "Alice", "--remote", url, "--kdf", "interactive"], input: "alice-pw\nalice-pw\n")
        #expect(created.status == 0, "\(created)")
        return alice
    }

    /// Alice's household, Bob and Carol admitted on matching safety numbers, each member's
    /// join completed (their first command once admitted).
    func household() async throws -> (alice: Member, bob: Member, carol: Member) {
        let (alice, bob, carol) = (try Member("alice-pw"), try Member("bob-secret"), try Member("carol-pw"))
        let created = try await run(
            alice, ["create", "The Smiths", "--name", "Alice", "--remote", url, "--kdf", "interactive"], input: "alice-pw\nalice-pw\n")
        #expect(created.status == 0, "\(created)")
        for (joiner, name) in [(bob, "Bob"), (carol, "Carol")] {
            let joined = try await join(joiner, as: name, invitedBy: alice)
            let admitted = try await run(alice, ["admit", name, "--safety-number", joined.safetyNumber])
            #expect(admitted.status == 0, "\(admitted)")
            let members = try await run(joiner, ["members"])
            #expect(members.status == 0, "\(members)")
        }
        return (alice, bob, carol)
    }

    @Test("The plain commands, --json and --csv, export and audit work in a household; Bob's never show the present for him")
    func plainCommandsAndAudit() async throws {
        let (alice, bob, carol) = try await household()
        let added = try await plain(alice, ["add", "Bob", "Telescope", "--price", "120"])
        #expect(added.status == 0, "\(added)")
        let scarf = try await plain(alice, ["add", "Grandma", "Scarf", "--price", "30"])
        #expect(scarf.status == 0, "\(scarf)")
        let occasion = try await plain(carol, ["occasion", "add", "Christmas", "--date", "2026-12-24", "--yearly"])
        #expect(occasion.status == 0, "\(occasion)")

        let carolJSON = try await plain(carol, ["list", "--json"])
        #expect(carolJSON.status == 0 && carolJSON.stdout.contains("Telescope") && carolJSON.stdout.contains("Scarf"), "\(carolJSON)")
        let carolCSV = try await plain(carol, ["list", "--csv"])
        #expect(carolCSV.status == 0 && carolCSV.stdout.contains("Telescope"), "\(carolCSV)")
        let carolAudit = try await plain(carol, ["audit"])
        #expect(carolAudit.status == 0, "\(carolAudit)")
        #expect(carolAudit.stdout.contains("\tAlice\tadded p") && carolAudit.stdout.contains("\"Telescope\" for Bob"), "\(carolAudit)")
        #expect(carolAudit.stdout.contains("each signed by its author"), "\(carolAudit)")
        let carolHistory = try await plain(carol, ["history", "--json"])
        #expect(carolHistory.status == 0 && carolHistory.stdout.contains("\"Alice\""), "\(carolHistory)")

        var bobViews: [Outcome] = []
        for words in [
            ["list"], ["list", "--json"], ["list", "--csv"], ["history"], ["summary"], ["upcoming", "--days", "60"], ["export"],
            ["audit"], ["audit", "--json"], ["list", "--as-of", "today"], ["export", "--as-of", "today"],
        ] {
            let outcome = try await plain(bob, words)
            #expect(outcome.status == 0, "\(words): \(outcome)")
            bobViews.append(outcome)
        }
        #expect(bobViews[0].stdout.contains("Scarf") && bobViews[4].status == 0, "\(bobViews[0])")
        #expect(bobViews[7].stdout.contains("\tAlice\tadded p") && bobViews[7].stdout.contains("\"Scarf\" for Grandma"), "\(bobViews[7])")
        #expect(bobViews[8].stdout.contains("\"author\"") && bobViews[8].stdout.contains("\"Carol\""), "\(bobViews[8])")
        for view in bobViews {
            #expect(!view.stdout.contains("Telescope") && !view.stderr.contains("Telescope"), "\(view)")
        }

        // The shell, in a script: Bob's list and history, then a change of his own. It signs in
        // through the device's copy and leaves it, and the mark, at the head it reached.
        let copied = try Data(contentsOf: URL(fileURLWithPath: bob.record + ".frames"))
        let marked = try String(contentsOfFile: bob.record, encoding: .utf8)
        let shell = try await plain(bob, [], input: "login\nbob-secret\nlist\nhistory\nadd Grandma Gloves\nundo\nlist\n")
        #expect(shell.status == 0, "\(shell)")
        let kept = try Data(contentsOf: URL(fileURLWithPath: bob.record + ".frames"))
        #expect(kept.count > copied.count && kept.prefix(copied.count) == copied)
        #expect(try String(contentsOfFile: bob.record, encoding: .utf8) != marked)
        #expect(shell.stdout.contains("Scarf") && !shell.stdout.contains("Telescope"), "\(shell)")
        // `passwd` renews his keys there (HouseholdPasswdEndToEndTests); the new password signs in.
        let passwd = try await plain(bob, [], input: "login\nbob-secret\npasswd\nbob-secret\nnew-secret-1\nnew-secret-1\n")
        #expect(passwd.status == 0 && passwd.stdout.contains("your keys are new"), "\(passwd)")
        let renewed = try await plain(bob, ["list"], input: "new-secret-1\n")
        #expect(renewed.status == 0 && renewed.stdout.contains("Scarf") && !renewed.stdout.contains("Telescope"), "\(renewed)")
    }

    @Test("From her open shell Alice invites Bob, admits him on his safety number, makes him an owner and leaves")
    func membersFromTheShell() async throws {
        let (alice, bob) = (try await aliceCreates("The Smiths"), try Member("bob-secret"))
        let invited = try await plain(alice, [], input: "login\nalice-pw\nhousehold invite\n")
        #expect(invited.status == 0, "\(invited)")
        let code = try #require(
            invited.stdout.split(separator: "\n").map(String.init).first { $0.contains("-") && !$0.contains(" ") }, "\(invited)")
        let joined = try await run(
            bob, ["join", code, "--name", "Bob", "--remote", url, "--kdf", "interactive"], input: "bob-secret\nbob-secret\n")
        #expect(joined.status == 0, "\(joined)")
        let number = joined.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        // The number asked for on the line after the command, as a script answers a prompt.
        let admitted = try await plain(alice, [], input: "login\nalice-pw\nhousehold admit Bob\n\(number)\n")
        #expect(admitted.status == 0 && admitted.stdout.contains("Admitted Bob."), "\(admitted)")
        let signedUp = try await run(bob, ["members"])
        #expect(signedUp.status == 0 && signedUp.stdout.contains("Bob  (you)"), "\(signedUp)")
        let promoted = try await plain(alice, [], input: "login\nalice-pw\nhousehold owner Bob\nmembers\nhousehold leave\n")
        #expect(promoted.status == 0 && promoted.stdout.contains("Bob is an owner now"), "\(promoted)")
        #expect(promoted.stdout.contains("Bob  owner") && promoted.stdout.contains("You left the household"), "\(promoted)")
        let members = try await run(bob, ["members"])
        #expect(members.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "Bob  owner  (you)", "\(members)")
        let gone = try await plain(alice, ["list"])
        #expect(gone.status == 1 && gone.stderr.contains("or removed"), "\(gone)")
    }

    @Test(
        "A scan of Bob's shell's memory after a sync finds no title of the present Alice planned for him",
        .enabled(if: runningAsRoot, "reading another process's memory (dumpable 0) needs root"))
    func bobsMemoryHoldsNoPresentForHim() async throws {
        let (alice, bob, carol) = try await household()
        let secret = "Quillon-Aldebaran-\(UInt32.random(in: 1000...9999))"
        let added = try await plain(alice, ["add", "Bob", secret, "--price", "120"])
        #expect(added.status == 0, "\(added)")
        let tmux = try Tmux(prefix: "gk-hh-mem")
        var pids: [String: pid_t] = [:]
        for (name, member) in [("bob", bob), ("carol", carol)] {
            let launch =
                "env -u GIFTKEEPER_JOURNAL HOME='\(member.sandbox.home)' XDG_STATE_HOME='\(member.sandbox.state)' "
                + "XDG_DATA_HOME='\(member.sandbox.data)' GIFTKEEPER_CA_FILE='\(ServiceFixture.caFile)' LANG=C.UTF-8 "
                + "'\(member.sandbox.binary)' --journal '\(member.record)'"
            try await tmux.start(session: name, launch)
            try await tmux.waitFor(name, text: "Password:")
            try await tmux.enter(name, member.password)
            try await tmux.waitForLine(name)
            try await tmux.enter(name, "sync")
            try await tmux.waitForLine(name)
            try await tmux.enter(name, "list")
            try await tmux.waitForLine(name)
            let pane = try await tmux.command(["display-message", "-p", "-t", name, "#{pane_pid}"])
            let shellPID = try #require(pid_t(pane.stdout.trimmingCharacters(in: .whitespacesAndNewlines)))
            let children = try String(contentsOfFile: "/proc/\(shellPID)/task/\(shellPID)/children", encoding: .utf8)
            let child = children.split(separator: " ").first.map(String.init) ?? ""
            let pid: pid_t = try #require(Int32(child), "no giftkeeper under the pane: '\(children)'")
            pids[name] = pid
        }
        let forms = MemoryScan.forms(of: secret)
        // Carol's shell holds it (the scan is not blind); Bob's holds it in no form.
        let carols = try MemoryScan.occurrences(ofBytes: forms, inMemoryOf: try #require(pids["carol"]))
        #expect(carols[0] > 0, "\(carols)")
        let bobs = try MemoryScan.occurrences(ofBytes: forms, inMemoryOf: try #require(pids["bob"]))
        #expect(bobs.allSatisfy { $0 == 0 }, "UTF-8, UTF-16, hex, HEX: \(bobs)")
        for name in ["bob", "carol"] {
            try await tmux.enter(name, "quit")
        }
    }

    @Test("household admit --recipient: Grandpa, on Alice's list before Bob joined, is Bob; what is about Grandpa is kept from him")
    func admittingARecipient() async throws {
        let alice = try await aliceCreates("The Smiths")
        let bob = try Member("bob-secret")
        let joined = try await join(bob, as: "Bob", invitedBy: alice)
        let admitted = try await run(alice, ["admit", "Bob", "--safety-number", joined.safetyNumber, "--recipient", "Grandpa"])
        #expect(admitted.status == 0 && admitted.stdout.contains("What is about Grandpa goes to everyone but Bob"), "\(admitted)")
        #expect(try await run(bob, ["members"]).status == 0)
        for (recipient, title) in [("Grandpa", "Pipe"), ("Grandma", "Scarf")] {
            let added = try await plain(alice, ["add", recipient, title])
            #expect(added.status == 0, "\(added)")
        }
        let bobs = try await plain(bob, ["list"])
        #expect(bobs.status == 0 && bobs.stdout.contains("Scarf") && !bobs.stdout.contains("Pipe"), "\(bobs)")
        let alices = try await plain(alice, ["list"])
        #expect(alices.stdout.contains("Scarf") && alices.stdout.contains("Pipe"), "\(alices)")
    }
}
