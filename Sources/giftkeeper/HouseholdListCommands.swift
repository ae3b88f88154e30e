import ArgumentParser
import GiftKeeperDomain
import GiftKeeperREPL
import GiftKeeperService
import OrderedCollections

/// The list's commands in a household (SPEC §13): each change is sealed for the audience
/// its events give (``HouseholdAudiences``).
struct HouseholdAdd: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "add", abstract: "Plan a present: kept from the member it is for, or from everyone else with --private.")

    @Argument(help: "Who it is for.") var recipient: String
    @Argument(help: "What it is.") var title: String
    @Option(help: "Its price.") var price: String?
    @Flag(name: .customLong("private"), help: "Only you see it.") var isPrivate = false
    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withHousehold(path.journal, password: path.password) { session, _, _ in
            let price = try price.map { text throws(DomainError) in try Money.parsePrice(text) }
            let events = try session.perform(.addPresent(recipient: recipient, title: title, price: price), privately: isPrivate)
            for case .presentAdded(let id, _, _, _, _, _, _, _) in events.map(\.body) {
                if let present = session.state.presents[id] { Console().print(HouseholdWords.present(present, claimedWish: false)) }
            }
        }
    }
}

struct HouseholdList: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "list", abstract: "The presents you may see.")

    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withHousehold(path.journal, password: path.password) { session, _, _ in
            let claimed = Set(session.state.claims.values.map(\.present))
            for present in session.state.presents.values {
                Console().print(HouseholdWords.present(present, claimedWish: claimed.contains(present.id)))
            }
        }
    }
}

struct HouseholdShow: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "show", abstract: "One present you may see, in full.")

    @Argument(help: "The present (p1, p2, …).") var present: String
    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withHousehold(path.journal, password: path.password) { session, _, _ in
            // A present this member may not open is, to them, one that does not exist.
            let id = try PresentID.parse(present)
            guard let shown = session.state.presents[id] else { throw DomainError.unknownPresent(id) }
            let claimed = session.state.claims.values.contains { $0.present == id }
            for line in HouseholdWords.details(shown, givers: session.state.givers[id] ?? [], claimedWish: claimed) {
                Console().print(line)
            }
        }
    }
}

struct HouseholdHistory: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "history", abstract: "What the members did that you may see, by whom.")

    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withHousehold(path.journal, password: path.password) { session, _, _ in
            for line in session.history.compactMap({ HouseholdWords.history(author: $0.author, $0.entry) }) { Console().print(line) }
        }
    }
}

struct HouseholdWish: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wish", abstract: "Add a wish to your list (everyone sees it), or suggest one for another member with --for.",
        subcommands: [HouseholdWishAdd.self])
}

struct HouseholdWishAdd: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "add", abstract: "Add a wish.")

    @Argument(help: "What you (or they) would like.") var title: String
    @Option(help: "Its price.") var price: String?
    @Option(help: "Where to find it.") var url = ""
    @Option(help: "Notes.") var notes = ""
    @Option(name: .customLong("for"), help: "Suggest it for this member: everyone but them sees it.") var member: String?
    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withHousehold(path.journal, password: path.password) { session, _, _ in
            let price = try price.map { text throws(DomainError) in try Money.parsePrice(text) }
            let wisher = member ?? session.name
            let events = try session.perform(
                .addWish(wisher: wisher, title: title, notes: notes, price: price, url: url, suggestedBy: session.name))
            for case .wishAdded(let wish) in events.map(\.body) {
                Console().print(HouseholdWords.wish(wish, claim: nil, mine: true))
            }
        }
    }
}

struct HouseholdWishes: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "wishes", abstract: "The wish lists, with who claimed what (never on your own wishes).")

    @Argument(help: "Only this member's wishes.") var member: String?
    @OptionGroup var path: HouseholdPath

    func run() throws {
        try withHousehold(path.journal, password: path.password) { session, _, _ in
            let state = session.state
            let wishes = member.map { state.wishes(of: $0) } ?? Array(state.wishes.values)
            for wish in wishes {
                let mine = state.foldedName(wish.wisher) == state.foldedName(session.name)
                Console().print(HouseholdWords.wish(wish, claim: state.claims[wish.id], mine: mine))
            }
        }
    }
}

/// `claim WISH` and `unclaim WISH`: a change to a wish's claim by this member.
protocol HouseholdClaimChange: ParsableCommand {
    var wish: String { get }
    var path: HouseholdPath { get }
    static func change(_ id: WishID, claimer: String) -> Change
}

extension HouseholdClaimChange {
    func run() throws {
        try withHousehold(path.journal, password: path.password) { session, _, _ in
            guard let id = WishID(parsing: wish) else { throw ValidationError("'\(wish)' is not a wish id (w1, w2, …).") }
            try session.perform(Self.change(id, claimer: session.name))
            if let claim = session.state.claims[id], let present = session.state.presents[claim.present] {
                Console().print(HouseholdWords.present(present, claimedWish: true))
            }
        }
    }
}

struct HouseholdClaim: HouseholdClaimChange {
    static let configuration = CommandConfiguration(
        commandName: "claim", abstract: "Claim a wish: a present planned by you, seen by everyone but the wisher.")

    @Argument(help: "The wish (w1, w2, …).") var wish: String
    @OptionGroup var path: HouseholdPath

    static func change(_ id: WishID, claimer: String) -> Change { .claimWish(id: id, claimer: claimer) }
}

struct HouseholdUnclaim: HouseholdClaimChange {
    static let configuration = CommandConfiguration(commandName: "unclaim", abstract: "Give up your claim on a wish.")

    @Argument(help: "The wish you claimed.") var wish: String
    @OptionGroup var path: HouseholdPath

    static func change(_ id: WishID, claimer: String) -> Change { .unclaimWish(id: id, claimer: claimer) }
}
