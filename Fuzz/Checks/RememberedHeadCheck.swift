@testable import GiftKeeperCrypto
@testable import GiftKeeperSealing
@testable import GiftKeeperService

/// The record of a journal's head this machine keeps (read before any password): its
/// parser takes only a record of the exact layout, and reading one believes it only when
/// its MAC, under the data key of the epoch it names, is the one that key gives. The same
/// bytes are read as a device's posted head too (from the server, untrusted; with the other
/// devices' heads it saw in its second layout), under the same rules.
enum RememberedHeadCheck {
    /// The data key of every epoch, for the check: 32 bytes of 0x42 (nil when guarded
    /// memory could not be had, which fails every check).
    static let dataKey: SecureBytes? = {
        guard let key = try? SecureBytes(capacity: 32, count: 0) else { return nil }
        for _ in 0..<32 { _ = key.append(0x42) }
        return key
    }()
    static let journalPath = "/nonexistent/fuzz.journal"
    static let someJournalID = [UInt8](repeating: 7, count: 16)

    static func check(_ input: [UInt8]) throws(InvariantFailure) {
        guard let dataKey else { throw InvariantFailure(description: "no guarded memory for the check's key") }
        let parsed = AuthenticatedHead.parse(input, posted: false)
        if let head = parsed {
            try require(input.count == AuthenticatedHead.length(posted: false), "a record of another length parses")
            let encoded: [UInt8]
            do {
                encoded = try head.encoded(dataKey: dataKey)
            } catch {
                throw InvariantFailure(description: "a parsed record does not encode: \(error)")
            }
            try require(
                encoded.dropLast(32) == input.dropLast(32),
                "a parsed record's fields are not the bytes it was read from")
        }

        try checkPosted(input, dataKey: dataKey)

        let journalID = parsed?.journalID ?? someJournalID
        Scratch.clear()
        defer { Scratch.clear() }
        Scratch.write(input, to: HeadMemory.path(in: Scratch.directory, journalID: journalID, journalPath: journalPath))
        let result = HeadMemory.read(
            from: Scratch.directory, journalID: journalID, journalPath: journalPath, dataKey: { _ in dataKey })
        switch result {
        case .none:
            throw InvariantFailure(description: "a record that is there reads as none")
        case .keyMissing:
            throw InvariantFailure(description: "a key every epoch has is reported missing")
        case .forged, .unknownLayout:
            if let head = parsed {
                try require((try? head.encoded(dataKey: dataKey)) != input, "a record with the right MAC is not believed")
            }
        case .verified(let head):
            try require(head == parsed, "the record believed is not the one parsed")
            try require((try? head.encoded(dataKey: dataKey)) == input, "a record is believed without the right MAC")
        }
    }

    /// `input` as a posted head: parsed only at its layout's length, its fields the bytes
    /// read, and believed only with the right MAC.
    static func checkPosted(_ input: [UInt8], dataKey: SecureBytes) throws(InvariantFailure) {
        guard let head = AuthenticatedHead.parse(input, posted: true) else { return }
        try require(head.seen.count <= AuthenticatedHead.maximumSeen, "a posted head carries too many others' heads")
        let encoded: [UInt8]
        do {
            encoded = try head.encoded(dataKey: dataKey)
        } catch {
            throw InvariantFailure(description: "a parsed posted head does not encode: \(error)")
        }
        try require(encoded.count == input.count, "a posted head of another length parses")
        try require(encoded.dropLast(32) == input.dropLast(32), "a parsed posted head's fields are not the bytes it was read from")
        let reading = AuthenticatedHead.read(input, journalID: head.journalID, device: head.device) { _ in dataKey }
        switch reading {
        case .verified(let verified):
            try require(verified == head && encoded == input, "a posted head is believed without the right MAC")
        case .forged:
            try require(encoded != input, "a posted head with the right MAC is not believed")
        case .keyMissing, .unknownLayout:
            throw InvariantFailure(description: "a parsed posted head reads as \(reading)")
        }
    }
}
