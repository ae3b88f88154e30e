import ArgumentParser
import Foundation
import GiftKeeperDomain
import GiftKeeperSealing
package import GiftKeeperService

/// A household's membership commands (SPEC §13), one implementation for the shell's
/// `household invite|admit|remove|leave|owner|members` and the `giftkeeper household …`
/// one-shots: the member's session decides and writes the frames, `desk` is the service's
/// side (``HouseholdDesk``). A refusal is thrown, said in one line by whichever runs it.
package enum HouseholdMembership {
    /// How long an invitation's code works.
    package static let invitationLifetime = 24 * 3_600

    /// A new invitation (an owner's), filed at the service: its code, to hand over.
    package static func invite(_ session: HouseholdSession, desk: any HouseholdDesk) throws -> String {
        let (code, id, publicKey) = try session.invite()
        try desk.file(code: code.text, invitationID: id, publicKey: publicKey, ownerKeys: session.keys.signing + session.keys.sealing)
        return code.text
    }

    /// Admits who asked to join on an invitation of this device's, once the number `asked`
    /// gives (asked only when a request waits) is the safety number both sides see; on a
    /// mismatch nobody is admitted and no key granted, and the invitation is burned when it
    /// was the only one waiting. With `recipient` (someone this list already plans for, whom
    /// the newcomer is: SPEC §13's question at admission), the person is linked to `name`
    /// (``ProfileField/member``), so what is about them goes to everyone but the newcomer.
    /// Returns the person linked, if any.
    @discardableResult
    package static func admit(
        _ name: String, recipient given: String? = nil, safetyNumber asked: () throws -> String, _ session: HouseholdSession,
        desk: any HouseholdDesk, askingRecipient: () -> String? = { nil }
    ) throws -> String? {
        let requests = try waitingRequests(desk)
        let typed = try asked()
        for (code, request) in requests {
            guard (try? session.joiner(of: request, code: code).safetyNumber.filter(\.isNumber)) == typed.filter(\.isNumber) else {
                continue
            }
            let person = ((given ?? askingRecipient()) ?? "").trimmingCharacters(in: .whitespaces)
            let link = try linkChange(person, to: name, session)
            try session.admit(request, code: code, safetyNumber: typed) { batch, keys in
                try desk.append(.admit(invitation: request.invitationID, keys: keys), batch: batch, to: session.member.store)
            }
            try desk.spend(code: code.text, invitationID: request.invitationID, burning: false)
            guard let link else { return nil }
            try session.perform(link)
            return person
        }
        if requests.count == 1, let (code, request) = requests.first {
            try desk.spend(code: code.text, invitationID: request.invitationID, burning: true)
        }
        throw REPLError(.safetyNumberMismatch(burned: requests.count == 1))
    }

    /// The join requests waiting on this device's invitations, each with its code; refused
    /// when there is none (the shell asks for the safety number only after this).
    static func waitingRequests(_ desk: any HouseholdDesk) throws -> [(code: InvitationCode, request: JoinRequest)] {
        let waiting = try desk.waitingRequests()
        let requests = desk.invitationCodes.compactMap { text -> (code: InvitationCode, request: JoinRequest)? in
            guard let code = try? InvitationCode(parsing: text), let keys = try? code.invitationKeys() else { return nil }
            return waiting.first { $0.invitationID == keys.id }.map { (code, $0) }
        }
        guard !requests.isEmpty else { throw REPLError(.noJoinRequest) }
        return requests
    }

    /// Links `person` (someone the list plans for, not a member) to the member going by
    /// `name` after their admission (an owner; `household link`): what is written about the
    /// person from now on goes to everyone but that member. A person linked to another member
    /// is unlinked from them first. What was written before keeps the audience it was sealed for.
    package static func link(_ person: String, to name: String, _ session: HouseholdSession) throws {
        try requireOwner(session)
        _ = try other(name, session)
        let linked = linkedMember(of: person, session)
        if !linked.isEmpty, session.state.foldedName(linked) != session.state.foldedName(name) { _ = try unlink(person, session) }
        guard let change = try linkChange(person, to: name, session) else { throw REPLError(.noAnswer("Person")) }
        try session.perform(change)
    }

    /// Unlinks `person` from the member they were linked to (an owner; `household unlink`),
    /// sealed for everyone but that member; answers their name. What is written about the
    /// person from now on goes to everyone.
    package static func unlink(_ person: String, _ session: HouseholdSession) throws -> String {
        try requireOwner(session)
        let linked = linkedMember(of: person, session)
        guard !linked.isEmpty else { throw REPLError(.notLinked(person)) }
        try session.perform(Command.change(.setProfile(recipient: person, changes: [.field(.member, "")])))
        return linked
    }

    /// The member `person` is linked to; empty when none.
    private static func linkedMember(of person: String, _ session: HouseholdSession) -> String {
        let person = person.trimmingCharacters(in: .whitespaces)
        return session.state.profiles[session.state.foldedName(person)]?[.member] ?? ""
    }

    /// Refused unless this member is an owner.
    private static func requireOwner(_ session: HouseholdSession) throws {
        guard session.members.contains(where: { $0.id == session.id && $0.isOwner }) else {
            throw HouseholdSessionError.household(.notAnOwner)
        }
    }

    /// The change linking `recipient` (none when empty) to member `name` (the newcomer, at an admission), checked
    /// before anything is granted: not a member's name, a name the list takes.
    private static func linkChange(_ recipient: String, to name: String, _ session: HouseholdSession) throws -> Command? {
        let recipient = recipient.trimmingCharacters(in: .whitespaces)
        guard !recipient.isEmpty else { return nil }
        guard session.memberID(named: recipient) == nil else { throw REPLError(.recipientIsAMember(recipient)) }
        let link = Command.change(.setProfile(recipient: recipient, changes: [.field(.member, name)]))
        _ = try GiftList.decide(link, at: Timestamp(millisecondsSinceEpoch: 0), state: session.state)
        return link
    }

    /// Removes the member going by `name` (an owner): a new epoch without them.
    package static func remove(_ name: String, _ session: HouseholdSession, desk: any HouseholdDesk) throws {
        let id = try other(name, session)
        try session.remove(id) { batch in try desk.append(.remove(id), batch: batch, to: session.member.store) }
    }

    /// This member leaves: nothing written afterwards opens for them.
    package static func leave(_ session: HouseholdSession, desk: any HouseholdDesk) throws {
        try session.leave { batch in try desk.append(.leave, batch: batch, to: session.member.store) }
    }

    /// Makes the member going by `name` an owner too (an owner).
    package static func makeOwner(_ name: String, _ session: HouseholdSession, desk: any HouseholdDesk) throws {
        try requireOwner(session)
        let owners = Set(session.members.filter(\.isOwner).map(\.id))
        let id = try other(name, session)
        guard !owners.contains(id) else { throw REPLError(.ownerAlready(name)) }
        try session.makeOwner(id) { batch in try desk.append(.promote(id), batch: batch, to: session.member.store) }
    }

    /// `members`' lines: each member, the owners and you, and for an owner the join requests
    /// waiting.
    package static func members(_ session: HouseholdSession, desk: any HouseholdDesk) throws -> [String] {
        var lines = session.members.map { HouseholdWords.member($0.name, isOwner: $0.isOwner, isYou: $0.id == session.id) }
        if session.members.contains(where: { $0.id == session.id && $0.isOwner }) {
            let waiting = try desk.waitingRequests().count
            if waiting > 0 { lines.append(HouseholdWords.pending(waiting)) }
        }
        return lines
    }

    /// The member going by `name`, not this one.
    private static func other(_ name: String, _ session: HouseholdSession) throws -> MemberID {
        guard let id = session.memberID(named: name), id != session.id else { throw REPLError(.noSuchMember(name)) }
        return id
    }
}

/// `household invite | admit NAME [--safety-number N] | remove NAME | leave | owner NAME |
/// link PERSON MEMBER | unlink PERSON | members | device add|list|remove ID` in a member's open shell, as the `giftkeeper household` one-shots do them
/// (``HouseholdMembership``). `create`, `join` and `recover` are one-shots only.
struct HouseholdCommand: ShellCommand {
    static let configuration = CommandConfiguration(
        commandName: "household", abstract: "In a household: invite, admit, remove, leave, owner, link, unlink, members, device.",
        usage: "household invite | admit <name> [--safety-number <digits>] [--recipient <name>] | remove <name> | leave | owner <name> "
            + "| link <person> <member> | unlink <person> | members | device add | device list | device remove <id>")
    static var runsOneShot: Bool { false }

    static let actions = ["invite", "admit", "remove", "leave", "owner", "link", "unlink", "members", "device"]
    /// The actions that name a member.
    static let naming: Set<String> = ["admit", "remove", "owner"]
    /// The actions that name a person the list plans for.
    static let linking: Set<String> = ["link", "unlink"]

    @Argument(help: "invite, admit, remove, leave, owner, link, unlink, members (when omitted) or device.") var action: String?
    @Argument(help: "The member (admit, remove, owner), the person (link, unlink), or add, list or remove (device).") var name: String?
    @Argument(help: "link: the member the person is; device remove: the device's number.") var member: String?
    @Option(name: .customLong("safety-number"), help: "admit: the number the joiner reads out (asked for when left out).")
    var safetyNumber: String?
    @Option(help: "admit: the name your list already plans for the newcomer under, if any.") var recipient: String?

    static var prompts: [ArgumentPrompt<Self>] {
        [
            ArgumentPrompt(\.name, "Member", after: [\.action], neededWhen: { naming.contains($0.action?.lowercased() ?? "") }),
            ArgumentPrompt(\.name, "Person", after: [\.action], neededWhen: { linking.contains($0.action?.lowercased() ?? "") }),
            ArgumentPrompt(\.member, "Member", after: [\.action, \.name], neededWhen: { $0.action?.lowercased() == "link" }),
            ArgumentPrompt(
                \.member, HouseholdWords.deviceLabel, after: [\.action, \.name],
                neededWhen: { $0.action?.lowercased() == "device" && $0.name?.lowercased() == "remove" }),
            ArgumentPrompt(
                \.safetyNumber, HouseholdWords.safetyNumberLabel, option: "--safety-number", after: [\.action, \.name],
                neededWhen: { $0.action?.lowercased() == "admit" }),
        ]
    }

    static func completions(for request: CompletionRequest, in shell: any Shell) -> [String] {
        request.wordIndex == 1 ? actions : []
    }

    mutating func run(in shell: any Shell) throws {
        _ = try shell.householdMember(for: "household")
        let action = self.action?.lowercased() ?? "members"
        guard Self.actions.contains(action) else { throw REPLError(.unknownAction(command: "household", word: action, actions: Self.actions)) }
        guard let household = shell.service as? HouseholdShellService else { return }
        // Asked for the safety number only when a request waits for it.
        if action == "admit" { _ = try household.changingMembers { _, desk in try HouseholdMembership.waitingRequests(desk) } }
        self = try shell.completing(self)
        let (name, typed, member) = (self.name ?? "", safetyNumber ?? "", self.member ?? "")
        let lines = try household.changingMembers { session, desk -> [String] in
            switch action {
            case "invite": return [try HouseholdMembership.invite(session, desk: desk), HouseholdWords.invited]
            case "admit":
                let linked = try HouseholdMembership.admit(name, recipient: recipient, safetyNumber: { typed }, session, desk: desk)
                return [HouseholdWords.admitted(name)] + (linked.map { [HouseholdWords.linked($0, to: name)] } ?? [])
            case "remove":
                try HouseholdMembership.remove(name, session, desk: desk)
                return [HouseholdWords.removed(name)]
            case "leave":
                try HouseholdMembership.leave(session, desk: desk)
                return [HouseholdWords.left]
            case "owner":
                try HouseholdMembership.makeOwner(name, session, desk: desk)
                return [HouseholdWords.madeOwner(name)]
            case "link":
                try HouseholdMembership.link(name, to: member, session)
                return [HouseholdWords.linked(name, to: member)]
            case "unlink":
                return [HouseholdWords.unlinked(name, from: try HouseholdMembership.unlink(name, session))]
            case "device": return try HouseholdMembership.device(self.name, id: self.member, session, desk: desk)
            default: return try HouseholdMembership.members(session, desk: desk)
            }
        }
        shell.console.print(lines: lines)
        // Nothing more opens for a member who left: their keys go with the session.
        if action == "leave" { try household.signOut() }
    }
}
