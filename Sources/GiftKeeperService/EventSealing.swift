import GiftKeeperCrypto
import GiftKeeperDomain
import GiftKeeperJournal

/// Seals events into frame payloads and opens them again: the one place that knows
/// which key and which additional data each frame kind uses.
enum EventSealing {
    /// Kind 1: nonce ‖ XChaCha20-Poly1305(EventCodec bytes) ‖ tag under the epoch's data key,
    /// AD = binding(event).
    static func sealed(_ event: Event, dataKey: SecureBytes, binding: FrameBinding) throws -> [UInt8] {
        try AEAD.seal(EventCodec.encode(event), key: dataKey, additionalData: binding.bytes(for: .event))
    }

    /// Kind 2: crypto_box_seal(binding(failedLoginRecord) ‖ EventCodec bytes) to the
    /// epoch's public key. A sealed box has no additional data, so the binding travels
    /// inside and is compared on opening.
    static func sealedToPublicKey(_ event: Event, publicKey: [UInt8], binding: FrameBinding) throws -> [UInt8] {
        try SealedBox.seal(binding.bytes(for: .failedLoginRecord) + EventCodec.encode(event), to: publicKey)
    }

    enum OpenFailure: Error {
        case doesNotAuthenticate(String)
        case undecodable(EventDecodingError)
    }

    static func open(
        _ frame: FrameView, binding: FrameBinding, epoch: Keyring.Epoch
    ) throws(OpenFailure) -> Event {
        let plaintext: [UInt8]
        switch frame.kind {
        case .dataSealed:
            do {
                plaintext = try AEAD.open(frame.payload, key: epoch.dataKey, additionalData: binding.bytes(for: .event))
            } catch {
                throw .doesNotAuthenticate("event does not authenticate under its data key")
            }
        case .publicSealed:
            let opened: [UInt8]
            do {
                opened = try SealedBox.open(frame.payload, with: epoch.boxKeyPair)
            } catch {
                throw .doesNotAuthenticate("failed-login record does not open")
            }
            let expected = binding.bytes(for: .failedLoginRecord)
            guard opened.count >= expected.count, constantTimeEqual(Array(opened[..<expected.count]), expected) else {
                throw .doesNotAuthenticate("failed-login record belongs elsewhere (moved or spliced)")
            }
            plaintext = Array(opened[expected.count...])
        case .keyWrap:
            throw .doesNotAuthenticate("a key wrap is not an event")
        }
        let event: Event
        do {
            event = try EventCodec.decode(plaintext)
        } catch {
            throw .undecodable(error)
        }
        if frame.kind == .publicSealed, event.type != .loginFailed {
            throw .doesNotAuthenticate("only failed logins may be sealed to the public key")
        }
        return event
    }
}
