package import GiftKeeperDomain
import GiftKeeperSealing
package import GiftKeeperService

/// Every sentence the `household` commands say (SPEC §13).
package enum HouseholdWords {
    package static func created(_ household: String, member: String) -> String {
        "Created the household \(household), with you, \(member), its owner. Invite the others with 'giftkeeper household invite'."
    }

    /// The recovery code, shown once: a forgotten password is not a lost identity.
    package static func recoveryCode(_ code: String) -> String {
        "Your recovery code (shown once; keep it somewhere safe, it opens your keys if you forget your password): \(code)"
    }

    package static let recoveryCodePrompt = "Recovery code: "
    package static let notARecoveryCode = "That is not a recovery code (32 hex digits, as 'household create' or your first sign-in showed it)."
    package static let wrongRecoveryCode =
        "That recovery code does not open your keys; nothing was changed. Use the code shown when you joined, or the newest one since."
    package static let recovered = "Your new password is set: sign in with it from now on."

    /// A household's journal shorter than this device verified it (SPEC §5's rollback, per member).
    package static func rolledBack(missing: UInt64) -> String {
        "Rollback detected: \(missing) event\(missing == 1 ? " is" : "s are") missing since your last session on this machine: "
            + "the household's journal on the service was rolled back or replaced. Nothing was read or written; "
            + "ask the service's operator to restore the newer copy."
    }

    /// A household's journal as long as this device verified it, ending in other frames.
    package static func forked(sequence: UInt64) -> String {
        "Rollback detected: the household's journal differs from your last session on this machine at sequence number \(sequence): "
            + "the copy on the service was replaced or forked. Nothing was read or written; "
            + "ask the service's operator to restore the newer copy."
    }

    /// `passwd` in a household: new keys, a new epoch (docs/households.md).
    package static let keysRenewed =
        "Your password is changed and your keys are new: only the new password opens the household on this device, "
        + "and nothing written from now on opens with your old password, recovery code or keys."

    package static func madeOwner(_ name: String) -> String {
        "\(name) is an owner now: they may invite, admit and remove members, and make others owners."
    }

    package static func recipientIsAMember(_ name: String) -> String {
        "\(name) is a member already: what is about them is kept from them without --recipient."
    }
    package static let recipientPrompt = "Is the newcomer someone your list already plans for? Their name there (Enter: no): "
    package static func linked(_ recipient: String, to name: String) -> String {
        "What is about \(recipient) goes to everyone but \(name) from now on."
    }
    package static func unlinked(_ recipient: String, from name: String) -> String {
        "\(recipient) is linked to no member now: what is about them goes to everyone, \(name) too, from now on."
    }
    package static func notLinked(_ recipient: String) -> String {
        "\(recipient) is linked to no member ('household link \(recipient) MEMBER' links them)."
    }
    package static func ownerAlready(_ name: String) -> String { "\(name) is an owner already ('household members' lists the owners)." }

    package static let invited =
        "Hand this code over in person or by phone; it works once, within a day. The joiner runs "
        + "'giftkeeper household join CODE --name NAME --journal PATH --remote URL'."

    package static let joined =
        "Read this safety number out to the owner who invited you; they admit you once theirs is the same. "
        + "Then sign in with your password."

    /// A command of a person's shell that a household's does not have (yet).
    package static func notInAHousehold(_ command: String) -> String {
        "'\(command)' is not available in a household's shell: "
            + (command == "setup"
                ? "a household is made with 'giftkeeper household create' and joined with 'giftkeeper household join'."
                : "it works in a person's journal only, for now.")
    }

    /// A household's command in a person's journal.
    package static func householdOnly(_ command: String) -> String {
        "'\(command)' works in a household: open your record of one with 'giftkeeper --journal RECORD' "
            + "('giftkeeper household create' or 'join' makes it)."
    }

    package static func notAWish(_ text: String) -> String { "'\(text)' is not a wish id (w1, w2, …): 'wishes' lists them." }

    package static let passwordsDiffer = "The two passwords differ; nothing was made."
    package static let notAdmitted =
        "You are not a member of this household: not admitted yet (the owner admits you once your safety numbers match), "
        + "or removed; or your password was changed on another device (then sign in here once with the old password, "
        + "as a one-shot such as 'giftkeeper list': this device asks for the new one and carries itself over)."
    /// Said to a member removed while offline (SPEC §13): what they did offline stays theirs.
    package static func keptOffline(changes: Int) -> String {
        let what = changes == 1 ? "your change made offline stays" : "your \(changes) changes made offline stay"
        return "You are no longer a member of this household (removed while this device was offline): \(what) on this "
            + "device only ('list' and 'export' show them) and are never sent."
    }

    package static let left = "You left the household: nothing written from now on opens for you."

    package static func removed(_ name: String) -> String {
        "Removed \(name): nothing written from now on opens for them. What they could read before, they keep."
    }

    package static func noSuchMember(_ name: String) -> String { "No other member goes by \(name) ('household members' lists them)." }
    package static let noInvitation = "No join request is waiting on an invitation of this device's."
    package static let safetyNumberLabel = "Safety number the joiner reads out"
    package static let safetyNumberPrompt = safetyNumberLabel + ": "

    package static func mismatch(burned: Bool) -> String {
        "The safety number does not match: nobody was admitted"
            + (burned ? ", and the invitation is burned. Invite them again and compare the numbers." : ".")
    }

    package static func admitted(_ name: String) -> String {
        "Admitted \(name). Everything planned from now on for them is kept from them; they see nothing written before."
    }

    package static func member(_ name: String?, isOwner: Bool, isYou: Bool) -> String {
        (name ?? "(not signed in yet)") + (isOwner ? "  owner" : "") + (isYou ? "  (you)" : "")
    }

    package static func pending(_ count: Int) -> String {
        count == 1 ? "1 join request waiting for 'household admit'" : "\(count) join requests waiting for 'household admit'"
    }

    package static func present(_ present: Present, claimedWish: Bool) -> String {
        "\(present.id)  \(present.title)  for \(present.recipient)" + (present.price.map { "  \($0)" } ?? "")
            + (claimedWish ? "  (a claimed wish)" : "")
    }

    /// A claimed wish's present in `list`'s TITLE column.
    package static func claimedTitle(_ title: String) -> String { "\(title) (claimed wish)" }

    /// `show`'s lines for a present: the line `list` shows, then its status, givers and notes.
    package static func details(_ present: Present, givers: [String], claimedWish: Bool) -> [String] {
        [self.present(present, claimedWish: claimedWish), "status: \(present.status)"]
            + (givers.isEmpty ? [] : ["given by: " + givers.joined(separator: ", ")])
            + (present.notes.isEmpty ? [] : ["notes: " + present.notes])
    }

    /// A wish, with who claimed it unless it is `me`'s (nobody sees claims on their own wishes).
    package static func wish(_ wish: Wish, claim: WishClaim?, mine: Bool) -> String {
        var line = "\(wish.id)  \(wish.title)  (\(wish.wisher))"
        if let price = wish.price { line += "  \(price)" }
        if !wish.suggestedBy.isEmpty { line += "  suggested by \(wish.suggestedBy)" }
        if let claim, !mine { line += "  claimed by \(claim.claimer)" }
        return line
    }

    /// A line of a member's history: its position, its author and what they did; nil for a
    /// member signing their name.
    package static func history(author: String?, _ entry: HistoryEntry) -> String? {
        if case .accountCreated? = entry.event?.body { return nil }
        return "\(entry.sequence)  \(author ?? "A member"): \(HistoryWords.sentence(entry))"
    }

    /// What a refusal of the household session says, and its exit code (SPEC §2).
    package static func refusal(_ error: HouseholdSessionError) -> (sentence: String, code: Int32) {
        switch error {
        case .household(.wrongPassword): (wrongPassword, 3)
        case .household(.notAMember): (notAdmitted, 1)
        case .household(.notAnOwner): ("Only an owner of the household may do this.", 2)
        case .household(.noKeyWrap): ("This household's journal holds no key wrap of yours.", 4)
        case .household(.rolledBack(let missing)): (rolledBack(missing: missing), 1)
        case .household(.forked(let sequence)): (forked(sequence: sequence), 1)
        case .household(.refused(let refusal)):
            ("A frame of the household's journal failed verification at sequence \(refusal.sequence): refused.", 1)
        case .household(.notAHousehold): ("Not a household's journal.", 4)
        case .household(.lastOwner):
            ("A household always keeps an owner: make another member an owner first ('household owner NAME').", 2)
        case .household(.notInAudience), .household(.busy): ("Others kept writing first; try again.", 5)
        case .household(.sealing): ("Sealing failed.", 5)
        case .domain: ("Refused by the list's rules.", 2)
        case .nameTaken(let name): ("Another member already goes by \(name).", 2)
        case .invitation(.unreadableCode): ("That is not an invitation code.", 2)
        case .invitation(.ownerKeysDoNotMatch):
            ("The owner's keys the service gave do not match the code: someone in between changed them. Nothing was sent.", 1)
        case .invitation(.badRequest): ("The join request was not made with this invitation's code.", 1)
        case .safetyNumberMismatch: (mismatch(burned: false), 1)
        }
    }
}
