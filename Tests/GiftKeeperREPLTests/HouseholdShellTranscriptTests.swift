import Foundation
import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal
import GiftKeeperSealing
import GiftKeeperService
import Testing

@testable import GiftKeeperREPL

/// The shell over a household (issue 28): each member's shell is the person's shell, on a
/// ``HouseholdShellService`` over the one household journal in memory. Alice creates it
/// and admits Bob and Carol; a present Alice plans for Bob is in Carol's views and in none
/// of Bob's.
@Suite(.serialized) struct HouseholdShellTranscriptTests {
    final class Household {
        let transcript: Transcript
        let store: MemoryFrameStore
        let desk = MemoryDesk()
        var members: [String: MemberID] = [:]
        var keys: [String: MemberKeys] = [:]

        init() throws {
            transcript = try Transcript()
            let header = try VerifiedFrames.newHeader(journalID: try randomBytes(count: 16), path: "family", household: true).header
            store = MemoryFrameStore(header: header, path: "family")
            let now: @Sendable () -> Timestamp = { [clock = transcript.clock] in clock.now() }
            let alice = try HouseholdSession.signUp(
                .creating, in: store.handle(), name: "Alice", password: try Transcript.secret("alice-pw"),
                recoveryCode: try Transcript.secret("alice-rc"), parameters: .testMinimum, now: now)
            var sessions = [alice]
            for name in ["Bob", "Carol"] {
                let joiner = try HouseholdSession.signUp(
                    .joining, in: store.handle(), name: name, password: try Transcript.secret(name.lowercased() + "-pw"),
                    recoveryCode: try Transcript.secret(name + "-rc"), parameters: .testMinimum, now: now)
                try alice.admit(joiner.keys)
                sessions.append(joiner)
            }
            // Each signs their name; twice, so the last name reaches the first member.
            for _ in 0..<2 {
                for session in sessions { try session.catchUp() }
            }
            for session in sessions {
                members[session.name] = session.id
                keys[session.name] = session.keys
            }
        }

        /// `name`'s shell service over the household, signed out, with the desk.
        func service(_ name: String) throws -> HouseholdShellService {
            let service = HouseholdShellService(
                journalPath: "/households/family.gk", member: try #require(members[name]), name: name,
                now: { [clock = transcript.clock] in clock.now() }, server: nil, openStore: { [store] _ in store.handle() })
            service.desk = desk
            return service
        }

        /// `name`'s shell, signed in with their password, running `lines`.
        func shell(_ name: String, _ lines: [String]) throws -> Transcript.Outcome {
            try transcript.run(["login", name.lowercased() + "-pw"] + lines, over: try service(name))
        }

        /// `name` asks to join with `code` (Alice's): their request waits at the desk; the
        /// number they read out, and what their first sign-in once admitted needs.
        func askToJoin(_ name: String, code: String) throws -> (safetyNumber: String, pending: HouseholdSession.PendingJoin) {
            let journalID = store.header.journalID
            let (pending, secrets) = try HouseholdSession.prepareJoin(
                household: journalID, password: try Transcript.secret(name.lowercased() + "-pw"), parameters: .testMinimum)
            let (request, number) = try HouseholdSession.answer(
                try InvitationCode(parsing: code), owner: try #require(keys["Alice"]), joiner: secrets, household: journalID)
            desk.waiting.append(request)
            return (number, pending)
        }
    }

    /// The service's side of membership for a household in memory: the invitations filed and
    /// the join requests waiting; a change of members is its frames, appended.
    final class MemoryDesk: HouseholdDesk {
        var invitationCodes: [String] = []
        var waiting: [JoinRequest] = []
        var burned: [[UInt8]] = []

        func file(code: String, invitationID: [UInt8], publicKey: [UInt8], ownerKeys: [UInt8]) throws { invitationCodes.append(code) }
        func waitingRequests() throws -> [JoinRequest] { waiting }

        func spend(code: String, invitationID: [UInt8], burning: Bool) throws {
            invitationCodes.removeAll { $0 == code }
            waiting.removeAll { $0.invitationID == invitationID }
            if burning { burned.append(invitationID) }
        }

        func append(_ step: MembershipStep, batch: FrameBatch, to store: any FrameStore) throws -> AppendOutcome {
            try store.append(batch)
        }
    }

    /// The id `list` or `add` gave the present titled `title`.
    static func id(of title: String, in output: String) throws -> String {
        let line = try #require(output.split(separator: "\n").first { $0.contains(title) })
        let match = try #require(line.firstMatch(of: /p[0-9]+/))
        return String(match.output)
    }

    @Test("A present given together in a household: each giver's share, kept from the member it is for")
    func sharedPresent() throws {
        let home = try Household()
        let alice = try home.shell("Alice", [#"add Carol "Spa day" --price 120 --with Bob"#, "budget set 100 --for Carol", "budget"])
        #expect(alice.status == 0, "\(alice)")
        #expect(alice.outputLines.contains("Given with Bob: your share 60.00 of 120.00."), "\(alice)")
        let id = try Self.id(of: "Spa day", in: alice.output)
        let bob = try home.shell("Bob", ["show \(id)"])
        #expect(bob.outputLines.contains { $0.hasPrefix("givers") && $0.hasSuffix("Alice, Bob") }, "\(bob)")
        let carol = try home.shell("Carol", ["list", "show \(id)"])
        #expect(!carol.output.contains("Spa day"), "\(carol)")
    }

    @Test("A member's shell plans, reads and undoes; a present for Bob is in none of Bob's views")
    func presentForBobIsAbsentFromEveryOneOfBobsViews() throws {
        let home = try Household()
        let planned = try home.shell(
            "Alice",
            [
                "add Bob Telescope --price 120", "add Grandma Scarf --price 30", "occasion add Christmas --date 2026-12-24 --yearly",
                "budget set 200 --for Bob", "list",
            ])
        #expect(planned.status == 0, "\(planned)")
        #expect(planned.errors.isEmpty, "\(planned)")
        let telescope = try Self.id(of: "Telescope", in: planned.output)
        // Two days on: a change that the earlier views (--as-of) do not hold.
        home.transcript.clock.advance(days: 2)
        let later = try home.shell("Alice", ["add Carol Diary --price 15", "add Bob Kite", "undo"])
        #expect(later.status == 0, "\(later)")
        #expect(later.errors.isEmpty, "\(later)")

        let carolsList = try home.shell("Carol", ["list"])
        #expect(carolsList.status == 0, "\(carolsList)")
        #expect(carolsList.output.contains("Telescope") && carolsList.output.contains("Scarf"), "\(carolsList)")
        #expect(!carolsList.output.contains("Kite"), "Alice's undo took the kite back: \(carolsList)")
        #expect(!carolsList.output.contains("Diary"), "the diary is for Carol: \(carolsList)")
        let carol = try home.shell("Carol", ["show \(telescope)", "history", "list --as-of 2026-11-25", "summary"])
        #expect(carol.status == 0, "\(carol)")
        #expect(carol.output.contains("Telescope"), "\(carol)")
        // Carol's history says who did what: Alice added the telescope.
        #expect(carol.output.contains("WHO") && carol.output.contains("Alice  Added \(telescope) \"Telescope\" for Bob"), "\(carol)")
        #expect(!carol.output.contains("Diary"), "\(carol)")

        let views = [
            "list", "show \(telescope)", "history", "history \(telescope)", "list --as-of 2026-11-25", "show \(telescope) --as-of 2026-11-25",
            "summary", "upcoming --days 60", "budget", "export", "export --as-of 2026-11-25",
        ]
        let bob = try home.shell("Bob", views)
        #expect(bob.output.contains("Scarf") && bob.output.contains("Diary") && bob.output.contains("Christmas"), "\(bob)")
        #expect(!bob.output.contains("Telescope"), "\(bob)")
        #expect(!bob.standardError.contains("Telescope"), "\(bob)")
        #expect(!bob.output.contains("120"), "neither the telescope's price nor Bob's budget: \(bob)")
        // The present does not exist for Bob: `show` refuses it as an unknown id.
        #expect(bob.errors.contains(telescope), "\(bob)")
    }

    @Test("add --private keeps a present to its author, and its undo too; a person's journal has no audiences")
    func privatePresentIsItsAuthorsAlone() throws {
        let home = try Household()
        let alice = try home.shell("Alice", ["add Grandma Brooch --private", "add Bob Book --private", "undo"])
        #expect(alice.status == 0 && alice.errors.isEmpty, "\(alice)")
        let book = try Self.id(of: "Book", in: alice.output)
        let listed = try home.shell("Alice", ["list"])
        #expect(listed.output.contains("Brooch") && !listed.output.contains("Book"), "\(listed)")
        for name in ["Bob", "Carol"] {
            let other = try home.shell(name, ["list", "history", "show \(book)"])
            #expect(!other.output.contains("Brooch") && !other.output.contains("Book"), "\(other)")
            #expect(!other.output.contains(book + " "), "the undo of a private present is private too: \(other)")
        }
        let person = try Transcript().signedIn(["add Grandma Brooch --private"])
        #expect(person.status == 2 && person.errors.contains("'add --private' works in a household"), "\(person)")
    }

    @Test("A member's shell refuses a wrong password, and what a household has not: setup, passwd, import")
    func wrongPasswordAndPersonOnlyCommands() throws {
        let home = try Household()
        let service = HouseholdShellService(
            journalPath: "/households/family.gk", member: try #require(home.members["Bob"]), name: "Bob",
            now: { Timestamp(millisecondsSinceEpoch: 1_795_510_800_000) }, server: nil, openStore: { [store = home.store] _ in store.handle() })
        let wrong = try home.transcript.run(["login", "not-bobs", "list"], over: service)
        #expect(wrong.status == 3, "\(wrong)")
        let outcome = try home.shell("Bob", ["passwd", "bob-pw", "new-password-1", "new-password-1"])
        #expect(outcome.status == 2, "\(outcome)")
        #expect(outcome.errors.contains("'passwd' is not available in a household's shell"), "\(outcome)")
    }

    @Test("The household's own commands in the shell: Bob wishes, Carol claims; Alice sees the claim, Bob never does")
    func wishesAndClaimsInTheShell() throws {
        let home = try Household()
        let wished = try home.shell("Bob", ["wish add Kite --price 25"])
        #expect(wished.status == 0 && wished.output.contains("Kite  (Bob)  25.00"), "\(wished)")
        let wish = try #require(wished.output.firstMatch(of: /w[0-9]+/).map { String($0.output) }, "\(wished)")
        let claimed = try home.shell("Carol", ["claim \(wish)"])
        #expect(claimed.status == 0 && claimed.output.contains("Kite  for Bob"), "\(claimed)")
        let alice = try home.shell("Alice", ["wishes Bob", "list", "members"])
        #expect(Set(alice.outputLines.suffix(3)) == ["Alice  owner  (you)", "Bob", "Carol"], "\(alice)")
        #expect(alice.output.contains("Kite  (Bob)  25.00  claimed by Carol") && alice.output.contains("Kite"), "\(alice)")
        let bob = try home.shell("Bob", ["wishes", "list", "history"])
        #expect(bob.output.contains("Kite  (Bob)  25.00") && !bob.output.contains("claimed") && !bob.output.contains("Carol"), "\(bob)")
        let unclaimed = try home.shell("Carol", ["unclaim \(wish)", "wishes", "claim x9"])
        #expect(unclaimed.output.contains("Kite  (Bob)  25.00") && !unclaimed.output.contains("claimed by"), "\(unclaimed)")
        #expect(unclaimed.errors.contains("'x9' is not a wish id"), "\(unclaimed)")
        // In a person's journal the household's commands say they need one.
        let person = try Transcript().signedIn(["wish add Kite"])
        #expect(person.status == 2 && person.errors.contains("'wish' works in a household"), "\(person)")
    }

    @Test("The household's members from the open shell: invite, admit on the safety number, owner, remove, leave")
    func membersFromTheShell() throws {
        let home = try Household()
        let invited = try home.shell("Alice", ["household invite"])
        #expect(invited.status == 0, "\(invited)")
        let code = try #require(invited.outputLines.first { $0.contains("-") && !$0.contains(" ") }, "\(invited)")
        // A wrong number admits nobody and burns the invitation; then there is nothing to admit.
        let asked = try home.askToJoin("Dave", code: code)
        let wrong = String(asked.safetyNumber.map { $0 == "9" ? "0" : $0.isNumber ? "9" : $0 })
        let refused = try home.shell("Alice", ["household admit Dave --safety-number '\(wrong)'", "household admit Dave --safety-number 1"])
        #expect(refused.status == 1 && refused.errors.contains("does not match: nobody was admitted, and the invitation is burned"))
        #expect(refused.errors.contains("No join request is waiting"), "\(refused)")
        #expect(home.desk.burned.count == 1 && home.desk.invitationCodes.isEmpty, "\(refused)")

        // Asked for the number (a script's next line) when the line leaves it out.
        let again = try home.shell("Alice", ["household invite"])
        let second = try #require(again.outputLines.first { $0.contains("-") && !$0.contains(" ") }, "\(again)")
        let dave = try home.askToJoin("Dave", code: second)
        let admitted = try home.shell("Alice", ["household admit Dave", dave.safetyNumber, "household members"])
        #expect(admitted.status == 0 && admitted.output.contains("Admitted Dave."), "\(admitted)")
        let joined = try HouseholdSession.completeJoin(
            dave.pending, in: home.store.handle(), name: "Dave", password: try Transcript.secret("dave-pw"),
            recoveryCode: try Transcript.secret("dave-rc"), parameters: .testMinimum, now: { Timestamp(millisecondsSinceEpoch: 1_795_510_800_000) })
        home.members["Dave"] = joined.id

        let owners = try home.shell(
            "Alice", ["household owner Bob", "household owner Bob", "household remove Zed", "household remove Carol", "members"])
        #expect(owners.output.contains("Bob is an owner now") && owners.output.contains("Removed Carol"), "\(owners)")
        #expect(owners.errors.contains("Bob is an owner already") && owners.errors.contains("No other member goes by Zed"), "\(owners)")
        #expect(Set(owners.outputLines.suffix(3)) == ["Alice  owner  (you)", "Bob  owner", "Dave"], "\(owners)")
        // Dave is no owner; a newcomer reads no history, so Bob's name is not one he knows.
        let notOwner = try home.shell("Dave", ["household invite", "household remove Bob", "household frobnicate"])
        #expect(notOwner.errors.contains("Only an owner of the household may do this."), "\(notOwner)")
        #expect(notOwner.errors.contains("No other member goes by Bob"), "\(notOwner)")
        #expect(notOwner.errors.contains("'household frobnicate' is not a command"), "\(notOwner)")
        let left = try home.shell("Bob", ["household leave", "list"])
        #expect(left.output.contains("You left the household") && left.errors.contains("You are signed out."), "\(left)")
        let remaining = try home.shell("Dave", ["members"])
        #expect(Set(remaining.outputLines) == ["Alice  owner", "Dave  (you)"], "\(remaining)")
        // In a person's journal there are no members.
        let person = try Transcript().signedIn(["household invite"])
        #expect(person.status == 2 && person.errors.contains("'household' works in a household"), "\(person)")
    }

    @Test("Admission asks who the newcomer is on the list: what is about Grandma is kept from her once she joins as Nana")
    func newcomerWhoIsARecipient() throws {
        let home = try Household()
        #expect(try home.shell("Alice", ["add Grandma \"Knitting kit\""]).status == 0)
        let invited = try home.shell("Alice", ["household invite"])
        let code = try #require(invited.outputLines.first { $0.contains("-") && !$0.contains(" ") }, "\(invited)")
        let nana = try home.askToJoin("Nana", code: code)
        // A member's own name needs no link: refused before anything is granted.
        let member = try home.shell("Alice", ["household admit Nana --safety-number '\(nana.safetyNumber)' --recipient Bob"])
        #expect(member.status == 2 && member.errors.contains("Bob is a member already"), "\(member)")
        #expect(home.desk.waiting.count == 1, "\(member)")
        let admitted = try home.shell("Alice", ["household admit Nana --safety-number '\(nana.safetyNumber)' --recipient Grandma"])
        #expect(admitted.output.contains("What is about Grandma goes to everyone but Nana"), "\(admitted)")
        let joined = try HouseholdSession.completeJoin(
            nana.pending, in: home.store.handle(), name: "Nana", password: try Transcript.secret("nana-pw"),
            recoveryCode: try Transcript.secret("nana-rc"), parameters: .testMinimum, now: { Timestamp(millisecondsSinceEpoch: 1_795_510_800_000) })
        home.members["Nana"] = joined.id

        // Bob plans for Grandma and for Grandpa (nobody's link) after the admission.
        #expect(try home.shell("Bob", ["add Grandma Scarf", "add Grandpa Pipe"]).status == 0)
        let carol = try home.shell("Carol", ["list"])
        #expect(carol.output.contains("Scarf") && carol.output.contains("Pipe"), "\(carol)")
        let seen = try home.shell("Nana", ["list", "history"])
        #expect(seen.output.contains("Pipe"), "\(seen)")
        #expect(!seen.output.contains("Scarf") && !seen.output.contains("Grandma"), "\(seen)")
    }

    @Test("Another member's change is told in an open shell as a change made elsewhere")
    func otherMembersChangesAreToldAsMadeElsewhere() throws {
        let home = try Household()
        let carol = try home.service("Carol")
        var told: [HistoryEntry] = []
        carol.onChangesElsewhere = { told += $0 }
        try carol.login(password: try Transcript.secret("carol-pw"))
        _ = try home.shell("Alice", ["add Bob Telescope", "add Alice Socks"])
        try carol.refresh()
        let titles = told.compactMap { entry -> String? in
            if case .presentAdded(_, _, let title, _, _, _, _, _)? = entry.event?.body { return title }
            return nil
        }
        #expect(titles == ["Telescope"])
        // Said with who did it.
        let said = told.compactMap(HistoryWords.elsewhere)
        #expect(said.count == 1 && said[0].hasPrefix("↓ Alice: Added p") && said[0].hasSuffix("\"Telescope\" for Bob"), "\(said)")
        try carol.close()
    }
}
