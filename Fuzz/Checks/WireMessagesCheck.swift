import Foundation
import GiftKeeperJournal
import GiftKeeperWire

/// The sync service's messages (GiftKeeperWire) on any bytes, as the server decodes a
/// request and a device an answer: whatever decodes as a message encodes to JSON that
/// decodes again and encodes to the very same bytes. What a device takes from an answer
/// verifies: a journal header it accepts is the header's own encoding, and of a page of
/// frames it keeps exactly those that a writer after the same head makes byte for byte
/// (so none that does not verify), in order, reads them back verified, and refuses the
/// first that does not.
enum WireMessagesCheck {
    static let journalID = [UInt8](repeating: 0x6A, count: 16)
    /// The header the page's frames are read against (a device opening that journal).
    static let header: JournalHeader = {
        guard let made = try? VerifiedFrames.newHeader(journalID: journalID, path: "fuzz") else {
            preconditionFailure("a header for a 16-byte id")
        }
        return made.header
    }()

    static func check(_ input: [UInt8]) throws(InvariantFailure) {
        let data = Data(input)
        try roundTrips(data, DeviceProof.self)
        try roundTrips(data, DeviceSignUp.self)
        try roundTrips(data, NewJournal.self)
        try roundTrips(data, AppendRequest.self)
        try roundTrips(data, PostedHeads.self)
        try roundTrips(data, Challenge.self)
        try roundTrips(data, SessionToken.self)
        try roundTrips(data, EnrolmentCode.self)
        try roundTrips(data, DeviceList.self)
        try roundTrips(data, JournalList.self)
        try roundTrips(data, AppendAnswer.self)
        if let info = try roundTrips(data, JournalInfo.self),
            let header = try? VerifiedFrames.header(Array(info.header), path: "fuzz")
        {
            try require(header.encoded == Array(info.header), "a header accepted is not its own encoding")
        }
        if let page = try roundTrips(data, FramePage.self) {
            try requireTakenInVerified(page.frames.map { Array($0) })
        }
    }

    /// Decodes `type` from `data`; if it decodes, its JSON decodes again to the same JSON.
    @discardableResult
    static func roundTrips<Message: Codable>(_ data: Data, _ type: Message.Type) throws(InvariantFailure) -> Message? {
        guard let message = try? JSONDecoder().decode(type, from: data) else { return nil }
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        guard let first = try? encoder.encode(message) else {
            throw InvariantFailure(description: "a decoded \(type) does not encode")
        }
        guard let again = try? JSONDecoder().decode(type, from: first) else {
            throw InvariantFailure(description: "the JSON of a decoded \(type) does not decode: \(String(decoding: first, as: UTF8.self))")
        }
        try require((try? encoder.encode(again)) == first, "decode → encode → decode → encode changes a \(type)")
        return message
    }

    /// A page's frames taken in after the header's genesis, as a device's store takes them.
    static func requireTakenInVerified(_ frames: [[UInt8]]) throws(InvariantFailure) {
        var verified = VerifiedFrames(header: header, path: "fuzz")
        let refused: Bool
        do {
            try verified.takeIn(frames)
            refused = false
        } catch {
            guard case .corrupt = error.code else { throw InvariantFailure(description: "a page is refused as \(error)") }
            refused = true
        }
        let kept = verified.frames
        try require(kept.count <= frames.count && Array(frames.prefix(kept.count)) == kept, "the frames kept are not the page's first ones")
        try require(refused == (kept.count < frames.count), "a page is refused with every frame kept, or cut short without a refusal")
        try require(verified.head.sequence == UInt64(kept.count), "the head is not the last frame kept")

        // Each frame kept is what a writer after the same head makes of its kind and payload.
        var batch = FrameBatch(after: JournalHead(sequence: 0, hash: header.genesisHash), path: "fuzz")
        var read = 0
        do {
            try verified.read(after: 0, progress: nil) { frame in
                try batch.add(kind: frame.kind, payload: Array(frame.payload))
                read += 1
            }
        } catch {
            throw InvariantFailure(description: "frames kept do not read back verified: \(error)")
        }
        try require(read == kept.count, "\(kept.count) frames kept, \(read) read back")
        try require(batch.encodedFrames == kept, "a frame kept is not what a writer makes of its kind and payload")
        try require(batch.head == verified.head, "the head kept is not the writer's")

        // The first frame not kept does not verify after the ones kept.
        if refused {
            var again = VerifiedFrames(header: header, path: "fuzz")
            try require((try? again.takeIn(Array(frames.prefix(kept.count + 1)))) == nil, "a frame refused verifies on its own")
        }
    }
}
