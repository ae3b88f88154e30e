@testable import GiftKeeperDomain

/// The event codec (the plaintext of every event frame): whatever it decodes, it encodes
/// to bytes that decode to the same event and encode to the same bytes again; both decode
/// entry points agree.
enum EventCodecCheck {
    static func check(_ input: [UInt8]) throws(InvariantFailure) {
        let fromArray = try? EventCodec.decode(input)
        let fromBuffer = input.withUnsafeBytes { try? EventCodec.decode($0) }
        try require(fromArray == fromBuffer, "the two decode entry points disagree")
        guard let event = fromArray else { return }
        let encoded = EventCodec.encode(event)
        let again: Event
        do {
            again = try EventCodec.decode(encoded)
        } catch {
            throw InvariantFailure(description: "an encoded \(event.typeName) does not decode: \(error)")
        }
        try require(again == event, "an encoded \(event.typeName) decodes to another event")
        try require(EventCodec.encode(again) == encoded, "re-encoding a \(event.typeName) changes its bytes")
    }
}
