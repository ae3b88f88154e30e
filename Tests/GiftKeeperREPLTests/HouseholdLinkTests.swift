import Foundation
import Testing

@testable import GiftKeeperREPL

/// Changing a recipient link after the admission (SPEC §13): `household link PERSON MEMBER`
/// and `household unlink PERSON`, an owner's, with `admit --recipient`'s refusals; what was
/// written before keeps its audience, what is written later about PERSON goes to everyone
/// but MEMBER (then, unlinked, to everyone again).
@Suite(.serialized) struct HouseholdLinkTests {
    typealias Household = HouseholdShellTranscriptTests.Household

    @Test("Alice links Bobby to Bob: the scarf written before stays Bob's to see, the telescope after never reaches him; unlinked, the kite does")
    func linkAndUnlink() throws {
        let home = try Household()
        #expect(try home.shell("Alice", ["add Bobby 'Old scarf'"]).status == 0)
        let linked = try home.shell("Alice", ["household link Bobby Bob", "add Bobby Telescope"])
        #expect(linked.status == 0 && linked.output.contains("What is about Bobby goes to everyone but Bob from now on."), "\(linked)")
        let bob = try home.shell("Bob", ["list"])
        #expect(bob.output.contains("Old scarf") && !bob.output.contains("Telescope"), "\(bob)")
        let carol = try home.shell("Carol", ["list"])
        #expect(carol.output.contains("Old scarf") && carol.output.contains("Telescope"), "\(carol)")
        // Carol's changes about Bobby are kept from Bob too: the link is in what she read.
        #expect(try home.shell("Carol", ["add Bobby Gloves"]).status == 0)
        #expect(!(try home.shell("Bob", ["list"])).output.contains("Gloves"))
        let unlinked = try home.shell("Alice", ["household unlink Bobby", "add Bobby Kite", "household unlink Bobby"])
        #expect(unlinked.output.contains("Bobby is linked to no member now"), "\(unlinked)")
        #expect(unlinked.errors.contains("Bobby is linked to no member ('household link Bobby MEMBER' links them)."), "\(unlinked)")
        let after = try home.shell("Bob", ["list"])
        #expect(after.output.contains("Kite") && !after.output.contains("Telescope") && !after.output.contains("Gloves"), "\(after)")
    }

    @Test("A link is an owner's, to a member other than you, of someone who is not a member: each refused in one line")
    func refusals() throws {
        let home = try Household()
        let carol = try home.shell("Carol", ["household link Bobby Bob"])
        #expect(carol.errors.contains("Only an owner of the household may do this."), "\(carol)")
        let alice = try home.shell("Alice", ["household link Carol Bob", "household link Bobby Zed", "household link Bobby Alice"])
        #expect(alice.errors.contains("Carol is a member already"), "\(alice)")
        #expect(alice.errors.components(separatedBy: "No other member goes by").count == 3, "\(alice)")
        #expect(!alice.output.contains("from now on"), "\(alice)")
    }

    @Test("At a terminal 'household admit' with no request waiting says so before asking for the number: the next line is a command")
    func admitChecksFirst() throws {
        let home = try Household()
        let outcome = try home.transcript.run(
            steps: [.line("alice-pw"), .line("household admit Dave"), .line("members"), .line("quit")], interactive: true,
            over: try home.service("Alice"))
        #expect(outcome.errors.contains("No join request is waiting"), "\(outcome)")
        #expect(outcome.output.contains("Alice  owner  (you)"), "\(outcome)")
        #expect(!outcome.shown.joined().contains("Safety number"), "\(outcome)")
    }
}
