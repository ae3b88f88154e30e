/// What a member's offline change carries when it is sent (docs/threat-model.md, "Offline
/// work and merge in a household"): the identity of the pending change it came from and
/// the shared head it was decided at offline. It sits inside the event's sealed, signed
/// payload, ahead of the event: the server learns nothing new, and only its author's
/// signature vouches for it. A resend finds the author's own marks past the head and sends
/// nothing twice; another member finds what the change overrode of theirs since `base`.
///
/// The payload of a replayed event: `0x80` ‖ origin (16 bytes) ‖ base (8 bytes, little
/// endian) ‖ the event (``EventCodec``). An event's own payload begins with its schema
/// version (`0x01` or `0x02`), so payloads without a mark (every one written before) read as
/// they always did.
package struct ReplayMark: Hashable, Sendable {
    /// The pending change's identity: its last frame's chain hash in the device's pending
    /// file, cut to 16 bytes (random to anyone else: the frames are sealed with fresh nonces).
    package let origin: [UInt8]
    /// The shared head the change was decided at offline.
    package let base: UInt64

    static let tag: UInt8 = 0x80
    package static let originLength = 16

    package init(origin: [UInt8], base: UInt64) {
        self.origin = Array(origin.prefix(Self.originLength))
        self.base = base
    }

    /// `event` (an encoded event) with this mark ahead of it.
    package func marking(_ event: [UInt8]) -> [UInt8] {
        var bytes = [Self.tag] + origin
        bytes.appendLittleEndian(base)
        return bytes + event
    }

    /// The mark a payload carries (nil for an event without one) and the event's bytes; nil
    /// when a mark is cut short.
    package static func split(_ payload: [UInt8]) -> (mark: ReplayMark?, event: [UInt8])? {
        guard payload.first == tag else { return (nil, payload) }
        var reader = ByteReader(payload)
        _ = reader.readByte()
        guard let origin = reader.read(originLength), let base = reader.readLittleEndian(UInt64.self) else { return nil }
        return (ReplayMark(origin: origin, base: base), Array(payload.suffix(reader.remaining)))
    }
}
