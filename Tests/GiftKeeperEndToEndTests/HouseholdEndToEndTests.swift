import Foundation
import GiftKeeperTestSupport
import TestProcesses
import Testing

/// SPEC §13 (issue 28's scenario): three members on three devices (sandboxes, each its own
/// home, state and device account) share a household through `giftkeeper-server` with TLS
/// on loopback, the real binaries on every side.
@Suite("Households through giftkeeper-server", .programSlot, .needsService)
struct HouseholdEndToEndTests {
    let url = ServiceFixture.url ?? ""
    let trust = ServiceFixture.deviceEnvironment

    /// A member's device: a sandbox, their record of the household and their password.
    struct Member {
        let sandbox: Sandbox
        let password: String
        var record: String { sandbox.root + "/household.gk" }

        init(_ password: String) throws {
            sandbox = try Sandbox()
            self.password = password
        }
    }

    /// `household WORDS --journal …` as `member`, their password on standard input.
    func run(_ member: Member, _ words: [String], input: String? = nil) async throws -> Outcome {
        try await member.sandbox.run(
            ["household"] + words + ["--journal", member.record], input: input ?? member.password + "\n", environment: trust)
    }

    /// Whether a line of `output` holds every one of `words`.
    static func row(of output: String, holding words: [String]) -> Bool {
        output.split(separator: "\n").contains { line in words.allSatisfy { line.contains($0) } }
    }

    /// `joiner` joins with a new code of `owner`'s; the safety number they read out.
    func join(_ joiner: Member, as name: String, invitedBy owner: Member) async throws -> (code: String, safetyNumber: String) {
        let invited = try await run(owner, ["invite"])
        #expect(invited.status == 0, "\(invited)")
        let code = invited.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        let joined = try await run(
            joiner, ["join", code, "--name", name, "--remote", url, "--kdf", "interactive"],
            input: "\(joiner.password)\n\(joiner.password)\n")
        #expect(joined.status == 0, "\(joined)")
        let number = joined.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(number.filter(\.isNumber).count == 12, "\(joined)")
        return (code, number)
    }

    @Test("Alice creates, admits Bob and Carol on matching safety numbers; a present for Bob is kept from him; Carol's claim is kept from Bob")
    func theIssueScenario() async throws {
        let (alice, bob, carol) = (try Member("alice-pw"), try Member("bob-secret"), try Member("carol-pw"))
        let created = try await run(
            alice, ["create", "The Smiths", "--name", "Alice", "--remote", url, "--kdf", "interactive"], input: "alice-pw\nalice-pw\n")
        #expect(created.status == 0, "\(created)")
        #expect(created.stdout.contains("Your recovery code (shown once"), "\(created)")
        #expect(permissions(of: alice.record) == 0o600)

        let bobJoin = try await join(bob, as: "Bob", invitedBy: alice)
        let admitted = try await run(alice, ["admit", "Bob", "--safety-number", bobJoin.safetyNumber])
        #expect(admitted.status == 0, "\(admitted)")

        // A wrong number grants nothing and burns the invitation: the right one then admits nobody.
        let carolJoin = try await join(carol, as: "Carol", invitedBy: alice)
        let wrong = String(carolJoin.safetyNumber.map { $0 == "9" ? "0" : $0.isNumber ? "9" : $0 })
        let refused = try await run(alice, ["admit", "Carol", "--safety-number", wrong])
        #expect(refused.status == 1, "\(refused)")
        #expect(refused.stderr.contains("does not match: nobody was admitted, and the invitation is burned"), "\(refused)")
        let late = try await run(alice, ["admit", "Carol", "--safety-number", carolJoin.safetyNumber])
        #expect(late.status == 1, "\(late)")
        let notYet = try await plain(carol, ["list"])
        #expect(notYet.status == 1 && notYet.stderr.contains("You are not a member of this household: not admitted yet"), "\(notYet)")
        // The code is single-use: it does not take a second join request.
        let again = try await run(
            try Member("eve-secret"), ["join", carolJoin.code, "--name", "Eve", "--remote", url, "--kdf", "interactive"],
            input: "eve-secret\neve-secret\n")
        #expect(again.status != 0 && again.stderr.contains("Ask an owner of the household for a new code"), "\(again)")

        try FileManager.default.removeItem(atPath: carol.record)
        let carolAgain = try await join(carol, as: "Carol", invitedBy: alice)
        let admittedCarol = try await run(alice, ["admit", "Carol", "--safety-number", carolAgain.safetyNumber])
        #expect(admittedCarol.status == 0, "\(admittedCarol)")
        for member in [bob, carol] {
            let members = try await run(member, ["members"])
            #expect(members.status == 0, "\(members)")
            #expect(members.stderr.contains("Your recovery code (shown once"), "\(members)")
        }

        // The list's commands are the plain ones on the member's record (`giftkeeper list --journal RECORD`).
        let added = try await plain(alice, ["add", "Bob", "Telescope", "--price", "120"])
        #expect(added.status == 0, "\(added)")
        let wished = try await plain(bob, ["wish", "add", "Kite", "--price", "25"])
        #expect(wished.status == 0, "\(wished)")
        let wish = try #require(wished.stdout.split(separator: " ").first.map(String.init), "\(wished)")

        let carolList = try await plain(carol, ["list"])
        #expect(Self.row(of: carolList.stdout, holding: ["Bob", "Telescope", "120.00"]), "\(carolList)")
        let bobList = try await plain(bob, ["list"])
        #expect(bobList.status == 0 && !bobList.stdout.contains("Telescope"), "\(bobList)")
        for member in [alice, carol] {
            let wishes = try await plain(member, ["wishes", "Bob"])
            #expect(wishes.stdout.contains("Kite  (Bob)"), "\(wishes)")
        }

        let claimed = try await plain(carol, ["claim", wish])
        #expect(claimed.status == 0, "\(claimed)")
        let aliceWishes = try await plain(alice, ["wishes"])
        #expect(aliceWishes.stdout.contains("Kite  (Bob)  25.00  claimed by Carol"), "\(aliceWishes)")
        let bobWishes = try await plain(bob, ["wishes"])
        #expect(bobWishes.stdout.contains("Kite  (Bob)  25.00") && !bobWishes.stdout.contains("claimed"), "\(bobWishes)")
        // Bob sees no present at all: neither the telescope nor the kite Carol claimed for him.
        let bobAfter = try await plain(bob, ["list"])
        #expect(bobAfter.status == 0 && bobAfter.stdout.hasPrefix("No presents yet."), "\(bobAfter)")
        let telescope = try #require(added.stdout.firstMatch(of: /p[0-9]+/).map { String($0.output) }, "\(added)")
        let carolShow = try await plain(carol, ["show", telescope])
        #expect(carolShow.status == 0 && Self.row(of: carolShow.stdout, holding: ["title", "Telescope"]), "\(carolShow)")
        #expect(Self.row(of: carolShow.stdout, holding: ["recipient", "Bob"]) && carolShow.stdout.contains("120.00"), "\(carolShow)")
        let bobShow = try await plain(bob, ["show", telescope])
        #expect(bobShow.status != 0 && !bobShow.stdout.contains("Telescope") && !bobShow.stderr.contains("Telescope"), "\(bobShow)")
        // `history` says who did what (WHO): Bob's own wish, nothing of the telescope, nothing by Carol.
        let bobHistory = try await plain(bob, ["history"])
        let bobsWish = ["  Bob  ", "Wish \(wish) \"Kite\" added to Bob's list"]
        #expect(bobHistory.status == 0 && Self.row(of: bobHistory.stdout, holding: bobsWish), "\(bobHistory)")
        #expect(!bobHistory.stdout.contains("Telescope") && !bobHistory.stdout.contains("  Carol  "), "\(bobHistory)")
        let carolHistory = try await plain(carol, ["history"])
        #expect(Self.row(of: carolHistory.stdout, holding: ["  Alice  ", "Added p", "\"Telescope\" for Bob"]), "\(carolHistory)")
        let twice = try await plain(alice, ["claim", wish])
        #expect(twice.status == 2 && twice.stderr.contains("Carol claimed wish \(wish) already"), "\(twice)")
        let wrongPassword = try await plain(bob, ["list"], input: "alice-pw\n")
        #expect(wrongPassword.status == 3, "\(wrongPassword)")

        // Alice removes Carol: the service serves her nothing more; what comes after is the others'.
        let removed = try await run(alice, ["remove", "Carol"])
        #expect(removed.status == 0 && removed.stdout.contains("Removed Carol"), "\(removed)")
        let afterRemoval = try await plain(carol, ["list"])
        #expect(afterRemoval.status == 1 && afterRemoval.stderr.contains("or removed"), "\(afterRemoval)")
        let scarf = try await plain(alice, ["add", "Grandma", "Scarf"])
        #expect(scarf.status == 0, "\(scarf)")
        let bobSees = try await plain(bob, ["list"])
        #expect(Self.row(of: bobSees.stdout, holding: ["Grandma", "Scarf"]) && !bobSees.stdout.contains("Telescope"), "\(bobSees)")
        let members = try await run(bob, ["members"])
        #expect(!members.stdout.contains("Carol") && members.stdout.contains("Bob  (you)"), "\(members)")

        // Bob leaves; the next to write (Alice) starts an epoch without him.
        let left = try await run(bob, ["leave"])
        #expect(left.status == 0 && left.stdout.contains("You left the household"), "\(left)")
        let gone = try await plain(bob, ["list"])
        #expect(gone.status == 1, "\(gone)")
        let alone = try await plain(alice, ["add", "Grandma", "Gloves"])
        #expect(alone.status == 0, "\(alone)")
        let aliceMembers = try await run(alice, ["members"])
        #expect(aliceMembers.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "Alice  owner  (you)", "\(aliceMembers)")

        // The service's database holds no name, title, wish or password, in clear or in hex.
        let dump = try await runProgram("/usr/bin/pg_dump", [ServiceFixture.databaseURL], environment: alice.sandbox.environment)
        #expect(dump.status == 0 && dump.stdout.contains("gk_frames"), "\(dump)")
        for secret in ["The Smiths", "Telescope", "Scarf", "Gloves", "Alice", "Carol", "alice-pw", "bob-secret", "carol-pw"] {
            let hex = secret.utf8.map { String(format: "%02x", $0) }.joined()
            #expect(!dump.stdout.contains(secret) && !dump.stdout.contains(hex), "\(secret) is in the service's dump")
        }
    }
}
