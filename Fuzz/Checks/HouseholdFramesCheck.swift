@testable import GiftKeeperCrypto
@testable import GiftKeeperSealing

/// The household's readers of bytes another member, or the server, wrote (docs/journal-
/// format.md, format version 3), read before any key opens them: an epoch frame's clear
/// part, a completion, a leave, a member's key wrap, and an invitation code as typed. The
/// first byte picks the reader; the rest is its input. Each refuses what does not parse,
/// never traps, and what it accepts is every byte of its input.
enum HouseholdFramesCheck {
    static let journalID = [UInt8](repeating: 0x4A, count: 16)
    static let previousHash = [UInt8](repeating: 0x11, count: 32)

    static func check(_ input: [UInt8]) throws(InvariantFailure) {
        guard let selector = input.first else { return }
        let payload = Array(input.dropFirst())
        switch selector % 5 {
        case 0: try checkEpoch(payload)
        case 1: try checkCompletion(payload)
        case 2: try checkLeave(payload)
        case 3: try checkMemberWrap(payload)
        default: try checkInvitationCode(payload)
        }
    }

    /// Whether the reader `input`'s first byte picks accepts the rest.
    static func accepts(_ input: [UInt8]) -> Bool {
        guard let selector = input.first else { return false }
        let payload = Array(input.dropFirst())
        switch selector % 5 {
        case 0: return HouseholdFrames.epoch(payload) != nil
        case 1:
            guard let epoch = HouseholdFrames.completionEpoch(payload) else { return false }
            let position = EpochPosition(journalID: journalID, sequence: 9, previousHash: previousHash, epoch: epoch)
            return HouseholdFrames.completion(payload, of: position) != nil
        case 2: return HouseholdFrames.Leave(payload) != nil
        case 3: return (try? MemberWrapPayload(parsing: payload, binding: .pendingMemberWrap(journalID: journalID))) != nil
        default: return (try? InvitationCode(parsing: String(decoding: payload, as: UTF8.self))) != nil
        }
    }

    static func checkEpoch(_ payload: [UInt8]) throws(InvariantFailure) {
        guard let epoch = HouseholdFrames.epoch(payload) else { return }
        try require(epoch.clear + epoch.sealedBody == payload, "an epoch frame's clear and sealed parts are not its payload")
        try require(Array(payload.prefix(8)) == HouseholdEvents.epochBytes(epoch.epoch), "the epoch is not read from the first 8 bytes")
        let grantBytes = epoch.grants.values.reduce(0) { $0 + $1.count + MemberID.length + 2 }
        try require(epoch.clear.count == 8 + 2 + grantBytes, "the grants read are not the clear part's bytes")
    }

    static func checkCompletion(_ payload: [UInt8]) throws(InvariantFailure) {
        guard let epoch = HouseholdFrames.completionEpoch(payload) else {
            try require(payload.count < 8, "a completion of 8 bytes or more has no epoch")
            return
        }
        let position = EpochPosition(journalID: journalID, sequence: 9, previousHash: previousHash, epoch: epoch)
        guard let completion = HouseholdFrames.completion(payload, of: position) else { return }
        // Encoding sorts the grants by member; what it accepted encodes to as many bytes, and
        // reads back the same.
        let encoded = HouseholdFrames.encode(completion)
        try require(encoded.count == payload.count, "a completion encodes to another length than it was read from")
        let again = HouseholdFrames.completion(encoded, of: position)
        try require(
            again?.completer == completion.completer && again?.audience == completion.audience
                && again?.commitment == completion.commitment && again?.grants == completion.grants
                && again?.signature == completion.signature,
            "a completion does not read back as it was encoded")
    }

    static func checkLeave(_ payload: [UInt8]) throws(InvariantFailure) {
        guard let leave = HouseholdFrames.Leave(payload) else { return }
        try require(
            HouseholdEvents.epochBytes(leave.epoch) + leave.member.bytes + leave.signature == payload,
            "a leave is not its payload, byte for byte")
    }

    static func checkMemberWrap(_ payload: [UInt8]) throws(InvariantFailure) {
        let binding = FrameBinding.pendingMemberWrap(journalID: journalID)
        guard let wrap = try? MemberWrapPayload(parsing: payload, binding: binding) else { return }
        try require(
            payload.count == MemberWrapPayload.length(earlier: wrap.earlierCount), "a member wrap of another length is accepted")
        try require(wrap.clearPart == Array(payload.prefix(wrap.clearPart.count)), "a member wrap's clear part is not its first bytes")
        try require(
            (try? KDFParameters(validatingOpsLimit: wrap.parameters.opsLimit, memLimit: wrap.parameters.memLimit)) != nil,
            "a member wrap with an unsafe key-derivation cost is accepted")
    }

    static func checkInvitationCode(_ payload: [UInt8]) throws(InvariantFailure) {
        if let decoded = Base32.decode(String(decoding: payload, as: UTF8.self)) {
            try require(Base32.decode(Base32.encode(decoded)) == decoded, "base32 does not read back what it wrote")
        }
        try require(Base32.decode(Base32.encode(payload)) == payload, "base32 does not read back the bytes it wrote")
        guard let code = try? InvitationCode(parsing: String(decoding: payload, as: UTF8.self)) else { return }
        let again = try? InvitationCode(parsing: code.text)
        try require(again?.text == code.text, "an invitation code does not read back as it is shown")
    }
}
