import ArgumentParser
import GiftKeeperDocuments
import GiftKeeperDomain
import GiftKeeperSealing
import GiftKeeperService
import OrderedCollections

/// A household's own commands in a member's shell (SPEC §13; `giftkeeper --journal RECORD`):
/// wish lists, claims and the members. The member is the shell's account (their name as they
/// signed it); each change is sealed for its audience as every change in a household is.
/// `wish`, `wishes`, `claim` and `unclaim` run one-shot too (`giftkeeper wishes --journal
/// RECORD`); in a person's journal they say they need a household.
extension Shell {
    /// The member's name, signed in to a household; else why not (`command` needs one).
    func householdMember(for command: String) throws -> String {
        guard service is HouseholdShellService else { throw REPLError(.householdOnly(command)) }
        try requireSignedIn()
        return service.state.accountName ?? ""
    }

    /// `change` for this member alone (`add --private`); only a household has audiences.
    func performPrivately(_ change: Change) throws -> ChangeResult {
        guard let household = service as? HouseholdShellService else { throw REPLError(.householdOnly("add --private")) }
        return try household.perform(change, privately: true)
    }
}

/// `wish add TITLE [--price P] [--url U] [--notes N] [--for MEMBER]`.
struct WishCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "wish", abstract: "In a household: add a wish to your list (everyone sees it), or suggest one for a member with --for.",
        usage: "wish add <title> [--price <price>] [--url <url>] [--notes <notes>] [--for <member>]")

    @Argument(help: "add") var action: String
    @Argument(help: "What you (or they) would like.") var title: String
    @Option(help: "Its price.") var price: String?
    @Option(help: "Where to find it.") var url = ""
    @Option(help: "Notes.") var notes = ""
    @Option(name: .customLong("for"), help: "Suggest it for this member: everyone but them sees it.") var member: String?

    mutating func run(in shell: any Shell) throws {
        let me = try shell.householdMember(for: "wish")
        guard action.lowercased() == "add" else { throw REPLError(.unknownAction(command: "wish", word: action, actions: ["add"])) }
        let price = try price.map { text throws(DomainError) in try Money.parsePrice(text) }
        let events = try shell.service.perform(
            .addWish(wisher: member ?? me, title: title, notes: notes, price: price, url: url, suggestedBy: me)
        ).events
        for case .wishAdded(let wish) in events.map(\.body) { shell.console.print(HouseholdWords.wish(wish, claim: nil, mine: true)) }
    }
}

/// `wishes [MEMBER] [--json | --csv]`: the wish lists, with who claimed what, never on your own wishes.
struct WishesCommand: ShellCommand, StructuredOutputOptions {
    static let configuration = CommandConfiguration(
        commandName: "wishes", abstract: "In a household: the wish lists, with who claimed what (never on your own wishes).",
        usage: "wishes [<member>] [--json | --csv]")

    @Argument(help: "Only this member's wishes.") var member: String?
    @Flag(help: "One JSON document (an array of wishes) instead of the lines.") var json = false
    @Flag(help: "CSV (RFC 4180) instead of the lines, for spreadsheets.") var csv = false

    mutating func run(in shell: any Shell) throws {
        let me = try shell.householdMember(for: "wishes")
        let format = try StructuredOutput.format(self)
        let state = shell.service.state
        let wishes = (member.map({ state.wishes(of: $0) }) ?? Array(state.wishes.values)).map { wish in
            (wish, claim: state.claims[wish.id], mine: state.foldedName(wish.wisher) == state.foldedName(me))
        }
        switch format {
        case .json:
            shell.console.write(JSONWriter.document(.array(wishes.map { StructuredOutput.wish($0, claim: $1, mine: $2) })))
        case .csv:
            shell.console.write(
                StructuredOutput.csv(header: StructuredOutput.wishColumns, rows: wishes.map { StructuredOutput.wishRow($0, claim: $1, mine: $2) }))
        case .text:
            for (wish, claim, mine) in wishes { shell.console.print(HouseholdWords.wish(wish, claim: claim, mine: mine)) }
        }
    }
}

/// `claim WISH` and `unclaim WISH`: a change to a wish's claim by this member.
protocol ClaimChange: ShellCommand {
    var wish: String { get }
    static func change(_ id: WishID, claimer: String) -> Change
}

extension ClaimChange {
    mutating func run(in shell: any Shell) throws {
        let me = try shell.householdMember(for: Self._commandName)
        guard let id = WishID(parsing: wish) else { throw REPLError(.notAWish(wish)) }
        try shell.service.perform(Self.change(id, claimer: me))
        let state = shell.service.state
        if let claim = state.claims[id], let present = state.presents[claim.present] {
            shell.console.print(HouseholdWords.present(present, claimedWish: true))
        }
    }
}

struct ClaimCommand: ClaimChange {
    static let configuration = CommandConfiguration(
        commandName: "claim", abstract: "In a household: claim a wish, a present planned by you that everyone but the wisher sees.",
        usage: "claim <wish>")

    @Argument(help: "The wish (w1, w2, …).") var wish: String

    static func change(_ id: WishID, claimer: String) -> Change { .claimWish(id: id, claimer: claimer) }
}

struct UnclaimCommand: ClaimChange {
    static let configuration = CommandConfiguration(
        commandName: "unclaim", abstract: "In a household: give up your claim on a wish.", usage: "unclaim <wish>")

    @Argument(help: "The wish you claimed.") var wish: String

    static func change(_ id: WishID, claimer: String) -> Change { .unclaimWish(id: id, claimer: claimer) }
}

/// `members` (`household members`): the household's members as this member knows them, its
/// owners, and you; for an owner, the join requests waiting.
struct MembersCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "members", abstract: "In a household: its members and owners.", usage: "members")
    static var runsOneShot: Bool { false }

    mutating func run(in shell: any Shell) throws {
        _ = try shell.householdMember(for: "members")
        guard let household = shell.service as? HouseholdShellService else { return }
        shell.console.print(lines: try household.changingMembers { session, desk in try HouseholdMembership.members(session, desk: desk) })
    }
}
