import Foundation
import Testing

@testable import GiftKeeperREPL

/// `wishes --json` and `wishes --csv` in a household (SPEC §11, §13): the shapes of
/// `list`'s, and the same rule as the lines: nobody sees claims on their own wishes.
@Suite(.serialized) struct HouseholdWishesOutputTests {
    typealias Household = HouseholdShellTranscriptTests.Household

    static func wishes(_ output: String) throws -> [[String: Any]] {
        try #require(try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[String: Any]], "\(output)")
    }

    @Test("Alice's 'wishes --json' names Carol's claim and its present; Bob's, of the same wish, says null")
    func json() throws {
        let home = try Household()
        let wished = try home.shell("Bob", ["wish add Kite --price 25 --url https://kites.example"])
        let wish = try #require(wished.output.firstMatch(of: /w[0-9]+/).map { String($0.output) }, "\(wished)")
        #expect(try home.shell("Carol", ["claim \(wish)", "wish add Scarf --for Bob"]).status == 0)
        let alice = try home.shell("Alice", ["wishes Bob --json"])
        #expect(alice.status == 0, "\(alice)")
        let seen = try Self.wishes(alice.output)
        #expect(seen.count == 2, "\(alice)")
        let kite = try #require(seen.first { $0["title"] as? String == "Kite" }, "\(alice)")
        #expect(kite["id"] as? String == wish && kite["wisher"] as? String == "Bob" && kite["price"] as? String == "25.00")
        #expect(kite["url"] as? String == "https://kites.example" && kite["notes"] is NSNull && kite["suggestedBy"] is NSNull)
        #expect(kite["claimedBy"] as? String == "Carol" && (kite["present"] as? String)?.hasPrefix("p") == true, "\(alice)")
        // Plain `list` marks the present that stands for the claim.
        #expect(try home.shell("Carol", ["list"]).output.contains("Kite (claimed wish)"))
        let scarf = try #require(seen.first { $0["title"] as? String == "Scarf" }, "\(alice)")
        #expect(scarf["suggestedBy"] as? String == "Carol" && scarf["claimedBy"] is NSNull)
        // Bob sees his wish, never the claim, nor the suggestion made for him.
        let bob = try home.shell("Bob", ["wishes --json"])
        let his = try Self.wishes(bob.output)
        #expect(his.count == 1 && his.first?["title"] as? String == "Kite", "\(bob)")
        #expect(his.first?["claimedBy"] is NSNull && his.first?["present"] is NSNull && !bob.output.contains("Carol"), "\(bob)")
    }

    @Test("'wishes --csv' has a header and a row a wish, the claim in its columns; --json with --csv is refused")
    func csv() throws {
        let home = try Household()
        let wished = try home.shell("Bob", ["wish add Kite --notes 'red, big'"])
        let wish = try #require(wished.output.firstMatch(of: /w[0-9]+/).map { String($0.output) }, "\(wished)")
        #expect(try home.shell("Carol", ["claim \(wish)"]).status == 0)
        let alice = try home.shell("Alice", ["wishes --csv"])
        let rows = alice.output.components(separatedBy: "\r\n").filter { !$0.isEmpty }
        #expect(rows.first == "id,wisher,title,notes,price,url,suggestedBy,claimedBy,present", "\(alice)")
        #expect(rows.count == 2 && rows[1].hasPrefix("\(wish),Bob,Kite,\"red, big\",,,,Carol,p"), "\(alice)")
        let bob = try home.shell("Bob", ["wishes --csv", "wishes --json --csv"])
        #expect(bob.output.contains("\(wish),Bob,Kite,\"red, big\",,,,,\r\n") && !bob.output.contains("Carol"), "\(bob)")
        #expect(bob.status == 2 && bob.errors.contains("--json") && bob.errors.contains("--csv"), "\(bob)")
    }
}
